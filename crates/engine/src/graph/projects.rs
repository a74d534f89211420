//! Projects: the folder a session worked in, as a person would name it.
//!
//! A session's project comes from its working directory. The directory is normalised first
//! (Windows drive letters and separators compared case-insensitively, trailing separators
//! dropped, `~` expanded), then lifted to the root of its git work tree when the folder exists on
//! this machine (every worktree of one repository is one project), and otherwise kept as it is:
//! most histories come from other machines or from folders since deleted, and the folder itself
//! is then the best name the work has. A home directory, a filesystem root or a temp folder is not
//! a project, because everything a person does could have started there.
//!
//! This module only decides what a directory means. Creating the work context of a project is
//! [`crate::graph::contexts::ensure_projects`]'s job.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

/// A project found from a working directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Project {
    /// The comparison key: the root normalised, lower-cased on Windows paths.
    pub key: String,
    /// The root as it is displayed and stored in a `cwd` link rule.
    pub root: String,
    /// The folder's own name, which names the work context ("MoonMind").
    pub name: String,
}

impl Project {
    /// The id of the project's work context: stable for a root, whatever it is named later.
    pub fn work_context_id(&self) -> String {
        let digest = Sha256::digest(self.key.as_bytes());
        let hex: String = digest[..6].iter().map(|b| format!("{b:02x}")).collect();
        format!("wc_proj_{hex}")
    }
}

/// This machine's home directory, for `~` and for refusing it as a project.
pub fn home_dir() -> Option<String> {
    std::env::var("HOME")
        .ok()
        .or_else(|| std::env::var("USERPROFILE").ok())
        .filter(|h| !h.is_empty())
}

/// Whether a path is written the Windows way (`C:\…`, `c:/…` or `\\server\share`).
fn is_windows(path: &str) -> bool {
    let b = path.as_bytes();
    (b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':') || path.starts_with("\\\\")
}

/// A directory as one canonical string: separators unified (`\` on Windows paths, `/`
/// elsewhere), repeated and trailing separators dropped, `~` expanded against `home`, and a
/// Windows drive letter upper-cased. Empty when nothing is left.
pub fn normalise(raw: &str, home: Option<&str>) -> String {
    let mut path = raw.trim().to_owned();
    if let Some(home) = home
        && (path == "~" || path.starts_with("~/") || path.starts_with("~\\"))
    {
        path = format!("{}{}", home.trim_end_matches(['/', '\\']), &path[1..]);
    }
    let windows = is_windows(&path);
    let sep = if windows { '\\' } else { '/' };
    let unc = path.starts_with("\\\\");
    let mut out = String::with_capacity(path.len());
    let mut last_sep = false;
    for c in path.chars() {
        let c = if c == '/' || c == '\\' { sep } else { c };
        if c == sep {
            if last_sep {
                continue;
            }
            last_sep = true;
        } else {
            last_sep = false;
        }
        out.push(c);
    }
    if unc {
        out.insert(0, '\\');
    }
    while out.len() > 1 && out.ends_with(sep) && !(windows && out.len() == 3) {
        out.pop();
    }
    if windows && out.as_bytes().get(1) == Some(&b':') {
        out[..1].make_ascii_uppercase();
        if out.len() == 2 {
            out.push('\\');
        }
    }
    out
}

/// The comparison key of a normalised directory: Windows paths compare case-insensitively.
pub fn key_of(normalised: &str) -> String {
    if is_windows(normalised) {
        normalised.to_lowercase()
    } else {
        normalised.to_owned()
    }
}

/// Whether `path` is `dir` or inside it, both normalised first and compared by key, so a rule
/// written `C:\Work` holds a session in `c:\work\app`.
pub fn within(path: &str, dir: &str) -> bool {
    let path = key_of(&normalise(path, None));
    let dir = key_of(&normalise(dir, None));
    if dir.is_empty() {
        return false;
    }
    path == dir
        || path.strip_prefix(dir.as_str()).is_some_and(|rest| {
            rest.starts_with('/') || rest.starts_with('\\') || dir.ends_with(['/', '\\'])
        })
}

fn components(normalised: &str) -> Vec<&str> {
    normalised
        .split(['/', '\\'])
        .filter(|c| !c.is_empty())
        .collect()
}

/// A directory that cannot be a project: a filesystem root, a home directory (this machine's or
/// the usual `/home/<user>`, `/Users/<user>`, `C:\Users\<user>`, `/root` shapes of another's),
/// or a temp or cache folder.
pub fn is_not_a_project(normalised: &str, home: Option<&str>) -> bool {
    let key = key_of(normalised);
    if let Some(home) = home {
        let home = key_of(&normalise(home, None));
        if !home.is_empty() && key == home {
            return true;
        }
    }
    let parts = components(&key);
    let windows = is_windows(normalised);
    let lower: Vec<String> = parts.iter().map(|p| p.to_lowercase()).collect();
    let depth = if windows {
        parts.len().saturating_sub(1)
    } else {
        parts.len()
    };
    if depth == 0 {
        return true;
    }
    let first = if windows {
        lower.get(1).map(String::as_str)
    } else {
        lower.first().map(String::as_str)
    };
    // A home directory, or the folder that holds them.
    if matches!(first, Some("home" | "users")) && depth <= 2 {
        return true;
    }
    if !windows && first == Some("root") && depth == 1 {
        return true;
    }
    // A mounted drive's root (`/mnt/d`, `/Volumes/Data`, `/media/alice/usb`) is a filesystem
    // root too.
    if !windows
        && (matches!(first, Some("mnt" | "volumes")) && depth <= 2
            || first == Some("media") && depth <= 3)
    {
        return true;
    }
    const TEMP: &[&str] = &["tmp", "temp", "var", "private", "dev", "proc", "sys"];
    if !windows && first.is_some_and(|f| TEMP.contains(&f)) {
        return true;
    }
    // Temp and cache folders wherever they sit (`AppData\Local\Temp`, `/data/.cache/…`,
    // `pytest-of-alice`, CI runners' tool caches).
    lower.iter().any(|p| {
        matches!(
            p.as_str(),
            "temp" | "tmp" | ".cache" | "caches" | "hostedtoolcache" | "node_modules"
        ) || p.starts_with("pytest-of-")
            || p.starts_with("tmp.")
    })
}

/// The root of the git work tree holding `dir` on this machine, if it exists here. A linked
/// worktree (its `.git` a file naming `…/.git/worktrees/<name>`) lifts to the main repository,
/// so every worktree of one repository is one project.
fn git_root(dir: &Path) -> Option<PathBuf> {
    let mut at = Some(dir);
    while let Some(d) = at {
        let dot_git = d.join(".git");
        if dot_git.is_dir() {
            return Some(d.to_path_buf());
        }
        if dot_git.is_file() {
            let text = std::fs::read_to_string(&dot_git).ok()?;
            let gitdir = text.lines().find_map(|l| l.strip_prefix("gitdir:"))?.trim();
            let gitdir = if Path::new(gitdir).is_absolute() {
                PathBuf::from(gitdir)
            } else {
                d.join(gitdir)
            };
            // `<main>/.git/worktrees/<name>` → `<main>`.
            let main = gitdir
                .ancestors()
                .find(|a| a.file_name().is_some_and(|n| n == ".git"))
                .and_then(Path::parent);
            return Some(main.map_or_else(|| d.to_path_buf(), Path::to_path_buf));
        }
        at = d.parent();
    }
    None
}

/// The project of a session's working directory, or `None` when the directory is not one.
/// `home` is this machine's home directory (for `~` and for refusing it as a project).
pub fn of_cwd(cwd: &str, home: Option<&str>) -> Option<Project> {
    let normalised = normalise(cwd, home);
    if normalised.is_empty() || is_not_a_project(&normalised, home) {
        return None;
    }
    // A per-agent workspace (`~/.openclaw/workspace-<name>`) is a project of its own even when
    // the person keeps their home folder in git.
    let agent_workspace = components(&normalised)
        .iter()
        .any(|c| c.starts_with(".openclaw") || c.starts_with(".clawdbot"));
    let root = if !is_windows(&normalised) && !agent_workspace {
        let path = Path::new(&normalised);
        match path.is_dir().then(|| git_root(path)).flatten() {
            Some(r) => {
                let r = normalise(&r.to_string_lossy(), home);
                // A repository at the home folder (dotfiles) says nothing about the project.
                if is_not_a_project(&r, home) {
                    normalised
                } else {
                    r
                }
            }
            None => normalised,
        }
    } else {
        normalised
    };
    let name = components(&root).last()?.to_string();
    Some(Project {
        key: key_of(&root),
        root,
        name,
    })
}

#[cfg(test)]
mod tests;
