//! `elnor`: the command-line adapter over the continuity engine. It parses arguments, calls the
//! engine, and prints human text or (`--json`) JSON; it holds no logic of its own.
//!
//! Exit codes (also in `docs/CLI.md`): 0 success; 1 unexpected failure; 2 usage error; 3 invalid
//! config (file or value); 4 invalid input (ids, keys, entries); 5 store unreadable or unwritable;
//! 6 a head write deferred (another writer held its lease); 7 a head write refused (a person
//! edited its block).

mod brief_cmd;
mod capture_cmd;
mod cli;
mod doctor_cmd;
mod graph_cmd;
mod heads_cmd;
mod hook_cmd;
mod ingest_cmd;
mod library_cmd;
mod lineage_cmd;
mod log_cmd;
mod model_cmd;
mod nodes_cmd;
mod observe_cmd;
mod output;
mod reconstruct_cmd;
mod review_cmd;
mod search_cmd;
mod sessions_cmd;
mod setup_cmd;
mod sync_cmd;
mod today_cmd;
mod topics_cmd;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    restore_sigpipe();
    let args = cli::Args::parse();
    init_tracing();
    let json = args.json;
    match cli::run(args) {
        Ok(code) => code,
        Err(err) => {
            output::print_error(&err, json);
            ExitCode::from(output::exit_code(&err))
        }
    }
}

/// Diagnostics go to stderr, quiet by default; `ELNOR_LOG=debug` (an env-filter spec) shows more.
fn init_tracing() {
    let filter = tracing_subscriber::EnvFilter::try_from_env("ELNOR_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_target(false)
        .init();
}

/// Rust ignores SIGPIPE, so `elnor … | head` would panic on the closed pipe; a command-line tool
/// should instead end quietly, as other Unix tools do.
fn restore_sigpipe() {
    #[cfg(unix)]
    // SAFETY: setting a signal's disposition to the default before any thread starts is sound.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}
