//! One module per view.

pub mod contexts;
pub mod home;
pub mod sessions;
pub mod settings;

use leptos::prelude::*;

/// Shows every error an `ErrorBoundary` caught, as readable text.
pub fn error_list(errors: ArcRwSignal<Errors>) -> impl IntoView {
    view! {
        <div class="error" role="alert">
            {move || {
                errors
                    .get()
                    .into_iter()
                    .map(|(_, e)| view! { <p class="error-message">{e.to_string()}</p> })
                    .collect_view()
            }}
        </div>
    }
}
