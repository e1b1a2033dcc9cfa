#!/usr/bin/env bash
# Fuzzes one harness for SECONDS from its seed corpus and saved crashers:
#   tests/fuzz/run.sh FUZZER NAME FUZZ_DIR SECONDS [WORK_DIR] [libFuzzer options...]
# New inputs go to WORK_DIR (default: a temporary directory, removed after),
# never into the source tree. A crash, leak, timeout or out-of-memory fails
# with the input saved as WORK_DIR/crash-* (and printed as a path).
set -eu
fuzzer=$1
name=$2
fuzz_dir=$3
seconds=$4
work=${5:-}
shift $(( $# < 5 ? $# : 5 ))
keep=1
if [ -z "$work" ]; then
  work=$(mktemp -d)
  keep=0
fi
mkdir -p "$work/corpus"
status=0
seeds=("$fuzz_dir/corpus/$name")
[ -d "$fuzz_dir/regressions/$name" ] && seeds+=("$fuzz_dir/regressions/$name")
"$fuzzer" --harness="$name" -max_total_time="$seconds" -timeout=30 -rss_limit_mb=2048 \
  -print_final_stats=1 -artifact_prefix="$work/" "$@" "$work/corpus" "${seeds[@]}" >"$work/log" 2>&1 || status=$?
grep -E '^stat::number_of_executed_units|^stat::peak_rss_mb|^#[0-9]+ *DONE' "$work/log" || true
echo "corpus: $(ls "$work/corpus" | wc -l) new inputs"
if [ "$status" != 0 ]; then
  tail -n 60 "$work/log"
  ls "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-* 2>/dev/null || true
  if [ "$keep" = 0 ]; then
    # Keep the input somewhere a CI log can point at.
    saved=$(mktemp -d /tmp/topoplan-fuzz-XXXXXX)
    cp "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-* "$saved"/ 2>/dev/null || true
    echo "inputs saved in $saved"
  fi
fi
[ "$keep" = 0 ] && rm -rf "$work"
exit $status
