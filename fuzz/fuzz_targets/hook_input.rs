//! Fuzzes the hook input reader: the input is what a harness writes on `elnor hook`'s standard
//! input (`elnor_engine::fuzzing::parse_hook_input`). Seeds: the CLI hook tests' inputs.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    elnor_engine::fuzzing::parse_hook_input(data);
});
