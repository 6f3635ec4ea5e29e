#!/usr/bin/env bash
# Runs every test: Biome's lint and format check of the JavaScript, the Catch2 suite natively and
# compiled to WASM (SIMD and scalar builds) under Node, then the Python tests (the module against
# the npm package, the Dask jobs, the trainer), the JS API tests against both builds and the page
# in headless Chromium.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== lint and format check of the JavaScript (biome ci, as npm run lint)"
node_modules/.bin/biome ci --error-on-warnings .
echo "== native Catch2 tests ($(uname -m))"
./build/native/hirope_tests --use-colour no
for variant in simd scalar; do
  echo "== Catch2 tests compiled to WASM ($variant)"
  node --no-experimental-fetch "build/wasm-$variant/hirope_tests.cjs" --use-colour no
done
echo "== Python: the module against the npm package, the Dask jobs, the trainer (pytest tests/python)"
# Debian's interpreter (the one the module is built for, with python3-torch and Dask; a pyenv
# shim may come first on PATH). From the repository root, so the training package imports.
PYTHONPATH=build/python /usr/bin/python3 -m pytest -q -p no:cacheprovider tests/python/
echo "== JS API, WebGPU, browser and packaging tests (node --test)"
# A hung test fails after 5 minutes instead of stalling the run.
node --test --test-timeout=300000 tests/js/ tests/webgpu/ tests/browser/ tests/package/
