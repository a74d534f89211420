//! Settings: the tracked folders and ignore patterns the file watcher works from, and the
//! observations of it that reach the Timeline; the Search card's long jobs (the model download
//! from a local mirror, cancelled and then finished, the embedding backfill, and search by meaning
//! afterwards; the backfill's error without a model, and the index rebuild); Sync (a remote set,
//! a sync that takes in another device's work, the sidebar's light and Today's line about what
//! arrived). (The continuity mode and fields are checked where
//! they matter, in `home` and `contexts`; living memory in `inspector`.)

use crate::harness::{App, Check, Ui, ensure, ensure_eq};
use crate::model_mirror;
use crate::world::{EMBEDDING_TOPICS, ObservationFilter, World, embedding_world};

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

/// Opens Settings and waits until the cards that load above the Search card have loaded: until
/// then a click aims at a button that the arriving config cards are about to push down the page.
async fn open_settings(ui: &Ui) -> Check {
    ui.click("#nav-settings").await?;
    ui.find("#mode-full").await?;
    ui.find("#cfg-embedding_provider").await?;
    ui.wait_text("#embed-coverage", |t| t.ends_with("documents embedded."))
        .await?;
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display, tauri-driver and the built app; run by scripts/test.sh"]
async fn settings_downloads_the_model_builds_embeddings_and_search_ranks_by_meaning() {
    let Some(real) = model_mirror::real_model_dir() else {
        return;
    };
    let mut world = embedding_world();
    let models = world.path("models");
    std::fs::create_dir(&models).unwrap();
    world.set_app_env("ELNOR_MINILM_DIR", &models);
    world.set_app_env("ELNOR_MODEL_BASE_URL", model_mirror::serve(&real));
    // The person's four turns and the agent's four replies.
    let documents = 2 * EMBEDDING_TOPICS.len();

    App::with(&world, async |ui| {
        open_settings(ui).await?;
        let embedder = ui.text("#embedder").await?;
        ensure!(embedder.contains("all-MiniLM-L6-v2"), "{embedder}");
        ui.wait_text("#embed-coverage", |t| {
            t == format!("0 of {documents} documents embedded.")
        })
        .await?;

        // The download shows the file it is on and its bytes, with a bar; cancelled while it
        // fetches the weights, it stops and keeps nothing of them.
        ui.click("#model-download-start").await?;
        let progress = ui
            .wait_text("#model-download-status", |t| t.contains("(file 2 of 2)"))
            .await?;
        ensure!(
            progress.starts_with("Downloading model.safetensors (file 2 of 2): "),
            "{progress}"
        );
        ensure!(progress.contains(" MB of 90.9 MB"), "{progress}");
        ui.find("#model-download-progress").await?;
        ui.screenshot("settings-model-download").await;
        ui.click("#model-download-cancel").await?;
        let cancelled = ui
            .text("#model-download-status[data-state='cancelled']")
            .await?;
        ensure_eq!(cancelled, "Download cancelled; nothing partial was kept.");
        ui.wait_gone("#model-download-cancel").await?;
        let left: Vec<String> = std::fs::read_dir(&models)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        ensure_eq!(
            left,
            ["vocab.txt"],
            "only the whole, checked vocabulary stays"
        );

        // Again, to the end: the weights are fetched and checked, and the model is in place.
        ui.click("#model-download-start").await?;
        let done = ui
            .text("#model-download-status[data-state='finished']")
            .await?;
        ensure!(
            done.starts_with("Downloaded model.safetensors (90.9 MB) into "),
            "{done}"
        );
        for file in model_mirror::FILES {
            ensure!(models.join(file).is_file(), "{file} missing");
        }

        // The backfill embeds every document, and the coverage line says so.
        ui.click("#embeddings-start").await?;
        let built = ui.text("#embeddings-status[data-state='finished']").await?;
        ensure_eq!(
            built,
            format!(
                "Embedded {documents} documents: {documents} of {documents} documents embedded."
            )
        );
        ui.wait_text("#embed-coverage", |t| {
            t == format!("{documents} of {documents} documents embedded.")
        })
        .await?;
        ui.screenshot("settings-search").await;

        // Search by meaning: words the hiking turn does not say find it first, with a rank by
        // meaning in its why line, and nothing fell back.
        ui.click("#nav-search").await?;
        ui.select("#search-strategy", "hybrid").await?;
        ui.type_into("#search-query", "mountain walking holiday\u{E007}")
            .await?;
        ui.find("#search-summary").await?;
        let first = "#search-hits li.search-hit:first-child";
        let excerpt = ui
            .js(&format!(
                "return document.querySelector(\"{first}\").textContent"
            ))
            .await?;
        let excerpt = excerpt.as_str().unwrap_or_default().to_owned();
        ensure!(excerpt.contains("hiking trip in the Alps"), "{excerpt}");
        ensure!(
            ui.find_all("#search-fallback").await?.is_empty(),
            "the search fell back"
        );
        // The best hit is selected; its detail beside the list says why it ranked first.
        ui.find(&format!("{first}.active")).await?;
        let line = ui
            .wait_text("#search-detail-why .why-line", |t| !t.is_empty())
            .await?;
        ensure!(line.contains("meaning: rank 1 (similarity "), "{line}");
        Ok(())
    })
    .await;
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display, tauri-driver and the built app; run by scripts/test.sh"]
async fn building_embeddings_without_a_model_says_why_and_the_index_rebuilds() {
    let world = embedding_world();

    App::with(&world, async |ui| {
        open_settings(ui).await?;
        ui.click("#embeddings-start").await?;
        let failed = ui.text("#embeddings-status[data-state='failed']").await?;
        ensure!(
            failed.starts_with("Building the embeddings failed: no embedding model is installed"),
            "{failed}"
        );
        ensure!(
            failed.contains("the app's Settings download it"),
            "{failed}"
        );
        ensure!(ui.find_all("#embeddings-cancel").await?.is_empty());
        // Nothing was embedded, and the button can be pressed again.
        ensure_eq!(
            ui.text("#embed-coverage").await?,
            format!("0 of {} documents embedded.", 2 * EMBEDDING_TOPICS.len())
        );
        ensure!(
            ui.find("#embeddings-start").await?.is_enabled().await?,
            "the button stayed disabled"
        );

        // The index rebuild needs no model: it finishes and counts what it indexed.
        ui.click("#reindex-start").await?;
        let rebuilt = ui.text("#reindex-status[data-state='finished']").await?;
        ensure_eq!(
            rebuilt,
            format!(
                "Rebuilt the search index: {} documents.",
                2 * EMBEDDING_TOPICS.len()
            )
        );
        Ok(())
    })
    .await;
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display, tauri-driver and the built app; run by scripts/test.sh"]
async fn settings_sets_a_sync_remote_syncs_and_shows_what_arrived() {
    use elnor_engine::{NewWorkContext, Push, Store, SyncRequest};
    let world = World::new();
    world.store();
    let remote = world.path("memory.git");
    std::fs::create_dir(&remote).unwrap();
    if !elnor_fixtures::bare_git_remote(&remote) {
        eprintln!("skipped: no git on PATH");
        return;
    }
    let url = remote.display().to_string();
    let owner = "dana@example.org";
    // The laptop, another device of the same person, synced its work first.
    let laptop = Store::open(world.path("laptop")).unwrap();
    let now = elnor_engine::now();
    let new = NewWorkContext {
        name: "Grant proposal".into(),
        ..NewWorkContext::default()
    };
    let wc = elnor_engine::create_work_context(&laptop, &new, now)
        .unwrap()
        .value
        .work_context_id;
    let push = Push {
        text: "Sent the budget table to the co-applicants".into(),
        work_context: Some(wc.clone()),
        entities: Vec::new(),
    };
    elnor_engine::push(&laptop, &push, now).unwrap();
    let req = SyncRequest {
        remote: Some(url.clone()),
        owner: Some(owner.into()),
    };
    elnor_engine::sync(&laptop, &req, now).unwrap();

    App::with(&world, async |ui| {
        ui.find("#sync-light[data-light='off']").await?;
        ui.click("#nav-settings").await?;
        ui.find("#sync-off").await?;
        ui.type_into("#sync-owner", owner).await?;
        ui.type_into("#sync-remote", &url).await?;
        ui.click("#sync-set-remote").await?;
        let said = ui
            .wait_text("#sync-result", |t| t.starts_with("Synced"))
            .await?;
        ensure!(said.contains("in Grant proposal"), "{said}");
        ensure_eq!(ui.text("#sync-remote-now").await?, url);
        let arrival = ui.text("#sync-arrival").await?;
        ensure!(arrival.contains("Grant proposal"), "{arrival}");
        let devices = ui.text("#sync-devices").await?;
        ensure!(devices.contains("(this one)"), "{devices}");
        ensure_eq!(devices.matches("), ").count(), 1, "two devices: {devices}");
        ui.find("#sync-light[data-light='synced']").await?;
        ui.screenshot("sync").await;
        // Today says what arrived, once.
        ui.click("#nav-home").await?;
        let line = ui
            .wait_text("li.need.alert[data-kind='sync_arrived']", |t| {
                t.contains("Arrived from your other devices")
            })
            .await?;
        ensure!(line.contains("Grant proposal"), "{line}");
        Ok(())
    })
    .await;

    // On disk: the remote is set, and the laptop's entry is in this store's log.
    let store = world.store();
    let status = elnor_engine::sync_status(&store, elnor_engine::now()).unwrap();
    assert_eq!(status.remote.as_deref(), Some(url.as_str()));
    let tail = elnor_engine::log_tail(&store, &wc, 10).unwrap();
    assert!(
        tail.entries
            .iter()
            .any(|e| format!("{:?}", e.content).contains("budget table")),
        "{:?}",
        tail.entries
    );
}
