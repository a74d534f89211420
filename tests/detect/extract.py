#!/usr/bin/env python3
"""Turn the real agent transcripts into units to label (question / decision / neither).

Reads the shared fixtures in place (`real/`, `real2/` beside the checkout, or $ELNOR_FIXTURES),
uses the project and split of `tests/handoff/projects.tsv`, and writes:

  tests/detect/units/{dev,test}.jsonl   one unit per line (person / agent / injected)
  tests/detect/units/sample.jsonl       a smaller deterministic sample (only when the total is large)
  tests/detect/sessions.tsv             one row per session
  tests/detect/README.md                how units are made, counts
  tests/detect/work/sessions/<h>.txt    readable rendering per session, unit ids inline (scratch)

Python 3 standard library only. Output is deterministic: running twice gives the same bytes.
"""

import hashlib
import json
import os
import re
import sys
import unicodedata
from collections import Counter, defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
FIXTURES = Path(os.environ.get("ELNOR_FIXTURES") or (REPO.parent / "shared" / "fixtures"))
PROJECTS_TSV = REPO / "tests" / "handoff" / "projects.tsv"
CORPORA = ("real", "real2")

MAX_TEXT = 400
MIN_WIDTH = 12
SAMPLE_THRESHOLD = 15000
SAMPLE_SESSION_CAP = 250


# --------------------------------------------------------------------------------------------
# small helpers

def sha1_10(s):
    return hashlib.sha1(s.encode("utf-8")).hexdigest()[:10]


def split_for(corpus, project):
    return "test" if hashlib.sha256(f"{corpus}:{project}".encode("utf-8")).digest()[0] < 96 else "dev"


ANSI_RE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def clean(s):
    """Remove ANSI escapes and control characters (keeps tabs and newlines)."""
    return ANSI_RE.sub("", s or "")


def collapse(s):
    return re.sub(r"\s+", " ", clean(s)).strip()


def cut(s, n):
    return s if len(s) <= n else s[: n - 1] + "…"


def width(s):
    return sum(2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1 for ch in s)


def read_records(path):
    """Yield (line_number, record) for every JSON object line; bad lines are skipped."""
    with open(path, encoding="utf-8", errors="replace") as fh:
        for n, line in enumerate(fh, 1):
            line = line.strip()
            if not line:
                continue
            try:
                rec = json.loads(line)
            except ValueError:
                continue
            if isinstance(rec, dict):
                yield n, rec


# --------------------------------------------------------------------------------------------
# prose splitting

FENCE_RE = re.compile(r"^\s*(```|~~~)")
TABLE_ROW_RE = re.compile(r"^\s*\|.*\|\s*$")
TABLE_SEP_RE = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")
CJK_END_RE = re.compile(r"[。？！]+[」』”’）)\"']*")
LATIN_END_RE = re.compile(r"[.?!]+[\"'”’)\]*_`]*(?=\s)")
NEXT_START_RE = re.compile(r"\s+[*_`\"'“‘(\[]*(\S)")
ABBREV_RE = re.compile(r"(?:\b(?:e\.g|i\.e|vs|etc|cf|approx|Mr|Mrs|Ms|Dr|St|No|Fig|Vol)\.|(?:^|\s)\d{1,2}\.)$", re.I)
LIST_MARKER_RE = re.compile(r"^\W*(?:\d{1,3}|[A-Za-z]|[ivxIVX]{1,4})[.)]$")


def split_sentences(line):
    """Split one line into sentences: after CJK 。？！, and after . ? ! followed by space + capital."""
    pieces = []
    for chunk in _split_cjk(line):
        pieces.extend(_split_latin(chunk))
    return [p for p in (x.strip() for x in pieces) if p]


def _split_cjk(s):
    out, start = [], 0
    for m in CJK_END_RE.finditer(s):
        out.append(s[start:m.end()])
        start = m.end()
    out.append(s[start:])
    return out


def _split_latin(s):
    out, start = [], 0
    for m in LATIN_END_RE.finditer(s):
        nxt = NEXT_START_RE.match(s, m.end())
        if not nxt or not nxt.group(1).isupper():
            continue
        piece = s[start:m.end()].strip()
        if ABBREV_RE.search(piece) or LIST_MARKER_RE.match(piece):
            continue
        out.append(s[start:m.end()])
        start = m.end()
    out.append(s[start:])
    return out


CODE_START_RE = re.compile(
    r"^(?:import|export|const|let|var|function|return|def|class|from|#include|package|public|private|"
    r"protected|static|async|await|interface|type|enum|if|else|elif|for|while|switch|case|try|catch|"
    r"finally|throw|new|module\.exports|require)\b")
CODE_END_RE = re.compile(r"(?:[;{(\[,]|=>|\)\s*:)$")
HTML_LINE_RE = re.compile(r"^</?[A-Za-z][\w.:-]*(?:\s[^>]*)?/?>")
JSONISH_RE = re.compile(r"^[\"']?[\w$-]+[\"']?\s*:\s*\S.*,$")
DENSE_CHARS = set("{}[]()<>;=&|$")
JSX_RE = re.compile(r"^(?:[A-Za-z_][\w.-]*=[{\"'`]|\{.*\}$|[?:] ['\"`]|\"[\w$.@/-]+\"\s*:\s*\S)")


def looks_like_code(line):
    """Unfenced source code (pasted files, HTML): heuristics on one line."""
    s = line.strip()
    if not s:
        return False
    if s.startswith(("//", "/*", "*/", "#!")) or s.endswith((";", "{", "};", "});", "})", "*/")):
        return True
    if CODE_START_RE.match(s) and (CODE_END_RE.search(s) or " = " in s or "=>" in s or "()" in s):
        return True
    if HTML_LINE_RE.match(s) and s.endswith(">"):
        return True
    if JSONISH_RE.match(s) or JSX_RE.match(s):
        return True
    dense = sum(1 for ch in s if ch in DENSE_CHARS)
    return len(s) >= 8 and dense / len(s) > 0.2


def keep_unit(piece):
    return width(piece) >= MIN_WIDTH and len(re.findall(r"\w", piece)) >= 2


def segment_prose(text):
    """Return a list of rendered lines; each line is a list of (piece, is_unit).

    Fenced code blocks and markdown table rows/separators are kept for the rendering but never
    become units; other lines are split into sentences, and pieces too short are not units.
    """
    lines = []
    in_fence = False
    for raw in (text or "").replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        if FENCE_RE.match(raw):
            in_fence = not in_fence
            lines.append([(raw, False)])
            continue
        if (in_fence or TABLE_ROW_RE.match(raw) or TABLE_SEP_RE.match(raw) or not raw.strip()
                or looks_like_code(raw)):
            lines.append([(raw, False)])
            continue
        lines.append([(p, keep_unit(p)) for p in split_sentences(raw)])
    while lines and all(not p.strip() for p, _ in lines[-1]):
        lines.pop()
    while lines and all(not p.strip() for p, _ in lines[0]):
        lines.pop(0)
    return lines


# --------------------------------------------------------------------------------------------
# a session = a list of messages; a message = a list of segments (line, kind, text)
#   kind: person | agent | injected | tool | toolres | plain

class Message:
    __slots__ = ("segments",)

    def __init__(self):
        self.segments = []

    def add(self, line, kind, text):
        text = clean(text)
        if kind in ("person", "agent") and not text.strip():
            return
        self.segments.append((line, kind, text))


def add_user_parts(msg, line, injected, person):
    """Injected wrapper first (one segment for the whole message), then the person's text."""
    inj = [x.strip() for x in injected if x and x.strip()]
    if inj:
        msg.add(line, "injected", "\n\n".join(inj))
    for p in person:
        if p and p.strip():
            msg.add(line, "person", p.strip())


# ---- Claude Code -----------------------------------------------------------------------------

CC_INJECTED_START = (
    "Caveat: The messages below were generated",
    "<local-command-caveat>",
    "<local-command-stdout>",
    "<local-command-stderr>",
    "<bash-stdout>",
    "<bash-stderr>",
    "<task-notification>",
    "<user-prompt-submit-hook>",
    "[Request interrupted by user",
    "This session is being continued from a previous conversation",
)
SYSTEM_REMINDER_RE = re.compile(r"<system-reminder>.*?</system-reminder>", re.S)
IDE_TAG_RE = re.compile(r"<(ide_opened_file|ide_selection|ide_diagnostics)>.*?</\1>", re.S)
HUMAN_TURN_RE = re.compile(r"^(Human|Assistant):[ \t]?", re.M)


def classify_cc_text(text):
    """Return (injected_parts, person_parts) for the text of a Claude Code user record."""
    t = text or ""
    s = t.lstrip()
    if s.startswith(CC_INJECTED_START):
        return [t], []
    if "<command-name>" in t or "<command-message>" in t:
        m = re.search(r"<command-args>(.*?)</command-args>", t, re.S)
        args = m.group(1).strip() if m else ""
        return [t], ([args] if args else [])
    injected = []
    reminders = SYSTEM_REMINDER_RE.findall(t)
    if reminders:
        injected.extend(reminders)
        t = SYSTEM_REMINDER_RE.sub("", t)
    t = IDE_TAG_RE.sub("", t)
    # open-cowork style wrapper: the whole conversation replayed as "Human: …\nAssistant: …"
    if t.lstrip().startswith("Human:") and re.search(r"\nAssistant:\s*$", t):
        history, new = split_human_replay(t)
        if history:
            injected.append(history)
        return injected, new
    if not t.strip():
        return injected or [text], []
    return injected, [t]


def split_human_replay(t):
    """'Human: a\\nAssistant: b\\nHuman: c\\nHuman: c\\nAssistant:' -> (history, ['c'])."""
    marks = list(HUMAN_TURN_RE.finditer(t))
    turns = []
    for i, m in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(t)
        turns.append((m.start(), m.group(1), t[m.end():end].strip()))
    if turns and turns[-1][1] == "Assistant" and not turns[-1][2]:
        turns.pop()
    k = len(turns)
    while k > 0 and turns[k - 1][1] == "Human":
        k -= 1
    new = []
    for _, _, body in turns[k:]:
        if body and (not new or new[-1] != body):
            new.append(body)
    history = t[: turns[k][0]].strip() if k < len(turns) and k > 0 else ""
    if k == len(turns):  # no trailing human turn: treat everything as injected history
        return t.strip(), []
    return history, new


def tool_line(name, args):
    if not isinstance(args, str):
        args = json.dumps(args, ensure_ascii=False, sort_keys=True)
    return f"{name}({cut(collapse(args), 150)})"


def tool_result_text(content):
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for x in content:
            if isinstance(x, dict):
                if x.get("type") == "text":
                    parts.append(x.get("text") or "")
                else:
                    parts.append(f"[{x.get('type')}]")
            else:
                parts.append(str(x))
        return "\n".join(parts)
    if content is None:
        return ""
    return json.dumps(content, ensure_ascii=False)


def parse_claude_code(path):
    messages = []
    cur_asst = None  # (message id, Message) of the assistant message being built
    for n, rec in read_records(path):
        typ = rec.get("type")
        if rec.get("isSidechain"):
            continue  # pre-2.0 sub-agent records written inline: sub-agent, not the session
        if typ == "attachment":
            att = rec.get("attachment") or {}
            if att.get("type") == "queued_command" and isinstance(att.get("prompt"), str):
                cur_asst = None
                msg = Message()
                if att.get("commandMode") == "prompt":
                    inj, per = classify_cc_text(att["prompt"])
                else:
                    inj, per = [att["prompt"]], []
                add_user_parts(msg, n, inj, per)
                if msg.segments:
                    messages.append(msg)
            continue
        if typ == "assistant":
            m = rec.get("message") or {}
            content = m.get("content")
            if isinstance(content, str):
                content = [{"type": "text", "text": content}]
            mid = m.get("id") or rec.get("uuid")
            if cur_asst is None or cur_asst[0] != mid:
                cur_asst = (mid, Message())
                messages.append(cur_asst[1])
            msg = cur_asst[1]
            synthetic = m.get("model") == "<synthetic>" or rec.get("isApiErrorMessage")
            for item in content or []:
                if not isinstance(item, dict):
                    continue
                it = item.get("type")
                if it == "text":
                    if synthetic:
                        msg.add(n, "injected", item.get("text") or "")
                    else:
                        msg.add(n, "agent", agent_prose(item.get("text")))
                elif it == "tool_use":
                    msg.add(n, "tool", tool_line(item.get("name"), item.get("input")))
            continue
        if typ != "user":
            continue
        cur_asst = None
        m = rec.get("message") or {}
        content = m.get("content")
        items = [{"type": "text", "text": content}] if isinstance(content, str) else (content or [])
        msg = Message()
        meta = bool(rec.get("isMeta") or rec.get("isCompactSummary"))
        injected, person = [], []
        for item in items:
            if not isinstance(item, dict):
                continue
            it = item.get("type")
            if it == "tool_result":
                msg.add(n, "toolres", tool_result_text(item.get("content")))
            elif it == "text":
                if meta:
                    injected.append(item.get("text") or "")
                else:
                    i, p = classify_cc_text(item.get("text") or "")
                    injected.extend(i)
                    person.extend(p)
            elif it == "document":
                src = item.get("title") or (item.get("source") or {}).get("media_type") or "document"
                injected.append(f"[document attachment: {src}]")
            elif it == "image":
                msg.add(n, "plain", "[image]")
        add_user_parts(msg, n, injected, person)
        if msg.segments:
            messages.append(msg)
    return messages


# ---- Codex -----------------------------------------------------------------------------------

CODEX_INJECTED_START = (
    "<environment_context>",
    "<user_instructions>",
    "# AGENTS.md instructions",
    "<permissions instructions>",
    "<collaboration_mode>",
    "<app-context>",
    "<skills_instructions>",
    "<turn_aborted>",
    "<user_shell_command>",
    "You must fully embody this agent's persona",
    "IT IS CRITICAL THAT YOU FOLLOW THIS COMMAND",
    "# undefined\n\nRead the entire task file",
)
SPECKIT_RE = re.compile(r"^\s*## User Input\s*\n+```(?:text)?\n(.*?)\n?```", re.S)
SLASH_PROMPT_RE = re.compile(r"^\s*# /[\w.:-]+ [—-] ")


def classify_codex_text(text):
    t = text or ""
    s = t.lstrip()
    if s.startswith(CODEX_INJECTED_START) or SLASH_PROMPT_RE.match(t):
        return [t], []
    if s.startswith("# Context from my IDE setup:"):
        # VS Code extension: IDE context (metadata, dropped) then the person's request
        m = re.search(r"^## My request for Codex:[ \t]*\n?(.*)$", t, re.S | re.M)
        return ([], [m.group(1)]) if m and m.group(1).strip() else ([t], [])
    m = SPECKIT_RE.match(t)
    if m:  # spec-kit slash command expanded by the harness; the person's arguments are inside
        return [t], ([m.group(1)] if m.group(1).strip() else [])
    return [], [t]


def codex_payload_text(content, kinds):
    out = []
    for x in content or []:
        if isinstance(x, dict) and x.get("type") in kinds:
            out.append(x.get("text") or "")
    return out


def codex_output_text(out):
    if isinstance(out, dict):
        out = out.get("content") if "content" in out else out.get("output", out)
    if isinstance(out, list):
        return tool_result_text(out)
    if not isinstance(out, str):
        return json.dumps(out, ensure_ascii=False)
    try:
        j = json.loads(out)
        if isinstance(j, dict) and isinstance(j.get("output"), str):
            return j["output"]
    except ValueError:
        pass
    return out


def parse_codex(path):
    messages, cwd = [], None
    for n, rec in read_records(path):
        typ = rec.get("type")
        if typ == "session_meta":
            cwd = cwd or (rec.get("payload") or {}).get("cwd")
            continue
        if typ == "response_item":
            p = rec.get("payload") or {}
        elif typ in ("message", "function_call", "function_call_output", "custom_tool_call",
                     "custom_tool_call_output", "local_shell_call", "web_search_call", "reasoning"):
            p = rec  # older rollout format: bare items
        else:
            continue
        pt = p.get("type")
        msg = Message()
        if pt == "message":
            role = p.get("role")
            if role == "assistant":
                for t in codex_payload_text(p.get("content"), ("output_text", "text")):
                    msg.add(n, "agent", agent_prose(t))
            elif role in ("developer", "system"):
                texts = codex_payload_text(p.get("content"), ("input_text", "text"))
                add_user_parts(msg, n, texts or [f"[{role} message]"], [])
            elif role == "user":
                injected, person = [], []
                for x in p.get("content") or []:
                    if not isinstance(x, dict):
                        continue
                    if x.get("type") in ("input_text", "text"):
                        t = x.get("text") or ""
                        if cwd is None:
                            m = re.search(r"<cwd>(.*?)</cwd>|Current working directory:\s*(\S+)", t)
                            if m:
                                cwd = m.group(1) or m.group(2)
                        i, pp = classify_codex_text(t)
                        injected.extend(i)
                        person.extend(pp)
                    elif x.get("type") == "input_image":
                        msg.add(n, "plain", "[image]")
                add_user_parts(msg, n, injected, person)
        elif pt in ("function_call", "custom_tool_call"):
            msg.add(n, "tool", tool_line(p.get("name"), p.get("arguments", p.get("input", ""))))
        elif pt in ("local_shell_call", "web_search_call"):
            msg.add(n, "tool", tool_line(pt.replace("_call", ""), p.get("action", "")))
        elif pt in ("function_call_output", "custom_tool_call_output"):
            msg.add(n, "toolres", codex_output_text(p.get("output")))
        if msg.segments:
            messages.append(msg)
    return messages, cwd


# ---- OpenClaw / pi ---------------------------------------------------------------------------

OC_INJECTED_START = (
    "Read HEARTBEAT.md",
    "[cron:",
    "A new session was started via /new or /reset",
    "You are executing one deterministic WicClaw task",
    "You are the WicClaw master OpenClaw brain",
    "SECURITY NOTICE",
    "<<<EXTERNAL_UNTRUSTED_CONTENT",
)
OC_CANNED = {"Wake up, my friend!"}  # OpenClaw's automatic first message when a TUI is hatched
OC_META_BLOCK_RE = re.compile(
    r"^\s*([A-Z][A-Za-z ]{2,60}) \(untrusted[^)\n]*\):?[ \t]*\n```[a-z]*\n.*?\n```[ \t]*\n?", re.S)
OC_METADATA_BLOCKS = ("Conversation info", "Sender")
OC_TS_RE = re.compile(r"^\s*\[(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) \d{4}-\d\d-\d\d \d\d:\d\d[^\]\n]*\][ \t]*")
OC_CHANNEL_RE = re.compile(
    r"^\s*\[(?:Telegram|WhatsApp|Discord|Slack|Signal|iMessage|Feishu|Lark|Matrix|Teams|WebChat|Webchat)\b[^\]\n]*\][ \t]*")
OC_MSGID_RE = re.compile(r"\s*\[message_id: [^\]\n]+\]\s*$")
OC_SYSTEM_LINE_RE = re.compile(r"^\s*System: \[[^\n]*(?:\n(?!\s*\n)[^\n]*)*\n*")
OC_QUEUED_RE = re.compile(r"^\s*\[Queued messages while agent was busy\]\s*")
OC_QUEUED_SPLIT_RE = re.compile(r"(?:^|\n)-{3,}\s*\nQueued #\d+\s*\n")


def classify_oc_text(text):
    t = text or ""
    if OC_QUEUED_RE.match(t):  # several person messages sent while the agent was busy
        injected, person = [], []
        for chunk in OC_QUEUED_SPLIT_RE.split(OC_QUEUED_RE.sub("", t, count=1)):
            if chunk.strip():
                i, p = classify_oc_text(chunk)
                injected.extend(i)
                person.extend(p)
        return injected, person
    if t.lstrip().startswith(OC_INJECTED_START):
        return [t], []
    injected = []
    s = t
    while True:  # leading gateway blocks
        m = OC_META_BLOCK_RE.match(s)
        if m:
            if not m.group(1).startswith(OC_METADATA_BLOCKS):
                injected.append(m.group(0))  # replied message / chat history: relayed content
            s = s[m.end():]
            continue
        m = OC_SYSTEM_LINE_RE.match(s)
        if m and m.group(0).strip():
            injected.append(m.group(0))  # "System: [..] Exec completed …" notices
            s = s[m.end():]
            continue
        break
    s = OC_TS_RE.sub("", s, count=1)
    s = OC_CHANNEL_RE.sub("", s, count=1)
    s = OC_MSGID_RE.sub("", s)
    body = s.strip()
    if body.startswith("[System Message]") or body.startswith(OC_INJECTED_START) or body in OC_CANNED:
        return [t], []
    # an app's prompt template with the chat message embedded as "Input JSON: {…, "message": …}"
    m = re.search(r"\nInput JSON:\s*\n?(\{.*\})\s*$", body, re.S)
    if m and not body.startswith("{"):
        try:
            j = json.loads(m.group(1))
        except ValueError:
            j = None
        if isinstance(j, dict) and j.get("mode") == "telegram_chat" and isinstance(j.get("message"), str):
            return injected + [body[: m.start()]], [j["message"]]
        return [t], []
    if not body:
        return [t], []
    return injected, [body]


REPLY_TAG_RE = re.compile(r"\[\[\s*reply_to[^\]]*\]\]\s*")
NON_PROSE = {"HEARTBEAT_OK", "NO_REPLY", "(no content)"}


THINK_RE = re.compile(r"<think(?:ing)?>.*?(?:</think(?:ing)?>|(?=<final>)|$)", re.S)
FINAL_TAG_RE = re.compile(r"</?final>")


def agent_prose(text):
    """Clean agent text: inline <think> blocks (reasoning written into the text), <final> tags,
    reply tags, bare status tokens, app JSON replies."""
    t = THINK_RE.sub("", text or "")
    t = FINAL_TAG_RE.sub("", t)
    t = REPLY_TAG_RE.sub("", t)
    if t.strip() in NON_PROSE:
        return ""
    s = t.strip()
    m = re.match(r"^```(?:json)?\s*\n(.*)\n```$", s, re.S)
    body = m.group(1) if m else s
    if body.startswith("{") and body.endswith("}"):
        try:
            j = json.loads(body)
        except ValueError:
            return t
        if isinstance(j, dict) and isinstance(j.get("reply"), str):
            return j["reply"]  # app protocol: the prose is the "reply" field
        return ""  # pure JSON result, no prose
    return t


def parse_openclaw(path):
    messages = []
    for n, rec in read_records(path):
        if rec.get("type") != "message":
            continue
        m = rec.get("message") or {}
        role = m.get("role")
        content = m.get("content")
        items = [{"type": "text", "text": content}] if isinstance(content, str) else (content or [])
        msg = Message()
        if role == "assistant":
            synthetic = m.get("model") == "gateway-injected"
            for x in items:
                if not isinstance(x, dict):
                    continue
                if x.get("type") == "text":
                    if synthetic:
                        msg.add(n, "injected", x.get("text") or "")
                    else:
                        msg.add(n, "agent", agent_prose(x.get("text")))
                elif x.get("type") in ("toolCall", "tool_use"):
                    msg.add(n, "tool", tool_line(x.get("name"), x.get("arguments", x.get("input"))))
        elif role in ("toolResult", "tool"):
            msg.add(n, "toolres", tool_result_text(items))
        elif role == "user":
            injected, person = [], []
            for x in items:
                if not isinstance(x, dict):
                    continue
                if x.get("type") == "text":
                    i, p = classify_oc_text(x.get("text") or "")
                    injected.extend(i)
                    person.extend(p)
                elif x.get("type") == "image":
                    msg.add(n, "plain", "[image]")
            add_user_parts(msg, n, injected, person)
        if msg.segments:
            messages.append(msg)
    return messages


# --------------------------------------------------------------------------------------------
# sessions, projects, splits

def harness_of(rel):
    return rel.split("/")[1]


def is_subagent(rel):
    parts = rel.split("/")
    return "subagents" in parts or parts[-1].startswith("agent-")


def discover_sessions():
    found = []
    for corpus in CORPORA:
        base = FIXTURES / corpus
        if not base.is_dir():
            continue
        for p in sorted(base.rglob("*")):
            if not p.is_file():
                continue
            rel = p.relative_to(FIXTURES).as_posix()
            parts = rel.split("/")
            if len(parts) < 3:
                continue
            h = parts[1]
            if h == "claude-code" and len(parts) == 4 and parts[-1].endswith(".jsonl"):
                found.append(rel)
            elif h == "codex" and parts[2] == "sessions" and re.match(r"rollout-.*\.jsonl$", parts[-1]):
                found.append(rel)
            elif (h == "openclaw" and len(parts) == 7 and parts[3] == "agents" and parts[5] == "sessions"
                  and ".jsonl" in parts[-1]):
                found.append(rel)
    return sorted(r for r in found if not is_subagent(r))


def read_projects():
    assign = {}
    for line in PROJECTS_TSV.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        cols = line.split("\t")
        corpus, project, split = cols[0], cols[1], cols[2]
        for rel in (cols[3].split() if len(cols) > 3 else []):
            assign[rel] = (corpus, project, split)
    return assign


def fallback_project(rel, cwd):
    parts = rel.split("/")
    corpus, h = parts[0], parts[1]
    if h == "claude-code":
        project = f"cc:{parts[2]}"
    elif h == "codex":
        base = re.split(r"[\\/]", (cwd or "").rstrip("\\/"))[-1] or "unknown"
        project = f"codex:{base}"
    else:
        project = f"oc:{parts[2]}/{parts[4]}"
    return corpus, project, split_for(corpus, project)


# --------------------------------------------------------------------------------------------
# units and rendering

def build_session(rel, corpus, project, split, messages):
    h = sha1_10(rel)
    harness = harness_of(rel)
    units = []
    per_line = Counter()
    rendered = []  # (turn, label, text)
    msg_units = []  # per message, list of unit dicts
    for turn, msg in enumerate(messages):
        mine = []
        for line, kind, text in msg.segments:
            if kind in ("person", "agent"):
                out_lines = []
                for pieces in segment_prose(text):
                    buf = []
                    for piece, is_unit in pieces:
                        if is_unit:
                            uid = f"{corpus}/{h}/{line}/{per_line[line]}"
                            per_line[line] += 1
                            u = {"id": uid, "corpus": corpus, "project": project, "split": split,
                                 "session": rel, "turn": turn, "speaker": kind,
                                 "last_in_message": False, "in_last_agent_message": False,
                                 "text": cut(piece.strip(), MAX_TEXT)}
                            mine.append(u)
                            buf.append(f"⟦{uid}⟧ {piece}")
                        else:
                            buf.append(piece)
                    out_lines.append(" ".join(buf))
                rendered.append((turn, kind.upper(), "\n".join(out_lines)))
            elif kind == "injected":
                uid = f"{corpus}/{h}/{line}/{per_line[line]}"
                per_line[line] += 1
                txt = cut(collapse(text), MAX_TEXT) or "[empty]"
                mine.append({"id": uid, "corpus": corpus, "project": project, "split": split,
                             "session": rel, "turn": turn, "speaker": "injected",
                             "last_in_message": False, "in_last_agent_message": False, "text": txt})
                rendered.append((turn, "INJECTED", f"⟦{uid}⟧ {txt}"))
            elif kind == "tool":
                rendered.append((turn, "TOOL", text))
            elif kind == "toolres":
                rendered.append((turn, "TOOL RESULT", cut(collapse(text), 200)))
            else:
                rendered.append((turn, "NOTE", text))
        if mine:
            mine[-1]["last_in_message"] = True
        msg_units.append(mine)
        units.extend(mine)
    agent_msgs = [i for i, us in enumerate(msg_units) if any(u["speaker"] == "agent" for u in us)]
    if agent_msgs:
        for u in msg_units[agent_msgs[-1]]:
            if u["speaker"] == "agent":
                u["in_last_agent_message"] = True
    return {"rel": rel, "hash": h, "corpus": corpus, "project": project, "split": split,
            "harness": harness, "units": units, "msg_units": msg_units, "agent_msgs": agent_msgs,
            "rendered": rendered, "n_messages": len(messages)}


def render_session(s):
    out = [f"# session: {s['rel']}",
           f"# corpus: {s['corpus']}  project: {s['project']}  split: {s['split']}  harness: {s['harness']}",
           f"# messages: {s['n_messages']}  units: {len(s['units'])}  (unit ids in ⟦…⟧ before each unit)",
           ""]
    for turn, label, text in s["rendered"]:
        lines = (text or "").split("\n")
        out.append(f"[turn {turn}] {label}: {lines[0]}")
        out.extend("    " + l if l.strip() else "" for l in lines[1:])
    return "\n".join(out) + "\n"


def unit_json(u):
    keys = ("id", "corpus", "project", "split", "session", "turn", "speaker", "last_in_message",
            "in_last_agent_message", "text")
    return json.dumps({k: u[k] for k in keys}, ensure_ascii=False)


def sample_session(s):
    """Person + injected units, agent units of the last 2 agent messages and of messages ending with
    a question mark, and 1 in 4 other agent units by id hash; at most 250, latest kept first."""
    last2 = set(s["agent_msgs"][-2:])
    chosen = []
    for i, us in enumerate(s["msg_units"]):
        agent_us = [u for u in us if u["speaker"] == "agent"]
        asks = bool(agent_us) and agent_us[-1]["text"].rstrip().endswith(("?", "？"))
        for u in us:
            if u["speaker"] != "agent" or i in last2 or asks:
                chosen.append(u)
            elif hashlib.sha1(u["id"].encode("utf-8")).digest()[0] % 4 == 0:
                chosen.append(u)
    return chosen[-SAMPLE_SESSION_CAP:]


# --------------------------------------------------------------------------------------------

def main():
    if not FIXTURES.is_dir():
        sys.exit(f"fixtures not found: {FIXTURES} (set ELNOR_FIXTURES)")
    assign = read_projects()
    sessions, unlisted, missing = [], [], []
    for rel in sorted(r for r in assign if not is_subagent(r)):
        if not (FIXTURES / rel).is_file():
            missing.append(rel)
    for rel in discover_sessions():
        h = harness_of(rel)
        path = FIXTURES / rel
        cwd = None
        if h == "claude-code":
            messages = parse_claude_code(path)
        elif h == "codex":
            messages, cwd = parse_codex(path)
        else:
            messages = parse_openclaw(path)
        if rel in assign:
            corpus, project, split = assign[rel]
        else:
            corpus, project, split = fallback_project(rel, cwd)
            unlisted.append((rel, project, split))
        sessions.append(build_session(rel, corpus, project, split, messages))

    units_dir = HERE / "units"
    work_dir = HERE / "work" / "sessions"
    units_dir.mkdir(parents=True, exist_ok=True)
    work_dir.mkdir(parents=True, exist_ok=True)
    for old in work_dir.glob("*.txt"):
        old.unlink()

    by_split = defaultdict(list)
    for s in sessions:
        by_split[s["split"]].extend(s["units"])
        (work_dir / f"{s['hash']}.txt").write_text(render_session(s), encoding="utf-8")
    for split in ("dev", "test"):
        with open(units_dir / f"{split}.jsonl", "w", encoding="utf-8", newline="\n") as fh:
            for u in by_split.get(split, []):
                fh.write(unit_json(u) + "\n")

    total = sum(len(s["units"]) for s in sessions)
    sample = []
    sample_path = units_dir / "sample.jsonl"
    if total > SAMPLE_THRESHOLD:
        for s in sessions:
            sample.extend(sample_session(s))
        with open(sample_path, "w", encoding="utf-8", newline="\n") as fh:
            for u in sample:
                fh.write(unit_json(u) + "\n")
    elif sample_path.exists():
        sample_path.unlink()

    with open(HERE / "sessions.tsv", "w", encoding="utf-8", newline="\n") as fh:
        fh.write("session\tsha1_10\tcorpus\tproject\tsplit\tharness\tunits\tperson_units\n")
        for s in sessions:
            n_person = sum(1 for u in s["units"] if u["speaker"] == "person")
            fh.write(f"{s['rel']}\t{s['hash']}\t{s['corpus']}\t{s['project']}\t{s['split']}\t"
                     f"{s['harness']}\t{len(s['units'])}\t{n_person}\n")

    write_readme(sessions, sample, total, unlisted, missing)
    print(f"{len(sessions)} sessions, {total} units "
          + ", ".join(f"{k}={len(v)}" for k, v in sorted(by_split.items()))
          + (f"; sample {len(sample)}" if sample else ""))
    for rel in missing:
        print(f"warning: listed in projects.tsv but not found: {rel}", file=sys.stderr)


def table(rows, header):
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" if i == 0 else "---:" for i in range(len(header))) + "|"]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


def write_readme(sessions, sample, total, unlisted, missing):
    speakers = ("person", "agent", "injected")
    harnesses = ("claude-code", "codex", "openclaw")
    cnt = Counter()
    sess = Counter()
    for s in sessions:
        sess[(s["split"], s["harness"])] += 1
        for u in s["units"]:
            cnt[(u["split"], s["harness"], u["speaker"])] += 1

    def row(split, harness):
        sel = lambda k: (split is None or k[0] == split) and (harness is None or k[1] == harness)
        n_sess = sum(v for k, v in sess.items() if sel(k + ("",)))
        by_sp = [sum(v for k, v in cnt.items() if sel(k) and k[2] == sp) for sp in speakers]
        return [split or "all", harness or "all", n_sess] + by_sp + [sum(by_sp)]

    rows = []
    for split in ("dev", "test", None):
        for harness in harnesses + (None,):
            rows.append(row(split, harness))
    scnt = Counter((u["split"], u["speaker"]) for u in sample)
    sample_rows = [[sp] + [scnt[(sp, k)] for k in speakers] + [sum(scnt[(sp, k)] for k in speakers)]
                   for sp in ("dev", "test")]

    lines = [
        "# Units to label: open questions and key decisions",
        "",
        "Generated by `python3 tests/detect/extract.py` (Python 3, standard library only; reads",
        "`../shared/fixtures/real` and `real2` in place, or `$ELNOR_FIXTURES`). Do not edit the outputs by",
        "hand; rerun the script. Output is deterministic (same bytes on every run).",
        "",
        "Each unit is labelled `question` (an open question), `decision` (a key decision) or `neither`,",
        "by two annotators independently; each also writes a title per session.",
        "",
        *written_by_hand(HERE / "README.md"),
        "## Files",
        "",
        "- `units/dev.jsonl`, `units/test.jsonl`: every unit, by split, in session then message order.",
        "- `units/sample.jsonl`: a smaller deterministic sample (written when there are more than 15,000 units).",
        "- `sessions.tsv`: session path, sha1-10 of the path, corpus, project, split, harness, units, person units.",
        "- `work/sessions/<sha1-10>.txt` (scratch, git-ignored): each session rendered as",
        "  `[turn N] PERSON|AGENT|INJECTED|TOOL|TOOL RESULT: …` with the unit ids `⟦…⟧` inline before each",
        "  unit, so an annotator can see what followed (answered? accepted?).",
        "",
        "Unit fields: `id` = `<corpus>/<sha1(path)[:10]>/<line of the record, 1-based>/<index within that",
        "record>`, `corpus`, `project`, `split`, `session` (path under the fixtures root), `turn` (index of the",
        "message in the session, 0-based, counting tool calls/results as messages), `speaker`",
        "(`person` | `agent` | `injected`), `last_in_message`, `in_last_agent_message` (the unit is in the",
        "session's last agent message that has units), `text` (≤ 400 characters).",
        "",
        "## How units are made",
        "",
        "- Sessions: every top-level session file of `real/` and `real2/` (Claude Code",
        "  `claude-code/<dir>/*.jsonl`, Codex `codex/sessions/**/rollout-*.jsonl` in both the",
        "  `response_item` and the older bare-item format, OpenClaw `openclaw/<src>/agents/<agent>/sessions/*`",
        "  including `.reset.*`/`.deleted.*` files). Sub-agent files (`agent-*.jsonl`, `*/subagents/*`) and",
        "  Claude Code `isSidechain` records (pre-2.0 sub-agent turns written inline) are skipped.",
        "- Project and split come from `tests/handoff/projects.tsv`. A session file not listed there would get",
        "  the project of its neighbours (`cc:<dir>`, `codex:<basename of cwd>`, `oc:<source>/<agent>` as the",
        "  TSV writes it) and split `test` when the first byte of sha256(corpus + \":\" + project) < 96.",
        "- **person**: text the person typed (user role), split like agent prose. Harness-added parts are",
        "  removed first: Claude Code `isMeta`/compact-summary records, `<system-reminder>`, `<command-*>`",
        "  wrappers (their `<command-args>` count as the person's text), `<local-command-*>`, `<task-notification>`,",
        "  \"Caveat: …\", \"[Request interrupted …]\", tool results, and open-cowork's replayed `Human:/Assistant:`",
        "  history (only the trailing new `Human:` turn is the person's); Codex developer messages,",
        "  `<environment_context>`, `<user_instructions>`, AGENTS.md, `<turn_aborted>`, BMAD/slash prompt",
        "  expansions, spec-kit templates (the text inside their `## User Input` block is the person's), the VS",
        "  Code \"# Context from my IDE setup\" header (only \"## My request for Codex\" is kept); OpenClaw gateway",
        "  metadata (`Conversation info`/`Sender` JSON, `[Day date time]` and `[Telegram …]` prefixes,",
        "  `[message_id: …]`), heartbeat/cron/`[System Message]`/session-start prompts, `System: [...]` notices,",
        "  replied-message/chat-history context, `[Queued messages while agent was busy]` wrappers (each queued",
        "  message is kept), \"Wake up, my friend!\" (OpenClaw's automatic first message), app prompt templates",
        "  (WicClaw: the Telegram `message` inside `Input JSON` is the person's).",
        "- **injected**: each user-role message (or the wrapper part of one) that the harness wrote, one unit per",
        "  message, whitespace collapsed, cut to 400 characters; also harness-written assistant messages",
        "  (Claude Code `<synthetic>`/API errors, OpenClaw `gateway-injected`). Pure metadata (timestamps, ids,",
        "  sender JSON, IDE header) is dropped without a unit. Annotators should confirm these are `neither`.",
        "- **agent**: the assistant's prose only (no tool calls, no thinking/reasoning, no inline",
        "  `<think>…</think>`; `<final>` tags removed). An app reply given as",
        "  JSON `{\"reply\": …}` counts as its `reply`; other pure-JSON replies and `HEARTBEAT_OK`/`NO_REPLY` have",
        "  no prose.",
        "- Splitting: on newlines first (each list item or line), then after `. ? !` followed by a space and a",
        "  capital (not after list markers like `1.` or abbreviations like `e.g.`), and after CJK `。？！`. Fenced",
        "  code blocks, markdown table rows/separators, and lines that look like unfenced source code (pasted",
        "  files, HTML/JSX, JSON/CSS; `;`/`{` endings, `const x =`, `key={…}`, dense brackets) are dropped. A",
        "  piece is dropped when it is narrower",
        "  than 12 columns (CJK characters count 2, so a 6-character Chinese sentence is kept) or has fewer than",
        "  2 word characters.",
        "",
        "## Counts",
        "",
        f"{len(sessions)} sessions, {total} units.",
        "",
        table(rows, ["split", "harness", "sessions", "person", "agent", "injected", "units"]),
        "",
    ]
    if sample:
        lines += [
            "## Sample (`units/sample.jsonl`)",
            "",
            f"{len(sample)} units: every person and injected unit, every agent unit of each session's last 2",
            "agent messages and of any agent message whose last unit ends with `?`, and 1 in 4 of the other agent",
            "units (first byte of sha1(id) % 4 == 0); at most 250 per session, keeping the session's latest units.",
            "",
            table(sample_rows, ["split", "person", "agent", "injected", "units"]),
            "",
        ]
    if not sample:
        lines += [f"No `units/sample.jsonl`: the total ({total}) is not above {SAMPLE_THRESHOLD:,} units.", ""]
    if unlisted:
        lines += ["## Sessions not listed in projects.tsv (project and split assigned by the rule)", ""]
        lines += [f"- `{r}` → `{p}`, {sp}" for r, p, sp in unlisted]
        lines += [""]
    else:
        lines += ["Every session file found is listed in `tests/handoff/projects.tsv`; no split was assigned by the rule.", ""]
    if missing:
        lines += ["## Listed in projects.tsv but not found", ""] + [f"- `{r}`" for r in missing] + [""]
    (HERE / "README.md").write_text("\n".join(lines), encoding="utf-8", newline="\n")


def written_by_hand(readme):
    """The README's sections this script does not generate (from `## Labels` up to `## Files`:
    how the labels were made, the figures), kept as they stand so a rerun does not drop them."""
    try:
        text = readme.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    start, end = text.find("\n## Labels"), text.find("\n## Files")
    if start < 0 or end < start:
        return []
    return text[start + 1:end].rstrip("\n").split("\n") + [""]


if __name__ == "__main__":
    main()
