//! Issue 14's checks, measured through the `elnor` binary as a new user would run it on a real
//! history (`init`, `config set mode deterministic`, `ingest`, `watch --once`, no context made by
//! hand), over the development corpus `../shared/fixtures/real` (or `$ELNOR_REAL_FIXTURES`, so
//! the same checks run on other people's histories). The figures are printed; the test fails when
//! a rule of the issue is broken. Without the corpus (a plain clone) it says so and stops.
//!
//! Issue 37's check of Today runs the same way on both corpora (`real/` and `real2/`): every
//! open question Today shows is read with the session it came from. Issue 38's check reads
//! every session's title and summary there: none may open on what a harness, a gateway or a
//! scheduler wrote (`machine_opening`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use chrono::{DateTime, Duration, Utc};
use serde_json::Value;

fn corpus() -> Option<PathBuf> {
    elnor_fixtures::real()
}

fn elnor(store: &Path, now: Option<&str>, args: &[&str]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_elnor"));
    cmd.arg("--store")
        .arg(store)
        .args(args)
        .env_remove("ELNOR_MEMORY")
        .env_remove("ELNOR_NOW");
    if let Some(now) = now {
        cmd.env("ELNOR_NOW", now);
    }
    cmd.output().expect("run elnor")
}

use elnor_fixtures::json_of as json;

/// Non-empty lines of every JSONL file under the corpus: each is at least one record.
fn lines_in(real: &Path) -> u64 {
    walk(real)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .map(|p| {
            std::fs::read(&p)
                .unwrap()
                .split(|b| *b == b'\n')
                .filter(|l| !l.iter().all(u8::is_ascii_whitespace))
                .count() as u64
        })
        .sum()
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}

/// A store made as a new user makes one on `corpus`: `init`, deterministic mode, `ingest` and
/// `watch --once` over every harness folder of it. Returns the store's folder and what the
/// ingest reported.
fn new_user_store(corpus: &Path) -> (tempfile::TempDir, Value) {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path();
    let roots = elnor_fixtures::root_args(corpus);
    let roots: Vec<&str> = roots.iter().map(String::as_str).collect();
    json(elnor(store, None, &["init", "--json"]));
    json(elnor(
        store,
        None,
        &["config", "set", "mode", "deterministic", "--json"],
    ));
    let mut args = vec!["ingest", "--json"];
    args.extend(&roots);
    let ingest = json(elnor(store, None, &args));
    let mut args = vec!["watch", "--once", "--no-files", "--json"];
    args.extend(&roots);
    json(elnor(store, None, &args));
    (dir, ingest)
}

/// The corpora of other people's histories beside the checkout (`real/`, `real2/`); `None`, said
/// once, when there is neither.
fn both_corpora() -> Option<Vec<PathBuf>> {
    let corpora: Vec<PathBuf> = [elnor_fixtures::real(), elnor_fixtures::real2()]
        .into_iter()
        .flatten()
        .collect();
    if corpora.is_empty() {
        eprintln!("skipped: no real-history corpus");
        return None;
    }
    Some(corpora)
}

/// Every session the Sessions list shows in `store`, as `sessions list --json` gives them.
fn listed_sessions(store: &Path) -> Vec<Value> {
    let listed = json(elnor(
        store,
        None,
        &["sessions", "list", "--limit", "1000", "--json"],
    ));
    listed["sessions"].as_array().unwrap().clone()
}

/// Text no card line may carry: injected instructions, wrappers and metadata.
const INJECTED: &[&str] = &[
    "<system-reminder",
    "<command-",
    "<local-command",
    "<environment_context",
    "HEARTBEAT",
    "AGENTS.md instructions",
    "untrusted metadata",
    "<think>",
    "You are ",
    "This session is being continued",
];

#[test]
fn a_new_user_with_real_history() {
    let Some(real) = corpus() else {
        return;
    };
    let (dir, ingest) = new_user_store(&real);
    let store = dir.path();
    let mut report = String::new();

    // Every record kept: each non-empty line is one record, or several joined back to back.
    let lines = lines_in(&real);
    let records = ingest["records_added"].as_u64().unwrap();
    let repaired = ingest["repaired"].as_u64().unwrap();
    let malformed = ingest["malformed"].as_u64().unwrap();
    report.push_str(&format!(
        "ingest: {lines} lines, {records} records, {repaired} line(s) repaired, {malformed} malformed\n"
    ));
    assert_eq!(malformed, 0, "no record of the corpus is malformed");
    assert!(records >= lines, "every line gives at least one record");

    // One work context per project folder with two or more top-level sessions.
    let sessions = json(elnor(
        store,
        None,
        &["sessions", "list", "--limit", "100", "--json"],
    ));
    let sessions = sessions["sessions"].as_array().unwrap().clone();
    let primary: Vec<&Value> = sessions
        .iter()
        .filter(|s| s["session_kind"] == "primary")
        .collect();
    let mut by_folder: BTreeMap<String, Vec<&Value>> = BTreeMap::new();
    for s in &primary {
        if let Some(cwd) = s["cwd"].as_str() {
            // The same folder however the harness wrote it (drive-letter case, separators).
            let key = cwd.replace('\\', "/").trim_end_matches('/').to_lowercase();
            by_folder.entry(key).or_default().push(s);
        }
    }
    let mut scattered = Vec::new();
    for (folder, list) in &by_folder {
        if list.len() < 2 {
            continue;
        }
        let contexts: BTreeSet<&str> = list
            .iter()
            .map(|s| s["work_context_id"].as_str().unwrap_or("none"))
            .collect();
        report.push_str(&format!(
            "project {folder}: {} sessions in {} work context(s) {contexts:?}\n",
            list.len(),
            contexts.len()
        ));
        if contexts.len() != 1 || contexts.contains("none") || contexts.contains("wc_unlinked") {
            scattered.push(folder.clone());
        }
    }
    let unlinked = primary
        .iter()
        .filter(|s| s["work_context_id"].is_null() || s["work_context_id"] == "wc_unlinked")
        .count();
    let kinds: BTreeMap<String, usize> = sessions.iter().fold(BTreeMap::new(), |mut m, s| {
        *m.entry(s["session_kind"].as_str().unwrap_or("?").to_owned())
            .or_default() += 1;
        m
    });
    report.push_str(&format!(
        "sessions by kind {kinds:?}; top-level unlinked: {unlinked} of {} ({:.0}%)\n",
        primary.len(),
        100.0 * unlinked as f64 / primary.len().max(1) as f64
    ));

    // A replay one hour after each such project's last session: a new session there gets a
    // resume card whose lines are the work.
    let mut no_card = Vec::new();
    for (folder, list) in by_folder.iter().filter(|(_, l)| l.len() >= 2) {
        let last: DateTime<Utc> = list
            .iter()
            .filter_map(|s| s["last_activity_at"].as_str())
            .filter_map(|t| DateTime::parse_from_rfc3339(t).ok())
            .map(|t| t.with_timezone(&Utc))
            .max()
            .unwrap();
        let at = (last + Duration::hours(1)).to_rfc3339();
        let cwd = list[0]["cwd"].as_str().unwrap();
        let brief = json(elnor(store, Some(&at), &["brief", "--cwd", cwd, "--json"]));
        let card: Vec<String> = brief["tiers"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|t| t["tag"] == "resume")
            .flat_map(|t| t["lines"].as_array().unwrap().clone())
            .filter_map(|l| l.as_str().map(str::to_owned))
            .collect();
        report.push_str(&format!(
            "replay {folder} at {at}: {} card line(s)\n",
            card.len()
        ));
        for line in &card {
            report.push_str(&format!("    {line}\n"));
            for marker in INJECTED {
                assert!(
                    !line.contains(marker),
                    "injected text in a card line: {line}"
                );
            }
        }
        if card.is_empty() {
            no_card.push(folder.clone());
        }
    }

    // Now: nothing older than the rollup window is in Tier 2.
    let rollup = json(elnor(store, None, &["rollup", "--json"]));
    let window = rollup["window_days"].as_i64().unwrap_or(14);
    let oldest_allowed = Utc::now() - Duration::days(window + 1);
    let segments = rollup["segments"].as_array().cloned().unwrap_or_default();
    for s in &segments {
        let at = DateTime::parse_from_rfc3339(s["last_activity_at"].as_str().unwrap()).unwrap();
        assert!(
            at.with_timezone(&Utc) >= oldest_allowed,
            "a segment older than the rollup window: {s}"
        );
    }
    report.push_str(&format!(
        "now: {} Tier 2 segment(s) within the {window}-day window\n",
        segments.len()
    ));
    // Entities worth having: the share of created entities labelled meaningful.
    let labels: BTreeMap<(String, String), bool> = include_str!("real_entity_labels.tsv")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let cols: Vec<&str> = l.split('\t').collect();
            ((cols[0].to_owned(), cols[1].to_owned()), cols[2] == "Y")
        })
        .collect();
    let entities = json(elnor(store, None, &["entities", "list", "--json"]));
    let entities = entities.as_array().cloned().unwrap_or_default();
    let mut meaningful = 0;
    let mut unlabelled = Vec::new();
    for e in &entities {
        let key = (
            e["kind"].as_str().unwrap_or("").to_owned(),
            e["canonical_name"].as_str().unwrap_or("").to_owned(),
        );
        match labels.get(&key) {
            Some(true) => meaningful += 1,
            Some(false) => report.push_str(&format!("  not worth having: {} {}\n", key.0, key.1)),
            None => unlabelled.push(key),
        }
    }
    let share = meaningful as f64 / entities.len().max(1) as f64;
    report.push_str(&format!(
        "entities: {} created, {meaningful} meaningful ({:.0}%), {} unlabelled\n",
        entities.len(),
        100.0 * share,
        unlabelled.len()
    ));
    println!("{report}");
    // On another person's history these labels do not apply; the share is checked on ours.
    if std::env::var_os("ELNOR_REAL_FIXTURES").is_none() {
        assert!(
            unlabelled.is_empty(),
            "label these entities: {unlabelled:?}"
        );
        assert!(
            share >= 0.8,
            "only {:.0}% of entities are meaningful",
            100.0 * share
        );
    }
    assert!(
        scattered.is_empty(),
        "projects scattered over contexts: {scattered:?}"
    );
    assert!(
        unlinked * 20 <= primary.len(),
        "more than 5% of top-level sessions unlinked"
    );
    assert!(no_card.is_empty(), "no resume card for {no_card:?}");
}

/// Why a line is a status or log line rather than something to ask a person, if it is: a
/// setting or a measure ("Batch size: 5"), a tally ("29 unresolved / 47 total"), a stamped or
/// levelled log line, a label that ends on a colon, or mostly figures. Written from what such
/// lines are, not from the detectors: the check holds whatever they take.
fn status_or_log(line: &str) -> Option<&'static str> {
    let body = line
        .trim()
        .trim_start_matches(['-', '*', '•', ' '])
        .trim_matches('*')
        .trim();
    let letters = body.chars().filter(|c| c.is_alphabetic()).count();
    let digits = body.chars().filter(char::is_ascii_digit).count();
    let asks = body.ends_with('?') || body.ends_with('？');
    if letters < 3 {
        return Some("no words");
    }
    let first: Vec<char> = body.chars().take(5).collect();
    let stamped =
        (first.len() == 5 && first[..4].iter().all(char::is_ascii_digit) && first[4] == '-')
            || (body.starts_with('[') && body[1..].starts_with(|c: char| c.is_ascii_digit()));
    if stamped {
        return Some("a stamped log line");
    }
    let head = body
        .split(|c: char| !c.is_ascii_alphabetic())
        .next()
        .unwrap_or("");
    if ["INFO", "WARN", "WARNING", "ERROR", "DEBUG", "TRACE"].contains(&head)
        && body[head.len()..].starts_with([':', ' ', ']'])
    {
        return Some("a levelled log line");
    }
    if !asks
        && let Some((_, value)) = body.split_once(": ")
        && value.split_whitespace().count() <= 3
        && value.chars().any(|c| c.is_ascii_digit())
    {
        return Some("a setting or a measure");
    }
    let words: Vec<&str> = body.split_whitespace().collect();
    let number = |w: &str| w.chars().next().is_some_and(|c| c.is_ascii_digit());
    let tally = words.windows(3).any(|w| w[1] == "/" && number(w[2]))
        || words.iter().any(|w| {
            w.split_once('/')
                .is_some_and(|(a, b)| number(a) && number(b) && !w.contains("//"))
        });
    if tally && !asks {
        return Some("a tally");
    }
    if body.ends_with(':') {
        return Some("a label");
    }
    if digits * 10 > (letters + digits) * 3 {
        return Some("mostly figures");
    }
    None
}

#[test]
fn status_or_log_lines_are_told_from_questions() {
    for line in [
        "Batch size: 5",
        "29 unresolved / 47 total",
        "2026-02-20 15:48:04 gateway restarted",
        "[2026-02-20] sync done",
        "ERROR: connection refused",
        "**Next steps:**",
        "- 12.4 ms / 98.1 ms (p50/p99)",
    ] {
        assert!(status_or_log(line).is_some(), "{line}");
    }
    for line in [
        "Should we use Postgres or SQLite?",
        "Waiting on the reviewer's data for the Q3 report",
        "TODO: confirm the ratification date",
        "Which of the 2 layouts do you prefer: A or B?",
        "需要我推送到远程仓库吗？",
    ] {
        assert_eq!(status_or_log(line), None, "{line}");
    }
}

/// What Today shows a person, on each corpus of real history run as a new user would: at one
/// hour after each work context's last session, every open question Today lists is read with
/// the session it came from. None may be a status or log line, and each names a session the
/// Sessions list has, in the work context it is listed under.
#[test]
fn today_lists_no_status_or_log_lines_on_real_history() {
    let Some(corpora) = both_corpora() else {
        return;
    };
    let mut bad = Vec::new();
    for corpus in corpora {
        let (dir, _) = new_user_store(&corpus);
        let store = dir.path();
        let sessions = listed_sessions(store);
        let mut last: BTreeMap<String, DateTime<Utc>> = BTreeMap::new();
        let mut by_id: BTreeMap<String, &Value> = BTreeMap::new();
        for s in &sessions {
            by_id.insert(s["session_id"].as_str().unwrap().to_owned(), s);
            let (Some(wc), Some(at)) = (
                s["work_context_id"].as_str(),
                s["last_activity_at"].as_str(),
            ) else {
                continue;
            };
            let at = DateTime::parse_from_rfc3339(at)
                .unwrap()
                .with_timezone(&Utc);
            let e = last.entry(wc.to_owned()).or_insert(at);
            *e = (*e).max(at);
        }
        let mut read: BTreeSet<(String, String)> = BTreeSet::new();
        for at in last.values().collect::<BTreeSet<_>>() {
            let now = (*at + Duration::hours(1)).to_rfc3339();
            let today = json(elnor(store, Some(&now), &["today", "--json"]));
            for q in today["waiting_questions"].as_array().unwrap() {
                let text = q["question"].as_str().unwrap().to_owned();
                let source = q["source_session_id"].as_str().unwrap_or("").to_owned();
                if !read.insert((text.clone(), source.clone())) {
                    continue;
                }
                let session = by_id.get(&source);
                println!(
                    "{}: {:?}\n    from {source} ({:?})",
                    q["context_name"].as_str().unwrap_or(""),
                    text,
                    session.and_then(|s| s["request"].as_str().or(s["title"].as_str())),
                );
                if let Some(why) = status_or_log(&text) {
                    bad.push(format!("{why}: {text:?} (from {source})"));
                }
                match session {
                    None => bad.push(format!("no such session {source:?} for {text:?}")),
                    Some(s) if s["work_context_id"] != q["work_context_id"] => bad.push(format!(
                        "{text:?} is listed under {} but came from a session of {}",
                        q["work_context_id"], s["work_context_id"]
                    )),
                    Some(_) => {}
                }
            }
        }
        println!("{}: {} item(s) read on Today", corpus.display(), read.len());
    }
    assert!(
        bad.is_empty(),
        "Today shows what no person should be asked: {bad:#?}"
    );
}

/// Why `text` opens on what a harness, a gateway or a scheduler wrote rather than a person or
/// the agent's own words, if it does. Written from what such text is, never from a corpus's
/// phrases: a markup tag or wrapper, a bracketed stamp or banner, a role label before a stamp, a
/// header of `key: value | key: value` fields, a machine token or shouted banner, an id, a bare
/// slash command, or a JSON object.
fn machine_opening(text: &str) -> Option<&'static str> {
    let t = text.trim_start_matches(|c: char| c.is_whitespace() || c == '"' || c == '“');
    let first_line = t.lines().next().unwrap_or("");
    let mut chars = t.chars();
    let (c0, c1) = (chars.next()?, chars.next());
    if c0 == '<' && c1.is_some_and(|c| c.is_ascii_alphabetic() || c == '/' || c == '!') {
        return Some("a markup tag");
    }
    if c0 == '{' && t[1..].trim_start().starts_with('"') {
        return Some("a JSON object");
    }
    if c0 == '[' {
        if c1 == Some('[') {
            return Some("a double-bracketed marker");
        }
        let (inside, after) = t[1..].split_once(']').unwrap_or((&t[1..], ""));
        // `[text](target)` is a Markdown link: someone's words.
        let link = after.starts_with('(');
        let stamped = inside.chars().any(|c| c.is_ascii_digit()) && inside.contains([':', '-']);
        if !link && (stamped || inside.split_whitespace().count() >= 3) {
            return Some("a bracketed stamp or banner");
        }
    }
    // `System: [2026-…]`, `Cron: [job]`: a label, then a stamp.
    if let Some((label, rest)) = first_line.split_once(": ")
        && !label.contains(' ')
        && label.chars().next().is_some_and(char::is_uppercase)
        && rest.starts_with('[')
    {
        return Some("a role label before a stamp");
    }
    let fields = first_line
        .split(" | ")
        .filter(|f| {
            f.split_once(": ")
                .is_some_and(|(k, _)| k.split_whitespace().count() <= 3)
        })
        .count();
    if fields >= 2 {
        return Some("a header of fields");
    }
    let words: Vec<&str> = first_line
        .split(|c: char| c.is_whitespace() || c == ':' || c == ',' || c == '.')
        .filter(|w| !w.is_empty())
        .collect();
    let shouted = |w: &&str| {
        w.chars().filter(|c| c.is_alphabetic()).count() >= 2
            && w.chars()
                .all(|c| c.is_ascii_uppercase() || c == '_' || c.is_ascii_digit())
    };
    // A token such as `HEARTBEAT_OK`, or a banner of capitals ("SECURITY NOTICE", "IT IS …"):
    // a person's acronym ("OK so", "API keys") is one word, not three, nor two long ones.
    let shouted_lead = words.iter().take_while(|w| shouted(w)).count();
    if words.first().is_some_and(|w| shouted(w) && w.contains('_'))
        || shouted_lead >= 3
        || (shouted_lead == 2 && words[..2].iter().all(|w| w.len() >= 3))
    {
        return Some("a machine token or shouted banner");
    }
    let hexish = |w: &str| {
        w.len() >= 8
            && w.chars().all(|c| c.is_ascii_hexdigit() || c == '-')
            && w.chars().any(|c| c.is_ascii_digit())
            && w.chars().any(|c| c.is_ascii_alphabetic())
    };
    if words.first().is_some_and(|w| hexish(w)) || t.to_lowercase().starts_with("untitled") {
        return Some("an id");
    }
    if c0 == '/' && c1.is_some_and(|c| c.is_ascii_lowercase()) {
        let rest: Vec<&str> = first_line.split_whitespace().skip(1).collect();
        if rest.iter().all(|w| hexish(w)) {
            return Some("a bare slash command");
        }
    }
    None
}

#[test]
fn machine_openings_are_told_from_a_persons_words() {
    for (text, machine) in [
        ("<task-notification><task-id>b1</task-id>", true),
        ("[Queued messages while agent was busy]\n---\nhi", true),
        ("[Mon 2026-02-09 10:00 EST] check the mail", true),
        ("[[reply_to_current]] sure", true),
        (
            "System: [2026-02-20 15:48:04 EST] Discord reaction added",
            true,
        ),
        (
            "Task: Gmail (bob) | Job ID: 6fc16a01 | Received: today",
            true,
        ),
        (
            "SECURITY NOTICE: The following content is from an EXTERNAL source",
            true,
        ),
        ("HEARTBEAT_OK", true),
        ("Untitled session 7ef18768", true),
        ("7ef18768-aa01 session", true),
        ("/resume 019c10ea-77b1", true),
        ("{\"type\": \"event\"}", true),
        ("Fix the login crash when the token expires", false),
        ("[bug] the sidebar flickers", false),
        (
            "[hosts/mac-2.nix](/Users/a/hosts/mac-2.nix:55) に追加しました",
            false,
        ),
        (
            "[cron:10133a5a-62a1 nightly-check] Execute the checks",
            true,
        ),
        (
            "[SUGGESTION MODE: Suggest what the user might type next.]",
            true,
        ),
        ("IT IS CRITICAL THAT YOU FOLLOW THIS COMMAND", true),
        ("I need a PR: title and body please", false),
        ("Why does `mix phx.server` not start?", false),
        ("README: update the install section", false),
        ("API keys: where should they live?", false),
        ("OK so the build is green", false),
        ("/review the last commit", false),
        ("报告一下", false),
    ] {
        assert_eq!(machine_opening(text).is_some(), machine, "{text:?}");
    }
}

/// The texts a summary shows as someone's words: each line's opening, each quoted request
/// (`"…"`), and the reply after `→`.
fn summary_openings(summary: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in summary.lines().filter(|l| !l.trim().is_empty()) {
        out.push(line.trim().to_owned());
        let mut rest = line;
        while let Some(at) = rest.find('"') {
            let after = &rest[at + 1..];
            let Some(end) = after.find('"') else { break };
            out.push(after[..end].to_owned());
            rest = &after[end + 1..];
        }
        if let Some((_, reply)) = line.split_once(" → ") {
            out.push(reply.trim().to_owned());
        }
    }
    out
}

#[test]
fn no_title_or_summary_opens_on_machine_text_on_real_history() {
    let Some(corpora) = both_corpora() else {
        return;
    };
    let mut bad = Vec::new();
    for corpus in corpora {
        let (dir, _) = new_user_store(&corpus);
        let store = dir.path();
        let sessions = listed_sessions(store);
        let (mut titles, mut lines) = (0, 0);
        for s in &sessions {
            let id = s["session_id"].as_str().unwrap();
            if let Some(title) = s["display_title"].as_str() {
                titles += 1;
                if let Some(why) = machine_opening(title) {
                    bad.push(format!("title of {id}: {why}: {title:?}"));
                }
            }
            let summary = json(elnor(store, None, &["sessions", "summarize", id, "--json"]));
            let summary = summary["summary"].as_str().unwrap_or("");
            for text in summary_openings(summary) {
                lines += 1;
                if let Some(why) = machine_opening(&text) {
                    bad.push(format!("summary of {id}: {why}: {text:?}"));
                }
            }
        }
        println!(
            "{}: {} session(s), {titles} title(s) and {lines} summary opening(s) read",
            corpus.display(),
            sessions.len()
        );
    }
    for line in &bad {
        println!("  {line}");
    }
    assert!(
        bad.is_empty(),
        "{} title(s) or summary line(s) open on machine text",
        bad.len()
    );
}
