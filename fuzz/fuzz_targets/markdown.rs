//! Fuzzes the markdown reader: an observation's outline (title, frontmatter, headings, links)
//! and the Library's HTML rendering of the same bytes (`elnor_engine::fuzzing::parse_markdown`).
//! Seeds: the repository's own markdown files.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    elnor_engine::fuzzing::parse_markdown(data);
});
