//! Small filesystem helpers shared by the config and the derived files: atomic replacement
//! (temp file + fsync + rename + directory fsync) and an advisory lock file.

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::base::error::{Error, Result};

/// Replaces `path` with `bytes` so that readers see either the old or the new content, never a
/// mix, and the new content survives a crash once this returns.
pub(crate) fn atomic_write(path: &Path, bytes: &[u8]) -> Result<()> {
    atomic_write_with(path, bytes, None)
}

/// [`atomic_write`], giving the new file `permissions` before it takes the old one's place: a
/// person's settings file that only they may read (it can hold API keys) must never be readable
/// by others, not even between the write and a later `chmod`.
pub(crate) fn atomic_write_with(
    path: &Path,
    bytes: &[u8],
    permissions: Option<&fs::Permissions>,
) -> Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let file_name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    // Unique to this call, not only to this process: the app runs commands on several threads,
    // and two of them rebuilding one view at once must not rename each other's temp file away
    // (the second rename would then fail with "No such file").
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmp = dir.join(format!(".{file_name}.tmp-{}-{n}", std::process::id()));
    let result = (|| {
        let mut file = File::create(&tmp).map_err(|e| Error::io(&tmp, e))?;
        if let Some(p) = permissions {
            file.set_permissions(p.clone())
                .map_err(|e| Error::io(&tmp, e))?;
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Threads replacing one file at once all succeed, and the file holds one whole write: the
    /// app's commands run on several threads, and two rebuilding one view used to share a temp
    /// file, so one rename failed with "No such file".
    #[test]
    fn concurrent_atomic_writes_of_one_file_all_succeed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("view.json");
        let writers: Vec<_> = (0..8)
            .map(|i| {
                let path = path.clone();
                std::thread::spawn(move || {
                    for _ in 0..25 {
                        atomic_write(&path, format!("writer {i}\n").repeat(200).as_bytes())?;
                    }
                    Ok::<(), Error>(())
                })
            })
            .collect();
        for w in writers {
            w.join().unwrap().unwrap();
        }
        let text = fs::read_to_string(&path).unwrap();
        let first = text.lines().next().unwrap();
        assert!(text.lines().all(|l| l == first) && text.lines().count() == 200);
        // No temp file is left behind.
        let names: Vec<_> = fs::read_dir(dir.path()).unwrap().flatten().collect();
        assert_eq!(names.len(), 1);
    }
}
