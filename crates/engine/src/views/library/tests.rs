//! The Library over a real folder, a real store and a real search index: a collection added,
//! listed by folder, a document rendered and found by its words, and who refers to it, through
//! a Claude Code transcript that names the file and the watcher's observation of a change.

use std::fs;
use std::path::Path;

use chrono::{DateTime, TimeZone, Utc};

use super::*;
use crate::inputs::ingest::SourceRoot;
use crate::inputs::transcripts::Harness;
use crate::views::search::{SearchRequest, Strategy};

/// Why there is no embedder: these searches are lexical and never need one.
const NONE: &str = "no embedder";

fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 1, 12, 0, 0).unwrap()
}

/// A Claude Code session in the harness's own JSONL shape: the person asks about `notes/plan.md`
/// and the assistant answers naming it again.
fn write_session(dir: &Path) {
    let session = "0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0";
    let project = dir.join("-home-dana-work");
    fs::create_dir_all(&project).unwrap();
    let record = |uuid: &str, parent: Option<&str>, kind: &str, at: &str, message: &str| {
        format!(
            r#"{{"parentUuid":{},"isSidechain":false,"userType":"external","cwd":"/home/dana/work","sessionId":"{session}","version":"2.1.39","type":"{kind}","uuid":"{uuid}","timestamp":"{at}","message":{message}}}"#,
            parent.map_or("null".to_owned(), |p| format!("\"{p}\""))
        )
    };
    let lines = [
        record(
            "u-1",
            None,
            "user",
            "2026-10-30T09:00:00.000Z",
            r#"{"role":"user","content":"Please tighten the milestones in notes/plan.md before Friday."}"#,
        ),
        record(
            "a-1",
            Some("u-1"),
            "assistant",
            "2026-10-30T09:00:05.000Z",
            r#"{"role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"Done: notes/plan.md now lists three milestones with owners."}]}"#,
        ),
    ];
    fs::write(
        project.join(format!("{session}.jsonl")),
        lines.join("\n") + "\n",
    )
    .unwrap();
}

#[test]
fn a_collection_is_browsable_rendered_searchable_and_shows_who_refers_to_a_document() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path().join("store")).unwrap();
    let work = dir.path().join("work");
    fs::create_dir_all(work.join("notes")).unwrap();
    let plan = work.join("notes/plan.md");
    fs::write(
        &plan,
        "---\ntitle: Q4 plan\nowner: dana\n---\n# Milestones\n\nShip the [importer](https://e.x/imp) first.\n\n<script>alert(1)</script>\n",
    )
    .unwrap();
    fs::write(
        work.join("readme.txt"),
        "Plain notes about the quarterly budget.\n",
    )
    .unwrap();
    fs::write(work.join("logo.png"), [0x89, b'P', b'N', b'G', 0, 1, 2]).unwrap();

    // A path that is not a folder is refused, and nothing is tracked.
    let typo = crate::usecase::add_library_collection(&store, &dir.path().join("wrok"), now())
        .unwrap_err()
        .to_string();
    assert!(typo.contains("is not a folder"), "{typo}");
    assert!(collections(&store).unwrap().is_empty());
    let collection = crate::usecase::add_library_collection(&store, &work, now()).unwrap();
    assert_eq!(collection.name, "work");
    assert_eq!(collection.documents, 2, "the picture is not a document");
    assert_eq!(collection.folders, vec!["notes".to_owned()]);
    assert!(collection.present);

    let all = documents(&store, &DocumentQuery::default()).unwrap();
    let listed: Vec<(&str, &str)> = all
        .iter()
        .map(|d| (d.relative.as_str(), d.title.as_str()))
        .collect();
    assert_eq!(
        listed,
        vec![("notes/plan.md", "Q4 plan"), ("readme.txt", "readme.txt")]
    );
    let in_notes = documents(
        &store,
        &DocumentQuery {
            collection: Some(work.clone()),
            folder: Some("notes".into()),
        },
    )
    .unwrap();
    assert_eq!(in_notes.len(), 1);
    // A folder name is a whole path segment: `note` is not `notes`.
    let partial = DocumentQuery {
        collection: None,
        folder: Some("note".into()),
    };
    assert!(documents(&store, &partial).unwrap().is_empty());

    // Found by its words, as soon as it was added.
    let mut req = SearchRequest::new("milestones importer", now());
    req.strategy = Strategy::LexicalOnly;
    req.hours = 0;
    req.kinds = vec![DocKind::Document];
    let index = SearchIndex::open(&store).unwrap();
    let found = index.search(&req, None, NONE).unwrap();
    assert_eq!(found.hits.len(), 1, "{found:?}");
    assert_eq!(found.hits[0].path.as_deref(), plan.to_str());
    assert_eq!(found.hits[0].title.as_deref(), Some("Q4 plan"));

    // A session that names the file by its path within the folder refers to it.
    let transcripts = dir.path().join("claude");
    write_session(&transcripts);
    let roots = [SourceRoot {
        harness: Harness::ClaudeCode,
        root: transcripts,
    }];
    crate::usecase::ingest(&store, &roots, &mut |_| {}, now()).unwrap();

    let page = document(&store, &plan).unwrap();
    assert_eq!(page.row.title, "Q4 plan");
    assert_eq!(page.headings, vec!["Milestones".to_owned()]);
    assert_eq!(page.links[0].dest, "https://e.x/imp");
    assert!(page.frontmatter.contains(&("owner".into(), "dana".into())));
    assert!(page.html.contains("<h1>Milestones</h1>"), "{}", page.html);
    // The file's raw HTML is shown, not run.
    assert!(!page.html.contains("<script>"), "{}", page.html);
    assert!(page.html.contains("&lt;script&gt;"), "{}", page.html);
    assert!(!page.truncated);
    let sessions = &page.references.sessions;
    assert_eq!(sessions.len(), 1, "{:?}", page.references);
    assert_eq!(
        sessions[0].session_id,
        "0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0"
    );
    assert_eq!(sessions[0].turns, 2, "both turns name the file");
    assert_eq!(page.references.matched_by, "notes/plan.md");
    // The other document is named by no one.
    let readme = document(&store, &work.join("readme.txt")).unwrap();
    assert!(readme.references.sessions.is_empty());
    assert!(readme.html.starts_with("<pre>"));

    // A change is observed, refers to the document, and the new words are searchable.
    fs::write(&plan, "# Milestones\n\nShip the exporter second.\n").unwrap();
    crate::usecase::reconcile_folders(&store, now()).unwrap();
    let page = document(&store, &plan).unwrap();
    assert_eq!(page.references.observations.len(), 1);
    assert_eq!(page.references.observations[0].kind, "modified");
    req.query = "exporter".into();
    assert_eq!(index.search(&req, None, NONE).unwrap().hits.len(), 1);
    req.query = "importer".into();
    assert!(index.search(&req, None, NONE).unwrap().hits.is_empty());

    // A deleted file leaves the Library and the index.
    fs::remove_file(&plan).unwrap();
    crate::usecase::reconcile_folders(&store, now()).unwrap();
    assert_eq!(
        documents(&store, &DocumentQuery::default()).unwrap().len(),
        1
    );
    req.query = "exporter".into();
    assert!(index.search(&req, None, NONE).unwrap().hits.is_empty());
    let err = document(&store, &plan).unwrap_err().to_string();
    assert!(err.contains("Library document"), "{err}");
}

/// A collection offers every folder that holds one of its documents, ancestors included, once
/// each and sorted.
#[test]
fn a_collection_lists_the_folders_of_its_documents() {
    let relatives = [
        "notes/2026/may.md",
        "notes/plan.md",
        "readme.txt",
        "design/api.md",
    ];
    assert_eq!(
        folders_of(relatives.into_iter()),
        ["design", "notes", "notes/2026"]
    );
}

/// A plain-text document is shown as it is, its markup characters escaped rather than read.
#[test]
fn plain_text_is_escaped_not_rendered() {
    let html = render_text("a <b>bold</b> & \"quoted\" line\n");
    assert!(html.starts_with("<pre>"), "{html}");
    // Quotes need no escaping inside an element's text; angle brackets and ampersands do.
    assert!(
        html.contains("a &lt;b&gt;bold&lt;/b&gt; &amp; \"quoted\" line"),
        "{html}"
    );
    assert!(!html.contains("<b>"), "{html}");
}
