#!/usr/bin/env python3
"""Writes tests/fixtures/real-layers.json: real models' layers with transformers' eager attention probabilities.

The expected values come from tests/python/transformers_reference.py (numpy float64, transformers' own code, the
raw config.json read without hirope), so the JS and native tests can check hr.fromConfig + hr.attention against
the same independent reference as tests/python/test_real_layers.py without Python. Each case: a gallery config id
(models/configs/<id>.json) or an inline config, a layer index, token positions, one head of q and k whose entries
are short decimals (read them as float32: the reference used exactly those float32 values), the sink logit when
the model has sinks, and the (n, n) probabilities row by row (masked = 0).

Run: /usr/bin/python3 tools/write-real-layer-fixture.py [--check]   (--check: fail when the file is stale)
Needs numpy only."""

import argparse
import json
import os
import sys
import zlib

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "python"))

import transformers_reference as reference  # noqa: E402

OUT = os.path.join(ROOT, "tests", "fixtures", "real-layers.json")
GALLERY = os.path.join(ROOT, "models", "configs")
TOLERANCE = 2e-5

GEMMA4 = reference.GEMMA4_CONFIG  # configuration_gemma4.py defaults (transformers_reference)


def span(start, n, stride=1):
    return list(range(start, start + n * stride, stride))


# (id, config, layer, positions, amp): one case per rule, 6 tokens (a window or a chunk boundary inside them)
CASES = [
    ("llama-4-scout/L0/24573", "llama-4-scout-17b-16e", 0, span(24573, 6), 1.0),  # chunk boundary at 24,576
    ("llama-4-scout/L3/32764", "llama-4-scout-17b-16e", 3, span(32764, 6), 1.0),  # NoPE, temperature step at 32,767
    ("gpt-oss-20b/L0/1000s30", "gpt-oss-20b", 0, span(1000, 6, 30), 1.0),  # sinks, window 128 inside
    ("deepseek-v3/L0/30000", "deepseek-v3", 0, span(30000, 6), 1.0),  # MLA, mscale^2
    ("gemma-2-9b/L0/0s900", "gemma-2-9b", 0, span(0, 6, 900), 2.0),  # softcap 50, window 4096 inside
    ("gemma-3-27b/L0/0s250", "gemma-3-27b-it", 0, span(0, 6, 250), 1.0),  # local base 1e4, window 1024 inside
    ("gemma-4/L0/0s120", GEMMA4, 0, span(0, 6, 120), 0.25),  # scale 1.0, window 512 inside
    ("gemma-4/L5/1000", GEMMA4, 5, span(1000, 6), 0.25),  # proportional over global_head_dim 512
    ("phi-3.5-mini/L0/0", "phi-3.5-mini", 0, span(0, 6), 1.0),  # longrope short factors
    ("phi-3.5-mini/L0/4094", "phi-3.5-mini", 0, span(4094, 6), 1.0),  # longrope long factors
    ("ministral-3-3b/L0/32764", "ministral-3-3b", 0, span(32764, 6), 1.0),  # temperature step at 32,768
]


def short(values, decimals):
    """float32 numbers written with a few decimals (the JSON text is the exact input)."""
    return np.round(values, decimals).astype(np.float32)


def build():
    cases = []
    for case_id, config, layer, positions, amp in CASES:
        raw = config
        if isinstance(config, str):
            with open(os.path.join(GALLERY, config + ".json"), encoding="utf-8") as f:
                raw = json.load(f)
        spec = reference.layer_spec(raw, layer)
        rng = np.random.default_rng(zlib.crc32(case_id.encode()))
        n, d = len(positions), spec.head_dim
        decimals = 1 if amp >= 1 else 2
        q = short(rng.standard_normal((n, d)) * amp, decimals)
        k = short(rng.standard_normal((n, d)) * amp, decimals)
        sinks = short(rng.standard_normal(1), decimals) if spec.sinks else None
        probs = reference.layer_attention(raw, layer, q, k, positions, sinks)[0]
        cases.append({
            "id": case_id,
            "config": config,
            "layer": layer,
            "positions": positions,
            "heads": 1,
            "headDim": d,
            "reference": reference.describe(spec, max(positions) + 1),
            "q": [round(float(v), decimals) for v in q.reshape(-1)],
            "k": [round(float(v), decimals) for v in k.reshape(-1)],
            "sinks": None if sinks is None else [round(float(v), decimals) for v in sinks],
            "probs": [[float(f"{v:.12g}") for v in row] for row in probs],
        })
    return {
        "description": (
            "Real models' layers: transformers' eager attention probabilities (heads = 1, masked = 0) for hirope's "
            "config reader and layer attention. config: a models/configs id or an inline config.json; q and k: "
            "n * headDim values, row-major, read as float32; sinks: the sink logit when the model has sinks. "
            "Written by tools/write-real-layer-fixture.py from tests/python/transformers_reference.py (numpy "
            "float64 from transformers' own code; it never reads hirope's output)."),
        "tolerance": TOLERANCE,
        "cases": cases,
    }


def text(data):
    return json.dumps(data, indent=None, separators=(",", ":")) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail when the file differs from what would be written")
    args = parser.parse_args()
    new = text(build())
    if args.check:
        old = open(OUT, encoding="utf-8").read() if os.path.exists(OUT) else ""
        if old != new:
            sys.exit(f"{os.path.relpath(OUT, ROOT)} is stale: run /usr/bin/python3 tools/write-real-layer-fixture.py")
        return
    with open(OUT, "w", encoding="utf-8") as f:
        f.write(new)
    print(f"wrote {os.path.relpath(OUT, ROOT)} ({len(new)} bytes, {len(CASES)} cases)")


if __name__ == "__main__":
    main()
