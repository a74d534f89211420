//! The Lineage page: from a delivered brief's line in the Inspector, "Open lineage" shows the
//! session summary the line sits in, with the entries its capture wrote and the turns it covers;
//! the rows around it walk the DAG to a neighbour; "Open in the transcript" lands on the Sessions
//! page with the node's window marked; and an entry of the work context opens the same node.
//! Everything the page shows is checked against what the engine reads from the same store.

use elnor_engine::{LineageNodeKind, LineageSource, Store};

use crate::harness::{App, Check, Ui, ensure, ensure_eq};
use crate::world::{lineage_world, shown_turns};

/// The turn budget the shell's `lineage_node` reads a node's window with
/// (`LINEAGE_TURN_TOKENS` in `src-tauri/commands/brief.rs`), so the test expects the same turns.
const TURN_TOKENS: usize = 6_000;

/// The marked rows of the transcript, as `[seq, turn id]`.
const MARKED: &str = "return [...document.querySelectorAll('.turn-row.lineage')]\
    .map(e => [Number(e.dataset.seq), e.dataset.turnId])\
    .sort((a, b) => a[0] - b[0])";

/// The node's card matches the engine's drill-down of `node_id`: kind, text, entries and turns.
async fn shows_node(ui: &Ui, store: &Store, node_id: &str) -> Check<elnor_engine::LineageDrill> {
    let drill = elnor_engine::lineage_drill_down(store, node_id, None, TURN_TOKENS).unwrap();
    ui.find(&format!("#lineage-node[data-node-id='{node_id}']"))
        .await?;
    let text = ui
        .js("return document.querySelector('#lineage-node-text').textContent")
        .await?;
    ensure_eq!(text.as_str(), Some(drill.node.text.as_str()));
    let kind = ui.text("#lineage-node-kind").await?;
    let expected = match drill.node.kind {
        LineageNodeKind::SessionSummary => "Session summary".to_owned(),
        LineageNodeKind::CompactionSummary => "Compaction summary (written by the harness)".into(),
        LineageNodeKind::Condensation => format!(
            "Condensation of {} summaries, level {}",
            drill.children.len(),
            drill.node.level
        ),
        LineageNodeKind::Knowledge => "Approved knowledge".into(),
    };
    ensure_eq!(kind, expected);
    let coverage = ui.text("#lineage-node-coverage").await?;
    let said = if drill.node.confidence >= 1.0 {
        "Exact:"
    } else {
        "Worked out:"
    };
    ensure!(coverage.starts_with(said), "{coverage}");
    let ids = |css: &str, attr: &str| {
        format!("return [...document.querySelectorAll('{css}')].map(e => e.getAttribute('{attr}'))")
    };
    let entries = ui.js(&ids("#lineage-entries li", "data-entry-id")).await?;
    let expected: Vec<String> = drill
        .entries
        .iter()
        .map(|e| e.entry_id.to_string())
        .collect();
    ensure_eq!(entries, serde_json::json!(expected));
    let seqs = ui.js(&ids("#lineage-turn-list li", "data-seq")).await?;
    let expected: Vec<String> = drill
        .transcript
        .iter()
        .flat_map(|t| t.transcript.turns.iter().map(|t| t.seq.to_string()))
        .collect();
    ensure_eq!(seqs, serde_json::json!(expected));
    let rows = |list: &[elnor_engine::LineageNode]| -> Vec<String> {
        list.iter().map(|n| n.node_id.clone()).collect()
    };
    for (css, nodes) in [
        ("#lineage-parents li", rows(&drill.parents)),
        ("#lineage-children li", rows(&drill.children)),
        ("#lineage-siblings li", rows(&drill.siblings)),
    ] {
        ensure_eq!(
            ui.js(&ids(css, "data-node-id")).await?,
            serde_json::json!(nodes)
        );
    }
    Ok(drill)
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display, tauri-driver and the built app; run by scripts/test.sh"]
async fn a_brief_line_opens_its_lineage_and_walks_it_to_the_transcript() {
    let (world, lines) = lineage_world();
    let store = world.store();
    // A line whose node is a session summary that wrote entries and has a neighbour to walk to.
    let (line, drill) = lines
        .iter()
        .find_map(|l| {
            let source = LineageSource::TraceItem {
                assembly_id: l.assembly_id,
                ordinal: l.ordinal,
            };
            let node = elnor_engine::lineage_node_of(&store, &source).ok()?;
            let d = elnor_engine::lineage_drill_down(&store, &node, None, TURN_TOKENS).ok()?;
            (d.node.kind == LineageNodeKind::SessionSummary
                && !d.entries.is_empty()
                && d.transcript.is_some()
                && !(d.parents.is_empty() && d.siblings.is_empty()))
            .then_some((l, d))
        })
        .expect(
            "a line of the samples' brief sits in a session summary with entries and a neighbour",
        );
    let node_id = drill.node.node_id.clone();
    let (walk_to, walk_list) = match (drill.parents.first(), drill.siblings.first()) {
        (_, Some(s)) => (s.node_id.clone(), "#lineage-siblings"),
        (Some(p), None) => (p.node_id.clone(), "#lineage-parents"),
        (None, None) => unreachable!(),
    };
    let entry = drill.entries[0].entry_id.to_string();
    let wc = drill.node.work_context_id.to_string();

    App::with(&world, async |ui| {
        // Inspector: the delivered brief, its line, and "Open lineage" beside the way to the turns.
        ui.click("#nav-inspector").await?;
        ui.click(&format!(
            "#inspector-assemblies li[data-assembly-id='{}'] button",
            line.assembly_id
        ))
        .await?;
        ui.find(&format!(
            "#inspector-detail[data-assembly-id='{}']",
            line.assembly_id
        ))
        .await?;
        let link = format!(
            "#inspector-items tr[data-ordinal='{}'] .lineage-link",
            line.ordinal
        );
        ui.find(&link).await?;
        ui.js(&format!(
            "document.querySelector(\"{link}\").scrollIntoView({{block: 'center'}})"
        ))
        .await?;
        ui.screenshot("lineage-page-inspector").await;
        ui.click(&link).await?;

        // The Lineage page: the line's session summary, its entries and its turns.
        shows_node(ui, &store, &node_id).await?;
        let asked = ui.text("#lineage-asked").await?;
        ensure_eq!(
            asked,
            format!(
                "Opened from line {} of brief #{}.",
                line.ordinal, line.assembly_id
            )
        );
        let how = ui.text("#lineage-turns-how").await?;
        ensure_eq!(&how, &drill.transcript.as_ref().unwrap().span.how);
        // The brief the test opened cited the node or one of its entries.
        ui.find(&format!(
            "#lineage-lines li[data-assembly-id='{}']",
            line.assembly_id
        ))
        .await?;
        for theme in ["light", "dark"] {
            ui.click(&format!("#theme-{theme}")).await?;
            for width in [640, 1440] {
                ui.resize(width, 1000).await?;
                ui.find("#lineage-node").await?;
                ui.screenshot(&format!("lineage-page-{theme}-{width}"))
                    .await;
            }
        }
        ui.click("#theme-light").await?;

        // Walk to a neighbour: the page shows that node, and the way back is among its rows.
        ui.click(&format!("{walk_list} li[data-node-id='{walk_to}'] button"))
            .await?;
        let there = shows_node(ui, &store, &walk_to).await?;
        ui.screenshot("lineage-page-walked").await;
        let back = there
            .parents
            .iter()
            .chain(&there.children)
            .chain(&there.siblings)
            .any(|n| n.node_id == node_id);
        ensure!(back, "{walk_to} does not list {node_id} around it");
        ui.click(&format!(
            "#lineage-around li[data-node-id='{node_id}'] button"
        ))
        .await?;
        shows_node(ui, &store, &node_id).await?;

        // "Open in the transcript": Sessions, with the node's window marked.
        let window = elnor_engine::locate_lineage(
            &store,
            &LineageSource::Node {
                node_id: node_id.clone(),
            },
        )
        .unwrap();
        let turns = shown_turns(&store, window.span.session_id.as_str());
        ui.click("#lineage-open-transcript").await?;
        ui.find(&format!(
            ".session-row.active[data-session-id='{}']",
            window.span.session_id
        ))
        .await?;
        let head = ui.find("#lineage-head").await?;
        ensure_eq!(
            head.attr("data-turns").await?,
            Some(window.view.turns.to_string())
        );
        let marked = ui
            .wait_until("the node's turns to be marked", async || {
                let rows = ui.js(MARKED).await?;
                Ok(rows
                    .as_array()
                    .is_some_and(|r| !r.is_empty())
                    .then_some(rows))
            })
            .await?;
        let marked: Vec<(i64, String)> = serde_json::from_value(marked).unwrap();
        for (seq, turn_id) in &marked {
            ensure!(
                window.span.after_seq.is_none_or(|a| *seq > a)
                    && window.span.through_seq.is_none_or(|t| *seq <= t),
                "turn {seq} is marked outside the node's window"
            );
            ensure!(turns.contains(&(*seq, turn_id.clone())), "turn {seq}");
        }
        ui.screenshot("lineage-page-transcript").await;

        // A work context's entry opens the same node.
        ui.click("#nav-contexts").await?;
        ui.click(&format!("[data-work-context-id='{wc}']")).await?;
        let entry_link = format!("li[data-entry-id='{entry}'] .lineage-link");
        ui.find(&entry_link).await?;
        ui.js(&format!(
            "document.querySelector(\"{entry_link}\").scrollIntoView({{block: 'center'}})"
        ))
        .await?;
        ui.screenshot("lineage-page-context").await;
        ui.click(&entry_link).await?;
        ui.find(&format!("#lineage-node[data-node-id='{node_id}']"))
            .await?;
        ensure_eq!(
            ui.text("#lineage-asked").await?,
            format!("Opened from entry {entry}.")
        );
        Ok(())
    })
    .await;
}
