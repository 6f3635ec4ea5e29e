#!/usr/bin/env bash
# libFuzzer targets (clang). Two modes:
#   scripts/fuzz.sh [SECONDS_PER_TARGET]      each target in turn on its checked-in seeds, under
#                                             ASan + UBSan (default 30 s: CI's run)
#   scripts/fuzz.sh --campaign SECONDS [DIR]  a long campaign: every target side by side for SECONDS
#                                             on a fast build without sanitizers (5-20x the
#                                             executions), corpora kept in DIR (default
#                                             build/fuzz-campaign); then every grown corpus is
#                                             replayed under ASan + UBSan, and DIR/summary.txt
#                                             lists executions and coverage per target.
set -euo pipefail
cd "$(dirname "$0")/.."
TARGETS="tokenizers analyze parse vocabulary model tokenizer_json model_config scheme_reader safetensors"

build() { # build/<dir> with HIROPE_FUZZ_SANITIZE=<on|off>
  [ -f "build/$1/CMakeCache.txt" ] || CC=clang CXX=clang++ cmake -S . -B "build/$1" \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHIROPE_FUZZ=ON -DHIROPE_FUZZ_SANITIZE="$2" \
    -DHIROPE_TESTS=OFF >/dev/null
  cmake --build "build/$1" -j"${JOBS:-2}" $(for t in $TARGETS; do printf -- '--target fuzz_%s ' "$t"; done)
}
[ -f build/data/cl100k.bin ] || node tools/gen-tokenizer-data.mjs build/data
export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1

# The table of a campaign directory: executions, speed, coverage and corpus per target, and the
# sanitized replay's result.
summary() {
  local dir=$1 seconds=$2 log execs rate rss last cov ft corp replay
  {
    printf '%-16s %12s %8s %7s %7s %8s %8s  %s\n' target executions 'exec/s' cov features corpus peak_MB \
      'replay under ASan + UBSan'
    for target in $TARGETS; do
      log="$dir/$target.log"
      execs=$(grep -oE 'stat::number_of_executed_units:[[:space:]]+[0-9]+' "$log" | awk '{print $2}')
      rate=$(grep -oE 'stat::average_exec_per_sec:[[:space:]]+[0-9]+' "$log" | awk '{print $2}')
      rss=$(grep -oE 'stat::peak_rss_mb:[[:space:]]+[0-9]+' "$log" | awk '{print $2}')
      last=$(grep -E '^#[0-9]+' "$log" | tail -1)
      cov=$(grep -oE 'cov: [0-9]+' <<<"$last" | awk '{print $2}')
      ft=$(grep -oE 'ft: [0-9]+' <<<"$last" | awk '{print $2}')
      corp=$(ls "$dir/corpus/$target" | wc -l)
      if grep -qE '^#[0-9]+[[:space:]]+DONE' "$dir/$target.replay.log" && ! grep -q 'ERROR' "$dir/$target.replay.log"; then
        replay="clean, $(grep -oE '^Done [0-9]+ runs' "$dir/$target.replay.log" | awk '{print $2}') inputs"
      else
        replay=FAILED
      fi
      printf '%-16s %12s %8s %7s %7s %8s %8s  %s\n' "fuzz_$target" "${execs:-?}" "${rate:-?}" \
        "${cov:-?}" "${ft:-?}" "$corp" "${rss:-?}" "$replay"
    done
    echo "seconds per target: $seconds (side by side, $(nproc) cores)"
    ls "$dir/artifacts" | sed 's/^/artifact: /'
  } | tee "$dir/summary.txt"
}

if [ "${1:-}" = "--summary" ]; then # the table of an earlier campaign
  summary "${2:-build/fuzz-campaign}" "${3:-?}"
  exit 0
fi
if [ "${1:-}" = "--campaign" ]; then
  SECONDS_PER_TARGET=${2:?usage: scripts/fuzz.sh --campaign SECONDS [DIR]}
  DIR=${3:-build/fuzz-campaign}
  build fuzz on
  build fuzz-fast off
  mkdir -p "$DIR/artifacts"
  pids=()
  for target in $TARGETS; do
    mkdir -p "$DIR/corpus/$target"
    cp -n tests/fuzz/corpus/$target/* "$DIR/corpus/$target/"
    # nice: the campaign shares the machine with whatever else runs; the targets split the cores.
    nice -n 10 "build/fuzz-fast/fuzz_$target" "$DIR/corpus/$target" \
      -max_total_time="$SECONDS_PER_TARGET" -max_len=65536 -timeout=20 -rss_limit_mb=2048 \
      -print_final_stats=1 -artifact_prefix="$DIR/artifacts/$target-" >"$DIR/$target.log" 2>&1 &
    pids+=($!)
  done
  failed=0
  for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
  # The sanitized build reruns every input the fast build kept: memory errors the fast build
  # cannot see surface here.
  for target in $TARGETS; do
    "build/fuzz/fuzz_$target" -runs=0 "$DIR/corpus/$target" >"$DIR/$target.replay.log" 2>&1 || failed=1
  done
  summary "$DIR" "$SECONDS_PER_TARGET"
  [ "$failed" = 0 ] && [ -z "$(ls "$DIR/artifacts")" ] || { echo "fuzz campaign found failures" >&2; exit 1; }
  echo "fuzz campaign: all targets ran clean"
  exit 0
fi

SECONDS_PER_TARGET=${1:-30}
build fuzz on
# Each target runs for SECONDS_PER_TARGET on its own copy of its seeds, as many side by side as
# there are cores (each libFuzzer process is one thread), so the run takes the same fuzzing per
# target in a fraction of the wall time. A failing input is written under the target's own prefix.
fuzz_one() { # target work_dir: the target's run, its log in work_dir/log
  local target=$1 work=$2
  mkdir -p "$work/corpus" "$work/artifacts"
  cp tests/fuzz/corpus/$target/* "$work/corpus/"
  "build/fuzz/fuzz_$target" "$work/corpus" -max_total_time="$SECONDS_PER_TARGET" -max_len=65536 \
    -timeout=20 -rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix="$work/artifacts/" \
    >"$work/log" 2>&1
}
lanes=$(nproc)
runs=$(mktemp -d)
failed=()
report() { # target, its exit status: its summary lines; a failing target's input and log tail
  local target=$1 status=$2 work="$runs/$1"
  echo "== fuzz_$target for ${SECONDS_PER_TARGET}s"
  grep -E "^(Done [0-9]+ runs|stat::number_of_executed_units|==.*ERROR|SUMMARY)" "$work/log" || true
  if [ "$status" != 0 ] || [ -n "$(ls "$work/artifacts")" ]; then
    echo "fuzz_$target found a failing input:" >&2
    ls "$work/artifacts" >&2
    grep -vE '^"|^#{6}|# Uses:' "$work/log" | tail -30 >&2
    mkdir -p build/fuzz-failures && cp "$work/artifacts/"* build/fuzz-failures/ 2>/dev/null || true
    failed+=("$target")
  fi
}
pending=()
for target in $TARGETS; do
  fuzz_one "$target" "$runs/$target" &
  pending+=("$target:$!")
  if [ ${#pending[@]} -ge "$lanes" ]; then
    status=0
    wait "${pending[0]#*:}" || status=$?
    report "${pending[0]%%:*}" "$status"
    pending=("${pending[@]:1}")
  fi
done
for entry in "${pending[@]}"; do
  status=0
  wait "${entry#*:}" || status=$?
  report "${entry%%:*}" "$status"
done
rm -rf "$runs"
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: failing inputs in build/fuzz-failures/ from: ${failed[*]}" >&2
  exit 1
fi
echo "fuzz: all targets ran clean"
