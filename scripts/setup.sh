#!/usr/bin/env bash
# Installs what hirope needs to build and test, and does nothing when all of it is present.
# Debian packages: installed with apt-get when run as root (or with passwordless sudo); otherwise
# the exact command is printed. npm packages: the pinned versions of package-lock.json.
set -euo pipefail
cd "$(dirname "$0")/.."

# ccache keeps every compile, so that a fresh clone's build (native, WebAssembly, sanitizer,
# fuzz) reuses the last one's objects (CMakeLists.txt). golang-1.19-src and the librust-*-dev crates are real Go and Rust code for the tokenizer
# checks (tests/js/tokenizer-builtins.test.mjs) and the benchmarks' corpora. python3-torch (with
# the pthread OpenBLAS) runs the trainer's unit tests (tests/python/test_train.py). pybind11-dev
# builds the Python module (python/, found by CMake's find_package(pybind11 CONFIG)); python3-pytest
# runs its tests (tests/python/test_module*.py); python3-venv, -setuptools and -wheel install it
# offline into a virtual environment (README "Python"); python3-dask and python3-distributed run
# the Dask layer over it (python/hirope/corpus.py).
APT_PACKAGES=(cmake g++ make ccache emscripten libeigen3-dev catch2 wabt chromium python3 clang libclang-rt-14-dev libvulkan1
  golang-1.19-src librust-regex-dev librust-syn-dev librust-serde-dev
  python3-torch python3-numpy libopenblas0-pthread
  pybind11-dev python3-pytest python3-venv python3-setuptools python3-wheel python3-dask python3-distributed)

missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  cmd="apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ${missing[*]}"
  if [ "$(id -u)" = 0 ]; then
    echo "setup: installing ${missing[*]}"
    sh -c "$cmd"
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    echo "setup: installing ${missing[*]} with sudo"
    sudo sh -c "$cmd"
  else
    echo "setup: missing Debian packages: ${missing[*]}" >&2
    echo "setup: run as root:  $cmd" >&2
    exit 1
  fi
fi

# npm dependencies, exactly as locked. Install scripts are not needed by any of them.
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "setup: installing npm packages from package-lock.json"
  npm ci --ignore-scripts --no-audit --no-fund
fi
