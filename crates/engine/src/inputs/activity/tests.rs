//! The classifier on the person's own words: one line per case, family and recency.

use expect_test::expect;

use super::*;

#[test]
fn verb_families_and_recency() {
    let cases = [
        "Search hex.pm for the latest versions of these Elixir packages",
        "draft the damages section and rewrite subsection 2",
        "email Christensen and reply to the client",
        "should we prioritize the event study or the roadmap?",
        "start phoenix in background",
        "what did we decide last time about the timeline?",
        "はくあ",
        "find the source link",
        "continue implementation",
    ];
    let out: Vec<String> = cases
        .iter()
        .map(|c| {
            let k = classify(c);
            format!(
                "{:<14} {:<13} {c}",
                k.activity.map(ActivityType::as_str).unwrap_or("-"),
                k.recency.map(|r| format!("{r:?}")).unwrap_or("-".into()),
            )
        })
        .collect();
    expect![[r#"
        research       MustSearch    Search hex.pm for the latest versions of these Elixir packages
        drafting       -             draft the damages section and rewrite subsection 2
        communication  -             email Christensen and reply to the client
        strategic      -             should we prioritize the event study or the roadmap?
        operational    -             start phoenix in background
        recall         -             what did we decide last time about the timeline?
        -              -             はくあ
        research       ShouldSearch  find the source link
        drafting       -             continue implementation"#]]
    .assert_eq(&out.join("\n"));
}

#[test]
fn session_activity_follows_where_it_ended_and_maps_to_phase() {
    let turns = [
        "research the precedent",
        "look up Ninth Circuit cases",
        "now draft the brief",
        "write section two",
        "edit the intro",
    ];
    let a = classify_session(turns.iter().copied());
    assert_eq!(a, Some(ActivityType::Drafting));
    assert_eq!(a.map(ActivityType::phase), Some(WorkPhase::Drafting));
    assert_eq!(ActivityType::Strategic.phase(), WorkPhase::Review);
    assert_eq!(ActivityType::Recall.phase(), WorkPhase::Unknown);
    assert_eq!(classify_session(["hello"].iter().copied()), None);
}

#[test]
fn words_match_whole_not_inside_other_words() {
    // "finding" must not count as "find", nor "address" as "add".
    assert_eq!(classify("the address of the finding").activity, None);
}
