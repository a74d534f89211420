//! The crash suite (issue 20, part 3): the real `elnor` binary is killed with SIGKILL at random
//! moments while it ingests, captures, appends to a continuity log, writes the config, pushes,
//! writes heads, approves promotions, indexes and embeds, all on one store. After every kill the
//! store is reopened with the engine and checked: the graph passes `PRAGMA integrity_check`,
//! every continuity log reads with no line skipped (a torn tail is repaired into
//! `continuity/torn/`), and every write that an earlier command acknowledged (by exiting 0) is
//! still there. The killed command is then run again to completion, so recovery has to compose:
//! the next iteration starts from the state the crash left. Every few iterations the derived data
//! (views, rollup, heads, the lineage DAG) is deleted and rebuilt twice, and both rebuilds must
//! give the same bytes and rows.
//!
//! `ELNOR_CRASH_ITERATIONS` (default 40, what CI runs) sets how many kill points the run makes,
//! `ELNOR_CRASH_SEED` the random seed (default fixed, so CI is repeatable); a failure names both
//! with the iteration, which is all it takes to reproduce it. `scripts/crash.sh` runs the long
//! suite; `docs/CRASH.md` explains what is checked and records the figures.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// Every command runs at this moment, so the derived files are functions of the store alone and
/// two rebuilds can be compared byte for byte.
const NOW: &str = "2026-11-03T09:00:00Z";
/// The log the suite appends its own entries to (a log needs no work context in the graph).
const LOG_WC: &str = "wc_crash";
/// The config field the suite sets; its range is 3 to 25.
const CONFIG_KEY: &str = "max_session_history_window";
/// The Claude Code sample the suite grows between rounds, relative to the copied samples.
const GROWN: &str =
    "claude-code/-home-dana-code-ledger-sync/8e41a0c3-6d52-4b7f-b2e9-3c7d1a5f9b20.jsonl";
/// How often (in iterations) derived data is deleted and rebuilt twice, unless
/// `ELNOR_CRASH_DERIVED_EVERY` says otherwise (the long run compares less often: each comparison
/// rebuilds everything twice).
const DERIVED_EVERY: u64 = 20;

/// The operations the suite kills, each a real `elnor` command.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    Ingest,
    Capture,
    LogAppend,
    ConfigSet,
    Push,
    HeadsRefresh,
    HeadsWrite,
    Approve,
    Reindex,
    Embed,
}

const KINDS: [Kind; 10] = [
    Kind::Ingest,
    Kind::Capture,
    Kind::LogAppend,
    Kind::ConfigSet,
    Kind::Push,
    Kind::HeadsRefresh,
    Kind::HeadsWrite,
    Kind::Approve,
    Kind::Reindex,
    Kind::Embed,
];

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Ingest => "ingest",
            Kind::Capture => "capture",
            Kind::LogAppend => "log append",
            Kind::ConfigSet => "config set",
            Kind::Push => "push",
            Kind::HeadsRefresh => "heads refresh",
            Kind::HeadsWrite => "heads write",
            Kind::Approve => "review approve",
            Kind::Reindex => "reindex",
            Kind::Embed => "embed",
        }
    }

    /// A first guess at how long the command takes (seconds, debug build), measured by hand;
    /// the suite replaces it with what it measures as it goes.
    fn guess(self) -> f64 {
        match self {
            Kind::Ingest => 0.4,
            Kind::Capture => 0.9,
            Kind::LogAppend | Kind::ConfigSet | Kind::Push => 0.05,
            Kind::HeadsRefresh | Kind::HeadsWrite => 0.6,
            Kind::Approve => 0.3,
            Kind::Reindex => 0.3,
            Kind::Embed => 5.0,
        }
    }
}

/// A small seeded generator (SplitMix64): enough randomness for kill delays and choices, and the
/// same sequence for the same seed, which is what makes a failure reproducible.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// What the run counts, printed at the end.
#[derive(Default)]
struct Counts {
    /// Kills that landed while the command was still running, per kind.
    kills: BTreeMap<Kind, usize>,
    /// Commands that finished before their kill came (they count as acknowledged writes).
    finished_first: BTreeMap<Kind, usize>,
    /// Distinct acknowledged writes, per kind.
    acked: BTreeMap<Kind, usize>,
    /// Single checks of an acknowledged write after a kill (each check looks at all of them).
    ack_checks: usize,
    /// Torn log tails the repair moved to `continuity/torn/` or completed with a newline.
    torn_repaired: usize,
    /// Of those, tails the suite cut itself: a killed append's unacknowledged line cut in half,
    /// as a power cut in the middle of the write would leave it.
    torn_injected: usize,
    /// Derived-data rebuild comparisons made.
    rebuilds_compared: usize,
    /// Temporary files an interrupted atomic write left behind (litter, not damage).
    temp_litter: usize,
}

/// Everything the suite has been told is written, to look for after every kill.
#[derive(Default)]
struct Acked {
    /// Log entry texts appended with `log append` (by marker), in `LOG_WC`.
    log_markers: BTreeSet<String>,
    /// Entries a capture reported, by work context and entry id.
    captured: BTreeSet<(String, String)>,
    /// The last acknowledged config value, and values tried since by killed commands.
    config: Option<u32>,
    config_tried: BTreeSet<u32>,
    /// Push texts.
    pushes: BTreeSet<String>,
    /// Marker texts of transcript lines an acknowledged ingest read.
    turns: BTreeSet<String>,
    /// Obligation ids of approved proposals.
    nodes: BTreeSet<String>,
}

struct Suite {
    seed: u64,
    rng: Rng,
    _dir: tempfile::TempDir,
    store: PathBuf,
    samples: PathBuf,
    agents_md: PathBuf,
    roots: Vec<String>,
    /// The ledger-sync project's work context (pushes land there).
    ledger_wc: String,
    estimate: BTreeMap<Kind, f64>,
    acked: Acked,
    counts: Counts,
    /// Lines appended to the grown transcript so far (their uuids chain).
    grown_lines: usize,
    embed_skip: Option<String>,
    iteration: usize,
}

fn elnor_bin() -> &'static str {
    env!("CARGO_BIN_EXE_elnor")
}

fn text(out: &Output) -> String {
    format!(
        "exit {:?}\nstdout: {}\nstderr: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Every file under `dir` (relative path → bytes), leaving out the engine's bookkeeping folders
/// (names starting with a dot: leases, deferred writes, locks) and kept edits.
fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(base: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        let Ok(read) = std::fs::read_dir(dir) else {
            return;
        };
        for e in read.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') || name == "proposals" {
                continue;
            }
            let path = e.path();
            if path.is_dir() {
                walk(base, &path, out);
            } else if let Ok(bytes) = std::fs::read(&path) {
                let rel = path.strip_prefix(base).unwrap().display().to_string();
                out.insert(rel, bytes);
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

/// Temporary files of interrupted atomic writes (`.NAME.tmp-PID-N`) anywhere under `dir`.
fn temp_files(dir: &Path) -> usize {
    let mut n = 0;
    let Ok(read) = std::fs::read_dir(dir) else {
        return 0;
    };
    for e in read.flatten() {
        let path = e.path();
        let name = e.file_name().to_string_lossy().into_owned();
        if path.is_dir() {
            n += temp_files(&path);
        } else if name.starts_with('.') && name.contains(".tmp-") {
            n += 1;
        }
    }
    n
}

impl Suite {
    fn new(seed: u64) -> Suite {
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join("store");
        let samples = dir.path().join("transcripts");
        copy_dir(&elnor_fixtures::samples(), &samples);
        let agents_md = dir.path().join("AGENTS.md");
        std::fs::write(
            &agents_md,
            "# Agents\n\nA person's own text above the block, kept byte for byte.\n",
        )
        .unwrap();
        let roots = [
            ("openclaw", "openclaw/agents"),
            ("claude_code", "claude-code"),
            ("codex", "codex"),
        ]
        .iter()
        .flat_map(|(h, d)| {
            [
                "--root".to_owned(),
                format!("{h}={}", samples.join(d).display()),
            ]
        })
        .collect();
        let model = std::env::var_os("ELNOR_MINILM_DIR")
            .map(PathBuf::from)
            .or_else(|| {
                std::env::var_os("HOME")
                    .map(|h| PathBuf::from(h).join(".cache/elnor/models/all-minilm-l6-v2"))
            });
        let embed_skip = match model {
            Some(m) if m.join("model.safetensors").is_file() && m.join("vocab.txt").is_file() => {
                None
            }
            m => Some(format!(
                "the all-MiniLM-L6-v2 weights are not in {} (scripts/setup.sh test fetches them), \
                 so embed is not killed in this run",
                m.map_or("~/.cache/elnor/models".into(), |m| m.display().to_string())
            )),
        };
        let mut suite = Suite {
            seed,
            rng: Rng(seed),
            _dir: dir,
            store,
            samples,
            agents_md,
            roots,
            ledger_wc: String::new(),
            estimate: KINDS.iter().map(|k| (*k, k.guess())).collect(),
            acked: Acked::default(),
            counts: Counts::default(),
            grown_lines: 0,
            embed_skip,
            iteration: 0,
        };
        suite.must(&["config", "set", "mode", "deterministic"]);
        suite.must(&["config", "set", CONFIG_KEY, "10"]);
        // The suite kills backfills of the smaller model, whose files it checks for above (and
        // whose vectors' folder it reads): the larger one would only make each run longer.
        suite.must(&["config", "set", "embedding_model", "all-minilm-l6-v2"]);
        suite.acked.config = Some(10);
        let mut ingest = vec!["ingest", "--json"];
        let roots = suite.roots.clone();
        ingest.extend(roots.iter().map(String::as_str));
        suite.must(&ingest);
        suite.must(&["capture", "--sweep", "--json"]);
        let list: Value =
            serde_json::from_slice(&suite.must(&["contexts", "list", "--json"]).stdout).unwrap();
        suite.ledger_wc = list
            .as_array()
            .and_then(|a| {
                a.iter()
                    .find(|c| c["name"] == "ledger-sync")
                    .and_then(|c| c["work_context_id"].as_str())
            })
            .unwrap_or_else(|| panic!("no ledger-sync context in {list:#}"))
            .to_owned();
        suite
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut c = Command::new(elnor_bin());
        c.arg("--store")
            .arg(&self.store)
            .args(["--now", NOW])
            .args(args)
            .env_remove("ELNOR_MEMORY")
            .env_remove("ELNOR_NOW");
        c
    }

    /// Runs a command to completion; it must succeed.
    fn must(&self, args: &[&str]) -> Output {
        let out = self.run(args, None);
        assert!(
            out.status.success(),
            "{}: `elnor {}` failed\n{}",
            self.repro(),
            args.join(" "),
            text(&out)
        );
        out
    }

    fn run(&self, args: &[&str], stdin: Option<&[u8]>) -> Output {
        let mut c = self.command(args);
        c.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = c.spawn().expect("run elnor");
        let input = child.stdin.take().unwrap();
        if let Some(bytes) = stdin {
            let mut input = input;
            input.write_all(bytes).unwrap();
        }
        child.wait_with_output().expect("wait for elnor")
    }

    fn repro(&self) -> String {
        format!(
            "ELNOR_CRASH_SEED={} iteration {} (ELNOR_CRASH_ITERATIONS={})",
            self.seed,
            self.iteration,
            self.iteration + 1
        )
    }

    /// Starts `args` (with `stdin`), kills it with SIGKILL after a random delay spread over the
    /// command's measured duration, and says whether the kill landed while it still ran. A
    /// command that finished first is returned as its output, to be treated as acknowledged if
    /// it succeeded.
    fn kill_during(&mut self, kind: Kind, args: &[String], stdin: Option<&[u8]>) -> Option<Output> {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let mut c = self.command(&args);
        c.stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .stdin(if stdin.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            });
        // The delay is uniform over most of the command's typical duration, so most kills land
        // inside it, some in its start-up, and a few (when it runs faster than usual) after it
        // finished.
        let delay = Duration::from_secs_f64(self.rng.unit() * 0.9 * self.estimate[&kind]);
        let mut child = c.spawn().expect("run elnor");
        if let Some(bytes) = stdin {
            // The input is small; the pipe takes it whole, so writing cannot block the kill.
            let mut input = child.stdin.take().unwrap();
            input.write_all(bytes).unwrap();
        }
        std::thread::sleep(delay);
        if child.try_wait().unwrap().is_some() {
            let out = child.wait_with_output().unwrap();
            *self.counts.finished_first.entry(kind).or_default() += 1;
            return Some(out);
        }
        // `Child::kill` is SIGKILL on unix: no handler runs, no buffer is flushed.
        child.kill().unwrap();
        let out = child.wait_with_output().unwrap();
        use std::os::unix::process::ExitStatusExt;
        if out.status.signal() == Some(libc::SIGKILL) {
            *self.counts.kills.entry(kind).or_default() += 1;
            None
        } else {
            // It exited on its own between `try_wait` and the kill.
            *self.counts.finished_first.entry(kind).or_default() += 1;
            Some(out)
        }
    }

    /// Runs a command to completion, measuring it to refine the kill delays.
    fn complete(&mut self, kind: Kind, args: &[String], stdin: Option<&[u8]>) -> Output {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let started = Instant::now();
        let out = self.run(&args, stdin);
        let took = started.elapsed().as_secs_f64();
        let e = self.estimate.get_mut(&kind).unwrap();
        *e = 0.7 * *e + 0.3 * took;
        out
    }

    fn ack(&mut self, kind: Kind) {
        *self.counts.acked.entry(kind).or_default() += 1;
    }

    /// Appends one turn to the grown Claude Code sample and returns its marker word.
    fn grow_transcript(&mut self, text: &str) {
        let n = self.grown_lines;
        let parent = if n == 0 {
            "8e41a0c3-7".to_owned()
        } else {
            format!("crash-{}", n - 1)
        };
        let at = chrono::DateTime::parse_from_rfc3339("2026-10-29T00:00:00Z").unwrap()
            + chrono::Duration::seconds(n as i64);
        let line = serde_json::json!({
            "parentUuid": parent, "isSidechain": false, "userType": "external",
            "cwd": "/home/dana/code/ledger-sync",
            "sessionId": "8e41a0c3-6d52-4b7f-b2e9-3c7d1a5f9b20", "version": "2.1.39",
            "gitBranch": "main", "slug": "steady-ledger-otter", "type": "user",
            "uuid": format!("crash-{n}"),
            "timestamp": at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
            "message": {"role": "user", "content": text},
        });
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(self.samples.join(GROWN))
            .unwrap();
        writeln!(f, "{line}").unwrap();
        self.grown_lines += 1;
    }

    fn ingest_args(&self) -> Vec<String> {
        let mut a = vec!["ingest".to_owned(), "--json".to_owned()];
        a.extend(self.roots.iter().cloned());
        a
    }

    /// One iteration: prepare, kill, check, complete.
    fn iterate(&mut self, kind: Kind) {
        let i = self.iteration;
        let token = format!("zq{}n{i}", self.seed);
        match kind {
            Kind::Ingest => {
                self.grow_transcript(&format!("crash ingest {token}"));
                let args = self.ingest_args();
                self.killed_then_completed(kind, &args, None, |s, _| {
                    s.acked.turns.insert(token.clone());
                });
            }
            Kind::Capture => {
                // A strong cue on a new turn gives the capture something to write.
                self.grow_transcript(&format!("TODO: crash capture {token} before the release."));
                let args = self.ingest_args();
                let out = self.complete(Kind::Ingest, &args, None);
                assert!(out.status.success(), "{}: {}", self.repro(), text(&out));
                self.acked.turns.insert(token.clone());
                self.ack(Kind::Ingest);
                let args = ["capture", "--sweep", "--json"].map(String::from);
                self.killed_then_completed(kind, &args, None, |s, out| {
                    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
                    for c in v["captures"].as_array().into_iter().flatten() {
                        for e in c["entries"].as_array().into_iter().flatten() {
                            s.acked.captured.insert((
                                e["work_context_id"].as_str().unwrap().to_owned(),
                                e["entry_id"].as_str().unwrap().to_owned(),
                            ));
                        }
                    }
                });
            }
            Kind::LogAppend => {
                let marker = format!("crash log {token}");
                let args = ["log", "append", LOG_WC, "open_question", &marker].map(String::from);
                self.killed_then_completed(kind, &args, None, |s, _| {
                    s.acked.log_markers.insert(marker.clone());
                });
            }
            Kind::ConfigSet => {
                let value = 3 + (i % 23) as u32;
                self.acked.config_tried.insert(value);
                let args = ["config", "set", CONFIG_KEY, &value.to_string()].map(String::from);
                self.killed_then_completed(kind, &args, None, |s, _| {
                    s.acked.config = Some(value);
                    s.acked.config_tried.clear();
                });
            }
            Kind::Push => {
                let what = format!("crash push {token}");
                let args = [
                    "push".to_owned(),
                    what.clone(),
                    "--context".to_owned(),
                    self.ledger_wc.clone(),
                ];
                self.killed_then_completed(kind, &args, None, |s, _| {
                    s.acked.pushes.insert(what.clone());
                });
            }
            Kind::HeadsRefresh => {
                let heads = self.store.join("heads");
                let before = snapshot(&heads);
                let args = ["heads", "refresh"].map(String::from);
                let killed = self.kill_only(kind, &args, None);
                let after_kill = snapshot(&heads);
                self.finish(kind, &args, None, killed, |_, _| {});
                self.same_or_completed("heads/", &before, &after_kill, &snapshot(&heads));
            }
            Kind::HeadsWrite => {
                let before = snapshot_file(&self.agents_md);
                let args = [
                    "heads".to_owned(),
                    "write".to_owned(),
                    "--to".to_owned(),
                    self.agents_md.display().to_string(),
                ];
                let killed = self.kill_only(kind, &args, None);
                let after_kill = snapshot_file(&self.agents_md);
                self.finish(kind, &args, None, killed, |_, _| {});
                let done = snapshot_file(&self.agents_md);
                self.same_or_completed("AGENTS.md", &before, &after_kill, &done);
                let text = String::from_utf8(done["AGENTS.md"].clone()).unwrap();
                assert!(
                    text.starts_with("# Agents\n\nA person's own text above the block"),
                    "{}: the person's text around the block changed:\n{text}",
                    self.repro()
                );
            }
            Kind::Approve => self.approve(&token),
            Kind::Reindex => {
                let args = ["reindex", "--json"].map(String::from);
                self.killed_then_completed(kind, &args, None, |_, _| {});
                self.search_finds_acked_entry();
            }
            Kind::Embed => {
                // The vectors are derived, and the backfill only embeds what has none: dropping
                // them gives the killed run a whole backfill to be interrupted in.
                let vectors = self.store.join("index/vectors");
                let _ = std::fs::remove_dir_all(&vectors);
                let seed_run = ["embed", "--json", "--limit", "64"].map(String::from);
                // One batch first, so the kill lands in a run that appends to existing files.
                let out = self.run(&seed_run.each_ref().map(String::as_str), None);
                assert!(out.status.success(), "{}: {}", self.repro(), text(&out));
                let args = ["embed", "--json"].map(String::from);
                self.killed_then_completed(kind, &args, None, |_, _| {});
                self.vectors_aligned();
                self.search_finds_acked_entry();
            }
        }
    }

    /// Kills the command, checks the store, then runs it to completion and records its ack.
    fn killed_then_completed(
        &mut self,
        kind: Kind,
        args: &[String],
        stdin: Option<&[u8]>,
        on_ack: impl FnMut(&mut Suite, &Output),
    ) {
        let killed = self.kill_only(kind, args, stdin);
        self.finish(kind, args, stdin, killed, on_ack);
    }

    /// The kill and the checks after it. Returns the output when the command finished first.
    fn kill_only(&mut self, kind: Kind, args: &[String], stdin: Option<&[u8]>) -> Option<Output> {
        let out = self.kill_during(kind, args, stdin);
        if out.is_none() && kind == Kind::LogAppend && self.rng.below(2) == 0 {
            self.tear_unacknowledged_tail();
        }
        self.check_store();
        out
    }

    /// Runs the command to completion (unless it finished before its kill) and records its ack.
    fn finish(
        &mut self,
        kind: Kind,
        args: &[String],
        stdin: Option<&[u8]>,
        finished_first: Option<Output>,
        mut on_ack: impl FnMut(&mut Suite, &Output),
    ) {
        if let Some(out) = &finished_first
            && out.status.success()
        {
            on_ack(self, out);
            self.ack(kind);
        }
        let out = self.complete(kind, args, stdin);
        assert!(
            out.status.success(),
            "{}: `elnor {}` failed after the crash\n{}",
            self.repro(),
            args.join(" "),
            text(&out)
        );
        on_ack(self, &out);
        self.ack(kind);
    }

    /// Cuts the last line of the suite's log in half when it is the entry of the append just
    /// killed (so unacknowledged): what a power cut in the middle of that write leaves. The
    /// repair on the next open must set it aside and keep every acknowledged line.
    fn tear_unacknowledged_tail(&mut self) {
        let path = self
            .store
            .join("continuity")
            .join(format!("{LOG_WC}.jsonl"));
        let Ok(bytes) = std::fs::read(&path) else {
            return;
        };
        let body = bytes.strip_suffix(b"\n").unwrap_or(&bytes);
        let start = body.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
        let last = String::from_utf8_lossy(&body[start..]);
        let marker = format!("crash log zq{}n{}", self.seed, self.iteration);
        if !last.contains(&marker) {
            return;
        }
        let cut = start + (body.len() - start) / 2;
        let f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        f.set_len(cut as u64).unwrap();
        f.sync_all().unwrap();
        self.counts.torn_injected += 1;
    }

    /// After a kill: the store opens, the graph is sound, every log reads whole, and every
    /// acknowledged write is where it was written.
    fn check_store(&mut self) {
        let repro = self.repro();
        let store = elnor_engine::Store::open(&self.store)
            .unwrap_or_else(|e| panic!("{repro}: the store does not reopen after a kill: {e}"));
        let db = rusqlite::Connection::open(self.store.join("entity_graph.sqlite")).unwrap();
        let integrity: String = db
            .query_row("PRAGMA integrity_check", [], |r| r.get(0))
            .unwrap();
        assert_eq!(integrity, "ok", "{repro}: the graph is corrupt");

        // Every log, read through the engine (which repairs a torn tail first).
        let mut entries: BTreeMap<String, Vec<elnor_engine::ContinuityEntry>> = BTreeMap::new();
        for e in std::fs::read_dir(self.store.join("continuity"))
            .unwrap()
            .flatten()
        {
            let name = e.file_name().to_string_lossy().into_owned();
            let Some(wc) = name.strip_suffix(".jsonl") else {
                continue;
            };
            let id = elnor_engine::WorkContextId::new(wc).unwrap();
            let read = store
                .log(&id)
                .read()
                .unwrap_or_else(|e| panic!("{repro}: log {wc} does not read: {e}"));
            assert!(
                read.skipped.is_empty(),
                "{repro}: log {wc} has unreadable lines after a kill: {:?}",
                read.skipped
            );
            if read.repair.is_some() {
                self.counts.torn_repaired += 1;
            }
            entries.insert(wc.to_owned(), read.entries);
        }
        let ours: BTreeSet<String> = entries
            .get(LOG_WC)
            .into_iter()
            .flatten()
            .filter_map(|e| {
                let line: Value = serde_json::from_str(&e.to_line().ok()?).ok()?;
                line["content"]["question"].as_str().map(str::to_owned)
            })
            .collect();
        for m in &self.acked.log_markers {
            assert!(
                ours.contains(m),
                "{repro}: acknowledged log entry {m:?} lost"
            );
        }
        for (wc, id) in &self.acked.captured {
            let found = entries
                .get(wc)
                .is_some_and(|es| es.iter().any(|e| e.entry_id.as_str() == id));
            assert!(
                found,
                "{repro}: acknowledged captured entry {id} lost from {wc}"
            );
        }

        let config = store
            .config()
            .unwrap_or_else(|e| panic!("{repro}: the config does not read after a kill: {e}"));
        let value = config.get(CONFIG_KEY).unwrap().as_u64().unwrap() as u32;
        assert!(
            Some(value) == self.acked.config || self.acked.config_tried.contains(&value),
            "{repro}: config {CONFIG_KEY} is {value}; acknowledged {:?}, tried since {:?}",
            self.acked.config,
            self.acked.config_tried
        );

        let count =
            |sql: &str, arg: &str| -> i64 { db.query_row(sql, [arg], |r| r.get(0)).unwrap() };
        for p in &self.acked.pushes {
            let n = count(
                "SELECT count(*) FROM observations WHERE source = 'push' AND text = ?1",
                p,
            );
            assert!(n >= 1, "{repro}: acknowledged push {p:?} lost");
        }
        for t in &self.acked.turns {
            let n = count(
                "SELECT count(*) FROM turns WHERE text LIKE '%' || ?1 || '%'",
                t,
            );
            assert!(
                n >= 1,
                "{repro}: the turn {t} an acknowledged ingest read is lost"
            );
        }
        for node in &self.acked.nodes {
            let n = count(
                "SELECT count(*) FROM obligations WHERE obligation_id = ?1",
                node,
            );
            assert_eq!(n, 1, "{repro}: approved node {node} lost");
        }
        self.counts.ack_checks += self.acked.log_markers.len()
            + self.acked.captured.len()
            + 1
            + self.acked.pushes.len()
            + self.acked.turns.len()
            + self.acked.nodes.len();
        self.counts.temp_litter = temp_files(&self.store);
    }

    /// A file set after a kill is either what it was before the killed command or what the
    /// completed command made: never a mix, never a half-written file.
    fn same_or_completed(
        &self,
        what: &str,
        before: &BTreeMap<String, Vec<u8>>,
        after_kill: &BTreeMap<String, Vec<u8>>,
        done: &BTreeMap<String, Vec<u8>>,
    ) {
        for (name, bytes) in after_kill {
            assert!(
                before.get(name) == Some(bytes) || done.get(name) == Some(bytes),
                "{}: {what}{name} after the kill is neither the acknowledged content nor the \
                 completed one:\n{}",
                self.repro(),
                String::from_utf8_lossy(bytes)
            );
        }
        for name in before.keys() {
            assert!(
                after_kill.contains_key(name),
                "{}: {what}{name} disappeared in a killed write",
                self.repro()
            );
        }
    }

    /// A promotion: a question 20 days old linked to an entity with a deadline, the nightly job
    /// proposes its obligation (acknowledged), and the approval is what gets killed.
    fn approve(&mut self, token: &str) {
        let i = self.iteration;
        let out = self.must(&[
            "entities",
            "add",
            &format!("Crash entity {token}"),
            "--kind",
            "document",
            "--deadline",
            "2030-12-15",
            "--json",
        ]);
        let entity: Value = serde_json::from_slice(&out.stdout).unwrap();
        let captured = (chrono::DateTime::parse_from_rfc3339(NOW).unwrap()
            - chrono::Duration::days(20))
        .to_rfc3339();
        let entry_id = format!("ce_crash_{}_{i}", self.seed);
        let marker = format!("crash question {token}");
        let entry = serde_json::json!({
            "entry_id": entry_id,
            "entry_type": "open_question",
            "source_session_id": "s_crash",
            "captured_at": captured,
            "capture_mode": "llm_enriched",
            "content": {"question": marker},
            "decay_at": "2099-01-01T00:00:00Z",
            "linked_entity_ids": [entity["entity_id"]],
            "work_context_id": LOG_WC,
            "schema_version": 2
        });
        let out = self.run(
            &["log", "append", LOG_WC, "--stdin"],
            Some(entry.to_string().as_bytes()),
        );
        assert!(out.status.success(), "{}: {}", self.repro(), text(&out));
        self.acked.log_markers.insert(marker);
        self.ack(Kind::LogAppend);
        self.must(&["nightly", "--json"]);
        let db = rusqlite::Connection::open(self.store.join("entity_graph.sqlite")).unwrap();
        let proposal: i64 = db
            .query_row(
                "SELECT proposal_id FROM promotion_proposals WHERE entry_id = ?1",
                [&entry_id],
                |r| r.get(0),
            )
            .unwrap_or_else(|e| panic!("{}: no proposal for {entry_id}: {e}", self.repro()));
        drop(db);
        let args = [
            "review".to_owned(),
            "approve".to_owned(),
            proposal.to_string(),
            "--json".to_owned(),
        ];
        let first = self.kill_only(Kind::Approve, &args, None);
        let first_ok = first.as_ref().is_some_and(|o| o.status.success());
        if first_ok {
            self.ack(Kind::Approve);
        }
        // Run again: it approves, or says the proposal is decided (exit 4) when the killed run
        // committed its approval first. Either way the proposal must now be approved with its
        // node in the graph.
        let out = self.complete(Kind::Approve, &args, None);
        match out.status.code() {
            Some(0) => self.ack(Kind::Approve),
            Some(4) => {}
            _ => panic!("{}: approve after the crash: {}", self.repro(), text(&out)),
        }
        let db = rusqlite::Connection::open(self.store.join("entity_graph.sqlite")).unwrap();
        let (status, node): (String, Option<String>) = db
            .query_row(
                "SELECT status, node_id FROM promotion_proposals WHERE proposal_id = ?1",
                [proposal],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap();
        assert_eq!(status, "approved", "{}", self.repro());
        let node = node.unwrap_or_else(|| panic!("{}: approved without a node", self.repro()));
        self.acked.nodes.insert(node);
    }

    /// The search index answers for the newest acknowledged log entry after a rebuild.
    fn search_finds_acked_entry(&self) {
        let Some(marker) = self.acked.log_markers.iter().next_back() else {
            return;
        };
        let token = marker.rsplit(' ').next().unwrap();
        let out = self.must(&["query", token, "--json", "--max-results", "20"]);
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        let found = v["hits"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|h| h["excerpt"].as_str().is_some_and(|x| x.contains(token)));
        assert!(
            found,
            "{}: the index does not find {token}: {v:#}",
            self.repro()
        );
    }

    /// After a completed backfill every vector has its id and every id its vector.
    fn vectors_aligned(&self) {
        let folder = self.store.join("index/vectors/builtin-all-minilm-l6-v2");
        let dims: u64 = std::fs::read_to_string(folder.join("dims"))
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        let ids = std::fs::read(folder.join("vectors.ids")).unwrap();
        assert!(
            ids.is_empty() || ids.ends_with(b"\n"),
            "{}: vectors.ids ends in a torn line",
            self.repro()
        );
        let lines = ids.iter().filter(|&&b| b == b'\n').count() as u64;
        let distinct: BTreeSet<&[u8]> = ids
            .split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .collect();
        let bytes = std::fs::metadata(folder.join("vectors.f32")).unwrap().len();
        assert_eq!(
            (bytes, distinct.len() as u64),
            (lines * dims * 4, lines),
            "{}: vectors.f32 holds {} rows of {dims} for {lines} ids ({} distinct) after a \
             completed backfill",
            self.repro(),
            bytes as f64 / (dims * 4) as f64,
            distinct.len()
        );
    }

    /// Derived data deleted and rebuilt twice gives the same bytes (views, rollup, heads) and
    /// the same rows (the lineage DAG) both times.
    fn derived_rebuilds_identically(&mut self) {
        let rebuild = |s: &Suite| {
            for d in ["mirror", "rollup", "heads/threads"] {
                let _ = std::fs::remove_dir_all(s.store.join(d));
            }
            let _ = std::fs::remove_file(s.store.join("heads/MEMORY.md"));
            s.must(&["constellation", "rebuild", "--all"]);
            s.must(&["rollup"]);
            s.must(&["heads", "refresh"]);
            s.must(&["lineage", "rebuild", "--json"]);
            let reindex: Value =
                serde_json::from_slice(&s.must(&["reindex", "--json"]).stdout).unwrap();
            let mut files = BTreeMap::new();
            for d in ["mirror", "rollup", "heads"] {
                for (k, v) in snapshot(&s.store.join(d)) {
                    files.insert(format!("{d}/{k}"), v);
                }
            }
            let db = rusqlite::Connection::open(s.store.join("entity_graph.sqlite")).unwrap();
            let mut rows = Vec::new();
            for table in ["lineage_nodes", "lineage_edges"] {
                let mut stmt = db
                    .prepare(&format!("SELECT * FROM {table} ORDER BY 1, 2"))
                    .unwrap();
                let n = stmt.column_count();
                let mut q = stmt.query([]).unwrap();
                while let Some(r) = q.next().unwrap() {
                    let row: Vec<String> = (0..n)
                        .map(|c| format!("{:?}", r.get_ref(c).unwrap()))
                        .collect();
                    rows.push(format!("{table}: {}", row.join(" | ")));
                }
            }
            (files, rows, reindex["documents"].clone())
        };
        let a = rebuild(self);
        let b = rebuild(self);
        assert!(!a.0.is_empty(), "{}: nothing was rebuilt", self.repro());
        for (name, bytes) in &a.0 {
            assert!(
                b.0.get(name) == Some(bytes),
                "{}: {name} rebuilt differently",
                self.repro()
            );
        }
        assert_eq!(a.0.len(), b.0.len(), "{}", self.repro());
        assert!(
            a.1 == b.1,
            "{}: the lineage DAG rebuilt differently",
            self.repro()
        );
        assert_eq!(a.2, b.2, "{}: the index rebuilt differently", self.repro());
        self.counts.rebuilds_compared += 1;
    }
}

/// One file as a snapshot of its own, under the name the failure messages use.
fn snapshot_file(path: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read(path)
        .map(|bytes| BTreeMap::from([("AGENTS.md".to_owned(), bytes)]))
        .unwrap_or_default()
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(e.file_name());
        if e.path().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).unwrap();
        }
    }
}

fn env_number(name: &str, default: u64) -> u64 {
    match std::env::var(name) {
        Ok(v) if !v.is_empty() => v
            .parse()
            .unwrap_or_else(|_| panic!("{name} must be a number, not {v:?}")),
        _ => default,
    }
}

/// The suite: `ELNOR_CRASH_ITERATIONS` kill points (40 by default, the CI bound) with the seed
/// from `ELNOR_CRASH_SEED`.
#[test]
fn acknowledged_writes_survive_sigkill_at_random_points() {
    let iterations = env_number("ELNOR_CRASH_ITERATIONS", 40) as usize;
    let seed = env_number("ELNOR_CRASH_SEED", 20);
    let derived_every = env_number("ELNOR_CRASH_DERIVED_EVERY", DERIVED_EVERY).max(1) as usize;
    let started = Instant::now();
    let mut suite = Suite::new(seed);
    if let Some(why) = &suite.embed_skip {
        eprintln!("crash suite: {why}");
    }
    let kinds: Vec<Kind> = KINDS
        .iter()
        .copied()
        .filter(|k| *k != Kind::Embed || suite.embed_skip.is_none())
        .collect();
    // Each round visits every kind once in a shuffled order, so the kinds share the kills
    // evenly whatever the count.
    let mut order: Vec<Kind> = Vec::new();
    for i in 0..iterations {
        if order.is_empty() {
            order = kinds.clone();
            for j in (1..order.len()).rev() {
                let k = suite.rng.below(j + 1);
                order.swap(j, k);
            }
        }
        suite.iteration = i;
        let kind = order.pop().unwrap();
        suite.iterate(kind);
        if (i + 1) % derived_every == 0 || i + 1 == iterations {
            suite.derived_rebuilds_identically();
        }
        // A long run says how far it got now and then, so a run stopped early still has figures.
        if (i + 1) % 100 == 0 && i + 1 < iterations {
            eprintln!(
                "crash suite: {} of {iterations} iterations, {} kill points, {:.0} s",
                i + 1,
                suite.counts.kills.values().sum::<usize>(),
                started.elapsed().as_secs_f64()
            );
        }
    }
    let c = &suite.counts;
    let kills: usize = c.kills.values().sum();
    let first: usize = c.finished_first.values().sum();
    let acked: usize = c.acked.values().sum();
    eprintln!(
        "crash suite: seed {seed}, {iterations} iterations in {:.0} s",
        started.elapsed().as_secs_f64()
    );
    eprintln!(
        "  {:<15} {:>6} {:>15} {:>6}",
        "operation", "kills", "finished first", "acked"
    );
    for k in &kinds {
        eprintln!(
            "  {:<15} {:>6} {:>15} {:>6}",
            k.name(),
            c.kills.get(k).copied().unwrap_or(0),
            c.finished_first.get(k).copied().unwrap_or(0),
            c.acked.get(k).copied().unwrap_or(0)
        );
    }
    eprintln!("  {:<15} {kills:>6} {first:>15} {acked:>6}", "total");
    eprintln!(
        "  acknowledged writes {acked} (checked {} times in all after kills), torn tails \
         repaired {} ({} cut by the suite), derived rebuilds compared {}, temp files left by \
         killed writes {}, failures 0",
        c.ack_checks, c.torn_repaired, c.torn_injected, c.rebuilds_compared, c.temp_litter
    );
    assert!(
        kills > 0,
        "no kill landed inside a command; the delays do not fit the commands' durations"
    );
}

/// Sync killed at random points (issue 40): two stores (devices) share a bare repository; on
/// each round one store appends an entry (acknowledged when `elnor log append` exits 0), every
/// fifth round also a living-memory fact (a graph event, acknowledged when `elnor facts add`
/// exits 0), then a
/// sync of either store is killed with SIGKILL, with the git it runs (the whole process group,
/// as a power cut would), after a random delay. At the end both sync to completion: each holds
/// every acknowledged entry exactly once, the logs are the same bytes, both hold every
/// acknowledged fact exactly once and in the same order, and the remote passes
/// `git fsck`. `ELNOR_SYNC_CRASH_ITERATIONS` (default 200) sets the number of kill points.
#[test]
fn a_sync_killed_at_any_point_loses_and_doubles_nothing() {
    use std::os::unix::process::CommandExt;
    if Command::new("git").arg("--version").output().is_err() {
        eprintln!("skipped: no git on PATH");
        return;
    }
    let iterations = env_number("ELNOR_SYNC_CRASH_ITERATIONS", 200);
    let seed = env_number("ELNOR_CRASH_SEED", 0x5EED_2026);
    let mut rng = Rng(seed);
    let remote = tempfile::tempdir().unwrap();
    assert!(
        elnor_fixtures::bare_git_remote(remote.path()),
        "no git on PATH"
    );
    let url = remote.path().display().to_string();
    let stores = [tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap()];
    let run = |store: &Path, args: &[&str]| -> Output {
        Command::new(elnor_bin())
            .arg("--store")
            .arg(store)
            .args(args)
            .env("ELNOR_NOW", NOW)
            .env_remove("ELNOR_MEMORY")
            .output()
            .unwrap()
    };
    for s in &stores {
        let out = run(s.path(), &["sync", "--remote", &url, "--owner", "crash"]);
        assert!(out.status.success(), "{}", text(&out));
    }
    let mut acked: BTreeSet<String> = BTreeSet::new();
    let mut facts: BTreeSet<String> = BTreeSet::new();
    let (mut kills, mut finished) = (0u64, 0u64);
    // A sync's duration here, refined as the run goes, spreads the kills over it.
    let mut estimate = 0.15f64;
    for i in 0..iterations {
        let writer = stores[rng.below(2)].path();
        let question = format!("question {i} of seed {seed}?");
        let out = run(
            writer,
            &["log", "append", LOG_WC, "open_question", &question],
        );
        assert!(out.status.success(), "{}", text(&out));
        acked.insert(question);
        // Living memory keeps at most 50 facts; 40 leaves room whatever the iterations.
        if i % 5 == 0 && facts.len() < 40 {
            let fact = format!("fact {i} of seed {seed}");
            let out = run(writer, &["facts", "add", &fact]);
            assert!(out.status.success(), "{}", text(&out));
            facts.insert(fact);
        }
        let syncer = stores[rng.below(2)].path();
        let mut child = Command::new(elnor_bin())
            .arg("--store")
            .arg(syncer)
            .args(["sync"])
            .env("ELNOR_NOW", NOW)
            .env_remove("ELNOR_MEMORY")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .unwrap();
        let started = Instant::now();
        std::thread::sleep(Duration::from_secs_f64(rng.unit() * estimate));
        if child.try_wait().unwrap().is_some() {
            finished += 1;
            estimate = 0.7 * estimate + 0.3 * started.elapsed().as_secs_f64();
            continue;
        }
        // SAFETY: kill(2) with a negative pid signals the child's own process group (it was
        // spawned as that group's leader), so the git it started dies with it.
        unsafe {
            libc::kill(-(child.id() as i32), libc::SIGKILL);
        }
        child.wait().unwrap();
        kills += 1;
        // The remote here is a local bare repository, so the git that received a push ran in
        // the killed group and may have left a ref lock in it. A remote on a server survives a
        // client's crash and drops such a lock itself; the test stands in for that server.
        remove_locks(remote.path());
    }
    // What each repository holds, said when a sync fails, since the stores go with the test.
    let story = |dir: &Path| {
        let out = Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(["log", "--graph", "--oneline", "--all", "--stat", "-n", "12"])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    for s in [&stores[0], &stores[1], &stores[0]] {
        let out = run(s.path(), &["sync", "--json"]);
        assert!(
            out.status.success(),
            "seed {seed}: the sync after the crashes failed: {}\nthis store's repository:\n{}\n\
             the other's:\n{}",
            text(&out),
            story(&s.path().join("sync")),
            story(
                &stores[usize::from(s.path() == stores[0].path())]
                    .path()
                    .join("sync")
            ),
        );
    }
    let logs: Vec<Vec<u8>> = stores
        .iter()
        .map(|s| std::fs::read(s.path().join(format!("continuity/{LOG_WC}.jsonl"))).unwrap())
        .collect();
    if logs[0] != logs[1] {
        let lines = |b: &[u8]| -> BTreeSet<String> {
            String::from_utf8_lossy(b)
                .lines()
                .map(str::to_owned)
                .collect()
        };
        let (a, b) = (lines(&logs[0]), lines(&logs[1]));
        panic!(
            "seed {seed}: the two logs differ ({} and {} lines); only in the first: {:?}; only in \
             the second: {:?}",
            a.len(),
            b.len(),
            a.difference(&b).collect::<Vec<_>>(),
            b.difference(&a).collect::<Vec<_>>()
        );
    }
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for line in String::from_utf8_lossy(&logs[0]).lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        *seen
            .entry(v["content"]["question"].as_str().unwrap().to_owned())
            .or_default() += 1;
    }
    for q in &acked {
        assert_eq!(seen.get(q), Some(&1), "seed {seed}: {q:?} lost or doubled");
    }
    assert_eq!(
        seen.len(),
        acked.len(),
        "seed {seed}: an entry nobody wrote"
    );
    let fact_lists: Vec<Vec<String>> = stores
        .iter()
        .map(|s| {
            let out = run(s.path(), &["facts", "list", "--json"]);
            assert!(out.status.success(), "{}", text(&out));
            let v: Value = serde_json::from_slice(&out.stdout).unwrap();
            let list = v.as_array().or_else(|| v["facts"].as_array()).unwrap();
            list.iter()
                .map(|f| f["text"].as_str().unwrap().to_owned())
                .collect()
        })
        .collect();
    assert_eq!(
        fact_lists[0], fact_lists[1],
        "seed {seed}: the facts differ"
    );
    let held: BTreeSet<String> = fact_lists[0].iter().cloned().collect();
    assert_eq!(
        held.len(),
        fact_lists[0].len(),
        "seed {seed}: a fact doubled"
    );
    assert_eq!(held, facts, "seed {seed}: a fact lost or one nobody wrote");
    let fsck = Command::new("git")
        .arg("-C")
        .arg(remote.path())
        .args(["fsck", "--no-progress"])
        .output()
        .unwrap();
    assert!(fsck.status.success(), "{}", text(&fsck));
    println!(
        "sync crash: {iterations} rounds, {kills} syncs killed, {finished} finished first, seed {seed}"
    );
    assert!(
        kills * 2 >= iterations,
        "most kills must land inside a sync"
    );
}

/// Removes the `*.lock` files git left in a repository (not under `objects/`).
fn remove_locks(dir: &Path) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() && e.file_name() != "objects" {
            remove_locks(&p);
        } else if p.extension().is_some_and(|x| x == "lock") {
            let _ = std::fs::remove_file(&p);
        }
    }
}
