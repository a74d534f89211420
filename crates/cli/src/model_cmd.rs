//! `elnor model …`: the synthesis model used in full mode — show its settings and spend, test the
//! connection, and keep its API key in the OS keyring (read from stdin, never from arguments,
//! which other users can see in the process list).

use std::io::Read;
use std::process::ExitCode;

use anyhow::{Context, bail};
use clap::Subcommand;
use elnor_engine::Store;
use elnor_engine::{EMBEDDING_API_KEY, OsKeyring, SYNTHESIS_API_KEY, SecretStore};
use elnor_engine::{Endpoint, test_connection};

use crate::output;

#[derive(Debug, Subcommand)]
pub enum ModelCommand {
    /// Show the synthesis model's settings, whether a key is stored, and calls in the last
    /// hour and day against the spend guard.
    Show,
    /// Send a tiny request and print the answer or why it failed.
    Test,
    /// List the models this machine offers for full mode without a key: a local Ollama and
    /// its models, and the agent CLIs (Claude Code, Codex) on PATH.
    Detect {
        /// Where to look for Ollama.
        #[arg(long, default_value = elnor_engine::OLLAMA_DEFAULT_URL)]
        ollama_url: String,
    },
    /// Manage the API key in the OS keyring.
    #[command(subcommand)]
    Key(KeyCommand),
}

#[derive(Debug, Subcommand)]
pub enum KeyCommand {
    /// Store the key read from standard input (e.g. `printf %s "$KEY" | elnor model key set`).
    Set {
        /// `synthesis` (the default) or `embedding`: the OpenAI-compatible embedding
        /// endpoint's key, for search.
        #[arg(long = "for", default_value = "synthesis")]
        purpose: String,
    },
    /// Remove the stored key.
    Clear {
        #[arg(long = "for", default_value = "synthesis")]
        purpose: String,
    },
}

/// The keyring account of a key's purpose.
fn account(purpose: &str) -> anyhow::Result<&'static str> {
    match purpose {
        "synthesis" => Ok(SYNTHESIS_API_KEY),
        "embedding" => Ok(EMBEDDING_API_KEY),
        other => crate::usage!("unknown key purpose {other:?}: use synthesis or embedding"),
    }
}

pub fn run(store: &Store, cmd: &ModelCommand, json: bool) -> anyhow::Result<ExitCode> {
    let config = store.config()?;
    let keyring = OsKeyring::new();
    match cmd {
        ModelCommand::Show => {
            let usage = store.graph().model_usage(elnor_engine::now())?;
            // A keyring that cannot be asked is reported, not fatal: the rest is still useful.
            let key = match keyring.get(SYNTHESIS_API_KEY) {
                Ok(k) => if k.is_some() {
                    "stored in the OS keyring"
                } else {
                    "none"
                }
                .to_owned(),
                Err(e) => format!("unknown ({e})"),
            };
            let body = serde_json::json!({
                "mode": config.mode.as_str(),
                "provider": config.synthesis_provider.as_str(),
                "base_url": config.synthesis_base_url,
                "model": config.synthesis_model,
                "timeout_seconds": config.synthesis_timeout_seconds,
                "api_key": key,
                "calls_last_hour": usage.0,
                "calls_last_day": usage.1,
                "max_calls_per_hour": config.max_model_calls_per_hour,
                "max_calls_per_day": config.max_model_calls_per_day,
                "knowledge_cutoff": config.model_knowledge_cutoff,
                "date_awareness": config.model_date_awareness,
                "profile_verified": config.model_profile_verified,
            });
            if json {
                output::json(&body)?;
            } else if let serde_json::Value::Object(map) = body {
                for (k, v) in map {
                    let v = match v {
                        serde_json::Value::String(s) => s,
                        serde_json::Value::Null => "(unset)".into(),
                        other => other.to_string(),
                    };
                    println!("{k:<20} {v}");
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        ModelCommand::Test => {
            let endpoint =
                Endpoint::from_config(&config).map_err(|f| anyhow::anyhow!(f.reason()))?;
            let key = if config.synthesis_provider.takes_key() {
                keyring.get(SYNTHESIS_API_KEY)?
            } else {
                None
            };
            match test_connection(&endpoint, key.as_deref()) {
                Ok(answer) => {
                    if json {
                        output::json(&serde_json::json!({ "ok": true, "answer": answer }))?;
                    } else {
                        println!("ok: {answer}");
                    }
                    Ok(ExitCode::SUCCESS)
                }
                Err(f) => bail!("connection test failed: {}", f.reason()),
            }
        }
        ModelCommand::Detect { ollama_url } => {
            let found =
                elnor_engine::detect_models(ollama_url, std::env::var_os("PATH").as_deref());
            if json {
                output::json(&serde_json::json!({ "found": found }))?;
            } else if found.is_empty() {
                println!(
                    "no model found: no Ollama at {ollama_url}, and neither `claude` nor `codex` \
                     on PATH; deterministic mode needs none"
                );
            } else {
                for f in &found {
                    let models = if f.models.is_empty() {
                        String::new()
                    } else {
                        format!(" — models: {}", f.models.join(", "))
                    };
                    println!("{:<18} {}{models}", f.provider.as_str(), f.at);
                }
                println!(
                    "use one: elnor config set synthesis_provider <name above> (and, for Ollama, \
                     synthesis_base_url and synthesis_model), then elnor config set mode full"
                );
            }
            Ok(ExitCode::SUCCESS)
        }
        ModelCommand::Key(KeyCommand::Set { purpose }) => {
            let account = account(purpose)?;
            let mut key = String::new();
            std::io::stdin()
                .read_to_string(&mut key)
                .context("cannot read the key from standard input")?;
            let key = key.trim();
            if key.is_empty() {
                bail!(
                    "no key on standard input; pipe it in: printf %s \"$KEY\" | elnor model key set"
                );
            }
            keyring.set(account, key)?;
            if json {
                output::json(&serde_json::json!({ "api_key": "stored" }))?;
            } else {
                println!("API key stored in the OS keyring");
            }
            Ok(ExitCode::SUCCESS)
        }
        ModelCommand::Key(KeyCommand::Clear { purpose }) => {
            keyring.delete(account(purpose)?)?;
            if json {
                output::json(&serde_json::json!({ "api_key": "removed" }))?;
            } else {
                println!("API key removed from the OS keyring");
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}
