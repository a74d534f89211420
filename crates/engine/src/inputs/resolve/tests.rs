//! Known-name matching, candidate extraction and the significance gate with its research
//! multiplier.

use expect_test::expect;

use super::*;
use crate::base::ids::EntityId;
use crate::graph::entities::EntityMatcher;

fn id(s: &str) -> EntityId {
    EntityId::new(s).unwrap()
}

#[test]
fn known_names_and_aliases_in_one_pass_on_word_boundaries() {
    let m = EntityMatcher::new(&[
        (id("ent_henderson"), "Henderson".into()),
        (id("ent_henderson"), "Henderson v. Marex".into()),
        (id("ent_doc72"), "DOC72".into()),
        (id("ent_ai"), "AI".into()),
    ]);
    let mut counts = BTreeMap::new();
    m.count_in(
        "henderson v. marex and Henderson again; DOC72, not DOC720; AI ignored; Hendersonville no",
        &mut counts,
    );
    expect![[r#"{EntityId("ent_doc72"): 1, EntityId("ent_henderson"): 2}"#]]
        .assert_eq(&format!("{counts:?}"));
}

#[test]
fn candidates_are_scored_by_kind_repetition_and_who_named_them() {
    let texts = [
        ("Please update DOC72 and check PROJ-123 and #42", true),
        (
            "I edited src/brief/damages.md and src/brief/damages.md again",
            false,
        ),
        (
            "The Ninth Circuit said so. Let Me Know. Judge Chen agreed with Judge Chen.",
            false,
        ),
        ("see https://example.com/a/b/c for details", false),
    ];
    let found = candidates(texts, &|t| t == "Henderson");
    let out: Vec<String> = found
        .iter()
        .map(|c| {
            format!(
                "{:?} {:?} x{} user={} {:.2}",
                c.kind, c.text, c.mentions, c.by_user, c.score
            )
        })
        .collect();
    expect![[r##"
        Document "DOC72" x1 user=true 0.50
        Issue "#42" x1 user=true 0.45
        Issue "PROJ-123" x1 user=true 0.45
        File "src/brief/damages.md" x2 user=false 0.30
        Name "Judge Chen" x2 user=false 0.25
        Name "Ninth Circuit" x1 user=false 0.15"##]]
    .assert_eq(&out.join("\n"));
}

#[test]
fn research_in_an_active_context_lowers_the_gate_by_the_configured_multiplier() {
    let mut config = ContinuityConfig::default();
    let base = gate_threshold(&config, Some(ActivityType::Research), false);
    let lowered = gate_threshold(&config, Some(ActivityType::Research), true);
    let drafting = gate_threshold(&config, Some(ActivityType::Drafting), true);
    assert!((base - 0.5).abs() < 1e-9);
    assert!((lowered - 0.3).abs() < 1e-9);
    assert!((drafting - 0.5).abs() < 1e-9);
    config.research_gate_multiplier_pct = 80;
    config.significance_threshold_pct = 40;
    assert!((gate_threshold(&config, Some(ActivityType::Research), true) - 0.32).abs() < 1e-9);
    // A file path named twice by the agent scores 0.3: it passes only the lowered gate.
    let path = Candidate {
        text: "a/b.md".into(),
        kind: CandidateKind::File,
        mentions: 2,
        by_user: false,
        score: 0.3,
    };
    assert!(passes(&path, lowered));
    assert!(!passes(&path, base));
}
