"""The checkpoint reference (tests/python/checkpoint_reference.py) against hirope's own models (issue 51).

hirope's two code models are llama-architecture decoders. Each, exported as a Hugging Face checkpoint
(config.json and model.safetensors, F16 and F32), runs through the reference's float64 transcription of
transformers' LlamaForCausalLM; its logits must equal hirope.Model.load's on the same ids within 2e-3 of their range,
and one layer's attention within 1e-4. This holds the reference (and the exporter) to a forward that is already
tested, before hirope's own checkpoint forward exists to be held to it: the later tests of that forward compare it
with this reference on random checkpoints of every architecture.

The safetensors writer and reader round-trip every dtype exactly (BF16 by the rounding torch uses), and the written
bytes follow the format's description (the header length, the padded JSON, offsets that tile the data area).

Run: PYTHONPATH=build/python /usr/bin/python3 -m pytest -q -p no:cacheprovider tests/python/test_checkpoint_reference.py"""

import json
import os
import struct
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))
import checkpoint_reference as ref  # noqa: E402

import hirope  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CODE = open(os.path.join(ROOT, "python", "hirope", "model.py"), encoding="utf-8").read()[:4000]


def test_safetensors_round_trip_and_layout(tmp_path):
    rng = np.random.default_rng(51)
    tensors = {"b.weight": rng.standard_normal((3, 5)), "a": rng.standard_normal((7,)), "scalar": np.array(2.5),
               "empty": np.zeros((0, 4))}
    for dtype in ("F32", "F16", "BF16"):
        path = tmp_path / f"t-{dtype}.safetensors"
        ref.write_safetensors(str(path), tensors, dtype, {"format": "pt"})
        blob = path.read_bytes()
        (n,) = struct.unpack("<Q", blob[:8])
        assert n % 8 == 0 and blob[8 + n - 1:8 + n] in (b" ", b"}")
        header = json.loads(blob[8:8 + n])
        assert header["__metadata__"] == {"format": "pt"}
        spans = sorted(tuple(e["data_offsets"]) for k, e in header.items() if k != "__metadata__")
        assert spans[0][0] == 0 and spans[-1][1] == len(blob) - 8 - n
        assert all(a[1] == b[0] for a, b in zip(spans, spans[1:])), "the tensors tile the data area"
        back = ref.read_safetensors(str(path))
        assert set(back) == set(tensors)
        for name, array in tensors.items():
            assert back[name].shape == np.shape(array)
            if dtype == "F32":
                expected = np.asarray(array, dtype=np.float32)
            elif dtype == "F16":
                expected = np.asarray(array, dtype=np.float16)
            else:
                expected = np.asarray(array, dtype=np.float64)
                # bfloat16: 8 bits of mantissa, rounded to nearest even
                assert np.all(np.abs(back[name] - expected) <= np.abs(expected) * 2.0 ** -8)
                continue
            np.testing.assert_array_equal(back[name], expected.astype(np.float64))
    # BF16 rounding as torch rounds: 1 + 2^-8 is a tie (to even: 1), 1 + 3 * 2^-8 rounds up to 1 + 2^-6
    path = tmp_path / "ties.safetensors"
    ref.write_safetensors(str(path), {"t": np.array([1 + 2.0 ** -8, 1 + 3 * 2.0 ** -8, -2.0])}, "BF16")
    np.testing.assert_array_equal(ref.read_safetensors(str(path))["t"], [1.0, 1 + 2.0 ** -6, -2.0])


@pytest.mark.parametrize("name,dtype", [("pybyte", "F16"), ("pybyte", "F32"), ("pyjs-llama2", "F16")])
def test_reference_forward_matches_hirope_own_model(tmp_path, name, dtype):
    hrm = os.path.join(ROOT, "models", f"{name}.hrm")
    config = ref.export_hrm_as_llama(hrm, str(tmp_path), dtype)
    tensors = ref.read_safetensors(str(tmp_path / "model.safetensors"))
    assert "lm_head.weight" not in tensors and config["tie_word_embeddings"]
    model = hirope.Model.load(hrm)
    if model.tokenizer is None:
        code = CODE.encode("utf-8")[:160]  # a byte model reads bytes: its ids are the bytes
        ids = np.frombuffer(code, dtype=np.uint8).astype(np.int32)
    else:
        ids = np.asarray(hirope.load_tokenizer(model.tokenizer).encode(CODE)[:160], dtype=np.int32)
        code = ids
    assert ids.shape[0] == 160
    expected, attentions = ref.llama_forward(config, tensors, ids)
    got = model.logits(code, scheme="rope")
    assert got.shape == expected.shape
    spread = float(expected.max() - expected.min())
    error = float(np.abs(got - expected).max())
    assert error <= 2e-3 * spread, f"{name} {dtype}: logits off by {error} (range {spread})"
    layer, head = config["num_hidden_layers"] - 1, 1
    matrix = np.asarray(model.attention(code, scheme="rope", layer=layer, head=head).matrix, dtype=np.float64)
    n = ids.shape[0]
    attention_error = float(np.abs(matrix.reshape(n, n) - attentions[layer][head]).max())
    assert attention_error <= 1e-4, f"{name} {dtype}: layer {layer} head {head} attention off by {attention_error}"


def test_reference_sees_a_wrong_export(tmp_path):
    """The comparison can fail: q and k exported in the other pair layout (llama.cpp's permutation undone twice)
    move the logits well past the tolerance."""
    hrm = os.path.join(ROOT, "models", "pybyte.hrm")
    config = ref.export_hrm_as_llama(hrm, str(tmp_path), "F32")
    tensors = ref.read_safetensors(str(tmp_path / "model.safetensors"))
    heads, d = config["num_attention_heads"], config["hidden_size"]
    head_dim = d // heads
    for i in range(config["num_hidden_layers"]):
        for proj in ("q_proj", "k_proj"):
            key = f"model.layers.{i}.self_attn.{proj}.weight"
            # within each head, rows reordered from half-split to interleaved pairs
            w = tensors[key].reshape(heads, 2, head_dim // 2, d)
            tensors[key] = w.transpose(0, 2, 1, 3).reshape(d, d)
    code = CODE.encode("utf-8")[:160]
    expected, _ = ref.llama_forward(config, tensors, np.frombuffer(code, dtype=np.uint8))
    got = hirope.Model.load(hrm).logits(code, scheme="rope")
    spread = float(expected.max() - expected.min())
    assert float(np.abs(got - expected).max()) > 10 * 2e-3 * spread
