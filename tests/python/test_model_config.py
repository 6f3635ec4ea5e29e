"""hirope.from_config: the config.json reader's Python door (issue 42), against the gallery
(models/configs/), the JS reader (hr.fromConfig, the same setups for every entry) and hostile
input. The reader's rules themselves are tested in tests/native/test_model_config.cpp."""
import json
import math
import os
import subprocess
import sys

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
        if layer["rope"]:
            f = hirope.inverse_frequencies(layer["scheme"], layer["headDim"])
            assert f[0] > 0
            # The rotated dims (DeepSeek's 64 of 192) are the model's, on layers of its head dim.
            if layer["headDim"] == setup["headDim"]:
                assert 2 * len(f) == setup["rotaryDim"]
            assert hirope.attention_factor(layer["scheme"], layer["headDim"]) > 0
        else:
            assert layer["scheme"]["type"] == "nope"


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
    with pytest.raises(hirope.HiRoPEError, match="could not be read"):
        hirope.from_config(os.path.join(GALLERY, "no-such-model.json"))
    with pytest.raises(hirope.HiRoPEError, match="config.json"):
        hirope.from_config("{not json")


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
