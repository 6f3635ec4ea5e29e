#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan + UBSan) and runs each for a bounded time on its
# checked-in seed corpus.   scripts/fuzz.sh [SECONDS_PER_TARGET]   (default 30)
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER_TARGET=${1:-30}
[ -f build/data/cl100k.bin ] || node tools/gen-tokenizer-data.mjs build/data
[ -f build/fuzz/CMakeCache.txt ] || CC=clang CXX=clang++ cmake -S . -B build/fuzz \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHIROPE_FUZZ=ON -DHIROPE_TESTS=OFF >/dev/null
cmake --build build/fuzz -j"${JOBS:-2}" --target fuzz_tokenizers fuzz_analyze fuzz_parse fuzz_vocabulary fuzz_model
for target in tokenizers analyze parse vocabulary model; do
  echo "== fuzz_$target for ${SECONDS_PER_TARGET}s"
  work=$(mktemp -d)
  cp tests/fuzz/corpus/$target/* "$work/"
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1 \
    "build/fuzz/fuzz_$target" "$work" -max_total_time="$SECONDS_PER_TARGET" -max_len=65536 \
    -timeout=20 -rss_limit_mb=4096 -print_final_stats=1 2>&1 | grep -E "^(#[0-9]+ +DONE|stat::number_of_executed_units|==.*ERROR|SUMMARY)" || true
  # libFuzzer writes crash-* / timeout-* files into the working directory on failure.
  if ls crash-* leak-* timeout-* oom-* >/dev/null 2>&1; then
    echo "fuzz_$target found a failing input:" >&2
    ls crash-* leak-* timeout-* oom-* >&2
    exit 1
  fi
  rm -rf "$work"
done
echo "fuzz: all targets ran clean"
