//! Search on an outside benchmark: the development half of LoCoMo (long conversations between
//! two people over many sessions, with questions whose answers are labelled by the turns that
//! hold them), asked through the search an agent uses, beside a plain BM25 peer over the same
//! turns. It prints recall@1, @5 and @10 per strategy, overall and per question category.
//!
//! The protocol is the one `../shared/eval/locomo-dev/README.md` gives, so the figures compare
//! with the peers it quotes:
//! - each conversation becomes one project of Claude Code sessions, one session file per LoCoMo
//!   session, written as Claude Code writes them: speaker A is the person (`user` records),
//!   speaker B the assistant (`assistant` records), stamped with the session's date and a few
//!   seconds between turns;
//! - the files are ingested, indexed and (when the local model is installed) embedded through
//!   the public engine API, as a new user's history would be;
//! - every question with evidence (categories 1–5) is searched scoped to its conversation's work
//!   context over all time, as `elnor query --context <wc> --hours 0` does; each hit is mapped
//!   back to its LoCoMo `dia_id` through its session and record id;
//! - recall@k is the share of a question's evidence turns among the first k turn hits, averaged
//!   over questions.
//!
//! The peer is BM25 as a search library gives it with no tuning: tantivy's default tokenizer
//! (split on non-alphanumerics, lowercased; no stemming, no stop words), one document per turn,
//! one index per conversation, the question's words OR-ed.
//!
//! The data is CC BY-NC and stays outside the repository: it is read in place beside the shared
//! fixture corpus (`$ELNOR_FIXTURES/../eval/locomo-dev`, else `../shared/eval/locomo-dev` beside
//! the checkout). Without it the test says so and is counted as skipped, as the corpus tests are.
//! It embeds a few thousand turns first, so it is the slow tier: `scripts/test.sh` runs it with
//! `cargo test -p elnor-engine --test locomo -- --ignored --nocapture`. It fails only on real
//! errors (ingest or search failing, a conversation without a work context, no question read),
//! never on the figures, which are for reading. They are printed for the conversations the
//! search's parameters were chosen on and for the rest apart. `ELNOR_LOCOMO_DUMP=<file>` also
//! writes each question's lexical and embedding lists with their scores, for comparing fusions
//! offline on the same lists.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::time::Instant;

use chrono::{DateTime, Duration, NaiveDateTime, Utc};
use elnor_engine::{
    DocKind, Harness, MemorySecrets, SearchRequest, SourceRoot, Store, Strategy, WorkContextId,
    embed, embed_status, ingest, now, reindex, search, session,
};
use serde_json::{Value, json};

/// The cut-offs recall is measured at.
const KS: [usize; 3] = [1, 5, 10];

/// Hits asked of each search: the largest cut-off.
const MAX_RESULTS: usize = 10;

/// Hits asked of each list when the lists are written out: the most a search gives.
const DUMP_RESULTS: usize = 20;

/// Seconds between consecutive turns of a session: LoCoMo dates a session, not its turns, and a
/// chat's turns come a few seconds apart.
const TURN_SECONDS: i64 = 5;

/// The category names, as the dataset numbers them (the paper lists them in another order).
const CATEGORIES: [(u8, &str); 5] = [
    (1, "multi-hop"),
    (2, "temporal"),
    (3, "open-domain"),
    (4, "single-hop"),
    (5, "adversarial"),
];

// ---------------------------------------------------------------------------------------------
// Where the data is, and what happens without it.

// ---------------------------------------------------------------------------------------------
// The dataset.

struct Conversation {
    sample_id: String,
    /// Speaker A is the person, speaker B the assistant.
    speaker_a: String,
    speaker_b: String,
    sessions: Vec<Session>,
    questions: Vec<Question>,
}

struct Session {
    number: u32,
    started: DateTime<Utc>,
    turns: Vec<Turn>,
}

struct Turn {
    dia_id: String,
    speaker: String,
    text: String,
}

struct Question {
    category: u8,
    text: String,
    /// The evidence turns that exist in the conversation (see [`evidence_of`]).
    evidence: Vec<String>,
}

/// What reading the dataset had to set aside: evidence ids naming no turn of their conversation,
/// and questions left with no evidence at all.
#[derive(Default)]
struct SetAside {
    unknown_evidence: Vec<String>,
    without_evidence: usize,
}

fn read_conversations(file: &Path) -> (Vec<Conversation>, SetAside) {
    let text = std::fs::read_to_string(file).unwrap();
    let all: Vec<Value> = serde_json::from_str(&text).unwrap();
    let mut set_aside = SetAside::default();
    let conversations = all
        .iter()
        .map(|c| conversation(c, &mut set_aside))
        .collect();
    (conversations, set_aside)
}

fn conversation(c: &Value, set_aside: &mut SetAside) -> Conversation {
    let sample_id = str_of(c, "sample_id");
    let conv = &c["conversation"];
    let fields = conv.as_object().expect("a conversation is an object");
    // Sessions are `session_N` lists beside their `session_N_date_time`; some conversations date
    // more sessions than they hold, so the lists lead.
    let mut sessions: Vec<Session> = fields
        .iter()
        .filter_map(|(key, turns)| {
            let number: u32 = key.strip_prefix("session_")?.parse().ok()?;
            let date = str_of(conv, &format!("session_{number}_date_time"));
            Some(Session {
                number,
                started: parse_locomo_time(&date)
                    .unwrap_or_else(|| panic!("{sample_id}: unreadable date {date:?}")),
                turns: turns.as_array()?.iter().map(turn).collect(),
            })
        })
        .collect();
    sessions.sort_by_key(|s| s.number);
    let known: std::collections::HashSet<&str> = sessions
        .iter()
        .flat_map(|s| s.turns.iter().map(|t| t.dia_id.as_str()))
        .collect();
    let mut questions = Vec::new();
    for q in c["qa"].as_array().expect("qa is a list") {
        let (evidence, unknown) = evidence_of(q, &known);
        for id in unknown {
            set_aside
                .unknown_evidence
                .push(format!("{sample_id} {id:?}"));
        }
        if evidence.is_empty() {
            set_aside.without_evidence += 1;
            continue;
        }
        questions.push(Question {
            category: q["category"].as_u64().expect("a category") as u8,
            text: str_of(q, "question"),
            evidence,
        });
    }
    Conversation {
        speaker_a: str_of(conv, "speaker_a"),
        speaker_b: str_of(conv, "speaker_b"),
        sample_id,
        sessions,
        questions,
    }
}

fn turn(t: &Value) -> Turn {
    Turn {
        dia_id: str_of(t, "dia_id"),
        speaker: str_of(t, "speaker"),
        // Only the words: a shared photo's caption (`blip_caption`) is the dataset's description
        // of an image, which a Claude Code transcript would hold as an image, not as text.
        text: str_of(t, "text"),
    }
}

/// A question's evidence ids that name turns of its conversation, and those that do not. A few
/// labels join two ids in one string (`"D8:6; D9:17"`), so entries are split on `;` first; what
/// is still unknown after that (`"D"`, a turn the session does not have) cannot be found by any
/// search and is left out rather than counted as a miss.
fn evidence_of(q: &Value, known: &std::collections::HashSet<&str>) -> (Vec<String>, Vec<String>) {
    let mut found = Vec::new();
    let mut unknown = Vec::new();
    for entry in q["evidence"].as_array().into_iter().flatten() {
        for id in entry.as_str().unwrap_or_default().split(';') {
            let id = id.trim();
            if known.contains(id) {
                if !found.iter().any(|f| f == id) {
                    found.push(id.to_owned());
                }
            } else if !id.is_empty() {
                unknown.push(id.to_owned());
            }
        }
    }
    (found, unknown)
}

fn str_of(v: &Value, key: &str) -> String {
    match &v[key] {
        Value::String(s) => s.clone(),
        other => panic!("{key} is not a string: {other}"),
    }
}

/// LoCoMo's session dates, `"1:56 pm on 8 May, 2023"`, read as UTC.
fn parse_locomo_time(text: &str) -> Option<DateTime<Utc>> {
    NaiveDateTime::parse_from_str(text.trim(), "%I:%M %p on %d %B, %Y")
        .ok()
        .map(|t| t.and_utc())
}

// ---------------------------------------------------------------------------------------------
// The conversations as Claude Code transcripts.

/// Where each turn went, so a hit finds its way back: `(session id, record uuid)` → the
/// conversation's position and the turn's `dia_id`. The conversation is kept because `dia_id`s
/// repeat across conversations (every one has a `D1:3`): a hit from another conversation must
/// not count as found.
type TurnMap = HashMap<(String, String), (usize, String)>;

/// Ids in Claude Code's shape (UUIDs), made from the conversation's and session's positions so
/// that a run is reproducible and a hit's id says where it came from.
fn session_id(conv: usize, session: u32) -> String {
    format!("10c0{conv:04x}-{session:04x}-4000-8000-000000000000")
}

fn record_id(conv: usize, session: u32, turn: usize) -> String {
    format!("10c0{conv:04x}-{session:04x}-4000-8000-{:012x}", turn + 1)
}

/// The working folder of a conversation's sessions: one project per conversation, so that
/// ingest gives each its own work context.
fn cwd_of(c: &Conversation) -> String {
    format!("/home/person/locomo/{}", c.sample_id)
}

/// Writes every conversation under `projects` as Claude Code lays out
/// `~/.claude/projects/<cwd with "/" as "-">/<session>.jsonl`.
fn write_transcripts(projects: &Path, conversations: &[Conversation]) -> TurnMap {
    let mut map = TurnMap::new();
    for (ci, c) in conversations.iter().enumerate() {
        let cwd = cwd_of(c);
        let dir = projects.join(cwd.replace('/', "-"));
        std::fs::create_dir_all(&dir).unwrap();
        for s in &c.sessions {
            let sid = session_id(ci, s.number);
            let mut lines = String::new();
            let mut parent: Option<String> = None;
            for (ti, t) in s.turns.iter().enumerate() {
                let uuid = record_id(ci, s.number, ti);
                let at = s.started + Duration::seconds(TURN_SECONDS * ti as i64);
                let person = t.speaker == c.speaker_a;
                assert!(
                    person || t.speaker == c.speaker_b,
                    "{} {}: a third speaker {:?}",
                    c.sample_id,
                    t.dia_id,
                    t.speaker
                );
                let record =
                    claude_code_record(&sid, &cwd, &uuid, parent.as_deref(), at, person, &t.text);
                lines.push_str(&record.to_string());
                lines.push('\n');
                map.insert((sid.clone(), uuid.clone()), (ci, t.dia_id.clone()));
                parent = Some(uuid);
            }
            std::fs::write(dir.join(format!("{sid}.jsonl")), lines).unwrap();
        }
    }
    map
}

/// One line of a Claude Code transcript, in the envelope the CLI writes (see the shared
/// corpus's `transcripts/claude-code/SCHEMA.md`): the person's message as a `user` record with
/// its text as the content, the assistant's as an `assistant` record of one text block.
fn claude_code_record(
    session: &str,
    cwd: &str,
    uuid: &str,
    parent: Option<&str>,
    at: DateTime<Utc>,
    person: bool,
    text: &str,
) -> Value {
    let message = if person {
        json!({"role": "user", "content": text})
    } else {
        json!({
            "model": "claude-opus-4-6",
            "id": format!("msg_{}", uuid.replace('-', "")),
            "type": "message",
            "role": "assistant",
            "content": [{"type": "text", "text": text}],
            "stop_reason": "end_turn",
            "stop_sequence": null,
        })
    };
    json!({
        "parentUuid": parent,
        "isSidechain": false,
        "userType": "external",
        "cwd": cwd,
        "sessionId": session,
        "version": "2.1.39",
        "gitBranch": "main",
        "type": if person { "user" } else { "assistant" },
        "uuid": uuid,
        "timestamp": at.format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string(),
        "message": message,
    })
}

// ---------------------------------------------------------------------------------------------
// The engine: ingest, index, embed, and the work context each conversation landed in.

/// Ingests the transcripts and rebuilds the index; prints what was read.
fn ingest_and_index(store: &Store, projects: &Path) {
    let roots = [SourceRoot {
        harness: Harness::ClaudeCode,
        root: projects.to_path_buf(),
    }];
    let report = ingest(store, &roots, &mut |_| {}, now()).unwrap();
    println!(
        "ingested {} files: {} records, {} turns, {} malformed, {} unknown, {} project(s)",
        report.files_read,
        report.records_added,
        report.turns_added,
        report.malformed,
        report.unknown_records,
        report.projects_created
    );
    for p in &report.problems {
        println!("  ingest problem: {p:?}");
    }
    let built = reindex(store).unwrap();
    println!(
        "indexed {} documents ({} turns, {} entries, {} summaries)",
        built.documents, built.turns, built.entries, built.summaries
    );
}

/// Embeds the index with the local model when it is installed (`scripts/setup.sh` fetches it
/// for the tests); without it hybrid falls back to lexical, said here and in the figures.
fn embed_if_installed(store: &Store, secrets: &MemorySecrets) -> bool {
    let never = std::sync::atomic::AtomicBool::new(false);
    match embed(store, secrets, None, &mut |_| {}, &never) {
        Ok(_) => {
            let status = embed_status(store).unwrap();
            println!(
                "embedded {} of {} documents",
                status.covered, status.documents
            );
            true
        }
        Err(e) => {
            assert!(
                !elnor_fixtures::required(),
                "no embedding model installed (scripts/setup.sh test fetches it), and \
                 ELNOR_REQUIRE_FIXTURES is set: {e}"
            );
            println!("no embedding model installed ({e}): hybrid falls back to lexical_only");
            false
        }
    }
}

/// The work context ingest placed a conversation's sessions in. Every session of one
/// conversation shares its folder, so they must share one context; anything else breaks the
/// protocol's scoping and fails the test.
fn work_context_of(store: &Store, ci: usize, c: &Conversation) -> WorkContextId {
    let mut found: Option<WorkContextId> = None;
    for s in &c.sessions {
        let info = session(store.graph(), &session_id(ci, s.number)).unwrap();
        let wc = info
            .work_context_id
            .unwrap_or_else(|| panic!("{} session {}: no work context", c.sample_id, s.number));
        if let Some(f) = &found {
            assert_eq!(f, &wc, "{}: sessions in two work contexts", c.sample_id);
        }
        // A turn the parser dropped can never be found: said, not failed on.
        if info.turn_count != s.turns.len() as u64 {
            println!(
                "  {} session {}: {} turns written, {} ingested",
                c.sample_id,
                s.number,
                s.turns.len(),
                info.turn_count
            );
        }
        found = Some(wc);
    }
    found.expect("a conversation has sessions")
}

/// What a search through the engine returned that recall cannot count.
#[derive(Default)]
struct Strays {
    /// Searches run, and the turn hits they returned (fewer than [`MAX_RESULTS`] lowers recall).
    searches: usize,
    turn_hits: usize,
    /// Hits that are not turns (entries, summaries …): they take a place in the list.
    not_turns: usize,
    /// Turn hits whose session and record name no written turn.
    unmapped: Vec<String>,
    /// Turn hits from another conversation than the one searched: a leak of the scope.
    out_of_scope: usize,
    /// Searches that fell back to another strategy, with the first reason.
    fallbacks: usize,
    fallback_reason: Option<String>,
}

impl Strays {
    fn line(&self) -> String {
        let mut line = format!(
            "{} searches, {:.1} turn hits each; non-turn hits {}, turn hits from another \
             conversation {}, unmapped turn hits {}",
            self.searches,
            self.turn_hits as f64 / self.searches.max(1) as f64,
            self.not_turns,
            self.out_of_scope,
            self.unmapped.len()
        );
        for u in self.unmapped.iter().take(5) {
            line.push_str(&format!(" {u}"));
        }
        line
    }
}

/// One strategy of the engine's search, asked as `elnor query --context <wc> --hours 0
/// --strategy <s>` asks it: the person's caller, since an agent's searches are rate-limited and
/// a thousand questions in a row would be refused.
struct EngineSearch<'a> {
    store: &'a Store,
    secrets: &'a MemorySecrets,
    turns: &'a TurnMap,
    strategy: Strategy,
    strays: Strays,
}

impl EngineSearch<'_> {
    /// The `dia_id`s of a question's turn hits in conversation `conversation`, best first.
    fn ranking(&mut self, conversation: usize, wc: &WorkContextId, question: &str) -> Vec<String> {
        self.scored(conversation, wc, question, MAX_RESULTS)
            .into_iter()
            .map(|(dia, _)| dia)
            .collect()
    }

    /// The same, up to `max_results` hits, each with the score its own list gave it (BM25, or
    /// the cosine similarity): what `ELNOR_LOCOMO_DUMP` writes for studying fusions offline.
    fn scored(
        &mut self,
        conversation: usize,
        wc: &WorkContextId,
        question: &str,
        max_results: usize,
    ) -> Vec<(String, f32)> {
        let mut req = SearchRequest::new(question, now());
        req.strategy = self.strategy;
        req.work_context = Some(wc.clone());
        req.hours = 0;
        req.max_results = max_results;
        let result = search(self.store, &req, self.secrets).unwrap();
        let strays = &mut self.strays;
        strays.searches += 1;
        if let Some(reason) = result.fallback_reason {
            strays.fallbacks += 1;
            strays.fallback_reason.get_or_insert(reason);
        }
        let mut ranked = Vec::new();
        for hit in result.hits {
            if hit.kind != DocKind::Turn {
                strays.not_turns += 1;
                continue;
            }
            strays.turn_hits += 1;
            let key = (
                hit.session_id.unwrap_or_default(),
                hit.record.unwrap_or_default(),
            );
            let score = match self.strategy {
                Strategy::LexicalOnly => hit.why.lexical_score,
                _ => hit.why.similarity,
            }
            .unwrap_or_default();
            match self.turns.get(&key) {
                Some((c, dia)) if *c == conversation => ranked.push((dia.clone(), score)),
                Some(_) => strays.out_of_scope += 1,
                None => strays.unmapped.push(format!("{}/{}", key.0, key.1)),
            }
        }
        ranked
    }

    /// The strategy's name in the figures, with its fallback when it had one.
    fn name(&self) -> String {
        let mut name = format!("engine {}", self.strategy.as_str());
        if self.strays.fallbacks > 0 {
            name.push_str(&format!(
                " (fell back in {} of {} searches: {})",
                self.strays.fallbacks,
                self.strays.searches,
                self.strays.fallback_reason.as_deref().unwrap_or_default()
            ));
        }
        name
    }
}

// ---------------------------------------------------------------------------------------------
// The peer: plain BM25 with tantivy.

/// One conversation's turns in a tantivy index of its own (a question is only ever asked of its
/// conversation, as the engine's search is scoped to its work context).
struct Bm25Peer {
    index: tantivy::Index,
    reader: tantivy::IndexReader,
    text: tantivy::schema::Field,
    dia_id: tantivy::schema::Field,
}

impl Bm25Peer {
    fn build(c: &Conversation) -> Bm25Peer {
        use tantivy::schema::{STORED, STRING, Schema, TEXT};
        let mut schema = Schema::builder();
        // `TEXT` indexes with the `default` tokenizer: split on non-alphanumerics, lowercased.
        let text = schema.add_text_field("text", TEXT);
        let dia_id = schema.add_text_field("dia_id", STRING | STORED);
        let index = tantivy::Index::create_in_ram(schema.build());
        let mut writer: tantivy::IndexWriter =
            index.writer_with_num_threads(1, 15_000_000).unwrap();
        for t in c.sessions.iter().flat_map(|s| &s.turns) {
            writer
                .add_document(tantivy::doc!(text => t.text.as_str(), dia_id => t.dia_id.as_str()))
                .unwrap();
        }
        writer.commit().unwrap();
        let reader = index.reader().unwrap();
        Bm25Peer {
            index,
            reader,
            text,
            dia_id,
        }
    }

    /// The best `dia_id`s for a question: its words, through the same tokenizer, as one OR
    /// query (each distinct word once), ranked by BM25.
    fn ranking(&self, question: &str) -> Vec<String> {
        use tantivy::collector::TopDocs;
        use tantivy::query::{BooleanQuery, Occur, Query, TermQuery};
        use tantivy::schema::{IndexRecordOption, Value as _};
        let mut analyzer = self.index.tokenizer_for_field(self.text).unwrap();
        let mut words: Vec<String> = Vec::new();
        let mut stream = analyzer.token_stream(question);
        while let Some(token) = stream.next() {
            if !words.contains(&token.text) {
                words.push(token.text.clone());
            }
        }
        let clauses: Vec<(Occur, Box<dyn Query>)> = words
            .iter()
            .map(|w| {
                let term = tantivy::Term::from_field_text(self.text, w);
                let q: Box<dyn Query> =
                    Box::new(TermQuery::new(term, IndexRecordOption::WithFreqs));
                (Occur::Should, q)
            })
            .collect();
        let searcher = self.reader.searcher();
        let top = searcher
            .search(
                &BooleanQuery::new(clauses),
                &TopDocs::with_limit(MAX_RESULTS).order_by_score(),
            )
            .unwrap();
        top.into_iter()
            .map(|(_, addr)| {
                let doc: tantivy::TantivyDocument = searcher.doc(addr).unwrap();
                doc.get_first(self.dia_id)
                    .and_then(|v| v.as_str())
                    .unwrap_or_default()
                    .to_owned()
            })
            .collect()
    }
}

// ---------------------------------------------------------------------------------------------
// Recall.

/// Recall at each cut-off in [`KS`], summed over questions.
#[derive(Default, Clone)]
struct Recall {
    questions: usize,
    sums: [f64; KS.len()],
}

impl Recall {
    /// Adds one question: at each cut-off, the share of its evidence among the first k hits.
    fn add(&mut self, ranked: &[String], evidence: &[String]) {
        self.questions += 1;
        for (sum, k) in self.sums.iter_mut().zip(KS) {
            let top = &ranked[..k.min(ranked.len())];
            let found = evidence.iter().filter(|e| top.contains(e)).count();
            *sum += found as f64 / evidence.len() as f64;
        }
    }

    fn cells(&self) -> String {
        self.sums
            .iter()
            .map(|s| format!("{:>9.3}", s / self.questions.max(1) as f64))
            .collect()
    }
}

/// The conversations the search's parameters were chosen on are those before this one; the
/// rest confirm them (the benchmark's other half stays outside the project altogether).
const TUNED_ON: usize = 3;

/// One ranker's recall, overall, per category, and on the conversations the search was tuned on
/// and those it was not.
#[derive(Default, Clone)]
struct Figures {
    all: Recall,
    by_category: BTreeMap<u8, Recall>,
    tuned: Recall,
    confirming: Recall,
}

impl Figures {
    fn add(&mut self, conversation: usize, category: u8, ranked: &[String], evidence: &[String]) {
        self.all.add(ranked, evidence);
        if conversation < TUNED_ON {
            self.tuned.add(ranked, evidence);
        } else {
            self.confirming.add(ranked, evidence);
        }
        self.by_category
            .entry(category)
            .or_default()
            .add(ranked, evidence);
    }

    fn print(&self, name: &str) {
        println!("\n{name}");
        println!(
            "  {:<16} {:>5} {:>9} {:>9} {:>9}",
            "category", "n", "recall@1", "recall@5", "recall@10"
        );
        for (category, recall) in &self.by_category {
            let label = CATEGORIES
                .iter()
                .find(|(c, _)| c == category)
                .map_or("?", |(_, n)| n);
            println!(
                "  {:<16} {:>5}{}",
                format!("{category} {label}"),
                recall.questions,
                recall.cells()
            );
        }
        println!(
            "  {:<16} {:>5}{}",
            "all",
            self.all.questions,
            self.all.cells()
        );
    }
}

// ---------------------------------------------------------------------------------------------
// The run.

/// What was read: the conversations' size and what the labels had to set aside.
fn print_dataset(conversations: &[Conversation], set_aside: &SetAside, questions: usize) {
    println!(
        "{} conversations, {} sessions, {} turns, {questions} questions with evidence \
         ({} without; evidence ids naming no turn, left out: {})",
        conversations.len(),
        conversations
            .iter()
            .map(|c| c.sessions.len())
            .sum::<usize>(),
        conversations
            .iter()
            .flat_map(|c| &c.sessions)
            .map(|s| s.turns.len())
            .sum::<usize>(),
        set_aside.without_evidence,
        if set_aside.unknown_evidence.is_empty() {
            "none".to_owned()
        } else {
            set_aside.unknown_evidence.join(", ")
        }
    );
}

/// The peer's figures: each conversation's turns in a BM25 index of its own.
fn peer_figures(conversations: &[Conversation]) -> Figures {
    let mut peer = Figures::default();
    for (ci, c) in conversations.iter().enumerate() {
        let bm25 = Bm25Peer::build(c);
        for q in &c.questions {
            peer.add(ci, q.category, &bm25.ranking(&q.text), &q.evidence);
        }
    }
    peer
}

/// Every ranker's overall recall in one table, side by side.
fn print_overview(table: &[(String, Figures)], questions: usize, embedded: bool) {
    println!(
        "\noverall, {questions} questions{}",
        if embedded {
            ""
        } else {
            " (no embedding model)"
        }
    );
    println!(
        "  {:<46} {:>9} {:>9} {:>9}",
        "ranker", "recall@1", "recall@5", "recall@10"
    );
    for (name, figures) in table {
        // The names without their fallback notes, which the per-ranker tables carry.
        let short = name.split(" (").next().unwrap_or(name);
        println!("  {short:<46}{}", figures.all.cells());
    }
    println!(
        "\nconversations 0–{} (the search's parameters were chosen on them) | the rest (not)",
        TUNED_ON - 1
    );
    for (name, figures) in table {
        let short = name.split(" (").next().unwrap_or(name);
        println!(
            "  {short:<46}{} |{}",
            figures.tuned.cells(),
            figures.confirming.cells()
        );
    }
}

#[test]
#[ignore = "slow tier: ingests and embeds the LoCoMo development conversations; run by scripts/test.sh"]
fn recall_on_locomo_dev() {
    let Some(file) = elnor_fixtures::locomo_dev() else {
        return;
    };
    let started = Instant::now();
    let (conversations, set_aside) = read_conversations(&file);
    let questions: usize = conversations.iter().map(|c| c.questions.len()).sum();
    assert!(
        questions > 0,
        "no question with evidence read from {}",
        file.display()
    );
    print_dataset(&conversations, &set_aside, questions);

    let dir = tempfile::tempdir().unwrap();
    let projects = dir.path().join("home/.claude/projects");
    let turns = write_transcripts(&projects, &conversations);
    let store = Store::open(dir.path().join("store")).unwrap();
    ingest_and_index(&store, &projects);
    let secrets = MemorySecrets::default();
    let embedded = embed_if_installed(&store, &secrets);
    let contexts: Vec<WorkContextId> = conversations
        .iter()
        .enumerate()
        .map(|(ci, c)| work_context_of(&store, ci, c))
        .collect();
    println!("prepared in {:.0?}", started.elapsed());

    let mut table: Vec<(String, Figures)> = Vec::new();
    for strategy in [
        Strategy::LexicalOnly,
        Strategy::EmbeddingAugmented,
        Strategy::Hybrid,
    ] {
        let at = Instant::now();
        let mut engine = EngineSearch {
            store: &store,
            secrets: &secrets,
            turns: &turns,
            strategy,
            strays: Strays::default(),
        };
        let mut figures = Figures::default();
        for (ci, (c, wc)) in conversations.iter().zip(&contexts).enumerate() {
            for q in &c.questions {
                figures.add(
                    ci,
                    q.category,
                    &engine.ranking(ci, wc, &q.text),
                    &q.evidence,
                );
            }
        }
        println!(
            "{} in {:.0?}: {}",
            strategy.as_str(),
            at.elapsed(),
            engine.strays.line()
        );
        table.push((engine.name(), figures));
    }

    if let Some(out) = std::env::var_os("ELNOR_LOCOMO_DUMP") {
        dump_lists(&out, &store, &secrets, &turns, &conversations, &contexts);
    }

    table.push((
        "peer: plain BM25 (tantivy default tokenizer)".to_owned(),
        peer_figures(&conversations),
    ));

    for (name, figures) in &table {
        figures.print(name);
    }
    print_overview(&table, questions, embedded);
    println!("total {:.0?}", started.elapsed());
}

/// Writes, one JSON line per question, its conversation, category and evidence beside the
/// engine's lexical and embedding lists (the engine's most hits, each with its own list's
/// score), so that fusions can be compared offline on the same lists.
fn dump_lists(
    out: &std::ffi::OsStr,
    store: &Store,
    secrets: &MemorySecrets,
    turns: &TurnMap,
    conversations: &[Conversation],
    contexts: &[WorkContextId],
) {
    let mut lines = String::new();
    let engine = |strategy| EngineSearch {
        store,
        secrets,
        turns,
        strategy,
        strays: Strays::default(),
    };
    let (mut lexical, mut vector) = (
        engine(Strategy::LexicalOnly),
        engine(Strategy::EmbeddingAugmented),
    );
    for (ci, (c, wc)) in conversations.iter().zip(contexts).enumerate() {
        for q in &c.questions {
            let line = json!({
                "conversation": ci,
                "category": q.category,
                "question": q.text,
                "evidence": q.evidence,
                "lexical": lexical.scored(ci, wc, &q.text, DUMP_RESULTS),
                "vector": vector.scored(ci, wc, &q.text, DUMP_RESULTS),
            });
            lines.push_str(&line.to_string());
            lines.push('\n');
        }
    }
    std::fs::write(out, lines).unwrap();
    println!("lists written to {}", Path::new(out).display());
}

/// The dates as LoCoMo writes them, without the data: an hour of one digit, `am` and `pm`.
#[test]
fn locomo_dates_are_read() {
    let at = |s| parse_locomo_time(s).map(|t| t.to_rfc3339());
    assert_eq!(
        at("1:56 pm on 8 May, 2023").as_deref(),
        Some("2023-05-08T13:56:00+00:00")
    );
    assert_eq!(
        at("12:09 am on 13 September, 2023").as_deref(),
        Some("2023-09-13T00:09:00+00:00")
    );
    assert_eq!(
        at("10:04 am on 19 December, 2023").as_deref(),
        Some("2023-12-19T10:04:00+00:00")
    );
    assert_eq!(at("yesterday"), None);
}
