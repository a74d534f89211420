//! Helpers shared by the engine's unit tests: where the shared fixture corpus lives, and small
//! builders for transcript roots in temporary directories.

use std::path::{Path, PathBuf};

/// The shared corpus's public harness transcripts, or `None` (the test is then counted as skipped,
/// see `elnor_fixtures`). Tests read it in place; they copy files only into temporary directories.
pub(crate) fn fixtures() -> Option<PathBuf> {
    elnor_fixtures::transcripts()
}

/// The project's own samples of each harness format (`tests/fixtures/`), always in the checkout.
pub(crate) fn samples() -> PathBuf {
    elnor_fixtures::samples()
}

/// The development corpus of real histories, or `None` in a clone without it.
pub(crate) fn real_fixtures() -> Option<PathBuf> {
    elnor_fixtures::real()
}

/// A store with every session of the real-history corpus ingested (each harness's roots found by
/// their layout), or `None` without the corpus.
pub(crate) fn real_store() -> Option<(tempfile::TempDir, crate::Store, PathBuf)> {
    use crate::inputs::ingest::SourceRoot;
    use crate::inputs::transcripts::Harness;
    let real = real_fixtures()?;
    let dir = tempfile::tempdir().unwrap();
    let store = crate::Store::open(dir.path()).unwrap();
    let mut roots = vec![
        SourceRoot {
            harness: Harness::ClaudeCode,
            root: real.join("claude-code"),
        },
        SourceRoot {
            harness: Harness::Codex,
            root: real.join("codex/sessions"),
        },
    ];
    // OpenClaw state folders: `openclaw/<source>/agents`.
    let mut sources: Vec<PathBuf> = std::fs::read_dir(real.join("openclaw"))
        .map(|rd| rd.flatten().map(|e| e.path().join("agents")).collect())
        .unwrap_or_default();
    sources.sort();
    roots.extend(
        sources
            .into_iter()
            .filter(|p| p.is_dir())
            .map(|root| SourceRoot {
                harness: Harness::OpenClaw,
                root,
            }),
    );
    let report =
        crate::usecase::ingest(&store, &roots, &mut |_| {}, crate::base::clock::now()).unwrap();
    assert!(
        report.files_read > 0,
        "nothing ingested from {}",
        real.display()
    );
    Some((dir, store, real))
}

/// Copies the file at `rel` under `from` to `dest`, creating parent directories.
pub(crate) fn copy_fixture(from: &Path, rel: &str, dest: &Path) {
    std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
    std::fs::copy(from.join(rel), dest).unwrap();
}

/// A store in a temporary directory with the whole shared corpus ingested, or `None` without it.
pub(crate) fn fixture_store() -> Option<(tempfile::TempDir, crate::Store)> {
    let corpus = fixtures()?;
    let dir = tempfile::tempdir().unwrap();
    let store = crate::Store::open(dir.path()).unwrap();
    ingest_dir(&store, &corpus);
    Some((dir, store))
}

/// A store in a temporary directory with the project's own samples ingested.
pub(crate) fn sample_store() -> (tempfile::TempDir, crate::Store) {
    let dir = tempfile::tempdir().unwrap();
    let store = crate::Store::open(dir.path()).unwrap();
    ingest_dir(&store, &samples());
    (dir, store)
}

/// Captures every ingested session at `at`, as the continuity agent would on a first run.
pub(crate) fn capture_all(
    store: &crate::Store,
    at: chrono::DateTime<chrono::Utc>,
) -> Vec<crate::SessionId> {
    let ids: Vec<crate::SessionId> = store
        .graph()
        .with_conn(|c| {
            let mut s =
                c.prepare("SELECT session_id FROM transcript_sessions ORDER BY session_id")?;
            s.query_map([], |r| r.get(0))?.collect()
        })
        .unwrap();
    for id in ids.clone() {
        crate::inputs::capture::capture(
            store,
            &crate::base::secrets::MemorySecrets::default(),
            &crate::inputs::capture::CaptureRequest {
                session_id: id,
                trigger: crate::inputs::agent::Trigger::ManualRequest,
                now: at,
            },
        )
        .unwrap();
    }
    ids
}

/// Ingests every harness folder under `base` (`openclaw/`, `claude-code/`, `codex/`). An OpenClaw
/// state folder keeps its sessions under `agents/`; the shared corpus holds bare session files.
pub(crate) fn ingest_dir(store: &crate::Store, base: &Path) -> crate::inputs::ingest::IngestReport {
    use crate::inputs::ingest::SourceRoot;
    use crate::inputs::transcripts::Harness;
    let openclaw = if base.join("openclaw/agents").is_dir() {
        base.join("openclaw/agents")
    } else {
        base.join("openclaw")
    };
    let roots = vec![
        SourceRoot {
            harness: Harness::OpenClaw,
            root: openclaw,
        },
        SourceRoot {
            harness: Harness::ClaudeCode,
            root: base.join("claude-code"),
        },
        SourceRoot {
            harness: Harness::Codex,
            root: base.join("codex"),
        },
    ];
    crate::usecase::ingest(store, &roots, &mut |_| {}, crate::base::clock::now()).unwrap()
}

/// A local HTTP server playing an LLM endpoint: the only stand-in the tests use, because no model
/// is reachable here.
pub(crate) mod standin {
    use std::collections::BTreeMap;
    use std::io::{BufRead, BufReader, Read, Write};
    use std::net::{TcpListener, TcpStream};
    use std::sync::{Arc, Mutex};
    use std::thread;
    use std::time::Duration;

    use serde_json::Value;

    /// One canned answer of the stand-in server.
    #[derive(Clone)]
    pub(crate) struct Canned {
        pub status: u16,
        pub body: String,
        /// Wait this long before answering, to drive the client into its timeout.
        pub delay: Duration,
    }

    pub(crate) fn ok(body: Value) -> Canned {
        Canned {
            status: 200,
            body: body.to_string(),
            delay: Duration::ZERO,
        }
    }

    /// One request the stand-in received.
    #[derive(Debug, Clone)]
    pub(crate) struct Seen {
        pub path: String,
        /// Header names lowercased.
        pub headers: BTreeMap<String, String>,
        pub body: Value,
    }

    /// A small HTTP/1.1 server on 127.0.0.1 playing Ollama and an OpenAI-compatible endpoint: it
    /// answers each path with its canned response and records what it was sent. Each connection is
    /// served on its own thread, so a delayed answer holds up nothing else; the threads end with the
    /// test process.
    pub(crate) struct StandIn {
        pub base: String,
        seen: Arc<Mutex<Vec<Seen>>>,
    }

    impl StandIn {
        pub(crate) fn start(routes: &[(&str, Canned)]) -> StandIn {
            let routes: BTreeMap<String, Canned> = routes
                .iter()
                .map(|(p, c)| ((*p).to_owned(), c.clone()))
                .collect();
            Self::answering(move |path, _| {
                routes.get(path).cloned().unwrap_or(Canned {
                    status: 404,
                    body: r#"{"error":"no such route"}"#.to_owned(),
                    delay: Duration::ZERO,
                })
            })
        }

        /// A stand-in whose answer is computed from the request's path and JSON body: an
        /// embedding endpoint answers each input with its own vector.
        pub(crate) fn answering(
            answer: impl Fn(&str, &Value) -> Canned + Send + Sync + 'static,
        ) -> StandIn {
            let listener = TcpListener::bind("127.0.0.1:0").unwrap();
            let base = format!("http://{}", listener.local_addr().unwrap());
            let answer: Arc<Answer> = Arc::new(answer);
            let seen = Arc::new(Mutex::new(Vec::new()));
            let seen_by_server = Arc::clone(&seen);
            thread::spawn(move || {
                for stream in listener.incoming().flatten() {
                    let answer = Arc::clone(&answer);
                    let seen = Arc::clone(&seen_by_server);
                    thread::spawn(move || serve(stream, answer.as_ref(), &seen));
                }
            });
            StandIn { base, seen }
        }

        pub(crate) fn seen(&self) -> Vec<Seen> {
            self.seen.lock().unwrap().clone()
        }
    }

    /// How a stand-in answers: from the request's path and JSON body.
    type Answer = dyn Fn(&str, &Value) -> Canned + Send + Sync;

    fn serve(stream: TcpStream, answer: &Answer, seen: &Mutex<Vec<Seen>>) {
        let mut reader = BufReader::new(stream);
        let mut request_line = String::new();
        if reader.read_line(&mut request_line).is_err() {
            return;
        }
        let path = request_line
            .split_whitespace()
            .nth(1)
            .unwrap_or("")
            .to_owned();
        let mut headers = BTreeMap::new();
        loop {
            let mut line = String::new();
            if reader.read_line(&mut line).unwrap_or(0) == 0 {
                return;
            }
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some((name, value)) = line.split_once(':') {
                headers.insert(name.trim().to_ascii_lowercase(), value.trim().to_owned());
            }
        }
        let length: usize = headers
            .get("content-length")
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        let mut body = vec![0; length];
        if reader.read_exact(&mut body).is_err() {
            return;
        }
        let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        let canned = answer(&path, &body);
        seen.lock().unwrap().push(Seen {
            path,
            headers,
            body,
        });
        thread::sleep(canned.delay);
        let response = format!(
            "HTTP/1.1 {} Canned\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{}",
            canned.status,
            canned.body.len(),
            canned.body
        );
        let mut stream = reader.into_inner();
        let _ = stream.write_all(response.as_bytes());
        let _ = stream.flush();
    }
}

/// A store with one work context (`henderson`) whose log holds an open question linked to an
/// entity with a deadline and a key decision, both captured at [`t0`]: the promotion rules'
/// inputs, shared by the promotion and lifecycle tests.
pub(crate) mod promotion {
    use chrono::{DateTime, TimeZone, Utc};
    use rusqlite::params;

    use crate::Store;
    use crate::base::ids::{SessionId, WorkContextId};
    use crate::continuity::{
        CaptureMode, ContinuityEntry, EntryContent, KeyDecisionContent, OpenQuestionContent,
    };
    use crate::graph::entities::{NewEntity, ts};

    pub(crate) fn t0() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 11, 1, 9, 0, 0).unwrap()
    }

    pub(crate) struct World {
        pub _dir: tempfile::TempDir,
        pub store: Store,
        pub question: ContinuityEntry,
        pub decision: ContinuityEntry,
        pub entity: String,
    }

    pub(crate) fn world() -> World {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let config = store.config().unwrap();
        let entity = store
            .graph()
            .create_entity(
                &NewEntity {
                    kind: "document".into(),
                    canonical_name: "Christensen report".into(),
                    aliases: Vec::new(),
                    deadline: Some("2026-12-15".into()),
                },
                t0(),
            )
            .unwrap()
            .entity_id;
        let wc = WorkContextId::new("henderson").unwrap();
        let entry = |session: &str, content| {
            let mut e = ContinuityEntry::new(
                wc.clone(),
                SessionId::new(session).unwrap(),
                t0(),
                CaptureMode::LlmEnriched,
                content,
                &config,
            );
            e.linked_entity_ids = vec![entity.clone()];
            store.log(&wc).append(&e).unwrap();
            e
        };
        let question = entry(
            "s1",
            EntryContent::OpenQuestion(OpenQuestionContent {
                question: "When does Christensen deliver the event study data?".into(),
                context: String::new(),
                resolved: false,
                resolved_at: None,
                resolution_summary: None,
            }),
        );
        let decision = entry(
            "s1",
            EntryContent::KeyDecision(KeyDecisionContent {
                decision: "Lead with price impact, not corrective disclosure.".into(),
                rationale: None,
                superseded_by: None,
            }),
        );
        World {
            _dir: dir,
            store,
            question,
            decision,
            entity: entity.to_string(),
        }
    }

    pub(crate) fn reference(w: &World, session: &str, at: DateTime<Utc>) {
        w.store
            .graph()
            .with_conn(|c| {
                c.execute(
                    "INSERT INTO entry_references VALUES (?1, 'henderson', ?2, ?3)",
                    params![w.decision.entry_id.as_str(), session, ts(at)],
                )
            })
            .unwrap();
    }
}
