#!/usr/bin/env bash
# The long crash suite (docs/CRASH.md): the real `elnor` binary killed with SIGKILL at random
# points, ELNOR_CRASH_ITERATIONS times (default 1000), from ELNOR_CRASH_SEED (default: the time,
# printed so a failure can be run again). It prints the kill points per operation, the
# acknowledged writes checked and the torn tails repaired. CI runs the same test bounded to 40.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
export ELNOR_CRASH_ITERATIONS="${ELNOR_CRASH_ITERATIONS:-1000}"
export ELNOR_CRASH_SEED="${ELNOR_CRASH_SEED:-$(date +%s)}"
# Comparing rebuilt derived data rebuilds everything twice; every 50 iterations is enough here.
export ELNOR_CRASH_DERIVED_EVERY="${ELNOR_CRASH_DERIVED_EVERY:-50}"
echo "crash suite: $ELNOR_CRASH_ITERATIONS iterations, seed $ELNOR_CRASH_SEED" >&2
# nice: the suite is hours of CPU on a shared machine, and nothing in it depends on speed.
nice cargo test -q -p elnor-cli --test crash -- --nocapture
