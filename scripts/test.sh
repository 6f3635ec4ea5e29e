#!/usr/bin/env bash
# Runs every test: Biome's lint and format check of the JavaScript, the Catch2 suite natively and
# compiled to WASM (SIMD and scalar builds) under Node, then the Python tests (the module against
# the npm package, the Dask jobs, the trainer), the JS API tests against both builds and the page
# in headless Chromium.
#
# Every step runs even when an earlier one fails, so that one failing step cannot hide the others;
# the run ends with one line per failed step and exits non-zero if any failed.
set -uo pipefail
cd "$(dirname "$0")/.."

failed=()
step() { # name, command...
  local name=$1; shift
  echo "== $name"
  if ! "$@"; then
    echo "== FAILED: $name"
    failed+=("$name")
  fi
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
# A hung test fails after 5 minutes instead of stalling the run. Last, so that its summary
# (tests, pass, fail) closes the output.
step "JS API, WebGPU, browser and packaging tests (node --test)" \
  node --test --test-timeout=300000 tests/js/ tests/webgpu/ tests/browser/ tests/package/

if [ ${#failed[@]} -gt 0 ]; then
  echo "test.sh: ${#failed[@]} step(s) failed:" >&2
  for name in "${failed[@]}"; do echo "  - $name" >&2; done
  exit 1
fi
