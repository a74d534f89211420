//! The cue rules on the labelled units of `tests/detect/` (issue 38): sentences and list items
//! of 103 sessions of many people (`real/`, `real2/`), each labelled by two annotators working
//! alone from `DEFINITIONS.md`, disagreements settled by a third (`labels/gold/`). Whole projects
//! are held out as the test split (`tests/handoff/projects.tsv`); no rule is fitted on them.
//!
//! The test prints, per split and per kind, the label counts, the annotators' agreement and the
//! rules' precision and recall, and fails below the floors recorded here. The units are in the
//! repository, so this runs in a plain clone too.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use serde::Deserialize;

use std::fmt::Write as _;

use crate::inputs::capture::heuristics::Speaker;
use crate::inputs::capture::{WindowTurn, detect};

/// What a unit is labelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Question,
    Decision,
}

impl Kind {
    const ALL: [Kind; 2] = [Kind::Question, Kind::Decision];

    fn name(self) -> &'static str {
        match self {
            Kind::Question => "question",
            Kind::Decision => "decision",
        }
    }
}

/// A unit as `extract.py` writes it (the fields read here).
#[derive(Debug, Clone, Deserialize)]
struct Row {
    id: String,
    project: String,
    session: String,
    turn: usize,
    speaker: String,
    text: String,
}

#[derive(Debug, Deserialize)]
struct Label {
    id: String,
    label: String,
}

/// One unit and its gold label.
#[derive(Debug, Clone)]
struct Labelled {
    row: Row,
    label: Option<Kind>,
}

/// `tests/detect/` of this repository.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/detect")
}

fn jsonl<T: for<'de> Deserialize<'de>>(path: &Path) -> Vec<T> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
        .collect()
}

fn kind(label: &str) -> Option<Kind> {
    match label {
        "question" => Some(Kind::Question),
        "decision" => Some(Kind::Decision),
        _ => None,
    }
}

/// Labels of one annotator folder (`A`, `B`, `gold`), by unit id, from every batch.
fn labels(annotator: &str) -> HashMap<String, Option<Kind>> {
    let dir = root().join("labels").join(annotator);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.extension().is_some_and(|x| x == "jsonl")
                && !p.to_string_lossy().ends_with(".titles.jsonl")
        })
        .collect();
    files.sort();
    files
        .iter()
        .flat_map(|f| jsonl::<Label>(f))
        .map(|l| (l.id, kind(&l.label)))
        .collect()
}

/// Every unit of a split (`dev` or `test`) with its gold label, in session then message order.
fn split(name: &str) -> Vec<Labelled> {
    // Another folder of labels (an annotator's, `A` or `B`) can stand in for the gold ones, to
    // see how the figures move with who labelled.
    let gold = labels(&std::env::var("ELNOR_DETECT_LABELS").unwrap_or_else(|_| "gold".into()));
    let rows: Vec<Row> = jsonl(&root().join("units").join(format!("{name}.jsonl")));
    rows.into_iter()
        .map(|row| Labelled {
            label: *gold
                .get(&row.id)
                .unwrap_or_else(|| panic!("unit {} has no gold label", row.id)),
            row,
        })
        .collect()
}

/// Which units the present cue rules take, run message by message as capture runs them, each
/// detected sentence mapped to the units it overlaps.
fn peer(units: &[Labelled]) -> Vec<Option<Kind>> {
    let norm = |s: &str| s.replace("**", "").trim().to_lowercase();
    let mut out = vec![None; units.len()];
    let mut sessions: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, u) in units.iter().enumerate() {
        sessions.entry(&u.row.session).or_default().push(i);
    }
    for idx in sessions.values() {
        // The session as capture reads it: one turn per message of the person or the agent, its
        // units joined by lines as they were written; injected text speaks for no one.
        let mut window: Vec<WindowTurn> = Vec::new();
        for &i in idx {
            let u = &units[i];
            let speaker = match u.row.speaker.as_str() {
                "person" => Some(Speaker::User),
                "agent" => Some(Speaker::Assistant),
                _ => None,
            };
            let seq = u.row.turn as i64;
            match window.last_mut() {
                Some(t) if t.seq == seq && t.speaker == speaker => {
                    t.text.push('\n');
                    t.text.push_str(&u.row.text);
                }
                _ => window.push(WindowTurn {
                    seq,
                    speaker,
                    text: u.row.text.clone(),
                    tools: Vec::new(),
                    changed: Vec::new(),
                    ran: Vec::new(),
                    failed: None,
                    timestamp: None,
                }),
            }
        }
        // What capture's detectors keep, mapped back to the units that state it.
        let (questions, decisions) = detect(&window);
        let found = questions
            .into_iter()
            .map(|d| (Kind::Question, d.text))
            .chain(decisions.into_iter().map(|d| (Kind::Decision, d.text)));
        for (kind, text) in found {
            let t = norm(&text);
            for &i in idx {
                let u = norm(&units[i].row.text);
                if !t.is_empty() && !u.is_empty() && (u.contains(&t) || t.contains(&u)) {
                    out[i].get_or_insert(kind);
                }
            }
        }
    }
    out
}

#[derive(Default, Clone, Copy)]
struct Counts {
    tp: usize,
    fp: usize,
    fn_: usize,
}

impl Counts {
    fn precision(self) -> f64 {
        self.tp as f64 / (self.tp + self.fp).max(1) as f64
    }
    fn recall(self) -> f64 {
        self.tp as f64 / (self.tp + self.fn_).max(1) as f64
    }
    fn f1(self) -> f64 {
        let (p, r) = (self.precision(), self.recall());
        if p + r == 0.0 {
            0.0
        } else {
            2.0 * p * r / (p + r)
        }
    }
}

fn score(units: &[Labelled], predicted: &[Option<Kind>], kind: Kind) -> Counts {
    let mut c = Counts::default();
    for (u, p) in units.iter().zip(predicted) {
        match (u.label == Some(kind), *p == Some(kind)) {
            (true, true) => c.tp += 1,
            (false, true) => c.fp += 1,
            (true, false) => c.fn_ += 1,
            _ => {}
        }
    }
    c
}

/// Cohen's kappa of annotators A and B over the units of a split, and their positive agreement
/// per kind.
fn agreement(units: &[Labelled]) -> String {
    let (a, b) = (labels("A"), labels("B"));
    let pairs: Vec<(Option<Kind>, Option<Kind>)> =
        units.iter().map(|u| (a[&u.row.id], b[&u.row.id])).collect();
    let n = pairs.len() as f64;
    let observed = pairs.iter().filter(|(x, y)| x == y).count() as f64 / n;
    let share = |side: usize, k: Option<Kind>| {
        pairs
            .iter()
            .filter(|p| if side == 0 { p.0 == k } else { p.1 == k })
            .count() as f64
            / n
    };
    let mut expected = 0.0;
    for k in [Some(Kind::Question), Some(Kind::Decision), None] {
        expected += share(0, k) * share(1, k);
    }
    let kappa = (observed - expected) / (1.0 - expected);
    let mut out = format!("kappa {kappa:.3}");
    for k in Kind::ALL {
        let na = pairs.iter().filter(|p| p.0 == Some(k)).count();
        let nb = pairs.iter().filter(|p| p.1 == Some(k)).count();
        let both = pairs
            .iter()
            .filter(|p| p.0 == Some(k) && p.1 == Some(k))
            .count();
        let _ = write!(
            out,
            "; {} A {na} B {nb} both {both} (positive agreement {:.2})",
            k.name(),
            2.0 * both as f64 / (na + nb).max(1) as f64
        );
    }
    out
}

/// Floors of the rules' F1 on the held-out projects, per kind: a change that makes detection
/// worse there cannot land unseen.
const F1_FLOOR: [(Kind, f64); 2] = [
    (Kind::Question, QUESTION_FLOOR),
    (Kind::Decision, DECISION_FLOOR),
];
/// Recorded at F1 0.29 (questions) and 0.11 (decisions) on the adjudicated labels, through
/// `capture::detect` (0.12 for decisions when this test had its own copy of the detectors' order).
const QUESTION_FLOOR: f64 = 0.25;
const DECISION_FLOOR: f64 = 0.10;

#[test]
fn the_cue_rules_on_held_out_projects() {
    for name in ["test", "dev"] {
        let units = split(name);
        let rules = peer(&units);
        if let Some(dir) = std::env::var_os("ELNOR_DETECT_DUMP") {
            let lines: String = units
                .iter()
                .zip(&rules)
                .map(|(u, p)| format!("{}\t{}\n", u.row.id, p.map_or("neither", Kind::name)))
                .collect();
            std::fs::write(Path::new(&dir).join(format!("{name}.rules.tsv")), lines).unwrap();
        }
        println!(
            "{name}: {} units, {} projects; annotators: {}",
            units.len(),
            units
                .iter()
                .map(|u| &u.row.project)
                .collect::<BTreeSet<_>>()
                .len(),
            agreement(&units)
        );
        for kind in Kind::ALL {
            let gold = units.iter().filter(|u| u.label == Some(kind)).count();
            let r = score(&units, &rules, kind);
            println!(
                "  {:<8} gold {gold:>4} | cue rules: precision {:.2} recall {:.2} F1 {:.2} ({} taken, {} right)",
                kind.name(),
                r.precision(),
                r.recall(),
                r.f1(),
                r.tp + r.fp,
                r.tp,
            );
            // `ELNOR_DETECT_SHOW=dev` lists what the rules took, rightly and wrongly, and missed on the dev
            // split, to read while changing a rule; the test split is never shown.
            if name == "dev" && std::env::var("ELNOR_DETECT_SHOW").as_deref() == Ok("dev") {
                for (u, p) in units.iter().zip(&rules) {
                    let taken = *p == Some(kind);
                    let gold = u.label == Some(kind);
                    if taken || gold {
                        let what = match (taken, gold) {
                            (true, true) => "rightly taken",
                            (true, false) => "wrongly taken",
                            _ => "missed",
                        };
                        let text: String = u.row.text.chars().take(160).collect();
                        println!("    {} {what} [{}] {text}", kind.name(), u.row.speaker);
                    }
                }
            }
            let floor = F1_FLOOR
                .iter()
                .find(|(k, _)| *k == kind)
                .map_or(0.0, |f| f.1);
            if name == "test" {
                assert!(
                    r.f1() >= floor,
                    "{}: F1 {:.2} on held-out projects is below its floor {floor:.2}",
                    kind.name(),
                    r.f1()
                );
            }
        }
    }
}
