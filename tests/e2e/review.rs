//! Review: the queue of promotion proposals, one at a time (approve with an edit, reject with a
//! reason) and in batches by keyboard, and the nightly job that fills it.

use crate::harness::{App, ensure, ensure_eq};
use crate::world::{DECISION, QUESTION, directive_provenance, nightly_last_run, review_world};

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display, tauri-driver and the built app; run by scripts/test.sh"]
async fn review_queue_approves_an_edit_and_rejects_with_a_reason() {
    let edited = "Lead with price impact; corrective disclosure only as a fallback.";
    let reason = "Christensen already confirmed the delivery date";
    let world = review_world();
    let (directive, obligation) = (&world.directive, &world.obligation);
    let row = |id: i64| format!("#review-list [data-proposal-id='{id}'] .proposal-text");
    let detail = |id: i64| format!("#review-detail[data-proposal-id='{id}']");

    App::with(&world.world, async |ui| {
        // The badge counts both before the page is even opened.
        ui.wait_text("#nav-review-count", |t| t == "2").await?;
        ui.click("#nav-review").await?;
        let shortcuts = ui.text("#review-shortcuts").await?;
        ensure!(
            shortcuts.contains("approve") && shortcuts.contains("defer"),
            "{shortcuts}"
        );
        ensure_eq!(ui.text("#nightly-last-run").await?, "never on this store");

        // The directive: its evidence, then "e" to reword it and approve.
        ui.click(&row(directive.proposal_id)).await?;
        ui.find(&detail(directive.proposal_id)).await?;
        ensure_eq!(ui.text("#review-session-count").await?, "3");
        let because = ui.text("#review-because").await?;
        ensure!(because.contains("stated in 3 session(s)"), "{because}");
        let sessions = ui.text("#review-sessions").await?;
        ensure!(
            sessions.contains("recorded it") && sessions.matches("stated it again").count() == 2,
            "{sessions}"
        );
        let entry = ui.text("#review-entry").await?;
        ensure!(
            entry.contains(DECISION) && entry.contains("heuristic"),
            "{entry}"
        );
        ui.screenshot("review-queue").await;
        ui.keys("e").await?;
        let edit = ui.find("#review-edit-text").await?;
        ensure_eq!(edit.prop("value").await?.as_deref(), Some(DECISION));
        edit.clear().await?;
        edit.send_keys(edited).await?;
        ui.click("#review-approve-edited").await?;
        let note = ui
            .wait_text("#review-note", |t| t.starts_with("Approved"))
            .await?;
        ensure!(
            note.starts_with(&format!("Approved #{} as md_", directive.proposal_id)),
            "{note}"
        );
        ui.wait_text("#nav-review-count", |t| t == "1").await?;

        // The queue moves on to the obligation: its deadline, then "r" and a reason.
        ui.find(&detail(obligation.proposal_id)).await?;
        let due = ui.text("#review-deadline").await?;
        ensure_eq!(due, format!("{}, from Christensen report", world.deadline));
        ui.keys("r").await?;
        ui.type_into("#review-reject-reason", reason).await?;
        ui.click("#review-reject-confirm").await?;
        ui.wait_text("#nav-review-count", |t| t == "0").await?;

        // Nothing left: the empty state says when proposals appear.
        let empty = ui.text("#review-empty").await?;
        ensure!(
            empty.contains("14 days") && empty.contains("3 sessions"),
            "{empty}"
        );
        ui.screenshot("review-empty").await;
        // Decided proposals are still there to look at, with the reason kept.
        ui.click("#review-show-all").await?;
        ui.click(&row(obligation.proposal_id)).await?;
        // The pane keeps the previous proposal until the chosen one arrives.
        ui.find(&detail(obligation.proposal_id)).await?;
        let note = ui.text("#review-decision-note").await?;
        ensure_eq!(note, format!("Note: {reason}"));

        // The approved directive links to its node on the Knowledge page, in the edited words.
        ui.click(&row(directive.proposal_id)).await?;
        let link = ui.find("#review-open-node").await?;
        let node = link.attr("data-node-id").await?.expect("the node's id");
        link.click().await?;
        ui.find(&format!(
            "#knowledge-detail[data-node-id='{node}'][data-warrant='assert']"
        ))
        .await?;
        ensure_eq!(ui.text("#knowledge-text").await?, edited);

        // Home: the next brief carries the reworded directive in Tier 3, and the rejected
        // question nowhere.
        ui.click("#nav-home").await?;
        let brief = ui.wait_text("#brief-cards", |t| t.contains(edited)).await?;
        ensure!(!brief.contains(DECISION), "{brief}");
        ensure!(!brief.contains(QUESTION), "{brief}");
        let tier3 = ui
            .text("#brief-tiers tr[data-tier='3'] .tier-tokens")
            .await?;
        ensure!(!tier3.starts_with("0 /"), "{tier3}");
        ui.screenshot("review-brief").await;
        Ok(())
    })
    .await;

    // On disk, through the engine: the directive in the person's words, with its provenance; the
    // rejection with its reason; no obligation written.
    let store = world.world.store();
    let approved = store.graph().proposal(directive.proposal_id).unwrap();
    assert_eq!(approved.status, "approved");
    assert_eq!(
        approved.decision_note.as_deref(),
        Some("approved with an edit")
    );
    let node = approved.node_id.expect("the directive's id");
    let living = store.graph().living_memory(chrono::Utc::now()).unwrap();
    assert!(
        living.iter().any(|i| i.kind == "directive"
            && i.source_id == node.as_str()
            && i.line.text == edited
            && i.excluded.is_none()),
        "{living:?}"
    );
    let rejected = store.graph().proposal(obligation.proposal_id).unwrap();
    assert_eq!(
        (
            rejected.status.as_str(),
            rejected.decision_note.as_deref(),
            rejected.node_id
        ),
        ("rejected", Some(reason), None)
    );
    let mut provenance: Vec<(String, String)> = store
        .graph()
        .node(&node)
        .unwrap()
        .provenance
        .into_iter()
        .map(|p| (p.source_kind, p.source_ref))
        .collect();
    provenance.sort();
    assert_eq!(provenance, directive_provenance(directive));
    // The rejected obligation wrote nothing: the directive is the graph's only node.
    let nodes = store.graph().nodes(true).unwrap();
    assert_eq!(
        nodes.iter().map(|n| n.node_id.as_str()).collect::<Vec<_>>(),
        [node.as_str()]
    );
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display, tauri-driver and the built app; run by scripts/test.sh"]
async fn review_batches_by_key_and_runs_the_nightly_job() {
    let reason = "Both belong to the settled Henderson matter";
    let world = review_world();
    let ids = [world.directive.proposal_id, world.obligation.proposal_id];

    App::with(&world.world, async |ui| {
        ui.click("#nav-review").await?;
        ui.wait_count("#review-list li.proposal-row", 2).await?;

        // "Run nightly now": the job runs, finds both proposals already known, and says when.
        ui.click("#nightly-run").await?;
        let note = ui
            .wait_text("#nightly-note", |t| t.starts_with("Nightly job"))
            .await?;
        ensure!(note.contains("0 new proposal(s)"), "{note}");
        let last = ui
            .wait_text("#nightly-last-run", |t| t != "never on this store")
            .await?;
        ensure!(last.starts_with("20"), "{last}");

        // Keys: tick the selected proposal, move down, tick that one, defer both.
        let body = ui.find("body").await?;
        body.send_keys("x").await?;
        body.send_keys("j").await?;
        body.send_keys("x").await?;
        ui.wait_text("#review-checked-count", |t| t == "2 ticked")
            .await?;
        body.send_keys("d").await?;
        let note = ui
            .wait_text("#review-note", |t| t.starts_with("Deferred"))
            .await?;
        ensure_eq!(note, "Deferred 2 proposals.");
        ui.wait_text("#nav-review-count", |t| t == "0").await?;
        // Deferred proposals stay in the queue.
        ui.wait_count("#review-list li.proposal-row[data-status='deferred']", 2)
            .await?;

        // Tick all, reject the batch with one reason.
        ui.click("#review-select-all").await?;
        ui.wait_text("#review-checked-count", |t| t == "2 ticked")
            .await?;
        ui.click("#batch-reject").await?;
        let form = ui.text("#review-reject-form label").await?;
        ensure_eq!(form, "Reject 2 proposals");
        ui.type_into("#review-reject-reason", &format!("{reason}\u{E007}"))
            .await?;
        let note = ui
            .wait_text("#review-note", |t| t.starts_with("Rejected"))
            .await?;
        ensure_eq!(note, "Rejected 2 proposals.");
        ui.text("#review-empty").await?;
        Ok(())
    })
    .await;

    let store = world.world.store();
    for id in ids {
        let p = store.graph().proposal(id).unwrap();
        assert_eq!(
            (p.status.as_str(), p.decision_note.as_deref()),
            ("rejected", Some(reason)),
            "#{id}"
        );
    }
    assert!(nightly_last_run(&store).unwrap().is_some());
}
