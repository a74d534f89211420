//! Fuzzes the continuity log reader: the input is a log file's bytes, read line by line as
//! `ContinuityLog::read` reads them, and every entry read must survive a write and a read
//! (`elnor_engine::fuzzing::read_log`). Seeds: entries of every type as the engine writes them.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    elnor_engine::fuzzing::read_log(data);
});
