//! Search: the Ctrl+K box from any page down to a turn opened in its transcript (at its row) and
//! its Pin to Topic reached by the keyboard; the Search page's two panes, the selected hit's
//! detail (its whole excerpt, where it came from, "why this rank") beside the list, j/k moving
//! the selection and Enter or "Open" opening the hit where it lives; the page's banner and
//! fallback notice; and the model's answer over the hits from a stand-in model, with its
//! citations linked to the hits.

use crate::chat_standin::{self, ANSWER, SNIPPET, UNGIVEN};
use crate::harness::{App, Check, Ui, ensure, ensure_eq};
use crate::world::{QUESTION, RARE_WORD, add_topic, review_world, search_world};

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display, tauri-driver and the built app; run by scripts/test.sh"]
async fn search_box_opens_a_turn_hit_scrolled_to_its_turn() {
    let (world, target) = search_world();

    App::with(&world, async |ui| {
        // From another page, Ctrl+K opens the box with the cursor in it, and Enter searches:
        // the one turn that says the word comes first, marked, under the banner.
        ui.click("#nav-timeline").await?;
        let first = search_from_the_box(ui, &target.turn_id).await?;
        let trust = ui.text("#search-box-trust").await?;
        ensure!(trust.contains("evidence to check, not facts"), "{trust}");
        // textContent, not WebDriver's rendered text: the excerpt is clipped with an ellipsis,
        // which WebKitWebDriver reports as empty.
        let hit = ui
            .js(&format!(
                "return document.querySelector(\"{first}\").textContent"
            ))
            .await?;
        let hit = hit.as_str().unwrap_or_default().to_owned();
        ensure!(hit.contains(RARE_WORD), "{hit}");
        ensure!(hit.contains("user turn"), "{hit}");
        ui.screenshot("search-box").await;

        // The arrows move the mark down to "See all results" and back up to the first hit (the
        // agent's reply after the turn matches too, through the turn before it).
        let hits = ui
            .find_all("#search-box-hits li.search-box-hit[data-kind]")
            .await?
            .len();
        ensure!(hits >= 1, "{hits}");
        for _ in 0..hits {
            ui.focused().await?.send_keys("\u{E015}").await?;
        }
        ui.find("#search-box-all.marked").await?;
        for _ in 0..hits {
            ui.focused().await?.send_keys("\u{E013}").await?;
        }
        ui.find(&first).await?;

        // Enter on the same words opens the marked hit: the session, scrolled to the turn, with
        // the turn selected and read in full beside the list.
        ui.focused().await?.send_keys("\u{E007}").await?;
        ui.wait_gone("#search-dialog").await?;
        ui.find(&format!(
            ".session-row.active[data-session-id='{}']",
            target.session
        ))
        .await?;
        let row = format!(".turn-row.selected[data-turn-id='{}']", target.turn_id);
        ui.find(&row).await?;
        // The hit carried the turn's row, and the row held the turn: the viewer went straight to
        // its chunk instead of reading the chunks before it in turn.
        ui.find(".viewer[data-turn-found-by='row']").await?;
        let detail = ui
            .wait_text(".turn-detail", |t| t.contains(RARE_WORD))
            .await?;
        ensure!(detail.contains("before the atlas release"), "{detail}");
        // In view: the row lies inside the viewer's scroll area, which has scrolled down to it
        // (the turn is past the first hundred, and the area shows about ten).
        let placement = ui
            .js(&format!(
                "const row = document.querySelector(\"{row}\");
                 const area = document.querySelector('.viewer-scroll');
                 const r = row.getBoundingClientRect(), a = area.getBoundingClientRect();
                 return [r.top >= a.top && r.bottom <= a.bottom, area.scrollTop];"
            ))
            .await?;
        ensure_eq!(placement[0], serde_json::Value::Bool(true), "{placement}");
        // Whole pixels: the row height (52) times the rows above the turn, less a screenful.
        let scrolled = placement[1].as_f64().unwrap_or_default() as u64;
        ensure!(
            scrolled > 52 * target.position.saturating_sub(10),
            "scrolled to {scrolled}px for turn {}",
            target.position
        );
        ui.screenshot("search-turn").await;
        Ok(())
    })
    .await;
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display, tauri-driver and the built app; run by scripts/test.sh"]
async fn search_page_says_it_fell_back_explains_ranks_and_opens_entries_in_their_context() {
    // Three Henderson sessions three weeks ago, captured: their turns and the entries the
    // continuity agent wrote (the open question about the Christensen report among them).
    let world = review_world();

    App::with(&world.world, async |ui| {
        ui.click("#nav-search").await?;
        ui.type_into("#search-query", "Christensen report\u{E007}")
            .await?;
        let trust = ui.text("#search-trust").await?;
        ensure!(trust.contains("evidence to check, not facts"), "{trust}");
        // No embedding model on this machine: the default strategy ran on words alone, and says
        // so with its reason and how far the embeddings reach (nowhere yet).
        let fallback = ui.text("#search-fallback").await?;
        ensure!(
            fallback.contains("Ran words only instead of words and meaning"),
            "{fallback}"
        );
        ensure!(
            fallback.contains("no embedding model is installed"),
            "{fallback}"
        );
        let coverage = ui.wait_text("#search-coverage", |t| !t.is_empty()).await?;
        // Out of the documents the query itself searched, which it counted after bringing the
        // index up to date.
        let summary = ui.text("#search-summary").await?;
        let documents = summary
            .split(" from ")
            .nth(1)
            .and_then(|rest| rest.split(' ').next())
            .unwrap_or_default()
            .to_owned();
        ensure!(
            fallback.contains(&format!("over all {documents} documents")),
            "{fallback} / {summary}"
        );
        ensure_eq!(coverage, format!("0 of {documents} documents embedded."));

        // The best hit is selected, and its detail beside the list says why it ranked first:
        // first in the words' list, no rank by meaning.
        let first = "#search-hits li.search-hit:first-child";
        ui.find(&format!("{first}.active")).await?;
        let doc = ui
            .find(first)
            .await?
            .attr("data-doc-id")
            .await?
            .unwrap_or_default();
        ui.find(&format!("#search-detail[data-doc-id='{doc}']"))
            .await?;
        let line = ui
            .wait_text("#search-detail-why .why-line", |t| !t.is_empty())
            .await?;
        ensure!(line.starts_with("words: rank 1 (BM25 "), "{line}");
        ensure!(line.contains("meaning: no rank"), "{line}");
        ensure!(line.contains("matched text"), "{line}");
        ensure!(line.ends_with(" days old"), "{line}");
        ui.screenshot("search-page").await;

        // Entries only: the open question, attributed to Henderson, opens that work context.
        ui.click("#search-kind-turn").await?;
        ui.click("#search-kind-summary").await?;
        ui.click("#search-submit").await?;
        ui.wait_until("only entries among the hits", async || {
            let all = ui.find_all("#search-hits li.search-hit").await?.len();
            let entries = ui
                .find_all("#search-hits li.search-hit[data-kind='entry']")
                .await?
                .len();
            Ok((all > 0 && all == entries).then_some(()))
        })
        .await?;
        // Clicked, the entry shows in full beside the list, attributed to Henderson; the page
        // stays where it is until "Open".
        let entry = ui
            .find_all("#search-hits li.search-hit[data-kind='entry']")
            .await?;
        let mut found = false;
        for row in entry {
            row.click().await?;
            let detail = ui.text("#search-detail").await?;
            if detail.contains(QUESTION) {
                found = true;
                break;
            }
        }
        ensure!(found, "no entry hit shows the open question");
        let facts = ui.text("#search-detail-where").await?;
        ensure!(facts.contains("Henderson"), "{facts}");
        ensure!(!facts.contains("wc_"), "{facts}");
        ui.screenshot("search-page-entry").await;
        let open = ui.text("#search-open").await?;
        ensure_eq!(open, "Open the work context");
        ui.click("#search-open").await?;
        ui.wait_text("#wc-detail", |t| t.contains("Henderson"))
            .await?;
        Ok(())
    })
    .await;
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display, tauri-driver and the built app; run by scripts/test.sh"]
async fn search_box_pins_the_marked_hit_to_a_topic_from_the_keyboard() {
    let (world, target) = search_world();
    let topic = add_topic(&world.store(), "Atlas", "atlas");

    App::with(&world, async |ui| {
        // A click first, as a person's would, so the window has the keyboard.
        ui.click("#nav-topics").await?;
        let marked = search_from_the_box(ui, &target.turn_id).await?;
        // Tab goes from the words to the marked hit's Topic choice: the other hits' are hidden.
        ui.focused().await?.send_keys("\u{E004}").await?;
        let focused = ui.focused().await?;
        ensure_eq!(
            focused.attr("class").await?.as_deref(),
            Some("hit-pin-topic")
        );
        let inside = ui
            .js(&format!(
                "return document.querySelector(\"{marked}\").contains(document.activeElement)"
            ))
            .await?;
        ensure_eq!(inside, serde_json::Value::Bool(true));
        ui.select(&format!("{marked} select.hit-pin-topic"), &topic)
            .await?;
        let said = ui.text(&format!("{marked} .hit-pinned")).await?;
        ensure_eq!(said, "Pinned to Atlas");
        // The pin did not open the hit: the box is still there, over the page it was opened on.
        ui.find("#search-dialog").await?;
        ui.screenshot("search-box-pinned").await;
        Ok(())
    })
    .await;
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display, tauri-driver and the built app; run by scripts/test.sh"]
async fn search_page_shows_the_models_answer_with_its_citations_linked_to_the_hits() {
    let (world, _) = search_world();
    // The synthesis model is a stand-in Ollama on a loopback port.
    let base = chat_standin::serve();
    let store = world.store();
    store.set_config("synthesis_provider", "ollama").unwrap();
    store.set_config("synthesis_base_url", &base).unwrap();
    store.set_config("synthesis_model", "stand-in:1b").unwrap();
    drop(store);

    App::with(&world, async |ui| {
        ui.click("#nav-search").await?;
        ui.click("#search-synthesis").await?;
        ui.type_into("#search-query", &format!("{RARE_WORD}\u{E007}"))
            .await?;
        let text = ui
            .wait_text("#search-answer-text", |t| !t.is_empty())
            .await?;
        ensure_eq!(text, ANSWER);
        let banner = ui.text("#search-answer .trust-banner").await?;
        ensure!(banner.contains("check its sources"), "{banner}");

        // One citation: the result the model was given and cited, linked to it; the id it was
        // not given is dropped and counted, not linked.
        let links = ui
            .find_all("#search-answer-citations a.answer-cite")
            .await?;
        ensure_eq!(links.len(), 1);
        let doc = links[0].attr("data-doc-id").await?.unwrap_or_default();
        ensure!(doc != UNGIVEN && !doc.is_empty(), "{doc}");
        let cites = ui.text("#search-answer-citations").await?;
        ensure!(cites.contains(SNIPPET), "{cites}");
        let dropped = ui.text("#search-answer-dropped").await?;
        ensure!(
            dropped.contains("The model cited 1 result(s) it was not given"),
            "{dropped}"
        );
        ensure!(ui.find_all("#search-answer-withheld").await?.is_empty());

        // The link highlights the hit it cites, and only that one, and shows it in the detail.
        let hit = format!("#search-hits li.search-hit[data-doc-id='{doc}']");
        ensure!(ui.find_all(&format!("{hit}.cited")).await?.is_empty());
        ui.click("#search-answer-citations a.answer-cite").await?;
        ui.find(&format!("{hit}.cited.active")).await?;
        ui.find(&format!("#search-detail[data-doc-id='{doc}']"))
            .await?;
        ensure_eq!(
            ui.find_all("#search-hits li.search-hit.cited").await?.len(),
            1
        );
        ui.screenshot("search-answer").await;

        // Without the box ticked, no model is asked and no answer shows.
        ui.click("#search-synthesis").await?;
        ui.click("#search-submit").await?;
        ui.wait_gone("#search-answer").await?;
        Ok(())
    })
    .await;
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display, tauri-driver and the built app; run by scripts/test.sh"]
async fn search_page_shows_a_hit_beside_the_list_and_opens_it_from_there() {
    let (world, target) = search_world();

    App::with(&world, async |ui| {
        ui.click("#nav-search").await?;
        ui.type_into("#search-query", &format!("{RARE_WORD}\u{E007}"))
            .await?;
        // The turn that says the word comes first and is selected: its detail holds the whole
        // excerpt, where it came from and why it ranked first.
        let turn = format!(
            "#search-hits li.search-hit[data-turn-id='{}']",
            target.turn_id
        );
        ui.find(&format!("{turn}:first-child.active")).await?;
        let detail = format!("#search-detail[data-turn-id='{}']", target.turn_id);
        let excerpt = ui
            .wait_text(&format!("{detail} #search-detail-excerpt"), |t| {
                t.contains(RARE_WORD)
            })
            .await?;
        ensure!(excerpt.contains("before the atlas release"), "{excerpt}");
        let facts = ui.text("#search-detail-where").await?;
        ensure!(facts.contains("Claude Code"), "{facts}");
        ensure!(
            facts.contains(&format!("row {} of the transcript", target.position + 1)),
            "{facts}"
        );
        let why = ui.text("#search-detail-why").await?;
        ensure!(why.contains("Why this rank"), "{why}");
        ensure!(why.contains("words: rank 1"), "{why}");
        ensure_eq!(ui.text("#search-open").await?, "Open the turn");
        ui.screenshot("search-page-detail").await;

        // j and k move the selection through the list, and the detail follows; a click on a
        // hit only selects it.
        let hits = ui.find_all("#search-hits li.search-hit").await?;
        if hits.len() > 1 {
            let second = hits[1].attr("data-doc-id").await?.unwrap_or_default();
            ui.click(&turn).await?;
            ui.focused().await?.send_keys("j").await?;
            ui.find(&format!("#search-detail[data-doc-id='{second}']"))
                .await?;
            ui.focused().await?.send_keys("k").await?;
            ui.find(&detail).await?;
        }
        ui.click(&turn).await?;
        ui.find(&detail).await?;
        ensure!(
            ui.find_all(".turn-row").await?.is_empty(),
            "a click opened it"
        );

        // Enter on the selected hit opens the transcript at the turn, selected and in view.
        ui.focused().await?.send_keys("\u{E007}").await?;
        ui.find(&format!(
            ".session-row.active[data-session-id='{}']",
            target.session
        ))
        .await?;
        ui.find(&format!(
            ".turn-row.selected[data-turn-id='{}']",
            target.turn_id
        ))
        .await?;

        // Back on the page, "Open" does the same.
        ui.click("#nav-search").await?;
        ui.type_into("#search-query", &format!("{RARE_WORD}\u{E007}"))
            .await?;
        ui.find(&detail).await?;
        ui.click("#search-open").await?;
        ui.find(&format!(
            ".turn-row.selected[data-turn-id='{}']",
            target.turn_id
        ))
        .await?;
        ui.wait_text(".turn-detail", |t| t.contains(RARE_WORD))
            .await?;
        Ok(())
    })
    .await;
}

/// Opens the search box with Ctrl+K (it takes the keyboard), searches for the rare word, and
/// waits for `turn` to come first and marked. Returns the selector of that marked hit.
async fn search_from_the_box(ui: &Ui, turn: &str) -> Check<String> {
    ui.keys("\u{E009}k").await?;
    ui.find("#search-dialog").await?;
    ui.wait_until("the search box to have the focus", async || {
        let focused = ui.focused().await?.attr("id").await?;
        Ok((focused.as_deref() == Some("search-box-query")).then_some(()))
    })
    .await?;
    ui.focused()
        .await?
        .send_keys(&format!("{RARE_WORD}\u{E007}"))
        .await?;
    let marked = format!("#search-box-hits li.search-box-hit.marked[data-turn-id='{turn}']");
    ui.find(&marked).await?;
    Ok(marked)
}
