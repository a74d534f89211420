//! [`Loaded`]: how the app shows a read from the shell. While the first read is under way it says
//! what it is reading; a later read keeps the last result on screen until the new one arrives (a
//! `Transition`, so lists do not flicker on every refresh); a refused read shows the engine's
//! message in the house's error box.

use std::sync::Arc;

use elnor_types::CommandError;
use leptos::prelude::*;

/// Shows every error an `ErrorBoundary` caught, as readable text.
fn error_list(errors: ArcRwSignal<Errors>) -> impl IntoView {
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

/// Renders `children` with the value of `resource` once it is read, the loading note before, and
/// the error box if the shell refused.
#[component]
pub fn Loaded<T, V, F>(
    /// The read to show.
    resource: LocalResource<Result<T, CommandError>>,
    /// What the page says while the first read is under way, such as "Reading the graph…".
    loading: &'static str,
    /// Whether the loading note sits inside a line (a `<span>`, as beside a form label) rather
    /// than being a paragraph of its own (a `<p>`).
    #[prop(optional)]
    inline: bool,
    /// The view of the value read.
    children: F,
) -> impl IntoView
where
    T: Clone + Send + Sync + 'static,
    V: IntoView + 'static,
    F: Fn(T) -> V + Send + Sync + 'static,
{
    // Shared rather than cloned: the closure below runs again on every read, and `F` need not be
    // `Clone`.
    let children = Arc::new(children);
    let fallback = move || {
        if inline {
            view! { <span class="hint">{loading}</span> }.into_any()
        } else {
            view! { <p class="hint">{loading}</p> }.into_any()
        }
    };
    view! {
        <Transition fallback>
            <ErrorBoundary fallback=error_list>
                {move || {
                    let children = Arc::clone(&children);
                    Suspend::new(async move { resource.await.map(|value| children(value)) })
                }}
            </ErrorBoundary>
        </Transition>
    }
}
