//! The detectors on hand-written cases, and their precision and recall on the labelled set built
//! from the real fixture transcripts (`labels.tsv`).

use std::collections::{BTreeMap, BTreeSet};

use expect_test::expect;

use super::*;
use crate::inputs::capture::is_person_text;
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
fn what_a_program_printed_is_not_an_item_even_pasted_by_the_person() {
    // A pasted build log: "waiting" and "should" are the compiler's words, not the person's.
    check(
        "3.12 error: could not compile `core` (lib) due to 2 previous errors\n3.12 warning: build failed, waiting for other jobs to finish...\n[WARN] retry should succeed after the lock is released\nBatch size: 5\nPending retries: 3 / 7",
        Speaker::User,
        expect![[""]],
    );
    // A label with words after it is prose, and stays one.
    check(
        "Open point: we still need to confirm the batch size with the vendor.",
        Speaker::User,
        expect![[r#"
            Q Open point: we still need to confirm the batch size with the vendor.
        "#]],
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
    let Some((_dir, store)) = fixture_store() else {
        return;
    };
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
        Q: 432 sentences, labelled 26, detected 6, correct 6, precision 1.00, recall 0.23
          missed: Code is NOT committed - changes are still unstaged
          missed: Fix the Dialyzer false positive and commit spotter-4te.3 changes. The most promising approach not yet tried: configure `ignore_warnings` in mix.exs for dialyxir (e.g., `dialyzer: [ignore_warnings: ".dialyzerignore"]`), or restructure `put_trace_response_header/1` to not pattern match on `get_current_trace_id()` at all (e.g., return a string or nil directly instead of {:ok, ...} | :error tuple).
          missed: Help define whether the Codemie SDLC flow should be adapted with Novartis-specific context, synthetic data, and a populated backlog.
          missed: Manoj should review User’s Codemie demos and provide an update the same day on fit, gaps, and required effort.
          missed: None worked because the pre-commit hook blocks even with --no-verify
          missed: Only Dialyzer blocks the commit.
          missed: The `.dialyzerignore` file format may need to match dialyxir's expected format, or the `ignore_warnings` option needs to be set in mix.exs.
          missed: The blocker was a Dialyzer false positive on `get_current_trace_id()`.
          missed: The critical blocker is the Dialyzer false positive on `get_current_trace_id()`.
          missed: The next big task is WP15 which involves creating `InteractiveMode` based on `TuiRenderer` but using `AgentSession`.
          missed: The pre-commit hook is still being enforced even with --no-verify.
          missed: Then continue with remaining tasks spotter-4te.4, spotter-4te.5, spotter-4te.6.
          missed: This blocks committing task spotter-4te.3 changes.
          missed: Unsolved/Blocking: Dialyzer false positive on `get_current_trace_id()`.
          missed: What Codemie can provide “day one” versus what is still WIP, especially Agent Core integration
          missed: Write down what Codemie can claim now versus what is still in progress, especially: available/deployable today, Bedrock/AWS-native integrations, and Agent Core integration as WIP targeted for Q3/Q4.
          missed: mix phx.server doesnt seem to start
          missed: spotter-4te.3 (closed in beads but code NOT committed): The controller instrumentation changes need the Dialyzer false positive resolved before they can be committed.
          missed: there is a need for nikita to draft demo scenario around governance, budgetings, analytics
          missed: there is a need to prepare focused max 8 min demo scenario showcasing platform and capabilities
        D: 432 sentences, labelled 14, detected 0, correct 0, precision 0.00, recall 0.00
          missed: BadMapError with processor config format - fixed by using `traces_exporter: :stdout` instead of nested processor config
          missed: Credo: explicit try: Used implicit try (rescue at function level) instead.
          missed: Fixed by configuring propagators via application environment config (`text_map_propagators: [:trace_context, :baggage]`).
          missed: Fixed by converting `with_span` from a `def` to a `defmacro` accepting `do: block`.
          missed: Fixed by using flat `traces_exporter: :stdout` config format per the opentelemetry README.
          missed: For now, let me try skipping the pre-commit hook to complete the task, as the tests pass and the code is functionally correct:
          missed: Given the time constraints and that this is a false positive (the code is correct and tests pass), let me complete the work session by updating the task status and syncing with the main branch.
          missed: Given the time spent on this and that this is clearly a tooling false positive (the code is correct, all tests pass), let me document the work and close the task.
          missed: Keep the SDLC demo around 10 minutes; simplify the usual 10-15 minute Jira-to-implementation flow by cutting nonessential steps.
          missed: Let's do WP14: Create main-new.ts.
          missed: Solved: Cyclomatic complexity via extraction
          missed: Solved: Macro vs function for with_span (do-block syntax)
          missed: Solved: OTEL configuration format (flat config vs nested processor config)
          missed: `:opentelemetry.set_text_map_propagators/1` doesn't exist - fixed by configuring propagators via app environment
    "#]].assert_eq(&report);
}

/// Normalised words of a sentence, for matching a detected item with a labelled one: markup,
/// punctuation and case do not count.
fn words(s: &str) -> Vec<String> {
    s.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// A detected sentence is the labelled item when one holds the other, or most of the shorter's
/// words are in the longer (the detector may cut a list item differently than the labeller).
fn same_item(detected: &str, labelled: &str) -> bool {
    let (d, l) = (words(detected), words(labelled));
    if d.is_empty() || l.is_empty() {
        return false;
    }
    let (d_joined, l_joined) = (d.join(" "), l.join(" "));
    if d_joined.contains(&l_joined) || l_joined.contains(&d_joined) {
        return true;
    }
    let (short, long) = if d.len() <= l.len() {
        (&d, &l)
    } else {
        (&l, &d)
    };
    let long: BTreeSet<&String> = long.iter().collect();
    let shared = short.iter().filter(|w| long.contains(w)).count();
    short.len() >= 4 && shared * 10 >= short.len() * 8
}

/// Precision and recall per type on the real-history labelled set (`real_labels.tsv`), through
/// the capture path itself: each labelled session's whole window, cleaned of injected context, run
/// through the detectors as one capture runs them. Prints every false positive and miss.
#[test]
fn precision_and_recall_on_real_history() {
    let Some((_dir, store, _real)) = crate::test_support::real_store() else {
        return;
    };
    let mut gold: BTreeMap<String, Vec<(char, String)>> = BTreeMap::new();
    for line in include_str!("real_labels.tsv")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let mut cols = line.splitn(3, '\t');
        let (file, label, text) = (
            cols.next().unwrap(),
            cols.next().expect("FILE<TAB>LABEL<TAB>text"),
            cols.next().expect("FILE<TAB>LABEL<TAB>text"),
        );
        let items = gold.entry(file.to_owned()).or_default();
        if label != "NONE" {
            items.push((label.chars().next().unwrap(), text.to_owned()));
        }
    }
    assert!(
        gold.len() >= 15,
        "the labelled set covers at least 15 sessions"
    );
    let mut found: Vec<(String, char, String)> = Vec::new();
    for file in gold.keys() {
        let session: String = store
            .graph()
            .with_conn_result(|c| {
                c.query_row(
                    "SELECT session_id FROM turns WHERE source_path LIKE ?1 AND is_sidechain = 0 LIMIT 1",
                    [format!("%{file}")],
                    |r| r.get(0),
                )
            })
            .unwrap_or_else(|e| panic!("labelled session {file} not ingested: {e}"));
        let (window, _) = crate::inputs::capture::load_window(&store, &session, 0, None).unwrap();
        let (questions, decisions) = crate::inputs::capture::detect(&window);
        found.extend(questions.into_iter().map(|d| (file.clone(), 'Q', d.text)));
        found.extend(decisions.into_iter().map(|d| (file.clone(), 'D', d.text)));
    }
    let mut report = String::new();
    let mut figures = BTreeMap::new();
    for label in ['Q', 'D'] {
        let truth: Vec<(&String, &String)> = gold
            .iter()
            .flat_map(|(f, items)| {
                items
                    .iter()
                    .filter(move |(l, _)| *l == label)
                    .map(move |(_, t)| (f, t))
            })
            .collect();
        let mine: Vec<&(String, char, String)> =
            found.iter().filter(|(_, l, _)| *l == label).collect();
        let correct = mine
            .iter()
            .filter(|(f, _, d)| truth.iter().any(|(tf, t)| *tf == f && same_item(d, t)))
            .count();
        let recalled = truth
            .iter()
            .filter(|(tf, t)| mine.iter().any(|(f, _, d)| f == *tf && same_item(d, t)))
            .count();
        let precision = correct as f64 / mine.len().max(1) as f64;
        let recall = recalled as f64 / truth.len().max(1) as f64;
        figures.insert(label, (precision, recall));
        report.push_str(&format!(
            "{label}: labelled {}, detected {}, correct {correct}, precision {precision:.2}, recall {recall:.2}\n",
            truth.len(),
            mine.len()
        ));
        for (f, _, d) in &mine {
            if !truth.iter().any(|(tf, t)| tf == &f && same_item(d, t)) {
                report.push_str(&format!("  false positive: {d}\n"));
            }
        }
        for (tf, t) in &truth {
            if !mine.iter().any(|(f, _, d)| f == *tf && same_item(d, t)) {
                report.push_str(&format!("  missed: {t}\n"));
            }
        }
    }
    println!("{report}");
    // The targets are precision 0.85 and recall 0.6 per type; the floors are what this build
    // reaches (Q 0.90 / 0.84, D 0.85 / 0.71), so a change that makes either worse fails here.
    for (label, (p, r)) in figures {
        let (p_floor, r_floor) = if label == 'Q' {
            (0.89, 0.83)
        } else {
            (0.85, 0.70)
        };
        assert!(p >= p_floor, "{label} precision {p:.2} below {p_floor}");
        assert!(r >= r_floor, "{label} recall {r:.2} below {r_floor}");
    }
}

#[test]
fn the_last_message_leaves_its_unchecked_boxes_and_next_steps_open() {
    let text = "Status saved.\n\n### Erledigt\n- [x] Voice server installed\n\n### Offene Tasks\n- [ ] Test the history folder\n- Agents ausprobieren (Architect, Engineer)\n\n## Next steps:\n1. **Re-run the sync** - after the token refresh\n2. Plan generated and complete\n\nNotes:\n- just a note here";
    let items: Vec<String> = final_pending_items(text)
        .into_iter()
        .map(|d| d.text)
        .collect();
    expect![[r#"["Test the history folder", "Agents ausprobieren (Architect, Engineer)", "Re-run the sync - after the token refresh"]"#]]
        .assert_eq(&format!("{items:?}"));
}

fn check_proposal(proposal: &str, reply: &str, expect: expect_test::Expect) {
    let out: String = accepted_proposal(proposal, reply)
        .into_iter()
        .map(|d| format!("D {}\n  why: {}\n", d.text, d.why))
        .collect();
    expect.assert_eq(&out);
}

#[test]
fn a_proposal_the_person_accepts_is_their_decision() {
    // The sentence before the question states the choice.
    check_proposal(
        "The current loader does not scale.\n\nSo: we should rework phase 1 before going on.\n\nShall I adjust the plan accordingly?",
        "yes, perfect",
        expect![[r#"
            D So: we should rework phase 1 before going on.
              why: the agent proposed it and the person accepted ("yes, perfect")
        "#]],
    );
    // A list the question introduces, answered item by item: only the items said yes to.
    check_proposal(
        "## A concrete question\nSoll ich den Plan so vereinfachen:\n1. **Decisions** bekommen eine Clause\n2. **Kein Auto-Loading** beim Start\n3. **Ich suche aktiv** wenn ein Thema aufkommt\n\nIst das die Richtung?",
        "1, ja; 2. ja; 3: lieber ein Hook",
        expect![[r#"
            D Decisions bekommen eine Clause
              why: the agent proposed it and the person accepted ("1, ja; 2. ja; 3: lieber ein Hook")
            D Kein Auto-Loading beim Start
              why: the agent proposed it and the person accepted ("1, ja; 2. ja; 3: lieber ein Hook")
        "#]],
    );
    // The question itself names what to do.
    check_proposal(
        "The skill works.\n\nSoll ich den CIS-Skill jetzt kanonisieren?",
        "ja",
        expect![[r#"
            D Soll ich den CIS-Skill jetzt kanonisieren?
              why: the agent proposed it and the person accepted ("ja")
        "#]],
    );
}

#[test]
fn no_decision_without_a_clear_yes_to_a_clear_proposal() {
    let plan = "Plan:\n1. Fix the plist\n2. Install the service\n\nSoll ich das umsetzen? Das würde:\n- den Server beim Login starten\n- Context sparen";
    // "Shall I do that?" names nothing; the list after it is what would follow, not the choice.
    check_proposal(plan, "ja", expect![[""]]);
    let either = "Done with WP14.\n\nWould you like me to continue with WP15, or would you prefer to test first?";
    check_proposal(either, "yes", expect![[""]]);
    let proposal = "We should switch to the voice server.\n\nShall I make the switch now?";
    check_proposal(
        proposal,
        "yes, but first tell me what it costs",
        expect![[""]],
    );
    check_proposal(proposal, "what does it cost?", expect![[""]]);
    // A long message that starts with "ok" is a new request, not an answer.
    let long = format!(
        "ok {}",
        "and then some more words about another thing ".repeat(6)
    );
    check_proposal(proposal, &long, expect![[""]]);
    // Neither is the assistant's own narration the person merely lets pass.
    check_proposal("Let me check the remaining files.", "ok", expect![[""]]);
}

#[test]
fn examples_and_arrows_in_the_persons_words() {
    check(
        "Beispiel: gestern hatten wir entschieden, den MCP server statt dem voice server zu nehmen.\nwir hatten die entscheidung: anstatt eigenem voice server => nur MCP tools benutzen.",
        Speaker::User,
        expect![[r#"
            D wir hatten die entscheidung: anstatt eigenem voice server => nur MCP tools benutzen.
        "#]],
    );
}

#[test]
fn a_sentence_ending_in_a_colon_keeps_its_pending_section() {
    let text = "## Nächster Schritt: Phase 2\n\n**Empfehlung:** Starte eine neue Session. Dann kannst du beginnen:\n\n1. **UOCS testen** - Aufgabe durchführen\n2. Voice testen\n\n**STORY:**\n1. Gemini Research analysiert";
    let items: Vec<String> = final_pending_items(text)
        .into_iter()
        .map(|d| d.text)
        .collect();
    expect![[r#"["UOCS testen - Aufgabe durchführen", "Voice testen"]"#]]
        .assert_eq(&format!("{items:?}"));
}
