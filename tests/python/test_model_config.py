"""hirope.from_config: the config.json reader's Python door (issue 42), against the gallery
(models/configs/), the JS reader (hr.fromConfig, the same setups for every entry) and hostile
input. The reader's rules themselves are tested in tests/native/test_model_config.cpp."""
import json
import math
import os
import re
import subprocess
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if os.path.isdir(os.path.join(ROOT, "build", "python")) and "hirope" not in sys.modules:
    sys.path.insert(0, os.path.join(ROOT, "build", "python"))

import hirope  # noqa: E402

GALLERY = os.path.join(ROOT, "models", "configs")
ENTRIES = json.load(open(os.path.join(GALLERY, "index.json"), encoding="utf-8"))["entries"]
DIST = os.path.join(ROOT, "dist", "index.js")


def path_of(entry):
    return os.path.join(GALLERY, entry["id"] + ".json")


@pytest.mark.parametrize("entry", ENTRIES, ids=[e["id"] for e in ENTRIES])
def test_every_gallery_entry_reads_the_same_from_a_path_text_bytes_and_dict(entry):
    path = path_of(entry)
    text = open(path, encoding="utf-8").read()
    setup = hirope.from_config(path)
    assert hirope.from_config(text) == setup
    assert hirope.from_config(text.encode()) == setup
    assert hirope.from_config(json.loads(text)) == setup
    from pathlib import Path
    assert hirope.from_config(Path(path)) == setup
    assert setup["layerCount"] == len(setup["layers"]) > 0
    # Every warning the index explains is there.
    for w in entry["warnings"]:
        assert any(w["key"] in got for got in setup["warnings"]), (w["key"], setup["warnings"])
    # Each layer's scheme is one every call takes, for that layer's own head dim.
    for layer in setup["layers"]:
        assert layer["attention"]["type"] in ("full", "sliding", "chunked")
        # NoPE included: no frequencies, attention factor 1.
        f = hirope.inverse_frequencies(layer["scheme"], layer["headDim"])
        factor = hirope.attention_factor(layer["scheme"], layer["headDim"])
        if layer["rope"]:
            assert f[0] > 0
            # The rotated dims (DeepSeek's 64 of 192) are the model's, on layers of its head dim.
            if layer["headDim"] == setup["headDim"]:
                assert 2 * len(f) == setup["rotaryDim"]
            assert factor > 0
        else:
            assert layer["scheme"]["type"] == "nope"
            assert len(f) == 0 and factor == 1.0


def test_a_layers_scheme_gives_its_own_frequencies():
    # Gemma 3 27B: sliding layers at base 10,000 (rope_local_base_freq), unscaled; every sixth
    # layer global at base 1,000,000 with linear x8 (transformers: theta_j = base^(-2j/d) / 8).
    setup = hirope.from_config(os.path.join(GALLERY, "gemma-3-27b-it.json"))
    d = setup["headDim"]
    assert d == 128
    kinds = [l["attention"]["type"] for l in setup["layers"]]
    assert kinds == ["full" if (i + 1) % 6 == 0 else "sliding" for i in range(62)]
    local, world = setup["layers"][0], setup["layers"][5]
    assert local["attention"] == {"type": "sliding", "window": 1024}
    f_local = hirope.inverse_frequencies(local["scheme"], d)
    f_global = hirope.inverse_frequencies(world["scheme"], d)
    for j in range(d // 2):
        assert math.isclose(f_local[j], 10000.0 ** (-2 * j / d), rel_tol=1e-12)
        assert math.isclose(f_global[j], 1e6 ** (-2 * j / d) / 8, rel_tol=1e-12)
    # GPT-oss: YaRN x32 from 4,096, sinks, window 128 on every other layer; YaRN's attention
    # factor 0.1 ln(32) + 1.
    gpt = hirope.from_config(os.path.join(GALLERY, "gpt-oss-20b.json"))
    assert [l["sinks"] for l in gpt["layers"]] == [True] * 24
    assert gpt["layers"][0]["attention"] == {"type": "sliding", "window": 128}
    assert gpt["layers"][1]["attention"] == {"type": "full"}
    factor = hirope.attention_factor(gpt["layers"][1]["scheme"], gpt["headDim"], seq_len=131072)
    assert math.isclose(factor, 0.1 * math.log(32) + 1, rel_tol=1e-12)


def test_each_layer_has_transformers_softmax_scale_and_soft_cap():
    # Gemma 2 9B: query_pre_attn_scalar ** -0.5 and attn_logit_softcapping 50 (modeling_gemma2.py).
    g2 = hirope.from_config(os.path.join(GALLERY, "gemma-2-9b.json"))
    assert all(l["scale"] == 256 ** -0.5 and l["softcap"] == 50 for l in g2["layers"])
    # Gemma 3 27B: 168 ** -0.5, no soft-cap.
    g3 = hirope.from_config(os.path.join(GALLERY, "gemma-3-27b-it.json"))
    assert all(l["scale"] == 168 ** -0.5 and "softcap" not in l for l in g3["layers"])
    # DeepSeek-V3 (modeling_deepseek_v3.py): qk_head_dim ** -0.5 * yarn_get_mscale(40, 1) ** 2,
    # and the RoPE dims last (cat(q_pass, q_rot)).
    ds = hirope.from_config(os.path.join(GALLERY, "deepseek-v3.json"))
    mscale = 0.1 * 1.0 * math.log(40) + 1.0
    for l in ds["layers"]:
        assert math.isclose(l["scale"], 192 ** -0.5 * mscale * mscale, rel_tol=1e-14)
        assert l["scheme"]["rotaryLast"] is True
    # Llama: neither key.
    llama = hirope.from_config(os.path.join(GALLERY, "llama-3.1-8b.json"))["layers"][0]
    assert "scale" not in llama and "softcap" not in llama


def test_every_nope_layer_scheme_works_as_it_is():
    smol = hirope.from_config({
        "model_type": "smollm3", "num_hidden_layers": 36, "hidden_size": 2048,
        "num_attention_heads": 16, "rope_theta": 5000000.0,
        "no_rope_layers": [0 if (i + 1) % 4 == 0 else 1 for i in range(36)]})
    scout = hirope.from_config(os.path.join(GALLERY, "llama-4-scout-17b-16e.json"))
    for setup in (scout, smol):
        nope = 0
        for i, layer in enumerate(setup["layers"]):
            assert layer["rope"] == ((i + 1) % 4 != 0)
            f = hirope.inverse_frequencies(layer["scheme"], layer["headDim"], seq_len=100000)
            factor = hirope.attention_factor(layer["scheme"], layer["headDim"], seq_len=100000)
            if layer["rope"]:
                assert 2 * len(f) == setup["rotaryDim"]
            else:
                assert len(f) == 0 and factor == 1.0
                nope += 1
        assert nope == setup["layerCount"] // 4
    with pytest.raises(hirope.HiRoPEError, match="scheme 'alibi' has no rotary frequencies"):
        hirope.inverse_frequencies("alibi", 64)


def test_qwen3_next_linear_attention_layers_are_marked_and_refused_as_a_mask():
    setup = hirope.from_config({
        "model_type": "qwen3_next", "num_hidden_layers": 8, "hidden_size": 2048,
        "num_attention_heads": 16, "head_dim": 256, "full_attention_interval": 4,
        "rope_theta": 10000000, "max_position_embeddings": 262144})
    # partial_rotary_factor left out: Qwen3NextConfig's 0.25 of 256.
    assert setup["rotaryDim"] == 64
    for i, layer in enumerate(setup["layers"]):
        if (i + 1) % 4:
            assert (layer["type"], layer["attention"], layer["rope"]) == (
                "linear_attention", {"type": "linear"}, False)
        else:
            assert (layer["type"], layer["attention"], layer["rope"]) == (
                "full_attention", {"type": "full"}, True)
    q = np.full((4, 256), 0.1, dtype=np.float32)
    with pytest.raises(hirope.HiRoPEError, match=r"mask 'linear' is a linear-attention layer .*no softmax attention map"):
        hirope.attention(q, q, mask=setup["layers"][0]["attention"])


def test_js_and_python_give_identical_setups_for_every_gallery_entry():
    if not os.path.isfile(DIST):
        pytest.skip("dist/index.js is not built")
    script = (
        "import init from './dist/index.js'; import fs from 'node:fs';"
        "const hr = await init(); const index = JSON.parse(fs.readFileSync("
        "'models/configs/index.json', 'utf8'));"
        "const out = {}; for (const e of index.entries) out[e.id] = hr.fromConfig("
        "fs.readFileSync(`models/configs/${e.id}.json`, 'utf8'));"
        "process.stdout.write(JSON.stringify(out));")
    out = subprocess.run(["node", "--input-type=module", "-e", script], cwd=ROOT, check=True,
                         capture_output=True, text=True, timeout=120).stdout
    js = json.loads(out)
    assert sorted(js) == sorted(e["id"] for e in ENTRIES)
    for entry in ENTRIES:
        assert hirope.from_config(path_of(entry)) == js[entry["id"]], entry["id"]


def test_bad_configs_are_hirope_errors_naming_the_key():
    with pytest.raises(hirope.HiRoPEError, match="rope_scaling"):
        hirope.from_config({"model_type": "llama", "hidden_size": 64, "num_attention_heads": 1,
                            "num_hidden_layers": 2, "rope_scaling": {"rope_type": "linear",
                                                                     "factor": -2}})
    with pytest.raises(hirope.HiRoPEError, match="config must be"):
        hirope.from_config(42)
    with pytest.raises(hirope.HiRoPEError, match="cannot read config file .*No such file"):
        hirope.from_config(os.path.join(GALLERY, "no-such-model.json"))
    with pytest.raises(hirope.HiRoPEError, match="config.json"):
        hirope.from_config("{not json")


def test_a_dict_with_numpy_scalars_reads_and_one_with_nan_names_the_key():
    """numpy scalars are the numbers they hold (a config built with numpy); NaN, infinity or an
    object is an error naming its key (both used to be "could not be written as JSON" naming
    none, NaN as an invalid character at a column of text the person never wrote)."""
    base = {"model_type": "llama", "hidden_size": 512, "num_attention_heads": 8,
            "num_hidden_layers": 2, "max_position_embeddings": 4096, "rope_theta": 10000.0}
    plain = hirope.from_config(base)
    numpy_config = dict(base, hidden_size=np.int64(512), num_attention_heads=np.int32(8),
                        rope_theta=np.float64(10000.0), tie_word_embeddings=np.bool_(False))
    assert hirope.from_config(numpy_config) == plain
    for config, where in [
            (dict(base, rope_scaling={"rope_type": "linear", "factor": float("nan")}),
             "rope_scaling.factor is nan"),
            (dict(base, layer_types=["full_attention", float("inf")]), "layer_types[1] is inf"),
            (dict(base, rope_theta=np.float32("nan")), "rope_theta is nan"),
            (dict(base, extra={"deep": [1, {"x": object()}]}), "extra.deep[1].x is <object")]:
        with pytest.raises(hirope.HiRoPEError,
                           match=r"^config could not be written as JSON: " + re.escape(where)):
            hirope.from_config(config)


def test_hostile_configs_are_refused_before_they_cost_memory(tmp_path):
    limit = hirope._hirope.hf_config_max_bytes()
    # A dict whose JSON outgrows the limit: refused while it is being written, not after.
    with pytest.raises(hirope.HiRoPEError, match="over the limit"):
        hirope.from_config({"model_type": "llama", "x": list(range(10 ** 7))})
    with pytest.raises(hirope.HiRoPEError, match="over the limit"):
        hirope.from_config("{" + " " * limit + "}")
    big = tmp_path / "config.json"
    big.write_bytes(b"{" + b" " * (50 * 10 ** 6) + b"}")
    with pytest.raises(hirope.HiRoPEError, match="over the limit"):
        hirope.from_config(str(big))
    deep = {}
    for _ in range(10 ** 5):
        deep = {"a": deep}
    with pytest.raises(hirope.HiRoPEError):
        hirope.from_config(deep)
    with pytest.raises(hirope.HiRoPEError):
        hirope.from_config('{"a":' * 10 ** 5 + "1" + "}" * 10 ** 5)
    with pytest.raises(hirope.HiRoPEError):
        hirope.from_config({"model_type": "llama", "hidden_size": 64, "num_attention_heads": 1,
                            "num_hidden_layers": 10 ** 9})
    with pytest.raises(hirope.HiRoPEError):
        hirope.from_config({"model_type": "llama", "hidden_size": 64, "num_attention_heads": 1,
                            "num_hidden_layers": 2, "rope_theta": float("nan")})
