//! Home: the store's status, and pushes from its push box, the Ctrl+Shift+P dialog and the
//! sidebar button, whose outcomes lead to the Timeline.

use crate::harness::{App, Check, Failure, Ui, ensure, ensure_eq};
use crate::world::{
    EntryContent, config_mode, latest_schema_version, one_question_world,
    two_contexts_one_entity_world,
};

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display, tauri-driver and the built app; run by scripts/test.sh"]
async fn status_is_shown_and_mode_change_persists() {
    let (world, root) = one_question_world();
    assert_eq!(config_mode(&root), "full");

    App::with(&world, async |ui| {
        // Home shows the real store.
        ensure_eq!(
            ui.text("#status-store-path").await?,
            root.display().to_string()
        );
        ensure_eq!(
            ui.text("#status-schema-version").await?,
            latest_schema_version()
        );
        ensure_eq!(ui.text("#count-open_question").await?, "1");
        ensure_eq!(ui.text("#status-entries-total").await?, "1");
        ensure_eq!(ui.text("#status-work-contexts").await?, "1");
        ensure_eq!(ui.text("#status-mode").await?, "Full");

        // Settings: switch to deterministic and wait for the engine's confirmation.
        ui.click("#nav-settings").await?;
        ui.click("#mode-deterministic").await?;
        let saved = ui
            .wait_text("#settings-saved", |t| t.contains("deterministic"))
            .await?;
        ensure_eq!(saved, "Saved: continuity mode is now deterministic.");
        ensure_eq!(config_mode(&root), "deterministic");

        // Home reads the new mode back through the engine.
        ui.click("#nav-home").await?;
        ui.wait_text("#status-mode", |t| t == "Deterministic")
            .await?;

        // No durable knowledge yet: the Knowledge page says where it comes from.
        ui.click("#nav-knowledge").await?;
        let empty = ui.text("#knowledge-empty").await?;
        ensure!(empty.contains("approving proposals in Review"), "{empty}");
        ensure_eq!(
            ui.text("#knowledge-counts").await?,
            "0 live · 0 retired or superseded"
        );

        // Least privilege: a core plugin command is not granted to the window.
        let denied = ui
            .js_async(
                "const done = arguments[0];
                 window.__TAURI__.core.invoke('plugin:app|version')
                   .then(() => done('allowed'), (e) => done('denied: ' + e));",
            )
            .await?;
        let denied = denied.as_str().unwrap_or_default().to_owned();
        ensure!(
            denied.starts_with("denied") && denied.contains("not allowed"),
            "{denied}"
        );
        Ok(())
    })
    .await;
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display, tauri-driver and the built app; run by scripts/test.sh"]
async fn pushes_from_home_and_the_shortcut_reach_the_timeline() {
    let first = "Called Dana about the zephyr-17 rebuttal deadline";
    let second = "Sent the qx-42 exhibit list for the Christensen report";
    let third = "Booked the vt-9 deposition room";
    let (world, henderson, spotter) = two_contexts_one_entity_world();

    let (first_id, second_id) = App::with(&world, async |ui| {
        // Home: the push box above an empty list of observations that says how to fill it.
        let empty = ui.text("#recent-observations-empty").await?;
        ensure!(empty.contains("Nothing observed yet"), "{empty}");
        ui.type_into("#push-text", first).await?;
        ui.select("#push-context", henderson.as_str()).await?;
        ui.type_into("#push-entities", "Rebuttal memo").await?;
        ui.click("#push-submit").await?;
        let first_id = pushed_id(ui, "#push-outcome").await?;
        let outcome = ui.text("#push-outcome").await?;
        ensure!(
            outcome.contains(&format!("observation #{first_id}, in Henderson.")),
            "{outcome}"
        );
        ensure!(outcome.contains("Rebuttal memo (new)"), "{outcome}");
        // Told straight to its own context, which no agent session saw it in.
        ensure!(
            outcome.contains("1 cross-conversation update written"),
            "{outcome}"
        );
        let recent = ui
            .wait_text("#recent-observations", |t| t.contains(first))
            .await?;
        ensure!(recent.contains("Henderson"), "{recent}");
        ui.screenshot("home-push").await;
        // The box is ready for the next push.
        let left = ui.find("#push-text").await?.prop("value").await?;
        ensure_eq!(left.as_deref(), Some(""));

        // From another page, Ctrl+Shift+P opens the dialog with the cursor in its text box.
        ui.click("#nav-knowledge").await?;
        ui.text("#knowledge-empty").await?;
        ui.keys("\u{E009}\u{E008}p").await?;
        ui.find("#push-dialog").await?;
        ui.wait_until("the dialog's text box to have the focus", async || {
            let focused = ui.focused().await?.attr("id").await?;
            Ok((focused.as_deref() == Some("push-dialog-text")).then_some(()))
        })
        .await?;
        ui.focused()
            .await?
            .send_keys(&format!("{second}\u{E007}"))
            .await?;
        let second_id = pushed_id(ui, "#push-dialog-outcome").await?;
        let outcome = ui.text("#push-dialog-outcome").await?;
        ensure!(outcome.contains("outside any work context"), "{outcome}");
        // Recognised in the text, it reaches both contexts linked to it.
        ensure!(
            outcome.contains("Entities touched: Christensen report."),
            "{outcome}"
        );
        ensure!(
            outcome.contains("2 cross-conversation updates written"),
            "{outcome}"
        );
        ui.screenshot("push-dialog").await;
        // The Knowledge page stayed underneath.
        ui.text("#knowledge-empty").await?;

        // The outcome's link closes the dialog and shows the push on the Timeline.
        ui.click("#push-dialog-open").await?;
        ui.wait_gone("#push-dialog").await?;
        ui.find(&format!(
            "#observation-detail[data-observation-id='{second_id}']"
        ))
        .await?;
        ensure_eq!(ui.text("#observation-text").await?, second);
        ensure_eq!(
            ui.text("#observation-entities").await?,
            "Christensen report"
        );
        ensure_eq!(
            ui.text("#observation-updates").await?,
            "2 cross-conversation updates"
        );

        // Both pushes, newest first; one chart column per day of the window.
        let pushes = ui
            .wait_count("#timeline-items li.timeline-item[data-kind='push']", 2)
            .await?;
        ensure!(pushes[0].text().await?.contains(second));
        ensure!(pushes[1].text().await?.contains(first));
        ui.wait_count("#timeline-chart g.chart-day", 30).await?;
        let legend = ui.text("#timeline-legend").await?;
        ensure!(legend.contains("Henderson"), "{legend}");
        ui.screenshot("timeline").await;
        ui.click("#timeline-days-7").await?;
        ui.wait_count("#timeline-chart g.chart-day", 7).await?;
        let today = ui
            .find("#timeline-chart g.chart-day:last-of-type")
            .await?
            .attr("data-total")
            .await?;
        ensure_eq!(today.as_deref(), Some("2"));

        // Kinds: without pushes there is nothing here, and the page says what would be.
        ui.click("#timeline-kind-push").await?;
        let empty = ui.text("#timeline-empty").await?;
        ensure!(
            empty.contains("Nothing happened in the past 7 days"),
            "{empty}"
        );
        ui.click("#timeline-kind-push").await?;
        // The work context filter keeps the push made in Henderson.
        ui.select("#timeline-context", henderson.as_str()).await?;
        ui.wait_count("#timeline-items li.timeline-item", 1).await?;
        let only = ui.text("#timeline-items li.timeline-item").await?;
        ensure!(only.contains(first), "{only}");

        // Clicking the first push shows its detail; its context opens on its page.
        ui.click(&format!(
            "li.timeline-item[data-observation-id='{first_id}']"
        ))
        .await?;
        ui.find(&format!(
            "#observation-detail[data-observation-id='{first_id}']"
        ))
        .await?;
        ui.wait_text("#observation-text", |t| t == first).await?;
        let entities = ui.text("#observation-entities").await?;
        ensure!(entities.contains("Rebuttal memo"), "{entities}");
        ensure_eq!(ui.text("#observation-kind").await?, "Pushed by you");
        ui.click("#observation-context").await?;
        ui.find(&format!(
            ".context-row.active[data-work-context-id='{henderson}']"
        ))
        .await?;

        // The sidebar button opens the same dialog anywhere, the Timeline included, whose pane
        // then follows the outcome's link without the page being opened again.
        ui.click("#nav-timeline").await?;
        ui.find("#timeline-items").await?;
        ui.click("#nav-push").await?;
        ui.type_into("#push-dialog-text", &format!("{third}\u{E007}"))
            .await?;
        let third_id = pushed_id(ui, "#push-dialog-outcome").await?;
        ui.click("#push-dialog-open").await?;
        ui.wait_gone("#push-dialog").await?;
        ui.find(&format!(
            "#observation-detail[data-observation-id='{third_id}']"
        ))
        .await?;
        ui.wait_text("#observation-text", |t| t == third).await?;
        ui.wait_text("#timeline-items", |t| t.contains(third))
            .await?;

        // Esc closes the dialog.
        ui.click("#nav-push").await?;
        ui.find("#push-dialog").await?;
        ui.focused().await?.send_keys("\u{E00C}").await?;
        ui.wait_gone("#push-dialog").await?;
        Ok((first_id, second_id))
    })
    .await;

    // On disk, through the engine: both pushes, the new entity, and the update Spotter received.
    let store = world.store();
    let graph = store.graph();
    let o = graph.observation(first_id).unwrap();
    assert_eq!(
        (
            o.source.as_str(),
            o.text.as_str(),
            o.work_context_id.as_ref()
        ),
        ("push", first, Some(&henderson))
    );
    assert!(o.entities.iter().any(|(_, name)| name == "Rebuttal memo"));
    let o = graph.observation(second_id).unwrap();
    assert_eq!((o.text.as_str(), o.updates_written), (second, 2));
    let updates = updates_in(&store, &spotter);
    assert!(
        updates.iter().any(|u| u.contains(second)),
        "Spotter's updates: {updates:?}"
    );
}

/// The `data-observation-id` of the push outcome at `css`, once it says the push is stored.
async fn pushed_id(ui: &Ui, css: &str) -> Check<i64> {
    ui.wait_text(css, |t| t.starts_with("Pushed as observation"))
        .await?;
    let id = ui
        .find(css)
        .await?
        .attr("data-observation-id")
        .await?
        .unwrap_or_default();
    id.parse()
        .map_err(|_| Failure::new(format!("{css}: no observation id in {id:?}")))
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display, tauri-driver and the built app; run by scripts/test.sh"]
async fn a_push_naming_part_of_an_entity_reaches_its_contexts_and_says_so_before() {
    // The entity is "Christensen report"; the person types only "Christensen".
    let said = "Called Christensen about the late numbers";
    let (world, henderson, spotter) = two_contexts_one_entity_world();
    App::with(&world, async |ui| {
        ui.type_into("#push-text", said).await?;
        // Before anything is sent, the preview says what the push will reach and why.
        let preview = ui
            .wait_text("#push-preview", |t| t.contains("Also tells"))
            .await?;
        ensure!(
            preview.contains("Christensen report (by the word “Christensen”)"),
            "{preview}"
        );
        ensure!(
            preview.contains("Henderson") && preview.contains("Spotter"),
            "{preview}"
        );
        ui.click("#push-submit").await?;
        pushed_id(ui, "#push-outcome").await?;
        let outcome = ui.text("#push-outcome").await?;
        ensure!(
            outcome.contains("Entities touched: Christensen report."),
            "{outcome}"
        );
        ensure!(
            outcome.contains("2 cross-conversation updates written"),
            "{outcome}"
        );
        Ok(())
    })
    .await;
    // Both contexts linked to the report have it in their logs, in the person's words.
    let store = world.store();
    for wc in [&henderson, &spotter] {
        let told = updates_in(&store, wc);
        assert!(
            told.iter().any(|t| t == &format!("You noted: {said}")),
            "{wc}: {told:?}"
        );
    }
}

/// The cross-conversation updates in a work context's log, as their summaries.
fn updates_in(store: &crate::world::Store, wc: &crate::world::WorkContextId) -> Vec<String> {
    store
        .log(wc)
        .read()
        .unwrap()
        .entries
        .into_iter()
        .filter_map(|e| match e.content {
            EntryContent::CrossConversationUpdate(u) => Some(u.summary),
            _ => None,
        })
        .collect()
}
