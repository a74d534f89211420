//! Full mode through an agent CLI the person already has (issue 37): Claude Code (`claude -p`)
//! or Codex (`codex exec`), run headless with the person's own login, so a model is at hand
//! without an API key and without a server. ELNOR passes no credential: the CLI uses the login
//! it keeps itself.
//!
//! The prompt goes on standard input (never in the arguments, which other users can see in the
//! process list). The CLI runs in the system's temporary folder, never in a project, so an agent
//! that decides to act has nothing of the person's to act on: Claude Code's print mode refuses
//! every tool that needs a permission, and Codex runs in its read-only sandbox. A call that
//! outlives the endpoint's timeout is killed. The spend guard counts these
//! calls like any other (the CLI's own plan or credits pay for them).

use std::io::{Read, Write};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::{ChatMessage, Endpoint, MAX_RESPONSE_BYTES, ModelFailure, detail};
use crate::base::config::SynthesisProvider;

/// The program a CLI provider runs when the config names no path: found on `PATH`.
pub fn default_program(provider: SynthesisProvider) -> Option<&'static str> {
    match provider {
        SynthesisProvider::ClaudeCli => Some("claude"),
        SynthesisProvider::CodexCli => Some("codex"),
        SynthesisProvider::Ollama | SynthesisProvider::OpenaiCompatible => None,
    }
}

/// One call: the messages as one prompt, the CLI's final answer as the reply.
pub(super) fn chat(endpoint: &Endpoint, messages: &[ChatMessage]) -> Result<String, ModelFailure> {
    let prompt = messages
        .iter()
        .map(|m| m.content.as_str())
        .collect::<Vec<_>>()
        .join("\n\n");
    // A bare name is looked for where the CLIs install themselves too: an app started from a
    // desktop gets a shorter PATH than the person's shell.
    let named = endpoint.base_url.trim();
    let found = (!named.contains(['/', '\\']))
        .then(|| find(named, std::env::var_os("PATH").as_deref(), &install_dirs()))
        .flatten();
    let program = found.as_deref().unwrap_or(std::path::Path::new(named));
    let model = endpoint.model.trim();
    let workdir = std::env::temp_dir();
    let mut cmd = Command::new(program);
    cmd.current_dir(&workdir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // Codex writes its final message to a file of ours; its standard output is a log.
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let answer_file = workdir.join(format!(
        "elnor-codex-answer-{}-{nanos}.txt",
        std::process::id()
    ));
    match endpoint.provider {
        SynthesisProvider::ClaudeCli => {
            cmd.args(["-p", "--output-format", "json"]);
            if !model.is_empty() {
                cmd.args(["--model", model]);
            }
        }
        SynthesisProvider::CodexCli => {
            cmd.args(["exec", "--skip-git-repo-check", "--sandbox", "read-only"]);
            if !model.is_empty() {
                cmd.args(["--model", model]);
            }
            cmd.arg("--output-last-message").arg(&answer_file).arg("-");
        }
        SynthesisProvider::Ollama | SynthesisProvider::OpenaiCompatible => {
            return Err(ModelFailure::NotConfigured(
                "an HTTP provider is not an agent CLI".into(),
            ));
        }
    }
    // A program being written as it starts (an update of the CLI installing, or another thread
    // of this process forking while it held the file open) is busy for a moment: try again.
    let mut spawned = cmd.spawn();
    for _ in 0..10 {
        match &spawned {
            Err(e) if e.kind() == std::io::ErrorKind::ExecutableFileBusy => {
                std::thread::sleep(Duration::from_millis(20));
                spawned = cmd.spawn();
            }
            _ => break,
        }
    }
    let child = spawned.map_err(|e| {
        ModelFailure::Unreachable(if e.kind() == std::io::ErrorKind::NotFound {
            format!(
                "{} was not found: install it, or set its path in Settings",
                program.display()
            )
        } else {
            detail(&format!("{} could not start: {e}", program.display()))
        })
    })?;
    let result = run(child, &prompt, endpoint.timeout);
    let file_answer = std::fs::read_to_string(&answer_file).ok();
    let _ = std::fs::remove_file(&answer_file);
    let (stdout, stderr) = result?;
    match endpoint.provider {
        SynthesisProvider::ClaudeCli => claude_result(&stdout),
        _ => match file_answer.filter(|a| !a.trim().is_empty()) {
            Some(answer) => Ok(answer),
            None if !stdout.trim().is_empty() => Ok(stdout),
            None => Err(ModelFailure::BadJson(format!(
                "codex gave no answer{}",
                if stderr.trim().is_empty() {
                    String::new()
                } else {
                    format!(": {}", detail(&stderr))
                }
            ))),
        },
    }
}

/// Feeds the prompt, waits at most `timeout`, and returns what the CLI printed; a failed exit
/// is a failure saying the CLI's own words.
fn run(
    mut child: Child,
    prompt: &str,
    timeout: Duration,
) -> Result<(String, String), ModelFailure> {
    if let Some(mut stdin) = child.stdin.take() {
        // A CLI that exits before reading is reported by its exit status below.
        let _ = stdin.write_all(prompt.as_bytes());
    }
    // Read both streams on their own threads, so a chatty CLI never blocks on a full pipe.
    let read = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            if let Some(p) = pipe {
                let _ = p.take(MAX_RESPONSE_BYTES).read_to_string(&mut text);
            }
            text
        })
    };
    let out = read(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let err = read(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() >= timeout => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(ModelFailure::Timeout);
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => return Err(ModelFailure::Unreachable(detail(&e.to_string()))),
        }
    };
    let stdout = out.join().unwrap_or_default();
    let stderr = err.join().unwrap_or_default();
    if !status.success() {
        let said = if stderr.trim().is_empty() {
            &stdout
        } else {
            &stderr
        };
        return Err(ModelFailure::Unreachable(detail(&format!(
            "the agent CLI exited with {status}: {said}"
        ))));
    }
    Ok((stdout, stderr))
}

/// Claude Code's `--output-format json` result: `{"type": "result", "is_error": …, "result": …}`.
fn claude_result(stdout: &str) -> Result<String, ModelFailure> {
    let v: Value = serde_json::from_str(stdout.trim()).map_err(|e| {
        ModelFailure::BadJson(format!("claude's output is not its JSON result ({e})"))
    })?;
    let text = v.get("result").and_then(Value::as_str).unwrap_or("");
    if v.get("is_error").and_then(Value::as_bool) == Some(true) {
        return Err(ModelFailure::Refusal(detail(text)));
    }
    if text.trim().is_empty() {
        return Err(ModelFailure::BadJson("claude's result is empty".into()));
    }
    Ok(text.to_owned())
}

/// A model this machine can use for full mode without a key.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct FoundBackend {
    pub provider: SynthesisProvider,
    /// The Ollama server's address, or the CLI's program.
    pub at: String,
    /// The models Ollama has pulled (empty for a CLI: it uses the model its login allows).
    pub models: Vec<String>,
}

/// Where Ollama listens unless told otherwise.
pub const OLLAMA_DEFAULT_URL: &str = "http://localhost:11434";

/// The models this machine offers for full mode: an Ollama server answering at `ollama_url`
/// (its pulled models listed), and the agent CLIs found on `path` (the `PATH` variable's
/// value). Quick: Ollama gets two seconds, and a CLI is only looked for, never run.
pub fn detect(ollama_url: &str, path: Option<&std::ffi::OsStr>) -> Vec<FoundBackend> {
    detect_in(ollama_url, path, &install_dirs())
}

/// The folders the CLIs' installers use (`~/.local/bin`, `~/.claude/local`, npm's and bun's
/// global folders, Homebrew's), which a desktop app's PATH often lacks.
fn install_dirs() -> Vec<std::path::PathBuf> {
    let mut dirs = Vec::new();
    if let Some(home) = std::env::var_os("HOME").or_else(|| std::env::var_os("USERPROFILE")) {
        let home = std::path::PathBuf::from(home);
        for sub in [".local/bin", ".claude/local", ".npm-global/bin", ".bun/bin"] {
            dirs.push(home.join(sub));
        }
    }
    dirs.extend(["/opt/homebrew/bin", "/usr/local/bin"].map(std::path::PathBuf::from));
    dirs
}

/// [`detect`] with the install folders given, so a test sees only its own.
pub(super) fn detect_in(
    ollama_url: &str,
    path: Option<&std::ffi::OsStr>,
    install: &[std::path::PathBuf],
) -> Vec<FoundBackend> {
    let mut found = Vec::new();
    let endpoint = Endpoint {
        provider: SynthesisProvider::Ollama,
        base_url: ollama_url.to_owned(),
        model: String::new(),
        timeout: Duration::from_secs(2),
    };
    let url = format!("{}/api/tags", ollama_url.trim().trim_end_matches('/'));
    if let Ok(mut response) = super::http_agent(&endpoint).get(&url).call()
        && response.status().is_success()
        && let Ok(text) = response
            .body_mut()
            .with_config()
            .limit(MAX_RESPONSE_BYTES)
            .read_to_string()
        && let Ok(v) = serde_json::from_str::<Value>(&text)
        && let Some(models) = v.get("models").and_then(Value::as_array)
    {
        found.push(FoundBackend {
            provider: SynthesisProvider::Ollama,
            at: ollama_url.to_owned(),
            models: models
                .iter()
                .filter_map(|m| m.get("name").and_then(Value::as_str))
                .map(str::to_owned)
                .collect(),
        });
    }
    for provider in [SynthesisProvider::ClaudeCli, SynthesisProvider::CodexCli] {
        let Some(name) = default_program(provider) else {
            continue;
        };
        if let Some(program) = find(name, path, install) {
            found.push(FoundBackend {
                provider,
                at: program.display().to_string(),
                models: Vec::new(),
            });
        }
    }
    found
}

/// The first executable file called `name` in the folders of `path`, then in `install`.
fn find(
    name: &str,
    path: Option<&std::ffi::OsStr>,
    install: &[std::path::PathBuf],
) -> Option<std::path::PathBuf> {
    path.map(|p| std::env::split_paths(p).collect::<Vec<_>>())
        .unwrap_or_default()
        .into_iter()
        .chain(install.iter().cloned())
        .map(|dir| dir.join(name))
        .find(|p| is_executable(p))
}

#[cfg(unix)]
fn is_executable(p: &std::path::Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    p.metadata()
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(p: &std::path::Path) -> bool {
    p.is_file() || p.with_extension("exe").is_file() || p.with_extension("cmd").is_file()
}
