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
if [ -z "${ELNOR_MEMORY:-}" ] && [ ! -e "$store/continuity/henderson-v-acme.jsonl" ]; then
  echo "Seeding a demo store at $store"
  "$elnor" --store "$store" init >/dev/null
  wc=henderson-v-acme
  "$elnor" --store "$store" log append "$wc" work_phase_change research --session demo-1 \
    --note "Started on loss causation" >/dev/null
  "$elnor" --store "$store" log append "$wc" open_question \
    "Check with Christensen about the data timeline" --session demo-1 --entity christensen >/dev/null
  "$elnor" --store "$store" log append "$wc" key_decision \
    "Focus on the price impact approach for loss causation" --session demo-2 \
    --note "Corrective disclosure alone was insufficient" >/dev/null
  "$elnor" --store "$store" log append "$wc" session_summary_ref sum_demo_2 --turns 14 \
    --session demo-2 >/dev/null
  "$elnor" --store "$store" log append elnor-spec open_question \
    "Should Tier 2 skip rollups older than 7 days?" --session demo-3 >/dev/null
  # Real transcripts of all three harnesses, when the shared fixtures sit beside the checkout.
  fixtures="$PWD/../shared/fixtures/transcripts"
  if [ -d "$fixtures" ]; then
    "$elnor" --store "$store" ingest --root "openclaw=$fixtures/openclaw" \
      --root "claude_code=$fixtures/claude-code" --root "codex=$fixtures/codex" >/dev/null
  fi
fi

if has_display; then
  (cd ui && trunk build)
  exec cargo run -p elnor-desktop --features custom-protocol -- --store "$store" "$@"
fi

echo "No display found: here is the store through the elnor CLI."
echo
echo "\$ elnor --store $store status"
"$elnor" --store "$store" status
echo
echo "\$ elnor --store $store log tail henderson-v-acme"
"$elnor" --store "$store" log tail henderson-v-acme
echo
echo "\$ elnor --store $store sessions list --limit 5"
"$elnor" --store "$store" sessions list --limit 5
echo
echo "\$ elnor --store $store config get"
"$elnor" --store "$store" config get
echo
echo "Try: $elnor --store $store config set mode deterministic"
