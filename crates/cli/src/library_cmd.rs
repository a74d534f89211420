//! `elnor library`: the person's documents by collection and folder, and one document with who
//! refers to it (concept model §8). A collection is a tracked folder; `elnor library add` tracks
//! one and records its files at once.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::Subcommand;
use elnor_engine::{LibraryQuery, Store};

use crate::output;

#[derive(Debug, Subcommand)]
pub enum LibraryCommand {
    /// The collections (tracked folders) and how many documents each holds.
    Collections,
    /// Add a folder as a collection: it is tracked, and its documents are listed and searchable
    /// at once.
    Add { path: PathBuf },
    /// The documents, of one collection or folder.
    List {
        /// Only this collection (its folder).
        #[arg(long)]
        collection: Option<PathBuf>,
        /// Only under this folder, relative to its collection (`notes/2026`).
        #[arg(long)]
        folder: Option<String>,
    },
    /// One document: its outline, and the sessions, entries, nodes, observations and entities
    /// that refer to it. `--html` prints the rendered page instead.
    Show {
        path: PathBuf,
        #[arg(long)]
        html: bool,
    },
}

pub fn library(store: &Store, cmd: &LibraryCommand, json: bool) -> anyhow::Result<ExitCode> {
    match cmd {
        LibraryCommand::Collections => {
            let collections = elnor_engine::library_collections(store)?;
            if json {
                output::json(&collections)?;
            } else if collections.is_empty() {
                println!("the Library is empty; add a folder with `elnor library add DIR`");
            }
            for c in collections.iter().filter(|_| !json) {
                let missing = if c.present { "" } else { "  (missing on disk)" };
                println!(
                    "{}  {} document(s)  {}{missing}",
                    c.name,
                    c.documents,
                    c.folder.display()
                );
            }
        }
        LibraryCommand::Add { path } => {
            let path = std::path::absolute(path)
                .with_context(|| format!("cannot resolve {}", path.display()))?;
            let c = elnor_engine::add_library_collection(store, &path, elnor_engine::now())?;
            if json {
                output::json(&c)?;
            } else {
                println!(
                    "added {} ({} document(s)); the watcher follows its changes",
                    c.folder.display(),
                    c.documents
                );
            }
        }
        LibraryCommand::List { collection, folder } => {
            let query = LibraryQuery {
                collection: collection.clone(),
                folder: folder.clone(),
            };
            let docs = elnor_engine::library_documents(store, &query)?;
            if json {
                output::json(&docs)?;
                return Ok(ExitCode::SUCCESS);
            }
            if docs.is_empty() {
                println!("no documents");
            }
            for d in &docs {
                let at = d
                    .modified_at
                    .map(|t| t.format("%Y-%m-%d").to_string())
                    .unwrap_or_default();
                println!("{at}  {}  {:?}", d.path.display(), d.title);
            }
        }
        LibraryCommand::Show { path, html } => {
            let path = std::path::absolute(path)
                .with_context(|| format!("cannot resolve {}", path.display()))?;
            let doc = elnor_engine::library_document(store, &path)?;
            if json {
                output::json(&doc)?;
                return Ok(ExitCode::SUCCESS);
            }
            if *html {
                println!("{}", doc.html);
                return Ok(ExitCode::SUCCESS);
            }
            let r = &doc.references;
            println!("{}  {}", doc.row.title, doc.row.path.display());
            for (k, v) in &doc.frontmatter {
                println!("  {k}: {v}");
            }
            for h in &doc.headings {
                println!("  # {h}");
            }
            println!(
                "\nreferred to by {} session(s), {} entr(ies) or node(s), {} observation(s); \
                 mentions {} entit(ies)  (a turn counts when it names {:?})",
                r.sessions.len(),
                r.entries.len(),
                r.observations.len(),
                r.entities.len(),
                r.matched_by
            );
            for s in &r.sessions {
                let at = s
                    .last_at
                    .map(|t| t.format("%Y-%m-%d %H:%M").to_string())
                    .unwrap_or_default();
                println!(
                    "  session {} ({}) {} turn(s), last {at}",
                    s.session_id,
                    s.harness.as_deref().unwrap_or("?"),
                    s.turns
                );
            }
            for e in &r.entries {
                let id = e
                    .entry_id
                    .as_deref()
                    .or(e.node_id.as_deref())
                    .unwrap_or("?");
                println!(
                    "  {} {id}: {}",
                    e.kind.as_str(),
                    e.excerpt.replace('\n', " ")
                );
            }
            for o in &r.observations {
                println!(
                    "  observation {} {} {}",
                    o.observation_id,
                    o.kind,
                    o.at.format("%Y-%m-%d %H:%M")
                );
            }
            for e in &r.entities {
                println!("  entity {} {}", e.entity_id, e.name);
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
