#!/usr/bin/env bash
# Runs every check and test, e2e included, installing what is missing first (scripts/setup.sh).
# This is the README's test command, and what CI (.ci/run) calls.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh test
export PATH="$HOME/.cargo/bin:$PATH"
target_dir="${CARGO_TARGET_DIR:-$PWD/target}"

step() { printf '\n\033[1;32m==> %s\033[0m\n' "$*" >&2; }
started=$SECONDS

# Tests that need the shared fixture corpus (../shared/fixtures, or $ELNOR_FIXTURES) and do not
# find it name themselves here; the count is printed at the end. ELNOR_REQUIRE_FIXTURES=1 (as CI
# sets it) turns a missing corpus into a failure instead.
export ELNOR_SKIP_LOG="${ELNOR_SKIP_LOG:-$(mktemp)}"
: > "$ELNOR_SKIP_LOG"

step "format"
cargo fmt --all --check

step "layering: the engine and the shared types know nothing of Tauri, Leptos, wasm or MCP"
# `cargo tree -p CRATE -i DEP` prints the paths by which CRATE reaches DEP; when there are none,
# cargo says the spec "did not match any packages". Any other failure is a broken check.
depends_on() {
  local crate="$1" dep="$2" out err
  err=$(mktemp)
  if out=$(cargo tree -q -p "$crate" -i "$dep" -e normal,build 2>"$err"); then
    rm -f "$err"; [ -n "$out" ]; return
  fi
  if grep -q "did not match any packages" "$err"; then rm -f "$err"; return 1; fi
  cat "$err" >&2; rm -f "$err"; echo "layering check itself failed" >&2; exit 1
}
check_absent() {
  local crate="$1"; shift
  for banned in "$@"; do
    if depends_on "$crate" "$banned"; then
      echo "layering violation: $crate depends on $banned" >&2
      cargo tree -q -p "$crate" -i "$banned" -e normal,build >&2; exit 1
    fi
  done
}
# The check must be able to fail: the shell does depend on Tauri and the engine.
depends_on elnor-desktop tauri && depends_on elnor-desktop elnor-engine \
  && depends_on elnor-mcp rmcp \
  || { echo "layering check cannot see real dependencies" >&2; exit 1; }
check_absent elnor-engine tauri tauri-build wry leptos wasm-bindgen elnor-types rmcp tokio
check_absent elnor-types tauri wry leptos elnor-engine rusqlite
# The MCP server is an adapter beside the shell, not above it: it knows the engine alone.
check_absent elnor-mcp tauri elnor-types
echo "ok"

step "layering inside the engine: modules only look down (tidy)"
cargo test -q -p elnor-engine --test tidy

step "UI: trunk build (wasm)"
(cd ui && trunk build)

step "clippy (native crates, all targets)"
cargo clippy -q -p elnor-engine -p elnor-types -p elnor-cli -p elnor-mcp -p elnor-fixtures -p elnor-e2e -p elnor-desktop \
  --all-targets --features elnor-desktop/custom-protocol -- -D warnings
step "clippy (UI, wasm32)"
cargo clippy -q -p elnor-ui --target wasm32-unknown-unknown --all-targets -- -D warnings

step "engine, types and CLI tests"
cargo test -p elnor-engine -p elnor-types -p elnor-cli -p elnor-mcp

step "slow tier: the live file watcher over real inotify"
cargo test -q -p elnor-engine --test watcher -- --ignored

step "slow tier: search relevance on real history (recall@5 and MRR per strategy)"
cargo test -q -p elnor-engine --test search_relevance -- --ignored --nocapture

step "slow tier: search on LoCoMo (recall@1/5/10 per strategy, beside plain BM25)"
cargo test -q -p elnor-engine --test locomo -- --ignored --nocapture

step "OS keyring for real: gnome-keyring in a private D-Bus session with a temporary HOME"
# The real Secret Service, not a mock: the key round trip, the clear error when no keyring is
# reachable, and the check that an API key never reaches the store, the output or the logs.
# CARGO_HOME and RUSTUP_HOME are pinned first so the toolchain is still found under the new HOME.
keyring_home=$(mktemp -d)
export CARGO_HOME="${CARGO_HOME:-$HOME/.cargo}" RUSTUP_HOME="${RUSTUP_HOME:-$HOME/.rustup}"
HOME="$keyring_home" dbus-run-session -- bash -c '
  printf pw | gnome-keyring-daemon --unlock --components=secrets >/dev/null &&
  cargo test -q -p elnor-engine secrets -- --ignored &&
  cargo test -q -p elnor-cli -- --ignored'
rm -rf "$keyring_home"

step "desktop app build (embeds ui/dist) and shell unit tests"
cargo build -p elnor-desktop --features custom-protocol
cargo test -p elnor-desktop --features custom-protocol

step "end-to-end through the real webview (tauri-driver + WebKitWebDriver under Xvfb)"
# The screen is wider than the widest window the tests open (1440 px); the pages' pictures go to
# target/e2e-screenshots/ (page-*.png: every page on a store of real history at 1440 px).
screenshots="${ELNOR_E2E_SCREENSHOTS:-$PWD/target/e2e-screenshots}"
mkdir -p "$screenshots"
ELNOR_APP_BINARY="$target_dir/debug/elnor-desktop" ELNOR_E2E_SCREENSHOTS="$screenshots" \
  xvfb-run -a -s "-screen 0 2560x1600x24" cargo test -p elnor-e2e --test webview -- --ignored
echo "screenshots of the pages: $screenshots" >&2

skipped=$(sort -u "$ELNOR_SKIP_LOG" | grep -c . || true)
if [ "$skipped" -gt 0 ]; then
  step "all checks passed in $((SECONDS - started)) s; $skipped test(s) skipped: the shared fixture corpus is not beside the checkout (set ELNOR_FIXTURES)"
else
  step "all checks passed in $((SECONDS - started)) s"
fi
