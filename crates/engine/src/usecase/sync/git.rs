//! The git the person has, run as a child process on the sync repository's work tree.
//!
//! Why the CLI and not `gix`/`git2`: it costs no build time, and it already knows the person's
//! SSH agent, credential helpers and proxies, so ELNOR never stores or asks for a credential.
//! Every call is non-interactive (`GIT_TERMINAL_PROMPT=0`, no editor, no pager) and names this
//! device as the author, whatever the person's global identity is.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::base::error::{Error, Result};

/// The branch every device commits to.
pub(crate) const BRANCH: &str = "main";

/// A git work tree and the device that commits in it.
pub(crate) struct Git {
    dir: PathBuf,
    author: String,
}

/// What a failed git call said, for the person: the command and git's own words (which never
/// hold a credential: git redacts them, and ELNOR passes none). A quiet merge says its conflicts
/// on standard output and nothing on standard error, so that is read when the other is empty.
fn failed(args: &[&str], out: &Output) -> Error {
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let said = match stderr.trim() {
        "" => stdout.trim(),
        said => said,
    };
    Error::InvalidInput(format!(
        "git {} failed: {}",
        args.first().copied().unwrap_or(""),
        if said.is_empty() { "no message" } else { said }
    ))
}

impl Git {
    pub(crate) fn new(dir: &Path, device: &str) -> Git {
        Git {
            dir: dir.to_owned(),
            author: device.to_owned(),
        }
    }

    /// The work tree.
    pub(crate) fn dir(&self) -> &Path {
        &self.dir
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new("git");
        cmd.arg("-C")
            .arg(&self.dir)
            .args([
                "-c",
                &format!("user.name=ELNOR {}", self.author),
                "-c",
                &format!("user.email={}@elnor.invalid", self.author),
                "-c",
                "commit.gpgsign=false",
                "-c",
                "core.autocrlf=false",
                "-c",
                "merge.renames=false",
            ])
            .args(args)
            .env("GIT_TERMINAL_PROMPT", "0")
            .env("GIT_EDITOR", "true")
            .env("GIT_PAGER", "cat")
            .env("LC_ALL", "C")
            .env_remove("GIT_DIR")
            .env_remove("GIT_WORK_TREE")
            .env_remove("GIT_INDEX_FILE");
        cmd
    }

    fn output(&self, args: &[&str]) -> Result<Output> {
        self.command(args).output().map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                Error::InvalidInput(
                    "sync needs git, and no `git` was found on PATH: install git and sync again"
                        .to_owned(),
                )
            } else {
                Error::io(&self.dir, e)
            }
        })
    }

    /// Runs git; its standard output, or an error with what git said.
    pub(crate) fn run(&self, args: &[&str]) -> Result<String> {
        let out = self.output(args)?;
        if !out.status.success() {
            return Err(failed(args, &out));
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }

    /// Runs git; whether it succeeded (for questions such as "does this ref exist").
    pub(crate) fn ok(&self, args: &[&str]) -> Result<bool> {
        Ok(self.output(args)?.status.success())
    }

    /// Runs git; its output when it succeeded, `None` when it did not.
    pub(crate) fn try_run(&self, args: &[&str]) -> Result<Option<String>> {
        let out = self.output(args)?;
        Ok(out
            .status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).into_owned()))
    }

    /// Makes the work tree a repository on [`BRANCH`] if it is not one yet.
    pub(crate) fn init(&self) -> Result<()> {
        std::fs::create_dir_all(&self.dir).map_err(|e| Error::io(&self.dir, e))?;
        if !self.dir.join(".git").exists() {
            self.run(&["init", "-q", "-b", BRANCH])?;
        }
        Ok(())
    }

    /// Points `origin` at `url`.
    pub(crate) fn set_remote(&self, url: &str) -> Result<()> {
        if let Some(now) = self.try_run(&["remote", "get-url", "origin"])? {
            if now.trim() != url {
                self.run(&["remote", "set-url", "origin", url])?;
            }
        } else {
            self.run(&["remote", "add", "origin", url])?;
        }
        Ok(())
    }

    /// Finishes or undoes what an interrupted sync left: lock files of a killed git are removed
    /// and a merge in progress is aborted (the next merge redoes it). Called under the store's
    /// sync lock, so no other git of ours runs in this work tree: every lock left is stale.
    pub(crate) fn recover(&self) -> Result<()> {
        let git_dir = self.dir.join(".git");
        let stale = walkdir::WalkDir::new(&git_dir)
            .into_iter()
            .filter_entry(|e| e.file_name() != "objects")
            .filter_map(|e| e.ok())
            .filter(|e| {
                e.file_type().is_file() && e.file_name().to_string_lossy().ends_with(".lock")
            });
        for lock in stale {
            std::fs::remove_file(lock.path()).map_err(|e| Error::io(lock.path(), e))?;
        }
        if git_dir.join("MERGE_HEAD").exists() {
            self.run(&["merge", "--abort"])?;
        }
        Ok(())
    }

    /// Puts every file that is not this device's back as the last commit has it, and removes
    /// untracked ones: only a merge brings other devices' files, so anything of theirs outside
    /// a commit is what a merge killed before it committed left, and committing it as this
    /// device's change would make the next merge meet the same lines added on both sides. This
    /// device's own files (`own`: pathspecs for git, `is_own` for a path) keep what a killed
    /// sync appended.
    pub(crate) fn restore_all_but(
        &self,
        own: &[String],
        is_own: impl Fn(&str) -> bool,
    ) -> Result<()> {
        if self.rev("HEAD")?.is_none() {
            return Ok(());
        }
        self.run(&["reset", "-q"])?;
        let mut checkout: Vec<String> = ["checkout", "-q", "HEAD", "--", "."]
            .map(str::to_owned)
            .to_vec();
        checkout.extend(own.iter().map(|p| format!(":(exclude){p}")));
        self.run(&checkout.iter().map(String::as_str).collect::<Vec<_>>())?;
        // Untracked files one by one: `git clean` takes a new folder whole, and this device's
        // first file in a context is in a folder nothing tracks yet.
        let untracked = self.run(&["ls-files", "-z", "--others"])?;
        for path in untracked
            .split('\0')
            .filter(|p| !p.is_empty() && !is_own(p))
        {
            let file = self.dir.join(path);
            std::fs::remove_file(&file).map_err(|e| Error::io(&file, e))?;
        }
        Ok(())
    }

    /// Fetches `origin`. `Ok(false)` when the remote could not be reached: sync works offline
    /// and sends later.
    pub(crate) fn fetch(&self) -> Result<std::result::Result<(), String>> {
        let args = ["fetch", "-q", "--no-tags", "origin"];
        let out = self.output(&args)?;
        if out.status.success() {
            Ok(Ok(()))
        } else {
            Ok(Err(String::from_utf8_lossy(&out.stderr).trim().to_owned()))
        }
    }

    /// The commit a ref names, if it exists.
    pub(crate) fn rev(&self, name: &str) -> Result<Option<String>> {
        Ok(self
            .try_run(&["rev-parse", "-q", "--verify", &format!("{name}^{{commit}}")])?
            .map(|s| s.trim().to_owned()))
    }

    /// A file's text at a ref, if the file exists there.
    pub(crate) fn show(&self, rev: &str, path: &str) -> Result<Option<String>> {
        self.try_run(&["show", &format!("{rev}:{path}")])
    }

    /// Commits what was added or appended in the work tree; false when there was nothing to
    /// commit. A missing file is never committed as a deletion: sync never deletes, so a file is
    /// missing only because a killed checkout left it unwritten, and it is restored instead.
    pub(crate) fn commit_all(&self, message: &str) -> Result<bool> {
        self.run(&["add", "--ignore-removal", "."])?;
        let staged = !self.ok(&["diff", "--cached", "--quiet"])?;
        if staged {
            self.run(&["commit", "-q", "-m", message])?;
        }
        if self.rev("HEAD")?.is_some() {
            // Fails only when the index is empty, when there is nothing to restore.
            self.ok(&["checkout", "-q", "--", "."])?;
        }
        Ok(staged)
    }

    /// Pushes [`BRANCH`], never by force. `Ok(false)` when the remote refused it (another
    /// device pushed first) or could not be reached.
    pub(crate) fn push(&self) -> Result<std::result::Result<(), String>> {
        let args = ["push", "-q", "origin", &format!("{BRANCH}:{BRANCH}")];
        let out = self.output(&args)?;
        if out.status.success() {
            Ok(Ok(()))
        } else {
            Ok(Err(String::from_utf8_lossy(&out.stderr).trim().to_owned()))
        }
    }

    /// How many commits one ref has that the other has not.
    pub(crate) fn count(&self, range: &str) -> Result<u64> {
        Ok(self
            .try_run(&["rev-list", "--count", range])?
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(0))
    }
}
