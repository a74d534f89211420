//! `elnor heads` on real temporary stores, with real processes: a lease held by this test process
//! (through the engine) refuses the CLI's write, which is deferred and then retried; writers
//! started at once leave one well-formed block; the bytes around the block are kept; a person's
//! edit inside it is kept until they decide.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use elnor_engine::{LeaseAttempt, LeaseTarget, Store};
use serde_json::Value;

fn command(store: &Path, args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_elnor"));
    c.arg("--store")
        .arg(store)
        .args(args)
        .env_remove("ELNOR_MEMORY")
        .env_remove("ELNOR_NOW");
    c
}

fn elnor(store: &Path, args: &[&str]) -> Output {
    command(store, args).output().expect("run elnor")
}

fn ok(out: Output) -> Output {
    assert!(
        out.status.success(),
        "exit {:?}\nstdout: {}\nstderr: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).expect("stdout is JSON")
}

/// A store with two work contexts' entries, appended through the CLI, and a target file.
fn setup() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    ok(elnor(&store, &["init"]));
    for (wc, kind, text) in [
        (
            "alpha",
            "open_question",
            "Which venue hosts the alpha review?",
        ),
        ("alpha", "key_decision", "Ship the importer behind a flag."),
        ("beta", "open_question", "Which signing key does beta use?"),
    ] {
        ok(elnor(&store, &["log", "append", wc, kind, text]));
    }
    let target = dir.path().join("AGENTS.md");
    (dir, store, target)
}

fn markers(text: &str) -> (usize, usize) {
    (
        text.matches("<!-- elnor:head scope=global ").count(),
        text.matches("<!-- /elnor:head -->").count(),
    )
}

/// (a) The test process holds the file's lease through the engine: `elnor heads write` is refused
/// with exit 6, the file is untouched and the write is recorded; once released, `elnor heads
/// refresh` retries it and the file holds the head.
#[test]
fn a_write_refused_by_a_held_lease_is_deferred_then_retried_by_refresh() {
    let (_dir, store, target) = setup();
    let before = "# Agents\n\nHand-written rules.\n";
    std::fs::write(&target, before).unwrap();
    let engine = Store::open(&store).unwrap();
    let LeaseAttempt::Held(lease) = elnor_engine::acquire_head_lease(
        &engine,
        &LeaseTarget::File(target.clone()),
        "heads test",
        elnor_engine::now(),
    )
    .unwrap() else {
        panic!("the lease is free")
    };
    let to = target.to_str().unwrap();
    let out = elnor(&store, &["heads", "write", "--to", to]);
    assert_eq!(out.status.code(), Some(6), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("deferred") && stderr.contains("heads test"),
        "{stderr}"
    );
    assert_eq!(std::fs::read_to_string(&target).unwrap(), before);
    let shown = json(&ok(elnor(&store, &["heads", "show", "--json"])));
    assert_eq!(shown["deferred"].as_array().unwrap().len(), 1, "{shown}");
    assert_eq!(shown["deferred"][0]["held_by"]["owner"], "heads test");
    // Still held: the refresh defers it again and says so.
    let busy = elnor(&store, &["heads", "refresh"]);
    assert_eq!(busy.status.code(), Some(6));
    assert_eq!(std::fs::read_to_string(&target).unwrap(), before);
    lease.release().unwrap();
    ok(elnor(&store, &["heads", "refresh"]));
    let after = std::fs::read_to_string(&target).unwrap();
    assert!(after.starts_with(before), "{after}");
    assert_eq!(markers(&after), (1, 1));
    assert!(
        after.contains("Which venue hosts the alpha review?"),
        "{after}"
    );
    let shown = json(&ok(elnor(&store, &["heads", "show", "--json"])));
    assert!(shown["deferred"].as_array().unwrap().is_empty(), "{shown}");
}

/// (b) Six `elnor heads write` processes at once: each wrote (or found the head already there)
/// or was deferred, the file ends with exactly one well-formed block and its other bytes as they
/// were, and after a refresh no deferral remains.
#[test]
fn six_writers_at_once_leave_one_well_formed_block() {
    let (_dir, store, target) = setup();
    let before = "intro line\r\nno final newline ✓";
    std::fs::write(&target, before).unwrap();
    let to = target.to_str().unwrap().to_owned();
    let children: Vec<_> = (0..6)
        .map(|_| {
            command(&store, &["heads", "write", "--to", &to, "--json"])
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .stdin(std::process::Stdio::null())
                .spawn()
                .expect("spawn elnor")
        })
        .collect();
    let mut statuses = Vec::new();
    for child in children {
        let out = child.wait_with_output().unwrap();
        let code = out.status.code();
        assert!(matches!(code, Some(0) | Some(6)), "{out:?}");
        let status = json(&out)["status"].as_str().unwrap().to_owned();
        assert_eq!(code == Some(6), status == "deferred", "{status}");
        statuses.push(status);
    }
    assert!(statuses.iter().any(|s| s == "written"), "{statuses:?}");
    let text = std::fs::read_to_string(&target).unwrap();
    assert_eq!(markers(&text), (1, 1), "{text}");
    assert!(text.starts_with(&format!("{before}\r\n<!-- elnor:head scope=global ")));
    assert!(text.ends_with("<!-- /elnor:head -->\r\n"), "{text:?}");
    ok(elnor(&store, &["heads", "refresh"]));
    let shown = json(&ok(elnor(&store, &["heads", "show", "--json"])));
    assert!(shown["deferred"].as_array().unwrap().is_empty(), "{shown}");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), text);
}

/// (c) Whatever surrounds the block stays byte for byte: text before it (CRLF, unicode, no final
/// newline), text a person added after it, and a thread block beside the global one.
#[test]
fn the_bytes_around_the_block_are_kept_exactly() {
    let (_dir, store, target) = setup();
    let to = target.to_str().unwrap();
    let cases: &[&[u8]] = &[
        b"",
        b"# Rules\n",
        b"# Rules\r\nkeep CRLF\r\n",
        "Grüße, 日本語 ✓ and no newline".as_bytes(),
        b"not utf-8: \xff\xfe\n",
    ];
    for (i, &before) in cases.iter().enumerate() {
        std::fs::write(&target, before).unwrap();
        ok(elnor(&store, &["heads", "write", "--to", to]));
        let once = std::fs::read(&target).unwrap();
        assert!(once.starts_with(before));
        let mut edited = once.clone();
        edited.extend_from_slice("\nadded after ✓ \r\n tail".as_bytes());
        std::fs::write(&target, &edited).unwrap();
        ok(elnor(
            &store,
            &["heads", "write", "--to", to, "--thread", "alpha"],
        ));
        let both = std::fs::read(&target).unwrap();
        assert!(
            both.starts_with(&edited),
            "the thread block is appended after everything"
        );
        // Rewriting the global block (a new entry changes it) leaves every other byte alone.
        let question = format!("Which region hosts beta, take {i}?");
        ok(elnor(
            &store,
            &["log", "append", "beta", "open_question", &question],
        ));
        ok(elnor(&store, &["heads", "write", "--to", to]));
        let after = std::fs::read(&target).unwrap();
        let start = find(&both, b"<!-- elnor:head scope=global ");
        let end = find(&both, b"<!-- /elnor:head -->") + "<!-- /elnor:head -->".len();
        assert_eq!(&after[..start], &both[..start]);
        let tail = &both[end..];
        assert!(after.ends_with(tail));
        assert!(String::from_utf8_lossy(&after).contains(&question));
    }
}

fn find(hay: &[u8], needle: &[u8]) -> usize {
    hay.windows(needle.len())
        .position(|w| w == needle)
        .expect("marker present")
}

/// (d) A person's edit inside the block is kept and saved as a proposal (exit 7, the file
/// untouched, `heads show` lists it); `--replace-edits` overwrites it.
#[test]
fn a_persons_edit_is_kept_as_a_proposal_until_replace_edits() {
    let (_dir, store, target) = setup();
    let to = target.to_str().unwrap();
    ok(elnor(
        &store,
        &["heads", "write", "--to", to, "--thread", "alpha"],
    ));
    let written = std::fs::read_to_string(&target).unwrap();
    let edited = written.replace("Ship the importer", "Ship the NEW importer");
    assert_ne!(edited, written);
    std::fs::write(&target, &edited).unwrap();
    let out = elnor(&store, &["heads", "write", "--to", to, "--thread", "alpha"]);
    assert_eq!(out.status.code(), Some(7), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("--replace-edits"));
    assert_eq!(std::fs::read_to_string(&target).unwrap(), edited);
    let shown = json(&ok(elnor(
        &store,
        &["heads", "show", "--thread", "alpha", "--json"],
    )));
    let proposals = shown["proposals"].as_array().unwrap();
    assert_eq!(proposals.len(), 1, "{shown}");
    let body = std::fs::read_to_string(proposals[0]["body_path"].as_str().unwrap()).unwrap();
    assert!(body.contains("NEW importer"));
    let out = ok(elnor(
        &store,
        &[
            "heads",
            "write",
            "--to",
            to,
            "--thread",
            "alpha",
            "--replace-edits",
            "--json",
        ],
    ));
    assert_eq!(json(&out)["status"], "written");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), written);
}

/// `heads refresh` writes the store's own head files; `heads show` prints them; a thread of an
/// unknown context is invalid input (exit 4).
#[test]
fn refresh_writes_the_store_heads_and_show_prints_them() {
    let (_dir, store, _) = setup();
    let out = ok(elnor(&store, &["heads", "refresh", "--json"]));
    let reports = json(&out)["reports"].as_array().unwrap().len();
    assert_eq!(reports, 3, "two threads and the global head");
    let global = std::fs::read_to_string(store.join("heads/MEMORY.md")).unwrap();
    let alpha = std::fs::read_to_string(store.join("heads/threads/alpha.md")).unwrap();
    assert!(global.contains("alpha") && global.contains("beta"));
    assert!(alpha.contains("importer") && !alpha.contains("signing key"));
    let shown = ok(elnor(&store, &["heads", "show"]));
    assert_eq!(String::from_utf8_lossy(&shown.stdout), global);
    let out = elnor(&store, &["heads", "show", "--thread", "nowhere"]);
    assert_eq!(out.status.code(), Some(4), "{out:?}");
    let out = elnor(&store, &["heads", "show", "--thread", "../x"]);
    assert_eq!(out.status.code(), Some(4), "{out:?}");
}
