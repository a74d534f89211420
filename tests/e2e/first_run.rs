//! The first run (issue 14): Home's list of the projects found in a history ingested and captured
//! as a new user would, and the Work contexts list's filter.

use crate::harness::{App, ensure, ensure_eq};
use crate::world::first_run_world;

/// Home lists the projects found, newest work first, with their sessions, when each was last
/// active (the work's own time) and where it stood; the Work contexts list is filtered in place
/// by the filter box.
#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display, tauri-driver and the built app; run by scripts/test.sh"]
async fn first_run_shows_the_projects_found_and_the_context_filter_narrows_the_list() {
    let (world, expected, mut spotter) = first_run_world();
    spotter.sort();

    App::with(&world, async |ui| {
        ui.find("#projects-overview li").await?;
        let mut shown = Vec::new();
        for row in ui.find_all("#projects-overview > li").await? {
            shown.push(row.attr("data-work-context-id").await?.unwrap_or_default());
        }
        let want: Vec<String> = expected
            .iter()
            .map(|p| p.work_context_id.to_string())
            .collect();
        ensure_eq!(shown, want, "newest work first, as the engine orders it");
        let first = ui.text("#projects-overview > li:first-child").await?;
        ensure!(first.contains(&expected[0].name), "{first}");
        ensure!(first.contains("last active"), "{first}");
        let sessions = expected[0].session_count;
        ensure!(first.contains(&format!("{sessions} session")), "{first}");
        ui.screenshot("first-run-home").await;

        // A project opens its work context.
        ui.click("#projects-overview > li:first-child a").await?;
        ui.wait_text("#wc-detail", |t| t.contains(&expected[0].name))
            .await?;

        // The filter hides the rows that do not match, in place.
        let filter = ui.find("#context-filter").await?;
        filter.send_keys("spotter").await?;
        ui.wait_until(format!("the filtered rows to be {spotter:?}"), async || {
            let mut ids = Vec::new();
            for row in ui
                .find_all(".context-list .context-row:not(.filtered-out)")
                .await?
            {
                ids.push(row.attr("data-work-context-id").await?.unwrap_or_default());
            }
            ids.sort();
            Ok((ids == spotter).then_some(()))
        })
        .await?;
        ui.screenshot("contexts-filtered").await;
        filter.clear().await?;
        filter.send_keys(" ").await?;
        // Clearing the filter brings every row back.
        ui.wait_gone(".context-list .context-row.filtered-out")
            .await?;
        Ok(())
    })
    .await;
}
