//! Sessions: adding a transcript source, ingesting it from the UI, and reading a session in the
//! viewer, down to its compaction marker.

use crate::harness::{App, ensure};
use crate::world::{COMPACTED_SESSION, World, corpus_claude_code};

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display, tauri-driver and the built app; run by scripts/test.sh"]
async fn sessions_ingest_from_the_ui_and_show_a_compaction_marker() {
    let world = World::new();
    let Some(source) = corpus_claude_code() else {
        return;
    };
    let source = source.display().to_string();

    App::with(&world, async |ui| {
        ui.click("#nav-sessions").await?;
        // A new user sees the empty state and what was looked for.
        let empty = ui.text("#sessions-empty").await?;
        ensure!(empty.contains("No sessions yet"), "{empty}");

        // Add the fixture root as a Claude Code source and ingest it from the UI: sources live
        // in Settings, which the Sessions page links to.
        ui.click("#sessions-sources").await?;
        ui.type_into("#source-root", &source).await?;
        ui.click("#source-add").await?;
        ui.wait_text("table.sources", |t| t.contains(&source))
            .await?;
        ui.click("#ingest-start").await?;
        let status = ui
            .wait_text("#ingest-status", |t| t.starts_with("Ingest finished"))
            .await?;
        ensure!(status.contains("5 files"), "{status}");
        ensure!(status.contains("177 new records"), "{status}");

        // Open the compacted session and find its compaction point.
        ui.click("#nav-sessions").await?;
        ui.click(&format!("[data-session-id='{COMPACTED_SESSION}']"))
            .await?;
        let total = ui.wait_text("#viewer-total", |t| !t.is_empty()).await?;
        // The header counts the session's turns as its row in the list does (the compaction
        // marker is a row of the transcript, not a turn).
        let row = ui
            .text(&format!(
                ".session-row[data-session-id='{COMPACTED_SESSION}']"
            ))
            .await?;
        ensure!(row.contains(&format!("· {total}")), "{row} / {total}");
        ui.click(".compaction-jump").await?;
        ui.find(".turn-row.compaction").await?;
        // textContent, not WebDriver's rendered text: the row's text cell is clipped with an
        // ellipsis, which WebKitWebDriver reports as empty.
        let marker = ui
            .js("return document.querySelector('.turn-row.compaction').textContent")
            .await?;
        let marker = marker.as_str().unwrap_or_default().to_owned();
        ui.screenshot("compaction").await;
        ensure!(marker.contains("Compaction"), "{marker}");
        ensure!(marker.contains("142431 tokens summarised away"), "{marker}");
        let detail = ui
            .wait_text(".turn-detail", |t| t.contains("tokens before compaction"))
            .await?;
        ensure!(
            detail.contains("142431 tokens before compaction"),
            "{detail}"
        );
        // The summary that replaced the history follows the marker.
        let summary = ui
            .js("return document.querySelector('.turn-row.compaction_summary').textContent")
            .await?;
        let summary = summary.as_str().unwrap_or_default().to_owned();
        ensure!(
            summary.contains("This session is being continued"),
            "{summary}"
        );
        ui.screenshot("sessions").await;
        Ok(())
    })
    .await;
}
