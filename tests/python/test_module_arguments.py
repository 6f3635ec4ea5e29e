"""Numbers as Python callers pass them, read one way by every function of the module (the
binding's integer_arg, number_arg and boolean_arg): numpy integers, floats and bools are taken
where Python's are, float64 arrays where float32 ones are wanted, and an integer past 64 bits (or
past a float's range) is a HiRoPEError naming the argument, never a RuntimeError from a cast.

Run: /usr/bin/python3 -m pytest -q tests/python/test_module_arguments.py"""

import os
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if os.path.isdir(os.path.join(ROOT, "build", "python")) and "hirope" not in sys.modules:
    sys.path.insert(0, os.path.join(ROOT, "build", "python"))

import hirope  # noqa: E402

E = hirope.HiRoPEError
CODE = "def f(x):\n    return x + 1\n\n\nclass A:\n    def g(self):\n        return 2\n"


def q64(n=6, width=64, seed=0):
    return np.random.default_rng(seed).standard_normal((n, width)).astype(np.float32)


# -- integers past 64 bits ---------------------------------------------------------------------

HUGE = 10**30


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: hirope.relative_distances(HUGE, 64), r"n must be at most \d+, got 10{30}$"),
        (lambda: hirope.relative_distances(-HUGE, 64), r"n must be at least 1, got -10{30}$"),
        (lambda: hirope.qk(HUGE, 64), r"n must be at most \d+, got 10{30}"),
        (lambda: hirope.qk(4, 64, seed=HUGE), r"seed must be at most 9223372036854775807"),
        (lambda: hirope.qk(4, 64, heads=HUGE), r"heads must be at most \d+"),
        (lambda: hirope.attention(q64(), q64(), head_dim=HUGE),
         r"head_dim must be at most 1024, got 10{30}"),
        (lambda: hirope.attention(q64(), q64(), heads=HUGE), r"heads must be at most \d+"),
        (lambda: hirope.rotate(q64(), head_dim=HUGE), r"head_dim must be at most 1024"),
        (lambda: hirope.bands("rope", HUGE), r"head_dim must be at most 1024, got 10{30}"),
        (lambda: hirope.inverse_frequencies("rope", 64, HUGE), r"seq_len must be at most \d+"),
        (lambda: hirope.analyze(CODE, language="python", segment_size=10**20),
         r"segment_size must be at most 9223372036854775807, got 10{20}"),
        (lambda: hirope.analyze(CODE, language="python", timeout_ms=10**400),
         r"timeout_ms must be a number of milliseconds >= 0 \(0: no limit\), got an integer of "
         r"1329 bits \(past a float's range\)"),
        (lambda: hirope.parse(CODE, "python", timeout_ms=-(10**400)),
         r"timeout_ms must be a number .*got a negative integer of 1329 bits"),
        (lambda: hirope.attention(q64(), q64(), scale=10**400), r"scale must be a positive finite"),
        (lambda: hirope.attention(q64(), q64(), scheme={"type": "hirope", "segmentSize": 10**400}),
         r"scheme.segmentSize is too large: an integer of 1329 bits"),
        (lambda: hirope.attention(q64(), q64(), scheme={"type": "hirope", "window": 10**400}),
         r"scheme.window is too large: an integer of 1329 bits"),
        (lambda: hirope.attention(q64(), q64(), scheme={"type": "rope", "base": -(10**400)}),
         r"scheme.base is too small: a negative integer of 1329 bits"),
        (lambda: hirope.Model.load().loss(CODE, scheme={"type": "hirope", "segmentSize": HUGE}),
         r"segment_size must be at most 1073741824, got 10{30}"),
        (lambda: hirope.Model.load().generate("def", max_bytes=HUGE),
         r"max_bytes must be at most 8192, got 10{30}"),
        (lambda: hirope.Model.load().generate("def", seed=HUGE), r"seed must be at most \d+"),
        (lambda: hirope.Model.load().generate("def", temperature=10**400),
         r"temperature must be a number, got an integer of 1329 bits"),
    ],
)
def test_integers_past_64_bits_are_hirope_errors(call, message):
    with pytest.raises(E, match=message):
        call()


def test_a_huge_segment_size_is_one_segment():
    # segmentSize only derives positions.unit = floor(token / segmentSize): 10**30 puts every
    # token in unit 0, as the JS API does, instead of overflowing the conversion.
    q = q64(8)
    huge = hirope.attention(q, q, scheme={"type": "hirope", "segmentSize": 10**30, "window": 4})
    one = hirope.attention(q, q, positions={"token": np.arange(8), "unit": np.zeros(8, int)},
                           scheme={"type": "hirope", "window": 4})
    assert np.array_equal(huge, one)


# -- numpy scalars and arrays ------------------------------------------------------------------


def test_numpy_integers_are_integers():
    for kind in (np.int64, np.int32, np.uint16, np.int8):
        assert np.array_equal(hirope.qk(kind(8), kind(64), heads=kind(2), seed=kind(3))["q"],
                              hirope.qk(8, 64, heads=2, seed=3)["q"])
    q = q64(6, 128)
    assert np.array_equal(hirope.attention(q, q, heads=np.int64(2), head_dim=np.int64(64)),
                          hirope.attention(q, q, heads=2, head_dim=64))
    assert np.array_equal(hirope.rotate(q, heads=np.int32(2), head_dim=np.int32(64)),
                          hirope.rotate(q, heads=2, head_dim=64))
    hs = {"type": "hirope", "segmentSize": 2}
    got = hirope.relative_distances(np.int64(6), np.int64(64), scheme=hs)
    want = hirope.relative_distances(6, 64, scheme=hs)
    assert [b["name"] for b in got] == [b["name"] for b in want]
    assert all(np.array_equal(a["distances"], b["distances"], equal_nan=True)
               for a, b in zip(got, want))
    assert hirope.bands("hirope", np.int64(64)) == hirope.bands("hirope", 64)
    assert np.array_equal(hirope.inverse_frequencies("rope", np.int64(64), np.int64(100)),
                          hirope.inverse_frequencies("rope", 64, 100))
    a = hirope.analyze(CODE, language="python", hierarchy="segments", segment_size=np.int64(4))
    b = hirope.analyze(CODE, language="python", hierarchy="segments", segment_size=4)
    assert np.array_equal(a.unit, b.unit)
    s = {"type": "hirope", "segmentSize": np.int64(4), "window": np.int32(3)}
    assert np.array_equal(hirope.attention(q, q, scheme=s),
                          hirope.attention(q, q, scheme={"type": "hirope", "segmentSize": 4,
                                                         "window": 3}))


def test_numpy_floats_and_bools():
    q = q64()
    assert np.array_equal(hirope.attention(q, q, scale=np.float32(0.125)),
                          hirope.attention(q, q, scale=float(np.float32(0.125))))
    assert np.array_equal(hirope.attention(q, q, scale=np.float64(0.1)),
                          hirope.attention(q, q, scale=0.1))
    assert np.array_equal(hirope.attention(q, q, scale=np.int64(1)),
                          hirope.attention(q, q, scale=1))
    assert np.array_equal(hirope.attention(q, q, causal=np.bool_(False)),
                          hirope.attention(q, q, causal=False))
    assert np.array_equal(hirope.attention(q, q, causal=np.bool_(True)),
                          hirope.attention(q, q, causal=True))
    a = hirope.analyze(CODE, language="python", descend_classes=np.bool_(True),
                       timeout_ms=np.float32(5000))
    assert a.units == hirope.analyze(CODE, language="python", descend_classes=True).units
    assert hirope.parse(CODE, "python", timeout_ms=np.int64(0)) is False
    s = {"type": "rope", "base": np.float32(500.0), "scaling": {"type": "yarn",
                                                               "factor": np.float64(4),
                                                               "originalLength": np.int64(16)}}
    assert np.array_equal(hirope.inverse_frequencies(s, 64),
                          hirope.inverse_frequencies({"type": "rope", "base": 500.0, "scaling": {
                              "type": "yarn", "factor": 4, "originalLength": 16}}, 64))
    r = {"type": "rerope", "window": 4, "logN": np.bool_(True)}
    assert hirope.normalize_scheme(r)["logN"] is True


def test_numpy_scalars_in_the_model():
    m = hirope.Model.load()
    want = m.generate("def f(", max_bytes=8, temperature=0.5, seed=3)
    assert m.generate("def f(", max_bytes=np.int64(8), temperature=np.float32(0.5),
                      seed=np.uint32(3)) == want
    assert m.generate("def f(", max_bytes=8, temperature=np.float64(0.5), seed=3) == want
    r = m.loss(CODE, hierarchy="segments", segment_size=np.int16(16),
               descend_classes=np.bool_(False))
    assert np.array_equal(r.losses, m.loss(CODE, hierarchy="segments", segment_size=16).losses)
    a = m.attention(CODE, layer=np.int64(1), head=np.int32(2))
    assert np.array_equal(a.matrix, m.attention(CODE, layer=1, head=2).matrix)


def test_float64_arrays_are_converted_once():
    q, k, v = q64(seed=1), q64(seed=2), q64(seed=3)
    want = hirope.attention(q, k, v)
    got = hirope.attention(q.astype(np.float64), k.astype(np.float64), v.astype(np.float64))
    assert got.dtype == np.float32 and np.array_equal(got, want)
    assert np.array_equal(hirope.rotate(q.astype(np.float64), scheme="rope"),
                          hirope.rotate(q, scheme="rope"))
    # Not C-contiguous float64 too (a transposed view).
    t = np.ascontiguousarray(q.T).astype(np.float64).T
    assert np.array_equal(hirope.attention(t, k), hirope.attention(q, k))
    # Integers are not floats: refused, as a JS Int32Array is.
    with pytest.raises(E, match="q must be a numpy float32 array .*got dtype int64"):
        hirope.attention(np.ones((4, 64), np.int64), np.ones((4, 64), np.float32))


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: hirope.qk(8.0, 64), r"n must be an integer, got 8.0"),
        (lambda: hirope.qk(np.float64(8), 64), r"n must be an integer, got 8.0"),
        (lambda: hirope.qk(True, 64), r"n must be an integer, got True"),
        (lambda: hirope.qk(np.bool_(True), 64), r"n must be an integer, got True"),
        (lambda: hirope.qk(8, 64, seed=np.int64(-1)),
         r"seed must be a non-negative integer, got -1"),
        (lambda: hirope.attention(q64(), q64(), causal=1), r"causal must be a boolean, got 1"),
        (lambda: hirope.attention(q64(), q64(), causal=np.int64(1)),
         r"causal must be a boolean, got 1"),
        (lambda: hirope.attention(q64(), q64(), scale=np.bool_(True)),
         r"scale must be a positive finite number, got True"),
        (lambda: hirope.attention(q64(), q64(), scale=np.float32(-0.5)),
         r"scale must be a positive finite number, got -0.5"),
        (lambda: hirope.attention(q64(), q64(), heads=np.float64(2)),
         r"heads must be an integer >= 1, got 2.0"),
        (lambda: hirope.analyze(CODE, language="python", descend_classes=np.int64(0)),
         r"descend_classes must be a boolean, got 0"),
        (lambda: hirope.analyze(CODE, language="python", segment_size=np.int64(0)),
         r"segment_size must be an integer >= 1, got 0"),
        (lambda: hirope.Model.load().generate("def", temperature=np.bool_(True)),
         r"temperature must be a number, got True"),
        (lambda: hirope.Model.load().attention(CODE, layer=np.int64(99)),
         r"layer must be an integer in \[0, \d\], got 99"),
    ],
)
def test_messages_name_what_was_wrong(call, message):
    # The value in the message is the one given, and the message never contradicts it (it said
    # "n must be an integer, got 8" for np.int64(8)).
    with pytest.raises(E, match=message):
        call()


def test_the_readers_are_the_module_s():
    # The package's Python layer reads numbers through the binding's readers: one rule.
    assert hirope._hirope.as_integer(np.int64(5), "x", 0, 9) == 5
    assert hirope._hirope.as_number(np.float32(0.5), "x", "a number") == 0.5
    assert hirope._hirope.as_boolean(np.bool_(True), "x") is True
    with pytest.raises(E, match=r"x must be at most 9, got 10"):
        hirope._hirope.as_integer(10, "x", 0, 9)
