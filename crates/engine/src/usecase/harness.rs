//! The harnesses' side of ELNOR: what each agent harness is told to run, and whether it runs it.
//!
//! - [`paths`]: where Claude Code, Codex and OpenClaw keep their settings ([`HarnessPaths`]),
//!   built from the environment by the adapters so tests point it at temporary folders.
//! - [`hooks`]: `elnor hook`, the one entry point every harness hook calls: the hook's input,
//!   what each event does ([`hook_action`]), and a record of every fire per harness and event,
//!   read back as [`HookStatus`] by `elnor doctor` and Today.
//! - [`setup`]: `elnor setup`, which merges ELNOR's hooks and MCP server into a harness's own
//!   settings without disturbing anything else in them.
//! - [`dreaming`]: OpenClaw's Dreaming (CSA §10), detected and turned off.
//!
//! Every edit of a harness's file goes through `base::confedit` (backup, atomic write, parse
//! errors with the line, dry runs as diffs).

pub mod dreaming;
pub mod hooks;
pub mod paths;
pub mod setup;

pub use paths::HarnessPaths;
