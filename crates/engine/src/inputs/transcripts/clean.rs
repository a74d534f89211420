//! Clean inputs: what the person typed and the assistant's prose, with injected context taken out.
//!
//! A harness writes much into a "user" message that no person typed: system reminders, slash
//! command wrappers and their output, environment and IDE context, instruction files
//! (AGENTS.md, CLAUDE.md, skills), gateway metadata, heartbeat and cron prompts, compaction
//! summaries, long role prompts a program sends, and the banners and shouted instructions a
//! prompt library expands. Assistant messages carry reasoning blocks, a gateway's reply
//! directives (`[[reply_to_current]]`) and a scheduler's protocol tokens (`HEARTBEAT_OK`).
//! Both carry code, pasted terminal output and quoted files. Capture reads only what is left,
//! and counts what it left out per [`Injected`] kind, so a capture run can say what it skipped.
//!
//! The rules recognise the harnesses' own wrappers and the shapes of pasted material; none of
//! them names a project, a person or a phrase of anyone's work.

use std::collections::BTreeMap;

use serde::Serialize;

/// A kind of text that is not the person's or the assistant's own words.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Injected {
    /// `<system-reminder>` blocks and harness caveats.
    SystemReminder,
    /// Slash-command wrappers (`<command-name>`) and local command output.
    CommandWrapper,
    /// Environment and IDE context (`<environment_context>`, "Context from my IDE setup").
    EnvironmentContext,
    /// Instruction files: AGENTS.md, CLAUDE.md, `<user_instructions>`, skill texts.
    InstructionFile,
    /// A custom command's prompt template, expanded into the message by the harness (the person
    /// ran the command; the template's instructions are not their words).
    PromptTemplate,
    /// Gateway metadata: untrusted-metadata blocks, channel and timestamp headers.
    GatewayMetadata,
    /// Heartbeat and cron prompts.
    Scheduled,
    /// Hook output delivered into the conversation.
    HookOutput,
    /// A notice the harness writes as the user: wrapped whole in its own tag (a background
    /// task's result, `<task-notification>`; a shell escape's input and output), or a gateway's
    /// system event line ("System: [2026-02-20 15:48:04 EST] Cron job fired").
    Notification,
    /// A summary that replaced compacted history.
    CompactionSummary,
    /// A long role prompt a program sent as the user ("You are …").
    ProgramPrompt,
    /// Reasoning blocks (`<think>`, `<thinking>`).
    Reasoning,
    /// Fenced or indented code.
    Code,
    /// Pasted terminal output, tracebacks, logs.
    TerminalOutput,
    /// Quoted lines (`> …`) and tables.
    Quoted,
    /// Interruption markers and redaction stubs.
    Marker,
}

impl Injected {
    pub fn as_str(self) -> &'static str {
        match self {
            Injected::SystemReminder => "system_reminder",
            Injected::CommandWrapper => "command_wrapper",
            Injected::EnvironmentContext => "environment_context",
            Injected::InstructionFile => "instruction_file",
            Injected::PromptTemplate => "prompt_template",
            Injected::GatewayMetadata => "gateway_metadata",
            Injected::Scheduled => "scheduled",
            Injected::HookOutput => "hook_output",
            Injected::Notification => "notification",
            Injected::CompactionSummary => "compaction_summary",
            Injected::ProgramPrompt => "program_prompt",
            Injected::Reasoning => "reasoning",
            Injected::Code => "code",
            Injected::TerminalOutput => "terminal_output",
            Injected::Quoted => "quoted",
            Injected::Marker => "marker",
        }
    }
}

/// Counts of what was left out, per kind.
pub type InjectedCounts = BTreeMap<Injected, u32>;

/// A message's own words and what was taken out of it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Cleaned {
    pub text: String,
    pub skipped: InjectedCounts,
}

impl Cleaned {
    fn skip(&mut self, kind: Injected) {
        *self.skipped.entry(kind).or_default() += 1;
    }

    fn whole(kind: Injected) -> Cleaned {
        let mut c = Cleaned::default();
        c.skip(kind);
        c
    }
}

/// Prefixes that make a whole user message something the harness or a program wrote.
const WHOLE_MESSAGE: &[(&str, Injected)] = &[
    ("<command-", Injected::CommandWrapper),
    ("<local-command", Injected::CommandWrapper),
    (
        "caveat: the messages below were generated",
        Injected::SystemReminder,
    ),
    ("[request interrupted", Injected::Marker),
    ("[redacted", Injected::Marker),
    ("<user_instructions>", Injected::InstructionFile),
    ("<instructions>", Injected::InstructionFile),
    ("# agents.md instructions", Injected::InstructionFile),
    ("# claude.md", Injected::InstructionFile),
    ("base directory for this skill", Injected::InstructionFile),
    (
        "this session is being continued from a previous conversation",
        Injected::CompactionSummary,
    ),
    ("[cron", Injected::Scheduled),
    // OpenClaw's greeting prompt after the person types `/new` or `/reset`: the person started
    // the session, but the words are the harness's.
    (
        "a new session was started via /new or /reset",
        Injected::Marker,
    ),
    ("<user-prompt-submit-hook>", Injected::HookOutput),
];

/// Markers of a heartbeat prompt anywhere in a message.
const SCHEDULED_MARKERS: &[&str] = &["heartbeat.md", "heartbeat_ok", "[cron:"];

/// Paired tags whose content is never the person's or the assistant's words.
const SPANS: &[(&str, &str, Injected)] = &[
    (
        "<system-reminder>",
        "</system-reminder>",
        Injected::SystemReminder,
    ),
    (
        "<environment_context>",
        "</environment_context>",
        Injected::EnvironmentContext,
    ),
    (
        "<user_instructions>",
        "</user_instructions>",
        Injected::InstructionFile,
    ),
    ("<think>", "</think>", Injected::Reasoning),
    ("<thinking>", "</thinking>", Injected::Reasoning),
    ("<reasoning>", "</reasoning>", Injected::Reasoning),
];

fn starts_with_ci(text: &str, prefix: &str) -> bool {
    text.len() >= prefix.len()
        && text.is_char_boundary(prefix.len())
        && text[..prefix.len()].eq_ignore_ascii_case(prefix)
}

/// Removes paired-tag spans; an unclosed opening tag removes everything after it.
fn strip_spans(text: &str, out: &mut Cleaned) -> String {
    let mut s = text.to_owned();
    for (open, close, kind) in SPANS {
        while let Some(start) = s.find(open) {
            let end = s[start..]
                .find(close)
                .map_or(s.len(), |e| start + e + close.len());
            s.replace_range(start..end, " ");
            out.skip(*kind);
        }
    }
    // `<final>` only wraps the answer.
    s.replace("<final>", "").replace("</final>", "")
}

/// A leading gateway header: `[Tue 2026-03-03 15:23 UTC] `, `[Telegram Name id:… 2026-01-30
/// 17:19 GMT+9] `: a bracket at the very start holding a date and a time.
fn strip_gateway_header(text: &str) -> Option<&str> {
    let t = text.trim_start();
    let rest = t.strip_prefix('[')?;
    let end = rest.find(']')?;
    let inside = &rest[..end];
    let has_date = inside
        .as_bytes()
        .windows(10)
        .any(|w| w[4] == b'-' && w[7] == b'-' && w[..4].iter().all(u8::is_ascii_digit));
    let has_time = inside
        .as_bytes()
        .windows(5)
        .any(|w| w[2] == b':' && w[..2].iter().all(u8::is_ascii_digit));
    (has_date && has_time).then(|| &rest[end + 1..])
}

/// Whether a line looks like pasted terminal output or a log rather than a sentence.
fn terminal_line(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with("$ ")
        || t.starts_with(">>> ")
        || t.starts_with("PS ") && t.contains('>')
        || t.starts_with("Traceback (most recent call last)")
        || t.starts_with("File \"")
        || t.starts_with("at ") && t.contains('(') && t.contains(':')
        || t.starts_with("npm ERR")
        || t.starts_with("error[")
        || t.starts_with("warning: ")
        || (t.len() > 20
            && t.as_bytes()[..4].iter().all(u8::is_ascii_digit)
            && t.as_bytes()[4] == b'-')
        || t.starts_with("[INFO]")
        || t.starts_with("[ERROR]")
        || t.starts_with("INFO:")
        || t.starts_with("ERROR:")
}

/// What becomes of a Markdown table in an assistant's message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tables {
    /// Left out with quoted lines: the prose is what search and capture read.
    Drop,
    /// Kept, a line per body row with its cells joined (`a.rs — what changed`): an agent's
    /// report often lists its files, results and next steps in one.
    Rows,
}

/// Drops code fences, indented code, quoted lines, tables (or keeps their body rows, as
/// `tables` says) and terminal output, line by line; what it drops as a block (but the fence
/// lines) goes to `aside`, when the caller keeps it.
fn strip_blocks(
    text: &str,
    out: &mut Cleaned,
    tables: Tables,
    mut aside: Option<&mut String>,
) -> String {
    let mut kept: Vec<std::borrow::Cow<str>> = Vec::new();
    let mut in_fence = false;
    let mut last_skip: Option<Injected> = None;
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let trimmed = line.trim_start();
        let indented = line.starts_with("    ") || line.starts_with('\t');
        if tables == Tables::Rows && !in_fence && !indented && trimmed.starts_with('|') {
            // The row above a separator is the header: its column names say nothing alone.
            let header = lines.peek().is_some_and(|n| table_separator(n));
            if !table_separator(line) && !header {
                let row = table_row(trimmed);
                if !row.is_empty() {
                    last_skip = None;
                    kept.push(row.into());
                }
            }
            continue;
        }
        let skip = if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            in_fence = !in_fence;
            Some(Injected::Code)
        } else if in_fence {
            Some(Injected::Code)
        } else if (line.starts_with("    ") || line.starts_with('\t')) && !trimmed.is_empty() {
            // Indented lines continue a list item when they read as prose.
            let list = trimmed.starts_with(['-', '*', '•'])
                || trimmed
                    .split_once(['.', ')'])
                    .is_some_and(|(n, _)| n.chars().all(|c| c.is_ascii_digit()) && !n.is_empty());
            (!list && !looks_like_prose(trimmed)).then_some(Injected::Code)
        } else if trimmed.starts_with('>') || trimmed.starts_with('|') {
            Some(Injected::Quoted)
        } else if terminal_line(line) {
            Some(Injected::TerminalOutput)
        } else {
            None
        };
        match skip {
            Some(kind) => {
                // One count per block, not per line.
                if last_skip != Some(kind) {
                    out.skip(kind);
                }
                last_skip = Some(kind);
                let fence = trimmed.starts_with("```") || trimmed.starts_with("~~~");
                if let Some(aside) = aside.as_deref_mut()
                    && !fence
                    && !trimmed.is_empty()
                {
                    aside.push_str(trimmed);
                    aside.push('\n');
                }
            }
            None => {
                last_skip = None;
                kept.push(line.into());
            }
        }
    }
    kept.join("\n")
}

/// A table's separator row (`|---|:--:|`).
fn table_separator(line: &str) -> bool {
    let t = line.trim();
    t.starts_with('|') && t.contains('-') && t.chars().all(|c| "|-: ".contains(c))
}

/// A table row's non-empty cells joined by " — ".
fn table_row(line: &str) -> String {
    line.split('|')
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .collect::<Vec<_>>()
        .join(" — ")
}

/// Prose: mostly letters and spaces, with a few words.
fn looks_like_prose(line: &str) -> bool {
    let letters = line.chars().filter(|c| c.is_alphabetic()).count();
    let spaces = line.chars().filter(|c| *c == ' ').count();
    let len = line.chars().count().max(1);
    spaces >= 3 && letters * 10 >= len * 7
}

/// The text of a gateway's system event line ("System: [2026-02-20 15:48:04 EST] Cron job
/// fired" gives "Cron job fired"), `None` for any other line.
fn event_text(line: &str) -> Option<&str> {
    let stamped = line.trim().strip_prefix("System: [")?;
    if !stamped.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    Some(stamped.split_once(']').map_or("", |(_, text)| text.trim()))
}

/// The fewest characters an event's text has for its repetition to show the message is the
/// event's expansion: a short event ("Exec completed") can recur in a person's own words.
const RESTATED_EVENT_CHARS: usize = 16;

/// Whether a message is a gateway's event and its expansion: it opens on a system event line
/// whose text the rest of the message repeats (a fired reminder, its content quoted below the
/// event). The gateway wrote all of it; a person typing under an event line does not repeat it.
fn restates_event(t: &str) -> bool {
    let mut lines = t.lines();
    let Some(event) = lines.next().and_then(event_text) else {
        return false;
    };
    event.chars().count() >= RESTATED_EVENT_CHARS && lines.any(|l| l.contains(event))
}

/// What the person typed in a user message, or nothing when a harness or a program wrote it.
pub fn person_text(raw: &str) -> Cleaned {
    let t = raw.trim_start();
    let lower: String = t.chars().take(80).collect::<String>().to_lowercase();
    // A custom slash command's wrapper: the harness wrote the tags, the person the arguments.
    if lower.starts_with("<command-")
        && let Some(args) = tag_text(t, "command-args").filter(|a| !a.is_empty())
    {
        let mut out = Cleaned::whole(Injected::CommandWrapper);
        out.text = args.to_owned();
        return out;
    }
    for (prefix, kind) in WHOLE_MESSAGE {
        if lower.starts_with(prefix) {
            return Cleaned::whole(*kind);
        }
    }
    if wrapped_whole(t) || restates_event(t) {
        return Cleaned::whole(Injected::Notification);
    }
    // A program's instruction announced in capitals: a bracketed mode banner ("[SUGGESTION
    // MODE: …]") or a shouted heading ("IT IS CRITICAL THAT YOU FOLLOW THIS COMMAND: …") that a
    // prompt library expands into the message. A person's acronym is a word or two, and a
    // person shouting does not head what follows with a colon.
    if capitals_heading(t) || instruction_block(t) {
        return Cleaned::whole(Injected::ProgramPrompt);
    }
    let head: String = t.chars().take(2000).collect::<String>().to_lowercase();
    if SCHEDULED_MARKERS.iter().any(|m| head.contains(m)) {
        return Cleaned::whole(Injected::Scheduled);
    }
    // A long role prompt a program sends as the user: "You are the … assistant …", "You are
    // executing one task …". A person's "You are right, …" is not one: only role openings count.
    const ROLE_OPENINGS: &[&str] = &[
        "you are a ",
        "you are an ",
        "you are the ",
        "you are acting ",
        "you are executing ",
        "you are now ",
    ];
    if ROLE_OPENINGS.iter().any(|o| starts_with_ci(t, o)) && t.chars().count() > 400 {
        return Cleaned::whole(Injected::ProgramPrompt);
    }
    // An expanded prompt template (a custom slash command): long, several headings of
    // instructions. Only the fenced block under a "User Input" heading is the person's.
    // Headings inside a fenced block belong to pasted material (a prompt the person pastes
    // to pass on), not to a template of the harness's.
    let mut fenced = false;
    let headings = t
        .lines()
        .filter(|l| {
            if l.trim_start().starts_with("```") {
                fenced = !fenced;
            }
            !fenced && l.starts_with('#') && l.trim_start_matches('#').starts_with(' ')
        })
        .count();
    // Shorter templates say what they are by their first line: a heading that names a slash
    // command ("# /review — …"), or a "User Input" heading that holds the person's words.
    let first_line = t.lines().next().unwrap_or("").trim();
    // The heading's first word is `/name` (letters, digits, `-`, `_`, `:`): a command, not a
    // path such as `/etc/hosts`.
    let names_command = first_line.starts_with('#')
        && first_line
            .trim_start_matches('#')
            .trim_start()
            .strip_prefix('/')
            .and_then(|rest| rest.split_whitespace().next())
            .is_some_and(|word| {
                !word.is_empty()
                    && word
                        .chars()
                        .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | ':'))
            });
    let user_input_heading = t
        .lines()
        .any(|l| l.starts_with('#') && l.trim_start_matches('#').trim() == "User Input");
    if (t.chars().count() > 1500 && headings >= 3) || names_command || user_input_heading {
        let mut out = Cleaned::whole(Injected::PromptTemplate);
        if let Some(at) = t.find("User Input") {
            let after = &t[at..];
            if let Some(open) = after.find("```") {
                let body = &after[open + 3..];
                let body = body.find('\n').map_or("", |n| &body[n + 1..]);
                if let Some(close) = body.find("```") {
                    out.text = body[..close].trim().to_owned();
                }
            }
        }
        return out;
    }
    let mut out = Cleaned::default();
    let mut text = t.to_owned();
    // A client that replays the whole conversation in the legacy "Human:/Assistant:" prompt
    // form sends each new request after the history: only the last Human turn is new.
    if let Some(last) = replayed_last_request(&text) {
        text = last;
        out.skip(Injected::Quoted);
    }
    let stripped = super::strip_untrusted_metadata(&text);
    if stripped.len() != text.len() {
        text = stripped.to_owned();
        out.skip(Injected::GatewayMetadata);
    }
    if let Some(rest) = strip_gateway_header(&text) {
        text = rest.to_owned();
        out.skip(Injected::GatewayMetadata);
    }
    // The IDE's context block precedes the request; only the request is the person's.
    if let Some(at) = text.find("## My request for ") {
        let after = &text[at..];
        let body = after.find('\n').map_or("", |n| &after[n + 1..]);
        text = body.to_owned();
        out.skip(Injected::EnvironmentContext);
    }
    text = strip_spans(&text, &mut out);
    // Gateway message-id lines (`[message_id: 5]`).
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| {
            let l = l.trim();
            // A gateway's system event ("System: [2026-02-20 15:48:04 EST] …") is relayed in
            // the person's message but was written by the harness.
            let event_line = event_text(l).is_some();
            let id_line = l.starts_with("[message_id:") || l.starts_with("[message id:");
            if id_line {
                out.skip(Injected::GatewayMetadata);
            }
            // The event is the harness telling the agent something (a job fired, a reaction
            // came): a notice, so a message of events alone asks the agent for nothing of
            // the person's.
            if event_line {
                out.skip(Injected::Notification);
            }
            !id_line && !event_line
        })
        .collect();
    text = lines.join("\n");
    // The typed text's own stamp can follow the event lines just taken out.
    if let Some(rest) = strip_gateway_header(&text) {
        text = rest.to_owned();
        out.skip(Injected::GatewayMetadata);
    }
    let kept = strip_blocks(&text, &mut out, Tables::Drop, None);
    // A very long message is mostly pasted material (a spec, a document, another chat's
    // answer): its first paragraph is the person's framing, the rest is quoted.
    out.text = if kept.chars().count() > PASTED_CHARS {
        out.skip(Injected::Quoted);
        kept.trim()
            .split("\n\n")
            .next()
            .unwrap_or("")
            .trim()
            .to_owned()
    } else {
        kept.trim().to_owned()
    };
    out
}

/// Leading words in capitals that make an opening a program's announcement, not a person's.
const SHOUTED_OPENING: usize = 4;

/// The words in capitals (two letters or more; digits, `_`, `-` and `/` allowed) the first line
/// of `text` opens with, and whether a colon ends them: "IT IS CRITICAL THAT YOU FOLLOW THIS
/// COMMAND: LOAD …" gives 7 and a colon, a heading over instructions; "PLEASE FIX THIS NOW" gives
/// 4 and none, a person raising their voice.
fn shouted_lead(text: &str) -> (usize, bool) {
    let mut count = 0;
    let mut colon = false;
    for word in text.lines().next().unwrap_or("").split_whitespace() {
        let bare = word.trim_end_matches([':', ',', '.', '!']);
        let shouted = bare.chars().filter(|c| c.is_alphabetic()).count() >= 2
            && bare
                .chars()
                .all(|c| c.is_uppercase() || c.is_ascii_digit() || matches!(c, '_' | '-' | '/'));
        if !shouted {
            break;
        }
        count += 1;
        colon = word.ends_with(':');
        if colon {
            break;
        }
    }
    (count, colon)
}

/// Whether `text` opens on a program's heading in capitals: a bracketed banner
/// (`[SUGGESTION MODE: …]`, two words in capitals or more and a colon) or a shouted line of
/// [`SHOUTED_OPENING`] words or more ending in a colon.
fn capitals_heading(text: &str) -> bool {
    match text.strip_prefix('[') {
        Some(rest) if !rest.starts_with('[') => matches!(shouted_lead(rest), (n, true) if n >= 2),
        Some(_) => false,
        None => matches!(shouted_lead(text), (n, true) if n >= SHOUTED_OPENING),
    }
}

/// Whether a message is a bare slash command: `/name`, alone or with ids only (`/start`,
/// `/resume 019c10ea-…`). It runs something; it does not say what the work is.
pub fn bare_command(text: &str) -> bool {
    let mut words = text.split_whitespace();
    let Some(command) = words.next() else {
        return false;
    };
    let named = command.strip_prefix('/').is_some_and(|name| {
        !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | ':'))
    });
    let id = |w: &str| {
        w.len() >= 6
            && w.chars().all(|c| c.is_ascii_hexdigit() || c == '-')
            && w.chars().any(|c| c.is_ascii_digit())
    };
    named && words.all(id)
}

/// Whether a message is wholly one tagged block, `<name>…</name>`, with a compound name
/// (`task-notification`, `bash-stdout`): what a harness writes when it speaks as the user. A
/// person types words around a tag, and a markup tag of their own is a plain name (`<div>`).
fn wrapped_whole(text: &str) -> bool {
    let t = text.trim();
    let Some(rest) = t.strip_prefix('<') else {
        return false;
    };
    let Some(end) = rest.find('>') else {
        return false;
    };
    let name = &rest[..end];
    unknown_compound_tag(name) && t.ends_with(&format!("</{name}>"))
}

/// Whether `name` is a compound tag name (`task-notification`, `agent-activation`) of no kind
/// known here: a tag whose kind is known is left to its own rule, which counts it as that kind.
fn unknown_compound_tag(name: &str) -> bool {
    let compound = name.contains(['-', '_'])
        && name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '-' | '_'));
    let known = SPANS
        .iter()
        .any(|(open, _, _)| open[1..open.len() - 1] == *name);
    compound && !known
}

/// Whether a message ends in a block of numbered instructions under a compound tag name that
/// carries attributes, after a lead of a sentence or two: `… NEVER break character.\n
/// <agent-activation CRITICAL="TRUE">\n1. LOAD the agent file …</agent-activation>`, what a
/// prompt library puts in the person's place. The block is most of the message and holds no
/// markup of its own. A person's pasted material in a tag of their own (`<meeting_notes>`,
/// `<error-output>`, a component holding markup) is no numbered list of steps under an
/// attributed tag, and a harness's known tags (`<system-reminder>`) are left to their rules,
/// which keep the person's words beside them.
fn instruction_block(text: &str) -> bool {
    const STEPS: usize = 3;
    const LEAD_CHARS: usize = 300;
    let t = text.trim();
    let Some(close) = t.rfind("</") else {
        return false;
    };
    let Some(name) = t[close + 2..].strip_suffix('>') else {
        return false;
    };
    if !unknown_compound_tag(name) {
        return false;
    }
    let Some(open) = t.find(&format!("<{name} ")) else {
        return false;
    };
    let Some(body_at) = t[open..].find('>').map(|end| open + end + 1) else {
        return false;
    };
    let attributes = &t[open + 1 + name.len()..body_at - 1];
    let body = &t[body_at.min(close)..close];
    let steps = body
        .lines()
        .filter(|l| {
            let l = l.trim_start();
            let digits = l.chars().take_while(char::is_ascii_digit).count();
            digits > 0 && l[digits..].starts_with(['.', ')'])
        })
        .count();
    attributes.contains('=')
        && t[..open].chars().count() <= LEAD_CHARS
        && !body.contains('<')
        && body.chars().count() * 2 >= t.chars().count()
        && steps >= STEPS
}

/// The trimmed text between `<tag>` and `</tag>`, if both are there.
fn tag_text<'t>(text: &'t str, tag: &str) -> Option<&'t str> {
    let open = format!("<{tag}>");
    let start = text.find(&open)? + open.len();
    let end = text[start..].find(&format!("</{tag}>"))?;
    Some(text[start..start + end].trim())
}

/// The last "Human:" turn of a message written as a replayed conversation (it opens with
/// "Human:", and turns start lines), or `None` for any other message.
fn replayed_last_request(text: &str) -> Option<String> {
    if !text.starts_with("Human:") {
        return None;
    }
    let mut turns: Vec<(bool, String)> = Vec::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("Human:") {
            turns.push((true, rest.trim().to_owned()));
        } else if let Some(rest) = line.strip_prefix("Assistant:") {
            turns.push((false, rest.trim().to_owned()));
        } else if let Some((_, body)) = turns.last_mut() {
            body.push('\n');
            body.push_str(line);
        }
    }
    turns
        .into_iter()
        .rev()
        .find(|(human, body)| *human && !body.trim().is_empty())
        .map(|(_, body)| body.trim().to_owned())
}

/// Past this many characters, a person's message is taken to be mostly pasted.
const PASTED_CHARS: usize = 4000;

/// The prose of an assistant message: reasoning, code, tables and pasted output taken out.
pub fn assistant_prose(raw: &str) -> Cleaned {
    prose(raw, Tables::Drop)
}

/// An assistant message as a report is quoted from: its prose, with each row of its tables as
/// a line of its own (what the brief's gist of a reply reads).
pub fn assistant_report(raw: &str) -> Cleaned {
    prose(raw, Tables::Rows)
}

/// An assistant message as search reads it: its prose, and beside it what the prose leaves
/// out of the message's own content (code, tables, quoted and terminal lines), which search
/// indexes as it indexes tool output: a reply that shows a file or a table of results is still
/// found by what it shows.
pub fn assistant_parts(raw: &str) -> (Cleaned, String) {
    let mut aside = String::new();
    let prose = prose_and_aside(raw, Tables::Drop, Some(&mut aside));
    (prose, aside)
}

fn prose(raw: &str, tables: Tables) -> Cleaned {
    prose_and_aside(raw, tables, None)
}

/// A reply given as structured data: a message that is one JSON object, bare or in a fence,
/// as an app that asks its agent for JSON gets. What it says is the string values that hold
/// words (a sentence, not an id or a flag), in the order they were written; the keys are the
/// app's. Returns what it says and the object.
fn structured_reply(text: &str) -> Option<(String, &str)> {
    let t = text.trim();
    // In a fence of either kind, with any info string (`json`, `JSON`, `jsonc`).
    let body = match t.get(..3) {
        Some(fence @ ("```" | "~~~")) => t.split_once('\n')?.1.trim_end().strip_suffix(fence)?,
        _ => t,
    }
    .trim();
    if !body.starts_with('{') {
        return None;
    }
    // Read in the order the text wrote it (a parsed `Value` sorts an object's keys).
    let mut strings = Vec::new();
    let mut reader = serde_json::Deserializer::from_str(body);
    serde::de::DeserializeSeed::deserialize(InOrder(&mut strings), &mut reader).ok()?;
    reader.end().ok()?;
    let sentences: Vec<&str> = strings
        .iter()
        .filter(|s| is_sentence(s))
        .map(|s| s.trim())
        .collect();
    // An object without a sentence (a config shown, a call written out) is code, as before.
    if sentences.is_empty() {
        return None;
    }
    Some((sentences.join("\n"), body))
}

/// Collects a JSON value's strings in the order the text wrote them.
struct InOrder<'a>(&'a mut Vec<String>);

impl<'de> serde::de::DeserializeSeed<'de> for InOrder<'_> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for InOrder<'_> {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_str<E>(self, v: &str) -> Result<(), E> {
        self.0.push(v.to_owned());
        Ok(())
    }
    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element_seed(InOrder(&mut *self.0))?.is_some() {}
        Ok(())
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while map.next_key::<serde::de::IgnoredAny>()?.is_some() {
            map.next_value_seed(InOrder(&mut *self.0))?;
        }
        Ok(())
    }
}

/// Whether a JSON string value is a sentence said to someone, not a command, a path or code:
/// its first letter (after an emoji or an opening `¿`) is a capital or one of a script without
/// case, as Chinese is written; it holds two words or more (four letters, in a script written
/// without spaces), and no shell or code marks (`tsc && vite build`, `ls -la /tmp` and `{ x }`
/// are not sentences).
fn is_sentence(s: &str) -> bool {
    let t = s.trim();
    let Some(first) = t.chars().find(|c| c.is_alphanumeric()) else {
        return false;
    };
    let opens = first.is_uppercase() || (first.is_alphabetic() && !first.is_ascii());
    let code = ["&&", "||", "$(", "=>", "{", "}", "();"]
        .iter()
        .any(|m| t.contains(m));
    let worded = if t.contains(char::is_whitespace) {
        t.split_whitespace()
            .filter(|w| w.chars().any(char::is_alphabetic))
            .count()
            >= 2
    } else {
        t.chars()
            .filter(|c| c.is_alphabetic() && !c.is_ascii())
            .count()
            >= 4
    };
    opens && worded && !code
}

fn prose_and_aside(raw: &str, tables: Tables, aside: Option<&mut String>) -> Cleaned {
    let mut out = Cleaned::default();
    if raw.starts_with("[error]") {
        out.skip(Injected::Marker);
        return out;
    }
    let text = strip_spans(raw, &mut out);
    if let Some((said, object)) = structured_reply(&text) {
        out.skip(Injected::Code);
        if let Some(aside) = aside {
            aside.push_str(object);
        }
        out.text = said;
        return out;
    }
    let text = strip_blocks(&text, &mut out, tables, aside);
    let mut text = text.trim();
    // A gateway's reply directives (`[[reply_to_current]]`, `[[reply_to:42]]`) lead the
    // message; the person never sees them.
    while let Some(rest) = text.strip_prefix("[[")
        && let Some((directive, after)) = rest.split_once("]]")
        && !directive.is_empty()
        && !directive.contains(char::is_whitespace)
    {
        out.skip(Injected::Marker);
        text = after.trim_start();
    }
    // A protocol token alone (`HEARTBEAT_OK`, `NO_REPLY`) acknowledges a scheduler; it says
    // nothing to the person.
    let token = !text.is_empty()
        && !text.contains(char::is_whitespace)
        && text.contains('_')
        && text
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
    if token {
        out.skip(Injected::Scheduled);
        text = "";
    }
    out.text = text.to_owned();
    out
}

#[cfg(test)]
mod tests;
