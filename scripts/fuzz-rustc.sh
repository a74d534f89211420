#!/usr/bin/env bash
# The rustc wrapper scripts/fuzz.sh builds the fuzz targets with (RUSTC_WRAPPER): it compiles
# the crates of the search index library, tantivy and its parts, without libFuzzer's coverage
# instrumentation, and every other crate as cargo-fuzz asks. Why (docs/FUZZING.md, "What is
# instrumented"): in `mcp_call` the index's per-segment work took most of the time, and most of
# that was the instrumentation's callbacks inside tantivy, whose coverage only steered the
# fuzzer towards texts that differ in how tantivy stores them, not in what our code does.
# tantivy still runs, with its debug assertions, in every call, so a panic in it still stops
# the fuzzer.
set -euo pipefail

rustc=$1
shift

crate=
prev=
for arg in "$@"; do
    [[ $prev == --crate-name ]] && crate=$arg
    prev=$arg
done

case $crate in
tantivy | tantivy_*) ;;
*) exec "$rustc" "$@" ;;
esac

args=()
for arg in "$@"; do
    case $arg in
    -Cpasses=sancov-module | -Cllvm-args=-sanitizer-coverage-*) ;;
    *) args+=("$arg") ;;
    esac
done
exec "$rustc" "${args[@]}"
