//! A mirror of the built-in embedding model for the tests that download it: the real files, which
//! `scripts/setup.sh test` fetched, served over HTTP on a loopback port, so the app's download
//! goes through the same code (and the same pinned SHA-256s) as a person's, without the network.
//!
//! The mirror sends the files slowly on purpose, a few seconds for the weights, so that a test
//! sees the progress bar move and has time to cancel; a real download from Hugging Face takes
//! longer still.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The model's files, as the engine names them.
pub const FILES: [&str; 2] = ["vocab.txt", "model.safetensors"];

/// How much the mirror sends at a time, and how long it waits after each piece: about 30 MB a
/// second, so the 91 MB of weights take three seconds.
const CHUNK: usize = 256 * 1024;
const PAUSE: Duration = Duration::from_millis(8);

/// The folder holding the real model files, or `None` after recording the skip the way the
/// engine's own model tests do (a failure when `ELNOR_REQUIRE_FIXTURES` is set, else a line on
/// stderr and the test's name in `$ELNOR_SKIP_LOG`).
pub fn real_model_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("ELNOR_MINILM_DIR")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            let cache = std::env::var_os("XDG_CACHE_HOME")
                .filter(|d| !d.is_empty())
                .map(PathBuf::from)
                .unwrap_or_else(|| {
                    PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cache")
                });
            cache.join("elnor/models/all-minilm-l6-v2")
        });
    if FILES.iter().all(|f| dir.join(f).is_file()) {
        return Some(dir);
    }
    let thread = std::thread::current();
    let test = thread.name().unwrap_or("a test");
    let required = std::env::var("ELNOR_REQUIRE_FIXTURES").is_ok_and(|v| !v.is_empty() && v != "0");
    assert!(
        !required,
        "{test} needs the all-MiniLM-L6-v2 files in {}, and ELNOR_REQUIRE_FIXTURES is set",
        dir.display()
    );
    eprintln!(
        "skipped {test}: the all-MiniLM-L6-v2 files are not in {} (scripts/setup.sh test fetches \
         them; or set ELNOR_MINILM_DIR)",
        dir.display()
    );
    if let Some(log) = std::env::var_os("ELNOR_SKIP_LOG") {
        // A skip that cannot be recorded is still a skip; the stderr line above says so.
        if let Ok(mut f) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(log)
        {
            let _ = writeln!(f, "{test}");
        }
    }
    None
}

/// Serves the model files in `dir` at `http://127.0.0.1:PORT/<file>` for the rest of the test
/// process, and returns that base address. Anything else is a 404, as a wrong mirror would say.
pub fn serve(dir: &Path) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port for the mirror");
    let base = format!("http://{}", listener.local_addr().unwrap());
    let dir = dir.to_owned();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let dir = dir.clone();
            std::thread::spawn(move || {
                // A client that hangs up mid-file (a cancelled download) is not the mirror's
                // failure.
                let _ = answer(stream, &dir);
            });
        }
    });
    base
}

/// Answers one `GET /<file>` request.
fn answer(stream: TcpStream, dir: &Path) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request = String::new();
    reader.read_line(&mut request)?;
    // The headers are read and ignored: the mirror answers every request the same way.
    let mut line = String::new();
    while reader.read_line(&mut line)? > 2 {
        line.clear();
    }
    let path = request.split_whitespace().nth(1).unwrap_or_default();
    let name = path.trim_start_matches('/');
    let mut out = stream;
    let Some(file) = FILES.iter().find(|f| **f == name) else {
        return out.write_all(
            b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
        );
    };
    let mut body = std::fs::File::open(dir.join(file))?;
    let length = body.metadata()?.len();
    write!(
        out,
        "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: \
         {length}\r\nConnection: close\r\n\r\n"
    )?;
    let mut buf = vec![0; CHUNK];
    loop {
        let n = body.read(&mut buf)?;
        if n == 0 {
            return out.flush();
        }
        out.write_all(&buf[..n])?;
        std::thread::sleep(PAUSE);
    }
}
