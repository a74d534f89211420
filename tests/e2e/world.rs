//! The worlds the tests start from: a temporary home and store, seeded through the engine's
//! public API the way the app itself (or `scripts/run.sh`) would seed them.
//!
//! Every engine call a test makes before it launches the app lives here, and the engine items
//! that the tests' checks on disk name are re-exported from here. The engine's public paths are
//! still moving (issue 15), and keeping them in one file makes following such a move one edit.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use elnor_engine::OpenQuestionContent;
use elnor_engine::{ContinuityEntry, SessionId};

pub use elnor_engine::MemberSource;
pub use elnor_engine::ObservationFilter;
pub use elnor_engine::Proposal;
pub use elnor_engine::change_node;
pub use elnor_engine::{CaptureMode, EntryContent, Store, WorkContextId};
pub use elnor_engine::{Change, Lifecycle, Warrant};
pub use elnor_engine::{nightly_last_run, session};

/// A temporary directory that is the app's home, with the store at `store/` inside it. The
/// directory goes when the world is dropped.
pub struct World {
    dir: tempfile::TempDir,
    /// Variables the app is started with beyond the harness's own (see [`World::set_app_env`]).
    env: Vec<(String, OsString)>,
}

impl World {
    /// An empty world: no store yet (the app creates it), nothing in the home directory.
    pub fn new() -> World {
        World {
            dir: tempfile::tempdir().unwrap(),
            env: Vec::new(),
        }
    }

    /// Starts the app with `name` set to `value`, as a person's shell would: how a test points it
    /// at an embedding model folder or a mirror of the model's files. Set last, so it wins over
    /// what the harness removes.
    pub fn set_app_env(&mut self, name: &str, value: impl Into<OsString>) {
        self.env.push((name.to_owned(), value.into()));
    }

    /// The variables [`World::set_app_env`] set, in order.
    pub fn app_env(&self) -> &[(String, OsString)] {
        &self.env
    }

    /// The home directory the app runs with, so that transcript sources found by default on the
    /// machine running the test never leak into it.
    pub fn home(&self) -> &Path {
        self.dir.path()
    }

    /// A path inside the home directory.
    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Where the store is, whether or not it exists yet.
    pub fn store_path(&self) -> PathBuf {
        self.path("store")
    }

    /// The store, opened through the engine (which creates it on first use).
    pub fn store(&self) -> Store {
        Store::open(self.store_path()).unwrap()
    }
}

/// The shared corpus's Claude Code transcripts, resolved, or `None` (the test is then counted as
/// skipped).
pub fn corpus_claude_code() -> Option<PathBuf> {
    let source = elnor_fixtures::transcripts()?.join("claude-code");
    assert!(source.is_dir(), "fixtures missing at {}", source.display());
    Some(source.canonicalize().unwrap())
}

/// The compacted corpus session in `/home/USER/projects/spotter-worktrees`.
pub const COMPACTED_SESSION: &str = "ae4a77f8-aedd-4bc1-888f-c94edc91af04";

/// The corpus session (in `/home/marco/projects/spotter`) that ends on an open question.
pub const QUESTION_SESSION: &str = "d6e0bada-1959-4eec-a9d2-0bfade768d8f";

/// The work context ELNOR makes for a project folder.
pub fn project_context(cwd: &str) -> String {
    elnor_engine::project_of_cwd(cwd, None)
        .expect("a project folder")
        .work_context_id()
}

/// The continuity mode the store's config file holds.
pub fn config_mode(store: &Path) -> String {
    let text = std::fs::read_to_string(store.join("config/continuity_config.json")).unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    json["mode"].as_str().unwrap().to_owned()
}

/// The store's schema version, as Home should show it.
pub fn latest_schema_version() -> String {
    elnor_engine::latest_schema_version().to_string()
}

/// An unresolved open question, as deterministic capture would write it.
fn open_question(store: &Store, wc: &WorkContextId, session: &str, question: &str) {
    let entry = ContinuityEntry::new(
        wc.clone(),
        SessionId::new(session).unwrap(),
        Utc::now(),
        CaptureMode::Deterministic,
        EntryContent::OpenQuestion(OpenQuestionContent {
            question: question.into(),
            context: String::new(),
            resolved: false,
            resolved_at: None,
            resolution_summary: None,
        }),
        &store.config().unwrap(),
    );
    store.log(wc).append(&entry).unwrap();
}

/// A real store with one real entry, written through the engine: an open question in
/// `henderson`. Returns the world and the store's resolved root.
pub fn one_question_world() -> (World, PathBuf) {
    let world = World::new();
    let store = world.store();
    let wc = WorkContextId::new("henderson").unwrap();
    open_question(
        &store,
        &wc,
        "e2e-session",
        "Check the data timeline with Christensen",
    );
    let root = store.root().to_owned();
    (world, root)
}

/// Ingests the Claude Code transcripts under `root`.
fn ingest_claude_code(store: &Store, root: PathBuf) {
    let roots = [elnor_engine::SourceRoot {
        harness: elnor_engine::Harness::ClaudeCode,
        root,
    }];
    elnor_engine::ingest(store, &roots, &mut |_| {}, elnor_engine::now()).unwrap();
}

/// Creates a named work context whose folder rule is `cwd`.
fn context_with_folder(store: &Store, name: &str, cwd: &str, now: DateTime<Utc>) {
    elnor_engine::create_work_context(
        store,
        &elnor_engine::NewWorkContext {
            name: name.into(),
            rules: vec![(elnor_engine::LinkRuleKind::Cwd, cwd.into())],
            ..Default::default()
        },
        now,
    )
    .map(|e| e.value)
    .unwrap();
}

/// Seeded the way `scripts/run.sh` seeds its demo store: deterministic mode, a work context
/// ("Spotter OTEL", `wc_spotter_otel`) whose folder rule covers the corpus sessions in `source`,
/// those sessions ingested and captured by the continuity agent, more open questions than the
/// context's card shows, and one living-memory fact, which is returned.
pub fn brief_world(source: &Path, fact: &str) -> (World, elnor_engine::LivingFact) {
    let world = World::new();
    let store = world.store();
    store.set_config("mode", "deterministic").unwrap();
    // The fixture sessions happened months ago, and entries decay from when the work happened
    // (issue 14): long TTLs keep them live, since the test is about explaining a brief.
    for field in [
        "session_summary_ttl_days",
        "open_question_ttl_days",
        "key_decision_ttl_days",
        "work_phase_ttl_days",
    ] {
        store.set_config(field, "3650").unwrap();
    }
    context_with_folder(
        &store,
        "Spotter OTEL",
        "/home/USER/projects/spotter-worktrees",
        Utc::now(),
    );
    ingest_claude_code(&store, source.to_owned());
    let run = elnor_engine::Agent::new(&store.config().unwrap())
        .run_once(&store, &elnor_engine::MemorySecrets::default(), Utc::now())
        .unwrap();
    assert!(run.failures.is_empty(), "{:?}", run.failures);
    // The detectors keep few items from these fixtures (issue 14: the person's words only), so
    // the context gets more open questions than its card shows, as a long session would leave.
    let wc = WorkContextId::new("wc_spotter_otel").unwrap();
    for question in [
        "Should the trace id be read from the OTEL context or passed in?",
        "Waiting on the Dialyzer fix before re-enabling the pre-commit hook",
        "Which exporter goes first, OTLP or stdout?",
        "TODO: confirm the sampling rate with the platform team",
    ] {
        open_question(&store, &wc, COMPACTED_SESSION, question);
    }
    // As capture does after writing: the view that shows them is rebuilt.
    elnor_engine::rebuild_view(&store, &wc, Utc::now()).unwrap();
    let fact = store.graph().add_living_fact(fact, Utc::now()).unwrap();
    (world, fact)
}

/// Two named work contexts ("Henderson" and "Spotter") linked to one entity, the Christensen
/// report, so a push that mentions it reaches both. Returns their ids.
pub fn two_contexts_one_entity_world() -> (World, WorkContextId, WorkContextId) {
    let world = World::new();
    let store = world.store();
    let now = Utc::now();
    let report = elnor_engine::create_entity(
        &store,
        &elnor_engine::NewEntity {
            kind: "document".into(),
            canonical_name: "Christensen report".into(),
            aliases: Vec::new(),
            deadline: None,
        },
        now,
    )
    .map(|e| e.value)
    .unwrap();
    let context = |name: &str| {
        elnor_engine::create_work_context(
            &store,
            &elnor_engine::NewWorkContext {
                name: name.into(),
                entity_ids: vec![report.entity_id.clone()],
                ..Default::default()
            },
            now,
        )
        .map(|e| e.value)
        .unwrap()
        .work_context_id
    };
    let henderson = context("Henderson");
    let spotter = context("Spotter");
    (world, henderson, spotter)
}

/// Issue 14's first run: a history of real-format Claude Code sessions in three project folders,
/// weeks apart, ingested and captured as a new user would (no context made by hand), written
/// here so the test needs nothing beside the checkout. Returns what Home must show, from the
/// engine (every project, newest work first), and the ids of the contexts a filter for
/// "spotter" keeps.
pub fn first_run_world() -> (World, Vec<elnor_engine::ProjectOverview>, Vec<String>) {
    let world = World::new();
    let store = world.store();
    store.set_config("mode", "deterministic").unwrap();
    let transcripts = world.path("claude");
    let base = Utc::now() - chrono::Duration::days(40);
    for (n, (cwd, days, said)) in [
        (
            "/home/ann/work/ledger",
            0,
            "Split the ledger import into two steps.",
        ),
        (
            "/home/ann/work/ledger",
            3,
            "Keep the CSV importer as the default.",
        ),
        (
            "/home/ann/work/spotter-tools",
            10,
            "Why does scrollback break in tmux?",
        ),
        ("/home/ann/work/atlas", 20, "Draft the atlas release notes."),
    ]
    .into_iter()
    .enumerate()
    {
        write_session(
            &transcripts,
            &format!("f1257000-0000-4000-8000-00000000000{n}"),
            cwd,
            base + chrono::Duration::days(days),
            said,
        );
    }
    ingest_claude_code(&store, transcripts);
    let run = elnor_engine::Agent::new(&store.config().unwrap())
        .sweep(&store, &elnor_engine::MemorySecrets::default(), Utc::now())
        .unwrap();
    assert!(run.failures.is_empty(), "{:?}", run.failures);
    let expected = elnor_engine::projects_overview(&store, 12).unwrap();
    let names: Vec<&str> = expected.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(
        names,
        ["atlas", "spotter-tools", "ledger"],
        "newest work first"
    );
    let contexts = store.graph().work_contexts().unwrap();
    let spotter: Vec<String> = contexts
        .iter()
        .filter(|w| {
            w.name.to_lowercase().contains("spotter")
                || w.rules.iter().any(|r| r.pattern.contains("spotter"))
        })
        .map(|w| w.work_context_id.to_string())
        .collect();
    assert!(!spotter.is_empty() && spotter.len() < contexts.len());
    (world, expected, spotter)
}

/// One Claude Code transcript line: the envelope the adapter reads, around `message`.
fn claude_line(
    session: &str,
    cwd: &str,
    n: u32,
    at: DateTime<Utc>,
    kind: &str,
    message: serde_json::Value,
) -> String {
    serde_json::json!({
        "parentUuid": (n > 0).then(|| format!("{session}-{}", n - 1)),
        "isSidechain": false,
        "userType": "external",
        "cwd": cwd,
        "sessionId": session,
        "version": "2.1.39",
        "type": kind,
        "message": message,
        "uuid": format!("{session}-{n}"),
        "timestamp": at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
    })
    .to_string()
}

/// Writes a short Claude Code session: the person's message and the agent's reply, which reads
/// a file.
fn write_session(root: &Path, session: &str, cwd: &str, at: DateTime<Utc>, said: &str) {
    let dir = root.join(cwd.replace('/', "-"));
    std::fs::create_dir_all(&dir).unwrap();
    let lines = [
        claude_line(
            session,
            cwd,
            0,
            at,
            "user",
            serde_json::json!({"role": "user", "content": said}),
        ),
        claude_line(
            session,
            cwd,
            1,
            at + chrono::Duration::minutes(2),
            "assistant",
            serde_json::json!({
                "model": "claude-opus-4-6",
                "id": format!("msg_{session}"),
                "type": "message",
                "role": "assistant",
                // A tool call makes the session "dirty" for the continuity agent (CSA §5.2).
                "content": [
                    {"type": "text", "text": "Understood, noted."},
                    {
                        "type": "tool_use",
                        "id": format!("toolu_{session}"),
                        "name": "Read",
                        "input": {"file_path": format!("{cwd}/strategy.md")},
                    },
                ],
                "stop_reason": "tool_use",
            }),
        ),
    ];
    std::fs::write(
        dir.join(format!("{session}.jsonl")),
        lines.join("\n") + "\n",
    )
    .unwrap();
}

/// What the embedding world's sessions are about, one session each: no two share a content word,
/// so only meaning can bring one to a query that says none of its words.
pub const EMBEDDING_TOPICS: [&str; 4] = [
    "Plan the quarterly budget review with finance.",
    "Fix the flaky login test in continuous integration.",
    "Draft a blog post about our hiking trip in the Alps.",
    "Choose a database engine for the analytics service.",
];

/// Four short Claude Code sessions last week, one per [`EMBEDDING_TOPICS`] entry, ingested (and so
/// indexed) but not embedded: the store a person has before their first embedding backfill.
pub fn embedding_world() -> World {
    let world = World::new();
    let transcripts = world.path("transcripts");
    let at = Utc::now() - chrono::Duration::days(7);
    for (n, said) in EMBEDDING_TOPICS.iter().enumerate() {
        let session = format!("e3bedd00-0000-4000-8000-00000000000{n}");
        let when = at + chrono::Duration::hours(n as i64);
        write_session(&transcripts, &session, "/home/ann/work/misc", when, said);
    }
    ingest_claude_code(&world.store(), transcripts);
    world
}

/// The word only one turn of the search world says, and a few that many turns say.
pub const RARE_WORD: &str = "quetzalcoatl";

/// Where the search world's rare word is: its session, our id of the turn that says it, and the
/// turn's position in the transcript viewer.
pub struct SearchTarget {
    pub session: String,
    pub turn_id: String,
    pub position: u64,
}

/// One long Claude Code session two days ago: 150 turns of the person and the agent taking turns,
/// with [`RARE_WORD`] in the person's turn at position 130 only. The viewer shows about ten rows
/// and reads a hundred turns at a time, so opening that turn needs both the second chunk and a
/// scroll. Returns the world and where the word is, as the engine reads the transcript.
pub fn search_world() -> (World, SearchTarget) {
    let world = World::new();
    let transcripts = world.path("transcripts");
    let session = "5ea4c400-0000-4000-8000-000000000001";
    let cwd = "/home/ann/work/atlas";
    let at = Utc::now() - chrono::Duration::days(2);
    let lines: Vec<String> = (0..150u32)
        .map(|n| {
            let when = at + chrono::Duration::seconds(i64::from(n) * 20);
            if n % 2 == 0 {
                let said = if n == 130 {
                    format!("Rename the {RARE_WORD} module before the atlas release.")
                } else {
                    format!("Step {n}: check the atlas build output.")
                };
                claude_line(
                    session,
                    cwd,
                    n,
                    when,
                    "user",
                    serde_json::json!({"role": "user", "content": said}),
                )
            } else {
                claude_line(
                    session,
                    cwd,
                    n,
                    when,
                    "assistant",
                    serde_json::json!({
                        "model": "claude-opus-4-6",
                        "id": format!("msg_{n}"),
                        "type": "message",
                        "role": "assistant",
                        "content": [{"type": "text", "text": format!("Done with step {n}.")}],
                        "stop_reason": "end_turn",
                    }),
                )
            }
        })
        .collect();
    let dir = transcripts.join(cwd.replace('/', "-"));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join(format!("{session}.jsonl")),
        lines.join("\n") + "\n",
    )
    .unwrap();
    let store = world.store();
    ingest_claude_code(&store, transcripts);
    let page = elnor_engine::session_turns(store.graph(), session, 0, 500, false, 4_000).unwrap();
    let (position, turn) = page
        .turns
        .iter()
        .enumerate()
        .find(|(_, t)| t.content.contains(RARE_WORD))
        .expect("the rare word's turn was ingested");
    assert!(position >= 100, "the turn must be past the first chunk");
    let target = SearchTarget {
        session: session.to_owned(),
        turn_id: turn.turn_id.clone(),
        position: position as u64,
    };
    (world, target)
}

/// The decision and the open question the review world's sessions state.
pub const DECISION: &str = "We decided to lead with price impact, not corrective disclosure.";
pub const QUESTION: &str =
    "We are still waiting on the Christensen report for the event study data.";

/// A store with two pending proposals, one per promotion rule.
pub struct ReviewWorld {
    pub world: World,
    /// `referenced_decision` → a memory directive.
    pub directive: Proposal,
    /// `unresolved_question` → an obligation.
    pub obligation: Proposal,
    /// The Christensen report's deadline, `YYYY-MM-DD`.
    pub deadline: String,
}

/// Three sessions in the Henderson folder, three weeks ago: the first records the decision and
/// the open question, the other two state the decision again. Captured by the continuity agent
/// (deterministic mode) with its clock a day after them, they give the two promotion rules what
/// they need at today's evaluation: a decision in 3 sessions, and a question unresolved for 20
/// days linked to an entity with a deadline. Only public engine API, as the app itself would.
pub fn review_world() -> ReviewWorld {
    let now = Utc::now();
    let then = now - chrono::Duration::days(21);
    let world = World::new();
    let transcripts = world.path("transcripts");
    let cwd = "/home/USER/projects/henderson";
    write_session(
        &transcripts,
        "hend-1",
        cwd,
        then,
        &format!("{DECISION} {QUESTION}"),
    );
    for (i, s) in ["hend-2", "hend-3"].into_iter().enumerate() {
        let at = then + chrono::Duration::hours(3 * (i as i64 + 1));
        write_session(
            &transcripts,
            s,
            cwd,
            at,
            &format!("Quick recap. {DECISION}"),
        );
    }
    let store = world.store();
    store.set_config("mode", "deterministic").unwrap();
    let deadline = (now + chrono::Duration::days(30))
        .format("%Y-%m-%d")
        .to_string();
    elnor_engine::create_entity(
        &store,
        &elnor_engine::NewEntity {
            kind: "document".into(),
            canonical_name: "Christensen report".into(),
            aliases: Vec::new(),
            deadline: Some(deadline.clone()),
        },
        then,
    )
    .map(|e| e.value)
    .unwrap();
    context_with_folder(&store, "Henderson", cwd, then);
    ingest_claude_code(&store, transcripts);
    let run = elnor_engine::Agent::new(&store.config().unwrap())
        .run_once(
            &store,
            &elnor_engine::MemorySecrets::default(),
            then + chrono::Duration::days(1),
        )
        .unwrap();
    assert!(run.failures.is_empty(), "{:?}", run.failures);
    let evaluation = elnor_engine::evaluate_promotions(&store, now).unwrap();
    let proposals = store.graph().proposals(false).unwrap();
    let of = |rule| {
        proposals
            .iter()
            .find(|p| p.rule == rule)
            .unwrap_or_else(|| panic!("no {rule:?} proposal in {proposals:#?}"))
            .clone()
    };
    let directive = of(elnor_engine::Rule::ReferencedDecision);
    let obligation = of(elnor_engine::Rule::UnresolvedQuestion);
    assert_eq!(evaluation.proposed.len(), 2, "{proposals:#?}");
    assert_eq!(
        (directive.text.as_str(), directive.evidence.sessions.len()),
        (DECISION, 3)
    );
    assert_eq!(obligation.text, QUESTION);
    ReviewWorld {
        world,
        directive,
        obligation,
        deadline,
    }
}

impl ReviewWorld {
    /// Approves one proposal through the engine's review decision, as Review does, and returns
    /// the node the approval wrote.
    pub fn approve(&self, proposal: &Proposal) -> String {
        let store = self.world.store();
        let out = elnor_engine::decide_proposals(
            &store,
            &[proposal.proposal_id],
            &elnor_engine::ReviewDecision::Approve { text: None },
            Utc::now(),
        )
        .unwrap();
        assert!(out.failed.is_empty(), "{:?}", out.failed);
        out.decided[0]
            .node_id
            .as_ref()
            .expect("an approval writes a node")
            .to_string()
    }
}

/// What an approval of the review world's directive records as its sources, sorted: the entry,
/// the review decision, and the three sessions that stated it.
pub fn directive_provenance(directive: &Proposal) -> Vec<(String, String)> {
    let mut expected = vec![
        (
            "continuity_entry".to_owned(),
            directive.entry_id.to_string(),
        ),
        (
            "review".to_owned(),
            format!("proposal:{}", directive.proposal_id),
        ),
    ];
    expected.extend(["hend-1", "hend-2", "hend-3"].map(|s| ("session".to_owned(), s.to_owned())));
    expected.sort();
    expected
}

/// The Library world's document: the heading its markdown renders, the path a turn names it by
/// (relative to its collection), and the session and turn that name it.
pub const PLAN_HEADING: &str = "Milestones for the atlas importer";
pub const PLAN_RELATIVE: &str = "notes/plan.md";

/// Where the Library world's document is and who refers to it.
pub struct LibraryTarget {
    /// The document's absolute path.
    pub path: String,
    pub session: String,
    /// Our id of the first turn that names the document.
    pub turn_id: String,
}

/// A folder `work/` in the home directory holding `notes/plan.md` (frontmatter, a heading and a
/// paragraph) and `readme.txt`, added to the Library before the app starts; then one Claude Code
/// session from yesterday whose person asks to tighten `notes/plan.md`, and whose agent replies
/// without naming it, ingested. The document page should list that session as referring to it.
pub fn library_world() -> (World, LibraryTarget) {
    let world = World::new();
    let work = world.path("work");
    std::fs::create_dir_all(work.join("notes")).unwrap();
    let plan = work.join(PLAN_RELATIVE);
    std::fs::write(
        &plan,
        format!(
            "---\ntitle: Atlas plan\nowner: ann\n---\n# {PLAN_HEADING}\n\nShip the CSV importer \
             first, then the ledger sync.\n"
        ),
    )
    .unwrap();
    std::fs::write(work.join("readme.txt"), "Notes about the atlas work.\n").unwrap();
    let store = world.store();
    let added = elnor_engine::add_library_collection(&store, &work, Utc::now()).unwrap();
    assert_eq!(added.documents, 2, "{added:?}");

    let transcripts = world.path("transcripts");
    let session = "11b7a000-0000-4000-8000-000000000001";
    let cwd = "/home/ann/work/atlas";
    let at = Utc::now() - chrono::Duration::days(1);
    let lines = [
        claude_line(
            session,
            cwd,
            0,
            at,
            "user",
            serde_json::json!({"role": "user", "content": "Good morning; the atlas work again."}),
        ),
        claude_line(
            session,
            cwd,
            1,
            at + chrono::Duration::minutes(1),
            "assistant",
            serde_json::json!({
                "model": "claude-opus-4-6",
                "id": "msg_lib_1",
                "type": "message",
                "role": "assistant",
                "content": [{"type": "text", "text": "Morning. Where do we start?"}],
                "stop_reason": "end_turn",
            }),
        ),
        claude_line(
            session,
            cwd,
            2,
            at + chrono::Duration::minutes(2),
            "user",
            serde_json::json!({
                "role": "user",
                "content": format!("Please tighten the milestones in {PLAN_RELATIVE} before Friday."),
            }),
        ),
    ];
    let dir = transcripts.join(cwd.replace('/', "-"));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join(format!("{session}.jsonl")),
        lines.join("\n") + "\n",
    )
    .unwrap();
    ingest_claude_code(&store, transcripts);
    let page = elnor_engine::library_document(&store, &plan).unwrap();
    let refs = &page.references.sessions;
    assert_eq!(refs.len(), 1, "{:?}", page.references);
    let turn_id = refs[0]
        .first_turn_id
        .clone()
        .expect("the referring turn is named");
    let target = LibraryTarget {
        path: plan.display().to_string(),
        session: session.to_owned(),
        turn_id,
    };
    (world, target)
}

/// The words the Topics world's Topic collects by, and its name.
pub const TOPIC_WORDS: &str = "ledger sync";
pub const TOPIC_NAME: &str = "Ledger sync";

/// Four short Claude Code sessions last week, three of which talk about the ledger sync, ingested;
/// with `topic`, a Topic named [`TOPIC_NAME`] whose rules need both [`TOPIC_WORDS`] and whose
/// collection directive is on, created through the engine, so its backfill proposals wait in the
/// review queue. Returns the world and the Topic's id when there is one.
pub fn topics_world(topic: bool) -> (World, Option<String>) {
    let world = World::new();
    let store = world.store();
    let transcripts = world.path("transcripts");
    let base = Utc::now() - chrono::Duration::days(7);
    for (n, said) in [
        "The ledger sync drops rows after midnight.",
        "Retry the ledger sync with smaller batches.",
        "Write up why the ledger sync lost rows.",
        "Draft the atlas release notes.",
    ]
    .into_iter()
    .enumerate()
    {
        write_session(
            &transcripts,
            &format!("70b1c000-0000-4000-8000-00000000000{n}"),
            "/home/ann/work/ledger",
            base + chrono::Duration::hours(n as i64),
            said,
        );
    }
    ingest_claude_code(&store, transcripts);
    if !topic {
        return (world, None);
    }
    let created = elnor_engine::create_topic(
        &store,
        &elnor_engine::NewTopic {
            name: TOPIC_NAME.into(),
            description: "Why the nightly sync loses rows".into(),
            rules: elnor_engine::TopicRules {
                query: TOPIC_WORDS.into(),
                ..Default::default()
            },
            collecting: true,
        },
        Utc::now(),
    )
    .unwrap();
    let proposed = elnor_engine::membership_proposals(&store).unwrap();
    assert!(proposed.len() >= 3, "the backfill proposes: {proposed:#?}");
    assert!(
        store.graph().pending_proposal_count().unwrap() == 0,
        "no promotion proposals, so the badge counts memberships alone"
    );
    (world, Some(created.topic.topic_id.to_string()))
}

/// The Topics in the store, by name.
pub fn topic_names(store: &Store) -> Vec<String> {
    elnor_engine::topics(store)
        .unwrap()
        .into_iter()
        .map(|t| t.topic.name)
        .collect()
}

/// The Topic membership proposals waiting in the review queue.
pub fn pending_memberships(store: &Store) -> usize {
    elnor_engine::membership_proposals(store).unwrap().len()
}

/// Makes a Topic named `name` whose rules need every word of `words`, with its collection
/// directive off, as the "New topic" form would; returns its id. Nothing is proposed for it, so
/// its lens holds only what its words match until the person pins something.
pub fn add_topic(store: &Store, name: &str, words: &str) -> String {
    let created = elnor_engine::create_topic(
        store,
        &elnor_engine::NewTopic {
            name: name.into(),
            description: String::new(),
            rules: elnor_engine::TopicRules {
                query: words.into(),
                ..Default::default()
            },
            collecting: false,
        },
        Utc::now(),
    )
    .unwrap();
    assert_eq!(
        elnor_engine::membership_proposals(store).unwrap().len(),
        0,
        "a Topic without its directive proposes nothing"
    );
    created.topic.topic_id.to_string()
}

/// The document ids of a Topic's members that are there for `source`, as its lens has them now.
pub fn topic_members(store: &Store, topic_id: &str, source: MemberSource) -> Vec<String> {
    let id = elnor_engine::TopicId::new(topic_id).unwrap();
    elnor_engine::topic_view(store, &id, Utc::now())
        .unwrap()
        .members
        .into_iter()
        .filter(|m| m.source == source)
        .map(|m| m.doc_id)
        .collect()
}

/// A Topic's rule words as stored.
pub fn topic_words(store: &Store, topic_id: &str) -> String {
    elnor_engine::topics(store)
        .unwrap()
        .into_iter()
        .find(|t| t.topic.topic_id == topic_id)
        .map(|t| t.topic.rules.query)
        .unwrap_or_default()
}

/// A store built from the real-history corpus the way a new user's first day builds it: every
/// harness's sessions ingested from their usual layout, then the nightly sweep, in deterministic
/// mode so no model is needed. `None` (the test counted as skipped) without the corpus.
pub fn real_history_world() -> Option<World> {
    let real = elnor_fixtures::real()?;
    let world = World::new();
    let store = world.store();
    store.set_config("mode", "deterministic").unwrap();
    let mut roots = vec![
        elnor_engine::SourceRoot {
            harness: elnor_engine::Harness::ClaudeCode,
            root: real.join("claude-code"),
        },
        elnor_engine::SourceRoot {
            harness: elnor_engine::Harness::Codex,
            root: real.join("codex/sessions"),
        },
    ];
    // OpenClaw keeps one state folder per installation, each with its `agents/` inside.
    let mut openclaw: Vec<PathBuf> = std::fs::read_dir(real.join("openclaw"))
        .map(|rd| rd.flatten().map(|e| e.path().join("agents")).collect())
        .unwrap_or_default();
    openclaw.sort();
    roots.extend(openclaw.into_iter().filter(|p| p.is_dir()).map(|root| {
        elnor_engine::SourceRoot {
            harness: elnor_engine::Harness::OpenClaw,
            root,
        }
    }));
    elnor_engine::ingest(&store, &roots, &mut |_| {}, elnor_engine::now()).unwrap();
    let run = elnor_engine::Agent::new(&store.config().unwrap())
        .sweep(&store, &elnor_engine::MemorySecrets::default(), Utc::now())
        .unwrap();
    assert!(run.failures.is_empty(), "{:?}", run.failures);
    Some(world)
}

/// A work context of the real-history corpus as a fresh session there would find it one hour
/// after the context's last session: the store of [`real_history_world`], the app started at
/// that moment (`ELNOR_NOW`), the context, and its resume card's lines as the engine assembles
/// them. The context chosen is the one whose card says most of Last (what was done), Now (where
/// it stands) and Next (what is open), the first by id among equals. `None` without the corpus.
pub fn real_card_world() -> Option<(World, WorkContextId, Vec<String>)> {
    let mut world = real_history_world()?;
    let store = world.store();
    let parts = |lines: &[String]| {
        ["Last (", "Now: ", "Next: "]
            .iter()
            .filter(|p| lines.iter().any(|l| l.starts_with(*p)))
            .count()
    };
    let mut best: Option<(usize, WorkContextId, DateTime<Utc>, Vec<String>)> = None;
    let mut contexts = store.log_ids().unwrap();
    contexts.sort();
    for wc in contexts {
        let query = elnor_engine::SessionListQuery {
            work_context_id: Some(wc.clone()),
            ..Default::default()
        };
        let Some(last) = elnor_engine::list_sessions(store.graph(), &query, Utc::now())
            .unwrap()
            .iter()
            .filter_map(|s| s.last_activity_at.as_deref())
            .filter_map(|t| DateTime::parse_from_rfc3339(t).ok())
            .map(|t| t.to_utc())
            .max()
        else {
            continue;
        };
        let at = last + chrono::Duration::hours(1);
        let mut req =
            elnor_engine::BriefRequest::new(at, at.date_naive(), elnor_engine::Delivery::Preview);
        req.work_context_id = Some(wc.clone());
        let brief = elnor_engine::assemble_brief(&store, &req).unwrap();
        let Some(card) = brief.card(1) else { continue };
        let lines: Vec<String> = card.lines.iter().map(|l| l.text.clone()).collect();
        let n = parts(&lines);
        if best.as_ref().is_none_or(|(m, ..)| n > *m) {
            best = Some((n, wc, at, lines));
        }
    }
    let (_, wc, at, lines) = best.expect("a work context of real history with a resume card");
    world.set_app_env("ELNOR_NOW", at.to_rfc3339());
    Some((world, wc, lines))
}

/// The config keys written in snake_case: words of the config file that no label may show.
pub fn snake_case_config_keys() -> Vec<&'static str> {
    elnor_engine::CONFIG_FIELDS
        .iter()
        .map(|f| f.key)
        .filter(|k| k.contains('_'))
        .collect()
}

/// A session of the world's store that has a title of at least three words, with that title:
/// what a person would type into the Sessions filter to find it again.
pub fn titled_session(store: &Store) -> Option<(String, String)> {
    let q = elnor_engine::SessionListQuery {
        limit: Some(100),
        ..Default::default()
    };
    elnor_engine::find_sessions(store, &q, elnor_engine::now())
        .unwrap()
        .into_iter()
        .find_map(|s| {
            let title = s.display_title()?;
            (title.split_whitespace().count() >= 3 && !title.ends_with('…'))
                .then(|| (s.session_id.to_string(), title))
        })
}

/// A named work context whose name is far longer than any list or dialog is wide, beside a short
/// one, for the tests that check long names are cut with an ellipsis and nothing sticks out.
pub fn long_name_world() -> (World, String) {
    let world = World::new();
    let store = world.store();
    let now = Utc::now();
    let long = "Quarterly reconciliation of the Henderson and Christensen accounts across every \
                regional office, including the archived ledgers from before the migration"
        .to_owned();
    for name in [long.as_str(), "Short"] {
        elnor_engine::create_work_context(
            &store,
            &elnor_engine::NewWorkContext {
                name: name.into(),
                ..Default::default()
            },
            now,
        )
        .unwrap();
    }
    (world, long)
}

/// The moment the Health page's world is looked at: the day after its last Claude Code session,
/// three weeks after Codex's last. The app is started with it as `ELNOR_NOW`.
pub const QUIET_CODEX_NOW: &str = "2026-10-29T12:00:00Z";

/// A person who used Codex every day and then stopped while Claude Code carried on, built from
/// the project's samples: the Claude Code sample folder as it is (its first session's last line
/// is cut off mid-write), and the Codex sample session recorded again each morning from 1 to 5
/// October, the third time with a garbled line in the middle. Both folders are the store's
/// sources, read once a few minutes before [`QUIET_CODEX_NOW`]; each file's modification time is
/// the day its session was recorded, as it would be on a real disk.
pub fn quiet_codex_world() -> World {
    let mut world = World::new();
    let samples = elnor_fixtures::samples();
    let at = |rfc3339: &str| DateTime::parse_from_rfc3339(rfc3339).unwrap().to_utc();
    let now = at(QUIET_CODEX_NOW);
    let touch = |path: &Path, when: DateTime<Utc>| {
        std::fs::File::options()
            .write(true)
            .open(path)
            .and_then(|f| f.set_modified(when.into()))
            .unwrap();
    };

    let claude = world.path("claude-code");
    copy_tree(&samples.join("claude-code"), &claude, &|file| {
        touch(file, at("2026-10-28T14:06:00Z"));
    });

    let codex = world.path("codex-sessions");
    let sample_id = "019a3c10-7e21-7b40-8d2e-5f6a7b8c9d01";
    let sample = std::fs::read_to_string(samples.join(format!(
        "codex/sessions/2026/10/29/rollout-2026-10-29T09-12-03-{sample_id}.jsonl"
    )))
    .unwrap();
    for day in 1..=5 {
        let date = format!("2026-10-{day:02}");
        let id = format!("019a3c10-7e21-7b40-8d2e-5f6a7b8c9d{day:02}");
        let mut lines: Vec<String> = sample
            .replace("2026-10-29", &date)
            .replace(sample_id, &id)
            .lines()
            .map(str::to_owned)
            .collect();
        if day == 3 {
            lines.insert(
                4,
                format!(r#"{{"timestamp": "{date}T09:12:04.500Z", "type": "response_item", "payl"#),
            );
        }
        let dir = codex.join(format!("2026/10/{day:02}"));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join(format!("rollout-{date}T09-12-03-{id}.jsonl"));
        std::fs::write(&file, lines.join("\n") + "\n").unwrap();
        touch(&file, at(&format!("{date}T09:20:00Z")));
    }

    let store = world.store();
    store.set_config("mode", "deterministic").unwrap();
    let roots = only_sources(
        &store,
        &[
            (elnor_engine::Harness::ClaudeCode, claude),
            (elnor_engine::Harness::Codex, codex),
        ],
    );
    elnor_engine::ingest(
        &store,
        &roots,
        &mut |_| {},
        now - chrono::Duration::minutes(5),
    )
    .unwrap();
    world.set_app_env("ELNOR_NOW", QUIET_CODEX_NOW);
    world
}

/// Copies the folder `from` to `to` with everything in it, calling `copied` on each file.
fn copy_tree(from: &Path, to: &Path, copied: &dyn Fn(&Path)) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target, copied);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
            copied(&target);
        }
    }
}

/// An OpenClaw config written by hand: a comment, settings that have nothing to do with memory,
/// and no word about Dreaming, which recent OpenClaw releases then run by default.
pub const HAND_WRITTEN_OPENCLAW: &str = r#"// OpenClaw settings, edited by hand
{
  // The gateway listens on this machine only.
  gateway: { port: 18789, bind: "loopback" },
  agents: { defaults: { model: "anthropic/claude-sonnet-4-5", workspace: "~/agents" } },
}
"#;

/// An OpenClaw config where `plugins` is not an object: Dreaming is on by default, and ELNOR
/// cannot write its switch into the file without rewriting what the person wrote.
pub const UNEDITABLE_OPENCLAW: &str =
    "{\n  // Plugins are named elsewhere.\n  plugins: \"all\",\n}\n";

/// [`quiet_codex_world`] with the harnesses' own settings beside it: Claude Code's
/// `settings.json` runs ELNOR at session start, where the hook has never fired, and before a
/// compaction, where it fired 14 times (not at session end), Codex has no hook at all, and OpenClaw's config is `openclaw_config` (such as
/// [`HAND_WRITTEN_OPENCLAW`]), named to the app by `OPENCLAW_CONFIG_PATH`, whose path is returned.
pub fn harness_settings_world(openclaw_config: &str) -> (World, PathBuf) {
    let mut world = quiet_codex_world();
    let claude = world.home().join(".claude");
    std::fs::create_dir_all(&claude).unwrap();
    std::fs::write(
        claude.join("settings.json"),
        r#"{
  "hooks": {
    "SessionStart": [
      { "hooks": [{ "type": "command", "command": "elnor hook --harness claude-code" }] }
    ],
    "PreCompact": [
      { "hooks": [{ "type": "command", "command": "elnor hook --harness claude-code" }] }
    ]
  }
}
"#,
    )
    .unwrap();
    // The before-compaction hook works: it fired 14 times, the last two hours before now.
    let now = DateTime::parse_from_rfc3339(QUIET_CODEX_NOW)
        .unwrap()
        .to_utc();
    let store = world.store();
    for hours in (2..16).rev() {
        elnor_engine::record_hook_fire(
            &store,
            elnor_engine::Harness::ClaudeCode,
            "PreCompact",
            now - chrono::Duration::hours(hours),
        )
        .unwrap();
    }
    let openclaw = world.path("openclaw-settings/openclaw.json");
    std::fs::create_dir_all(openclaw.parent().unwrap()).unwrap();
    std::fs::write(&openclaw, openclaw_config).unwrap();
    world.set_app_env("OPENCLAW_CONFIG_PATH", &openclaw);
    (world, openclaw)
}

/// The project's samples (every harness) ingested and captured by the continuity agent in
/// deterministic mode, with TTLs long enough that the captures stay live: several work contexts,
/// each with its session summaries, decisions and questions.
pub fn captured_samples_world() -> World {
    let world = World::new();
    let store = world.store();
    store.set_config("mode", "deterministic").unwrap();
    for field in [
        "session_summary_ttl_days",
        "open_question_ttl_days",
        "key_decision_ttl_days",
        "work_phase_ttl_days",
    ] {
        store.set_config(field, "3650").unwrap();
    }
    let samples = elnor_fixtures::samples();
    let roots = [
        (elnor_engine::Harness::ClaudeCode, "claude-code"),
        (elnor_engine::Harness::Codex, "codex/sessions"),
        (elnor_engine::Harness::OpenClaw, "openclaw/agents"),
    ]
    .map(|(harness, dir)| elnor_engine::SourceRoot {
        harness,
        root: samples.join(dir),
    });
    elnor_engine::ingest(&store, &roots, &mut |_| {}, elnor_engine::now()).unwrap();
    let run = elnor_engine::Agent::new(&store.config().unwrap())
        .run_once(&store, &elnor_engine::MemorySecrets::default(), Utc::now())
        .unwrap();
    assert!(run.failures.is_empty(), "{:?}", run.failures);
    world
}

/// The captured samples ([`captured_samples_world`]) replayed a day after their last captured
/// entry (the app is started with `ELNOR_NOW` at that instant, which is returned) with the
/// longest rollup window, so the samples' contexts count as active in the global head whatever
/// their dates; and the work contexts whose logs hold entries, most entries first.
pub fn heads_world() -> (World, Vec<WorkContextId>, DateTime<Utc>) {
    let mut world = captured_samples_world();
    let store = world.store();
    store.set_config("rollup_window_days", "90").unwrap();
    let mut contexts: Vec<(usize, WorkContextId)> = Vec::new();
    let mut last = None;
    for wc in store.log_ids().unwrap() {
        let entries = store.log(&wc).read().unwrap().entries;
        last = entries.iter().map(|e| e.happened_at()).chain(last).max();
        if !wc.is_unlinked() && !entries.is_empty() {
            contexts.push((entries.len(), wc));
        }
    }
    contexts.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    let now = last.expect("the samples' captures wrote entries") + chrono::Duration::days(1);
    world.set_app_env("ELNOR_NOW", now.to_rfc3339());
    (world, contexts.into_iter().map(|(_, wc)| wc).collect(), now)
}

/// One head line as the page must show it: `(source, text, citations)`.
pub type ShownLine = (String, String, Vec<String>);

/// A head's lines as the engine builds them at `now`, and its tokens and cap: what the Heads page
/// must show for the same store.
pub fn head_lines(
    store: &Store,
    thread: Option<&WorkContextId>,
    now: DateTime<Utc>,
) -> (Vec<ShownLine>, u32, u32) {
    let scope = match thread {
        Some(wc) => elnor_engine::HeadScope::Thread(wc.clone()),
        None => elnor_engine::HeadScope::Global,
    };
    let head = elnor_engine::show_head(store, &scope, now).unwrap().head;
    let lines = head
        .lines
        .into_iter()
        .map(|l| (l.source, l.text, l.citations))
        .collect();
    (lines, head.tokens, head.cap)
}

/// Where a session summary's turns are, as the engine locates them for a head's citation.
pub fn summary_window(store: &Store, summary_id: &str) -> elnor_engine::LineageWindow {
    let source = elnor_engine::LineageSource::Summary {
        summary_id: summary_id.to_owned(),
    };
    elnor_engine::locate_lineage(store, &source).unwrap()
}

/// One line of the lineage world's brief that came from a session, and where its turns are, as
/// the engine locates them.
pub struct TracedLine {
    pub assembly_id: i64,
    pub ordinal: i64,
    pub window: elnor_engine::LineageWindow,
}

/// The project's samples (every harness) ingested and captured by the continuity agent in
/// deterministic mode, with TTLs long enough that the captures stay live, then one brief
/// delivered to an agent for the work context with the most log entries, as a SessionStart hook
/// would deliver it. Returns the world and every line of that brief's trace that came from a
/// session with turns of it in the window, exact ones first, then the widest windows.
pub fn lineage_world() -> (World, Vec<TracedLine>) {
    let world = captured_samples_world();
    let store = world.store();
    let wc = store
        .log_ids()
        .unwrap()
        .into_iter()
        .max_by_key(|wc| store.log(wc).read().unwrap().entries.len())
        .expect("the samples' captures wrote a log");
    let mut req = elnor_engine::BriefRequest::new(
        Utc::now(),
        Utc::now().date_naive(),
        elnor_engine::Delivery::Delivered,
    );
    req.work_context_id = Some(wc);
    let brief = elnor_engine::assemble_brief(&store, &req).unwrap();
    let detail = store.graph().assembly(brief.assembly_id).unwrap();
    let mut lines: Vec<TracedLine> = detail
        .items
        .iter()
        .filter(|item| item.session_id.is_some())
        .filter_map(|item| {
            let source = elnor_engine::LineageSource::TraceItem {
                assembly_id: brief.assembly_id,
                ordinal: item.ordinal,
            };
            let window = elnor_engine::locate_lineage(&store, &source).ok()?;
            (window.view.turns > 0).then_some(TracedLine {
                assembly_id: brief.assembly_id,
                ordinal: item.ordinal,
                window,
            })
        })
        .collect();
    lines.sort_by_key(|l| (!l.window.span.exact, std::cmp::Reverse(l.window.view.turns)));
    (world, lines)
}

/// Every turn of a session the transcript viewer shows, as `(seq, turn id)`, in order.
pub fn shown_turns(store: &Store, session_id: &str) -> Vec<(i64, String)> {
    let mut turns = Vec::new();
    loop {
        let page = elnor_engine::session_turns(
            store.graph(),
            session_id,
            turns.len() as u64,
            500,
            false,
            100,
        )
        .unwrap();
        let done = page.turns.len() < 500;
        turns.extend(page.turns.into_iter().map(|t| (t.seq, t.turn_id)));
        if done {
            return turns;
        }
    }
}

/// The captured samples ([`captured_samples_world`]), as a person's store would be after the
/// agent's first pass: what the Reconstruct page compares against.
pub fn reconstruct_world() -> World {
    captured_samples_world()
}

/// A captured entry taken out of its work context's log, as an older detector that never made
/// it would have left the log (`reconstruct/tests.rs` does the same): the first open question
/// or key decision capture wrote. The line is removed from the file as it is, so every other
/// line stays byte for byte. Returns the context's id and the entry's headline, the text the
/// replay will want to add back.
pub fn drop_one_captured_entry(store: &Store) -> (WorkContextId, String) {
    for wc in store.log_ids().unwrap() {
        let log = store.log(&wc);
        let found = log.read().unwrap().entries.into_iter().find(|e| {
            matches!(
                e.content,
                EntryContent::OpenQuestion(_) | EntryContent::KeyDecision(_)
            )
        });
        let Some(entry) = found else { continue };
        let id = format!("\"{}\"", entry.entry_id);
        let text = std::fs::read_to_string(log.path()).unwrap();
        let kept: String = text
            .split_inclusive('\n')
            .filter(|line| !line.contains(&id))
            .collect();
        assert_eq!(text.lines().count(), kept.lines().count() + 1);
        std::fs::write(log.path(), kept).unwrap();
        return (wc, entry.content.headline());
    }
    panic!("the samples' captures wrote no open question or key decision");
}

/// Whether the file `continuity/backup/` holds anything: apply keeps a copy of every log it
/// rewrites there.
pub fn backups(store: &Store) -> Vec<PathBuf> {
    std::fs::read_dir(store.root().join("continuity/backup"))
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default()
}

/// The record type of [`lost_turns_world`]'s transcript, a format no ELNOR reads.
pub const FUTURE_RECORD_TYPE: &str = "utterance-v9";

/// The samples' Claude Code history beside one transcript in a format from the future (records
/// of a type no ELNOR knows, no turn read from them), ingested: Health and Today must name it.
/// Returns the world and the planted file's path as ingest stored it.
pub fn lost_turns_world() -> (World, String) {
    let world = World::new();
    let samples = elnor_fixtures::samples();
    let claude = world.path("claude-code");
    copy_tree(&samples.join("claude-code"), &claude, &|_| {});
    let project = claude.join("-home-ana-app");
    std::fs::create_dir_all(&project).unwrap();
    let future = project.join("5d1c0b7a-1111-4222-8333-444455556666.jsonl");
    let lines: String = (0..4)
        .map(|i| {
            format!(
                "{{\"type\":\"{FUTURE_RECORD_TYPE}\",\"sessionId\":\"5d1c0b7a-1111-4222-8333-444455556666\",\"uuid\":\"u{i}\",\"words\":\"add dark mode\"}}\n"
            )
        })
        .collect();
    std::fs::write(&future, lines).unwrap();
    let store = world.store();
    store.set_config("mode", "deterministic").unwrap();
    let roots = only_sources(&store, &[(elnor_engine::Harness::ClaudeCode, claude)]);
    elnor_engine::ingest(&store, &roots, &mut |_| {}, elnor_engine::now()).unwrap();
    (world, future.display().to_string())
}

/// Makes `folders` the store's only transcript sources and returns them as ingest roots: adding
/// to a sources file never saved would keep the defaults of whoever runs the test beside them.
fn only_sources(
    store: &elnor_engine::Store,
    folders: &[(elnor_engine::Harness, std::path::PathBuf)],
) -> Vec<elnor_engine::SourceRoot> {
    let sources = store.sources();
    sources
        .update(|list| {
            list.clear();
            Ok(())
        })
        .unwrap();
    for (harness, folder) in folders {
        sources.add(*harness, folder.clone()).unwrap();
    }
    sources.enabled_roots().unwrap()
}
