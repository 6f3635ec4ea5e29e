#!/usr/bin/env bash
# The developers' inner loop (npm run test:quick, a few minutes): Biome's lint and format check,
# an incremental build, the native Catch2 suite, the JS API tests on the SIMD build only, and the
# test files that changed since the base (default main; HIROPE_BASE=REV) or are uncommitted, each
# on both builds. npm test stays the complete run (both builds, Python, browsers, packaging) and
# the one CI calls.
set -uo pipefail
cd "$(dirname "$0")/.."

failed=()
step() { # name, command...
  local name=$1; shift
  local start=$SECONDS
  echo "== $name"
  "$@" || failed+=("$name")
  echo "== $((SECONDS - start)) s: $name"
}

step "lint and format check (biome ci)" node_modules/.bin/biome ci --error-on-warnings .
mkdir -p build
if ! bash scripts/build.sh >build/quick-build.log 2>&1; then
  tail -30 build/quick-build.log
  echo "test-quick: the build failed (build/quick-build.log)" >&2
  exit 1
fi
step "native Catch2 tests" ./build/native/hirope_tests --use-colour no
# The JS API: every tests/js file that loads the builds through support/both-builds.mjs, but the
# properties, which compare the two builds with each other (npm test runs them).
api=$(grep -l "support/both-builds.mjs" tests/js/*.test.mjs | grep -v '/properties\.test\.mjs$')
# shellcheck disable=SC2086
step "JS API tests on the SIMD build" env HIROPE_BUILDS=wasm-simd node --test $api

base=$(git merge-base HEAD "${HIROPE_BASE:-main}" 2>/dev/null || git rev-parse HEAD)
changed=$({ git diff --name-only "$base"; git ls-files --others --exclude-standard; } |
  grep -E '^tests/(js|browser|webgpu|package)/.*\.test\.mjs$|^tests/python/test_.*\.py$' | sort -u |
  while read -r f; do [ -f "$f" ] && echo "$f"; done)
js=$(grep '\.mjs$' <<<"$changed" || true)
py=$(grep '\.py$' <<<"$changed" || true)
# shellcheck disable=SC2086
[ -n "$js" ] && step "changed test files since $(git rev-parse --short "$base"): JS" node --test $js
# shellcheck disable=SC2086
[ -n "$py" ] && step "changed test files: Python" \
  env PYTHONPATH=build/python /usr/bin/python3 -m pytest -q -p no:cacheprovider $py
[ -z "$changed" ] && echo "== no test file changed since $(git rev-parse --short "$base")"

if [ ${#failed[@]} -gt 0 ]; then
  echo "test-quick: ${#failed[@]} step(s) failed:" >&2
  for name in "${failed[@]}"; do echo "  - $name" >&2; done
  exit 1
fi
echo "test-quick: every step passed"
