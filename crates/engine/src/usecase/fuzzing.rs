//! Entry points for the fuzz targets in `fuzz/` (docs/FUZZING.md), re-exported hidden from the
//! façade as `elnor_engine::fuzzing`.
//!
//! The parsers that read what other programs wrote (harness transcripts, continuity log lines,
//! the config file, markdown documents, hook input) live in private modules, and the façade
//! exposes them only behind the file system and the store. A fuzzer needs them as functions of
//! bytes, thousands of times a second, so this module hands them out as exactly that. It holds no
//! logic of its own: each function is the few lines by which the engine itself reaches the
//! parser (the ingest loop's UTF-8 check and split of joined records, the log reader's line
//! loop, the config loader), so a crash here is a crash there. It sits in the top layer because
//! it reaches down into every other one, and it is `#[doc(hidden)]` because it is not an API for
//! adapters.

use std::path::Path;

use crate::base::config::ContinuityConfig;
use crate::continuity::read_lines;
use crate::inputs::ingest::{ids_valid, split_joined, trim_cr};
use crate::inputs::observe::markdown;
use crate::inputs::transcripts::{Harness, LineParser, ParserState, Record, excerpt};
use crate::usecase::harness::hooks::{HookInput, hook_action};
use crate::views::library::{render_markdown, render_text};

/// Reads `data` as a whole transcript file of `harness`, line by line, the way the ingest reads
/// a new JSONL file: the parser is primed on the file's head, blank and non-UTF-8 lines are
/// skipped, a malformed line is tried as several records joined by a lost newline, and a turn
/// whose ids the store would refuse is skipped. Returns how many turns would be stored.
pub fn parse_transcript(harness: Harness, data: &[u8]) -> usize {
    // A path of the harness's own shape, so the parser derives its session and agent ids from
    // the file name as it does on a real ingest.
    let path = Path::new(match harness {
        Harness::ClaudeCode => {
            "/home/p/.claude/projects/-home-p-code/5b0c2d7e-1f3a-4c8e-9a61-0d2f7c9e4a11.jsonl"
        }
        Harness::Codex => {
            "/home/p/.codex/sessions/2026/10/29/\
             rollout-2026-10-29T09-12-03-019a3c10-7e21-7b40-8d2e-5f6a7b8c9d01.jsonl"
        }
        Harness::OpenClaw => {
            "/home/p/.openclaw/agents/henderson/sessions/c7d8e9f0-1a2b-4c3d-8e4f-5a6b7c8d9e01.jsonl"
        }
    });
    let mut parser = LineParser::new(harness, path, ParserState::default());
    parser.prime(
        data.split(|b| *b == b'\n')
            .filter_map(|l| std::str::from_utf8(l).ok()),
    );
    let mut stored = 0;
    let mut keep = |record: Record| {
        if let Record::Turn(turn) = record
            && ids_valid(&turn)
        {
            // The excerpt is what listings and search results show of a turn's text.
            let _ = excerpt(&turn.text, 200);
            stored += 1;
        }
    };
    for line in data.split(|b| *b == b'\n') {
        let Ok(text) = std::str::from_utf8(trim_cr(line)) else {
            continue;
        };
        if text.trim().is_empty() {
            continue;
        }
        match parser.parse(text) {
            Record::Malformed(_) => {
                for (_, part) in split_joined(text).into_iter().flatten() {
                    keep(parser.parse(part));
                }
            }
            turn => keep(turn),
        }
    }
    stored
}

/// Reads `data` as a continuity log file, as [`crate::ContinuityLog::read`] does after its
/// torn-tail repair. Every entry read must write back to a line that reads as the same entry,
/// because the log is rewritten (eviction, reconstruction) from what was read. Returns how many
/// entries were read.
pub fn read_log(data: &[u8]) -> usize {
    let read = read_lines(data, |_, _| {}).expect("reading from memory cannot fail");
    for entry in &read.entries {
        let _ = entry.content.headline();
        let line = entry
            .to_line()
            .expect("an entry read from a log serialises");
        let again = crate::ContinuityEntry::from_line(line.as_bytes())
            .expect("an entry read from a log reads again once written");
        assert_eq!(&again, entry, "an entry survives a write and a read");
    }
    read.entries.len()
}

/// Loads `data` as `config/continuity_config.json`. A config that loads must survive the round
/// trip the settings take (its JSON form validated again), since `elnor config set` and the
/// app's settings rebuild the config that way. Returns whether it loaded.
pub fn parse_config(data: &[u8]) -> bool {
    let path = Path::new("config/continuity_config.json");
    let Ok(config) = ContinuityConfig::from_slice(path, data) else {
        return false;
    };
    let again = ContinuityConfig::from_json(path, &serde_json::Value::Object(config.to_json()))
        .expect("a loaded config validates again from its own JSON");
    assert_eq!(again, config, "a config survives its JSON form");
    true
}

/// Reads `data` as a markdown document: what an observation keeps of it (title, headings, links,
/// frontmatter) and the Library's HTML of it, markdown and plain text, after the lossy UTF-8
/// decoding the Library's reader applies. Returns the outline's heading count.
pub fn parse_markdown(data: &[u8]) -> usize {
    let source = String::from_utf8_lossy(data);
    let outline = markdown::parse(&source);
    let _ = render_markdown(&source);
    let _ = render_text(&source);
    outline.headings.len()
}

/// Reads `data` as a hook's standard input, as `elnor hook` does: UTF-8 text, one JSON object,
/// its event name, and what each harness does for that event. Returns whether it was a hook
/// input with a usable event.
pub fn parse_hook_input(data: &[u8]) -> bool {
    let Ok(raw) = std::str::from_utf8(data) else {
        return false;
    };
    let Ok(input) = HookInput::parse(raw) else {
        return false;
    };
    let Ok(event) = input.event() else {
        return false;
    };
    for harness in Harness::ALL {
        let _ = hook_action(harness, &event);
    }
    true
}
