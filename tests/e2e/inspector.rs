//! The Inspector: why a brief holds what it holds. The test starts from Home's brief preview,
//! follows "Why?" into the Inspector and a source link into Sessions, then checks the work
//! context's constellation and Settings' living memory, which feed the same brief. A second test
//! drills from a delivered brief's line down to the raw turns it came from.

use crate::harness::{App, ensure, ensure_eq, find_in, text_in};
use crate::world::{brief_world, corpus_claude_code, lineage_world, shown_turns};

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display, tauri-driver and the built app; run by scripts/test.sh"]
async fn brief_preview_is_explained_in_the_inspector() {
    let Some(source) = corpus_claude_code() else {
        return;
    };
    let fact = "I prefer concise answers with code first.";
    let (world, facts) = brief_world(&source, fact);

    App::with(&world, async |ui| {
        // Home: preview the brief for the context, then follow "Why?" to its assembly.
        ui.select("#brief-context", "wc_spotter_otel").await?;
        let chosen = ui
            .wait_text("#brief-context-choice", |t| t.contains("Spotter OTEL"))
            .await?;
        ensure!(chosen.contains("named by the caller"), "{chosen}");
        // The brief shows as cards; the text the agent reads is one click away.
        let cards = ui.text("#brief-cards").await?;
        ensure!(cards.contains(fact), "{cards}");
        ui.click("#brief-raw-toggle").await?;
        let text = ui.text("#brief-text").await?;
        ensure!(
            text.contains("<card type=\"continuity\" tag=\"resume\">"),
            "{text}"
        );
        ensure!(text.contains(fact), "{text}");
        let total = ui.text("#brief-total").await?;
        ensure!(total.ends_with("/ 420"), "{total}");
        let tier3 = ui
            .text("#brief-tiers tr[data-tier='3'] .tier-tokens")
            .await?;
        // The card counts its `<card>` wrapper as well as the fact's line.
        let (used, cap) = tier3.split_once(" / ").expect("used / cap");
        ensure!(used.parse::<u32>().unwrap() > facts.tokens, "{tier3}");
        ensure_eq!(cap, "100");
        ui.screenshot("home-brief").await;
        let why = ui.find("#brief-why").await?;
        let assembly = why.attr("data-assembly-id").await?.expect("an assembly id");
        why.click().await?;

        // Inspector: the assembly is listed and open, and every decision says why.
        ui.find(&format!(
            "#inspector-assemblies li[data-assembly-id='{assembly}']"
        ))
        .await?;
        ui.find(&format!("#inspector-detail[data-assembly-id='{assembly}']"))
            .await?;
        let included = ui
            .find(
                "#inspector-items tr[data-decision='included'][data-reason='within_budget'][data-tier='3']",
            )
            .await?;
        ensure_eq!(text_in(&included, ".trace-text").await?, fact);
        ensure_eq!(text_in(&included, ".trace-reason").await?, "within_budget");
        let detail = text_in(&included, ".trace-detail").await?;
        ensure_eq!(detail, "fits the Tier 3 card and the total budget");
        let excluded = ui
            .find("#inspector-items tr[data-decision='excluded'][data-reason='card_limit']")
            .await?;
        ensure_eq!(text_in(&excluded, ".trace-reason").await?, "card_limit");
        let detail = text_in(&excluded, ".trace-detail").await?;
        ensure!(detail.starts_with("the card shows at most"), "{detail}");
        ui.screenshot("inspector").await;

        // The excluded question's source link opens its session's transcript.
        let link = find_in(&excluded, ".session-link").await?;
        let session = link.attr("data-session-id").await?.expect("a session id");
        link.click().await?;
        ui.find(&format!(
            ".session-row.active[data-session-id='{session}']"
        ))
        .await?;
        let turns = ui.wait_text("#viewer-total", |t| !t.is_empty()).await?;
        ensure!(turns.ends_with(" turns"), "{turns}");

        // The work context shows its constellation and the Tier 1 card of a fresh session.
        ui.click("#nav-contexts").await?;
        ui.click("[data-work-context-id='wc_spotter_otel']").await?;
        let phase = ui.text("#constellation-phase").await?;
        ensure!(!phase.is_empty());
        let questions = ui.text("#constellation-questions").await?;
        ensure!(
            questions.contains("heuristic · reduced confidence"),
            "{questions}"
        );
        let tokens = ui.text("#constellation-tier1-tokens").await?;
        ensure!(tokens.ends_with("of 120 tokens"), "{tokens}");
        let card = ui.text("#constellation-tier1 pre").await?;
        ensure!(card.starts_with("Spotter OTEL"), "{card}");
        ui.js("document.querySelector('#wc-constellation').scrollIntoView()")
            .await?;
        ui.screenshot("constellation").await;

        // Settings: living memory lists the fact with its count; add, move up and remove one.
        ui.click("#nav-settings").await?;
        let count = ui
            .text(&format!(
                "#facts-list li[data-fact-id='{}'] .fact-tokens",
                facts.fact_id
            ))
            .await?;
        ensure_eq!(count, format!("{} tokens", facts.tokens));
        ui.type_into("#fact-new", "My main tool is Elixir.").await?;
        ui.click("#fact-add").await?;
        let items = ui.wait_count("#facts-list li.fact", 2).await?;
        let added = items[1].attr("data-fact-id").await?.expect("a fact id");
        find_in(&items[1], ".fact-up").await?.click().await?;
        ui.click(&format!(
            "#facts-list li.fact:first-child[data-fact-id='{added}'] .fact-remove"
        ))
        .await?;
        let items = ui.wait_count("#facts-list li.fact", 1).await?;
        ensure_eq!(
            items[0].attr("data-fact-id").await?,
            Some(facts.fact_id.to_string())
        );
        Ok(())
    })
    .await;

    // Previews never mark anything delivered: every recorded assembly is a preview.
    let store = world.store();
    let assemblies = store.graph().assemblies(None, 100, true).unwrap();
    assert!(!assemblies.is_empty());
    assert!(assemblies.iter().all(|a| a.delivery == "preview"));
}

/// The marked rows of the transcript, as `[seq, turn id, selected]`; read through the page,
/// since only the rows in view exist and their text may be cut with an ellipsis.
const MARKED: &str = "return [...document.querySelectorAll('.turn-row.lineage')]\
    .map(e => [Number(e.dataset.seq), e.dataset.turnId, e.classList.contains('selected')])\
    .sort((a, b) => a[0] - b[0])";

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display, tauri-driver and the built app; run by scripts/test.sh"]
async fn a_brief_line_drills_down_to_the_turns_it_came_from() {
    let (world, lines) = lineage_world();
    let line = lines
        .first()
        .expect("a line of the samples' brief came from a session");
    let w = &line.window;
    let turns = shown_turns(&world.store(), w.span.session_id.as_str());

    App::with(&world, async |ui| {
        // The delivered brief is listed without ticking Show previews; open it.
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
        // Every line that names a session offers the way back to it; no other line does.
        let offered = ui
            .js("return [document.querySelectorAll('#inspector-items tr.trace-item[data-session-id]').length, \
                 document.querySelectorAll('#inspector-items tr.trace-item[data-session-id] .lineage-open').length, \
                 document.querySelectorAll('#inspector-items tr.trace-item:not([data-session-id]) .lineage-open').length, \
                 document.querySelectorAll('#inspector-items tr.trace-item:not([data-session-id])').length]")
            .await?;
        ensure!(
            offered[0] == offered[1] && offered[2] == 0,
            "lines with a session, their buttons, buttons elsewhere, lines without: {offered}"
        );
        let button = format!(
            "#inspector-items tr[data-ordinal='{}'] .lineage-open",
            line.ordinal
        );
        ui.js(&format!(
            "document.querySelector(\"{button}\").scrollIntoView({{block: 'center'}})"
        ))
        .await?;
        ui.screenshot("lineage-inspector").await;
        ui.click(&button).await?;

        // Sessions: the line's session is open, and the header says what is marked.
        ui.find(&format!(".session-row.active[data-session-id='{}']", w.span.session_id))
            .await?;
        let head = ui.find("#lineage-head").await?;
        ensure_eq!(
            head.attr("data-session-id").await?,
            Some(w.span.session_id.to_string())
        );
        ensure_eq!(head.attr("data-exact").await?, Some(w.span.exact.to_string()));
        ensure_eq!(head.attr("data-turns").await?, Some(w.view.turns.to_string()));
        let said = ui
            .js("return document.querySelector('#lineage-head .lineage-said').textContent")
            .await?;
        let said = said.as_str().unwrap_or_default();
        let count = match w.view.turns {
            1 => "1 turn of the session".to_owned(),
            n => format!("{n} turns of the session"),
        };
        ensure!(
            said.starts_with("The turns behind this line: ") && said.contains(&count),
            "{said}"
        );
        let found = if w.span.exact { "exactly these turns" } else { "found by time" };
        ensure!(said.contains(found), "{said}");

        // The window's turns are marked, in view, and the last of them is selected.
        let marked = ui
            .wait_until("the window's turns to be marked", async || {
                let rows = ui.js(MARKED).await?;
                let selected = rows
                    .as_array()
                    .is_some_and(|r| r.iter().any(|row| row[2] == true));
                Ok(selected.then_some(rows))
            })
            .await?;
        let marked: Vec<(i64, String, bool)> = serde_json::from_value(marked).unwrap();
        ensure!(!marked.is_empty());
        for (seq, turn_id, _) in &marked {
            ensure!(
                w.span.after_seq.is_none_or(|a| *seq > a) && w.span.through_seq.is_none_or(|t| *seq <= t),
                "turn {seq} is marked outside the window {:?}..={:?}",
                w.span.after_seq,
                w.span.through_seq
            );
            ensure!(
                turns.contains(&(*seq, turn_id.clone())),
                "marked turn {seq} ({turn_id}) is not a turn of session {}",
                w.span.session_id
            );
        }
        let (last_seq, last_id, last_selected) = marked.last().unwrap();
        ensure!(*last_selected, "the window's last turn is not the one selected");
        ensure_eq!(Some(last_id), w.view.last_turn_id.as_ref());
        if w.span.exact {
            ensure_eq!(Some(*last_seq), w.span.through_seq);
        }
        for theme in ["light", "dark"] {
            ui.click(&format!("#theme-{theme}")).await?;
            for width in [640, 1024, 1440] {
                ui.resize(width, 900).await?;
                ui.find("#lineage-head").await?;
                ui.screenshot(&format!("lineage-sessions-{theme}-{width}")).await;
            }
        }
        ui.click("#theme-light").await?;

        // Stop marking: the header goes and no turn stays marked.
        ui.click("#lineage-clear").await?;
        ui.wait_until("the marks to go", async || {
            let rows = ui.js(MARKED).await?;
            Ok(rows.as_array().is_some_and(Vec::is_empty).then_some(()))
        })
        .await?;
        Ok(())
    })
    .await;
}
