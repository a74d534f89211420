//! Which paths under a tracked folder the watcher ignores: version-control, build and dependency
//! folders, editor temp and swap files, and the person's own glob patterns.

use std::path::Path;

use globset::{Glob, GlobBuilder, GlobSet, GlobSetBuilder};

/// Folder names whose whole subtree is ignored.
pub const IGNORED_DIRS: &[&str] = &[
    ".git",
    ".hg",
    ".svn",
    ".jj",
    "node_modules",
    "target",
    "build",
    "dist",
    "out",
    "__pycache__",
    ".venv",
    "venv",
    ".tox",
    ".mypy_cache",
    ".pytest_cache",
    ".gradle",
    ".idea",
    ".vscode",
    ".cache",
    ".next",
    ".trash",
    ".Trash",
    ".obsidian",
];

/// File-name globs of editor temp, swap, lock and partial-download files.
pub const IGNORED_FILES: &[&str] = &[
    "*.swp",
    "*.swo",
    "*.swx",
    "*~",
    ".#*",
    "#*#",
    "4913",
    "*.tmp",
    "*.temp",
    "*.part",
    "*.crdownload",
    "~$*",
    ".~lock.*#",
    ".DS_Store",
    "Thumbs.db",
    ".goutputstream-*",
    "*.kate-swp",
];

/// The built-in rules in words, for display.
pub fn default_ignores() -> Vec<String> {
    IGNORED_DIRS
        .iter()
        .map(|d| format!("{d}/"))
        .chain(IGNORED_FILES.iter().map(|f| (*f).to_owned()))
        .collect()
}

/// Compiles one user pattern, or says what is wrong with it.
pub(crate) fn compile(pattern: &str) -> std::result::Result<Glob, String> {
    GlobBuilder::new(pattern)
        .literal_separator(true)
        .build()
        .map_err(|e| format!("`{pattern}` is not a valid glob ({})", e.kind()))
}

/// The compiled rules for one set of user patterns.
#[derive(Debug, Clone)]
pub struct IgnoreRules {
    files: GlobSet,
    user: GlobSet,
}

impl IgnoreRules {
    /// Patterns were validated when saved; one that no longer compiles is skipped rather than
    /// stopping the watcher.
    pub fn new(user_patterns: &[String]) -> IgnoreRules {
        let mut files = GlobSetBuilder::new();
        for f in IGNORED_FILES {
            if let Ok(g) = Glob::new(f) {
                files.add(g);
            }
        }
        let mut user = GlobSetBuilder::new();
        for p in user_patterns {
            if let Ok(g) = compile(p) {
                user.add(g);
            }
        }
        IgnoreRules {
            files: files.build().unwrap_or_else(|_| GlobSet::empty()),
            user: user.build().unwrap_or_else(|_| GlobSet::empty()),
        }
    }

    /// Whether `path` (under `root`) is ignored: any folder on the way is an ignored one, the file
    /// name is a temp or swap file, or a user pattern matches the relative path or the name.
    pub fn is_ignored(&self, root: &Path, path: &Path) -> bool {
        let Ok(rel) = path.strip_prefix(root) else {
            return true;
        };
        let mut components = rel.components().peekable();
        while let Some(c) = components.next() {
            let name = c.as_os_str();
            let last = components.peek().is_none();
            if !last && IGNORED_DIRS.iter().any(|d| name == *d) {
                return true;
            }
            if last && (IGNORED_DIRS.iter().any(|d| name == *d) || self.files.is_match(name)) {
                return true;
            }
        }
        if self.user.is_empty() {
            return false;
        }
        self.user.is_match(rel)
            || rel
                .file_name()
                .is_some_and(|n| self.user.is_match(Path::new(n)))
            || rel.ancestors().skip(1).any(|a| {
                // A pattern naming a folder ("drafts" or "drafts/**") ignores what is inside.
                !a.as_os_str().is_empty() && self.user.is_match(a)
            })
    }
}
