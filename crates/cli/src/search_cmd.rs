//! `elnor query` and `elnor reindex`: search everything said and written, and rebuild the index.

use std::process::ExitCode;

use clap::Args;
use elnor_engine::{DocKind, Harness, SearchRequest, Store, Strategy, WorkContextId};

use crate::output;

#[derive(Debug, Args)]
pub struct QueryArgs {
    /// What to look for, in your own words.
    text: String,
    /// lexical_only, embedding_augmented or hybrid (the default). Without an embedder the
    /// result says it fell back to lexical_only.
    #[arg(long, default_value = "hybrid")]
    strategy: String,
    /// Only this work context's entries.
    #[arg(long = "context", value_name = "WC")]
    context: Option<String>,
    /// turn, entry, summary, document, observation or node (repeatable).
    #[arg(long = "kind")]
    kinds: Vec<String>,
    /// openclaw, claude_code or codex.
    #[arg(long)]
    harness: Option<String>,
    /// Only documents, observations and nodes mentioning this entity (its id; repeatable).
    #[arg(long = "entity", value_name = "ENTITY_ID")]
    entities: Vec<String>,
    /// Only work from the last N hours; 0 for all time.
    #[arg(long, default_value_t = 720)]
    hours: u32,
    /// At most N results (capped at 20).
    #[arg(long = "max-results", default_value_t = 5)]
    max_results: usize,
    /// Search as an agent for this session (a hook's or an agent's call): its rate limits apply
    /// and it reads only what its permission allows.
    #[arg(long = "as-session", value_name = "SESSION")]
    as_session: Option<String>,
    /// For --as-session: current_only, lineage (the default) or all (needs `elnor query-grant`).
    #[arg(long)]
    permission: Option<String>,
    /// Ask the synthesis model for a short answer over the hits, citing them; a citation of
    /// anything it was not given is dropped and reported.
    #[arg(long)]
    synthesis: bool,
}

#[derive(Debug, Args)]
pub struct GrantArgs {
    /// The agent session allowed to search every work context.
    session: String,
    /// Withdraw the grant instead.
    #[arg(long)]
    revoke: bool,
}

pub fn query(store: &Store, args: &QueryArgs, json: bool) -> anyhow::Result<ExitCode> {
    let Some(strategy) = Strategy::parse(&args.strategy) else {
        crate::usage!(
            "unknown strategy {:?}: use lexical_only, embedding_augmented or hybrid",
            args.strategy
        );
    };
    let mut kinds = Vec::new();
    for k in &args.kinds {
        match DocKind::parse(k) {
            Some(kind) => kinds.push(kind),
            None => crate::usage!(
                "unknown kind {k:?}: use turn, entry, summary, document, observation or node"
            ),
        }
    }
    let harness = match args.harness.as_deref() {
        Some(name) => match Harness::parse(name) {
            Some(h) => Some(h),
            None => crate::usage!("unknown harness {name:?}: use openclaw, claude_code or codex"),
        },
        None => None,
    };
    let mut req = SearchRequest::new(args.text.clone(), elnor_engine::now());
    req.strategy = strategy;
    req.work_context = args.context.clone().map(WorkContextId::new).transpose()?;
    req.kinds = kinds;
    req.harness = harness;
    req.entities = args
        .entities
        .iter()
        .map(|e| elnor_engine::EntityId::new(e.as_str()))
        .collect::<Result<_, _>>()?;
    req.hours = args.hours;
    req.max_results = args.max_results;
    if let Some(session) = &args.as_session {
        req.caller = elnor_engine::Caller::Agent {
            session: elnor_engine::SessionId::new(session.as_str())?,
        };
    }
    req.permission = match args.permission.as_deref() {
        Some(name) => match elnor_engine::Permission::parse(name) {
            Some(p) => Some(p),
            None => crate::usage!("unknown permission {name:?}: use current_only, lineage or all"),
        },
        None => None,
    };
    req.synthesis = args.synthesis;
    let result = elnor_engine::search(store, &req, &elnor_engine::OsKeyring::new())?;
    if json {
        output::json(&result)?;
        return Ok(ExitCode::SUCCESS);
    }
    println!("Search result: verify before acting (low trust).");
    if let Some(reason) = &result.fallback_reason {
        println!("note: {reason}");
    }
    if let Some(embedded) = result.embedded.filter(|e| *e < result.documents) {
        println!(
            "note: embeddings cover {embedded} of {} documents so far (`elnor embed`)",
            result.documents
        );
    }
    if let Some(s) = &result.synthesis {
        println!("\nanswer (model, low trust): {}", s.answer);
        for c in &s.citations {
            println!("  cites {}: {:?}", c.doc_id, c.snippet);
        }
        if !s.dropped.is_empty() {
            println!(
                "  dropped citations of results it was not given: {}",
                s.dropped.join(", ")
            );
        }
        if s.withheld > 0 {
            println!(
                "  {} result(s) from local-only work contexts were not sent to the model",
                s.withheld
            );
        }
    }
    if let Some(why) = &result.synthesis_fallback {
        println!("note: no answer from the model: {why}");
    }
    if result.hits.is_empty() {
        println!(
            "nothing found in {} document(s){}",
            result.documents,
            if args.hours > 0 {
                format!(
                    " from the last {} hour(s); --hours 0 searches all time",
                    args.hours
                )
            } else {
                String::new()
            }
        );
    }
    for (i, h) in result.hits.iter().enumerate() {
        let at =
            h.at.map(|t| t.format("%Y-%m-%d %H:%M").to_string())
                .unwrap_or_else(|| "-".into());
        let place = match h.kind {
            DocKind::Turn => format!(
                "{} {} session {} record {}",
                h.harness.as_deref().unwrap_or("?"),
                h.role.as_deref().unwrap_or("?"),
                h.session_id.as_deref().unwrap_or("?"),
                h.record.as_deref().unwrap_or("-")
            ),
            DocKind::Entry => format!(
                "{} {} in {}",
                h.entry_type.as_deref().unwrap_or("entry"),
                h.entry_id.as_deref().unwrap_or("?"),
                h.work_context_id.as_deref().unwrap_or("?")
            ),
            DocKind::Summary => format!(
                "summary of session {}",
                h.session_id.as_deref().unwrap_or("?")
            ),
            DocKind::Document => format!(
                "document {:?} {}",
                h.title.as_deref().unwrap_or(""),
                h.path.as_deref().unwrap_or("?")
            ),
            DocKind::Observation => format!(
                "observation {} {}",
                h.observation_id.map(|i| i.to_string()).unwrap_or_default(),
                h.path.as_deref().unwrap_or("(push)")
            ),
            DocKind::Node => format!(
                "{} {}",
                h.node_kind.as_deref().unwrap_or("node"),
                h.node_id.as_deref().unwrap_or("?")
            ),
        };
        println!("\n{}. {at}  {place}", i + 1);
        println!("   {}", h.excerpt.replace('\n', " "));
        println!("   why: {}", why_line(&h.why));
    }
    Ok(ExitCode::SUCCESS)
}

/// The reasons a hit ranked where it did, in one line.
fn why_line(why: &elnor_engine::Why) -> String {
    let mut parts = Vec::new();
    if let (Some(rank), Some(score)) = (why.lexical_rank, why.lexical_score) {
        parts.push(format!("lexical rank {rank} (score {score:.2})"));
    }
    if let (Some(rank), Some(similarity)) = (why.vector_rank, why.similarity) {
        parts.push(format!("meaning rank {rank} (similarity {similarity:.2})"));
    }
    parts.extend(why.weighing());
    if !why.fields.is_empty() {
        parts.push(format!("matched {}", why.fields.join(", ")));
    }
    parts.push(
        why.age_days
            .map(|d| format!("{d} day(s) ago"))
            .unwrap_or_else(|| "time unknown".into()),
    );
    parts.join(", ")
}

pub fn reindex(store: &Store, json: bool) -> anyhow::Result<ExitCode> {
    let report = elnor_engine::reindex(store)?;
    if json {
        output::json(&report)?;
    } else {
        println!(
            "indexed {} document(s): {} turn(s), {} entr(y/ies), {} summar(y/ies)",
            report.documents, report.turns, report.entries, report.summaries
        );
    }
    Ok(ExitCode::SUCCESS)
}

#[derive(Debug, Args)]
pub struct EmbedArgs {
    /// Only say how far the embeddings reach.
    #[arg(long)]
    status: bool,
    /// Embed at most N documents this run (the rest on the next).
    #[arg(long)]
    limit: Option<usize>,
    /// Fetch the built-in model's files first (from its usual home, or $ELNOR_MODEL_BASE_URL),
    /// each checked against its pinned SHA-256.
    #[arg(long)]
    download: bool,
}

pub fn embed(store: &Store, args: &EmbedArgs, json: bool) -> anyhow::Result<ExitCode> {
    if args.download {
        let never = std::sync::atomic::AtomicBool::new(false);
        let got = elnor_engine::download_embedding_model(
            &mut |p| {
                if !json {
                    let total = p.total.map(|t| format!(" of {t}")).unwrap_or_default();
                    eprint!("\r{}: {} bytes{total}   ", p.file, p.bytes);
                }
            },
            &never,
        )?;
        if !json {
            eprintln!();
            println!(
                "model in {} ({} file(s) fetched, {} bytes, checksums verified)",
                got.dir.display(),
                got.fetched.len(),
                got.bytes
            );
        }
    }
    let report = if args.status {
        elnor_engine::embed_status(store)?
    } else {
        // Stopping the command (Ctrl+C) is the CLI's cancel: every finished batch is kept.
        let never = std::sync::atomic::AtomicBool::new(false);
        let progress = &mut |r: &elnor_engine::EmbedReport| {
            if !json {
                eprint!("\rembedded {} of {} documents", r.covered, r.documents);
            }
        };
        let run = elnor_engine::embed(
            store,
            &elnor_engine::OsKeyring::new(),
            args.limit,
            progress,
            &never,
        );
        if run.is_err() && !json {
            // The progress line is ended, so the error starts a line of its own.
            eprintln!();
        }
        run?
    };
    if json {
        output::json(&report)?;
    } else {
        if !args.status {
            // The progress line above is ended before the summary.
            eprintln!();
        }
        println!(
            "{} embeddings cover {} of {} documents{}",
            report.embedder,
            report.covered,
            report.documents,
            if args.status {
                String::new()
            } else {
                format!(" ({} embedded now)", report.embedded)
            }
        );
        if report.kept_local > 0 {
            println!(
                "{} document(s) of local-only work contexts were not sent to the embedder, which \
                 is not on this machine; searches find them by their words",
                report.kept_local
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `elnor query-grant SESSION [--revoke]`: lets an agent session search every work context.
pub fn grant(store: &Store, args: &GrantArgs, json: bool) -> anyhow::Result<ExitCode> {
    let session = elnor_engine::SessionId::new(args.session.as_str())?;
    let holds = elnor_engine::grant_search_all(store, &session, args.revoke, elnor_engine::now())?;
    if json {
        output::json(&serde_json::json!({ "session_id": session, "all": holds }))?;
    } else if holds {
        println!("session {session} may now search every work context (permission `all`)");
    } else {
        println!("session {session} searches only its lineage again");
    }
    Ok(ExitCode::SUCCESS)
}
