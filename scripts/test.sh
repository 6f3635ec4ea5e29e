#!/usr/bin/env bash
# Runs every test: Biome's lint and format check of the JavaScript, the Catch2 suite natively and
# compiled to WASM (SIMD and scalar builds) under Node, then the Python tests (the module against
# the npm package, the Dask jobs, the trainer), the JS API tests against both builds and the page
# in headless Chromium.
#
# Every step runs even when an earlier one fails, so that one failing step cannot hide the others;
# the run ends with where the time went (each step's seconds, the 15 slowest test files and the 15
# slowest tests), one line per failed step, and exits non-zero if any failed.
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p build
times=build/test-times.txt
: >"$times"

# npm test passes --setup-and-build: setup.sh and build.sh first, timed in the report like the
# steps below, and the run ends at once if either fails (there is nothing to test then).
if [ "${1:-}" = "--setup-and-build" ]; then
  for part in setup build; do
    start=$SECONDS
    bash "scripts/$part.sh" || exit 1
    printf '%6d s  %s\n' $((SECONDS - start)) "$part (scripts/$part.sh)" >>"$times"
  done
fi

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

# Steps that each keep one core busy run in two lanes side by side (the machine CI runs on has two
# cores): a lane runs its steps in turn, each into its own log, printed in order once both lanes end.
logs=build/test-logs
rm -rf "$logs" && mkdir -p "$logs"
lane_step() { # order, name, command...: one step of a lane, its output, status and seconds in $logs
  local order=$1 name=$2; shift 2
  local start=$SECONDS status=0
  "$@" >"$logs/$order.log" 2>&1 || status=$?
  printf '%s\t%s\t%s\n' "$status" $((SECONDS - start)) "$name" >"$logs/$order.step"
}
print_lanes() { # the lanes' steps in their order, as step() prints them
  local file status seconds name
  for file in $(ls "$logs"/*.step | sort -n); do
    IFS=$'\t' read -r status seconds name <"$file"
    echo "== $name"
    cat "${file%.step}.log"
    if [ "$status" != 0 ]; then
      echo "== FAILED: $name"
      failed+=("$name")
    fi
    printf '%6d s  %s\n' "$seconds" "$name" >>"$times"
  done
}

step "lint and format check of the JavaScript (biome ci, as npm run lint)" \
  node_modules/.bin/biome ci --error-on-warnings .
# One packed tarball for every test under tests/package (tests/package/packed.mjs) and one
# Chromium for the browser tests (tools/chromium-server.mjs; its endpoint is the first line it
# prints, read here, so nothing waits on a timer). Both are the run's, removed at its end. Both
# start before the Catch2 and Python lanes and are ready by the node step: packing (gzip of dist/)
# runs beside the lanes instead of after them.
pack_dir=build/package-tests
rm -rf "$pack_dir" && mkdir -p "$pack_dir"
npm pack --pack-destination "$pack_dir" --loglevel=error >"$pack_dir/pack.out" 2>"$pack_dir/pack.err" &
pack_job=$!
coproc CHROMIUM_SERVER { exec node tools/chromium-server.mjs; }
chromium_server=$CHROMIUM_SERVER_PID
read -r HIROPE_CHROMIUM_WS <&"${CHROMIUM_SERVER[0]}" || true
export HIROPE_CHROMIUM_WS

lanes_start=$SECONDS
# The three Catch2 builds run in one lane, pytest in the other (the two lanes' seconds come out
# closest this way: 27 + 45 + 58 s against 138 s in a fresh run here). Each lane writes when it
# ended; the node step below starts as soon as either lane ends, beside the other one, so that
# the second core is not idle for the shorter lane's difference (and pytest's waits on its Dask
# workers and pip are filled).
(
  lane_step 1 "native Catch2 tests ($(uname -m))" ./build/native/hirope_tests --use-colour no
  order=2
  for variant in simd scalar; do
    lane_step $order "Catch2 tests compiled to WASM ($variant)" \
      node --no-experimental-fetch "build/wasm-$variant/hirope_tests.cjs" --use-colour no
    order=$((order + 1))
  done
  echo $SECONDS >"$logs/catch2.end"
) &
catch2_lane=$!
# Debian's interpreter (the one the module is built for, with python3-torch and Dask; a pyenv
# shim may come first on PATH). From the repository root, so the training package imports.
(
  lane_step 4 "Python: the module against the npm package, the Dask jobs, the trainer (pytest tests/python)" \
    env PYTHONPATH=build/python /usr/bin/python3 -m pytest -q -p no:cacheprovider tests/python/
  echo $SECONDS >"$logs/python.end"
) &
python_lane=$!
wait -n "$catch2_lane" "$python_lane"

# The tarball packed beside the lanes: its name is npm pack's last line. A failed pack is a failed
# step with npm's own message, and the packaging tests fail on a tarball that names no file.
if wait "$pack_job"; then
  export HIROPE_PACKED_TARBALL=$PWD/$pack_dir/$(tail -1 "$pack_dir/pack.out")
else
  echo "== FAILED: npm pack"
  cat "$pack_dir/pack.err"
  failed+=("npm pack")
  export HIROPE_PACKED_TARBALL=$PWD/$pack_dir/npm-pack-failed.tgz
fi

# A hung file fails after 10 minutes instead of stalling the run (node's timeout applies to each
# file as a whole). Two files at a time: the browser files wait on Chromium and the packaging
# files on bundlers and npm, so two keep both cores busy; the slowest files go first so that the
# run does not end on one long file alone. Two reporters: TAP on stdout as before, and each file's
# seconds and counts for the report below, whose last line repeats the counts ("tests: N passed,
# N failed, N skipped") so that they close the output.
step "JS API, WebGPU, browser and packaging tests (node --test, two files at a time)" \
  node --test --test-concurrency=2 --test-timeout=600000 \
  --test-reporter=tap --test-reporter-destination=stdout \
  --test-reporter=./scripts/test-times-reporter.mjs --test-reporter-destination=build/test-files.json \
  tests/browser/ tests/webgpu/ tests/package/ tests/js/
# The lanes' output and seconds, in their order, before the node step's line in the report.
node_line=$(tail -1 "$times")
sed -i '$d' "$times"
wait "$catch2_lane" "$python_lane" 2>/dev/null
print_lanes
lanes_end=$(cat "$logs/catch2.end" "$logs/python.end" 2>/dev/null | sort -n | tail -1)
printf '%6d s  %s\n' $((${lanes_end:-$SECONDS} - lanes_start)) "(the Catch2 and Python steps above, in two lanes side by side; the node step started when the first lane ended)" >>"$times"
echo "$node_line" >>"$times"
# Closing the server's stdin closes Chromium; the server may already have ended (no array then).
server_stdin=${CHROMIUM_SERVER[1]:-}
[ -n "$server_stdin" ] && exec {server_stdin}>&-
wait "$chromium_server" 2>/dev/null || true

echo "== where the time went (seconds; the machine's load counts too)"
cat "$times"
echo "== the 15 slowest test files (seconds: the sum of each file's top-level tests)"
summary=$(node -e '
  const files = JSON.parse(require("fs").readFileSync("build/test-files.json", "utf8"));
  const rows = Object.entries(files).sort((a, b) => b[1].seconds - a[1].seconds);
  for (const [file, t] of rows.slice(0, 15))
    console.log(`${t.seconds.toFixed(1).padStart(7)} s  ${require("path").relative(".", file)}`);
  console.log("== the 15 slowest tests (seconds)");
  const tests = rows.flatMap(([file, t]) => t.tests.map((x) => ({ ...x, file })));
  for (const t of tests.sort((a, b) => b.seconds - a.seconds).slice(0, 15))
    console.log(`${t.seconds.toFixed(1).padStart(7)} s  ${require("path").relative(".", t.file)}: ${t.name}`);
  const sum = (key) => rows.reduce((s, [, t]) => s + t[key], 0);
  console.log(`tests: ${sum("passed")} passed, ${sum("failed")} failed, ${sum("skipped")} skipped`);
' 2>/dev/null) || summary="(no per-file times: the node --test step did not finish)"
echo "$summary"

if [ ${#failed[@]} -gt 0 ]; then
  echo "test.sh: ${#failed[@]} step(s) failed:" >&2
  for name in "${failed[@]}"; do echo "  - $name" >&2; done
  exit 1
fi
