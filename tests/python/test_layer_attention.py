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


def seen(mask, n, pos=None):
    """(n, n) booleans: key j seen by query i (transformers' masks, causal), by the tokens'
    positions (cache_position; default 0 .. n-1)."""
    pos = np.arange(n) if pos is None else np.asarray(pos, dtype=np.int64)
    rows, cols = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    i, j = pos[rows], pos[cols]
    ok = (cols <= rows) & (j <= i)
    if mask["type"] == "sliding":
        ok &= i - j < mask["window"]
    if mask["type"] == "chunked":
        ok &= i // mask["chunkSize"] == j // mask["chunkSize"]
    return ok


def reference(mask, sinks, temperature, rope, probs, pos=None, scale=None, softcap=None):
    """(heads, n, n) logits (masked -inf) or probabilities (masked 0) in float64; RoPE by hand
    (half layout, theta_j = 10000^(-2j/d)); the temperature of each query's position, the logit
    scale (default d^-1/2) and Gemma 2's soft-cap softcap * tanh(x / softcap) before the mask."""
    pos = np.arange(N) if pos is None else np.asarray(pos, dtype=np.int64)
    q = Q.astype(np.float64).reshape(N, HEADS, D)
    k = K.astype(np.float64).reshape(N, HEADS, D)
    if rope:
        theta = 10000.0 ** (-2 * np.arange(D // 2) / D)
        angle = pos[:, None] * theta[None, :]
        cos, sin = np.cos(angle)[:, None, :], np.sin(angle)[:, None, :]

        def rot(x):
            a, b = x[..., : D // 2], x[..., D // 2 :]
            return np.concatenate([a * cos - b * sin, b * cos + a * sin], axis=-1)

        q, k = rot(q), rot(k)
    if temperature:
        t = temperature
        p = pos
        q = q * (1 + t["scale"] * np.log(np.floor((p + t["offset"]) / t["floorScale"]) + 1))[
            :, None, None
        ]
    logits = np.einsum("ihd,jhd->hij", q, k) * (scale if scale else 1 / np.sqrt(D))
    if softcap:
        logits = softcap * np.tanh(logits / softcap)
    visible = seen(mask, N, pos)[None]
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


def test_masks_and_temperature_follow_positions_scale_and_softcap():
    """transformers' masks and Llama 4 / Ministral 3 temperatures use cache positions: offsets
    to 32,750, a stride the chunk does not divide; Gemma 2's scale and soft-cap."""
    spread = lambda start, stride: np.arange(N, dtype=np.int32) * stride + start  # noqa: E731
    cases = [
        dict(pos=spread(20000, 1), mask={"type": "chunked", "chunkSize": 16}),
        dict(
            pos=spread(20000, 1),
            mask={"type": "chunked", "chunkSize": 16},
            temperature={"floorScale": 20010, "scale": 0.1, "offset": 1},
            rope=False,
        ),
        dict(pos=spread(32750, 1), temperature={"floorScale": 16384, "scale": 0.1, "offset": 0}),
        dict(pos=spread(5, 7), mask={"type": "sliding", "window": 20}, sinks=SINKS),
        dict(pos=spread(5, 7), mask={"type": "chunked", "chunkSize": 50}),
        dict(scale=0.9, softcap=3.0, mask={"type": "sliding", "window": 9}),
        dict(pos=spread(100, 3), scale=0.9, softcap=3.0),
    ]
    for c in cases:
        mask = c.get("mask", {"type": "full"})
        rope = c.get("rope", True)
        for kernel in ("tiled", "reference"):
            for output in ("logits", "probs"):
                got = hirope.attention(
                    Q,
                    K,
                    positions=c.get("pos"),
                    scheme="rope" if rope else "nope",
                    heads=HEADS,
                    output=output,
                    kernel=kernel,
                    mask=mask,
                    sinks=c.get("sinks"),
                    temperature=c.get("temperature"),
                    scale=c.get("scale"),
                    softcap=c.get("softcap"),
                )
                want = reference(
                    mask,
                    c.get("sinks"),
                    c.get("temperature"),
                    rope,
                    output == "probs",
                    c.get("pos"),
                    c.get("scale"),
                    c.get("softcap"),
                )
                finite = np.isfinite(want)
                assert np.array_equal(np.isfinite(got), finite), (c, kernel, output)
                assert np.max(np.abs(got[finite] - want[finite])) < 2e-5, (c, kernel, output)


def test_positions_that_go_back_under_a_mask_and_bad_softcaps_are_refused():
    back = np.arange(N, dtype=np.int32)
    back[5] = 2
    with pytest.raises(hirope.HiRoPEError, match=r"positions\.token\[5\] = 2 comes after 4"):
        hirope.attention(Q, K, positions=back, heads=HEADS, mask={"type": "sliding", "window": 4})
    negative = np.arange(N, dtype=np.int32) - 3
    with pytest.raises(hirope.HiRoPEError, match=r"must be >= 0, got positions\.token = -3"):
        hirope.attention(Q, K, positions=negative, heads=HEADS, temperature=TEMPERATURE)
    for bad in (0, -1.0, float("nan"), "2"):
        with pytest.raises(hirope.HiRoPEError, match=r"softcap must be a positive finite number"):
            hirope.attention(Q, K, heads=HEADS, softcap=bad)


def test_rotary_last_rotates_the_last_dims_by_hand():
    """MLA (DeepSeek: q = cat(q_nope, q_pe)): the last 4 of 12 dims rotate, adjacent pairs."""
    hd, n = 12, 6
    x = RNG.standard_normal((n, hd)).astype(np.float32)
    token = np.array([0, 3, 7, 100, 2000, 40000], dtype=np.int32)
    scheme = {"type": "rope", "layout": "interleaved", "rotaryFraction": 4 / 12, "rotaryLast": True}
    got = hirope.rotate(x, positions=token, scheme=scheme)
    assert np.array_equal(got[:, :8], x[:, :8])
    for j in range(2):
        angle = token * 10000.0 ** (-2 * j / 4)
        a, b = x[:, 8 + 2 * j].astype(np.float64), x[:, 9 + 2 * j].astype(np.float64)
        assert np.allclose(got[:, 8 + 2 * j], a * np.cos(angle) - b * np.sin(angle), atol=1e-5)
        assert np.allclose(got[:, 9 + 2 * j], a * np.sin(angle) + b * np.cos(angle), atol=1e-5)
