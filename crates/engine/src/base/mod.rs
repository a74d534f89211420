//! The base layer: what every other layer stands on and that knows nothing of the product's
//! concepts beyond their names.
//!
//! Errors and the crate's `Result` ([`error`]), typed ids ([`ids`]), the clock that tests and
//! replays can set ([`clock`]), atomic files and locks ([`fsutil`]), token counting and one-line
//! text ([`tokens`]), leases between writers in different processes ([`lease`]), generated
//! blocks inside other tools' files ([`marked_block`]), secret redaction ([`redact`]), the
//! continuity config file ([`config`]) and the OS keyring ([`secrets`]).
//!
//! Architecture Invariant: nothing here names a module of a higher layer (`tests/tidy.rs`).

pub mod clock;
pub(crate) mod confedit;
pub mod config;
pub mod error;
pub(crate) mod fsutil;
pub mod ids;
pub(crate) mod lease;
pub(crate) mod marked_block;
pub mod redact;
pub mod secrets;
pub mod tokens;
pub(crate) mod words;
