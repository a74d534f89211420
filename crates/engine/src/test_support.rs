//! Helpers shared by the engine's unit tests: where the shared fixture corpus lives, and small
//! builders for transcript roots in temporary directories.

use std::path::{Path, PathBuf};

/// The shared fixture corpus: `$ELNOR_FIXTURES`, else `../shared/fixtures/transcripts` beside the
/// workspace (where CI has it too). Tests read it in place; they copy files only into temporary
/// directories.
pub(crate) fn fixtures() -> PathBuf {
    std::env::var_os("ELNOR_FIXTURES")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/fixtures/transcripts")
        })
}

/// Copies the fixture at `rel` to `dest`, creating parent directories.
pub(crate) fn copy_fixture(rel: &str, dest: &Path) {
    std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
    std::fs::copy(fixtures().join(rel), dest).unwrap();
}
