//! Typed ids: newtypes over strings so a session id can never be passed where a work context id
//! is expected. Ids that become file names ([`WorkContextId`]) are validated so that a hostile id
//! can never name a path outside the store.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::base::error::{Error, Result};

/// The longest id accepted, matching the 120-character bound of CSA §4.1.
pub const MAX_ID_LEN: usize = 120;

macro_rules! string_id {
    ($(#[$meta:meta])* $name:ident, $what:literal) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(String);

        impl $name {
            /// Wraps `value` after checking it is non-empty, bounded and free of control characters.
            pub fn new(value: impl Into<String>) -> Result<Self> {
                let value = value.into();
                check_plain(&value, $what)?;
                Ok(Self(value))
            }

            /// The id as a string slice.
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        sql_id!($name);
    };
}

/// Lets an id be bound to and read from SQLite as its text, and read as `&str`. Reading checks the id as
/// [`new`](WorkContextId::new) does: a hand-edited database cannot smuggle a bad id (one that
/// would name a file outside the store, say) past the type.
macro_rules! sql_id {
    ($name:ident) => {
        // An id reads as the text it is wherever text is wanted (SQL parameters, hashing,
        // comparisons, `&str` arguments), but can only be made through `new`.
        impl std::ops::Deref for $name {
            type Target = str;
            fn deref(&self) -> &str {
                &self.0
            }
        }

        impl AsRef<str> for $name {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }

        impl PartialEq<str> for $name {
            fn eq(&self, other: &str) -> bool {
                self.0 == other
            }
        }

        impl PartialEq<&str> for $name {
            fn eq(&self, other: &&str) -> bool {
                self.0 == *other
            }
        }

        impl rusqlite::types::ToSql for $name {
            fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
                self.0.to_sql()
            }
        }

        impl rusqlite::types::FromSql for $name {
            fn column_result(
                value: rusqlite::types::ValueRef<'_>,
            ) -> rusqlite::types::FromSqlResult<Self> {
                let text = String::column_result(value)?;
                $name::new(text).map_err(|e| rusqlite::types::FromSqlError::Other(Box::new(e)))
            }
        }
    };
}

string_id!(
    /// A continuity log entry's id.
    EntryId,
    "entry id"
);
string_id!(
    /// A harness session id (OpenClaw, Claude Code, Codex or a manual push).
    SessionId,
    "session id"
);
string_id!(
    /// The agent that produced a session.
    AgentId,
    "agent id"
);
string_id!(
    /// A graph entity's id.
    EntityId,
    "entity id"
);
string_id!(
    /// A Topic's id (`tp_…`).
    TopicId,
    "topic id"
);

string_id!(
    /// A durable node's id: an obligation (`ob_…`) or a memory directive (`md_…`).
    NodeId,
    "node id"
);

fn check_plain(value: &str, what: &'static str) -> Result<()> {
    let reason = if value.is_empty() {
        "must not be empty"
    } else if value.len() > MAX_ID_LEN {
        "longer than 120 bytes"
    } else if value.chars().any(char::is_control) {
        "contains control characters"
    } else {
        return Ok(());
    };
    Err(Error::InvalidId {
        what,
        value: value.chars().take(MAX_ID_LEN).collect(),
        reason,
    })
}

/// A work context's id. It names the continuity log file `continuity/{id}.jsonl`, so it is
/// restricted to ASCII letters, digits, `_`, `-` and `.` (not leading), which rules out path
/// separators, `..` and hidden files.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
pub struct WorkContextId(String);

impl WorkContextId {
    /// The id of the shared log for sessions that resolved no entities (CSA §3.1).
    pub const UNLINKED: &'static str = "wc_unlinked";

    /// Validates `value` as a work context id.
    pub fn new(value: impl Into<String>) -> Result<Self> {
        let value = value.into();
        let reason = if value.is_empty() {
            "must not be empty"
        } else if value.len() > MAX_ID_LEN {
            "longer than 120 bytes"
        } else if value.starts_with('.') {
            "must not start with a dot"
        } else if !value
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
        {
            "may contain only ASCII letters, digits, '_', '-' and '.'"
        } else {
            return Ok(Self(value));
        };
        Err(Error::InvalidId {
            what: "work context id",
            value: value.chars().take(MAX_ID_LEN).collect(),
            reason,
        })
    }

    /// The shared `wc_unlinked` work context.
    pub fn unlinked() -> Self {
        Self(Self::UNLINKED.to_owned())
    }

    /// Whether this is the capped `wc_unlinked` log.
    pub fn is_unlinked(&self) -> bool {
        self.0 == Self::UNLINKED
    }

    /// The id as a string slice.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

sql_id!(WorkContextId);

impl<'de> Deserialize<'de> for WorkContextId {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = String::deserialize(deserializer)?;
        WorkContextId::new(raw).map_err(serde::de::Error::custom)
    }
}

impl fmt::Display for WorkContextId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests;
