//! Tidy: the engine's layers, read from its sources.
//!
//! The engine's modules sit in layers, one folder of `src/` each, that may only look down: base ←
//! graph ← continuity ← inputs (transcripts, capture, observe) ← views ← brief ← review ←
//! usecase. This test reads every `crate::…` path in the engine's non-test code and fails on an
//! arrow that runs back up. Unit tests may reach anywhere (they check behaviour, not layering);
//! the façade `lib.rs` re-exports from every layer. ARCHITECTURE.md names the layers.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The layers, lowest first: each is a folder of `src/` (ARCHITECTURE.md names what each holds).
/// A layer may use its own modules and those of the layers before it, never those after it.
const LAYERS: &[&str] = &[
    "base",
    "graph",
    "continuity",
    "inputs",
    "views",
    "brief",
    "review",
    "usecase",
];

/// The layer a source file belongs to, or `None` for test code and the façade.
fn module_of(rel: &str) -> Option<String> {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    if name == "tests.rs" || rel.contains("/tests/") || rel == "test_support.rs" || rel == "lib.rs"
    {
        return None;
    }
    Some(rel.split('/').next()?.trim_end_matches(".rs").to_owned())
}

/// The modules a file's code names through `crate::…`, leaving out comments and its unit tests.
fn uses(text: &str) -> BTreeSet<String> {
    let code = text.split("#[cfg(test)]\nmod tests").next().unwrap_or(text);
    let mut out = BTreeSet::new();
    for line in code.lines() {
        let line = line.trim_start();
        if line.starts_with("//") {
            continue;
        }
        let mut rest = line;
        while let Some(at) = rest.find("crate::") {
            rest = &rest[at + "crate::".len()..];
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_lowercase() || *c == '_' || c.is_ascii_digit())
                .collect();
            if !name.is_empty() {
                out.insert(name);
            }
        }
    }
    out
}

/// Every arrow from a module to one in a higher layer, given `(file, text)` pairs.
fn back_arrows(files: &[(String, String)]) -> Result<BTreeSet<(String, String)>, String> {
    let layer: BTreeMap<&str, usize> = LAYERS.iter().enumerate().map(|(i, l)| (*l, i)).collect();
    let mut out = BTreeSet::new();
    for (rel, text) in files {
        let Some(from) = module_of(rel) else {
            continue;
        };
        let Some(&low) = layer.get(from.as_str()) else {
            return Err(format!(
                "{rel}: `{from}` is in no layer; move it into a layer's folder"
            ));
        };
        for to in uses(text) {
            if to == from {
                continue;
            }
            let Some(&high) = layer.get(to.as_str()) else {
                return Err(format!("{rel}: uses `crate::{to}`, which is in no layer"));
            };
            if high > low {
                out.insert((from.clone(), to));
            }
        }
    }
    Ok(out)
}

fn sources(dir: &Path, base: &Path, out: &mut Vec<(String, String)>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, base, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let rel = path
                .strip_prefix(base)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            out.push((rel, std::fs::read_to_string(&path).unwrap()));
        }
    }
}

#[test]
fn the_engine_layers_only_look_down() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &src, &mut files);
    assert!(files.len() > 40, "read the engine's sources");
    let found = back_arrows(&files).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        found.is_empty(),
        "arrows that run back up a layer (from → to): {found:?}. Move the code to the lower \
         layer, or let the writer return what it touched and the use case refresh the view."
    );
}

/// The check can fail: a graph module that reaches up into the brief is caught; one that looks
/// down, a module using its own layer, comments and unit tests are not; a file outside every
/// layer's folder is an error.
#[test]
fn a_planted_back_arrow_is_caught() {
    let file = |rel: &str, text: &str| (rel.to_owned(), text.to_owned());
    let found = back_arrows(&[
        file(
            "graph/entities.rs",
            "use crate::brief::assemble;\n// crate::usecase in a comment\n",
        ),
        file("brief/render.rs", "use crate::graph::entities::Entity;\n"),
        file(
            "graph/nodes.rs",
            "fn f() {}\n#[cfg(test)]\nmod tests {\n    use crate::review::promotion::decide;\n}\n",
        ),
        file(
            "inputs/capture/mod.rs",
            "use crate::inputs::agent::Agent;\n",
        ),
    ])
    .unwrap();
    assert_eq!(
        found.into_iter().collect::<Vec<_>>(),
        [("graph".to_owned(), "brief".to_owned())]
    );
    assert!(
        back_arrows(&[file("newthing.rs", "use crate::base::ids::X;")])
            .unwrap_err()
            .contains("in no layer")
    );
}
