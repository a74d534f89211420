//! Injected context recognised and left out, as a table of messages.

use expect_test::expect;

use super::*;

fn show(c: &Cleaned) -> String {
    let skipped: Vec<String> = c
        .skipped
        .iter()
        .map(|(k, n)| format!("{}×{n}", k.as_str()))
        .collect();
    format!("{:?} skipped [{}]\n", c.text, skipped.join(", "))
}

#[test]
fn person_text_keeps_only_what_was_typed() {
    let program = format!(
        "You are the live assistant of a shop. {}",
        "Rules apply. ".repeat(40)
    );
    let person = format!(
        "You are right about the parser. {}",
        "Keep the old one. ".repeat(30)
    );
    let cases = [
        "<command-name>/compact</command-name>",
        "<local-command-stdout>Compacted</local-command-stdout>",
        "# AGENTS.md instructions for /repo\n\nAlways run tests.",
        "<environment_context>\n  <cwd>/repo</cwd>\n</environment_context>",
        "Read HEARTBEAT.md if it exists (workspace context). Follow it strictly.",
        "This session is being continued from a previous conversation that ran out of context.",
        program.as_str(),
        person.as_str(),
        "Conversation info (untrusted metadata):\n```json\n{\"timestamp\": \"Tue\"}\n```\n\nRevisa mis tareas",
        "[Tue 2026-03-03 15:23 UTC] revisa si tengo actividades",
        "A new session was started via /new or /reset. Say hi briefly.",
        "[Telegram Ann (@ann) id:12 +8m 2026-01-30 17:19 GMT+9] /start\n[message_id: 5]",
        "# Context from my IDE setup:\n\n## Open tabs:\n- a.py\n\n## My request for Codex:\nShould we keep the old parser?\n",
        "Why does it fail?\n```\n$ cargo test\nerror[E0432]: unresolved import\n```\n<system-reminder>Be brief.</system-reminder>",
        "Here is the log:\n$ make\nTraceback (most recent call last)\n> quoted line\nLet's go with option B.",
        "<task-notification>\n<task-id>a1</task-id>\n<status>completed</status>\n</task-notification>",
        "<bash-input>git status</bash-input>",
        "<div>Why is this box not centred?</div>",
    ];
    let mut out = String::new();
    for c in cases {
        out.push_str(&show(&person_text(c)));
    }
    expect![[r#"
        "" skipped [command_wrapper×1]
        "" skipped [command_wrapper×1]
        "" skipped [instruction_file×1]
        "" skipped [environment_context×1]
        "" skipped [scheduled×1]
        "" skipped [compaction_summary×1]
        "" skipped [program_prompt×1]
        "You are right about the parser. Keep the old one. Keep the old one. Keep the old one. Keep the old one. Keep the old one. Keep the old one. Keep the old one. Keep the old one. Keep the old one. Keep the old one. Keep the old one. Keep the old one. Keep the old one. Keep the old one. Keep the old one. Keep the old one. Keep the old one. Keep the old one. Keep the old one. Keep the old one. Keep the old one. Keep the old one. Keep the old one. Keep the old one. Keep the old one. Keep the old one. Keep the old one. Keep the old one. Keep the old one. Keep the old one." skipped []
        "Revisa mis tareas" skipped [gateway_metadata×1]
        "revisa si tengo actividades" skipped [gateway_metadata×1]
        "" skipped [marker×1]
        "/start" skipped [gateway_metadata×2]
        "Should we keep the old parser?" skipped [environment_context×1]
        "Why does it fail?" skipped [system_reminder×1, code×1]
        "Here is the log:\nLet's go with option B." skipped [terminal_output×1, quoted×1]
        "" skipped [notification×1]
        "" skipped [notification×1]
        "<div>Why is this box not centred?</div>" skipped []
    "#]]
    .assert_eq(&out);
}

#[test]
fn assistant_prose_drops_reasoning_and_code() {
    let mut out = String::new();
    for c in [
        "<think>The user wants X. I should check.</think><final>Done: the queue is renamed.</final>",
        "[error] overloaded",
        "I changed the config:\n\n    queue = \"codex\"\n    workers = 2\n\n- Kept the old name as an alias for now, until the workers restart.",
    ] {
        out.push_str(&show(&assistant_prose(c)));
    }
    expect![[r#"
        "Done: the queue is renamed." skipped [reasoning×1]
        "" skipped [marker×1]
        "I changed the config:\n\n\n- Kept the old name as an alias for now, until the workers restart." skipped [code×1]
    "#]].assert_eq(&out);
}

#[test]
fn a_reply_given_as_json_says_its_sentences_and_what_prose_leaves_out_is_kept_aside() {
    let mut out = String::new();
    for c in [
        // An app that asks its agent for JSON: the sentences are the reply, ids and flags not.
        "```json\n{\n  \"reply\": \"Gateway stopped: RPC error 1006 on port 18789.\",\n  \"proposedActions\": [{\"type\": \"run_workflow\", \"note\": \"Start the gateway first\"}],\n  \"blockers\": []\n}\n```",
        // Without a sentence an object is no reply in words: read as it was before.
        "{\"ok\": true, \"id\": \"task_17\"}",
        // A config shown or a call written out holds no sentence: it stays code.
        "~~~JSON\n{\"scripts\": {\"build\": \"tsc && vite build\"}, \"cmd\": \"ls -la /tmp\"}\n~~~",
        // Sentences are read where they stand, also when the text wrote them with escapes.
        "{\"b\": \"Caf\\u00e9 is open.\", \"a\": \"See you there.\"}",
        // A sentence may open on an emoji or an inverted mark; a path or a flag is no sentence.
        "{\"reply\": \"👋 Hi Alex, the quote is ready.\", \"es\": \"¿Quieres verla?\", \"p\": \"./run --fast\"}",
        // Not one object: a sentence before it is prose, the object code.
        "Here is the job:\n```json\n{\"action\": \"briefing.js\"}\n```",
        // A table's rows are aside for search, and rows of their own for a report.
        "Changed:\n\n| File | What |\n|---|---|\n| `a.rs` | the parser |\n\nAll tests pass.",
    ] {
        let (prose, aside) = assistant_parts(c);
        out.push_str(&show(&prose));
        out.push_str(&format!("  aside {aside:?}\n"));
    }
    out.push_str(&show(&assistant_report(
        "Changed:\n\n| File | What |\n|---|---|\n| `a.rs` | the parser |\n\nAll tests pass.",
    )));
    expect![[r#"
        "Gateway stopped: RPC error 1006 on port 18789.\nStart the gateway first" skipped [code×1]
          aside "{\n  \"reply\": \"Gateway stopped: RPC error 1006 on port 18789.\",\n  \"proposedActions\": [{\"type\": \"run_workflow\", \"note\": \"Start the gateway first\"}],\n  \"blockers\": []\n}"
        "{\"ok\": true, \"id\": \"task_17\"}" skipped []
          aside ""
        "" skipped [code×1]
          aside "{\"scripts\": {\"build\": \"tsc && vite build\"}, \"cmd\": \"ls -la /tmp\"}\n"
        "Café is open.\nSee you there." skipped [code×1]
          aside "{\"b\": \"Caf\\u00e9 is open.\", \"a\": \"See you there.\"}"
        "👋 Hi Alex, the quote is ready.\n¿Quieres verla?" skipped [code×1]
          aside "{\"reply\": \"👋 Hi Alex, the quote is ready.\", \"es\": \"¿Quieres verla?\", \"p\": \"./run --fast\"}"
        "Here is the job:" skipped [code×1]
          aside "{\"action\": \"briefing.js\"}\n"
        "Changed:\n\n\nAll tests pass." skipped [quoted×1]
          aside "| File | What |\n|---|---|\n| `a.rs` | the parser |\n"
        "Changed:\n\n`a.rs` — the parser\n\nAll tests pass." skipped []
    "#]]
    .assert_eq(&out);
}

#[test]
fn a_slash_commands_arguments_are_the_persons_words() {
    let c = person_text(
        "<command-message>init is analyzing</command-message>\n<command-name>/init</command-name>\n<command-args>@CLAUDE.md を最新の状態に</command-args>",
    );
    assert_eq!(c.text, "@CLAUDE.md を最新の状態に");
    assert!(
        person_text("<command-name>/clear</command-name><command-args></command-args>")
            .text
            .is_empty()
    );
}

#[test]
fn replayed_history_event_lines_and_short_templates_are_not_the_persons() {
    assert_eq!(
        person_text("Human: first ask\nAssistant: an answer\nHuman: the new ask\nAssistant:").text,
        "the new ask"
    );
    assert_eq!(
        person_text("System: [2026-02-28 08:00:00 GMT+8] Exec completed (code 1)\n[Mon 2026-03-02 17:42 GMT+8] is the gateway down?").text,
        "is the gateway down?"
    );
    // A message of event lines alone is a notice from the harness: what the agent says back
    // answers no one (capture reads `Notification` as a prompt that is not the person's).
    let event =
        person_text("System: [2026-02-28 08:00:00 GMT+8] Coordinator heartbeat. Run the checks.");
    assert!(event.text.is_empty());
    assert_eq!(event.skipped.get(&Injected::Notification), Some(&1));
    // An event and its expansion (a fired reminder quoting its content) are the gateway's
    // whole; a person's words under an event line stay theirs.
    let reminder = person_text(
        "System: [2026-02-28 08:00:00 GMT+8] Check the backups of both servers.\n\n\
         A reminder fired. Its content:\n\nCheck the backups of both servers.\n\n\
         Current time: Saturday, February 28th, 2026",
    );
    assert!(reminder.text.is_empty(), "{reminder:?}");
    assert_eq!(reminder.skipped.get(&Injected::Notification), Some(&1));
    assert_eq!(
        person_text("System: [2026-02-28 08:00:00 GMT+8] Check the backups of both servers.\nthe backups failed, look at the second server").text,
        "the backups failed, look at the second server"
    );
    assert!(
        person_text("# /exec — Execute a spec\nPurpose: run one spec file.")
            .text
            .is_empty()
    );
    // A heading that starts with a path is the person's.
    assert_eq!(
        person_text("# /etc/hosts is ignored\nwhy?").text,
        "# /etc/hosts is ignored\nwhy?"
    );
    assert_eq!(
        person_text("## User Input\n\n```text\nCreate principles for testing\n```\n\nYou MUST consider the user input.").text,
        "Create principles for testing"
    );
    assert_eq!(
        person_text("Chat history since last reply (untrusted, for context):\n```json\n[{\"a\": 1}]\n```\nwhat changed?").text,
        "what changed?"
    );
    // A pasted prompt with headings inside its fence is the person's paste, not a template.
    let pasted = format!(
        "here is the prompt to run\n\n```\n# A\n# B\n# C\n{}\n```",
        "x ".repeat(900)
    );
    assert!(
        person_text(&pasted)
            .text
            .starts_with("here is the prompt to run")
    );
}

#[test]
fn banners_directives_tokens_and_bare_commands_are_the_harnesss() {
    // A program's banner or shouted instruction is not the person's request.
    for banner in [
        "[SUGGESTION MODE: Suggest what the user might type next.] FIRST: look at the messages.",
        "IT IS CRITICAL THAT YOU FOLLOW THIS COMMAND: LOAD the FULL workflow.md",
        "\nYou must follow the steps below exactly.\n\n<agent-activation CRITICAL=\"TRUE\">\n\
         1. LOAD the FULL agent file from agents/pm.md\n2. READ its entire contents\n\
         3. Stay in character throughout the session\n</agent-activation>\n",
    ] {
        let c = person_text(banner);
        assert!(c.text.is_empty(), "{banner:?}: {c:?}");
        assert_eq!(c.skipped.get(&Injected::ProgramPrompt), Some(&1));
    }
    // A person's acronyms, tags and capitals of a word or two stay theirs.
    for typed in [
        "[WIP] the sidebar flickers",
        "OK so the build is green",
        "API keys: where should they live?",
        "PR #12 FAILS on CI, look",
        "PLEASE FIX THIS NOW",
        "[URGENT BUG FIX] the login fails",
        "SECURITY NOTICE: the key leaked, rotate it",
        "why does this not render? <my-widget><span>Hi</span></my-widget>",
        "see <build-log>\nerror: linker failed\n</build-log>\nand tell me what broke in the \
         release build after yesterday's upgrade of the toolchain to the new version",
        "Summarize these notes for the team, three bullets:\n<meeting_notes>\nWe moved the \
         launch to May. Dana owns the migration. The budget holds.\n</meeting_notes>",
        "Follow these:\n<release-steps>\n1. tag the build\n2. push the tag\n3. announce it\n\
         </release-steps>",
    ] {
        assert_eq!(person_text(typed).text, typed);
    }
    // The gateway's reply directive leads the prose; a scheduler's token alone is no prose.
    let c = assistant_prose("[[reply_to_current]] [[reply_to:42]] Both domains need renewal now.");
    assert_eq!(c.text, "Both domains need renewal now.");
    assert_eq!(c.skipped.get(&Injected::Marker), Some(&2));
    assert_eq!(assistant_prose("HEARTBEAT_OK").text, "");
    assert_eq!(assistant_prose("NO_REPLY\n").text, "");
    assert_eq!(assistant_prose("OK").text, "OK");
    // A slash command alone, or with ids, runs something; with words it says what.
    assert!(bare_command("/start"));
    assert!(bare_command("/resume 019c10ea-fc1b-7122"));
    assert!(!bare_command("/review the last commit"));
    assert!(!bare_command("/etc/hosts is ignored"));
    assert!(!bare_command("fix /start"));
}
