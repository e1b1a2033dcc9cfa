#!/usr/bin/env bash
# The bad-input corpus (tests/bad-input/DIR/NAME): every file must be refused
# with exactly the lines in NAME.err, each `topoplan: error: FILE:LINE:COL:
# message`, exit status 2, no output file left behind, within a second of CPU
# time and in bounded memory. The folder says which command reads the file:
#   topology/        topoplan topology show FILE
#   jobs/            topoplan check gb200-nvl72:racks=2 FILE
#   plans/           topoplan evaluate gb200-nvl72:racks=2 FILE
#   import-FORMAT/   topoplan import --from FORMAT FILE -o OUT
#   device-perf/     topoplan check gb200-nvl72:racks=2 JOBS --device-perf FILE
#   traces/          topoplan simulate gb200-nvl72:racks=2 FILE
# UPDATE_GOLDEN=1 rewrites the .err files; review the diff.
set -u
bin=$(realpath "$1")
root=$2
corpus=$root/tests/bad-input
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Sanitizer builds are slower and reserve terabytes of address space, so
# they get more CPU time and an RSS limit instead of an address-space one.
cpu_seconds=1
memory=(ulimit -v $((1024 * 1024)))  # 1 GiB
if grep -qa __asan_init "$bin"; then
  cpu_seconds=10
  memory=(true)
  export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}hard_rss_limit_mb=1024
fi

fail=0
count=0
cd "$corpus"
for file in */*; do
  case $file in *.err) continue ;; esac
  dir=${file%%/*}
  out=$tmp/out.yaml
  case $dir in
    topology) args=(topology show "$file") ;;
    jobs) args=(check gb200-nvl72:racks=2 "$file") ;;
    plans) args=(evaluate gb200-nvl72:racks=2 "$file") ;;
    device-perf) args=(check gb200-nvl72:racks=2 "$root/tests/cli/inputs/jobs-train-a.yaml" --device-perf "$file") ;;
    traces) args=(simulate gb200-nvl72:racks=2 "$file") ;;
    import-*) args=(import --from "${dir#import-}" "$file" -o "$out") ;;
    *) echo "FAIL $file: no command for folder $dir"; fail=1; continue ;;
  esac
  count=$((count + 1))
  status=0
  (
    "${memory[@]}"
    ulimit -t "$cpu_seconds"
    exec timeout 20 "$bin" "${args[@]}"
  ) >"$tmp/stdout" 2>"$tmp/stderr" </dev/null || status=$?
  expected=${file%.*}.err
  if [ "${UPDATE_GOLDEN:-}" = 1 ]; then
    cp "$tmp/stderr" "$expected"
  fi
  problems=()
  [ "$status" = 2 ] || problems+=("exit status $status, expected 2 (124 or 137: time or memory limit)")
  [ -s "$tmp/stdout" ] && problems+=("wrote to stdout")
  [ -e "$out" ] && problems+=("left an output file") && rm -f "$out"
  # Every line is one located error (warnings may precede the errors).
  while IFS= read -r line; do
    case $line in
      "topoplan: warning: "*) ;;
      "topoplan: error: $file:"[0-9]*:[0-9]*": "*) ;;
      *) problems+=("not a located error: $line") ;;
    esac
  done <"$tmp/stderr"
  if [ ! -f "$expected" ]; then
    problems+=("no $expected")
  elif ! diff -u "$expected" "$tmp/stderr" >"$tmp/diff"; then
    problems+=("stderr differs from $expected:"$'\n'"$(head -n 30 "$tmp/diff")")
  fi
  if [ ${#problems[@]} -gt 0 ]; then
    echo "FAIL $file (topoplan ${args[*]}):"
    printf '  %s\n' "${problems[@]}"
    fail=1
  fi
done
for err in */*.err; do
  ls "${err%.err}".* 2>/dev/null | grep -qv '\.err$' || { echo "FAIL $err: no input beside it"; fail=1; }
done
echo "$count bad inputs checked"
[ "$count" -ge 40 ] || { echo "FAIL: the corpus needs at least 40 inputs"; fail=1; }
exit $fail
