//! `elnor topics`: Topics (concept model §7) from the command line. A Topic is a lens, its pinned
//! and approved members plus what its rules match now; with its collection directive on, new
//! matching documents are proposed as members, and `elnor topics proposals`, `approve` and
//! `reject` decide them (the app shows the same proposals in its Review queue).

use std::process::ExitCode;

use clap::{Args, Subcommand};
use elnor_engine::{
    DocKind, EntityId, MemberSource, NewTopic, Store, TopicEdit, TopicId, TopicRules, WorkContextId,
};

use crate::output;

#[derive(Debug, Subcommand)]
pub enum TopicsCommand {
    /// Every Topic, with its pinned, approved and pending members.
    List,
    /// One Topic's lens: its members, each with why it is there.
    Show { id: String },
    /// Create a Topic from its rules; `--collect` turns its collection directive on, which
    /// proposes every matching document indexed so far at once, then each new one.
    Create {
        name: String,
        #[command(flatten)]
        rules: RuleArgs,
        #[arg(long, default_value = "")]
        description: String,
        #[arg(long)]
        collect: bool,
    },
    /// Change a Topic's name, rules or directive (`--collect true|false`).
    Edit {
        id: String,
        #[arg(long)]
        name: Option<String>,
        #[arg(long)]
        description: Option<String>,
        /// New rules replace the old ones whole when --query is given.
        #[command(flatten)]
        rules: RuleArgs,
        #[arg(long)]
        collect: Option<bool>,
    },
    /// Delete a Topic and its memberships; no document goes with it.
    Delete { id: String },
    /// Pin a search document (its `doc_id` from `elnor query --json`) into a Topic.
    Pin { id: String, doc_id: String },
    /// Take a member out of a Topic; its directive will not propose it again.
    Unpin { id: String, doc_id: String },
    /// Run every collection directive now (ingest, pushes and the watcher do this too).
    Collect,
    /// The membership proposals waiting for review.
    Proposals,
    /// Approve membership proposals.
    Approve {
        #[arg(required = true)]
        ids: Vec<i64>,
    },
    /// Reject membership proposals; a rejected document is never proposed to that Topic again.
    Reject {
        #[arg(required = true)]
        ids: Vec<i64>,
    },
}

#[derive(Debug, Args)]
pub struct RuleArgs {
    /// The words a member must all hold.
    #[arg(long)]
    query: Option<String>,
    /// turn, entry, summary, document, observation or node (repeatable; none means all).
    #[arg(long = "kind")]
    kinds: Vec<String>,
    /// Only this work context's documents.
    #[arg(long = "context", value_name = "WC")]
    context: Option<String>,
    /// Only documents mentioning this entity (its id; repeatable).
    #[arg(long = "entity", value_name = "ENTITY_ID")]
    entities: Vec<String>,
    /// Only work from the last N hours; 0 (the default) for all time.
    #[arg(long, default_value_t = 0)]
    hours: u32,
}

impl RuleArgs {
    fn rules(&self) -> anyhow::Result<Option<TopicRules>> {
        let Some(query) = &self.query else {
            return Ok(None);
        };
        for k in &self.kinds {
            if DocKind::parse(k).is_none() {
                crate::usage!(
                    "unknown kind {k:?}: use turn, entry, summary, document, observation or node"
                );
            }
        }
        Ok(Some(TopicRules {
            query: query.clone(),
            entities: self
                .entities
                .iter()
                .map(|e| EntityId::new(e.as_str()))
                .collect::<Result<_, _>>()?,
            work_context: self.context.clone().map(WorkContextId::new).transpose()?,
            kinds: self.kinds.clone(),
            hours: self.hours,
        }))
    }
}

pub fn topics(store: &Store, cmd: &TopicsCommand, json: bool) -> anyhow::Result<ExitCode> {
    let now = elnor_engine::now();
    match cmd {
        TopicsCommand::List => {
            let rows = elnor_engine::topics(store)?;
            if json {
                output::json(&rows)?;
            } else if rows.is_empty() {
                println!("no Topics; create one with `elnor topics create NAME --query WORDS`");
            }
            for r in rows.iter().filter(|_| !json) {
                println!(
                    "{}  {:<30} {} pinned, {} approved, {} pending{}  rules: {:?}",
                    r.topic.topic_id,
                    r.topic.name,
                    r.pinned,
                    r.approved,
                    r.pending,
                    if r.topic.collecting {
                        ", collecting"
                    } else {
                        ""
                    },
                    r.topic.rules.query
                );
            }
        }
        TopicsCommand::Show { id } => {
            let view = elnor_engine::topic_view(store, &TopicId::new(id.as_str())?, now)?;
            if json {
                output::json(&view)?;
                return Ok(ExitCode::SUCCESS);
            }
            println!("{}  {}", view.topic.topic_id, view.topic.name);
            if !view.topic.description.is_empty() {
                println!("{}", view.topic.description);
            }
            println!(
                "rules: every word of {:?}; directive {}; {} proposal(s) pending review",
                view.topic.rules.query,
                if view.topic.collecting { "on" } else { "off" },
                view.pending
            );
            for m in &view.members {
                let source = match m.source {
                    MemberSource::Pinned => "pinned",
                    MemberSource::Approved => "approved",
                    MemberSource::Rule => "rule",
                };
                println!("\n[{source}] {}  {}", m.doc_id, m.label);
                println!("   why: {}", m.why);
            }
        }
        TopicsCommand::Create {
            name,
            rules,
            description,
            collect,
        } => {
            let Some(rules) = rules.rules()? else {
                crate::usage!("a Topic needs --query WORDS: the words its members hold");
            };
            let new = NewTopic {
                name: name.clone(),
                description: description.clone(),
                rules,
                collecting: *collect,
            };
            let change = elnor_engine::create_topic(store, &new, now)?;
            print_change(&change, json)?;
        }
        TopicsCommand::Edit {
            id,
            name,
            description,
            rules,
            collect,
        } => {
            let edit = TopicEdit {
                name: name.clone(),
                description: description.clone(),
                rules: rules.rules()?,
                collecting: *collect,
            };
            let change = elnor_engine::edit_topic(store, &TopicId::new(id.as_str())?, &edit, now)?;
            print_change(&change, json)?;
        }
        TopicsCommand::Delete { id } => {
            elnor_engine::delete_topic(store, &TopicId::new(id.as_str())?)?;
            if json {
                output::json(&serde_json::json!({ "deleted": id }))?;
            } else {
                println!("deleted {id}");
            }
        }
        TopicsCommand::Pin { id, doc_id } => {
            let m =
                elnor_engine::pin_topic_member(store, &TopicId::new(id.as_str())?, doc_id, now)?;
            if json {
                output::json(&m)?;
            } else {
                println!("pinned {} into {id}: {}", m.doc_ref, m.label);
            }
        }
        TopicsCommand::Unpin { id, doc_id } => {
            elnor_engine::unpin_topic_member(store, &TopicId::new(id.as_str())?, doc_id, now)?;
            if json {
                output::json(&serde_json::json!({ "unpinned": doc_id }))?;
            } else {
                println!("took {doc_id} out of {id}");
            }
        }
        TopicsCommand::Collect => {
            let report = elnor_engine::collect_topics(store, now)?;
            if json {
                output::json(&report)?;
            } else {
                print_collected(&report);
            }
        }
        TopicsCommand::Proposals => {
            let list = elnor_engine::membership_proposals(store)?;
            if json {
                output::json(&list)?;
            } else if list.is_empty() {
                println!("no membership proposals waiting");
            }
            for p in list.iter().filter(|_| !json) {
                println!(
                    "#{:<4} {:<24} {:<11} {}",
                    p.membership.membership_id, p.topic_name, p.membership.kind, p.membership.label
                );
                if let Some(reason) = &p.membership.reason {
                    println!("      {reason}");
                }
            }
        }
        TopicsCommand::Approve { ids } => return decide(store, ids, true, json),
        TopicsCommand::Reject { ids } => return decide(store, ids, false, json),
    }
    Ok(ExitCode::SUCCESS)
}

fn print_change(change: &elnor_engine::TopicChange, json: bool) -> anyhow::Result<()> {
    if json {
        return output::json(change);
    }
    println!(
        "{}  {}{}",
        change.topic.topic_id,
        change.topic.name,
        if change.topic.collecting {
            "  (collecting)"
        } else {
            ""
        }
    );
    print_collected(&change.collected);
    Ok(())
}

fn print_collected(report: &elnor_engine::CollectReport) {
    if report.directives == 0 {
        return;
    }
    println!(
        "{} membership proposal(s) for review (`elnor topics proposals`)",
        report.proposed.len()
    );
    for (topic, n) in &report.too_broad {
        println!(
            "  {topic} matched {n} new documents, more than {} a run proposes: narrow its words",
            elnor_engine::MAX_PROPOSALS_PER_RUN
        );
    }
}

/// Decides every proposal the engine can, prints them, and reports each one it could not (on
/// stderr); the exit code is then the first failure's.
fn decide(store: &Store, ids: &[i64], approve: bool, json: bool) -> anyhow::Result<ExitCode> {
    let outcome = elnor_engine::decide_memberships(store, ids, approve, elnor_engine::now())?;
    if json {
        output::json(&outcome.decided)?;
    } else {
        for m in &outcome.decided {
            println!(
                "#{} {} into {}: {}",
                m.membership_id,
                m.status.as_str(),
                m.topic_id,
                m.label
            );
        }
    }
    let mut code = ExitCode::SUCCESS;
    for (n, (id, error)) in outcome.failed.into_iter().enumerate() {
        let err = anyhow::Error::new(error).context(format!("membership #{id}"));
        if n == 0 {
            code = ExitCode::from(output::exit_code(&err));
        }
        output::print_error(&err, json);
    }
    Ok(code)
}
