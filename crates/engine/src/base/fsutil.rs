//! Small filesystem helpers shared by the config and the derived files: atomic replacement
//! (temp file + fsync + rename + directory fsync) and an advisory lock file.

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::base::error::{Error, Result};

/// Replaces `path` with `bytes` so that readers see either the old or the new content, never a
/// mix, and the new content survives a crash once this returns.
pub(crate) fn atomic_write(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let file_name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{file_name}.tmp-{}", std::process::id()));
    let result = (|| {
        let mut file = File::create(&tmp).map_err(|e| Error::io(&tmp, e))?;
        file.write_all(bytes).map_err(|e| Error::io(&tmp, e))?;
        file.sync_all().map_err(|e| Error::io(&tmp, e))?;
        fs::rename(&tmp, path).map_err(|e| Error::io(path, e))?;
        sync_dir(dir)
    })();
    if result.is_err() {
        // The temp file is ours alone; removing it keeps a failed write from leaving litter.
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// Makes a rename or a new file in `dir` durable.
pub(crate) fn sync_dir(dir: &Path) -> Result<()> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| Error::io(dir, e))
}

/// An exclusive advisory lock held on a lock file until dropped. Lock files are never renamed or
/// deleted, so two processes always lock the same inode even while the data file beside them is
/// replaced by an atomic rename.
pub(crate) struct LockGuard {
    file: File,
    _path: PathBuf,
}

impl LockGuard {
    pub(crate) fn acquire(path: &Path) -> Result<LockGuard> {
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(path)
            .map_err(|e| Error::io(path, e))?;
        file.lock().map_err(|e| Error::io(path, e))?;
        Ok(LockGuard {
            file,
            _path: path.to_owned(),
        })
    }
}

impl Drop for LockGuard {
    fn drop(&mut self) {
        let _ = self.file.unlock();
    }
}
