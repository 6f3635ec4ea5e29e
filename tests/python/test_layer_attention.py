"""hirope.attention for one layer of a real model (issue 42 section 2): mask, sinks and the query
temperature against a numpy reference written from transformers' definitions
(docs/real-models.md), the options' errors, and gallery layers from hirope.from_config.

Run: PYTHONPATH=build/python /usr/bin/python3 -m pytest -q tests/python/test_layer_attention.py"""

import os
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if os.path.isdir(os.path.join(ROOT, "build", "python")) and "hirope" not in sys.modules:
    sys.path.insert(0, os.path.join(ROOT, "build", "python"))

import hirope  # noqa: E402

N, D, HEADS = 27, 8, 2
RNG = np.random.default_rng(5)
Q = RNG.standard_normal((N, D * HEADS)).astype(np.float32)
K = RNG.standard_normal((N, D * HEADS)).astype(np.float32)
V = RNG.standard_normal((N, D * HEADS)).astype(np.float32)
SINKS = np.array([0.4, -1.1], dtype=np.float32)
TEMPERATURE = {"floorScale": 4, "scale": 0.3, "offset": 1}


def seen(mask, n):
    """(n, n) booleans: key j seen by query i (transformers' masks, causal)."""
    i, j = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    ok = j <= i
    if mask["type"] == "sliding":
        ok &= i - j < mask["window"]
    if mask["type"] == "chunked":
        ok &= i // mask["chunkSize"] == j // mask["chunkSize"]
    return ok


def reference(mask, sinks, temperature, rope, probs):
    """(heads, n, n) logits (masked -inf) or probabilities (masked 0) in float64; RoPE by hand
    (half layout, theta_j = 10000^(-2j/d))."""
    q = Q.astype(np.float64).reshape(N, HEADS, D)
    k = K.astype(np.float64).reshape(N, HEADS, D)
    if rope:
        theta = 10000.0 ** (-2 * np.arange(D // 2) / D)
        angle = np.arange(N)[:, None] * theta[None, :]
        cos, sin = np.cos(angle)[:, None, :], np.sin(angle)[:, None, :]

        def rot(x):
            a, b = x[..., : D // 2], x[..., D // 2 :]
            return np.concatenate([a * cos - b * sin, b * cos + a * sin], axis=-1)

        q, k = rot(q), rot(k)
    if temperature:
        t = temperature
        p = np.arange(N)
        q = q * (1 + t["scale"] * np.log(np.floor((p + t["offset"]) / t["floorScale"]) + 1))[
            :, None, None
        ]
    logits = np.einsum("ihd,jhd->hij", q, k) / np.sqrt(D)
    visible = seen(mask, N)[None]
    logits = np.where(visible, logits, -np.inf)
    if not probs:
        return logits
    column = (sinks.astype(np.float64) if sinks is not None else np.full(HEADS, -np.inf))[
        :, None, None
    ]
    m = np.maximum(logits.max(axis=-1, keepdims=True), column)
    e = np.exp(logits - m)
    total = e.sum(axis=-1, keepdims=True) + np.exp(column - m)
    return e / total


MASKS = [
    {"type": "full"},
    {"type": "sliding", "window": 1},
    {"type": "sliding", "window": 5},
    {"type": "sliding", "window": N + 3},
    {"type": "chunked", "chunkSize": 1},
    {"type": "chunked", "chunkSize": 8},
    {"type": "chunked", "chunkSize": N},
]


@pytest.mark.parametrize("mask", MASKS, ids=lambda m: str(m))
@pytest.mark.parametrize("sinks", [None, SINKS], ids=["no-sinks", "sinks"])
@pytest.mark.parametrize("temperature", [None, TEMPERATURE], ids=["", "temperature"])
@pytest.mark.parametrize("kernel", ["tiled", "reference"])
def test_matches_numpy_reference(mask, sinks, temperature, kernel):
    for rope in (False, True):
        for output in ("logits", "probs"):
            got = hirope.attention(
                Q,
                K,
                heads=HEADS,
                scheme="rope" if rope else "nope",
                mask=mask,
                sinks=sinks,
                temperature=temperature,
                kernel=kernel,
                output=output,
            )
            want = reference(mask, sinks, temperature, rope, output == "probs")
            assert got.shape == (HEADS, N, N)
            np.testing.assert_allclose(got, want, atol=1e-4 if output == "logits" else 1e-5)
    # The outputs are the probabilities times v.
    probs = reference(mask, sinks, temperature, False, True)
    values = hirope.attention(
        Q, K, V, heads=HEADS, scheme="nope", mask=mask, sinks=sinks, temperature=temperature,
        kernel=kernel,
    )
    want = np.einsum("hij,jhd->ihd", probs, V.astype(np.float64).reshape(N, HEADS, D))
    np.testing.assert_allclose(values, want.reshape(N, HEADS * D), atol=1e-5)


def test_python_spellings_and_lists():
    base = hirope.attention(Q, K, heads=HEADS, mask={"type": "chunked", "chunkSize": 4},
                            sinks=SINKS, temperature=TEMPERATURE)
    same = hirope.attention(
        Q, K, heads=HEADS, mask={"type": "chunked", "chunk_size": 4}, sinks=[0.4, -1.1],
        temperature={"floor_scale": 4, "scale": 0.3, "offset": 1},
    )
    np.testing.assert_array_equal(base, same)
    assert (base.sum(axis=-1) < 1).all()


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"mask": {"type": "window"}}, "mask.type must be 'full', 'sliding' or 'chunked'"),
        ({"mask": {"type": "sliding"}}, "mask 'sliding' needs mask.window"),
        ({"mask": {"type": "sliding", "window": 0}}, "mask.window must be an integer >= 1, got 0"),
        ({"mask": {"type": "sliding", "window": 2.5}}, "mask.window must be an integer"),
        ({"mask": {"type": "chunked", "chunkSize": -1}}, "mask.chunkSize must be an integer >= 1"),
        ({"mask": {"type": "full", "window": 3}}, "mask.window is for sliding masks"),
        ({"mask": {"type": "sliding", "widow": 3}}, "mask has an unknown key 'widow'"),
        ({"mask": "sliding"}, "mask must be a dict"),
        ({"mask": {"type": "sliding", "window": 10**400}}, "mask.window must be at most"),
        ({"temperature": {"floorScale": 4, "scale": 0.1, "offset": 10**400}},
         "temperature.offset must be at most"),
        ({"temperature": {"floorScale": 10**400, "scale": 0.1, "offset": 1}},
         "temperature.floorScale must be a number, got an integer of 1329 bits"),
        ({"mask": {"type": "sliding", "window": 3}, "causal": False}, "mask 'sliding' is causal"),
        ({"sinks": True}, "sinks must be an array of numbers"),
        ({"sinks": [1.0]}, "sinks has 1 elements, expected heads = 2"),
        ({"sinks": [1.0, float("nan")]}, "sinks[1] must be a finite number, got NaN"),
        ({"sinks": ["a", "b"]}, "sinks must be an array of numbers"),
        ({"temperature": {"floorScale": 0, "scale": 0.1, "offset": 1}},
         "temperature.floorScale must be a finite number > 0, got 0"),
        ({"temperature": {"floorScale": 4, "scale": -1, "offset": 1}},
         "temperature.scale must be a finite number >= 0, got -1"),
        ({"temperature": {"floorScale": 4, "scale": 0.1, "offset": 0.5}},
         "temperature.offset must be an integer"),
        ({"temperature": {"floorScale": 4, "scale": 0.1}}, "temperature.offset is required"),
        ({"temperature": {"floorScale": 4, "scale": 0.1, "ofset": 1}},
         "temperature has an unknown key 'ofset'"),
        ({"temperature": {"floorScale": 4, "scale": "x", "offset": 1}},
         "temperature.scale must be a number"),
        ({"temperature": 1}, "temperature must be a dict"),
    ],
)
def test_errors(kwargs, message):
    with pytest.raises(hirope.HiRoPEError) as e:
        hirope.attention(Q, K, heads=HEADS, **kwargs)
    assert message in str(e.value)


def test_gallery_layers_run():
    kinds = set()
    for name in ("gemma-3-1b-it", "gpt-oss-20b", "llama-4-scout-17b-16e", "ministral-3-3b"):
        setup = hirope.from_config(os.path.join(ROOT, "models", "configs", name + ".json"))
        done = set()
        for layer in setup["layers"]:
            key = repr((layer["attention"], layer.get("temperature"), layer["sinks"]))
            if key in done:
                continue
            done.add(key)
            kinds.add(layer["attention"]["type"])
            hd, n = layer["headDim"], 20
            q = RNG.standard_normal((n, hd)).astype(np.float32)
            k = RNG.standard_normal((n, hd)).astype(np.float32)
            sinks = [0.25] if layer["sinks"] else None
            args = dict(scheme=layer["scheme"], head_dim=hd, mask=layer["attention"], sinks=sinks,
                        temperature=layer.get("temperature"))
            got = hirope.attention(q, k, **args)
            ref = hirope.attention(q, k, kernel="reference", **args)
            np.testing.assert_allclose(got, ref, atol=1e-5)
            # A window or chunk shrunk to this length shows its mask.
            mask = dict(layer["attention"])
            if "window" in mask:
                mask["window"] = 4
            if "chunkSize" in mask:
                mask["chunkSize"] = 6
            small = hirope.attention(q, k, **{**args, "mask": mask})
            assert (small[0][~seen(mask, n)] == 0).all()
            if sinks:
                assert (small.sum(axis=-1) < 1).all()
            else:
                np.testing.assert_allclose(small.sum(axis=-1), 1, atol=1e-5)
    assert kinds == {"full", "sliding", "chunked"}
