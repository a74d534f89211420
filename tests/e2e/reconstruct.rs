//! Reconstruct: on a store the continuity agent captured, comparing with today's detectors finds
//! nothing to change; once a captured entry is missing from its log (as an older detector would
//! have left it), the comparison shows exactly that entry as one to add, applying it after the
//! confirmation writes it back with a backup of the log, and comparing again finds nothing.

use crate::harness::{App, Check, Ui, ensure, ensure_eq};
use crate::world::{backups, drop_one_captured_entry, reconstruct_world};

/// The text of the first element matching `css`, read from the page itself: WebDriver's own
/// text is empty for parts of the page it thinks are cut off, such as a folded context.
async fn content(ui: &Ui, css: &str) -> Check<String> {
    ui.find(css).await?;
    let text = ui
        .js_with(
            "return document.querySelector(arguments[0]).textContent",
            serde_json::json!(css),
        )
        .await?;
    Ok(text.as_str().unwrap_or_default().to_owned())
}

/// The number a count chip of the totals shows.
async fn total(ui: &Ui, count: &str) -> Check<String> {
    let css = format!("#reconstruct-totals [data-count='{count}'] strong");
    Ok(content(ui, &css).await?.trim().to_owned())
}

/// Compares with today's detectors and waits until the page says there is nothing to change.
async fn compare_finds_nothing(ui: &Ui) -> Check {
    ui.click("#reconstruct-compare").await?;
    let none = content(ui, "#reconstruct-none").await?;
    ensure_eq!(
        none.trim(),
        "No differences: capture today would write exactly what the store holds."
    );
    ensure_eq!(ui.find_all("li.diff-line").await?.len(), 0);
    ensure_eq!(ui.find_all("#reconstruct-apply").await?.len(), 0);
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display, tauri-driver and the built app; run by scripts/test.sh"]
async fn a_missing_entry_is_shown_applied_after_confirmation_and_then_nothing_differs() {
    let world = reconstruct_world();
    let (wc, headline) = App::with(&world, async |ui| {
        ui.click("#nav-reconstruct").await?;
        ui.find("#nav-reconstruct.active").await?;
        // Today's detectors are the default; the model's warning shows only once it is chosen.
        ensure!(
            ui.find("#reconstruct-mode-deterministic")
                .await?
                .prop("checked")
                .await?
                .as_deref()
                == Some("true"),
            "the deterministic mode is not chosen by default"
        );
        ensure_eq!(ui.find_all("#reconstruct-model-warning").await?.len(), 0);
        ui.click("#reconstruct-mode-model").await?;
        let warning = content(ui, "#reconstruct-model-warning").await?;
        ensure!(
            warning.contains("once for every recorded capture window")
                && warning.contains("spending limit"),
            "{warning}"
        );
        ui.screenshot("reconstruct-model-warning").await;
        ui.click("#reconstruct-mode-deterministic").await?;
        ui.wait_gone("#reconstruct-model-warning").await?;

        // The store as the agent captured it: the replay writes exactly the same.
        compare_finds_nothing(ui).await?;
        let replayed = content(ui, "#reconstruct-replayed").await?;
        ensure!(
            replayed.starts_with("Replayed ") && replayed.contains("with today's detectors."),
            "{replayed}"
        );
        ensure!(total(ui, "same").await? != "0", "nothing was compared");
        ui.screenshot("reconstruct-no-differences").await;

        // An older detector never made one of the captured entries.
        let (wc, headline) = drop_one_captured_entry(&world.store());
        ui.click("#reconstruct-compare").await?;
        let some = content(ui, "#reconstruct-some").await?;
        ensure_eq!(some.trim(), "1 difference in 1 work context.");
        ensure_eq!(total(ui, "added").await?, "1");
        ensure_eq!(total(ui, "removed").await?, "0");
        ensure_eq!(total(ui, "changed").await?, "0");
        ensure_eq!(total(ui, "kept").await?, "0");
        let lines = ui.find_all("li.diff-line").await?;
        ensure_eq!(lines.len(), 1);
        let context = format!("details.reconstruct-context[data-context='{wc}']");
        let line = content(ui, &format!("{context} li.diff-line[data-change='added']")).await?;
        let start: String = headline.chars().take(100).collect();
        ensure!(
            line.starts_with("+ ") && line.contains(&start),
            "{line:?} does not add {headline:?}"
        );
        ui.screenshot("reconstruct-one-to-add").await;

        // Apply asks first, saying what it rewrites and what it keeps.
        ui.click("#reconstruct-apply").await?;
        let what = content(ui, "#reconstruct-confirm-what").await?;
        ensure!(
            what.contains("capture-made entries and session summaries of 1 work context")
                && what.contains("1 entry added, 0 removed, 0 changed"),
            "{what}"
        );
        let kept = content(ui, "#reconstruct-confirm-kept").await?;
        ensure!(
            kept.contains("Items you reviewed stay") && kept.contains("continuity/backup/"),
            "{kept}"
        );
        ui.screenshot("reconstruct-confirm").await;
        // Cancelling changes nothing; the second time it is applied.
        ui.click("#reconstruct-confirm-cancel").await?;
        ui.wait_gone("#reconstruct-confirm").await?;
        ui.click("#reconstruct-apply").await?;
        ui.click("#reconstruct-confirm-apply").await?;
        let applied = content(ui, "#reconstruct-applied").await?;
        ensure!(
            applied.contains("1 entry added, 0 removed and 0 changed")
                && applied.contains("continuity/backup/"),
            "{applied}"
        );
        ensure!(
            content(ui, ".reconstruct-backups")
                .await?
                .contains(".jsonl"),
            "no backup is named"
        );
        ui.screenshot("reconstruct-applied").await;

        // The store now holds what capture writes today.
        compare_finds_nothing(ui).await?;
        ui.screenshot("reconstruct-nothing-left").await;
        Ok((wc, headline))
    })
    .await;

    // On disk: the entry is back in its log, and the log as it was is kept.
    let store = world.store();
    let back = store
        .log(&wc)
        .read()
        .unwrap()
        .entries
        .iter()
        .filter(|e| e.content.headline() == headline)
        .count();
    assert_eq!(back, 1, "the entry was not written back");
    assert!(!backups(&store).is_empty(), "no backup was kept");
}
