#!/usr/bin/env bash
# cmake/check_layering.cmake, which the build runs before compiling lib/:
# the real library passes, and an include against the layering fails with
# the file, the include and what its module may use.
#   layering.sh TOPOPLAN SOURCE_DIR
set -uo pipefail
root=$2
fail() { echo "layering: FAIL: $*" >&2; exit 1; }
work=$(mktemp -d) || fail "mktemp"
trap 'rm -rf "$work"' EXIT
check() { cmake -DLIB_DIR="$1" -DLAYERS="$2" -DSTAMP="$work/stamp" -P "$root/cmake/check_layering.cmake" 2>&1; }

# The real library against its own table (lib/layers.cmake, as the build runs it).
out=$(cmake -DLIB_DIR="$root/lib" -DSTAMP="$work/stamp" -P "$root/cmake/check_layering.cmake" 2>&1) ||
  fail "the library breaks its own layering: $out"
# ... and that table is the one enforced: support climbing to model fails.
mkdir -p "$work/real/src/support"
cp "$root/lib/layers.cmake" "$work/real/"
echo '#include "topoplan/model/topology.hpp"' >"$work/real/src/support/up.cpp"
out=$(cmake -DLIB_DIR="$work/real" -DSTAMP="$work/stamp" -P "$root/cmake/check_layering.cmake" 2>&1) &&
  fail "support including model passes under lib/layers.cmake"
grep -q "src/support/up.cpp: #include \"topoplan/model/topology.hpp\" (module 'support' may use: )" <<<"$out" ||
  fail "the error under lib/layers.cmake does not name the file and include: $out"

# A toy library: low below high; low including high is refused, high
# including low (also as a private ../low/ path) is fine.
mkdir -p "$work/lib/src/low" "$work/lib/src/high" "$work/lib/include/topoplan/low"
echo '#include "topoplan/low/a.hpp"' >"$work/lib/src/high/b.cpp"
echo '#include "../low/private.hpp"' >>"$work/lib/src/high/b.cpp"
echo '#pragma once' >"$work/lib/include/topoplan/low/a.hpp"
out=$(check "$work/lib" "low|high:low") || fail "a correct toy library is refused: $out"
echo '#include "topoplan/high/b.hpp"' >"$work/lib/src/low/a.cpp"
if out=$(check "$work/lib" "low|high:low"); then fail "low including high passes"; fi
grep -q 'lib/src/low/a.cpp: #include "topoplan/high/b.hpp" (module .low. may use: )' <<<"$out" ||
  fail "the error does not name the file and include: $out"
out=$(check "$work/lib" "high:low|low") && fail "a module used before it is declared passes"
grep -q "module 'high' uses 'low', which is not declared before it" <<<"$out" || fail "wrong message: $out"
echo "layering: the library keeps its layers; crossings are refused"
