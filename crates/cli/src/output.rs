//! Printing: human text or JSON on stdout, errors on stderr, and the exit-code table.

use elnor_engine::ErrorKind;
use serde::Serialize;

/// Exit codes, documented in `docs/CLI.md`.
pub mod code {
    pub const UNEXPECTED: u8 = 1;
    /// The same code clap exits with when it refuses the arguments.
    pub const USAGE: u8 = 2;
    pub const CONFIG: u8 = 3;
    pub const INVALID_INPUT: u8 = 4;
    pub const STORAGE: u8 = 5;
    /// A head write was refused because another writer held the target's lease; it is recorded
    /// and `elnor heads refresh` retries it.
    pub const DEFERRED: u8 = 6;
    /// A head write was refused because a person edited the block; their edit is kept as a
    /// proposal and `--replace-edits` overwrites it.
    pub const EDITS_KEPT: u8 = 7;
}

/// Arguments clap accepted but that do not make a command ("give exactly one of …"): a usage
/// error, exit 2, like the ones clap reports itself.
#[derive(Debug)]
pub struct Usage(pub String);

impl std::fmt::Display for Usage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Usage {}

/// Returns early with a [`Usage`] error.
#[macro_export]
macro_rules! usage {
    ($($arg:tt)*) => {
        return Err($crate::output::Usage(format!($($arg)*)).into())
    };
}

fn is_usage(err: &anyhow::Error) -> bool {
    err.chain().any(|e| e.is::<Usage>())
}

/// Prints `value` as pretty JSON.
pub fn json<T: Serialize>(value: &T) -> anyhow::Result<()> {
    println!("{}", serde_json::to_string_pretty(value)?);
    Ok(())
}

fn kind_of(err: &anyhow::Error) -> Option<ErrorKind> {
    err.chain()
        .find_map(|e| e.downcast_ref::<elnor_engine::Error>())
        .map(elnor_engine::Error::kind)
}

/// The exit code for an error.
pub fn exit_code(err: &anyhow::Error) -> u8 {
    if is_usage(err) {
        return code::USAGE;
    }
    match kind_of(err) {
        Some(ErrorKind::Config) => code::CONFIG,
        Some(ErrorKind::InvalidInput) => code::INVALID_INPUT,
        Some(ErrorKind::Storage) => code::STORAGE,
        None => code::UNEXPECTED,
    }
}

/// Prints an error to stderr, as `{"error": {"kind", "message"}}` under `--json`.
pub fn print_error(err: &anyhow::Error, json: bool) {
    let message = format!("{err:#}");
    if json {
        let kind = match kind_of(err) {
            _ if is_usage(err) => "usage",
            Some(ErrorKind::Config) => "config",
            Some(ErrorKind::InvalidInput) => "invalid_input",
            Some(ErrorKind::Storage) => "storage",
            None => "unexpected",
        };
        let body = serde_json::json!({ "error": { "kind": kind, "message": message } });
        eprintln!("{body}");
    } else {
        eprintln!("error: {message}");
    }
}
