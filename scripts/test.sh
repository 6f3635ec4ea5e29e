#!/usr/bin/env bash
# Runs every test: Biome's lint and format check of the JavaScript, the Catch2 suite natively and
# compiled to WASM (SIMD and scalar builds) under Node, then the Python tests (the module against
# the npm package, the Dask jobs, the trainer), the JS API tests against both builds and the page
# in headless Chromium.
#
# Every step runs even when an earlier one fails, so that one failing step cannot hide the others;
# the run ends with where the time went (each step's seconds, the 15 slowest test files), one line
# per failed step, and exits non-zero if any failed.
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p build
times=build/test-times.txt
: >"$times"

failed=()
step() { # name, command...
  local name=$1; shift
  local start=$SECONDS
  echo "== $name"
  if ! "$@"; then
    echo "== FAILED: $name"
    failed+=("$name")
  fi
  printf '%6d s  %s\n' $((SECONDS - start)) "$name" >>"$times"
}

step "lint and format check of the JavaScript (biome ci, as npm run lint)" \
  node_modules/.bin/biome ci --error-on-warnings .
step "native Catch2 tests ($(uname -m))" ./build/native/hirope_tests --use-colour no
for variant in simd scalar; do
  step "Catch2 tests compiled to WASM ($variant)" \
    node --no-experimental-fetch "build/wasm-$variant/hirope_tests.cjs" --use-colour no
done
# Debian's interpreter (the one the module is built for, with python3-torch and Dask; a pyenv
# shim may come first on PATH). From the repository root, so the training package imports.
step "Python: the module against the npm package, the Dask jobs, the trainer (pytest tests/python)" \
  env PYTHONPATH=build/python /usr/bin/python3 -m pytest -q -p no:cacheprovider tests/python/
# A hung test fails after 5 minutes instead of stalling the run. Two reporters: TAP on stdout as
# before, and each file's seconds and counts for the report below, whose last line repeats the
# counts ("tests: N passed, N failed, N skipped") so that they close the output.
step "JS API, WebGPU, browser and packaging tests (node --test)" \
  node --test --test-timeout=300000 \
  --test-reporter=tap --test-reporter-destination=stdout \
  --test-reporter=./scripts/test-times-reporter.mjs --test-reporter-destination=build/test-files.json \
  tests/js/ tests/webgpu/ tests/browser/ tests/package/

echo "== where the time went (seconds; the machine's load counts too)"
cat "$times"
echo "== the 15 slowest test files (seconds: the sum of each file's top-level tests)"
summary=$(node -e '
  const files = JSON.parse(require("fs").readFileSync("build/test-files.json", "utf8"));
  const rows = Object.entries(files).sort((a, b) => b[1].seconds - a[1].seconds);
  for (const [file, t] of rows.slice(0, 15))
    console.log(`${t.seconds.toFixed(1).padStart(7)} s  ${require("path").relative(".", file)}`);
  const sum = (key) => rows.reduce((s, [, t]) => s + t[key], 0);
  console.log(`tests: ${sum("passed")} passed, ${sum("failed")} failed, ${sum("skipped")} skipped`);
' 2>/dev/null) || summary="(no per-file times: the node --test step did not finish)"
echo "$summary"

if [ ${#failed[@]} -gt 0 ]; then
  echo "test.sh: ${#failed[@]} step(s) failed:" >&2
  for name in "${failed[@]}"; do echo "  - $name" >&2; done
  exit 1
fi
