//! Settings: the tracked folders and ignore patterns the file watcher works from, and the
//! observations of it that reach the Timeline. (The continuity mode and fields are checked where
//! they matter, in `home` and `contexts`; living memory in `inspector`.)

use crate::harness::{App, ensure, ensure_eq};
use crate::world::{ObservationFilter, World};

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display, tauri-driver and the built app; run by scripts/test.sh"]
async fn tracked_folders_in_settings_feed_the_timeline() {
    let world = World::new();
    world.store();
    let notes = world.path("notes");
    std::fs::create_dir(&notes).unwrap();
    std::fs::write(notes.join("plan.md"), "# Quarterly plan\n\nSteps.\n").unwrap();
    let notes_path = notes.display().to_string();
    let gone = world.path("archive");

    App::with(&world, async |ui| {
        ui.click("#nav-settings").await?;
        let empty = ui.text("#tracked-folders-empty").await?;
        ensure!(empty.contains("No folders tracked yet"), "{empty}");
        // Started with the app, with nothing to watch yet.
        ui.wait_text("#watcher-state", |t| t == "running").await?;
        let defaults = ui.text("#default-ignores").await?;
        ensure!(defaults.contains(".git"), "{defaults}");

        // Track the folder: it is listed, and the watcher's first scan finds its one file.
        ui.type_into("#tracked-folder-path", &format!("{notes_path}\u{E007}"))
            .await?;
        let listed = ui
            .wait_text("#tracked-folder-list", |t| t.contains(&notes_path))
            .await?;
        ensure!(listed.contains("watched"), "{listed}");
        ui.wait_text("#watcher-files", |t| {
            t.starts_with("1 file known") && t.contains("last full check")
        })
        .await?;
        // A folder that is not there is tracked all the same, badged missing.
        ui.type_into("#tracked-folder-path", &gone.display().to_string())
            .await?;
        ui.click("#tracked-folder-add").await?;
        let missing = ui
            .text(&format!(
                "tr.tracked-folder.missing[data-path='{}']",
                gone.display()
            ))
            .await?;
        ensure!(missing.contains("missing"), "{missing}");
        // A folder inside a tracked one is refused, with the engine's reason.
        ui.type_into("#tracked-folder-path", &format!("{notes_path}/sub\u{E007}"))
            .await?;
        let refused = ui.text("#tracked-folders-error").await?;
        ensure!(refused.contains("overlaps the tracked folder"), "{refused}");

        // The person's ignore pattern, saved as the engine keeps it.
        ui.type_into("#ignore-patterns", "*.bak\n\n").await?;
        ui.click("#ignore-save").await?;
        ui.find("#ignore-saved").await?;
        let saved = ui.find("#ignore-patterns").await?.prop("value").await?;
        ensure_eq!(saved.as_deref(), Some("*.bak"));
        ui.screenshot("tracked-folders").await;

        // A new note is observed and lands on the Timeline; the ignored file does not.
        std::fs::write(notes.join("draft.bak"), "scratch\n").unwrap();
        std::fs::write(
            notes.join("kickoff.md"),
            "# Henderson kickoff notes\n\nAgreed the scope.\n",
        )
        .unwrap();
        ui.click("#nav-timeline").await?;
        let item = "#timeline-items li.timeline-item[data-kind='observation']";
        // The Timeline does not follow the watcher by itself: refresh until the note is there.
        ui.wait_until("the new note to reach the Timeline", async || {
            if ui.find_all(item).await?.is_empty() {
                ui.click("#timeline-refresh").await?;
                return Ok(None);
            }
            Ok(Some(()))
        })
        .await?;
        let items = ui
            .wait_text("#timeline-items", |t| t.contains("kickoff"))
            .await?;
        ensure!(items.contains("Henderson kickoff notes"), "{items}");
        ensure!(!items.contains("draft.bak"), "{items}");
        ui.click(item).await?;
        let path = ui.text("#observation-path").await?;
        ensure_eq!(path, notes.join("kickoff.md").display().to_string());
        ensure_eq!(
            ui.text("#observation-title").await?,
            "Henderson kickoff notes"
        );
        ensure_eq!(ui.text("#observation-kind").await?, "File created");

        // Stop tracking the folder: the list keeps only the missing one.
        ui.click("#nav-settings").await?;
        ui.click(&format!(
            "tr.tracked-folder[data-path='{notes_path}'] .folder-remove"
        ))
        .await?;
        ui.wait_text("#tracked-folder-list", |t| !t.contains(&notes_path))
            .await?;
        Ok(())
    })
    .await;

    // On disk, through the engine: what Settings saved, and the observation it led to.
    let store = world.store();
    let tracked = store.tracked_folders().load().unwrap();
    assert_eq!(tracked.folders, [gone]);
    assert_eq!(tracked.ignore_patterns, ["*.bak"]);
    let observed = store
        .graph()
        .observations(&ObservationFilter::default())
        .unwrap();
    let paths: Vec<_> = observed.iter().filter_map(|o| o.path.clone()).collect();
    assert_eq!(paths, [notes.join("kickoff.md")]);
}
