#!/usr/bin/env bash
# Runs ELNOR for a newcomer: the desktop app where there is a display, else a headless tour of the
# `elnor` CLI. Installs what is missing first (scripts/setup.sh).
#
# The store is $ELNOR_MEMORY when set; otherwise a demo store in target/demo-store, seeded on first
# use with a small real work context so there is something to see. Your own default store (the
# platform data dir) is never seeded: point ELNOR_MEMORY at it to open it.
set -euo pipefail
cd "$(dirname "$0")/.."

has_display() { [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; }

if has_display; then scripts/setup.sh desktop; else scripts/setup.sh core; fi
export PATH="$HOME/.cargo/bin:$PATH"

target_dir="${CARGO_TARGET_DIR:-target}"
cargo build -q -p elnor-cli
elnor="$target_dir/debug/elnor"

store="${ELNOR_MEMORY:-$PWD/target/demo-store}"
# The marker names the seed's version, so a demo store from an older checkout is seeded again.
if [ -z "${ELNOR_MEMORY:-}" ] && [ ! -e "$store/.demo-seed-v9" ]; then
  rm -rf "$store"
  echo "Seeding a demo store at $store"
  "$elnor" --store "$store" init >/dev/null
  notes="$PWD/target/demo-notes"
  "$elnor" --store "$store" contexts create "Henderson v. Acme" --cwd "$notes/henderson" >/dev/null
  wc=wc_henderson_v_acme
  # The Henderson sessions happened two days ago (the global --now dates what they record), so a
  # new session there today gets the resume card; within 30 minutes of one it would not need it.
  then=$(date -u -d '-2 days' +%Y-%m-%dT%H:%M:%SZ)
  "$elnor" --store "$store" --now "$then" log append "$wc" work_phase_change research --session demo-1 \
    --note "Started on loss causation" >/dev/null
  "$elnor" --store "$store" --now "$then" log append "$wc" open_question \
    "Check with Christensen about the data timeline" --session demo-1 --entity christensen >/dev/null
  "$elnor" --store "$store" --now "$then" log append "$wc" key_decision \
    "Focus on the price impact approach for loss causation" --session demo-2 \
    --note "Corrective disclosure alone was insufficient" >/dev/null
  "$elnor" --store "$store" --now "$then" log append "$wc" session_summary_ref sum_demo_2 --turns 14 \
    --session demo-2 >/dev/null
  "$elnor" --store "$store" log append elnor-spec open_question \
    "Should Tier 2 skip rollups older than 7 days?" --session demo-3 >/dev/null
  # Transcripts of all three harnesses from the project's own samples (tests/fixtures; every
  # checkout has them), captured by the continuity agent in deterministic mode (no model needed):
  # each project found gets its work context, as on a new user's first run.
  samples="$PWD/tests/fixtures"
  "$elnor" --store "$store" config set mode deterministic >/dev/null
  "$elnor" --store "$store" watch --once --root "openclaw=$samples/openclaw/agents" \
    --root "claude_code=$samples/claude-code" --root "codex=$samples/codex" >/dev/null
  # Two questions open for three weeks on a report due next month: the nightly job proposes an
  # obligation for each; one is approved here (it shows on the Knowledge page and in the brief's
  # "Due" line), the other waits in the Review queue for you.
  deadline=$(date -u -d '+30 days' +%Y-%m-%d)
  entity=$("$elnor" --store "$store" entities add "Christensen report" --kind document \
    --deadline "$deadline" | cut -d' ' -f1)
  captured=$(date -u -d '-21 days' +%Y-%m-%dT%H:%M:%SZ)
  for q in "ce_demo_q1|When does Christensen deliver the event study data?" \
           "ce_demo_q2|Does the report need the 2019 trading data too?"; do
    printf '{"entry_id":"%s","entry_type":"open_question","source_session_id":"demo-1","captured_at":"%s","capture_mode":"llm_enriched","content":{"question":"%s"},"decay_at":"2099-01-01T00:00:00Z","linked_entity_ids":["%s"],"work_context_id":"%s","schema_version":2}' \
      "${q%%|*}" "$captured" "${q#*|}" "$entity" "$wc" |
      "$elnor" --store "$store" log append "$wc" --stdin >/dev/null
  done
  "$elnor" --store "$store" contexts link "$wc" "$entity" >/dev/null
  "$elnor" --store "$store" review evaluate >/dev/null
  first=$("$elnor" --store "$store" review list | grep "event study" | cut -d' ' -f1 | tr -d '#')
  "$elnor" --store "$store" review approve "$first" \
    --text "Chase Christensen for the event study data" >/dev/null
  # Tier 3 of every brief: the person's own stable facts and preferences.
  "$elnor" --store "$store" facts add "Backend engineer on ledger-sync (Rust); supports the Henderson damages case." >/dev/null
  "$elnor" --store "$store" facts add "Prefers direct answers and paste-ready code over descriptions." >/dev/null
  # A tracked folder of notes (recorded silently on its first scan), then an edit the watcher
  # would see, and a push: both name the Christensen report, so the Henderson context hears of
  # them, and both are on the Timeline. The desktop app keeps watching the folder: edit a note
  # there and it appears on the Timeline.
  rm -rf "$notes"
  mkdir -p "$notes/henderson"
  printf -- '---\ntitle: Henderson damages outline\n---\n# Outline\n\n## Loss causation\n\nPrice impact first.\n' \
    > "$notes/henderson/damages-outline.md"
  printf '# Reading list\n\n- Dura Pharmaceuticals v. Broudo\n' > "$notes/reading-list.md"
  "$elnor" --store "$store" folders add "$notes" >/dev/null
  "$elnor" --store "$store" folders scan >/dev/null
  printf '\n## Data\n\nWaiting on the Christensen report for the event study.\n' \
    >> "$notes/henderson/damages-outline.md"
  "$elnor" --store "$store" folders scan >/dev/null
  "$elnor" --store "$store" push "Sent the damages outline to the Christensen report team" >/dev/null
  "$elnor" --store "$store" rollup >/dev/null
  # A Topic whose collection directive proposes what mentions the damages outline: the Topics
  # page shows it, and its proposals wait in Review beside the promotions.
  "$elnor" --store "$store" topics create "Damages outline" --query "damages outline" \
    --description "Everything about the Henderson damages outline" --collect >/dev/null
  touch "$store/.demo-seed-v9"
fi

if has_display; then
  (cd ui && trunk build)
  exec cargo run -p elnor-desktop --features custom-protocol -- --store "$store" "$@"
fi

echo "No display found: here is the store through the elnor CLI."
echo
echo "\$ elnor --store $store today"
"$elnor" --store "$store" today
echo
echo "\$ elnor --store $store push --dry-run \"Called Christensen about the exhibits\""
"$elnor" --store "$store" push --dry-run "Called Christensen about the exhibits"
echo
echo "\$ elnor --store $store status"
"$elnor" --store "$store" status
echo
echo "\$ elnor --store $store log tail wc_henderson_v_acme"
"$elnor" --store "$store" log tail wc_henderson_v_acme
echo
echo "\$ elnor --store $store sessions list --limit 5"
"$elnor" --store "$store" sessions list --limit 5
echo
echo "\$ elnor --store $store contexts overview"
"$elnor" --store "$store" contexts overview
echo
echo "\$ elnor --store $store contexts list"
"$elnor" --store "$store" contexts list
echo
project=$("$elnor" --store "$store" contexts list | awk '$2 == "ledger-sync" { print $1; exit }')
echo "\$ elnor --store $store contexts show $project --entries 8"
"$elnor" --store "$store" contexts show "$project" --entries 8 || true
echo
echo "\$ elnor --store $store brief --cwd $PWD/target/demo-notes/henderson --dry-run"
"$elnor" --store "$store" brief --cwd "$PWD/target/demo-notes/henderson" --dry-run
echo
echo "\$ elnor --store $store traces list --limit 3"
"$elnor" --store "$store" traces list --limit 3
echo
echo "\$ elnor --store $store review list"
"$elnor" --store "$store" review list
echo
echo "\$ elnor --store $store nodes list"
"$elnor" --store "$store" nodes list
echo
echo "\$ elnor --store $store timeline --days 7 --limit 8"
"$elnor" --store "$store" timeline --days 7 --limit 8
echo
echo "\$ elnor --store $store query \"event study\" --hours 0"
"$elnor" --store "$store" query "event study" --hours 0
echo
echo "\$ elnor --store $store library list"
"$elnor" --store "$store" library list
echo
echo "\$ elnor --store $store topics proposals"
"$elnor" --store "$store" topics proposals
echo
echo "\$ elnor --store $store config get"
"$elnor" --store "$store" config get
echo
echo "Try: $elnor --store $store brief --context wc_henderson_v_acme --dry-run --explain"
