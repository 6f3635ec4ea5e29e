#!/usr/bin/env bash
# Trains one of hirope's code models from scratch: installs Debian's PyTorch (with the pthread OpenBLAS,
# ~8x faster than the reference BLAS) through scripts/setup.sh when missing, then runs training/train.py with the
# committed config and manifest. About an hour with one thread on this kind of 2-core machine;
# the result replaces models/pybyte.hrm, models/pybyte-vectors.json and
# models/pybyte-training.json (the loss curve, drawn to docs/pybyte-training.svg). Extra
# arguments go to train.py (--steps, --context, --batch, --threads, --seed, --config,
# --device cuda, --out).
set -euo pipefail
cd "$(dirname "$0")/.."
# scripts/setup.sh installs Debian's PyTorch with the rest of what the project needs.
bash scripts/setup.sh
# --model pyjs-llama2 trains the token model (training/config-pyjs.json; its tokenizer runs from
# dist/, so build first: npm run build); the default is the byte model.
MODEL=pybyte
if [ "${1:-}" = --model ]; then MODEL=$2; shift 2; fi
case "$MODEL" in
  pybyte) CONFIG=training/config.json ;;
  pyjs-llama2) CONFIG=training/config-pyjs.json ;;
  *) echo "train-model: --model must be pybyte or pyjs-llama2, got '$MODEL'" >&2; exit 2 ;;
esac
# Debian's interpreter: its python3-torch is not visible to other Pythons on the PATH.
/usr/bin/python3 training/train.py --config "$CONFIG" "$@"
# The saved loss curve, drawn for docs/model.md.
node scripts/plot-training.mjs --model "$MODEL"
