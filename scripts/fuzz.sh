#!/usr/bin/env bash
# The fuzz targets in fuzz/ (docs/FUZZING.md): builds their seed corpora from the project's own
# samples, then runs each target for a set number of executions or a set time and prints how many
# executions libFuzzer made. Needs the nightly toolchain and cargo-fuzz
# (`rustup toolchain install nightly`, `cargo install cargo-fuzz`). CI does not run this: the
# fuzzers need nightly and hours; the crashes they found are regression tests in `cargo test`.
#
#   scripts/fuzz.sh seeds                 write the seed corpora under fuzz/corpus/<target>/
#   scripts/fuzz.sh run [TARGET...]       run the targets (all by default), one after another
#   scripts/fuzz.sh [TARGET...]           both
#
# FUZZ_RUNS=N (default 10000000) stops a target after N executions, FUZZ_SECONDS=S (default: no
# limit) after S seconds, whichever comes first. FUZZ_MAX_LEN=B (default: libFuzzer's, the
# largest seed or 4096 bytes) caps an input's length: the markdown seeds are whole documents, the
# largest over 90 KB, on which libFuzzer makes a few hundred executions a second. Each run's figures
# are appended to fuzz/runs.log (not committed). Runs are `nice -n 10`, since fuzzing takes a
# whole core. FUZZ_ARGS="..." passes more libFuzzer flags, e.g. `-reload=0` when two instances
# share a corpus and neither needs the other's finds (re-reading a grown corpus costs ~5%).
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
fuzz="$root/fuzz"
corpus="$fuzz/corpus"
targets=(transcript_claude_code transcript_codex transcript_openclaw continuity_log_line config
    markdown hook_input mcp_call)

# Writes one seed file; seeds are named `seed-*` so that .gitignore keeps them and drops the
# corpus libFuzzer grows beside them.
seed() { # target name content
    mkdir -p "$corpus/$1"
    printf '%s' "$3" >"$corpus/$1/seed-$2"
}

# One seed per line of every JSONL file under a fixture folder, and one per whole file, so the
# fuzzer starts from real records and from real sequences of them (tool calls, then results).
split_jsonl() { # target fixture-folder
    local target=$1 n=0 file line
    while IFS= read -r -d '' file; do
        n=$((n + 1))
        mkdir -p "$corpus/$target"
        cp "$file" "$corpus/$target/seed-file-$n"
        local i=0
        while IFS= read -r line || [[ -n $line ]]; do
            i=$((i + 1))
            seed "$target" "file-$n-line-$i" "$line"
        done <"$file"
    done < <(find "$2" -name '*.jsonl' -print0 | sort -z)
}

seeds() {
    local fixtures="$root/tests/fixtures"
    split_jsonl transcript_claude_code "$fixtures/claude-code"
    split_jsonl transcript_codex "$fixtures/codex"
    split_jsonl transcript_openclaw "$fixtures/openclaw"

    # Continuity log lines: one entry of each type as the engine writes them (CSA §3.2), and a
    # log of all of them with a blank line and a torn one.
    local common='"schema_version":2,"entry_id":"ce_1","source_session_id":"sess-42","captured_at":"2026-11-20T09:00:00Z","capture_mode":"llm_enriched","delivered":false,"promoted_to_graph":false,"decay_at":"2027-01-19T09:00:00Z","linked_entity_ids":["ent_judge_chen"],"work_context_id":"henderson"'
    local entries=(
        "{$common,\"entry_type\":\"key_decision\",\"content\":{\"decision\":\"Focus on price impact\",\"rationale\":\"Disclosure alone was insufficient\"}}"
        "{$common,\"entry_type\":\"open_question\",\"source_at\":\"2026-11-19T17:30:00Z\",\"content\":{\"question\":\"Which court?\",\"context\":\"filing\",\"resolved\":true,\"resolved_at\":\"2026-11-21T10:00:00Z\",\"resolution_summary\":\"The district court\"}}"
        "{$common,\"entry_type\":\"session_summary_ref\",\"content\":{\"doc73_session_summary_id\":\"sum_1\",\"entities_referenced\":[\"Henderson\"],\"procedures_executed\":[],\"tools_used\":[\"grep\"],\"turn_count\":12,\"duration_minutes\":40},\"linked_doc73_session_summary_id\":\"sum_1\"}"
        "{$common,\"entry_type\":\"cross_conversation_update\",\"source_agent_id\":\"codex\",\"content\":{\"summary\":\"Retries are per batch now\",\"source_session_id\":\"sess-7\",\"affected_entity_ids\":[\"ent_ledger\"]}}"
        "{$common,\"entry_type\":\"work_phase_change\",\"promoted_node_id\":\"node_1\",\"content\":{\"previous_phase\":\"research\",\"new_phase\":\"waiting_for_external\",\"reason\":\"Sent to the client\"}}"
    )
    local i=0 all=""
    for e in "${entries[@]}"; do
        i=$((i + 1))
        seed continuity_log_line "entry-$i" "$e"
        all+="$e"$'\n'
    done
    seed continuity_log_line log "$all"$'\n'"${entries[0]:0:80}"

    # The config: the defaults as a fresh store writes them, the least a file may hold, and one
    # with every optional text set.
    local config='{"mode":"full","synthesis_model":null,"min_dirty_turns":3,"idle_trigger_minutes":15,"debounce_minutes":30,"max_session_history_window":15,"session_summary_ttl_days":30,"open_question_ttl_days":60,"key_decision_ttl_days":60,"cross_update_ttl_days_after_delivery":7,"work_phase_ttl_days":30,"deterministic_heuristic_capture":true,"auto_project_contexts":true,"transcript_read_max_tokens":4000,"synthesis_provider":"ollama","synthesis_base_url":null,"synthesis_timeout_seconds":60,"max_model_calls_per_hour":30,"max_model_calls_per_day":200,"model_knowledge_cutoff":null,"model_date_awareness":"unknown","model_profile_verified":null,"significance_threshold_pct":50,"research_gate_multiplier_pct":60,"rollup_window_days":14,"trace_retention_assemblies":1000,"promotion_question_days":14,"promotion_decision_sessions":3,"nightly_hour":3,"node_decay_step_days":30,"watch_debounce_ms":250,"watch_reconcile_minutes":10,"cross_surface_query_enabled":true,"query_rate_per_minute":6,"query_rate_per_day":200,"embedding_provider":"builtin","embedding_base_url":null,"embedding_model":null,"schema_version":2}'
    seed config default "$config"
    seed config minimal '{"schema_version":2}'
    seed config texts '{"schema_version":2,"mode":"off","synthesis_model":"llama3.1:8b","synthesis_provider":"openai_compatible","synthesis_base_url":"http://localhost:11434/v1","model_knowledge_cutoff":"2024-06","embedding_provider":"openai_compatible","embedding_base_url":"https://api.example.com/v1","embedding_model":"text-embedding-3-small"}'

    # Markdown: every markdown file of the repository's own (docs, fixtures, READMEs), but not
    # the corpus's own copies: those are seeds of an earlier run, and listing them would copy
    # each seed again on every run. The old numbered seeds go first, because a file added or
    # removed since then shifts the numbers, and a stale seed would stay beside its renumbered
    # copy.
    rm -f "$corpus"/markdown/seed-[0-9]*
    local md n=0
    while IFS= read -r -d '' md; do
        n=$((n + 1))
        mkdir -p "$corpus/markdown"
        cp "$md" "$corpus/markdown/seed-$n-$(basename "$md")"
    done < <(cd "$root" && git ls-files -z -- '*.md' ':!fuzz/corpus' | sed -z "s|^|$root/|" | sort -z)
    seed markdown frontmatter $'---\ntitle: "Ledger sync"\ntags: [a, b]\nowner: dana\n---\n# Heading\n\nSee [the plan](plan.md) and <b>html</b>.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n- [ ] task ~~done~~\n'

    # Hook inputs: the examples of crates/cli/tests/hooks.rs (the harnesses' documented
    # shapes), each raw string constant there one seed.
    mkdir -p "$corpus/hook_input"
    perl -0e 'local $/; my $t = <STDIN>; while ($t =~ /const (\w+): &str = r#"(.*?)"#;/sg) { open my $f, ">", "'"$corpus"'/hook_input/seed-" . lc($1) or die; print $f $2; close $f }' \
        <"$root/crates/cli/tests/hooks.rs"
    seed hook_input minimal '{"hook_event_name": "PreCompact"}'
    seed hook_input codex-null '{"session_id": "s", "transcript_path": null, "hook_event_name": "SessionStart"}'

    # MCP calls: the tool name on the first line, its JSON arguments after it; one valid call
    # of every tool on the fixtures' store, and a few that must be refused.
    seed mcp_call session_list $'session_list\n{"harness":"claude_code","limit":5}'
    seed mcp_call session_list_text $'session_list\n{"text":"ledger","hours":100000}'
    seed mcp_call session_read $'session_read_transcript\n{"session_id":"5b0c2d7e-1f3a-4c8e-9a61-0d2f7c9e4a11","last_n_turns":4,"max_tokens":500}'
    seed mcp_call session_summarize $'session_summarize\n{"session_id":"8e41a0c3-6d52-4b7f-b2e9-3c7d1a5f9b20"}'
    seed mcp_call continuity_query $'continuity_query\n{"query":"retries batch","max_results":5}'
    seed mcp_call brief $'brief\n{"cwd":"/home/dana/code/ledger-sync","first_message":"where were we?","preview":true}'
    seed mcp_call trace_explain $'trace_explain\n{"trace_id":1,"include_excluded":true}'
    seed mcp_call lineage_expand $'lineage_expand\n{"session_id":"5b0c2d7e-1f3a-4c8e-9a61-0d2f7c9e4a11"}'
    seed mcp_call lineage_node $'lineage_node\n{"session_id":"5b0c2d7e-1f3a-4c8e-9a61-0d2f7c9e4a11","seq":3}'
    seed mcp_call observation_push $'observation_push\n{"text":"Fixed the ledger retry bug.","entities":["ledger"]}'
    seed mcp_call no_tool $'rm -rf\n{"path":"/"}'
    seed mcp_call bad_id $'session_read_transcript\n{"session_id":"../../etc/passwd"}'
    echo "seeds written under $corpus"
}

run() {
    local runs=${FUZZ_RUNS:-10000000} seconds=${FUZZ_SECONDS:-0} max_len=${FUZZ_MAX_LEN:-0}
    local target log out
    # The targets that write a store (mcp_call) keep it under TMPDIR; a memory file system,
    # where there is one, keeps fsync from setting their pace.
    local tmp=${TMPDIR:-/tmp}
    [[ -d /dev/shm && -w /dev/shm ]] && tmp=/dev/shm
    cd "$fuzz"
    for target in "$@"; do
        log="$(mktemp)"
        local args=(-runs="$runs" -print_final_stats=1 -timeout=30)
        [[ $seconds -gt 0 ]] && args+=(-max_total_time="$seconds")
        [[ $max_len -gt 0 ]] && args+=(-max_len="$max_len")
        # Word splitting is wanted here: FUZZ_ARGS holds several flags.
        # shellcheck disable=SC2206
        [[ -n ${FUZZ_ARGS:-} ]] && args+=($FUZZ_ARGS)
        local started=$SECONDS status=0
        # `-s none`: the code under test is safe Rust, where a sanitizer finds little that a
        # panic does not, and libFuzzer without one runs several times faster.
        # The wrapper leaves tantivy uninstrumented (scripts/fuzz-rustc.sh says why).
        RUSTC_WRAPPER="$root/scripts/fuzz-rustc.sh" TMPDIR="$tmp" nice -n 10 cargo +nightly fuzz run -s none "$target" "$corpus/$target" -- "${args[@]}" \
            </dev/null >"$log" 2>&1 || status=$?
        local took=$((SECONDS - started))
        local execs
        execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
        out="$target: ${execs:-?} executions in ${took}s ($( [[ -n $execs && $took -gt 0 ]] && echo $((execs / took)) || echo ?) exec/s), exit $status"
        echo "$out"
        echo "$(date -u +%FT%TZ) $out" >>"$fuzz/runs.log"
        if [[ $status -ne 0 ]]; then
            grep -E 'panicked|SUMMARY|Test unit written' "$log" | head -5 || true
            echo "full output: $log"
        else
            rm -f "$log"
        fi
    done
}

case "${1:-}" in
seeds) seeds ;;
run)
    shift
    if [[ $# -eq 0 ]]; then set -- "${targets[@]}"; fi
    run "$@"
    ;;
*)
    if [[ $# -eq 0 ]]; then set -- "${targets[@]}"; fi
    seeds
    run "$@"
    ;;
esac
