//! Fuzzes the config loader: the input is `config/continuity_config.json`'s bytes, and a config
//! that loads must validate again from its own JSON (`elnor_engine::fuzzing::parse_config`).
//! Seeds: the default config and a few variations of it.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    elnor_engine::fuzzing::parse_config(data);
});
