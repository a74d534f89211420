//! Fuzzes the OpenClaw transcript reader: the input is a whole JSONL file, read line by line as the
//! ingest reads it (`elnor_engine::fuzzing::parse_transcript`). Seeds: tests/fixtures' OpenClaw
//! files, one line per seed and each whole file.

#![no_main]

use elnor_engine::Harness;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    elnor_engine::fuzzing::parse_transcript(Harness::OpenClaw, data);
});
