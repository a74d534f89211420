//! Observation tests: pushes and file changes through to cross-conversation updates and the
//! brief, and the settle rules over a real temporary folder. The live watcher over real inotify
//! is in the slow tier, `crates/engine/tests/watcher.rs`.

use std::path::{Path, PathBuf};

use chrono::{DateTime, Duration, TimeZone, Utc};
use expect_test::expect;

use super::files::{Scope, settle};
use super::ignore::IgnoreRules;
use super::*;
use crate::brief::{BriefRequest, Delivery, assemble};
use crate::continuity::EntryContent;
use crate::graph::contexts::{LinkRuleKind, NewWorkContext};
use crate::usecase::watcher;

fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 22, 12, 0, 0).unwrap()
}

/// Two work contexts: "Henderson damages section" linked to the entity Henderson (placed by the
/// cwd `/work/henderson`), and "Motion to dismiss" (cwd `/work/motion`, files under `docs_dir`).
struct World {
    _dir: tempfile::TempDir,
    store: Store,
    henderson: WorkContextId,
    motion: WorkContextId,
    henderson_entity: EntityId,
    /// A real folder, tracked, under the motion context's cwd rule.
    docs: PathBuf,
}

fn world() -> World {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path().join("store")).unwrap();
    store.set_mode(ContinuityMode::Deterministic).unwrap();
    let docs = dir.path().join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    let docs = std::fs::canonicalize(&docs).unwrap();
    let g = store.graph();
    let henderson_entity = g
        .create_entity(
            &NewEntity {
                kind: "matter".into(),
                canonical_name: "Henderson".into(),
                ..NewEntity::default()
            },
            now() - Duration::days(7),
        )
        .unwrap()
        .entity_id;
    // The creation event is delivered before any context references the entity: nowhere.
    crossconv::deliver_pending(&store, &store.config().unwrap(), now()).unwrap();
    let henderson = g
        .create_work_context(
            &NewWorkContext {
                name: "Henderson damages section".into(),
                rules: vec![(LinkRuleKind::Cwd, "/work/henderson".into())],
                entity_ids: vec![henderson_entity.clone()],
                ..NewWorkContext::default()
            },
            now() - Duration::days(7),
        )
        .unwrap()
        .work_context_id;
    let motion = g
        .create_work_context(
            &NewWorkContext {
                name: "Motion to dismiss".into(),
                rules: vec![(LinkRuleKind::Cwd, docs.to_string_lossy().into_owned())],
                ..NewWorkContext::default()
            },
            now() - Duration::days(7),
        )
        .unwrap()
        .work_context_id;
    World {
        _dir: dir,
        store,
        henderson,
        motion,
        henderson_entity,
        docs,
    }
}

/// The cross-conversation updates in a context's log, as their summaries.
fn updates(store: &Store, wc: &WorkContextId) -> Vec<String> {
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

/// The "Since last session" lines a brief for `cwd` shows.
fn brief_updates(store: &Store, cwd: &str, at: DateTime<Utc>, delivery: Delivery) -> Vec<String> {
    let mut req = BriefRequest::new(at, at.date_naive(), delivery);
    req.cwd = Some(cwd.to_owned());
    let b = assemble(store, &req).unwrap();
    // A stale view is served and then rebuilt; what the next brief sees is the rebuilt one.
    crate::views::constellation::refresh(store, &b.needs_rebuild, at);
    b.cards
        .iter()
        .flat_map(|c| c.items.iter())
        .filter(|i| i.kind == "update")
        .map(|i| i.text.clone())
        .collect()
}

#[test]
fn a_push_mentioning_another_contexts_entity_reaches_it_once() {
    let w = world();
    let out = push(
        &w.store,
        &Push {
            text: "Sent the Henderson brief to opposing counsel".into(),
            work_context: Some(w.motion.clone()),
            entities: vec!["Opposing counsel".into()],
        },
        now(),
    )
    .unwrap();
    let o = &out.observation;
    assert_eq!(
        (o.source, o.kind),
        (ObservationSource::Push, ObservationKind::Pushed)
    );
    assert_eq!(out.entities_created, vec!["Opposing counsel".to_owned()]);
    let names: Vec<&str> = o.entities.iter().map(|(_, n)| n.as_str()).collect();
    assert_eq!(names, vec!["Henderson", "Opposing counsel"]);
    // Henderson's context learns of it through the entity; the push's own context directly.
    expect![[r#"["You noted: Sent the Henderson brief to opposing counsel"]"#]]
        .assert_eq(&format!("{:?}", updates(&w.store, &w.henderson)));
    assert_eq!(updates(&w.store, &w.motion).len(), 1);
    assert_eq!(o.updates_written, 2);
    // The next delivered brief for Henderson includes it once, then it is delivered.
    let at = now() + Duration::minutes(5);
    expect![[r#"["Since last session: You noted: Sent the Henderson brief to opposing counsel"]"#]]
        .assert_eq(&format!(
            "{:?}",
            brief_updates(&w.store, "/work/henderson", at, Delivery::Delivered)
        ));
    assert!(brief_updates(&w.store, "/work/henderson", at, Delivery::Delivered).is_empty());
    // Every push is its own update, even about the same entity.
    push(
        &w.store,
        &Push {
            text: "Henderson\nsigned".into(),
            ..Push::default()
        },
        now() + Duration::minutes(6),
    )
    .unwrap();
    assert_eq!(updates(&w.store, &w.henderson).len(), 2);
    assert_eq!(
        updates(&w.store, &w.henderson).last().map(String::as_str),
        Some("You noted: Henderson signed")
    );
    // The person's observations are listed, newest first, and filtered.
    let listed = w
        .store
        .graph()
        .observations(&ObservationFilter::default())
        .unwrap();
    assert_eq!(listed.len(), 2);
    assert_eq!(listed[0].text, "Henderson\nsigned");
    let in_motion = w
        .store
        .graph()
        .observations(&ObservationFilter {
            work_context: Some(w.motion.clone()),
            ..ObservationFilter::default()
        })
        .unwrap();
    assert_eq!(in_motion.len(), 1);
}

#[test]
fn a_bad_push_is_refused_and_stores_nothing() {
    let w = world();
    for (text, wc, why) in [
        ("   ", None, "needs some text"),
        ("x\u{7}y", None, "control characters"),
        ("ok", Some("wc_nope"), "work context"),
    ] {
        let err = push(
            &w.store,
            &Push {
                text: text.into(),
                work_context: wc.map(|w| WorkContextId::new(w).unwrap()),
                entities: vec![],
            },
            now(),
        )
        .unwrap_err();
        assert!(err.to_string().contains(why), "{err}");
    }
    let long = "a".repeat(MAX_PUSH_CHARS + 1);
    assert!(
        push(
            &w.store,
            &Push {
                text: long,
                ..Push::default()
            },
            now()
        )
        .is_err()
    );
    assert!(
        w.store
            .graph()
            .observations(&ObservationFilter::default())
            .unwrap()
            .is_empty()
    );
}

fn write(path: &Path, text: &str) {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    std::fs::write(path, text).unwrap();
}

/// Settles `scope` under the world's docs folder and describes each observation in a line.
fn settle_docs(w: &World, scope: Scope, rules: &IgnoreRules) -> String {
    let config = w.store.config().unwrap();
    let s = settle(&w.store, &config, rules, &w.docs, &scope, now()).unwrap();
    s.observations
        .iter()
        .map(|o| {
            let rel = |p: &Option<PathBuf>| {
                p.as_ref()
                    .map(|p| p.strip_prefix(&w.docs).unwrap().display().to_string())
            };
            format!(
                "{} {} from={:?} title={:?} text={:?} entities={:?} wc={:?} updates={}",
                o.kind.as_str(),
                rel(&o.path).unwrap_or_default(),
                rel(&o.from_path),
                o.title,
                o.text,
                o.entities
                    .iter()
                    .map(|(_, n)| n.as_str())
                    .collect::<Vec<_>>(),
                o.work_context_id.as_ref().map(WorkContextId::as_str),
                o.updates_written,
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn settle_tells_create_modify_rename_delete_apart_and_ignores_what_it_should() {
    let w = world();
    let rules = IgnoreRules::new(&["*.bak".to_owned(), "private/**".to_owned()]);
    write(&w.docs.join("existing.md"), "# Old notes\n");
    // The first pass over a folder is a silent baseline.
    expect![[""]].assert_eq(&settle_docs(&w, Scope::All, &rules));
    write(
        &w.docs.join("henderson-brief.md"),
        "---\ntitle: Henderson brief\n---\n# Draft\n\nThe damages theory.\n\n## Risks\n\nSee [the report](report.pdf).\n",
    );
    for ignored in [
        ".git/HEAD",
        "node_modules/x/index.js",
        "notes.md.swp",
        "old.bak",
        "private/a.md",
        "~$draft.docx",
        "target/debug/x",
    ] {
        write(&w.docs.join(ignored), "ignored");
    }
    expect![[r#"created henderson-brief.md from=None title=Some("Henderson brief") text="new file, 10 lines; headings: Draft, Risks" entities=["Henderson"] wc=Some("wc_motion_to_dismiss") updates=1"#]]
        .assert_eq(&settle_docs(&w, Scope::All, &rules));
    // Nothing changed: nothing to say, whichever way the path arrives.
    expect![[""]].assert_eq(&settle_docs(&w, Scope::All, &rules));
    expect![[""]].assert_eq(&settle_docs(
        &w,
        Scope::Paths(vec![
            w.docs.join("henderson-brief.md"),
            w.docs.join(".git/HEAD"),
        ]),
        &rules,
    ));
    // An edit: the delta counts lines and quotes the first added one.
    write(
        &w.docs.join("henderson-brief.md"),
        "---\ntitle: Henderson brief\n---\n# Draft\n\nThe damages theory, revised.\n\n## Risks\n\nSee [the report](report.pdf).\n",
    );
    expect![[r#"modified henderson-brief.md from=None title=Some("Henderson brief") text="+1 −1 lines: “The damages theory, revised.”" entities=["Henderson"] wc=Some("wc_motion_to_dismiss") updates=0"#]]
        .assert_eq(&settle_docs(&w, Scope::Paths(vec![w.docs.join("henderson-brief.md")]), &rules));
    // A rename (here into a new folder) is one observation, not a delete and a create.
    std::fs::create_dir_all(w.docs.join("sent")).unwrap();
    std::fs::rename(
        w.docs.join("henderson-brief.md"),
        w.docs.join("sent/henderson-brief.md"),
    )
    .unwrap();
    expect![[r#"renamed sent/henderson-brief.md from=Some("henderson-brief.md") title=Some("Henderson brief") text="moved from henderson-brief.md" entities=["Henderson"] wc=Some("wc_motion_to_dismiss") updates=1"#]]
        .assert_eq(&settle_docs(
            &w,
            Scope::Paths(vec![w.docs.join("henderson-brief.md"), w.docs.join("sent")]),
            &rules,
        ));
    std::fs::remove_file(w.docs.join("sent/henderson-brief.md")).unwrap();
    expect![[r#"deleted sent/henderson-brief.md from=None title=Some("Henderson brief") text="deleted (10 lines)" entities=["Henderson"] wc=Some("wc_motion_to_dismiss") updates=0"#]]
        .assert_eq(&settle_docs(&w, Scope::Paths(vec![w.docs.join("sent")]), &rules));
    // Repeated changes to one file wait as one update per context until delivered; the file
    // under its new name is news again. The folder's own context hears of files only through
    // the entities they mention.
    expect![[r#"["Henderson brief created outside chat (henderson-brief.md).", "Henderson brief moved outside chat (to sent/)."]"#]]
        .assert_eq(&format!("{:?}", updates(&w.store, &w.henderson)));
    assert!(updates(&w.store, &w.motion).is_empty());
}

#[test]
fn a_file_edit_mentioning_another_contexts_entity_reaches_it_once() {
    let w = world();
    let rules = IgnoreRules::new(&[]);
    write(&w.docs.join("status.txt"), "Motion status\n");
    settle_docs(&w, Scope::All, &rules);
    write(
        &w.docs.join("status.txt"),
        "Motion status\nCalled Henderson about the settlement.\n",
    );
    expect![[r#"modified status.txt from=None title=Some("status.txt") text="+1 −0 line: “Called Henderson about the settlement.”" entities=["Henderson"] wc=Some("wc_motion_to_dismiss") updates=1"#]]
        .assert_eq(&settle_docs(&w, Scope::All, &rules));
    let at = now() + Duration::minutes(5);
    expect![[r#"["Since last session: status.txt edited outside chat."]"#]].assert_eq(&format!(
        "{:?}",
        brief_updates(&w.store, "/work/henderson", at, Delivery::Delivered)
    ));
    assert!(brief_updates(&w.store, "/work/henderson", at, Delivery::Delivered).is_empty());
    // Once delivered, the next edit is news again.
    write(
        &w.docs.join("status.txt"),
        "Motion status\nCalled Henderson about the settlement.\nHenderson agreed.\n",
    );
    settle_docs(&w, Scope::All, &rules);
    assert_eq!(updates(&w.store, &w.henderson).len(), 2);
    // An edit that does not mention Henderson does not reach Henderson's context.
    write(&w.docs.join("other.txt"), "Filed the reply.\n");
    settle_docs(&w, Scope::All, &rules);
    assert_eq!(updates(&w.store, &w.henderson).len(), 2);
    // The context whose folder holds the file hears of an edit mentioning its own entity too: no
    // session of it saw the edit.
    w.store
        .graph()
        .link_entity(w.motion.as_str(), w.henderson_entity.as_str())
        .unwrap();
    write(
        &w.docs.join("status.txt"),
        "Motion status\nCalled Henderson about the settlement.\nHenderson agreed.\nHenderson paid.\n",
    );
    settle_docs(&w, Scope::All, &rules);
    expect![[r#"["status.txt edited outside chat."]"#]]
        .assert_eq(&format!("{:?}", updates(&w.store, &w.motion)));
}

#[test]
fn a_folder_created_with_files_in_it_is_walked_whole() {
    let w = world();
    let rules = IgnoreRules::new(&[]);
    settle_docs(&w, Scope::All, &rules);
    for i in 0..50 {
        write(
            &w.docs.join(format!("batch/sub/{i:02}.txt")),
            &format!("file {i}\n"),
        );
    }
    // Only the new folder was named (inotify's event for it), not one of its files.
    let out = settle_docs(&w, Scope::Paths(vec![w.docs.join("batch")]), &rules);
    assert_eq!(
        out.lines()
            .filter(|l| l.starts_with("created batch/sub/"))
            .count(),
        50
    );
    // Removing the folder deletes each file once.
    std::fs::remove_dir_all(w.docs.join("batch")).unwrap();
    let out = settle_docs(&w, Scope::Paths(vec![w.docs.join("batch")]), &rules);
    assert_eq!(
        out.lines().filter(|l| l.starts_with("deleted ")).count(),
        50
    );
    assert_eq!(settle_docs(&w, Scope::All, &rules), "");
}

#[test]
fn binary_files_are_observed_by_size_without_content() {
    let w = world();
    let rules = IgnoreRules::new(&[]);
    settle_docs(&w, Scope::All, &rules);
    std::fs::write(w.docs.join("scan.pdf"), [0xff, 0xfe, 0x00, 0x01]).unwrap();
    expect![[r#"created scan.pdf from=None title=Some("scan.pdf") text="new file, 4 B" entities=[] wc=Some("wc_motion_to_dismiss") updates=0"#]]
        .assert_eq(&settle_docs(&w, Scope::All, &rules));
    std::fs::write(w.docs.join("scan.pdf"), vec![0xffu8; 3000]).unwrap();
    expect![[r#"modified scan.pdf from=None title=Some("scan.pdf") text="4 B → 2.9 KB" entities=[] wc=Some("wc_motion_to_dismiss") updates=0"#]]
        .assert_eq(&settle_docs(&w, Scope::All, &rules));
}

#[test]
fn a_file_name_that_is_not_utf8_is_skipped_and_counted() {
    use std::os::unix::ffi::OsStrExt;
    let w = world();
    let rules = IgnoreRules::new(&[]);
    settle_docs(&w, Scope::All, &rules);
    let bad = w.docs.join(std::ffi::OsStr::from_bytes(b"caf\xe9.md"));
    std::fs::write(&bad, "x").unwrap();
    write(&w.docs.join("good.md"), "# Good\n");
    let config = w.store.config().unwrap();
    for _ in 0..2 {
        let s = settle(&w.store, &config, &rules, &w.docs, &Scope::All, now()).unwrap();
        assert_eq!(s.skipped.len(), 1, "{:?}", s.skipped);
        assert!(
            s.observations
                .iter()
                .all(|o| o.path.as_deref() != Some(bad.as_path()))
        );
    }
    assert_eq!(
        w.store
            .graph()
            .observations(&ObservationFilter::default())
            .unwrap()
            .len(),
        1
    );
}

#[test]
fn ignore_rules() {
    let root = Path::new("/r");
    let rules = IgnoreRules::new(&["drafts".to_owned(), "*.log".to_owned()]);
    let ignored = |p: &str| rules.is_ignored(root, &root.join(p));
    for p in [
        ".git/config",
        "a/node_modules/b.js",
        "x.swp",
        "x~",
        ".#x.md",
        "4913",
        "drafts/a.md",
        "a/b.log",
        "build",
        "~$doc.docx",
    ] {
        assert!(ignored(p), "{p} should be ignored");
    }
    for p in [
        "notes.md",
        "a/b/c.txt",
        "builder.md",
        "draftsman.md",
        "logs/a.txt",
        "target.md",
    ] {
        assert!(!ignored(p), "{p} should be watched");
    }
    assert!(rules.is_ignored(root, Path::new("/elsewhere/a.md")));
    assert!(ignore::compile("a[").is_err());
}

#[test]
fn markdown_outline() {
    let o = markdown::parse(
        "---\ntitle: 'Q3 plan'\ntags: [x]\n---\n# Heading *one*\n\nText with [a link](https://e.x) and `code`.\n\n## Two\n",
    );
    expect![[r#"{"title":"Q3 plan","headings":["Heading one","Two"],"links":[{"dest":"https://e.x","text":"a link"}]}"#]]
        .assert_eq(&serde_json::to_string(&o).unwrap());
    assert_eq!(
        o.frontmatter,
        vec![
            ("title".to_owned(), "Q3 plan".to_owned()),
            ("tags".to_owned(), "[x]".to_owned())
        ]
    );
    assert_eq!(markdown::parse("## Only\n").title.as_deref(), Some("Only"));
    assert_eq!(markdown::parse("plain").title, None);
}

#[test]
fn tracked_folders_file_refuses_relative_overlapping_and_bad_patterns() {
    let dir = tempfile::tempdir().unwrap();
    let f = TrackedFoldersFile::new(dir.path());
    assert_eq!(f.load().unwrap(), TrackedConfig::default());
    f.add(Path::new("/data/notes/")).unwrap();
    assert_eq!(
        f.load().unwrap().folders,
        vec![PathBuf::from("/data/notes")]
    );
    for (p, why) in [
        ("/data/notes", "already tracked"),
        ("/data/notes/sub", "overlaps"),
        ("/data", "overlaps"),
        ("rel", "absolute"),
    ] {
        let err = f.add(Path::new(p)).unwrap_err().to_string();
        assert!(err.contains(why), "{p}: {err}");
    }
    assert!(f.set_ignore_patterns(vec!["a[".into()]).is_err());
    f.set_ignore_patterns(vec!["*.bak".into(), "  ".into()])
        .unwrap();
    assert_eq!(f.load().unwrap().ignore_patterns, vec!["*.bak".to_owned()]);
    assert!(f.remove(Path::new("/nope")).is_err());
    f.remove(Path::new("/data/notes")).unwrap();
    assert!(f.load().unwrap().folders.is_empty());
}

#[test]
fn an_exhausted_watch_limit_is_explained_with_the_fix() {
    let e = notify::Error::new(notify::ErrorKind::MaxFilesWatch);
    let text = watcher::describe(&e);
    assert!(text.contains("inotify watch limit"), "{text}");
    assert!(
        text.contains("sysctl fs.inotify.max_user_watches="),
        "{text}"
    );
}

/// What a push would reach, one line per entity and context, as the push box previews it.
fn show_reach(w: &World, text: &str, entities: &[&str], chosen: Option<&WorkContextId>) -> String {
    let r = crate::usecase::preview_push(
        &w.store,
        &Push {
            text: text.into(),
            work_context: chosen.cloned(),
            entities: entities.iter().map(|e| (*e).to_owned()).collect(),
        },
    )
    .unwrap();
    let mut out = String::new();
    for e in &r.entities {
        out += &format!("entity {} {:?}\n", e.name, e.found);
    }
    if let Some(c) = &r.work_context {
        out += &format!("lands in {} {:?}\n", c.name, c.found);
    }
    for c in &r.told {
        out += &format!("tells {} via {:?}\n", c.name, c.via_entity);
    }
    out
}

#[test]
fn a_push_reaches_what_its_words_name_even_in_part() {
    let w = world();
    let g = w.store.graph();
    for (name, alias) in [("Christensen report", None), ("Ledger import", Some("LDG"))] {
        let id = g
            .create_entity(
                &NewEntity {
                    kind: "topic".into(),
                    canonical_name: name.into(),
                    aliases: alias.into_iter().map(str::to_owned).collect(),
                    ..NewEntity::default()
                },
                now(),
            )
            .unwrap()
            .entity_id;
        g.link_entity(w.motion.as_str(), id.as_str()).unwrap();
    }
    // A distinctive word of a name reaches the entity, and through it the context that links it.
    expect![[r#"
        entity Christensen report Word("Christensen")
        tells Motion to dismiss via Some("Christensen report")
    "#]]
    .assert_eq(&show_reach(
        &w,
        "Called Christensen about the draft",
        &[],
        None,
    ));
    // A generic word ("report", "import") reaches nothing; an alias does.
    expect![""].assert_eq(&show_reach(
        &w,
        "Finished the report and the import",
        &[],
        None,
    ));
    expect![[r#"
        entity Ledger import Name
        tells Motion to dismiss via Some("Ledger import")
    "#]]
    .assert_eq(&show_reach(&w, "LDG totals match", &[], None));
    // A context's own name, whole or by a distinctive word, is where an unplaced push lands.
    expect![[r#"
        entity Henderson Name
        lands in Henderson damages section Name
    "#]]
    .assert_eq(&show_reach(
        &w,
        "Drafted the henderson damages section",
        &[],
        None,
    ));
    expect![[r#"
        lands in Motion to dismiss Word("motion")
    "#]]
    .assert_eq(&show_reach(&w, "motion filed", &[], None));
    // A context named like an ordinary word is not where a push lands just because the word
    // occurs in it.
    g.create_work_context(
        &NewWorkContext {
            name: "workspace".into(),
            ..NewWorkContext::default()
        },
        now(),
    )
    .unwrap();
    assert!(!show_reach(&w, "Tidied the workspace", &[], None).contains("lands in"));
    // A named entity typed in part is the known one, not a new entity; an unknown one is new;
    // a chosen context wins over the text.
    expect![[r#"
        entity Christensen report Word("christensen")
        entity Opposing counsel New
        lands in Henderson damages section Chosen
        tells Motion to dismiss via Some("Christensen report")
    "#]]
    .assert_eq(&show_reach(
        &w,
        "Motion filed",
        &["christensen", "Opposing counsel"],
        Some(&w.henderson),
    ));
    // The push does what the preview said.
    let out = push(
        &w.store,
        &Push {
            text: "Called Christensen about the draft".into(),
            ..Push::default()
        },
        now(),
    )
    .unwrap();
    assert!(out.entities_created.is_empty());
    expect![[r#"["Christensen report and Ledger import were added by you.", "You noted: Called Christensen about the draft"]"#]]
        .assert_eq(&format!("{:?}", updates(&w.store, &w.motion)));
}
