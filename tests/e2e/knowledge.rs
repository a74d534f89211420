//! Knowledge: the durable nodes approved in Review, their detail (warrant, provenance, history)
//! and the changes a person makes to them (hedge, retire, supersede), which the next brief and
//! the Inspector follow.

use crate::harness::{App, Check, Ui, ensure, ensure_eq, find_in, text_in};
use crate::world::{
    Change, DECISION, Lifecycle, QUESTION, Warrant, change_node, directive_provenance, review_world,
};

/// The text of the last entry of the open node's history, which must be an `action`.
async fn last_history(ui: &Ui, action: &str) -> Check<String> {
    ui.text(&format!(
        "#knowledge-history li:last-child[data-action='{action}']"
    ))
    .await
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display, tauri-driver and the built app; run by scripts/test.sh"]
async fn knowledge_page_hedges_retires_and_supersedes_and_the_brief_follows() {
    let hedge = "The client may revisit the disclosure strategy";
    let retire = "Henderson settled; the strategy no longer applies";
    let successor = "Chase Christensen for the event study data by Friday.";

    // The review world with both proposals approved through the engine, as Review would.
    let world = review_world();
    let md = world.approve(&world.directive);
    let ob = world.approve(&world.obligation);
    let row = format!("#knowledge-list li[data-node-id='{md}']");
    let detail = format!("#knowledge-detail[data-node-id='{md}']");

    let new_ob = App::with(&world.world, async |ui| {
        // Home: the approved directive is in the brief's living memory, stated as it is.
        ui.wait_text("#brief-cards", |t| t.contains(DECISION))
            .await?;

        // Knowledge: both nodes, asserted; the kind filter narrows the list.
        ui.click("#nav-knowledge").await?;
        let counts = ui.text("#knowledge-counts").await?;
        ensure_eq!(counts, "2 live · 0 retired or superseded");
        ui.wait_count("#knowledge-list li.node-row", 2).await?;
        let directive_row = ui.find(&row).await?;
        ensure_eq!(
            directive_row.attr("data-warrant").await?.as_deref(),
            Some("assert")
        );
        ensure_eq!(text_in(&directive_row, ".badge.warrant").await?, "assert");
        // The row clamps long texts to three lines (`-webkit-box`), which WebKitWebDriver's
        // visible-text rule reads as empty; the DOM's text is what the person sees.
        let text = find_in(&directive_row, ".node-text").await?
            .prop("textContent")
            .await?;
        ensure_eq!(text.as_deref(), Some(DECISION));
        ui.find("#knowledge-kind")
            .await?
            .select_by_value("memory_directive")
            .await?;
        let only = ui.wait_count("#knowledge-list li.node-row", 1).await?;
        ensure_eq!(only[0].attr("data-node-id").await?, Some(md.clone()));
        ui.find("#knowledge-kind")
            .await?
            .select_by_value("")
            .await?;
        ui.wait_count("#knowledge-list li.node-row", 2).await?;

        // The directive's detail: warrant, where it came from, its history so far.
        ui.click(&format!("{row} .node-text")).await?;
        ui.find(&detail).await?;
        let warrant = ui.text("#knowledge-warrant").await?;
        ensure!(warrant.starts_with("assert: stated as it is"), "{warrant}");
        ui.wait_count(
            "#knowledge-provenance li[data-source-kind='session'] .session-link",
            3,
        )
        .await?;
        let entry = ui
            .text("#knowledge-provenance li[data-source-kind='continuity_entry']")
            .await?;
        ensure!(entry.contains(DECISION), "{entry}");
        let history = ui.wait_count("#knowledge-history li", 1).await?;
        ensure_eq!(
            history[0].attr("data-action").await?.as_deref(),
            Some("approved")
        );
        ui.screenshot("knowledge").await;

        // Its review proposal opens in Review, decided.
        ui.click("#knowledge-provenance a.proposal-link").await?;
        ui.find(&format!(
            "#review-detail[data-proposal-id='{}'][data-status='approved']",
            world.directive.proposal_id
        ))
        .await?;

        // Hedge it with a reason: the history says so, and the brief labels the line.
        ui.click("#nav-knowledge").await?;
        ui.click(&format!("{row} .node-text")).await?;
        ui.find(&detail).await?;
        ui.click("#knowledge-set-warrant").await?;
        ui.find("#knowledge-warrant-select")
            .await?
            .select_by_value("hedge")
            .await?;
        ui.type_into("#knowledge-warrant-reason-input", hedge)
            .await?;
        ui.click("#knowledge-warrant-save").await?;
        let note = ui
            .wait_text("#knowledge-note", |t| t.contains("warrant hedge"))
            .await?;
        ensure_eq!(note, format!("{md} is now at warrant hedge."));
        ui.find(&format!("{detail}[data-warrant='hedge']")).await?;
        ensure_eq!(ui.text("#knowledge-warrant-reason").await?, hedge);
        let last = last_history(ui, "warrant").await?;
        ensure!(last.contains(&format!("assert → hedge: {hedge}")), "{last}");
        ui.click("#nav-home").await?;
        let hedged = format!("(possibly outdated) {DECISION}");
        ui.wait_text("#brief-cards", |t| t.contains(&hedged))
            .await?;

        // Retire it with a reason: it is history now, with no actions left.
        ui.click("#nav-knowledge").await?;
        ui.click(&format!("{row} .node-text")).await?;
        ui.find(&detail).await?;
        ui.click("#knowledge-retire").await?;
        ui.type_into("#knowledge-retire-reason", retire).await?;
        ui.click("#knowledge-retire-confirm").await?;
        let note = ui
            .wait_text("#knowledge-note", |t| t.starts_with("Retired"))
            .await?;
        ensure!(note.starts_with(&format!("Retired {md}")), "{note}");
        ui.find(&format!(
            "{detail}[data-lifecycle='retired'][data-warrant='do_not_inject']"
        ))
        .await?;
        ensure!(last_history(ui, "retired").await?.contains(retire));
        ui.text("#knowledge-frozen").await?;
        ensure!(ui.find_all("#knowledge-actions").await?.is_empty());
        let counts = ui
            .wait_text("#knowledge-counts", |t| t.starts_with("1 live"))
            .await?;
        ensure_eq!(counts, "1 live · 1 retired or superseded");
        ui.screenshot("knowledge-retired").await;

        // Supersede the obligation: the reply is the new node, which names the one it replaces.
        ui.click(&format!(
            "#knowledge-list li[data-node-id='{ob}'] .node-text"
        ))
        .await?;
        ui.find(&format!("#knowledge-detail[data-node-id='{ob}']"))
            .await?;
        ensure_eq!(ui.text("#knowledge-due").await?, world.deadline);
        ui.click("#knowledge-supersede").await?;
        let text = ui.find("#knowledge-supersede-text").await?;
        ensure_eq!(text.prop("value").await?.as_deref(), Some(QUESTION));
        text.clear().await?;
        text.send_keys(successor).await?;
        ui.click("#knowledge-supersede-save").await?;
        let note = ui
            .wait_text("#knowledge-note", |t| t.starts_with("Superseded"))
            .await?;
        let new_ob = note
            .strip_prefix(&format!("Superseded {ob} by "))
            .and_then(|rest| rest.strip_suffix('.'))
            .unwrap_or_else(|| panic!("{note}"))
            .to_owned();
        ui.find(&format!(
            "#knowledge-detail[data-node-id='{new_ob}'][data-lifecycle='active']"
        ))
        .await?;
        ensure_eq!(ui.text("#knowledge-text").await?, successor);
        ensure_eq!(ui.text("#knowledge-due").await?, world.deadline);
        ensure!(
            last_history(ui, "created")
                .await?
                .contains(&format!("supersedes {ob}"))
        );
        // The replaced node, through the link, names its successor and keeps its history.
        ui.click(&format!(
            "#knowledge-provenance li[data-source-kind='supersedes'] a[data-node-id='{ob}']"
        ))
        .await?;
        ui.find(&format!(
            "#knowledge-detail[data-node-id='{ob}'][data-lifecycle='superseded']"
        ))
        .await?;
        let lifecycle = ui.text("#knowledge-lifecycle").await?;
        ensure_eq!(lifecycle, format!("superseded by {new_ob}"));
        ensure!(
            last_history(ui, "superseded")
                .await?
                .contains(successor)
        );

        // A change the engine refuses is shown as its message: the CLI (here, the engine
        // itself) retires the new obligation while the page still offers to confirm it.
        ui.click(&format!("#knowledge-lifecycle a[data-node-id='{new_ob}']"))
            .await?;
        ui.find("#knowledge-confirm").await?;
        change_node(
            &world.world.store(),
            &new_ob,
            Change::Retire(None),
            chrono::Utc::now(),
        )
        .unwrap();
        ui.click("#knowledge-confirm").await?;
        let refused = ui
            .wait_text("#knowledge-note", |t| t.contains("cannot"))
            .await?;
        ensure_eq!(
            refused,
            format!(
                "node {new_ob} is retired; it cannot be confirmed (its history is kept as it is)"
            )
        );

        // Home: the retired directive is gone from the brief, and the Inspector says why.
        ui.click("#nav-home").await?;
        ui.wait_text("#brief-cards", |t| !t.contains(DECISION))
            .await?;
        ui.click("#brief-why").await?;
        let excluded = ui
            .find(
                "#inspector-items tr[data-decision='excluded'][data-reason='retired'][data-tier='3']",
            )
            .await?;
        ensure_eq!(text_in(&excluded, ".trace-text").await?, DECISION);
        ensure_eq!(text_in(&excluded, ".trace-reason").await?, "retired");
        let why = text_in(&excluded, ".trace-detail").await?;
        ensure!(
            why.starts_with("retired on ") && why.ends_with(&format!(": {retire}")),
            "{why}"
        );
        ui.screenshot("knowledge-inspector").await;
        // The directive's id leads back to its node, retired, with its history.
        let source = find_in(&excluded, "a.source-id").await?;
        // The id is shown short; the link carries it whole.
        ensure_eq!(
            source.attr("data-node-id").await?.unwrap_or_default(),
            md
        );
        source.click().await?;
        ui.find(&format!("{detail}[data-lifecycle='retired']"))
            .await?;
        ensure!(last_history(ui, "retired").await?.contains(retire));
        Ok(new_ob)
    })
    .await;

    // On disk, through the engine: the retired directive keeps its provenance and its history.
    let store = world.world.store();
    let graph = store.graph();
    let d = graph.node(&md).unwrap();
    assert_eq!(
        (
            d.node.lifecycle,
            d.node.warrant,
            d.node.warrant_reason.as_deref()
        ),
        (Lifecycle::Retired, Warrant::DoNotInject, Some(retire))
    );
    let actions: Vec<&str> = d.history.iter().map(|h| h.action.as_str()).collect();
    assert_eq!(actions, ["approved", "warrant", "retired"]);
    assert_eq!(d.history[2].note.as_deref(), Some(retire));
    let mut provenance: Vec<(String, String)> = d
        .provenance
        .into_iter()
        .map(|p| (p.source_kind, p.source_ref))
        .collect();
    provenance.sort();
    assert_eq!(provenance, directive_provenance(&world.directive));
    // The obligation names its successor, which records what it replaced.
    let old = graph.node(&ob).unwrap().node;
    assert_eq!(
        (old.lifecycle, old.superseded_by.map(|s| s.to_string())),
        (Lifecycle::Superseded, Some(new_ob.clone()))
    );
    let new = graph.node(&new_ob).unwrap();
    assert_eq!(new.node.text, successor);
    assert_eq!(
        new.provenance
            .iter()
            .map(|p| (p.source_kind.as_str(), p.source_ref.as_str()))
            .collect::<Vec<_>>(),
        [("supersedes", ob.as_str())]
    );
    assert!(graph.nodes(false).unwrap().is_empty());
}
