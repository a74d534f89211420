//! The download against a local file server holding the real model files (skipped, and
//! recorded, without them): redirects followed, files checked and put in place, a file already
//! there kept, a wrong file refused and removed, a cancelled run leaving nothing partial.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use super::*;

/// Serves `/good/<file>` from `model`, `/bad/<file>` as a few wrong bytes, and `/moved/<file>`
/// as a redirect to `/good/<file>`. Returns the base URL.
fn file_server(model: &Path) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let model = model.to_owned();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let model = model.clone();
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stream);
                let mut line = String::new();
                if reader.read_line(&mut line).is_err() {
                    return;
                }
                let path = line.split_whitespace().nth(1).unwrap_or("").to_owned();
                loop {
                    let mut header = String::new();
                    if reader.read_line(&mut header).unwrap_or(0) == 0 || header.trim().is_empty() {
                        break;
                    }
                }
                let mut stream = reader.into_inner();
                let name = path.rsplit('/').next().unwrap_or("");
                let (head, body): (String, Vec<u8>) = if path.starts_with("/moved/") {
                    (
                        format!(
                            "HTTP/1.1 302 Found\r\nLocation: /good/{name}\r\nContent-Length: 0\r\n"
                        ),
                        Vec::new(),
                    )
                } else if path.starts_with("/good/") {
                    match std::fs::read(model.join(name)) {
                        Ok(bytes) => ("HTTP/1.1 200 OK\r\n".to_owned(), bytes),
                        Err(_) => ("HTTP/1.1 404 Not Found\r\n".to_owned(), Vec::new()),
                    }
                } else {
                    ("HTTP/1.1 200 OK\r\n".to_owned(), b"not the model".to_vec())
                };
                let _ = write!(
                    stream,
                    "{head}Content-Length: {}\r\nConnection: close\r\n\r\n",
                    body.len()
                );
                let _ = stream.write_all(&body);
            });
        }
    });
    base
}

#[test]
fn the_model_is_fetched_checked_and_put_in_place_or_not_at_all() {
    let Some(model) = super::super::tests::model_dir() else {
        return;
    };
    let base = file_server(&model);
    let never = AtomicBool::new(false);
    let dir = tempfile::tempdir().unwrap();
    let dest = dir.path().join("model");

    let mut seen = Vec::new();
    let report = download(
        &dest,
        &format!("{base}/moved"),
        &mut |p| seen.push((p.file.clone(), p.bytes, p.total)),
        &never,
    )
    .unwrap();
    assert_eq!(report.fetched, vec!["vocab.txt", "model.safetensors"]);
    assert!(!report.cancelled);
    for (name, sha) in FILES {
        assert_eq!(hash_of(&dest.join(name)).as_deref(), Some(sha), "{name}");
    }
    let last = seen.last().unwrap();
    assert_eq!(last.0, "model.safetensors");
    assert_eq!(Some(last.1), last.2, "the last progress is the whole file");
    assert!(
        std::fs::read_dir(&dest)
            .unwrap()
            .flatten()
            .all(|e| !e.file_name().to_string_lossy().starts_with(".partial"))
    );
    // A second run finds both files whole and fetches nothing.
    let again = download(&dest, &format!("{base}/good"), &mut |_| {}, &never).unwrap();
    assert!(again.fetched.is_empty());

    // A wrong file is refused and not kept.
    let bad = dir.path().join("bad");
    let err = download(&bad, &format!("{base}/bad"), &mut |_| {}, &never).unwrap_err();
    assert!(err.to_string().contains("not the pinned"), "{err}");
    assert_eq!(std::fs::read_dir(&bad).unwrap().count(), 0);

    // Cancelled in the middle of the weights: the vocabulary is kept, no weights, no partial.
    let stopped = dir.path().join("stopped");
    let cancel = AtomicBool::new(false);
    let report = download(
        &stopped,
        &format!("{base}/good"),
        &mut |p| {
            if p.file == "model.safetensors" {
                cancel.store(true, Ordering::Relaxed);
            }
        },
        &cancel,
    )
    .unwrap();
    assert!(report.cancelled);
    let left: Vec<String> = std::fs::read_dir(&stopped)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(left, vec!["vocab.txt".to_owned()]);

    assert!(download(&stopped, "ftp://example.com", &mut |_| {}, &never).is_err());
}
