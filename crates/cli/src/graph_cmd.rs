//! `elnor entities …` and `elnor contexts …`: create, edit, merge and inspect the graph's entities
//! and work contexts. Every change is followed by delivering its `graph.entity.upserted` events,
//! so other work contexts hear about it at once (CSA §5.5).

use std::process::ExitCode;

use clap::Subcommand;
use elnor_engine::{Edited, EntityId, Store, WorkContextId};
use elnor_engine::{Entity, EntityEdit, NewEntity};
use elnor_engine::{LinkRuleKind, NewWorkContext, WorkContext, WorkContextEdit};

use crate::output;

#[derive(Debug, Subcommand)]
pub enum EntitiesCommand {
    /// List entities, optionally of one kind.
    List {
        #[arg(long)]
        kind: Option<String>,
    },
    /// Show one entity.
    Show { id: String },
    /// Create an entity.
    Add {
        name: String,
        /// What it is: matter, person, document, project, … (letters, digits, _ and -).
        #[arg(long, default_value = "topic")]
        kind: String,
        /// Another name it goes by (repeatable).
        #[arg(long = "alias")]
        aliases: Vec<String>,
        /// A date (2026-12-01) or RFC 3339 time.
        #[arg(long)]
        deadline: Option<String>,
    },
    /// Change an entity's name, kind, aliases or deadline.
    Edit {
        id: String,
        #[arg(long)]
        name: Option<String>,
        #[arg(long)]
        kind: Option<String>,
        #[arg(long = "add-alias")]
        add_aliases: Vec<String>,
        #[arg(long = "remove-alias")]
        remove_aliases: Vec<String>,
        #[arg(long, conflicts_with = "clear_deadline")]
        deadline: Option<String>,
        #[arg(long)]
        clear_deadline: bool,
    },
    /// Merge ABSORB into KEEP: its names become aliases, its links move, it is removed.
    Merge { keep: String, absorb: String },
}

#[derive(Debug, Subcommand)]
pub enum ContextsCommand {
    /// List work contexts, the most recently active first.
    List,
    /// The projects found in the history, newest work first, with where each stood.
    Overview {
        /// How many projects to show.
        #[arg(long, default_value_t = 12)]
        limit: usize,
    },
    /// Show a work context with its rules, entities and latest continuity entries.
    Show {
        id: String,
        /// How many of the latest entries to show.
        #[arg(long, default_value_t = 20)]
        entries: usize,
    },
    /// Create a named work context, with link rules that send sessions to it.
    Create {
        name: String,
        /// Sessions whose working directory is this directory or inside it (repeatable).
        #[arg(long)]
        cwd: Vec<String>,
        /// Sessions whose id or agent id matches this glob, `*` and `?` (repeatable).
        #[arg(long = "session-key")]
        session_key: Vec<String>,
        /// Sessions that referenced all of these comma-separated entity ids (repeatable).
        #[arg(long = "entity-set")]
        entity_set: Vec<String>,
        /// Link this entity (repeatable).
        #[arg(long = "entity")]
        entities: Vec<String>,
        /// Never send this context's content to a non-local model.
        #[arg(long)]
        local_only: bool,
        /// A domain lineage tag, e.g. legal/securities.
        #[arg(long)]
        lineage: Option<String>,
    },
    /// Rename, retag, or change the local-only flag.
    Edit {
        id: String,
        #[arg(long)]
        name: Option<String>,
        #[arg(long, conflicts_with = "clear_lineage")]
        lineage: Option<String>,
        #[arg(long)]
        clear_lineage: bool,
        #[arg(long)]
        local_only: Option<bool>,
    },
    /// Add or remove a link rule.
    #[command(subcommand)]
    Rule(RuleCommand),
    /// Link an entity to a work context.
    Link { id: String, entity: String },
    /// Unlink an entity from a work context.
    Unlink { id: String, entity: String },
    /// Merge ABSORB into KEEP: rules, links, sessions and log entries move; the old log is kept
    /// under continuity/merged/.
    Merge { keep: String, absorb: String },
}

#[derive(Debug, Subcommand)]
pub enum RuleCommand {
    /// Add a rule: exactly one of --cwd, --session-key, --entity-set.
    Add {
        id: String,
        #[arg(long, group = "rule")]
        cwd: Option<String>,
        #[arg(long = "session-key", group = "rule")]
        session_key: Option<String>,
        #[arg(long = "entity-set", group = "rule")]
        entity_set: Option<String>,
    },
    /// Remove a rule by its number (see `contexts show`).
    Remove { id: String, rule_id: i64 },
}

fn print_entity(e: &Entity) {
    print!("{}  [{}] {}", e.entity_id, e.kind, e.canonical_name);
    if !e.aliases.is_empty() {
        print!("  (aka {})", e.aliases.join(", "));
    }
    if let Some(d) = &e.deadline {
        print!("  deadline {d}");
    }
    println!();
}

fn entity_out(edited: &Edited<Entity>, json: bool) -> anyhow::Result<ExitCode> {
    let Edited {
        value: e,
        delivered,
    } = edited;
    let delivered = *delivered;
    if json {
        output::json(e)?;
    } else {
        print_entity(e);
        if delivered > 0 {
            println!("{delivered} cross-conversation update(s) written to other work contexts");
        }
    }
    Ok(ExitCode::SUCCESS)
}

pub fn entities(store: &Store, cmd: &EntitiesCommand, json: bool) -> anyhow::Result<ExitCode> {
    let g = store.graph();
    let now = elnor_engine::now();
    match cmd {
        EntitiesCommand::List { kind } => {
            let all = g.entities(kind.as_deref())?;
            if json {
                output::json(&all)?;
            } else if all.is_empty() {
                println!("No entities yet. Add one with `elnor entities add NAME --kind KIND`.");
            } else {
                all.iter().for_each(print_entity);
            }
            Ok(ExitCode::SUCCESS)
        }
        EntitiesCommand::Show { id } => {
            let e = g.entity(id)?;
            if json {
                output::json(&e)?;
            } else {
                print_entity(&e);
            }
            Ok(ExitCode::SUCCESS)
        }
        EntitiesCommand::Add {
            name,
            kind,
            aliases,
            deadline,
        } => {
            let e = elnor_engine::create_entity(
                store,
                &NewEntity {
                    kind: kind.clone(),
                    canonical_name: name.clone(),
                    aliases: aliases.clone(),
                    deadline: deadline.clone(),
                },
                now,
            )?;
            entity_out(&e, json)
        }
        EntitiesCommand::Edit {
            id,
            name,
            kind,
            add_aliases,
            remove_aliases,
            deadline,
            clear_deadline,
        } => {
            let edit = EntityEdit {
                canonical_name: name.clone(),
                kind: kind.clone(),
                add_aliases: add_aliases.clone(),
                remove_aliases: remove_aliases.clone(),
                deadline: if *clear_deadline {
                    Some(None)
                } else {
                    deadline.clone().map(Some)
                },
            };
            let e = elnor_engine::edit_entity(store, &EntityId::new(id)?, &edit, now)?;
            entity_out(&e, json)
        }
        EntitiesCommand::Merge { keep, absorb } => {
            let e = elnor_engine::merge_entities(
                store,
                &EntityId::new(keep)?,
                &EntityId::new(absorb)?,
                now,
            )?;
            entity_out(&e, json)
        }
    }
}

fn print_context(wc: &WorkContext) {
    let mut badges = vec![wc.origin.to_string()];
    if wc.local_only {
        badges.push("local-only".into());
    }
    println!(
        "{}  {}  [{}]  {} session(s)",
        wc.work_context_id,
        wc.name,
        badges.join(", "),
        wc.session_count
    );
}

pub fn contexts(store: &Store, cmd: &ContextsCommand, json: bool) -> anyhow::Result<ExitCode> {
    let g = store.graph();
    let now = elnor_engine::now();
    let done = |edited: Edited<WorkContext>| -> anyhow::Result<ExitCode> {
        let wc = &edited.value;
        if json {
            output::json(wc)?;
        } else {
            print_context(wc);
            for r in &wc.rules {
                println!("  rule #{} {} {}", r.rule_id, r.kind.as_str(), r.pattern);
            }
        }
        Ok(ExitCode::SUCCESS)
    };
    match cmd {
        ContextsCommand::List => {
            let all = g.work_contexts()?;
            if json {
                output::json(&all)?;
            } else if all.is_empty() {
                println!(
                    "No work contexts yet. Create one with `elnor contexts create NAME --cwd DIR`, \
                     or let capture derive them from the entities sessions mention."
                );
            } else {
                all.iter().for_each(print_context);
            }
            Ok(ExitCode::SUCCESS)
        }
        ContextsCommand::Overview { limit } => {
            let rows = elnor_engine::projects_overview(store, *limit)?;
            if json {
                output::json(&rows)?;
            } else if rows.is_empty() {
                println!(
                    "No projects yet. `elnor ingest` reads your agents' transcripts; each folder \
                     your sessions worked in becomes a work context."
                );
            }
            for p in rows.iter().filter(|_| !json) {
                let last = p
                    .last_active_at
                    .as_deref()
                    .and_then(|t| t.get(..16))
                    .map(|t| t.replace('T', " "))
                    .unwrap_or_else(|| "-".into());
                let phase = p
                    .phase
                    .and_then(|ph| serde_json::to_value(ph).ok())
                    .and_then(|v| v.as_str().map(|s| format!(", {}", s.replace('_', " "))))
                    .unwrap_or_default();
                println!(
                    "{}  [{}]  {} session(s), last active {last}{phase}",
                    p.name, p.work_context_id, p.session_count
                );
                if let Some(s) = &p.latest_summary {
                    println!("    {}", elnor_engine::transcript_excerpt(s, 160));
                }
                for q in &p.open_questions {
                    println!("    open: {}", elnor_engine::transcript_excerpt(q, 140));
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        ContextsCommand::Show { id, entries } => {
            let wc = g.work_context(id)?;
            let log = store.log(&WorkContextId::new(id.as_str())?).read()?;
            let start = log.entries.len().saturating_sub(*entries);
            let latest = &log.entries[start..];
            if json {
                output::json(&serde_json::json!({ "work_context": wc, "entries": latest }))?;
                return Ok(ExitCode::SUCCESS);
            }
            print_context(&wc);
            if let Some(l) = &wc.domain_lineage {
                println!("  lineage {l}");
            }
            for r in &wc.rules {
                println!("  rule #{} {} {}", r.rule_id, r.kind.as_str(), r.pattern);
            }
            if !wc.entity_ids.is_empty() {
                let names: Vec<String> = wc.entity_ids.iter().map(|e| e.to_string()).collect();
                println!("  entities {}", names.join(", "));
            }
            println!(
                "  {} continuity entr(ies), latest {}:",
                log.entries.len(),
                latest.len()
            );
            for e in latest {
                let reduced = e.is_reduced_confidence();
                println!(
                    "    {}  {:<25} {}{}",
                    e.captured_at.format("%Y-%m-%d %H:%M"),
                    e.entry_type().as_str(),
                    e.content.headline(),
                    if reduced {
                        "  (heuristic, reduced confidence)"
                    } else {
                        ""
                    }
                );
            }
            Ok(ExitCode::SUCCESS)
        }
        ContextsCommand::Create {
            name,
            cwd,
            session_key,
            entity_set,
            entities,
            local_only,
            lineage,
        } => {
            let mut rules: Vec<(LinkRuleKind, String)> = Vec::new();
            rules.extend(cwd.iter().map(|p| (LinkRuleKind::Cwd, p.clone())));
            rules.extend(
                session_key
                    .iter()
                    .map(|p| (LinkRuleKind::SessionKey, p.clone())),
            );
            rules.extend(
                entity_set
                    .iter()
                    .map(|p| (LinkRuleKind::EntitySet, p.clone())),
            );
            let wc = elnor_engine::create_work_context(
                store,
                &NewWorkContext {
                    name: name.clone(),
                    domain_lineage: lineage.clone(),
                    local_only: *local_only,
                    rules,
                    entity_ids: entities
                        .iter()
                        .map(EntityId::new)
                        .collect::<Result<_, _>>()?,
                },
                now,
            )?;
            done(wc)
        }
        ContextsCommand::Edit {
            id,
            name,
            lineage,
            clear_lineage,
            local_only,
        } => {
            let edit = WorkContextEdit {
                name: name.clone(),
                domain_lineage: if *clear_lineage {
                    Some(None)
                } else {
                    lineage.clone().map(Some)
                },
                local_only: *local_only,
            };
            done(elnor_engine::edit_work_context(
                store,
                &WorkContextId::new(id)?,
                &edit,
                now,
            )?)
        }
        ContextsCommand::Rule(RuleCommand::Add {
            id,
            cwd,
            session_key,
            entity_set,
        }) => {
            let (kind, pattern) = match (cwd, session_key, entity_set) {
                (Some(p), None, None) => (LinkRuleKind::Cwd, p),
                (None, Some(p), None) => (LinkRuleKind::SessionKey, p),
                (None, None, Some(p)) => (LinkRuleKind::EntitySet, p),
                _ => crate::usage!("give exactly one of --cwd, --session-key or --entity-set"),
            };
            done(elnor_engine::add_link_rule(
                store,
                &WorkContextId::new(id)?,
                kind,
                pattern,
                now,
            )?)
        }
        ContextsCommand::Rule(RuleCommand::Remove { id, rule_id }) => done(
            elnor_engine::remove_link_rule(store, &WorkContextId::new(id)?, *rule_id, now)?,
        ),
        ContextsCommand::Link { id, entity } => done(elnor_engine::link_entity(
            store,
            &WorkContextId::new(id)?,
            &EntityId::new(entity)?,
            now,
        )?),
        ContextsCommand::Unlink { id, entity } => done(elnor_engine::unlink_entity(
            store,
            &WorkContextId::new(id)?,
            &EntityId::new(entity)?,
            now,
        )?),
        ContextsCommand::Merge { keep, absorb } => done(elnor_engine::merge_work_contexts(
            store,
            &WorkContextId::new(keep)?,
            &WorkContextId::new(absorb)?,
            now,
        )?),
    }
}
