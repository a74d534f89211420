#!/usr/bin/env bash
# The desktop app's figures for BENCHMARKS.md: cold start to the first frame and to an interactive
# Home, idle RSS of the app with its WebKit processes, and the Timeline, Sessions and Search pages
# (tests/e2e/startup.rs), with the peer in the same run: the same Tauri runtime on an empty page
# (src-tauri/examples/bare_window.rs). Builds both in release, then runs the figures test under Xvfb.
#
#   scripts/bench-app.sh                 on the captured samples
#   scripts/bench-app.sh STORE           on a store of your own, e.g. a generated heavy user
#                                        (`scripts/first-run.sh medium` leaves one)
#
# Run it on an idle machine, and more than once: the first start after a build also pays for the
# page cache.
set -euo pipefail
cd "$(dirname "$0")/.."
target="${CARGO_TARGET_DIR:-target}"
(cd ui && trunk build --release)
cargo build --release -p elnor-desktop --features custom-protocol --bin elnor-desktop --example bare-window
if [[ $# -ge 1 ]]; then
    export ELNOR_BENCH_STORE="$(cd "$1" && pwd)"
fi
ELNOR_APP_BINARY="$target/release/elnor-desktop" \
ELNOR_BARE_BINARY="$target/release/examples/bare-window" \
    xvfb-run -a -s "-screen 0 2560x1600x24" \
    cargo test -p elnor-e2e --test webview -- --ignored --nocapture app_start_and_page_figures
