#!/usr/bin/env bash
# Trains one of hirope's code models from scratch: installs Debian's PyTorch (with the pthread OpenBLAS,
# ~8x faster than the reference BLAS) through scripts/setup.sh when missing, then runs the trainer
# (python3 -m training.train) with the model's committed config and manifest
# (models/registry.json names them). About an hour with one thread on this kind of 2-core
# machine; the result replaces models/pybyte.hrm, models/pybyte-vectors.json and
# models/pybyte-training.json (the loss curve, drawn to docs/pybyte-training.svg). Extra
# arguments go to the trainer (--steps, --context, --batch, --threads, --seed, --config,
# --device cuda, --out).
set -euo pipefail
cd "$(dirname "$0")/.."
# scripts/setup.sh installs Debian's PyTorch with the rest of what the project needs.
bash scripts/setup.sh
# --model pyjs-llama2 trains the token model (its tokenizer runs from dist/, so build first:
# npm run build); without it, the registry's default (the byte model). The trainer checks the
# name against the registry.
MODEL=()
if [ "${1:-}" = --model ]; then MODEL=(--model "$2"); shift 2; fi
# Debian's interpreter: its python3-torch is not visible to other Pythons on the PATH.
/usr/bin/python3 -m training.train "${MODEL[@]}" "$@"
# The saved loss curve, drawn for docs/model.md.
node training/plot-training.mjs "${MODEL[@]}"
