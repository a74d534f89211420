//! The detectors on hand-written cases, and their precision and recall on the labelled set built
//! from the real fixture transcripts (`labels.tsv`).

use std::collections::BTreeSet;

use expect_test::expect;

use super::*;
use crate::capture::is_person_text;
use crate::test_support::fixture_store;

fn check(text: &str, speaker: Speaker, expect: expect_test::Expect) {
    let mut out = String::new();
    for q in open_questions(text, speaker) {
        out.push_str(&format!("Q {}\n", q.text));
    }
    for d in key_decisions(text, speaker) {
        out.push_str(&format!("D {}\n", d.text));
    }
    expect.assert_eq(&out);
}

#[test]
fn cues_in_person_turns() {
    check(
        "I'll come back to the event study later. We decided to focus on price impact for loss causation.",
        Speaker::User,
        expect![[r#"
            Q I'll come back to the event study later.
            D We decided to focus on price impact for loss causation.
        "#]],
    );
    check(
        "Need to check with Christensen about the data timeline? Let's go with the March cut-off.",
        Speaker::User,
        expect![[r#"
            Q Need to check with Christensen about the data timeline?
            D Let's go with the March cut-off.
        "#]],
    );
}

#[test]
fn agent_hand_offs_narration_code_and_headings_are_not_items() {
    check(
        "Should I continue with WP15 now, or are you blocked on review?\nLet me check the remaining tasks instead of guessing.\n```\nlet x = blocked_by(y);\n```\nPending Tasks:",
        Speaker::Assistant,
        expect![[""]],
    );
}

#[test]
fn sentences_skip_code_and_split_lists() {
    let s = sentences(
        "First point here. Second one!\n- a list item that is long\n```\ncode line that is long\n```\n> quoted text that is long",
    );
    expect![[r#"["First point here.", "a list item that is long"]"#]].assert_eq(&format!("{s:?}"));
}

/// Precision and recall on every sentence of every conversation message in the fixture corpus.
/// The labels were written by reading those sentences; the detectors' cues were tuned on the
/// same set, so these figures are an upper bound for unseen text, not a held-out estimate.
#[test]
fn precision_and_recall_on_the_labelled_fixture_set() {
    let labels = include_str!("labels.tsv");
    let mut truth: BTreeSet<(char, String)> = BTreeSet::new();
    for line in labels
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let (label, sentence) = line.split_once('\t').expect("LABEL<TAB>sentence");
        truth.insert((label.chars().next().unwrap(), sentence.to_owned()));
    }
    let (_dir, store) = fixture_store();
    let messages: Vec<(String, String)> = store
        .graph()
        .with_conn_result(|c| {
            let mut s = c.prepare(
                "SELECT role, text FROM turns WHERE kind = 'message'
                 AND role IN ('user', 'assistant') ORDER BY seq",
            )?;
            s.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?.collect()
        })
        .unwrap();
    let mut universe = BTreeSet::new();
    let mut found: BTreeSet<(char, String)> = BTreeSet::new();
    for (role, text) in &messages {
        let speaker = if role == "user" {
            if !is_person_text(text) {
                continue;
            }
            Speaker::User
        } else {
            Speaker::Assistant
        };
        universe.extend(sentences(text));
        found.extend(
            open_questions(text, speaker)
                .into_iter()
                .map(|d| ('Q', d.text)),
        );
        found.extend(
            key_decisions(text, speaker)
                .into_iter()
                .map(|d| ('D', d.text)),
        );
    }
    for (_, s) in &truth {
        assert!(
            universe.contains(s),
            "labelled sentence not in the corpus: {s}"
        );
    }
    let mut report = String::new();
    for label in ['Q', 'D'] {
        let t: BTreeSet<_> = truth.iter().filter(|(l, _)| *l == label).collect();
        let f: BTreeSet<_> = found.iter().filter(|(l, _)| *l == label).collect();
        let tp = f.intersection(&t).count();
        let precision = tp as f64 / f.len().max(1) as f64;
        let recall = tp as f64 / t.len().max(1) as f64;
        report.push_str(&format!(
            "{label}: {} sentences, labelled {}, detected {}, correct {tp}, precision {precision:.2}, recall {recall:.2}\n",
            universe.len(),
            t.len(),
            f.len()
        ));
        for fp in f.difference(&t) {
            report.push_str(&format!("  false positive: {}\n", fp.1));
        }
        for miss in t.difference(&f) {
            report.push_str(&format!("  missed: {}\n", miss.1));
        }
    }
    println!("{report}");
    expect![[r#"
        Q: 533 sentences, labelled 26, detected 34, correct 24, precision 0.71, recall 0.92
          false positive: (All subsequent user messages were system-reminder hook blocking errors from the pre-commit validation script, repeatedly showing the Dialyzer false positive error)
          false positive: Dependencies & Blocking
          false positive: I need to add back `join` from path and `expandSlashCommand`.
          false positive: If so, remember to follow these instructions when creating the above summary.
          false positive: Pending Tasks: Outline any pending tasks that you have explicitly been asked to work on.
          false positive: Start with the first ready task." The summary instructions say to "continue with the remaining tasks."
          false positive: The summary instructions also say to "continue with the remaining tasks."
          false positive: WARNING**: Do NOT use `bd edit` - it opens $EDITOR (vim/nano) which blocks agents
          false positive: dialyzerignore (new - NOT committed)
          false positive: with_span as function vs macro - tests failed because do blocks were passed as keyword args, not as function.
          missed: Fix the Dialyzer false positive and commit spotter-4te.3 changes.** The most promising approach not yet tried: configure `ignore_warnings` in mix.exs for dialyxir (e.g., `dialyzer: [ignore_warnings: ".dialyzerignore"]`), or restructure `put_trace_response_header/1` to not pattern match on `get_current_trace_id()` at all (e.g., return a string or nil directly instead of {:ok, ...} | :error tuple).
          missed: Unsolved/Blocking**: Dialyzer false positive on `get_current_trace_id()`.
        D: 533 sentences, labelled 14, detected 16, correct 13, precision 0.81, recall 0.93
          false positive: Problem Solving: Document problems solved and any ongoing troubleshooting efforts.
          false positive: Using `with` instead of `case`
          false positive: [Description of solved problems and ongoing troubleshooting]
          missed: `:opentelemetry.set_text_map_propagators/1` doesn't exist - fixed by configuring propagators via app environment
    "#]].assert_eq(&report);
}
