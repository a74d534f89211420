//! Today, the page the app opens on: what needs the person first (proposals to review, capture
//! health, the open questions waiting longest, what moved since they last looked), then their
//! projects with where each stands, the push box ("I just did X") with what was observed lately,
//! the brief a fresh agent session would get now (rendered as its cards, the raw text one click
//! away), and last the store's own facts. Reading Today is the person looking: the engine
//! remembers it for the next visit's "moved since you last looked".

mod brief;
mod needs;
mod projects;
mod recent;
mod status;

use leptos::prelude::*;

use crate::api;
use crate::app::use_activity;
use crate::components::Loaded;
use brief::BriefPanel;
use needs::NeedsCard;
use projects::ProjectsCard;
use recent::PushCard;
use status::StatusCard;

#[component]
pub fn Home() -> impl IntoView {
    let activity = use_activity();
    let today = LocalResource::new(move || {
        activity.0.track();
        api::today_get()
    });
    let status = LocalResource::new(api::status_get);
    view! {
        <h2>"Today"</h2>
        <Loaded resource=today loading="Reading what needs you…" let:t>
            <NeedsCard today=t.clone() />
            <ProjectsCard total=t.project_count />
        </Loaded>
        <PushCard />
        <BriefPanel />
        <Loaded resource=status loading="Reading the store…" let:s>
            <StatusCard status=s />
        </Loaded>
    }
}
