"""Every error path of the Python module raises hirope.HiRoPEError (a ValueError) with the core's
message (or the binding's, naming the argument), never an abort: bad tokenizer names and files,
languages, analysis options, scheme types, keys, kinds and ranges, dtypes and shapes, positions,
size limits, model names and files.

Run: /usr/bin/python3 -m pytest -q tests/python/test_module_errors.py"""

import os
import re
import signal
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if os.path.isdir(os.path.join(ROOT, "build", "python")) and "hirope" not in sys.modules:
    sys.path.insert(0, os.path.join(ROOT, "build", "python"))

import hirope  # noqa: E402

E = hirope.HiRoPEError
DATA = os.path.join(ROOT, "build", "python", "hirope", "data")


def f32(n, width):
    return np.ones((n, width), dtype=np.float32)


def test_error_class():
    assert issubclass(E, ValueError)
    assert E.__module__.startswith("hirope")


# -- tokenizers ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "statement",
    [
        "import hirope.dask",
        "from hirope import dask",
        "from hirope.dask import positions",
        "import hirope.dask as job",
    ],
)
def test_the_old_module_name_says_what_it_is_now(statement):
    # hirope.dask was renamed hirope.corpus (it shadowed the dask package): its old name fails
    # naming the new one, however it is imported, and the dask package is still dask's.
    with pytest.raises(ModuleNotFoundError, match=r"'hirope\.dask': it is 'hirope\.corpus' now"):
        exec(statement, {})
    assert "hirope.dask" not in sys.modules
    import dask

    assert not dask.__name__.startswith("hirope")


def test_bad_tokenizer_name():
    with pytest.raises(E, match=r"tokenizer must be one of 'lexical', 'cl100k', .*got 'gpt5'"):
        hirope.load_tokenizer("gpt5")
    with pytest.raises(E, match="'lexical' has no vocabulary"):
        hirope.load_tokenizer("lexical")
    with pytest.raises(E, match="tokenizer must be one of"):
        hirope.load_tokenizer(42)


def test_bad_tokenizer_path(tmp_path):
    with pytest.raises(E, match="cannot read tokenizer file .*no such file"):
        hirope.load_tokenizer(str(tmp_path / "missing" / "tokenizer.json"))
    bad = tmp_path / "tokenizer.json"
    bad.write_text('{"model": {"type": "WordPiece"}}')
    with pytest.raises(E, match="tokenizer.json"):
        hirope.load_tokenizer(str(bad))
    bad.write_text("{ not json")
    with pytest.raises(E, match="tokenizer.json"):
        hirope.load_tokenizer(str(bad))


def test_corrupted_vocabulary_file(tmp_path):
    data = open(os.path.join(DATA, "cl100k.bin"), "rb").read()
    for name, body in [("truncated.bin", data[: len(data) // 2]), ("garbage.bin", b"x" * 100),
                       ("flipped.bin", data[:1000] + bytes([data[1000] ^ 1]) + data[1001:])]:
        p = tmp_path / name
        p.write_bytes(body)
        with pytest.raises(E) as e:
            hirope.load_tokenizer(str(p))
        assert str(e.value)


def test_encode_and_decode_errors():
    t = hirope.load_tokenizer("cl100k")
    with pytest.raises(E, match="text must be a str"):
        t.encode(123)
    with pytest.raises(E, match="text must be a str"):
        t.encode(None)
    with pytest.raises(E, match=r"ids\[1\] = -5 is not a token of the 'cl100k' tokenizer"):
        t.decode([1, -5])
    with pytest.raises(E, match=r"ids\[0\] = 999999999 is not a token"):
        t.decode(np.array([999999999], dtype=np.int64))
    with pytest.raises(E, match="ids must be a 1-D array"):
        t.decode([[1, 2]])
    with pytest.raises(E, match="ids must be a 1-D array"):
        t.decode(["a"])
    with pytest.raises(E, match="texts must be a list of strings"):
        t.encode_batch("one string")
    with pytest.raises(E, match=r"texts\[1\] must be a str"):
        t.encode_batch(["a", 2])
    with pytest.raises(E, match="not encodable as UTF-8"):
        t.encode("\ud800")


def test_bytes_that_are_not_utf8_are_refused_naming_the_byte():
    # The messages say "bytes of UTF-8": bytes that are not are refused, at their first bad byte
    # (Python's own decoder decides), where they were tokenized and parsed as they came.
    with pytest.raises(E, match=r"^text is bytes that are not UTF-8: byte 0 \(0xff\) is not part"):
        hirope.load_tokenizer("cl100k").encode(b"\xff\xfe abc")
    with pytest.raises(E, match=r"^code is bytes that are not UTF-8: byte 6 \(0xe9\)"):
        hirope.analyze(b"x = 1\n\xe9", language="python")
    with pytest.raises(E, match=r"^config is bytes that are not UTF-8: byte 30 \(0xff\)"):
        hirope.from_config(b'{"model_type": "llama", "x": "\xff"}')
    # UTF-8 bytes are taken as the str they encode.
    t = hirope.load_tokenizer("cl100k")
    assert list(t.encode("naïve".encode())) == list(t.encode("naïve"))


def test_size_limit_before_work():
    limit = hirope.limits["analysis_max_bytes"]
    big = "x" * (limit + 1)
    # One wording with the JS package's, numbers with thousands separators.
    with pytest.raises(
        E,
        match=rf"^text has {limit + 1:,} characters, over the limit of {limit:,} bytes of UTF-8 "
        r"\(a character is one byte or more\)$",
    ):
        hirope.load_tokenizer("cl100k").encode(big)
    with pytest.raises(E, match=f"code has {limit + 1:,} characters, over the limit of {limit:,}"):
        hirope.analyze(big, language="python")
    # Characters under the limit whose UTF-8 is over it.
    wide = "é" * (limit // 2 + 1)
    with pytest.raises(E, match=rf"^code is {(limit // 2 + 1) * 2:,} bytes of UTF-8, over the limit of {limit:,} bytes$"):
        hirope.analyze(wide, language="python")


# -- analysis --------------------------------------------------------------------------------


def test_analyze_option_errors():
    with pytest.raises(E, match=r"language must be one of 'python', .*got 'cobol'"):
        hirope.analyze("x", language="cobol")
    with pytest.raises(E, match="language \\(or filename\\) is required"):
        hirope.analyze("x")
    with pytest.raises(E, match="cannot detect the language of 'a.cob'"):
        hirope.analyze("x", filename="a.cob")
    with pytest.raises(E, match=r"gap must be one of 'own', 'next', 'previous', got 'after'"):
        hirope.analyze("x", language="python", gap="after")
    with pytest.raises(E, match=r"hierarchy must be one of 'units', 'segments', got 'lines'"):
        hirope.analyze("x", language="python", hierarchy="lines")
    with pytest.raises(E, match="segment_size must be an integer >= 1, got 0"):
        hirope.analyze("x", language="python", segment_size=0)
    with pytest.raises(E, match="descend_classes must be a boolean"):
        hirope.analyze("x", language="python", descend_classes="yes")
    with pytest.raises(E, match="timeout_ms must be a number"):
        hirope.analyze("x", language="python", timeout_ms="soon")
    with pytest.raises(E, match="timeout_ms"):
        hirope.analyze("x", language="python", timeout_ms=-1)
    with pytest.raises(E, match="tokenizer must be one of"):
        hirope.analyze("x", language="python", tokenizer="bpe")
    with pytest.raises(E, match="filename must be a string"):
        hirope.detect_language(3)


def test_parse_timeout_is_an_error():
    # tree-sitter's error recovery is slow on runs of quotes (analysis.h): a 1 ms budget stops it.
    with pytest.raises(E, match="timeout_ms"):
        hirope.analyze('"' * 20000, language="javascript", timeout_ms=1)


# -- schemes ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "scheme, message",
    [
        ({"type": "ropey"}, r"scheme.type must be one of 'nope', .*got 'ropey'"),
        ({}, r"scheme.type must be one of .*got None"),
        (5, r"scheme must be a dict such as \{'type': 'rope'\}"),
        ({"type": "rope", "ratio": 0.5}, r"scheme \(type 'rope'\) has an unknown key 'ratio'"),
        ({"type": "alibi", "base": 2}, r"scheme \(type 'alibi'\) has an unknown key 'base'"),
        ({"type": "nope", "window": 2}, r"\(it takes no parameters\)"),
        ({"type": "hirope", "ratio": "half"}, r"scheme.ratio must be a number, got 'half'"),
        ({"type": "hirope", "ratio": True}, r"scheme.ratio must be a number, got True"),
        ({"type": "hirope", "ratio": 1.5}, r"scheme.ratio must be in \[0, 1\]"),
        ({"type": "hirope", "window": 2.5}, r"scheme.window must be an integer, got 2.5"),
        ({"type": "hirope", "window": 2**40}, r"scheme.window is too large"),
        ({"type": "hirope", "levels": 4}, r"scheme.levels must be 2 or 3"),
        ({"type": "hirope", "segmentSize": 0}, r"scheme.segmentSize must be an integer >= 1"),
        ({"type": "rope", "layout": "diagonal"}, r"scheme.layout must be one of 'interleaved'"),
        ({"type": "rope", "logN": 1}, None),
        ({"type": "rerope", "logN": 1}, r"scheme.logN must be a boolean, got 1"),
        ({"type": "rope", "base": 1}, r"scheme.base must be"),
        ({"type": "rope", "scaling": "yarn"}, r"scheme.scaling must be a dict"),
        ({"type": "rope", "scaling": {"type": "quadratic"}}, r"scheme.scaling.type must be one of"),
        ({"type": "rope", "scaling": {"type": "yarn", "factor": 4}},
         r"scheme.scaling.originalLength must be"),
        ({"type": "rope", "scaling": {"type": "linear"}}, r"scheme.scaling.factor"),
        ({"type": "rope", "scaling": {"type": "linear", "factor": 2, "betaFast": 3}},
         r"scheme.scaling \(type 'linear'\) has an unknown key 'betaFast'"),
        ({"type": "rope", "scaling": {"type": "longrope", "factor": 4, "originalLength": 16,
                                      "shortFactor": [1] * 3, "longFactor": [1] * 3}},
         r"shortFactor"),
        ({"type": "rope", "scaling": {"type": "longrope", "factor": 4, "originalLength": 16,
                                      "shortFactor": ["a"], "longFactor": [1]}},
         r"scheme.scaling.shortFactor\[0\] must be a number"),
        ({"type": "rope", "rotaryFraction": 0}, r"scheme.rotaryFraction"),
    ],
)
def test_scheme_errors(scheme, message):
    q = f32(4, 8)
    if message is None:  # 'rope' takes no logN: an unknown key
        message = r"scheme \(type 'rope'\) has an unknown key 'logN'"
    with pytest.raises(E, match=message):
        hirope.attention(q, q, scheme=scheme)


def test_core_messages_use_the_js_words():
    # The core writes scheme keys as users write them (no rewriter in the binding), and function
    # arguments as Python spells them.
    assert not hasattr(hirope._hirope, "core_message")
    with pytest.raises(E, match=r"^scheme\.scaling\.originalLength must be a number >= 1, got 0$"):
        hirope.inverse_frequencies(
            {"type": "rope", "scaling": {"type": "yarn", "factor": 2, "originalLength": 0}}, 8)
    with pytest.raises(E, match=r"^scheme\.rotaryFraction \* head_dim must leave at least 2"):
        hirope.inverse_frequencies({"type": "rope", "rotaryFraction": 0.1}, 8)


# -- arrays ----------------------------------------------------------------------------------


def test_dtype_and_shape_errors():
    q = f32(6, 8)
    with pytest.raises(E, match=r"q must be a numpy float32 array \(or float64, converted\), got "
                               "dtype int32"):
        hirope.attention(q.astype(np.int32), q)
    with pytest.raises(E, match="k must be a numpy float32 array, got list"):
        hirope.attention(q, q.tolist())
    with pytest.raises(E, match="q must be a numpy float32 array, got list"):
        hirope.attention(q.tolist(), q)
    with pytest.raises(E, match=r"q must be 2-D"):
        hirope.attention(q.ravel(), q)
    with pytest.raises(E, match=r"k has 40 elements, expected n \* heads \* head_dim = 48"):
        hirope.attention(q, f32(5, 8))
    with pytest.raises(E, match=r"v has 8 elements"):
        hirope.attention(q, q, f32(1, 8))
    with pytest.raises(E, match="q has 8 columns, not a multiple of heads = 3"):
        hirope.attention(q, q, heads=3)
    with pytest.raises(E, match="head_dim must be a positive even integer, got 7"):
        hirope.attention(f32(6, 7), f32(6, 7))
    with pytest.raises(E, match="heads must be an integer >= 1"):
        hirope.attention(q, q, heads=0)
    with pytest.raises(E, match=r"n must be at least 1, got 0"):
        hirope.attention(f32(0, 8), f32(0, 8))
    with pytest.raises(E, match=r"x must be a numpy float32 array"):
        hirope.rotate(q.astype(np.complex64))


def test_size_limits_checked_before_allocating():
    n = hirope.limits["max_tokens"] + 1
    with pytest.raises(E, match=f"n must be at most {n - 1}, got {n}"):
        hirope.attention(f32(n, 2), f32(n, 2))
    # 20,000 tokens: 4 * 10^8 probabilities (1.6 GB) is over the output limit: refused at once.
    with pytest.raises(E, match=r"heads \* n \* n = 400000000 exceeds the output limit"):
        hirope.attention(f32(20000, 2), f32(20000, 2))
    with pytest.raises(E, match=r"head_dim must be at most 1024"):
        hirope.attention(f32(2, 2048), f32(2, 2048))
    # Their attention output is 20,000 x 2: no matrix is returned, so no matrix limit applies.
    assert hirope.attention(f32(20000, 2), f32(20000, 2), v=f32(20000, 2),
                            mask={"type": "sliding", "window": 8}).shape == (20000, 2)
    with pytest.raises(E, match=r"n \* n = 400000000 exceeds the output limit"):
        hirope.relative_distances(20000, 8)


def test_the_attention_output_of_a_long_sliding_layer_is_each_windows_average():
    """Values at 20,000 tokens under a sliding window (refused above 16,384 before, as if it
    returned the n x n matrix; JS stopped the module at 32,768). With the same q and k at every
    token, row i >= window weighs v[i - d] by a weight of the distance d alone, so v[j] = j gives
    i minus the same mean distance on every such row: the mean of a short run's last row."""
    n, window = 20000, 64
    q = np.tile(np.array([[0.3, -1.2, 0.8, 0.5]], dtype=np.float32), (n, 1))
    v = np.repeat(np.arange(n, dtype=np.float32)[:, None], 4, axis=1)
    mask = {"type": "sliding", "window": window}
    out = hirope.attention(q, q, v=v, mask=mask)
    short = hirope.attention(q[:window], q[:window], v=v[:window], mask=mask)
    mean_distance = (window - 1) - short[window - 1, 0]
    rows = np.arange(window, n)
    np.testing.assert_allclose(out[window:, 0], rows - mean_distance, rtol=0, atol=2e-3 * n / 1000)
    np.testing.assert_array_equal(out[:, 0], out[:, 3])


def test_attention_option_errors():
    q = f32(6, 8)
    with pytest.raises(E, match="output 'values' needs v"):
        hirope.attention(q, q, output="values")
    with pytest.raises(E, match="output must be 'logits', 'probs' or 'values', got 'scores'"):
        hirope.attention(q, q, output="scores")
    with pytest.raises(E, match="scheme 'hirope' is a windowed scheme, defined for causal"):
        hirope.attention(q, q, scheme="hirope", causal=False)
    with pytest.raises(E, match="causal must be a boolean"):
        hirope.attention(q, q, causal=1)
    with pytest.raises(E, match="scale must be a positive finite number, got -1"):
        hirope.attention(q, q, scale=-1)
    with pytest.raises(E, match="scale must be a positive finite number, got nan"):
        hirope.attention(q, q, scale=float("nan"))
    with pytest.raises(E, match="kernel must be one of 'tiled', 'reference', got 'gpu'"):
        hirope.attention(q, q, kernel="gpu")
    with pytest.raises(E, match=r"role must be one of 'query', 'key', got 'value'"):
        hirope.rotate(q, role="value")
    with pytest.raises(E, match=r"branch must be one of 'near', 'far', got 'middle'"):
        hirope.rotate(q, branch="middle")
    with pytest.raises(E, match=r"scheme 'alibi' has no rotary bands"):
        hirope.relative_distances(4, 8, scheme="alibi")
    with pytest.raises(E, match="non-finite|finite"):
        hirope.rotate(np.full((2, 8), np.nan, dtype=np.float32))


def test_position_errors():
    q = f32(6, 8)
    with pytest.raises(E, match="positions.token has length 5, expected n = 6"):
        hirope.attention(q, q, positions=np.arange(5, dtype=np.int32))
    with pytest.raises(E, match="positions.token must be an array of integers"):
        hirope.attention(q, q, positions=np.arange(6, dtype=np.float32))
    with pytest.raises(E, match=r"positions.unit\[2\] must be a 32-bit integer, got 4294967296"):
        hirope.attention(q, q, positions={"token": np.arange(6),
                                          "unit": np.array([0, 0, 2**32, 0, 0, 0])})
    with pytest.raises(E, match="positions has an unknown key 'units'"):
        hirope.attention(q, q, positions={"token": np.arange(6), "units": np.zeros(6)})
    with pytest.raises(E, match="positions.token is required"):
        hirope.attention(q, q, positions={"unit": np.zeros(6, dtype=np.int32)})
    with pytest.raises(E, match="positions must be an int array"):
        hirope.attention(q, q, positions="0..5")
    with pytest.raises(E, match="positions.unit"):  # HiRoPE needs units: the core says so
        hirope.attention(q, q, scheme="hirope")


# -- models ----------------------------------------------------------------------------------


def test_model_load_errors(tmp_path):
    with pytest.raises(E, match=r"model must be 'pybyte', 'pyjs-llama2' or a path"):
        hirope.Model.load("gpt2")
    with pytest.raises(E, match="cannot read model file"):
        hirope.Model.load(str(tmp_path / "none.hrm"))
    data = open(os.path.join(DATA, "pybyte.hrm"), "rb").read()
    for name, body in [("truncated.hrm", data[: len(data) - 100]), ("garbage.hrm", b"\0" * 64),
                       ("flipped.hrm", data[:5000] + bytes([data[5000] ^ 0xFF]) + data[5001:])]:
        p = tmp_path / name
        p.write_bytes(body)
        with pytest.raises(E) as e:
            hirope.Model.load(str(p))
        assert str(e.value)


def test_files_that_are_not_regular_are_refused_unread(tmp_path):
    """A device, a FIFO or a directory named as a model, tokenizer or config file is refused by its
    kind before it is read: /dev/zero used to be read until the kernel ended the process, and a
    FIFO without a writer blocked for ever (SIGALRM turns such a hang into a failure here)."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)

    def hung(signum, frame):
        raise TimeoutError("blocked on a file that is not regular")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(60)
    try:
        for load, what in [(hirope.Model.load, "model"), (hirope.load_tokenizer, "tokenizer"),
                           (hirope.from_config, "config")]:
            for path, kind in [("/dev/zero", "a character device"), (str(fifo), "a FIFO"),
                               (str(tmp_path), "a directory")]:
                with pytest.raises(E, match=rf"^cannot read {what} file '{re.escape(path)}': it "
                                            rf"is not a regular file \({kind}\)$"):
                    load(path)
        from hirope import eval as hirope_eval

        assert hirope_eval.evaluate_file("pipe", str(fifo), "pybyte", 256, 1, {}, [0, 256]) == {
            "file": "pipe", "skipped": "pipe (not a regular file: a FIFO)", "windows": []}
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def test_a_file_whose_size_says_zero_is_read_only_up_to_the_limit():
    """A kernel pseudo-file reports a size of 0 and then has content: the read stops one byte past
    the limit (the model, tokenizer and config readers and the Dask job share this reader)."""
    from hirope._files import Unreadable, read_regular

    assert os.stat("/proc/self/status").st_size == 0
    assert len(read_regular("/proc/self/status", 1 << 20)) > 64
    with pytest.raises(Unreadable) as e:
        read_regular("/proc/self/status", 64)
    assert (e.value.reason, e.value.detail) == ("size", None)  # its size is not known


@pytest.mark.parametrize("offset", [48, 52, 56, 60, 64])
def test_model_file_with_a_flipped_header_byte(tmp_path, offset):
    # The header's name (length at 48, bytes from 52) is read before the checksum: a flipped byte
    # there was a UnicodeDecodeError.
    for model in ("pybyte.hrm", "pyjs-llama2.hrm"):
        data = open(os.path.join(DATA, model), "rb").read()
        for flip in (0x80, 0xFF, 0x01):
            p = tmp_path / model
            p.write_bytes(data[:offset] + bytes([data[offset] ^ flip]) + data[offset + 1:])
            with pytest.raises(E) as e:
                hirope.Model.load(str(p))
            assert str(e.value)


def test_model_call_errors():
    m = hirope.Model.load("pybyte")
    limit = m.max_input_bytes
    with pytest.raises(E, match=f"code is {limit + 1:,} bytes; the model's limit is {limit:,}"):
        m.loss("x" * (limit + 1))
    with pytest.raises(E, match=r"the code model was trained with RoPE: scheme.type must be one of"):
        m.loss("def f(): pass\n", scheme="alibi")
    with pytest.raises(E, match="scheme.layout must be 'half'"):
        m.loss("def f(): pass\n", scheme={"type": "rope", "layout": "interleaved"})
    with pytest.raises(E, match=r"hierarchy must be one of 'units', 'statements', 'segments'"):
        m.loss("def f(): pass\n", hierarchy="lines")
    with pytest.raises(E, match="language must be one of"):
        m.loss("def f(): pass\n", language="cobol")
    with pytest.raises(E, match=r"scheme.length must be an integer in \[1, 8192\]"):
        m.loss("def f(): pass\n", scheme={"type": "truncate", "length": 0})
    with pytest.raises(E, match=r"scheme \(type 'truncate'\) options has an unknown key 'window'"):
        m.loss("def f(): pass\n", scheme={"type": "truncate", "window": 4})
    with pytest.raises(E, match=r"max_bytes must be an integer in \[0, 8192\]"):
        m.generate("def", max_bytes=-1)
    with pytest.raises(E, match="temperature must be a number"):
        m.generate("def", temperature="hot")
    with pytest.raises(E, match="temperature"):
        m.generate("def", temperature=-1)
    with pytest.raises(E, match="prompt"):
        m.generate("")
    with pytest.raises(E, match="code must be a str or bytes"):
        m.loss(12)


@pytest.mark.parametrize("scaling", ["yarn", "linear", "llama3"])
def test_a_scaling_without_its_factor_says_it_is_required(scaling):
    # The core's message (src/core/schemes.cpp), not "factor must be a positive number, got nan".
    given = {"type": scaling} if scaling == "linear" else {"type": scaling, "originalLength": 4096}
    scheme = {"type": "rope", "scaling": given}
    with pytest.raises(E, match=r"^scheme\.scaling\.factor is required \(a positive number\)$"):
        hirope.inverse_frequencies(scheme, 8)
