//! Marked blocks: a region of someone else's text file that we own, between two HTML comments,
//! so that a generated text can live inside a file another tool reads (an agent's `AGENTS.md`, a
//! notes file) without disturbing a single byte around it.
//!
//! ```text
//! <!-- {tag} {key}={value} sha256={hash of the body} -->
//! body lines
//! <!-- /{tag} -->
//! ```
//!
//! The start marker records the hash of the body as written. When the body no longer matches it,
//! a person edited inside the block, and the caller can keep their edit instead of overwriting it.
//! The hash is taken with CRLF read as LF, so an editor that only changes line endings is not
//! mistaken for an edit.
//!
//! Everything works on bytes, not text: a file that is not valid UTF-8 around the block is kept
//! exactly as it was. Nothing here knows what the block holds.

use std::ops::Range;

use sha2::{Digest, Sha256};

use crate::base::error::{Error, Result};

/// A block found in a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// The whole block, from the start marker's `<` to the end marker's `>` (the newline after
    /// the end marker belongs to the surrounding text).
    pub range: Range<usize>,
    /// The body: the bytes between the start marker's line and the end marker.
    pub body: Range<usize>,
    /// The hash the start marker recorded, if it has one.
    pub recorded_hash: Option<String>,
}

impl Found {
    /// Whether the body is still what was written (its hash matches the recorded one).
    pub fn is_intact(&self, bytes: &[u8]) -> bool {
        self.recorded_hash.as_deref() == Some(body_hash(&bytes[self.body.clone()]).as_str())
    }
}

/// The hash recorded for `body`: SHA-256 hex of the body with CRLF read as LF.
pub fn body_hash(body: &[u8]) -> String {
    let mut h = Sha256::new();
    let mut i = 0;
    while i < body.len() {
        if body[i] == b'\r' && body.get(i + 1) == Some(&b'\n') {
            i += 1;
            continue;
        }
        h.update([body[i]]);
        i += 1;
    }
    format!("{:x}", h.finalize())
}

/// The line ending a file uses: CRLF when its first line ends so, else LF.
pub fn newline_of(bytes: &[u8]) -> &'static str {
    match bytes.iter().position(|b| *b == b'\n') {
        Some(i) if i > 0 && bytes[i - 1] == b'\r' => "\r\n",
        _ => "\n",
    }
}

fn start_prefix(tag: &str) -> String {
    format!("<!-- {tag} ")
}

fn end_marker(tag: &str) -> String {
    format!("<!-- /{tag} -->")
}

/// Offsets at which a line starts.
fn line_starts(bytes: &[u8]) -> impl Iterator<Item = usize> + '_ {
    std::iter::once(0).chain(
        bytes
            .iter()
            .enumerate()
            .filter(|(_, b)| **b == b'\n')
            .map(|(i, _)| i + 1)
            .filter(move |i| *i < bytes.len()),
    )
}

/// The attributes of a start marker line beginning at `at`, and where its line ends (after the
/// newline, or the end of the file).
fn start_marker_at(bytes: &[u8], at: usize, tag: &str) -> Option<(Vec<(String, String)>, usize)> {
    let prefix = start_prefix(tag);
    let rest = &bytes[at..];
    if !rest.starts_with(prefix.as_bytes()) {
        return None;
    }
    let line_end = rest
        .iter()
        .position(|b| *b == b'\n')
        .map_or(bytes.len(), |i| at + i + 1);
    let line = String::from_utf8_lossy(&bytes[at + prefix.len()..line_end]);
    let inner = line.trim_end().strip_suffix("-->")?;
    let attrs = inner
        .split_whitespace()
        .filter_map(|kv| {
            let (k, v) = kv.split_once('=')?;
            Some((k.to_owned(), v.to_owned()))
        })
        .collect();
    Some((attrs, line_end))
}

/// Finds the block of `tag` whose start marker has `key=value`. `None` when the file has none;
/// an error when it has two, or a start marker without its end marker: the caller must not guess
/// which bytes are ours.
pub fn find(bytes: &[u8], tag: &str, key: &str, value: &str) -> Result<Option<Found>> {
    let mut found: Option<Found> = None;
    for at in line_starts(bytes) {
        let Some((attrs, body_start)) = start_marker_at(bytes, at, tag) else {
            continue;
        };
        if !attrs.iter().any(|(k, v)| k == key && v == value) {
            continue;
        }
        if found.is_some() {
            return Err(Error::InvalidInput(format!(
                "the file holds two `{tag} {key}={value}` blocks; remove one by hand"
            )));
        }
        let end = end_marker(tag);
        let close = line_starts(bytes).filter(|s| *s >= body_start).find(|s| {
            bytes[*s..].starts_with(end.as_bytes()) || start_marker_at(bytes, *s, tag).is_some()
        });
        let Some(close) = close.filter(|s| bytes[*s..].starts_with(end.as_bytes())) else {
            return Err(Error::InvalidInput(format!(
                "the `{tag} {key}={value}` block has no `{end}` line before the next block or the \
                 end of the file; restore it by hand"
            )));
        };
        found = Some(Found {
            range: at..close + end.len(),
            body: body_start..close,
            recorded_hash: attrs
                .iter()
                .find(|(k, _)| k == "sha256")
                .map(|(_, v)| v.clone()),
        });
    }
    Ok(found)
}

/// A whole block: start marker with `attrs` and the body's hash, the body, and the end marker.
/// `body` is written as given; it should end with `newline` so the end marker starts a line.
pub fn render(tag: &str, attrs: &[(&str, &str)], body: &str, newline: &str) -> Vec<u8> {
    let body = if newline == "\r\n" {
        body.replace("\r\n", "\n").replace('\n', "\r\n")
    } else {
        body.to_owned()
    };
    let mut marker = format!("<!-- {tag}");
    for (k, v) in attrs {
        marker.push_str(&format!(" {k}={v}"));
    }
    marker.push_str(&format!(" sha256={} -->", body_hash(body.as_bytes())));
    let mut out = Vec::with_capacity(marker.len() + body.len() + tag.len() + 16);
    out.extend_from_slice(marker.as_bytes());
    out.extend_from_slice(newline.as_bytes());
    out.extend_from_slice(body.as_bytes());
    out.extend_from_slice(end_marker(tag).as_bytes());
    out
}

/// `file` with `block` in place of `found`, or appended when there is none: after one newline
/// (in the file's own style) when the file does not end with one, and followed by one. Every
/// other byte of the file is kept as it was.
pub fn place(file: &[u8], found: Option<&Found>, block: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(file.len() + block.len() + 2);
    match found {
        Some(f) => {
            out.extend_from_slice(&file[..f.range.start]);
            out.extend_from_slice(block);
            out.extend_from_slice(&file[f.range.end..]);
        }
        None => {
            let newline = newline_of(file);
            out.extend_from_slice(file);
            if !file.is_empty() && !file.ends_with(b"\n") {
                out.extend_from_slice(newline.as_bytes());
            }
            out.extend_from_slice(block);
            out.extend_from_slice(newline.as_bytes());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const TAG: &str = "elnor:test";

    fn put(file: &[u8], body: &str) -> Vec<u8> {
        let found = find(file, TAG, "scope", "g").unwrap();
        let block = render(TAG, &[("scope", "g")], body, newline_of(file));
        place(file, found.as_ref(), &block)
    }

    /// The bytes around the block survive appending and then replacing it, whatever they are:
    /// CRLF, no final newline, non-UTF-8, unicode, empty.
    #[test]
    fn the_bytes_around_the_block_are_kept_exactly() {
        let cases: &[&[u8]] = &[
            b"",
            b"# Notes\n",
            b"# Notes",
            b"line one\r\nline two\r\n",
            b"line one\r\nno final newline",
            "Grüße — 日本語 ✓\n\n".as_bytes(),
            b"\xff\xfe binary-ish \x00 bytes\n",
        ];
        for &before in cases {
            let once = put(before, "first\n");
            assert!(once.starts_with(before), "{before:?}");
            let found = find(&once, TAG, "scope", "g").unwrap().unwrap();
            assert!(found.is_intact(&once));
            // Whatever was appended after the block is kept too.
            let mut with_tail = once.clone();
            with_tail.extend_from_slice(b"tail \xc3\xa9 no newline");
            let twice = put(&with_tail, "second\nlonger body\n");
            let f2 = find(&twice, TAG, "scope", "g").unwrap().unwrap();
            assert_eq!(&twice[..f2.range.start], &with_tail[..found.range.start]);
            assert_eq!(&twice[f2.range.end..], &with_tail[found.range.end..]);
            assert!(f2.is_intact(&twice));
            let nl = newline_of(before);
            let body = String::from_utf8_lossy(&twice[f2.body.clone()]).into_owned();
            assert_eq!(body, format!("second{nl}longer body{nl}"));
        }
    }

    #[test]
    fn an_edit_inside_the_block_is_detected_and_line_endings_alone_are_not() {
        let file = put(b"x\n", "one\ntwo\n");
        let edited = String::from_utf8(file.clone())
            .unwrap()
            .replace("two", "TWO");
        let f = find(edited.as_bytes(), TAG, "scope", "g").unwrap().unwrap();
        assert!(!f.is_intact(edited.as_bytes()));
        let crlf = String::from_utf8(file).unwrap().replace("one\n", "one\r\n");
        let f = find(crlf.as_bytes(), TAG, "scope", "g").unwrap().unwrap();
        assert!(f.is_intact(crlf.as_bytes()));
    }

    #[test]
    fn blocks_of_other_scopes_are_left_alone_and_broken_ones_refused() {
        let mut file = put(b"", "global\n");
        let other = render(TAG, &[("scope", "t")], "thread\n", "\n");
        file = place(&file, None, &other);
        let f = find(&file, TAG, "scope", "t").unwrap().unwrap();
        assert_eq!(&file[f.body.clone()], b"thread\n");
        let updated = put(&file, "global 2\n");
        assert!(updated.ends_with(&[other.as_slice(), b"\n"].concat()));
        // Two blocks of one scope, or a block without its end, are refused.
        let doubled = place(&updated, None, &render(TAG, &[("scope", "g")], "x\n", "\n"));
        assert!(find(&doubled, TAG, "scope", "g").is_err());
        let cut = b"<!-- elnor:test scope=g sha256=00 -->\nbody\n";
        assert!(find(cut, TAG, "scope", "g").is_err());
    }
}
