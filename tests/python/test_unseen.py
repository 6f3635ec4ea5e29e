"""hirope.unseen_pairs: the core's rule for frequency pairs meeting angles unseen in training
(docs/real-models.md), against counts written here from transformers' modeling_rope_utils formulas
(numpy transcriptions of _compute_linear_scaling_rope_parameters, _compute_yarn_parameters,
_compute_llama3_parameters and _compute_longrope_parameters) on the gallery's configs, and the
arguments it refuses by name."""
import json
import math
import os
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if os.path.isdir(os.path.join(ROOT, "build", "python")) and "hirope" not in sys.modules:
    sys.path.insert(0, os.path.join(ROOT, "build", "python"))

import hirope  # noqa: E402

GALLERY = os.path.join(ROOT, "models", "configs")


def config(name):
    return json.load(open(os.path.join(GALLERY, name + ".json"), encoding="utf-8"))


def plain(base, d):
    return 1.0 / base ** (np.arange(0, d, 2) / d)


def yarn(base, d, factor, original, beta_fast=32.0, beta_slow=1.0, truncate=True):
    def dim(rotations):
        return d * math.log(original / (rotations * 2 * math.pi)) / (2 * math.log(base))

    low, high = dim(beta_fast), dim(beta_slow)
    if truncate:
        low, high = math.floor(low), math.ceil(high)
    low, high = max(low, 0), min(high, d - 1)
    if low == high:
        high += 0.001
    ramp = np.clip((np.arange(d // 2) - low) / (high - low), 0, 1)
    extrapolation_factor = 1 - ramp
    pos = plain(base, d)
    return pos / factor * (1 - extrapolation_factor) + pos * extrapolation_factor


def llama3(base, d, factor, low_freq_factor, high_freq_factor, old_context):
    inv = plain(base, d)
    wavelen = 2 * math.pi / inv
    scaled = np.where(wavelen > old_context / low_freq_factor, inv / factor, inv)
    smooth = (old_context / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor)
    smoothed = (1 - smooth) * scaled / factor + smooth * scaled
    medium = ~(wavelen < old_context / high_freq_factor) & ~(wavelen > old_context / low_freq_factor)
    return np.where(medium, smoothed, scaled)


def expected(trained, now, seen, distance):
    """The rule as docs/real-models.md states it."""
    return int(np.sum((now * distance > trained * (seen + 1)) & (trained * seen < 2 * math.pi)))


def layer_of(name, index=0):
    return hirope.from_config(os.path.join(GALLERY, name + ".json"))["layers"][index]


def test_mistral_at_twice_its_length():
    # theta_j * 32767 < 2 pi from j > 64 ln(32767 / 2 pi) / ln(1e6) = 39.65: 24 of 64.
    u = hirope.unseen_pairs({"type": "rope", "base": 1e6}, 128, 32768, 65536)
    assert (u["count"], u["pairs"], u["rotated"]) == (24, 64, 64)
    assert u["unseen"].dtype == np.bool_
    assert list(np.flatnonzero(u["unseen"])) == list(range(40, 64))
    assert (u["trained_distance"], u["distance"]) == (32767, 65535)
    assert math.isclose(
        u["split_pair"], 64 * math.log(32768 / (2 * math.pi)) / math.log(1e6), rel_tol=1e-12
    )
    assert np.isinf(u["limits"][:40]).all()
    assert np.allclose(u["limits"][40:], plain(1e6, 128)[40:] * 32768, rtol=1e-13)


def test_phi_35_longrope_against_its_short_factors():
    c = config("phi-3.5-mini")
    d = c["hidden_size"] // c["num_attention_heads"]
    base = c.get("rope_theta", 10000.0)
    short = np.array(c["rope_scaling"]["short_factor"])
    long = np.array(c["rope_scaling"]["long_factor"])
    shape = base ** (np.arange(0, d, 2) / d)
    trained, now = 1.0 / (short * shape), 1.0 / (long * shape)
    layer = layer_of("phi-3.5-mini")
    assert layer["attention"] == {"type": "sliding", "window": 262144}
    n = 131072
    want = expected(trained, now, 4095, n - 1)
    assert want == 17
    u = hirope.unseen_pairs(layer["scheme"], layer["headDim"], 4096, n, reach=262144)
    assert u["count"] == want
    assert np.allclose(u["trained_frequencies"], trained, rtol=1e-12)
    assert np.allclose(u["frequencies"], now, rtol=1e-12)
    # Within 4,096 the short factors are what it trained with: nothing.
    assert hirope.unseen_pairs(layer["scheme"], layer["headDim"], 4096, 4096, reach=262144)[
        "count"
    ] == 0


@pytest.mark.parametrize(
    "name, d, base, factor, original, truncate, maximum",
    [
        ("gpt-oss-20b", 64, 150000.0, 32.0, 4096, False, 131072),
        ("deepseek-v3", 64, 10000.0, 40.0, 4096, True, 163840),
        ("ministral-3-3b", 128, 1e6, 16.0, 16384, True, 262144),
    ],
)
def test_yarn_models_at_and_past_their_maximum(name, d, base, factor, original, truncate, maximum):
    layer = layer_of(name, 1 if name == "gpt-oss-20b" else 0)
    assert layer["attention"]["type"] == "full"
    now = yarn(base, d, factor, original, truncate=truncate)
    for n in (maximum, 2 * maximum):
        u = hirope.unseen_pairs(layer["scheme"], layer["headDim"], original, n)
        assert u["count"] == expected(plain(base, d), now, original - 1, n - 1), n
    # YaRN x s over L reaches s * L: nothing unseen at the maximum, some at twice it.
    assert hirope.unseen_pairs(layer["scheme"], layer["headDim"], original, maximum)["count"] == 0
    assert hirope.unseen_pairs(layer["scheme"], layer["headDim"], original, 2 * maximum)["count"] > 0


def test_llama_31_and_gemma_3():
    layer = layer_of("llama-3.1-8b")
    now = llama3(500000.0, 128, 8.0, 1.0, 4.0, 8192)
    u = hirope.unseen_pairs(layer["scheme"], 128, 8192, 131072)
    assert u["count"] == expected(plain(500000.0, 128), now, 8191, 131071) == 29
    # Gemma 3 27B layer 5: linear x8 trained with at 131,072 (its config names no length before
    # it): at 661,900 positions, theta_j / 8 * 131071 < 2 pi from j > 36.44: 27 of 64.
    world = layer_of("gemma-3-27b-it", 5)
    trained = plain(1e6, 128) / 8
    u = hirope.unseen_pairs(world["scheme"], 128, 131072, 661900)
    assert u["count"] == expected(trained, trained, 131071, 661899) == 27
    assert math.ceil(u["split_pair"]) == 37
    # Its local layer (window 1,024) sees no new distance at any length.
    local = layer_of("gemma-3-27b-it", 0)
    assert hirope.unseen_pairs(local["scheme"], 128, 131072, 661900, reach=1024)["count"] == 0


def test_position_interpolation_and_band_distances():
    pi = {"type": "rope", "scaling": {"type": "linear", "factor": 4}}
    # Put on RoPE trained at 128: within range up to 4 * 128 + 1 positions.
    assert hirope.unseen_pairs(pi, 64, 128, 513, scaled_after_training=True)["count"] == 0
    assert hirope.unseen_pairs(pi, 64, 128, 514, scaled_after_training=True)["count"] == 21
    assert hirope.unseen_pairs(pi, 64, 128, 130)["count"] == 26
    h = {"type": "hirope", "ratio": 0.5, "window": 64}
    assert hirope.unseen_pairs(h, 16, 256, 2000, band_distances=[1999, 12])["count"] == 0
    assert hirope.unseen_pairs(h, 16, 256, 2000, band_distances=(1999, 300))["count"] == 4


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: hirope.unseen_pairs("alibi", 64, 10, 10), r"scheme 'alibi' has no rotary"),
        (lambda: hirope.unseen_pairs("rope", 63, 10, 10), r"head_dim must be a positive even"),
        (
            lambda: hirope.unseen_pairs("rope", 64, 0, 10),
            r"^trained_length must be an integer from 1 to 2\^53, got 0$",
        ),
        (lambda: hirope.unseen_pairs("rope", 64, 10, 2.5), r"^length must be an integer"),
        (lambda: hirope.unseen_pairs("rope", 64, 10, 10, reach=-1), r"^reach must be an integer"),
        (
            lambda: hirope.unseen_pairs("rope", 64, 10, 10, band_distances=[1, 2]),
            r"^band_distances must have one entry per band \(1\), got 2$",
        ),
        (
            lambda: hirope.unseen_pairs("rope", 64, 10, 10, band_distances=["x"]),
            r"^band_distances\[0\] must be a finite number >= 0, got 'x'$",
        ),
        (
            lambda: hirope.unseen_pairs("rope", 64, 10, 10, band_distances=[-1.0]),
            r"^band_distances\[0\] must be a finite number >= 0, got -1$",
        ),
        (
            lambda: hirope.unseen_pairs("rope", 64, 10, 10, scaled_after_training=1),
            r"^scaled_after_training must be a boolean, got 1$",
        ),
    ],
)
def test_refuses_by_name(call, message):
    with pytest.raises(hirope.HiRoPEError, match=message):
        call()
