//! The Timeline: every kind of item the review world produces, the harness filter, and the
//! links from its items to the session, the node and the proposal they are about. (Pushes and
//! watched files reach it in the `home` and `settings` tests.)

use crate::harness::{App, ensure};
use crate::world::{QUESTION, review_world};

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display, tauri-driver and the built app; run by scripts/test.sh"]
async fn timeline_items_open_their_sessions_proposals_and_nodes() {
    // The review world (three sessions three weeks ago, their captures, two proposals) with the
    // directive approved through the engine, as Review would.
    let world = review_world();
    let node = world.approve(&world.directive);
    let obligation = world.obligation.proposal_id;
    let item = |kind: &str| format!("#timeline-items li.timeline-item[data-kind='{kind}']");

    App::with(&world.world, async |ui| {
        ui.click("#nav-timeline").await?;
        // Every kind the world has: three sessions, their captures, two proposals, one approval.
        ui.wait_count(&item("session"), 3).await?;
        ui.wait_count(&item("promotion"), 3).await?;
        ensure!(!ui.find_all(&item("capture")).await?.is_empty());
        let legend = ui.text("#timeline-legend").await?;
        ensure!(legend.contains("Henderson"), "{legend}");
        ui.screenshot("timeline-world").await;

        // A harness keeps its sessions and captures only; another harness has nothing here.
        ui.select("#timeline-harness", "claude_code").await?;
        ui.wait_count(&item("promotion"), 0).await?;
        ui.wait_count(&item("session"), 3).await?;
        ui.select("#timeline-harness", "codex").await?;
        let empty = ui.text("#timeline-empty").await?;
        ensure!(
            empty.contains("Nothing happened in the past 30 days"),
            "{empty}"
        );

        // A session item opens the session's transcript.
        ui.click("#nav-sessions").await?;
        ui.click("#nav-timeline").await?;
        ui.click("li.timeline-item[data-kind='session'][data-target='session:hend-1']")
            .await?;
        ui.find(".session-row.active[data-session-id='hend-1']")
            .await?;

        // The approval opens the node on the Knowledge page.
        ui.click("#nav-timeline").await?;
        ui.click(&format!("li.timeline-item[data-target='node:{node}']"))
            .await?;
        ui.find(&format!("li.node-row.active[data-node-id='{node}']"))
            .await?;

        // The obligation's proposal opens in Review, with its evidence.
        ui.click("#nav-timeline").await?;
        ui.click(&format!(
            "li.timeline-item[data-target='proposal:{obligation}']"
        ))
        .await?;
        ui.find(&format!("#review-detail[data-proposal-id='{obligation}']"))
            .await?;
        let detail = ui.text("#review-detail").await?;
        ensure!(detail.contains(QUESTION), "{detail}");
        Ok(())
    })
    .await;
}
