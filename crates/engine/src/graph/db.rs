//! The canonical entity graph, `entity_graph.sqlite`: schema from the workspace's `migrations/`
//! folder (embedded at build time and applied by `rusqlite_migration`), WAL journaling and a busy
//! timeout so the app, the CLI and the MCP server can share it.
//!
//! This is truth, not a derived view: nothing here is ever rebuilt from elsewhere, so a store made
//! by a newer schema is refused rather than touched.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use include_dir::{Dir, include_dir};
use rusqlite::{Connection, TransactionBehavior};
use rusqlite_migration::{MigrationDefinitionError, Migrations};

use crate::base::error::{Error, Result};

static MIGRATIONS_DIR: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/../../migrations");

/// How long a writer waits for another process's lock before giving up.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// The embedded migrations, in order.
pub fn migrations() -> Result<Migrations<'static>> {
    Migrations::from_directory(&MIGRATIONS_DIR).map_err(|e| Error::Schema {
        path: PathBuf::from("migrations/"),
        problem: format!("embedded migrations are invalid: {e}"),
    })
}

/// The schema version this build creates and understands.
pub fn latest_schema_version() -> u32 {
    MIGRATIONS_DIR.dirs().count().try_into().unwrap_or(u32::MAX)
}

/// An open graph database.
///
/// Its connections begin every transaction IMMEDIATE, taking the write lock (waiting up to
/// [`BUSY_TIMEOUT`] for it) before the first read. A deferred transaction that reads and then
/// writes cannot wait: once another process has committed since its read, SQLite refuses the
/// upgrade at once as "database is locked", which is what a watcher, an MCP server and the app
/// writing together met. A transaction that only reads says `Deferred` explicitly.
pub struct Graph {
    path: PathBuf,
    conn: Mutex<Connection>,
    /// The known-name automaton last built (`entities/names.rs`), kept across calls.
    pub(super) names: Versioned<crate::graph::entities::KnownNames>,
    /// The link rules last read (`contexts/rules.rs`), kept across calls.
    pub(super) rules: Versioned<crate::graph::contexts::LinkRules>,
}

/// Something the graph derives from its rows and keeps across calls while a version counter,
/// which the schema's triggers bump on every change to those rows by any process, stands
/// still: the known names (`entity_names_version`) and the link rules (`link_rules_version`).
pub(crate) struct Versioned<T> {
    /// The query reading the counter.
    counter: &'static str,
    last: Mutex<Option<(i64, Arc<T>)>>,
}

impl<T> Versioned<T> {
    fn new(counter: &'static str) -> Versioned<T> {
        Versioned {
            counter,
            last: Mutex::new(None),
        }
    }

    fn last(&self) -> MutexGuard<'_, Option<(i64, Arc<T>)>> {
        // What it holds is whole or absent, so a poisoned lock is safe to keep using.
        self.last.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl std::fmt::Debug for Graph {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Graph").field("path", &self.path).finish()
    }
}

impl Graph {
    /// Opens (creating if needed) and migrates the graph at `path`.
    pub fn open(path: &Path) -> Result<Graph> {
        let sql = |source| Error::Sqlite {
            path: path.to_owned(),
            source,
        };
        let mut conn = Connection::open(path).map_err(sql)?;
        conn.busy_timeout(BUSY_TIMEOUT).map_err(sql)?;
        // WAL lets readers proceed while one writer commits; FULL sync keeps every committed
        // transaction of the canonical graph across power loss, at a cost a desktop never feels.
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(sql)?;
        conn.pragma_update(None, "synchronous", "FULL")
            .map_err(sql)?;
        conn.pragma_update(None, "foreign_keys", "ON")
            .map_err(sql)?;
        migrations()?.to_latest(&mut conn).map_err(|e| match e {
            rusqlite_migration::Error::MigrationDefinition(
                MigrationDefinitionError::DatabaseTooFarAhead,
            ) => Error::Schema {
                path: path.to_owned(),
                problem: format!(
                    "made by a newer version of elnor (this one knows schema versions up to {}); \
                     it was left untouched",
                    latest_schema_version()
                ),
            },
            other => Error::Schema {
                path: path.to_owned(),
                problem: format!("migration failed: {other}"),
            },
        })?;
        conn.set_transaction_behavior(TransactionBehavior::Immediate);
        Ok(Graph {
            path: path.to_owned(),
            conn: Mutex::new(conn),
            names: Versioned::new("SELECT version FROM entity_names_version WHERE id = 1"),
            rules: Versioned::new("SELECT version FROM link_rules_version WHERE id = 1"),
        })
    }

    /// The database file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A second connection to the same database, for long work (ingest) that must not hold the
    /// shared connection's lock while the app keeps answering.
    pub(crate) fn open_connection(&self) -> Result<Connection> {
        let sql = |source| Error::Sqlite {
            path: self.path.clone(),
            source,
        };
        let mut conn = Connection::open(&self.path).map_err(sql)?;
        conn.busy_timeout(BUSY_TIMEOUT).map_err(sql)?;
        conn.pragma_update(None, "synchronous", "FULL")
            .map_err(sql)?;
        conn.pragma_update(None, "foreign_keys", "ON")
            .map_err(sql)?;
        conn.set_transaction_behavior(TransactionBehavior::Immediate);
        Ok(conn)
    }

    pub(crate) fn conn(&self) -> MutexGuard<'_, Connection> {
        // A panic while holding the lock cannot leave SQLite inconsistent (it has its own
        // transactions), so a poisoned lock is safe to keep using.
        self.conn.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// `cache`'s value as the graph is now: the kept one while its counter has not moved, else
    /// `read` in one read transaction with the counter (so the value kept is exactly that of the
    /// version it is kept under), then `build` without holding the connection, which others may
    /// need meanwhile. The connection is always locked before the cache, never the other way.
    pub(crate) fn versioned<R, T>(
        &self,
        cache: &Versioned<T>,
        read: impl FnOnce(&Connection) -> rusqlite::Result<R>,
        build: impl FnOnce(R) -> T,
    ) -> Result<Arc<T>> {
        let version = |c: &Connection| c.query_row(cache.counter, [], |r| r.get::<_, i64>(0));
        let (at, raw) = {
            let mut conn = self.conn();
            let now = version(&conn).map_err(|e| self.sql(e))?;
            if let Some((at, kept)) = cache.last().as_ref()
                && *at == now
            {
                return Ok(kept.clone());
            }
            let tx = conn
                .transaction_with_behavior(TransactionBehavior::Deferred)
                .map_err(|e| self.sql(e))?;
            let at = version(&tx).map_err(|e| self.sql(e))?;
            let raw = read(&tx).map_err(|e| self.sql(e))?;
            tx.commit().map_err(|e| self.sql(e))?;
            (at, raw)
        };
        let value = Arc::new(build(raw));
        *cache.last() = Some((at, value.clone()));
        Ok(value)
    }

    pub(crate) fn sql(&self, source: rusqlite::Error) -> Error {
        Error::Sqlite {
            path: self.path.clone(),
            source,
        }
    }

    /// The schema version recorded in the database (`PRAGMA user_version`).
    pub fn schema_version(&self) -> Result<u32> {
        self.conn()
            .pragma_query_value(None, "user_version", |row| row.get(0))
            .map_err(|e| self.sql(e))
    }

    /// The number of entities.
    pub fn entity_count(&self) -> Result<u64> {
        self.count("SELECT count(*) FROM entities")
    }

    /// The ids of every named work context.
    pub fn work_context_ids(&self) -> Result<Vec<String>> {
        let conn = self.conn();
        let mut stmt = conn
            .prepare("SELECT work_context_id FROM work_contexts ORDER BY work_context_id")
            .map_err(|e| self.sql(e))?;
        let rows = stmt
            .query_map([], |row| row.get(0))
            .map_err(|e| self.sql(e))?;
        rows.collect::<rusqlite::Result<Vec<String>>>()
            .map_err(|e| self.sql(e))
    }

    pub(crate) fn count(&self, query: &str) -> Result<u64> {
        self.conn()
            .query_row(query, [], |row| row.get::<_, i64>(0))
            .map(|n| n.max(0) as u64)
            .map_err(|e| self.sql(e))
    }

    /// Runs `f` with the shared connection, mapping SQLite errors to the engine's error.
    pub(crate) fn with_conn_result<T>(
        &self,
        f: impl FnOnce(&Connection) -> rusqlite::Result<T>,
    ) -> Result<T> {
        f(&self.conn()).map_err(|e| self.sql(e))
    }

    /// Runs `f` with the connection, for tests that inspect the database directly.
    #[cfg(test)]
    pub(crate) fn with_conn<T>(
        &self,
        f: impl FnOnce(&Connection) -> rusqlite::Result<T>,
    ) -> Result<T> {
        f(&self.conn()).map_err(|e| self.sql(e))
    }
}

#[cfg(test)]
mod tests;

/// Bumps a work context's generation, so views built from its earlier state are seen as stale
/// (the constellation's fingerprint reads it). Writers call it in the transaction that changes
/// something a view depends on: the graph records what changed, the views layer decides what to
/// rebuild.
pub(crate) fn touch_in(conn: &Connection, wc: &str) -> rusqlite::Result<()> {
    conn.execute(
        "INSERT INTO constellation_generations (work_context_id, generation) VALUES (?1, 1)
         ON CONFLICT (work_context_id) DO UPDATE SET generation = generation + 1",
        [wc],
    )?;
    Ok(())
}

/// Bumps every work context linked to `entity`: its name or deadline shows in their views.
pub(crate) fn touch_entity_in(conn: &Connection, entity: &str) -> rusqlite::Result<()> {
    conn.execute(
        "INSERT INTO constellation_generations (work_context_id, generation)
             SELECT work_context_id, 1 FROM work_context_entities WHERE entity_id = ?1
         ON CONFLICT (work_context_id) DO UPDATE SET generation = generation + 1",
        [entity],
    )?;
    Ok(())
}
