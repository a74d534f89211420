//! Heads: the Heads page shows the global head and each thread head exactly as the engine builds
//! them for the same store, a thread head holds only its own context's lines, a citation opens
//! the turns its line came from, and "Write into a file" keeps every byte around its block and
//! keeps a person's edit inside it until they choose to replace it.

use crate::harness::{App, Ui, ensure, ensure_eq};
use crate::world::{head_lines, heads_world, summary_window};

/// The head the page shows, as `(source, text, citations)` per line, read from the page itself
/// (WebDriver's own text is empty for parts it thinks are cut off).
const SHOWN: &str = "return [...document.querySelectorAll('#head li.head-line')].map(e => [\
    e.dataset.source, \
    e.querySelector('.head-line-text').textContent, \
    [...e.querySelectorAll('.cite-chip')].map(c => c.dataset.cite)])";

type Lines = Vec<(String, String, Vec<String>)>;

async fn shown(ui: &Ui) -> crate::harness::Check<Lines> {
    let rows = ui.js(SHOWN).await?;
    Ok(serde_json::from_value(rows).unwrap_or_default())
}

async fn meter(ui: &Ui) -> crate::harness::Check<String> {
    let text = ui
        .js("return document.querySelector('#head-meter').textContent")
        .await?;
    Ok(text.as_str().unwrap_or_default().to_owned())
}

/// "1,200" for 1200, as the meter says it.
fn thousands(n: u32) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display, tauri-driver and the built app; run by scripts/test.sh"]
async fn the_heads_page_shows_each_head_as_the_engine_builds_it_and_citations_open_their_turns() {
    let (world, contexts, now) = heads_world();
    let store = world.store();
    assert!(
        contexts.len() >= 2,
        "the samples make at least two work contexts: {contexts:?}"
    );
    let (global, global_tokens, global_cap) = head_lines(&store, None, now);
    assert!(!global.is_empty(), "the global head has lines");
    let (mine, mine_tokens, mine_cap) = head_lines(&store, Some(&contexts[0]), now);
    // Every other context's own lines (its status lines name the context itself, not an entry).
    let others: Vec<String> = contexts[1..]
        .iter()
        .flat_map(|wc| head_lines(&store, Some(wc), now).0)
        .map(|(source, _, _)| source)
        .filter(|source| !contexts.iter().any(|wc| wc.as_str() == source))
        .collect();
    assert!(!others.is_empty());
    let summary = mine
        .iter()
        .flat_map(|(_, _, cites)| cites.iter())
        .find(|c| c.starts_with("ss_"))
        .expect("the thread head cites a session summary")
        .clone();
    let window = summary_window(&store, &summary);

    App::with(&world, async |ui| {
        ui.click("#nav-heads").await?;
        ui.find("#nav-heads.active").await?;
        ui.find("#head[data-scope='global']").await?;
        // The global head: the engine's lines, in its order, each with its citations.
        ensure_eq!(shown(ui).await?, global);
        let said = meter(ui).await?;
        ensure!(
            said.contains(&format!(
                "{} of {} tokens",
                thousands(global_tokens),
                thousands(global_cap)
            )),
            "{said}"
        );
        ui.screenshot("heads-global").await;

        // A thread head: only its own context's lines; none of another context's entries.
        ui.select("#heads-scope", contexts[0].as_str()).await?;
        ui.find(&format!("#head[data-scope='{}']", contexts[0]))
            .await?;
        let lines = shown(ui).await?;
        ensure_eq!(lines, mine);
        let bled: Vec<&String> = lines
            .iter()
            .map(|(source, _, _)| source)
            .filter(|s| others.contains(s))
            .collect();
        ensure!(bled.is_empty(), "another context's lines shown: {bled:?}");
        let said = meter(ui).await?;
        ensure!(
            said.contains(&format!(
                "{} of {} tokens",
                thousands(mine_tokens),
                thousands(mine_cap)
            )),
            "{said}"
        );
        ui.screenshot("heads-thread").await;

        // A session summary's chip opens its node on the Lineage page, and from there its
        // turns open in the transcript, marked.
        ui.click(&format!("#head a.cite-chip[data-cite='{summary}']"))
            .await?;
        ui.find(&format!("#lineage-node[data-node-id='{summary}']"))
            .await?;
        ui.click("#lineage-open-transcript").await?;
        ui.find("#nav-sessions.active").await?;
        let head = ui.find("#lineage-head").await?;
        ensure_eq!(
            head.attr("data-session-id").await?,
            Some(window.span.session_id.to_string())
        );
        ensure_eq!(
            head.attr("data-turns").await?,
            Some(window.view.turns.to_string())
        );
        ui.screenshot("heads-citation-lineage").await;
        Ok(())
    })
    .await;
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display, tauri-driver and the built app; run by scripts/test.sh"]
async fn writing_a_head_into_a_file_keeps_the_text_around_it_and_a_persons_edit() {
    let (world, _, _) = heads_world();
    let file = world.path("AGENTS.md");
    // A person's file: CRLF line endings and no final newline, both of which must survive.
    let before: &[u8] = b"# Notes for agents\r\n\r\nRun the tests before pushing.";
    std::fs::write(&file, before).unwrap();
    let after_block: &[u8] = b"\r\nWritten by hand after the block.\r\n";
    let path = file.display().to_string();

    App::with(&world, async |ui| {
        ui.click("#nav-heads").await?;
        ui.find("#head[data-scope='global']").await?;
        ui.type_into("#head-write-path", &path).await?;
        ui.click("#head-write").await?;
        ui.find("#head-write-outcome[data-status='written']")
            .await?;
        let written = std::fs::read(&file).unwrap();
        ensure!(
            written.starts_with(before),
            "the text before the block changed"
        );
        let text = String::from_utf8_lossy(&written).into_owned();
        ensure!(
            text.contains("<!-- elnor:head scope=global") && text.contains("<!-- /elnor:head -->"),
            "{text}"
        );
        ui.screenshot("heads-written").await;

        // The person adds text after the block and edits a line inside it.
        let mut edited = written.clone();
        edited.extend_from_slice(after_block);
        let edited = String::from_utf8(edited).unwrap();
        let marker_end = edited.find("<!-- elnor:head").unwrap();
        let body_start = marker_end + edited[marker_end..].find("\r\n").unwrap() + 2;
        let line_end = body_start + edited[body_start..].find("\r\n").unwrap();
        let edited = format!(
            "{}My own note, not ELNOR's.{}",
            &edited[..body_start],
            &edited[line_end..]
        );
        std::fs::write(&file, &edited).unwrap();

        // The edit is kept: the file is untouched and the page shows the person's text.
        ui.click("#head-write").await?;
        ui.find("#head-write-outcome[data-status='edits_kept']")
            .await?;
        ensure_eq!(std::fs::read_to_string(&file).unwrap(), edited);
        let kept = ui
            .wait_text("#head-write-outcome pre.kept-text", |t| {
                t.contains("My own note, not ELNOR's.")
            })
            .await?;
        ensure!(!kept.is_empty());
        // It is listed with what waits around the head, too.
        ui.wait_text("#heads-kept pre.kept-text", |t| {
            t.contains("My own note, not ELNOR's.")
        })
        .await?;
        ui.screenshot("heads-edit-kept").await;

        // "Replace my edits", confirmed: the block is ELNOR's again, every byte around it kept.
        ui.click("#head-replace-edits").await?;
        ui.click("#head-replace-yes").await?;
        ui.wait_gone("#head-replace-confirm").await?;
        ui.find("#head-write-outcome[data-status='written']")
            .await?;
        let replaced = std::fs::read(&file).unwrap();
        ensure!(
            replaced.starts_with(before),
            "the text before the block changed"
        );
        ensure!(
            replaced.ends_with(after_block),
            "the text after the block changed"
        );
        let text = String::from_utf8_lossy(&replaced).into_owned();
        ensure!(!text.contains("My own note"), "{text}");
        ensure_eq!(replaced, written_with(&written, after_block));
        ui.screenshot("heads-edits-replaced").await;
        Ok(())
    })
    .await;
}

/// The file as first written with the person's text after the block: what replacing their
/// edit must give back, since the head itself has not changed.
fn written_with(written: &[u8], after_block: &[u8]) -> Vec<u8> {
    let mut out = written.to_vec();
    out.extend_from_slice(after_block);
    out
}
