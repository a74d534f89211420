//! The desktop shell: a thin Tauri 2 adapter that opens the engine's store and exposes it to the
//! Leptos UI through typed commands (`elnor-types`). It holds no domain logic.
//!
//! The store is chosen like the CLI's: `--store DIR`, else `ELNOR_MEMORY`, else the platform data
//! dir. A store that fails to open does not stop the window from opening: every command then
//! returns the engine's error, which the UI shows. With a store, the nightly scheduler
//! (`scheduler.rs`) and the file watcher over the tracked folders (`watcher.rs`) run beside the
//! window for the app's lifetime. Long work the person starts from Settings (the embedding
//! model's download, the embedding backfill, the index rebuild) runs on the job runner's threads
//! (`jobs.rs`), which the UI polls for progress and can cancel. With a sync remote set, the
//! background sync (`background_sync.rs`) syncs after changes and on a timer.
//!
//! Diagnostics go to stderr through `tracing`; `ELNOR_LOG` (an env-filter spec, as for the CLI)
//! chooses how much.

mod background_sync;
mod commands;
mod jobs;
mod scheduler;
mod state;
mod watcher;

use std::path::PathBuf;

/// What `elnor-desktop --help` prints.
const HELP: &str = "\
ELNOR Knowledge Manager: the desktop app.

Usage: elnor-desktop [--store DIR]

Options:
  --store DIR    the store to open (else $ELNOR_MEMORY, else the platform data directory)
  -h, --help     print this help
  -V, --version  print the version

The app needs a graphical display. Without one, the `elnor` command does everything the app
does: `elnor today` shows what needs you, `elnor --help` lists the rest.";

/// Why the app cannot open a window here, when it cannot: on Linux, no X11 or Wayland display is
/// set (GTK would otherwise abort with a panic deep in its start-up).
fn missing_display(display: Option<&str>, wayland: Option<&str>) -> Option<String> {
    if !cfg!(target_os = "linux") {
        return None;
    }
    let set = |v: Option<&str>| v.is_some_and(|v| !v.trim().is_empty());
    (!set(display) && !set(wayland)).then(|| {
        "elnor-desktop: no graphical display (neither DISPLAY nor WAYLAND_DISPLAY is set), so no \
         window can open. Run it inside a desktop session, or use the `elnor` command instead \
         (`elnor today`, `elnor --help`); `scripts/run.sh` gives a tour without a display."
            .to_owned()
    })
}

/// Starts the app. Blocks until the last window closes.
pub fn run() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "-h" || a == "--help") {
        println!("{HELP}");
        return;
    }
    if args.iter().any(|a| a == "-V" || a == "--version") {
        println!("elnor-desktop {}", env!("CARGO_PKG_VERSION"));
        return;
    }
    if let Some(problem) = missing_display(
        std::env::var("DISPLAY").ok().as_deref(),
        std::env::var("WAYLAND_DISPLAY").ok().as_deref(),
    ) {
        eprintln!("{problem}");
        std::process::exit(2);
    }
    let store_flag = store_flag(args.into_iter());
    init_tracing();
    // ELNOR_NOW replays the app at another instant, as it does every CLI verb; a value that is
    // not RFC 3339 is reported and the real clock kept.
    if let Err(e) = elnor_engine::init_clock_from_env() {
        tracing::warn!("ELNOR_NOW ignored: {e}");
    }
    let state = state::AppState::open(store_flag);
    if let Ok(store) = state.store() {
        scheduler::start(store.clone(), state.nightly_handle(), state.agent_handle());
        background_sync::start(store.clone(), state.sync_handle());
        state.watcher().start(store);
    }
    let result = tauri::Builder::default()
        .manage(state)
        .invoke_handler(tauri::generate_handler![
            commands::status::status_get,
            commands::sync::sync_get,
            commands::sync::sync_run,
            commands::settings::settings_get,
            commands::settings::settings_set_mode,
            commands::sessions::sessions_list,
            commands::sessions::turns_list,
            commands::ingest::sources_list,
            commands::ingest::sources_add,
            commands::ingest::sources_set_enabled,
            commands::ingest::ingest_start,
            commands::ingest::ingest_get,
            commands::contexts::work_contexts_list,
            commands::contexts::projects_list,
            commands::contexts::today_get,
            commands::health::health_get,
            commands::health::dreaming_disable,
            commands::heads::heads_get,
            commands::heads::heads_refresh,
            commands::heads::head_write_to,
            commands::contexts::work_contexts_get,
            commands::contexts::work_contexts_create,
            commands::contexts::work_contexts_edit,
            commands::contexts::link_rules_add,
            commands::contexts::link_rules_remove,
            commands::contexts::work_contexts_link_entity,
            commands::contexts::work_contexts_unlink_entity,
            commands::contexts::entities_list,
            commands::contexts::entities_create,
            commands::contexts::entities_edit,
            commands::contexts::entities_merge,
            commands::contexts::work_contexts_merge,
            commands::continuity::continuity_get,
            commands::continuity::continuity_set_field,
            commands::continuity::api_key_status,
            commands::continuity::api_key_set,
            commands::continuity::api_key_clear,
            commands::continuity::model_test,
            commands::continuity::model_detect,
            commands::brief::brief_preview,
            commands::brief::constellation_get,
            commands::brief::assemblies_list,
            commands::brief::assemblies_get,
            commands::brief::lineage_expand,
            commands::brief::lineage_node,
            commands::brief::living_facts_list,
            commands::brief::living_facts_add,
            commands::brief::living_facts_edit,
            commands::brief::living_facts_remove,
            commands::brief::rollup_refresh,
            commands::review::review_list,
            commands::review::review_get,
            commands::review::review_approve,
            commands::review::review_reject,
            commands::review::review_defer,
            commands::review::review_evaluate,
            commands::review::review_count,
            commands::review::nightly_get,
            commands::review::nightly_run,
            commands::knowledge::knowledge_list,
            commands::knowledge::knowledge_get,
            commands::knowledge::knowledge_edit,
            commands::knowledge::knowledge_confirm,
            commands::knowledge::knowledge_set_warrant,
            commands::knowledge::knowledge_retire,
            commands::knowledge::knowledge_supersede,
            commands::observe::observations_push,
            commands::observe::observations_preview_push,
            commands::observe::observations_list,
            commands::observe::observations_get,
            commands::observe::tracked_folders_get,
            commands::observe::tracked_folders_add,
            commands::observe::tracked_folders_remove,
            commands::observe::ignore_patterns_set,
            commands::timeline::timeline_get,
            commands::search::search_query,
            commands::search::embeddings_get,
            commands::jobs::model_download_start,
            commands::jobs::embeddings_start,
            commands::jobs::reindex_start,
            commands::reconstruct::reconstruct_start,
            commands::jobs::job_cancel,
            commands::jobs::jobs_get,
            commands::library::library_collections_list,
            commands::library::library_collection_add,
            commands::library::library_documents_list,
            commands::library::library_document_get,
            commands::topics::topics_list,
            commands::topics::topic_get,
            commands::topics::topic_create,
            commands::topics::topic_edit,
            commands::topics::topic_delete,
            commands::topics::topic_member_pin,
            commands::topics::topic_member_unpin,
            commands::review::memberships_list,
            commands::review::memberships_decide,
        ])
        .run(tauri::generate_context!());
    if let Err(error) = result {
        eprintln!("elnor-desktop: {error}");
        std::process::exit(1);
    }
}

/// Warnings by default, plus the app's own notes (such as each nightly run); `ELNOR_LOG` overrides.
fn init_tracing() {
    let filter = tracing_subscriber::EnvFilter::try_from_env("ELNOR_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn,elnor_desktop=info"));
    // `try_init`: a second subscriber (as in a test harness) is not worth failing the app for.
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_target(false)
        .try_init();
}

/// Finds `--store DIR` or `--store=DIR` among the arguments.
fn store_flag(mut args: impl Iterator<Item = String>) -> Option<PathBuf> {
    while let Some(arg) = args.next() {
        if arg == "--store" {
            return args.next().map(PathBuf::from);
        }
        if let Some(dir) = arg.strip_prefix("--store=") {
            return Some(PathBuf::from(dir));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::{missing_display, store_flag};

    #[test]
    fn without_a_display_the_app_says_so_instead_of_starting_gtk() {
        if !cfg!(target_os = "linux") {
            return;
        }
        let problem = missing_display(None, Some("  ")).expect("no display");
        assert!(problem.contains("no graphical display"), "{problem}");
        assert!(problem.contains("elnor today"), "{problem}");
        assert_eq!(missing_display(Some(":0"), None), None);
        assert_eq!(missing_display(None, Some("wayland-0")), None);
    }

    /// Every command the UI may invoke (`elnor_types::commands::ALL`) has exactly one handler in
    /// `generate_handler!`, one `allow-*` permission allowing it alone, and that permission
    /// granted to the main window; nothing else is handled, permitted or granted.
    #[test]
    fn every_command_is_handled_permitted_and_granted() {
        let all: BTreeSet<&str> = elnor_types::commands::ALL.iter().copied().collect();
        assert_eq!(
            all.len(),
            elnor_types::commands::ALL.len(),
            "a name is declared twice"
        );

        let lib = include_str!("lib.rs");
        let list = lib
            .split_once("generate_handler![")
            .and_then(|(_, rest)| rest.split_once(']'))
            .map(|(list, _)| list)
            .expect("lib.rs has a generate_handler! list");
        let handlers: Vec<&str> = list
            .split(',')
            .map(str::trim)
            .filter(|h| !h.is_empty())
            .map(|h| h.rsplit("::").next().unwrap_or(h))
            .collect();
        assert_eq!(handlers.iter().copied().collect::<BTreeSet<_>>(), all);
        assert_eq!(handlers.len(), all.len(), "a handler is listed twice");

        let permission = |name: &str| format!("allow-{}", name.replace('_', "-"));
        let toml = include_str!("permissions/app.toml");
        let mut permitted = Vec::new();
        for block in toml.split("[[permission]]").skip(1) {
            let field = |key: &str| {
                block
                    .lines()
                    .find_map(|l| l.trim().strip_prefix(key))
                    .map(|v| v.trim_start_matches([' ', '=']).trim().to_owned())
                    .unwrap_or_else(|| panic!("a permission without {key}: {block}"))
            };
            let allowed = field("commands.allow");
            let name = allowed
                .strip_prefix("[\"")
                .and_then(|a| a.strip_suffix("\"]"))
                .unwrap_or_else(|| panic!("allows one command only: {allowed}"))
                .to_owned();
            assert_eq!(field("identifier"), format!("\"{}\"", permission(&name)));
            permitted.push(name);
        }
        assert_eq!(
            permitted
                .iter()
                .map(String::as_str)
                .collect::<BTreeSet<_>>(),
            all
        );
        assert_eq!(permitted.len(), all.len(), "a command is permitted twice");

        let capability = include_str!("capabilities/main.json");
        let granted: BTreeSet<String> = capability
            .split('"')
            .filter(|s| s.starts_with("allow-"))
            .map(str::to_owned)
            .collect();
        let expected: BTreeSet<String> = all.iter().map(|n| permission(n)).collect();
        assert_eq!(granted, expected);
    }

    #[test]
    fn store_flag_forms() {
        let parse = |v: &[&str]| store_flag(v.iter().map(|s| s.to_string()));
        assert_eq!(parse(&["--store", "/a"]), Some("/a".into()));
        assert_eq!(parse(&["-x", "--store=/b"]), Some("/b".into()));
        assert_eq!(parse(&["--store"]), None);
        assert_eq!(parse(&[]), None);
    }
}
