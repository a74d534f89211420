//! The engine's error type: one `thiserror` enum, a coarse [`ErrorKind`] for adapters that map
//! errors to exit codes or wire kinds, and the crate-wide [`Result`] alias.
//!
//! Messages are written for the person reading them: they name the file, the field and what is
//! allowed. They never carry secrets: nothing secret ever reaches the engine's files, and keyring
//! errors are built from the keyring's failure kind, never from the secret.

use std::path::PathBuf;

/// The engine's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What went wrong, coarsely, so adapters can choose an exit code or a UI treatment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// A config file or a config value is invalid.
    Config,
    /// Input from the caller is invalid: an id, an entry, a key.
    InvalidInput,
    /// The store could not be read or written (filesystem or SQLite).
    Storage,
}

/// Every error the engine reports.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    #[error("config file {}: field `{field}`: {problem}; allowed: {allowed}", path.display())]
    ConfigField {
        path: PathBuf,
        field: String,
        problem: String,
        allowed: String,
    },

    #[error("config file {}: {problem}", path.display())]
    ConfigSyntax { path: PathBuf, problem: String },

    #[error("unknown config key `{key}`; known keys: {known}")]
    UnknownConfigKey { key: String, known: String },

    #[error("invalid {what} {value:?}: {reason}")]
    InvalidId {
        what: &'static str,
        value: String,
        reason: &'static str,
    },

    #[error("no {what} {id:?} in this store")]
    NotFound { what: &'static str, id: String },

    #[error("invalid continuity entry: {0}")]
    InvalidEntry(String),

    /// Other invalid input from the caller; the message says what is allowed.
    #[error("{0}")]
    InvalidInput(String),

    #[error("graph database {}: {source}", path.display())]
    Sqlite {
        path: PathBuf,
        #[source]
        source: rusqlite::Error,
    },

    #[error("graph database {}: {problem}", path.display())]
    Schema { path: PathBuf, problem: String },

    /// The OS keyring refused or failed. `problem` says what to do; it never holds a secret.
    #[error("OS keyring: {problem}")]
    Keyring { problem: String },

    /// The engine declined a request that was well formed: an agent over its search rate, or
    /// asking for more than it was granted. `reason` says what would let it through.
    #[error("refused: {reason}")]
    Refused { reason: String },

    /// A harness's own settings file (Claude Code's `settings.json`, Codex's `config.toml`,
    /// OpenClaw's `openclaw.json`) could not be read, parsed or safely edited. `problem` names the
    /// line where there is one and says what to do; nothing was written.
    #[error("{}: {problem}", path.display())]
    HarnessConfig { path: PathBuf, problem: String },

    /// The search index (derived data under `index/search/`) could not be read or written;
    /// `elnor reindex` rebuilds it from the canonical stores.
    #[error("search index at {path}: {problem}")]
    Index { path: PathBuf, problem: String },
}

impl Error {
    /// The coarse class of this error.
    pub fn kind(&self) -> ErrorKind {
        match self {
            // A keyring that is locked or missing is a problem of the person's setup, fixed the
            // way a config problem is (by them, then retrying), so it shares the config kind
            // rather than widening the wire's set of kinds.
            Error::ConfigField { .. }
            | Error::ConfigSyntax { .. }
            | Error::Keyring { .. }
            | Error::HarnessConfig { .. } => ErrorKind::Config,
            Error::UnknownConfigKey { .. }
            | Error::InvalidId { .. }
            | Error::InvalidEntry(_)
            | Error::InvalidInput(_)
            | Error::Refused { .. }
            | Error::NotFound { .. } => ErrorKind::InvalidInput,
            Error::Io { .. }
            | Error::Sqlite { .. }
            | Error::Schema { .. }
            | Error::Index { .. } => ErrorKind::Storage,
        }
    }

    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Error {
        Error::Io {
            path: path.into(),
            source,
        }
    }
}
