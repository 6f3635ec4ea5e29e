"""The native Python module (python/, build/python) against the npm package (dist/, WebAssembly)
on real files: token ids of every built-in tokenizer, analyses (positions, units, errors),
attention, rotation and relative distances on every scheme, model losses and generation. The JS
side runs once per session as a subprocess (tests/python/js_reference.mjs).

Run: /usr/bin/python3 -m pytest -q tests/python/test_module*.py (after npm run build)."""

import glob
import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if os.path.isdir(os.path.join(ROOT, "build", "python")) and "hirope" not in sys.modules:
    sys.path.insert(0, os.path.join(ROOT, "build", "python"))

import hirope  # noqa: E402

DIST = os.path.join(ROOT, "dist", "index.js")

# --------------------------------------------------------------------------------------------
# The corpus: a few dozen real files, chosen by a sorted walk (the same every run).


def _pick(pattern, count, lo=1500, hi=16000):
    paths = sorted(p for p in glob.glob(pattern, recursive=True) if os.path.isfile(p))
    out = []
    for p in paths:
        size = os.path.getsize(p)
        if not lo <= size <= hi:
            continue
        try:
            with open(p, "rb") as f:
                data = f.read()
            data.decode("utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        if b"\0" in data or data.startswith(b"\xef\xbb\xbf"):
            continue
        out.append(p)
    step = max(1, len(out) // count)
    return out[::step][:count]


def corpus():
    files = []
    for pattern, language, count in [
        ("/usr/lib/python3.11/*.py", "python", 12),
        (os.path.join(ROOT, "node_modules", "*", "lib", "*.js"), "javascript", 8),
        ("/usr/include/*.h", "c", 8),
        ("/usr/share/go-1.19/src/strings/*.go", "go", 4),
        ("/usr/share/cargo/registry/*/src/*.rs", "rust", 4),
        (os.path.join(ROOT, "node_modules", "**", "*.ts"), "typescript", 3),
        (os.path.join(ROOT, "src", "core", "*.cpp"), "cpp", 3),
    ]:
        files += [(p, language) for p in _pick(pattern, count)]
    return files


FILES = corpus()
TOKENIZERS = [t for t in hirope.tokenizer_names if t != "lexical"]

# Attention cases: every scheme (with scalings), positions from a real analysis.
SCHEMES = [
    "nope",
    "sinusoidal",
    {"type": "sinusoidal", "variant": "fairseq"},
    "rope",
    {"type": "rope", "layout": "interleaved", "rotaryFraction": 0.5},
    {"type": "rope", "scaling": {"type": "linear", "factor": 4}},
    {"type": "rope", "scaling": {"type": "ntk", "factor": 4}},
    {"type": "rope", "scaling": {"type": "dynamic-ntk", "factor": 2, "originalLength": 16}},
    {"type": "rope", "scaling": {"type": "yarn", "factor": 4, "originalLength": 16}},
    {"type": "rope", "scaling": {"type": "llama3", "factor": 8, "originalLength": 16}},
    "xpos",
    "alibi",
    {"type": "rerope", "window": 8},
    {"type": "leaky-rerope", "window": 8, "leakyFactor": 4},
    {"type": "self-extend", "window": 8, "group": 4},
    {"type": "hirope", "ratio": 0.5, "window": 8},
    {"type": "hirope", "levels": 3, "statementRatio": 0.25, "window": 8},
    {"type": "hirope", "segmentSize": 16, "window": 8},
]


def _requests():
    ops = []
    index = {}

    def add(key, op):
        index[key] = len(ops)
        ops.append(op)

    for i, (path, language) in enumerate(FILES):
        for tok in TOKENIZERS:
            add(("encode", i, tok), {"op": "encode", "path": path, "tokenizer": tok})
        for tok in ["lexical", TOKENIZERS[i % len(TOKENIZERS)]]:
            add(("analyze", i, tok, "units"),
                {"op": "analyze", "path": path, "language": language, "tokenizer": tok})
        if i % 4 == 0:
            add(("analyze", i, "cl100k", "segments"),
                {"op": "analyze", "path": path, "language": language, "tokenizer": "cl100k",
                 "hierarchy": "segments", "segmentSize": 32})
    for j, case in enumerate(attention_cases()):
        add(("attention", j), dict(op="attention", **case["js"]))
    for j, case in enumerate(rotate_cases()):
        add(("rotate", j), dict(op="rotate", **case["js"]))
    for j, case in enumerate(distance_cases()):
        add(("distances", j), dict(op="distances", **case["js"]))
    for j, case in enumerate(model_cases()):
        add(("loss", j), dict(op="loss", **case))
    for j, case in enumerate(generate_cases()):
        add(("generate", j), dict(op="generate", **case))
    for j, case in enumerate(logits_cases()):
        add(("logits", j), dict(op="logits", **case))
    for j, case in enumerate(model_attention_cases()):
        add(("modelAttention", j), dict(op="modelAttention", **case))
    return ops, index


def _positions_of(a, n):
    return {"token": a.token[:n], "unit": a.unit[:n], "statement": a.statement[:n]}


def _analysis_positions():
    path = FILES[0][0]
    with open(path, encoding="utf-8") as f:
        text = f.read()
    return hirope.analyze(text, language="python", tokenizer="cl100k")


def attention_cases():
    a = _analysis_positions()
    rng = np.random.default_rng(31)
    cases = []
    n, head_dim = 48, 32
    for s_i, scheme in enumerate(SCHEMES):
        for output, heads in [("probs", 1), ("logits", 2), ("values", 2)]:
            q = rng.standard_normal((n, heads * head_dim)).astype(np.float32)
            k = rng.standard_normal((n, heads * head_dim)).astype(np.float32)
            v = rng.standard_normal((n, heads * head_dim)).astype(np.float32)
            pos = _positions_of(a, n)
            causal = True
            js = {"n": n, "headDim": head_dim, "heads": heads, "q": q.ravel().tolist(),
                  "k": k.ravel().tolist(), "scheme": scheme, "output": output, "causal": causal,
                  "positions": {key: val.tolist() for key, val in pos.items()}}
            if output == "values":
                js["v"] = v.ravel().tolist()
            cases.append({"js": js, "q": q, "k": k, "v": v if output == "values" else None,
                          "positions": pos, "scheme": scheme, "output": output, "heads": heads})
    return cases


def rotate_cases():
    a = _analysis_positions()
    rng = np.random.default_rng(7)
    cases = []
    n, head_dim, heads = 40, 16, 2
    for scheme in SCHEMES:
        for role, branch in [("query", "near"), ("key", "far")]:
            x = rng.standard_normal((n, heads * head_dim)).astype(np.float32)
            pos = _positions_of(a, n)
            js = {"n": n, "headDim": head_dim, "heads": heads, "x": x.ravel().tolist(),
                  "scheme": scheme, "role": role, "branch": branch,
                  "positions": {key: val.tolist() for key, val in pos.items()}}
            cases.append({"js": js, "x": x, "positions": pos, "scheme": scheme, "role": role,
                          "branch": branch, "heads": heads})
    return cases


def distance_cases():
    a = _analysis_positions()
    out = []
    for scheme in SCHEMES:
        if isinstance(scheme, str) and scheme in ("nope", "sinusoidal", "alibi"):
            continue
        if isinstance(scheme, dict) and scheme["type"] == "sinusoidal":
            continue
        pos = _positions_of(a, 30)
        out.append({"js": {"n": 30, "headDim": 16, "scheme": scheme,
                           "positions": {key: val.tolist() for key, val in pos.items()}},
                    "positions": pos, "scheme": scheme})
    return out


def _model_text(i, size):
    with open(FILES[i][0], "rb") as f:
        data = f.read()[:size]
    return data.decode("utf-8", errors="ignore")


def model_cases():
    cases = []
    for i in (0, 3):
        text = _model_text(i, 1200)
        for scheme in ["rope", {"type": "hirope", "ratio": 0.5},
                       {"type": "truncate", "length": 256, "stride": 32},
                       {"type": "truncate", "length": 200},  # the default stride, both packages
                       {"type": "rope", "scaling": {"type": "yarn", "factor": 4}}]:
            cases.append({"model": "pybyte", "text": text, "scheme": scheme})
    text = _model_text(5, 2500)
    for scheme in ["rope", {"type": "hirope", "segmentSize": 16}]:
        cases.append({"model": "pyjs-llama2", "text": text, "scheme": scheme})
    cases.append({"model": "pybyte", "text": _model_text(1, 900), "scheme": "rope",
                  "hierarchy": "statements"})
    return cases


def generate_cases():
    return [
        {"model": "pybyte", "prompt": "def fib(n):\n", "maxBytes": 64, "temperature": 0,
         "seed": 1, "scheme": "rope"},
        {"model": "pybyte", "prompt": "class A:\n    def f(self):\n", "maxBytes": 64,
         "temperature": 0.8, "seed": 5, "scheme": {"type": "hirope"}},
        {"model": "pyjs-llama2", "prompt": "import os\n", "maxBytes": 48, "temperature": 0.8,
         "seed": 2, "scheme": "rope"},
    ]


def logits_cases():
    # Small inputs: a token model's logits are n x 32000 floats, through JSON.
    return [
        {"model": "pybyte", "text": _model_text(0, 160), "scheme": "rope"},
        {"model": "pybyte", "text": _model_text(3, 200),
         "scheme": {"type": "truncate", "length": 64, "stride": 16}},
        {"model": "pyjs-llama2", "text": "import os\nprint(os.getcwd())\n",
         "scheme": {"type": "hirope"}},
    ]


def model_attention_cases():
    return [
        {"model": "pybyte", "text": _model_text(0, 300), "scheme": "rope", "layer": 0, "head": 0},
        {"model": "pybyte", "text": _model_text(3, 300), "scheme": {"type": "hirope"},
         "layer": 1, "head": 2},
        {"model": "pybyte", "text": _model_text(1, 200),
         "scheme": {"type": "sliding-window", "window": 48}, "layer": 2, "head": 1},
        {"model": "pyjs-llama2", "text": _model_text(5, 400),
         "scheme": {"type": "rope", "scaling": {"type": "yarn", "factor": 4}}, "layer": 1,
         "head": 3},
    ]


@pytest.fixture(scope="session")
def js():
    if not os.path.isfile(DIST):
        pytest.skip("dist/index.js is not built (npm run build)")
    ops, index = _requests()
    with tempfile.TemporaryDirectory() as tmp:
        req, out = os.path.join(tmp, "req.json"), os.path.join(tmp, "out.json")
        with open(req, "w", encoding="utf-8") as f:
            json.dump({"ops": ops}, f)
        subprocess.run(["node", os.path.join(ROOT, "tests", "python", "js_reference.mjs"), req,
                        out], check=True, cwd=ROOT, timeout=600)
        with open(out, encoding="utf-8") as f:
            results = json.load(f)["results"]
    for r in results:
        assert not (isinstance(r, dict) and "error" in r), r
    return {key: results[i] for key, i in index.items()}


def _read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


# --------------------------------------------------------------------------------------------
# Parity


def test_corpus_is_real():
    languages = {language for _, language in FILES}
    assert len(FILES) >= 35, FILES
    assert {"python", "javascript", "c", "go", "rust"} <= languages


def test_token_ids_identical_for_every_builtin_tokenizer(js):
    tokens = 0
    for tok in TOKENIZERS:
        t = hirope.load_tokenizer(tok)
        texts = [_read(p) for p, _ in FILES]
        batch = t.encode_batch(texts)
        for i, text in enumerate(texts):
            ids = t.encode(text)
            assert ids.dtype == np.int32
            assert ids.tolist() == js[("encode", i, tok)], (tok, FILES[i][0])
            assert batch[i].tolist() == ids.tolist()
            tokens += ids.shape[0]
    print(f"\nencode parity: {len(FILES)} files x {len(TOKENIZERS)} tokenizers, {tokens} tokens, "
          "0 mismatches")


def test_analyses_identical(js):
    tokens = 0
    count = 0
    for key, expected in js.items():
        if key[0] != "analyze":
            continue
        _, i, tok, hierarchy = key
        path, language = FILES[i]
        a = hirope.analyze(_read(path), language=language, tokenizer=tok, hierarchy=hierarchy,
                           segment_size=32)
        assert a.language == expected["language"] and a.tokenizer == expected["tokenizer"]
        assert a.ids.tolist() == expected["ids"], path
        assert a.starts.tolist() == expected["starts"], path
        assert a.ends.tolist() == expected["ends"], path
        assert a.starts_utf16.tolist() == expected["startsUtf16"], path
        assert a.unit.tolist() == expected["unit"], path
        assert a.statement.tolist() == expected["statement"], path
        assert a.token.tolist() == list(range(len(a)))
        assert [
            {"kind": u.kind, "name": u.name, "nodeType": u.node_type,
             "languageKind": u.language_kind, "start": u.start, "end": u.end,
             "tokens": [u.tokens.start, u.tokens.stop],
             "statements": [u.statements.start, u.statements.stop]}
            for u in a.units
        ] == expected["units"], path
        assert [{"start": e.start, "end": e.end, "missing": e.missing} for e in a.errors] == \
            expected["errors"]
        assert a.has_error == bool(expected["errors"])
        assert a.statements == expected["statements"]
        for u in a.units:  # token ranges: exactly the tokens whose unit is u, and their statements
            mine = np.flatnonzero(a.unit == u.index)
            assert u.tokens == range(int(mine[0]), int(mine[-1]) + 1) if len(mine) else not u.tokens
            s = a.statement[mine]
            assert u.statements == (range(int(s.min()), int(s.max()) + 1) if len(mine) else range(0))
        tokens += len(a)
        count += 1
    print(f"\nanalysis parity: {count} analyses, {tokens} tokens, 0 mismatches")


def _close(got, want, rtol=1e-5, atol=1e-6):
    got = np.asarray(got, dtype=np.float64).ravel()
    want = np.array([float(x) for x in want], dtype=np.float64)  # 'inf', '-inf', 'nan' too
    assert got.shape == want.shape
    assert np.array_equal(np.isnan(got), np.isnan(want))
    assert np.array_equal(np.isinf(got), np.isinf(want))
    finite = np.isfinite(got)
    np.testing.assert_allclose(got[finite], want[finite], rtol=rtol, atol=atol)
    return float(np.max(np.abs(got[finite] - want[finite]), initial=0))


def test_attention_matches(js):
    worst = 0.0
    for j, case in enumerate(attention_cases()):
        out = hirope.attention(case["q"], case["k"], case["v"], positions=case["positions"],
                               scheme=case["scheme"], output=case["output"], heads=case["heads"])
        n = case["q"].shape[0]
        if case["output"] == "values":
            assert out.shape == (n, case["q"].shape[1])
        else:
            assert out.shape == (case["heads"], n, n)
        worst = max(worst, _close(out, js[("attention", j)], rtol=2e-5, atol=2e-6))
    print(f"\nattention parity: {j + 1} cases, max abs difference {worst:.3g}")


def test_rotate_matches(js):
    worst = 0.0
    for j, case in enumerate(rotate_cases()):
        out = hirope.rotate(case["x"], positions=case["positions"], scheme=case["scheme"],
                            role=case["role"], branch=case["branch"], heads=case["heads"])
        worst = max(worst, _close(out, js[("rotate", j)]))
    print(f"\nrotate parity: {j + 1} cases, max abs difference {worst:.3g}")


def test_relative_distances_identical(js):
    for j, case in enumerate(distance_cases()):
        got = hirope.relative_distances(30, 16, positions=case["positions"], scheme=case["scheme"])
        want = js[("distances", j)]
        assert [(b["name"], b["pair_begin"], b["pair_end"]) for b in got] == \
            [(b["name"], b["pairBegin"], b["pairEnd"]) for b in want]
        for b, w in zip(got, want):
            _close(b["distances"], w["distances"], rtol=0, atol=0)


def test_model_loss_matches(js):
    models = {}
    worst = 0.0
    for j, case in enumerate(model_cases()):
        m = models.setdefault(case["model"], hirope.Model.load(case["model"]))
        r = m.loss(case["text"], scheme=case["scheme"], hierarchy=case.get("hierarchy"))
        want = js[("loss", j)]
        assert r.n == want["n"]
        assert r.losses.dtype == np.float32 and r.losses.shape == (want["n"] - 1,)
        # Float rounding apart: the native build's linear layers use fused multiply-adds where the
        # CPU has them (AVX2 + FMA), WebAssembly's a multiply then an add.
        np.testing.assert_allclose(r.losses, want["losses"], rtol=1e-4, atol=1e-5)
        assert r.bits_per_byte == pytest.approx(want["bitsPerByte"], rel=1e-5)
        if want["bitsPerToken"] is not None:
            assert r.bits_per_token == pytest.approx(want["bitsPerToken"], rel=1e-5)
        worst = max(worst, abs(r.bits_per_byte - want["bitsPerByte"]) / want["bitsPerByte"])
    print(f"\nmodel loss parity: {j + 1} cases, max relative difference in bits/byte {worst:.3g}")


def test_generate_matches(js):
    for j, case in enumerate(generate_cases()):
        m = hirope.Model.load(case["model"])
        text = m.generate(case["prompt"], max_bytes=case["maxBytes"],
                          temperature=case["temperature"], seed=case["seed"],
                          scheme=case["scheme"])
        assert text == js[("generate", j)]


def test_model_logits_match(js):
    for j, case in enumerate(logits_cases()):
        m = hirope.Model.load(case["model"])
        got = m.logits(case["text"], scheme=case["scheme"])
        want = np.array(js[("logits", j)], dtype=np.float32)
        n = want.shape[0] // m.config["vocab"]
        assert got.dtype == np.float32 and got.shape == (n, m.config["vocab"])
        np.testing.assert_allclose(got.ravel(), want, rtol=1e-4, atol=1e-4)
        # Row t predicts t + 1: its log-softmax at the next id is minus the loss (in nats).
        r = m.loss(case["text"], scheme=case["scheme"])
        ids = r.tokens["ids"] if r.tokens else np.frombuffer(case["text"].encode(), np.uint8)
        z = got.astype(np.float64)
        logp = z - z.max(1, keepdims=True)
        logp -= np.log(np.exp(logp).sum(1, keepdims=True))
        nll_bits = -logp[np.arange(n - 1), ids[1:]] / np.log(2)
        np.testing.assert_allclose(nll_bits, r.losses, rtol=1e-3, atol=1e-3)


def test_model_attention_matches(js):
    for j, case in enumerate(model_attention_cases()):
        m = hirope.Model.load(case["model"])
        got = m.attention(case["text"], scheme=case["scheme"], layer=case["layer"],
                          head=case["head"])
        want = js[("modelAttention", j)]
        assert got.n == want["n"] and got.matrix.shape == (got.n, got.n)
        assert got.matrix.dtype == np.float32
        np.testing.assert_allclose(got.matrix.ravel(), np.array(want["matrix"], np.float32),
                                   rtol=1e-4, atol=1e-5)
        assert got.positions["unit"].tolist() == want["unit"]
        assert got.positions["statement"].tolist() == want["statement"]
        if want["tokenIds"] is None:
            assert got.tokens is None
        else:
            assert got.tokens["ids"].tolist() == want["tokenIds"]
        # Causal rows of probabilities.
        assert np.all(np.triu(got.matrix, 1) == 0)
        np.testing.assert_allclose(got.matrix.sum(1), 1, rtol=1e-4)


# --------------------------------------------------------------------------------------------
# The API itself


def test_catalogue_is_the_core_table():
    cat = hirope.catalogue
    assert hirope.schemes == [s["name"] for s in cat["schemes"]]
    assert "hirope" in hirope.schemes and "yarn" in hirope.scalings
    names = {p["name"] for p in cat["parameters"]}
    assert {"segmentSize", "ratio", "window", "rotaryFraction", "scaling"} <= names
    assert hirope.languages == [l["name"] for l in cat["languages"]]
    assert [g["name"] for g in cat["gaps"]] == ["own", "next", "previous"]
    assert cat["byteHierarchies"] and cat["contextLimits"]


def test_catalogue_equals_js_catalogue():
    if not os.path.isfile(DIST):
        pytest.skip("dist/index.js is not built")
    script = ("import init from './dist/index.js'; const hr = await init();"
              "process.stdout.write(JSON.stringify(hr.catalogue));")
    out = subprocess.run(["node", "--input-type=module", "-e", script], cwd=ROOT, check=True,
                         capture_output=True, text=True, timeout=120).stdout
    assert json.loads(json.dumps(hirope.catalogue)) == json.loads(out)


def test_a_scaling_written_only_in_the_core_reaches_python():
    # p-RoPE, transformers' "proportional" (Gemma 4), added in src/core alone (no edit in python/):
    # theta_j = 10000^(-2j/8) for j < floor(0.5 * 8 / 2) = 2, else 0.
    assert "proportional" in hirope.scalings
    scheme = {"type": "rope", "scaling": {"type": "proportional", "partialRotaryFactor": 0.5}}
    f = hirope.inverse_frequencies(scheme, 8)
    assert f[0] == 1.0 and abs(f[1] - 0.1) < 1e-15 and f[2:].tolist() == [0.0, 0.0]
    # factor, left out, is 1 (transformers' rope_parameters.get("factor", 1.0)).
    assert hirope.normalize_scheme(scheme)["scaling"] == {
        "type": "proportional", "factor": 1.0, "partialRotaryFactor": 0.5}
    halved = hirope.inverse_frequencies(
        {"type": "rope", "scaling": {"type": "proportional", "partialRotaryFactor": 0.5,
                                     "factor": 2}}, 8)
    assert halved[0] == 0.5 and abs(halved[1] - 0.05) < 1e-15 and halved[2:].tolist() == [0.0, 0.0]
    with pytest.raises(hirope.HiRoPEError,
                       match=r"^scheme\.scaling\.partialRotaryFactor must be in \[0, 1\], got 1\.5$"):
        hirope.inverse_frequencies(
            {"type": "rope", "scaling": {"type": "proportional", "partialRotaryFactor": 1.5}}, 8)


def test_normalize_scheme_defaults_from_the_table():
    s = hirope.normalize_scheme({"type": "rerope"})
    assert s["logN"] is True  # the table's default rule for ReRoPE
    s = hirope.normalize_scheme({"type": "hirope", "levels": 3})
    assert s["statementRatio"] > 0
    assert hirope.normalize_scheme("rope")["base"] == 10000


def test_tokenizer_basics():
    t = hirope.load_tokenizer("cl100k")
    assert t is hirope.load_tokenizer("cl100k")
    assert t.name == "cl100k" and t.size > 100000
    ids = t.encode("héllo wörld")
    assert t.decode(ids) == "héllo wörld"
    assert t.decode(ids.tolist()) == "héllo wörld"
    ids2, starts, ends = t.encode_offsets("héllo")
    assert ids2.tolist() == t.encode("héllo").tolist() and ends[-1] == len("héllo".encode())
    assert t.encode(b"abc").tolist() == t.encode("abc").tolist()
    assert t.encode("").shape == (0,)


def test_tokenizer_json_by_path(tmp_path):
    src = os.path.join(ROOT, "build", "python", "hirope", "data", "llama3.json")
    dst = tmp_path / "tokenizer.json"
    dst.write_bytes(open(src, "rb").read())
    t = hirope.load_tokenizer(str(dst))
    assert t.name.startswith("json-") and len(t.name) == 21
    text = _read(FILES[0][0])
    assert t.encode(text).tolist() == hirope.load_tokenizer("llama3").encode(text).tolist()


def test_analyze_filename_and_offsets():
    code = "def f(x):\n    return 'é' + x\n"
    a = hirope.analyze(code, filename="a.py", tokenizer="llama3")
    assert a.language == "python"
    b = code.encode()
    assert "".join(b[s:e].decode() for s, e in zip(a.starts, a.ends)) in b.decode()
    assert a.texts[0] == "def"
    assert a.units[0].kind == "function" and a.units[0].name == "f"
    assert a.units[0].tokens == range(0, len(a))
    seg = hirope.analyze(code, language="python", hierarchy="segments", segment_size=4)
    assert seg.unit.tolist() == [t // 4 for t in range(len(seg))]


def test_attention_positions_forms():
    rng = np.random.default_rng(1)
    q = rng.standard_normal((10, 8)).astype(np.float32)
    k = rng.standard_normal((10, 8)).astype(np.float32)
    a = hirope.attention(q, k, positions=np.arange(10, dtype=np.int32))
    b = hirope.attention(q, k)
    c = hirope.attention(q, k, positions={"token": list(range(10))})
    assert np.array_equal(a, b) and np.array_equal(a, c)
    np.testing.assert_allclose(b.sum(axis=-1), 1, rtol=1e-5)
    d = hirope.attention(q, k, output="logits")
    assert np.isneginf(d[0, 0, 1]) and np.isfinite(d[0, 1, 0])
    # non-contiguous float32 input is read as its values
    qt = np.asfortranarray(q)
    assert np.array_equal(hirope.attention(qt, k), b)


def test_seeded_qk_matches_js():
    if not os.path.isfile(DIST):
        pytest.skip("dist/index.js is not built")
    script = ("import init from './dist/index.js'; const hr = await init();"
              "const r = hr.qk({ n: 5, headDim: 8, heads: 2, seed: 42 });"
              "process.stdout.write(JSON.stringify(Array.from(r.k)));")
    out = subprocess.run(["node", "--input-type=module", "-e", script], cwd=ROOT, check=True,
                         capture_output=True, text=True, timeout=120).stdout
    r = hirope.qk(5, 8, heads=2, seed=42)
    assert r["k"].ravel().tolist() == json.loads(out)


def test_version_is_package_json_s():
    with open(os.path.join(ROOT, "package.json"), encoding="utf-8") as f:
        assert hirope.__version__ == json.load(f)["version"]
    assert "__version__" in hirope.__all__


def test_submodules_are_modules():
    # hirope.tokenizers is the module (the list of names is hirope.tokenizer_names), so that
    # `import hirope.tokenizers as T` gives it.
    import types

    import hirope.tokenizers as T

    assert isinstance(T, types.ModuleType) and T.load_tokenizer is hirope.load_tokenizer
    for name in ("analysis", "model", "tokenizers"):
        assert isinstance(getattr(hirope, name), types.ModuleType), name
    assert hirope.tokenizer_names[0] == "lexical" and "llama3" in hirope.tokenizer_names


def test_model_attention_and_logits():
    m = hirope.Model.load()
    code = "def f(x):\n    return x\n"
    n = len(code.encode())
    a = m.attention(code, scheme={"type": "hirope"}, layer=1, head=2)
    assert a.n == n and a.matrix.shape == (n, n) and a.tokens is None
    assert a.positions["unit"].shape == (n,)
    assert not np.array_equal(a.matrix, m.attention(code, layer=0, head=0).matrix)
    z = m.logits(code)
    assert z.shape == (n, 256) and z.dtype == np.float32
    with pytest.raises(hirope.HiRoPEError, match=r"head must be an integer in \[0, 3\], got 4"):
        m.attention(code, head=4)
    with pytest.raises(hirope.HiRoPEError, match=r"layer must be an integer in \[0, 2\]"):
        m.attention(code, layer=-1)
    t = hirope.Model.load("pyjs-llama2")
    p = t.positions(code)
    zt = t.logits(p["ids"], scheme={"type": "hirope"},
                  positions={"unit": p["unit"], "statement": p["statement"]})
    assert np.array_equal(zt, t.logits(code, scheme={"type": "hirope"}))
    at = t.attention(code, layer=0, head=1)
    assert at.tokens["ids"].tolist() == p["ids"].tolist() and at.n == p["ids"].shape[0]


def test_model_basics():
    m = hirope.Model.load()
    assert m.config["name"] and m.tokenizer is None
    s = m.scheme({"type": "hirope"})
    assert s["window"] == m.config["training_context"] // 2
    assert s["trainingLength"] == m.config["training_context"]
    # The truncate baseline's default stride is length // 8, the registry's divisor (the
    # evaluation's), not 1 (one forward pass per byte): the core's default, as in the JS package.
    with open(os.path.join(os.path.dirname(__file__), "../../models/registry.json")) as f:
        divisor = json.load(f)["truncate"]["stride_divisor"]
    L = m.config["training_context"]
    assert m.scheme("truncate")["stride"] == L // divisor
    assert m.scheme({"type": "truncate", "length": 100})["stride"] == 100 // divisor
    assert m.scheme({"type": "truncate", "length": 3})["stride"] == 1
    r = m.loss("def f(x):\n    return x\n")
    assert r.losses.shape == (r.n - 1,) and r.bits_per_token is None
    assert np.isclose(r.bits_per_byte, r.losses.astype(np.float64).mean())
    assert m.generate("def f(", max_bytes=0) == ""
    t = hirope.Model.load("pyjs-llama2")
    assert t.tokenizer == "llama2"
    text = "import os\nprint(os.getcwd())\n"
    rt = t.loss(text)
    assert rt.tokens["ids"].shape == (rt.n,) and rt.bits_per_token > 0
    # A token model takes its ids too, with the positions of the text's parse.
    p = t.positions(text)
    ri = t.loss(p["ids"], scheme={"type": "hirope"},
                positions={"unit": p["unit"], "statement": p["statement"]})
    rh = t.loss(text, scheme={"type": "hirope"})
    assert np.array_equal(ri.losses, rh.losses) and ri.bits_per_token == rh.bits_per_token
    with pytest.raises(hirope.HiRoPEError, match="token ids carry no parse"):
        t.loss(p["ids"], scheme="hirope")


def _readme_blocks(readme, marker, language):
    return [b.split("```")[0] for b in readme.split(f"<!-- {marker} -->\n```{language}\n")[1:]]


def test_readme_example_runs(tmp_path, monkeypatch):
    # README "Python" runs as it stands, on the example.py it shows, and prints what it says.
    import contextlib
    import io

    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    blocks = _readme_blocks(readme, "runnable", "python")
    (example,) = _readme_blocks(readme, "example.py", "python")
    (output,) = _readme_blocks(readme, "output", "text")
    assert len(blocks) == 1
    monkeypatch.chdir(tmp_path)
    (tmp_path / "example.py").write_text(example)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(blocks[0], "README.md", "exec"), {})
    # Line ends compared without trailing spaces (the generated text ends in an indent).
    assert [line.rstrip() for line in printed.getvalue().rstrip().splitlines()] == \
        output.rstrip().splitlines()
    # The generated text is code, not the 64 spaces greedy decoding wrote after "def fib(n):".
    assert "def " in printed.getvalue().split("(1, 60, 60)")[1]


def test_stubs_cover_the_native_module():
    with open(os.path.join(os.path.dirname(hirope.__file__), "_hirope.pyi"), encoding="utf-8") as f:
        stub = f.read()
    names = [n for n in dir(hirope._hirope) if not n.startswith("__")]
    assert [n for n in names if not re.search(rf"(def|class) {n}\b", stub)] == []
    assert os.path.isfile(os.path.join(os.path.dirname(hirope.__file__), "py.typed"))


def _runtime_parameters(function):
    """The parameter names of a pybind11 function, from its signature line."""
    line = function.__doc__.splitlines()[0]
    inside = line[line.index("(") + 1:line.rindex(") ->")]
    names, depth, part = [], 0, ""
    for ch in inside + ",":
        if ch == "," and depth == 0:
            part = part.strip()
            if part and part != "*":
                names.append(part.split(":")[0].split("=")[0].strip())
            part = ""
            continue
        depth += ch in "[(" and 1 or ch in "])" and -1 or 0
        part += ch
    return names


def test_stubs_name_the_real_parameters():
    # Every native function takes its parameters by name (no arg0, arg1 ...), the names the
    # stubs give them.
    import ast

    with open(os.path.join(os.path.dirname(hirope.__file__), "_hirope.pyi"), encoding="utf-8") as f:
        tree = ast.parse(f.read())
    stubs = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            stubs[node.name] = node
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef):
                    stubs[f"{node.name}.{item.name}"] = item
    checked = 0
    for key, node in stubs.items():
        owner, _, name = key.rpartition(".")
        runtime = getattr(getattr(hirope._hirope, owner) if owner else hirope._hirope, name)
        if isinstance(runtime, property) or not callable(runtime):
            continue
        got = _runtime_parameters(runtime)
        assert not [n for n in got if re.fullmatch(r"arg\d+", n)], (key, got)
        a = node.args
        want = [x.arg for x in a.posonlyargs + a.args + a.kwonlyargs]
        if got[:1] == ["self"] and want[:1] != ["self"]:
            got = got[1:]
        assert got == want, key
        checked += 1
    assert checked > 20
