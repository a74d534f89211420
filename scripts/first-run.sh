#!/usr/bin/env bash
# The first-run benchmark (SPEC §14; BENCHMARKS.md): generates a heavy user's history with
# `elnor-heavygen`'s generator, then times `elnor init` → ingest → capture → query on a new store
# with the release binaries, next to bare serde_json parsing of the same lines.
#
#   scripts/first-run.sh [medium|spec|ci] [seed] [work dir] [--skip-capture]
#
# The history and the store go under the work dir (default $CARGO_TARGET_DIR/first-run, else
# target/first-run); the history is reused by later runs with the same preset and seed, the store
# is made anew each time. The spec preset needs ~4 GB for the history plus the store: check
# `df -h` first.
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-medium}"
seed="${2:-1}"
target="${CARGO_TARGET_DIR:-target}"
work="${3:-$target/first-run}"
cargo build --release -q -p elnor-cli -p elnor-fixtures --bins
mkdir -p "$work"
echo "machine: $(nproc) cores, $(free -g | awk '/^Mem:/ {print $2}') GiB RAM, $(rustc --version)"
exec nice "$target/release/elnor-firstrun" --preset "$preset" --seed "$seed" --work "$work" \
  --elnor "$target/release/elnor" "${@:4}"
