//! Who may search what (CSA §7.6), decided before a query runs. The person's own searches (the
//! CLI, the app) read every work context and are never counted. An agent's search names the
//! session it runs for, and then:
//! - it is refused when the person turned agents' cross-conversation search off;
//! - it counts against the per-session per-minute and the per-day limits (`0` = unlimited);
//! - it reads only its permission's work contexts: `current_only`, the session's own context
//!   (where capture placed it, or, before its first capture, the one its start-of-session brief
//!   was delivered for);
//!   `lineage` (the default), that context and every context sharing an entity with it, the
//!   relation cross-conversation updates already travel along, until work contexts carry a
//!   lineage of their own; `all`, every context, only for a session the person granted it.
//!
//! A turn or a summary is in a context through its session (the graph's placement now, not when
//! it was indexed), so the scope lists both the contexts and their sessions.

use chrono::{DateTime, Duration, Utc};
use rusqlite::{OptionalExtension, params};

use crate::base::error::{Error, Result};
use crate::base::ids::SessionId;
use crate::graph::entities::ts;
use crate::graph::store::Store;
use crate::views::search::{Caller, Permission, Scope, SearchRequest};

/// Checks the caller's access, records an agent's search for its limits, and sets the request's
/// scope. Fails with [`Error::Refused`] when the search may not run.
pub(crate) fn admit(store: &Store, req: &mut SearchRequest) -> Result<()> {
    // Words first: a search refused for having none is not counted against an agent's limits.
    if req.query.trim().is_empty() {
        return Err(Error::InvalidInput("a search needs some words".into()));
    }
    // A filter naming a context that does not exist is a mistake to say, not an empty answer;
    // like a search without words, it is not counted against an agent's limits.
    if let Some(wc) = req.work_context.as_ref().filter(|wc| !wc.is_unlinked()) {
        store.graph().work_context(wc.as_str())?;
    }
    let contexts: Option<Vec<String>> = match &req.caller {
        Caller::Person => match req.permission {
            // The person may narrow their own search like an agent's, for a preview of what an
            // agent would see; by default they see everything.
            Some(Permission::CurrentOnly | Permission::Lineage) => {
                return Err(Error::InvalidInput(
                    "current_only and lineage are relative to an agent session: name the session \
                     the search runs for"
                        .into(),
                ));
            }
            _ => None,
        },
        Caller::Agent { session } => {
            let config = store.config()?;
            if !config.cross_surface_query_enabled {
                return Err(Error::Refused {
                    reason: "agents' cross-conversation search is turned off \
                             (cross_surface_query_enabled = false)"
                        .into(),
                });
            }
            let permission = req.permission.unwrap_or(Permission::Lineage);
            let allowed = match permission {
                Permission::All => {
                    if !granted(store, session)? {
                        return Err(Error::Refused {
                            reason: format!(
                                "permission `all` needs the person's grant for session {session} \
                                 (`elnor query-grant {session}`); `lineage` needs none"
                            ),
                        });
                    }
                    None
                }
                Permission::CurrentOnly | Permission::Lineage => {
                    Some(contexts_for(store, session, permission)?)
                }
            };
            count(store, session, &config, req.now)?;
            allowed
        }
    };
    let contexts = match (contexts, &req.work_context) {
        (None, None) => return Ok(()),
        (None, Some(wc)) => vec![wc.to_string()],
        (Some(allowed), None) => allowed,
        (Some(allowed), Some(wc)) => allowed.into_iter().filter(|c| c == wc.as_str()).collect(),
    };
    let sessions = sessions_in(store, &contexts)?;
    req.scope = Some(Scope { contexts, sessions });
    Ok(())
}

/// The session an agent in the folder `cwd` most likely is, when it cannot name its own (an MCP
/// server is started in the agent's folder, but harnesses do not tell it the session id): the
/// newest of the sessions whose start-of-session brief was delivered for that folder (a live
/// session, known through its hook before any ingest) and the primary sessions recorded there.
/// `None` when no session ran there.
pub fn session_in_folder(store: &Store, cwd: &str) -> Result<Option<SessionId>> {
    let cwd = cwd.trim_end_matches('/');
    if cwd.is_empty() {
        return Ok(None);
    }
    store.graph().with_conn_result(|c| {
        c.query_row(
            "SELECT session_id FROM (
                 SELECT session_id, last_turn_at AS at FROM transcript_sessions
                  WHERE cwd = ?1 AND session_kind = 'primary' AND last_turn_at IS NOT NULL
                 UNION ALL
                 SELECT session_id, created_at AS at FROM brief_assemblies
                  WHERE delivery = 'delivered' AND session_id IS NOT NULL
                    AND json_extract(request, '$.cwd') = ?1)
              ORDER BY julianday(at) DESC LIMIT 1",
            [cwd],
            |r| r.get(0),
        )
        .optional()
    })
}

/// The work contexts a permission lets a session's search read.
fn contexts_for(store: &Store, session: &SessionId, permission: Permission) -> Result<Vec<String>> {
    store.graph().with_conn_result(|c| {
        let own: Option<String> = c
            .query_row(
                "SELECT work_context_id FROM transcript_sessions WHERE session_id = ?1",
                [session],
                |r| r.get(0),
            )
            .optional()?
            .flatten();
        // A session that has not been captured yet (it is live, or not even ingested) is in
        // the work context its start-of-session brief was delivered for: the hook resolved its
        // folder then, so an agent early in its session searches its own project, not nothing.
        let own = match own {
            Some(own) => Some(own),
            None => c
                .query_row(
                    "SELECT work_context_id FROM brief_assemblies
                      WHERE session_id = ?1 AND delivery = 'delivered'
                        AND work_context_id IS NOT NULL
                      ORDER BY assembly_id DESC LIMIT 1",
                    [session],
                    |r| r.get(0),
                )
                .optional()?,
        };
        let Some(own) = own else {
            return Ok(Vec::new());
        };
        if permission == Permission::CurrentOnly {
            return Ok(vec![own]);
        }
        let mut stmt = c.prepare(
            "SELECT DISTINCT other.work_context_id FROM work_context_entities mine
               JOIN work_context_entities other ON other.entity_id = mine.entity_id
              WHERE mine.work_context_id = ?1 AND other.work_context_id != ?1
              ORDER BY 1",
        )?;
        let mut contexts = vec![own.clone()];
        contexts.extend(stmt.query_map([&own], |r| r.get::<_, String>(0))?.flatten());
        Ok(contexts)
    })
}

fn sessions_in(store: &Store, contexts: &[String]) -> Result<Vec<String>> {
    store.graph().with_conn_result(|c| {
        let mut stmt = c.prepare_cached(
            "SELECT session_id FROM transcript_sessions WHERE work_context_id = ?1",
        )?;
        let mut sessions = Vec::new();
        for wc in contexts {
            sessions.extend(stmt.query_map([wc], |r| r.get::<_, String>(0))?.flatten());
        }
        Ok(sessions)
    })
}

fn granted(store: &Store, session: &SessionId) -> Result<bool> {
    store.graph().with_conn_result(|c| {
        c.query_row(
            "SELECT EXISTS (SELECT 1 FROM search_grants WHERE session_id = ?1)",
            [session],
            |r| r.get(0),
        )
    })
}

/// Counts an agent's search against its limits, or refuses it. A refused search is not counted.
fn count(
    store: &Store,
    session: &SessionId,
    config: &crate::base::config::ContinuityConfig,
    now: DateTime<Utc>,
) -> Result<()> {
    let minute_ago = ts(now - Duration::minutes(1));
    let day_ago = ts(now - Duration::days(1));
    let (per_minute, per_day) = (config.query_rate_per_minute, config.query_rate_per_day);
    let refusal = store.graph().with_conn_result(|c| {
        c.execute("DELETE FROM search_calls WHERE at <= ?1", [&day_ago])?;
        let in_minute: u32 = c.query_row(
            "SELECT count(*) FROM search_calls WHERE session_id = ?1 AND at > ?2",
            params![session, minute_ago],
            |r| r.get(0),
        )?;
        let in_day: u32 = c.query_row(
            "SELECT count(*) FROM search_calls WHERE at > ?1",
            [&day_ago],
            |r| r.get(0),
        )?;
        if per_minute > 0 && in_minute >= per_minute {
            return Ok(Some(format!(
                "session {session} ran {in_minute} searches in the last minute, the limit \
                 (query_rate_per_minute = {per_minute}); try again in a minute"
            )));
        }
        if per_day > 0 && in_day >= per_day {
            return Ok(Some(format!(
                "agents ran {in_day} searches in the last day, the limit \
                 (query_rate_per_day = {per_day})"
            )));
        }
        c.execute(
            "INSERT INTO search_calls (session_id, at) VALUES (?1, ?2)",
            params![session, ts(now)],
        )?;
        Ok(None)
    })?;
    match refusal {
        Some(reason) => Err(Error::Refused { reason }),
        None => Ok(()),
    }
}

/// Grants (or with `revoke`, withdraws) a session's searches permission `all`
/// (`elnor query-grant`). Returns whether the session holds the grant afterwards.
pub fn grant_search_all(
    store: &Store,
    session: &SessionId,
    revoke: bool,
    now: DateTime<Utc>,
) -> Result<bool> {
    store.graph().with_conn_result(|c| {
        if revoke {
            c.execute("DELETE FROM search_grants WHERE session_id = ?1", [session])?;
        } else {
            c.execute(
                "INSERT INTO search_grants (session_id, granted_at) VALUES (?1, ?2)
                 ON CONFLICT (session_id) DO NOTHING",
                params![session, ts(now)],
            )?;
        }
        Ok(!revoke)
    })
}

#[cfg(test)]
mod tests;
