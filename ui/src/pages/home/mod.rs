//! Home: the projects found in the history (newest work first, each with its sessions, when it
//! was last active and where it stood: phase, the latest summary, open questions), the push box ("I just did X") with the most recent observations below it, the brief a
//! fresh agent session would get now (a preview assembled by the engine, with its token counts per
//! tier and a link to the Inspector's explanation), then the store's status (path, schema, counts,
//! mode), read through `status_get`.

mod brief;
mod projects;
mod recent;
mod status;

use leptos::prelude::*;

use crate::api;
use crate::components::Loaded;
use brief::BriefPanel;
use projects::ProjectsCard;
use recent::PushCard;
use status::StatusCard;

#[component]
pub fn Home() -> impl IntoView {
    let status = LocalResource::new(api::status_get);
    view! {
        <h2>"Home"</h2>
        <ProjectsCard />
        <PushCard />
        <BriefPanel />
        <Loaded resource=status loading="Reading the store…" let:s>
            <StatusCard status=s />
        </Loaded>
    }
}
