//! The desktop shell: a thin Tauri 2 adapter that opens the engine's store and exposes it to the
//! Leptos UI through typed commands (`elnor-types`). It holds no domain logic.
//!
//! The store is chosen like the CLI's: `--store DIR`, else `ELNOR_MEMORY`, else the platform data
//! dir. A store that fails to open does not stop the window from opening: every command then
//! returns the engine's error, which the UI shows. With a store, the nightly scheduler
//! (`scheduler.rs`) and the file watcher over the tracked folders (`watcher.rs`) run beside the
//! window for the app's lifetime.
//!
//! Diagnostics go to stderr through `tracing`; `ELNOR_LOG` (an env-filter spec, as for the CLI)
//! chooses how much.

mod commands;
mod scheduler;
mod state;
mod watcher;

use std::path::PathBuf;

/// Starts the app. Blocks until the last window closes.
pub fn run() {
    let store_flag = store_flag(std::env::args().skip(1));
    init_tracing();
    // ELNOR_NOW replays the app at another instant, as it does every CLI verb; a value that is
    // not RFC 3339 is reported and the real clock kept.
    if let Err(e) = elnor_engine::init_clock_from_env() {
        tracing::warn!("ELNOR_NOW ignored: {e}");
    }
    let state = state::AppState::open(store_flag);
    if let Ok(store) = state.store() {
        scheduler::start(store.clone(), state.nightly_handle(), state.agent_handle());
        state.watcher().start(store);
    }
    let result = tauri::Builder::default()
        .manage(state)
        .invoke_handler(tauri::generate_handler![
            commands::status::store_status,
            commands::settings::get_settings,
            commands::settings::set_continuity_mode,
            commands::sessions::list_sessions,
            commands::sessions::turn_page,
            commands::ingest::list_sources,
            commands::ingest::add_source,
            commands::ingest::set_source_enabled,
            commands::ingest::start_ingest,
            commands::ingest::ingest_status,
            commands::contexts::list_work_contexts,
            commands::contexts::projects_overview,
            commands::contexts::get_work_context,
            commands::contexts::create_work_context,
            commands::contexts::edit_work_context,
            commands::contexts::add_link_rule,
            commands::contexts::remove_link_rule,
            commands::contexts::list_entities,
            commands::contexts::create_entity,
            commands::contexts::edit_entity,
            commands::contexts::merge_entities,
            commands::contexts::merge_work_contexts,
            commands::continuity::get_continuity_settings,
            commands::continuity::set_config_field,
            commands::continuity::set_api_key,
            commands::continuity::clear_api_key,
            commands::continuity::test_model_connection,
            commands::brief::brief_preview,
            commands::brief::constellation_get,
            commands::brief::assemblies_list,
            commands::brief::assembly_get,
            commands::brief::living_facts_list,
            commands::brief::living_facts_add,
            commands::brief::living_facts_edit,
            commands::brief::living_facts_remove,
            commands::brief::rollup_refresh,
            commands::review::review_list,
            commands::review::review_show,
            commands::review::review_approve,
            commands::review::review_reject,
            commands::review::review_defer,
            commands::review::review_evaluate,
            commands::review::review_pending_count,
            commands::review::nightly_status,
            commands::review::nightly_run,
            commands::knowledge::knowledge_list,
            commands::knowledge::knowledge_show,
            commands::knowledge::knowledge_edit,
            commands::knowledge::knowledge_confirm,
            commands::knowledge::knowledge_set_warrant,
            commands::knowledge::knowledge_retire,
            commands::knowledge::knowledge_supersede,
            commands::observe::push_observation,
            commands::observe::observations_list,
            commands::observe::observation_get,
            commands::observe::tracked_folders,
            commands::observe::add_tracked_folder,
            commands::observe::remove_tracked_folder,
            commands::observe::set_ignore_patterns,
            commands::timeline::timeline,
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
    use super::store_flag;

    #[test]
    fn store_flag_forms() {
        let parse = |v: &[&str]| store_flag(v.iter().map(|s| s.to_string()));
        assert_eq!(parse(&["--store", "/a"]), Some("/a".into()));
        assert_eq!(parse(&["-x", "--store=/b"]), Some("/b".into()));
        assert_eq!(parse(&["--store"]), None);
        assert_eq!(parse(&[]), None);
    }
}
