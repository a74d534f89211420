//! What the app's Heads page reads in one call: the head of one scope as [`show`](super::show)
//! answers it, the text of each edit kept from its blocks, and the list of thread heads (one per
//! work context with a log, its name and its size) that the page's scope switcher offers.
//!
//! Nothing here decides what goes into a head: every head is built by `build`, as a refresh
//! would build it at the same moment, so the sizes the switcher shows are the sizes a refresh
//! writes.

use std::fs;

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::base::error::{Error, Result};
use crate::base::ids::WorkContextId;
use crate::graph::store::Store;

use super::{DeferredWrite, EditProposal, Head, HeadScope};

/// A person's edit kept from a head's block, with their text: what a reader needs to decide
/// whether to keep it or replace it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct KeptEdit {
    pub proposal: EditProposal,
    /// The body they left in the block, read from the proposal's file; bytes that are not UTF-8
    /// are shown as replacement characters (the file itself keeps them).
    pub text: String,
}

impl KeptEdit {
    /// Reads the person's body of `proposal` from its file under `heads/proposals/`.
    pub fn read(proposal: EditProposal) -> Result<KeptEdit> {
        let bytes = fs::read(&proposal.body_path).map_err(|e| Error::io(&proposal.body_path, e))?;
        Ok(KeptEdit {
            text: String::from_utf8_lossy(&bytes).into_owned(),
            proposal,
        })
    }
}

/// One work context's thread head, as the scope switcher lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ThreadHeadSummary {
    pub work_context_id: WorkContextId,
    /// The context's name (its id when the graph has no row for it).
    pub name: String,
    /// The thread head's cl100k tokens and its cap.
    pub tokens: u32,
    pub cap: u32,
}

/// One scope's head with what waits around it, and every thread head's summary.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Overview {
    pub head: Head,
    /// The edits kept from this scope's blocks, oldest first.
    pub kept: Vec<KeptEdit>,
    /// This scope's writes waiting for a lease.
    pub deferred: Vec<DeferredWrite>,
    /// One per work context with a log (the unlinked bucket has none), by name then id.
    pub threads: Vec<ThreadHeadSummary>,
}

/// The head of `scope` at `now` with its kept edits' text and deferred writes, and a summary of
/// every thread head, each built as a refresh at `now` would build it.
pub fn overview(store: &Store, scope: &HeadScope, now: DateTime<Utc>) -> Result<Overview> {
    let view = super::show(store, scope, now)?;
    let kept = view
        .proposals
        .into_iter()
        .map(KeptEdit::read)
        .collect::<Result<Vec<_>>>()?;
    let mut threads = Vec::new();
    for wc in store.log_ids()? {
        if wc.is_unlinked() {
            continue;
        }
        let head = match scope {
            // The head already built for the page is not built twice.
            HeadScope::Thread(shown) if *shown == wc => view.head.clone(),
            _ => super::build::head(store, &HeadScope::Thread(wc.clone()), now)?,
        };
        threads.push(ThreadHeadSummary {
            name: name(store, &wc)?,
            work_context_id: wc,
            tokens: head.tokens,
            cap: head.cap,
        });
    }
    threads.sort_by(|a, b| {
        (a.name.to_lowercase(), &a.work_context_id)
            .cmp(&(b.name.to_lowercase(), &b.work_context_id))
    });
    Ok(Overview {
        head: view.head,
        kept,
        deferred: view.deferred,
        threads,
    })
}

fn name(store: &Store, wc: &WorkContextId) -> Result<String> {
    let (name, _) = store
        .graph()
        .with_conn_result(|c| crate::graph::contexts::name_and_local_only_in(c, wc))?;
    Ok(name)
}
