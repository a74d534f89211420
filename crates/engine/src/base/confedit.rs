//! Editing a settings file that belongs to the person, not to ELNOR: Claude Code's
//! `settings.json`, Codex's `hooks.json` and `config.toml`, OpenClaw's `openclaw.json`.
//!
//! Such a file is theirs, so every edit here keeps what they wrote: the file is parsed into a
//! format-preserving tree (JSON / JSON5 with comments, unquoted keys, single quotes and trailing
//! commas through `jsonc-parser`'s CST; TOML through `toml_edit`), only the keys ELNOR owns are
//! touched, and the text around them stays byte for byte. A file that does not parse is an error
//! naming the file and the line, and nothing is written. A real write first copies the old file
//! to `<name>.elnor-backup-<time>` beside it, then replaces it atomically with the old file's
//! permissions (through a symbolic link, so a dotfiles checkout keeps its link), and refuses when
//! the file changed between the read and the write. A dry run gets the same edit as a unified
//! diff instead.

use std::fs;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use jsonc_parser::ParseOptions;
use jsonc_parser::cst::CstRootNode;

use crate::base::error::{Error, Result};
use crate::base::fsutil;

/// What a harness's settings file held when it was read: its text, or `None` when there is no
/// file yet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Original {
    pub(crate) path: PathBuf,
    pub(crate) text: Option<String>,
}

/// Reads `path`, which may be absent. A file that is not UTF-8 is an error: an edit could not
/// keep its bytes.
pub(crate) fn read(path: &Path) -> Result<Original> {
    let text = match fs::read(path) {
        Ok(bytes) => Some(String::from_utf8(bytes).map_err(|_| Error::HarnessConfig {
            path: path.to_owned(),
            problem: "not UTF-8 text, so ELNOR cannot edit it without changing its bytes".into(),
        })?),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(Error::io(path, e)),
    };
    Ok(Original {
        path: path.to_owned(),
        text,
    })
}

/// The parse options for JSON5 and JSONC: everything JSON5 allows, so OpenClaw's configs and a
/// hand-edited Claude Code settings file both parse.
pub(crate) fn json5_options() -> ParseOptions {
    ParseOptions::default()
}

/// Parses JSON / JSON5 text into a tree that prints back byte for byte; an empty file is an
/// empty object. A parse failure names the line and column.
pub(crate) fn parse_json5(path: &Path, text: &str) -> Result<CstRootNode> {
    let text = if text.trim().is_empty() { "{}\n" } else { text };
    let root = CstRootNode::parse(text, &json5_options()).map_err(|e| Error::HarnessConfig {
        path: path.to_owned(),
        problem: format!(
            "line {}, column {}: {}; fix the file (or move it aside) and run again",
            e.line_display(),
            e.column_display(),
            e.kind()
        ),
    })?;
    if root.value().is_some_and(|v| v.as_object().is_none()) {
        return Err(Error::HarnessConfig {
            path: path.to_owned(),
            problem: "the file's top level is not an object ({ … })".into(),
        });
    }
    Ok(root)
}

/// Parses TOML text into a document that prints back byte for byte.
pub(crate) fn parse_toml(path: &Path, text: &str) -> Result<toml_edit::DocumentMut> {
    text.parse::<toml_edit::DocumentMut>()
        .map_err(|e| Error::HarnessConfig {
            path: path.to_owned(),
            problem: format!(
                "line {}: {}; fix the file (or move it aside) and run again",
                e.span().map(|s| line_of(text, s.start)).unwrap_or(1),
                e.message().trim()
            ),
        })
}

/// The 1-based line holding byte `offset` of `text`.
pub(crate) fn line_of(text: &str, offset: usize) -> usize {
    text.get(..offset.min(text.len()))
        .map_or(1, |head| head.matches('\n').count() + 1)
}

/// A unified diff from `old` (absent: an empty file) to `new`, headed with the path.
pub(crate) fn unified_diff(path: &Path, old: Option<&str>, new: &str) -> String {
    let shown = path.display().to_string();
    let before = if old.is_some() {
        shown.clone()
    } else {
        "/dev/null".to_owned()
    };
    similar::TextDiff::from_lines(old.unwrap_or(""), new)
        .unified_diff()
        .context_radius(3)
        .header(&before, &shown)
        .to_string()
}

/// Where a write to `path` lands: the file a symbolic link points at, so that replacing the file
/// keeps the link (a settings file kept in a dotfiles repository).
fn target_of(path: &Path) -> Result<PathBuf> {
    match fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => {
            fs::canonicalize(path).map_err(|e| Error::io(path, e))
        }
        _ => Ok(path.to_owned()),
    }
}

/// Replaces the file `original` was read from with `new`: a backup of the old file first (when
/// there was one), then an atomic write with the old file's permissions. Refuses, writing
/// nothing, when the file changed since it was read (the harness or the person wrote it
/// meanwhile). Returns the backup's path.
pub(crate) fn replace(
    original: &Original,
    new: &str,
    now: DateTime<Utc>,
) -> Result<Option<PathBuf>> {
    let path = &original.path;
    let current = read(path)?;
    if current.text != original.text {
        return Err(Error::HarnessConfig {
            path: path.clone(),
            problem: "the file changed while ELNOR was editing it; nothing was written, run the \
                      command again"
                .into(),
        });
    }
    let target = target_of(path)?;
    if original.text.is_none() {
        let dir = target.parent().unwrap_or(Path::new("."));
        if !dir.is_dir() {
            return Err(Error::HarnessConfig {
                path: path.clone(),
                problem: format!(
                    "its folder {} does not exist; is the harness installed for this user?",
                    dir.display()
                ),
            });
        }
        fsutil::atomic_write(&target, new.as_bytes())?;
        return Ok(None);
    }
    let permissions = fs::metadata(&target)
        .map_err(|e| Error::io(&target, e))?
        .permissions();
    let backup = backup_path(&target, now);
    // `fs::copy` carries the permissions over, so a backup of a private file stays private.
    fs::copy(&target, &backup).map_err(|e| Error::io(&backup, e))?;
    fsutil::atomic_write_with(&target, new.as_bytes(), Some(&permissions))?;
    Ok(Some(backup))
}

/// A backup name beside `target` that no earlier backup holds.
fn backup_path(target: &Path, now: DateTime<Utc>) -> PathBuf {
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let stamp = now.format("%Y%m%dT%H%M%SZ");
    let first = target.with_file_name(format!("{name}.elnor-backup-{stamp}"));
    if !first.exists() {
        return first;
    }
    (2..)
        .map(|n| target.with_file_name(format!("{name}.elnor-backup-{stamp}-{n}")))
        .find(|p| !p.exists())
        .unwrap_or(first)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json5_with_comments_unquoted_keys_and_trailing_commas_prints_back_unchanged() {
        let text = "// mine\n{\n  gateway: { port: 18789, },\n  'quoted': 'single', // note\n}\n";
        let root = parse_json5(Path::new("x.json5"), text).unwrap();
        assert_eq!(root.to_string(), text);
    }

    #[test]
    fn a_parse_error_names_the_line() {
        let err = parse_json5(Path::new("x.json"), "{\n  \"a\": 1,\n  \"b\" 2\n}\n").unwrap_err();
        let msg = err.to_string();
        assert!(msg.starts_with("x.json: line 3"), "{msg}");
        let err = parse_toml(Path::new("c.toml"), "a = 1\n[b\nc = 2\n").unwrap_err();
        assert!(err.to_string().starts_with("c.toml: line 2"), "{err}");
        let err = parse_json5(Path::new("x.json"), "[1, 2]").unwrap_err();
        assert!(err.to_string().contains("not an object"), "{err}");
    }

    #[test]
    fn replace_backs_up_keeps_permissions_and_refuses_a_file_that_moved_on() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        fs::write(&path, "{}\n").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).unwrap();
        }
        let now = Utc::now();
        let original = read(&path).unwrap();
        let backup = replace(&original, "{\"a\": 1}\n", now).unwrap().unwrap();
        assert_eq!(fs::read_to_string(&backup).unwrap(), "{}\n");
        assert_eq!(fs::read_to_string(&path).unwrap(), "{\"a\": 1}\n");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o600);
        }
        // A second backup in the same second gets a name of its own.
        let again = read(&path).unwrap();
        let second = replace(&again, "{\"a\": 2}\n", now).unwrap().unwrap();
        assert_ne!(second, backup);
        // Someone wrote the file after it was read: nothing is written.
        let stale = read(&path).unwrap();
        fs::write(&path, "{\"theirs\": true}\n").unwrap();
        assert!(replace(&stale, "{}\n", now).is_err());
        assert_eq!(fs::read_to_string(&path).unwrap(), "{\"theirs\": true}\n");
    }

    #[cfg(unix)]
    #[test]
    fn replace_writes_through_a_symbolic_link() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("dotfiles-settings.json");
        fs::write(&real, "{}\n").unwrap();
        let link = dir.path().join("settings.json");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let original = read(&link).unwrap();
        replace(&original, "{\"a\": 1}\n", Utc::now()).unwrap();
        assert!(
            fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(fs::read_to_string(&real).unwrap(), "{\"a\": 1}\n");
    }

    #[test]
    fn a_new_file_needs_its_folder() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("no-such-harness").join("settings.json");
        let original = read(&missing).unwrap();
        assert_eq!(original.text, None);
        let err = replace(&original, "{}\n", Utc::now()).unwrap_err();
        assert!(err.to_string().contains("does not exist"), "{err}");
        let here = dir.path().join("settings.json");
        replace(&read(&here).unwrap(), "{}\n", Utc::now()).unwrap();
        assert_eq!(fs::read_to_string(&here).unwrap(), "{}\n");
    }

    #[test]
    fn the_diff_shows_only_the_change() {
        let d = unified_diff(Path::new("f.json"), Some("a\nb\nc\n"), "a\nB\nc\n");
        assert!(d.contains("-b\n+B\n"), "{d}");
        let created = unified_diff(Path::new("f.json"), None, "x\n");
        assert!(created.starts_with("--- /dev/null"), "{created}");
    }
}
