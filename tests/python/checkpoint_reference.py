"""Hugging Face checkpoints for the tests, and a llama-architecture forward in numpy float64 (issue 51).

An independent reference for hirope's checkpoint support: it writes and reads safetensors files from the format's
own description (huggingface/safetensors, README "Format": an 8-byte little-endian header length, a JSON header of
{"dtype", "shape", "data_offsets"} per tensor, then the data area, row-major and little-endian), and runs the
forward of transformers' models/llama/modeling_llama.py line by line: it imports nothing of hirope and never reads
hirope's weights loader. Its RoPE and attention are tests/python/transformers_reference.py's (layer_spec,
inverse_frequencies, _rotate: the same transcription the real layers are tested against).

Sources (huggingface/transformers, src/transformers/models/llama/modeling_llama.py):
  LlamaRMSNorm.forward: variance = hidden.pow(2).mean(-1, keepdim=True); hidden * rsqrt(variance + eps); weight *
      hidden
  LlamaMLP.forward: down_proj(act_fn(gate_proj(x)) * up_proj(x)), act_fn = ACT2FN[hidden_act] ("silu")
  LlamaAttention.forward: q_proj, k_proj, v_proj viewed as (n, heads, head_dim); apply_rotary_pos_emb;
      eager_attention_forward (repeat_kv for grouped-query attention, matmul * scaling, causal mask, softmax,
      matmul with v); o_proj
  LlamaDecoderLayer.forward: residual + self_attn(input_layernorm(x)); residual + mlp(post_attention_layernorm(x))
  LlamaModel.forward: embed_tokens, the layers, norm; LlamaForCausalLM: lm_head (tied to embed_tokens when
      tie_word_embeddings)

hirope's own code models (docs/model.md "Weights file (format version 1)") are llama-architecture decoders:
export_hrm_as_llama writes one as a Hugging Face checkpoint (config.json, model.safetensors), reading the .hrm file
from that description: the fused wqkv rows are q, k, v; w1, w3, w2 are gate_proj, up_proj, down_proj."""

import json
import os
import struct
from typing import Any, Dict, List, Mapping, Tuple

import numpy as np

from transformers_reference import _rotate, inverse_frequencies, layer_spec

# safetensors dtypes written and read here, with numpy's little-endian types (BF16: the top 16 bits of a float32)
_DTYPES = {"F32": ("<f4", 4), "F16": ("<f2", 2), "BF16": ("<u2", 2)}


# --------------------------------------------------------------------------------------------------------------------
# safetensors
# --------------------------------------------------------------------------------------------------------------------


def _encode(array: np.ndarray, dtype: str) -> bytes:
    a = np.ascontiguousarray(array, dtype=np.float64)
    if dtype == "BF16":
        # round to nearest even on the float32's bits, as torch's bfloat16 conversion does
        bits = a.astype("<f4").view("<u4").astype(np.uint64)
        rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
        return rounded.astype("<u2").tobytes()
    return a.astype(_DTYPES[dtype][0]).tobytes()


def write_safetensors(path: str, tensors: Mapping[str, np.ndarray], dtype: str = "F32",
                      metadata: Mapping[str, str] = None) -> None:
    """Writes tensors (name -> array) in `dtype`, in the order given, tiling the data area as the writer does."""
    header: Dict[str, Any] = {}
    if metadata is not None:
        header["__metadata__"] = dict(metadata)
    chunks: List[bytes] = []
    offset = 0
    for name, array in tensors.items():
        data = _encode(array, dtype)
        header[name] = {"dtype": dtype, "shape": list(np.shape(array)), "data_offsets": [offset, offset + len(data)]}
        chunks.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)  # the writer pads the header with spaces to 8 bytes
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for chunk in chunks:
            f.write(chunk)


def read_safetensors(path: str) -> Dict[str, np.ndarray]:
    """Every F32, F16 or BF16 tensor of a file, as float64 arrays."""
    with open(path, "rb") as f:
        blob = f.read()
    (n,) = struct.unpack("<Q", blob[:8])
    header = json.loads(blob[8:8 + n].decode("utf-8"))
    data = blob[8 + n:]
    out = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        begin, end = entry["data_offsets"]
        raw = data[begin:end]
        kind, _ = _DTYPES[entry["dtype"]]
        values = np.frombuffer(raw, dtype=kind)
        if entry["dtype"] == "BF16":
            values = (values.astype("<u4") << 16).view("<f4")
        out[name] = values.astype(np.float64).reshape(entry["shape"])
    return out


# --------------------------------------------------------------------------------------------------------------------
# hirope's own models as Hugging Face llama checkpoints
# --------------------------------------------------------------------------------------------------------------------


def read_hrm(path: str) -> Tuple[Dict[str, Any], Dict[str, np.ndarray]]:
    """A hirope weights file (format version 1): its header fields and its weights (float64, from fp16)."""
    with open(path, "rb") as f:
        blob = f.read()
    if blob[:8] != b"HRPMODEL":
        raise ValueError(f"{path}: not a hirope weights file")
    pos = 8
    version, vocab, d, layers, heads, ffn, context = struct.unpack_from("<7I", blob, pos)
    pos += 28
    base, eps = struct.unpack_from("<2f", blob, pos)
    pos += 8
    (flags,) = struct.unpack_from("<I", blob, pos)
    pos += 4

    def name_field() -> str:
        nonlocal pos
        (length,) = struct.unpack_from("<I", blob, pos)
        pos += 4
        text = blob[pos:pos + length].decode("utf-8")
        pos += length + (-length % 4)
        return text

    name = name_field()
    tokenizer = name_field() if flags & 2 else None
    (count,) = struct.unpack_from("<I", blob, pos)
    pos += 4
    values = np.frombuffer(blob, dtype="<f2", count=count, offset=pos).astype(np.float64)
    header = {"version": version, "vocab": vocab, "d_model": d, "layers": layers, "heads": heads, "ffn": ffn,
              "context": context, "rope_base": float(base), "norm_eps": float(eps), "flags": flags, "name": name,
              "tokenizer": tokenizer}
    weights: Dict[str, np.ndarray] = {}
    at = 0

    def take(key: str, *shape: int) -> None:
        nonlocal at
        size = int(np.prod(shape))
        weights[key] = values[at:at + size].reshape(shape)
        at += size

    take("embedding", vocab, d)
    for i in range(layers):
        take(f"{i}.attention_norm", d)
        take(f"{i}.wqkv", 3 * d, d)
        take(f"{i}.wo", d, d)
        take(f"{i}.mlp_norm", d)
        take(f"{i}.w1", ffn, d)
        take(f"{i}.w3", ffn, d)
        take(f"{i}.w2", d, ffn)
    take("final_norm", d)
    if at != count:
        raise ValueError(f"{path}: {count} parameters, the dimensions need {at}")
    return header, weights


def export_hrm_as_llama(hrm_path: str, out_dir: str, dtype: str = "F16") -> Dict[str, Any]:
    """Writes config.json and model.safetensors (tied embeddings, no lm_head tensor) for a hirope model; returns
    the config."""
    h, w = read_hrm(hrm_path)
    d = h["d_model"]
    config = {
        "architectures": ["LlamaForCausalLM"],
        "model_type": "llama",
        "hidden_size": d,
        "intermediate_size": h["ffn"],
        "num_hidden_layers": h["layers"],
        "num_attention_heads": h["heads"],
        "num_key_value_heads": h["heads"],
        "head_dim": d // h["heads"],
        "vocab_size": h["vocab"],
        "max_position_embeddings": h["context"],
        "rms_norm_eps": h["norm_eps"],
        "rope_theta": h["rope_base"],
        "hidden_act": "silu",
        "tie_word_embeddings": True,
        "attention_bias": False,
        "mlp_bias": False,
        "torch_dtype": {"F32": "float32", "F16": "float16", "BF16": "bfloat16"}[dtype],
    }
    tensors: Dict[str, np.ndarray] = {"model.embed_tokens.weight": w["embedding"]}
    for i in range(h["layers"]):
        p = f"model.layers.{i}."
        wqkv = w[f"{i}.wqkv"]
        tensors[p + "input_layernorm.weight"] = w[f"{i}.attention_norm"]
        tensors[p + "self_attn.q_proj.weight"] = wqkv[:d]
        tensors[p + "self_attn.k_proj.weight"] = wqkv[d:2 * d]
        tensors[p + "self_attn.v_proj.weight"] = wqkv[2 * d:]
        tensors[p + "self_attn.o_proj.weight"] = w[f"{i}.wo"]
        tensors[p + "post_attention_layernorm.weight"] = w[f"{i}.mlp_norm"]
        tensors[p + "mlp.gate_proj.weight"] = w[f"{i}.w1"]
        tensors[p + "mlp.up_proj.weight"] = w[f"{i}.w3"]
        tensors[p + "mlp.down_proj.weight"] = w[f"{i}.w2"]
    tensors["model.norm.weight"] = w["final_norm"]
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "config.json"), "w", encoding="utf-8") as f:
        json.dump(config, f, indent=2)
    write_safetensors(os.path.join(out_dir, "model.safetensors"), tensors, dtype, {"format": "pt"})
    return config


# --------------------------------------------------------------------------------------------------------------------
# The forward
# --------------------------------------------------------------------------------------------------------------------


def _rms_norm(x: np.ndarray, weight: np.ndarray, eps: float) -> np.ndarray:
    variance = np.mean(x * x, axis=-1, keepdims=True)
    return weight * (x / np.sqrt(variance + eps))


def _silu(x: np.ndarray) -> np.ndarray:
    return x / (1.0 + np.exp(-x))


def llama_forward(config: Mapping[str, Any], tensors: Mapping[str, np.ndarray], ids) -> Tuple[np.ndarray, List]:
    """LlamaForCausalLM on token ids at positions 0..n-1: (logits (n, vocab), [per layer (heads, n, n) attention
    probabilities]), all float64."""
    ids = np.asarray(ids, dtype=np.int64)
    n = ids.shape[0]
    heads = int(config["num_attention_heads"])
    kv_heads = int(config.get("num_key_value_heads", heads))
    head_dim = int(config.get("head_dim", config["hidden_size"] // heads))
    eps = float(config["rms_norm_eps"])
    if config.get("hidden_act", "silu") != "silu":
        raise ValueError("llama_forward: only silu is written here")
    x = tensors["model.embed_tokens.weight"][ids]
    positions = np.arange(n, dtype=np.float64)
    attentions = []
    for i in range(int(config["num_hidden_layers"])):
        p = f"model.layers.{i}."
        h = _rms_norm(x, tensors[p + "input_layernorm.weight"], eps)
        q = (h @ tensors[p + "self_attn.q_proj.weight"].T).reshape(n, heads, head_dim)
        k = (h @ tensors[p + "self_attn.k_proj.weight"].T).reshape(n, kv_heads, head_dim)
        v = (h @ tensors[p + "self_attn.v_proj.weight"].T).reshape(n, kv_heads, head_dim)
        spec = layer_spec(config, i)
        inv_freq, attention_factor = inverse_frequencies(spec, n)
        angles = positions[:, None] * inv_freq[None, :]
        q = _rotate(q, angles, attention_factor, spec.layout)
        k = _rotate(k, angles, attention_factor, spec.layout)
        # repeat_kv: each key/value head serves heads / kv_heads query heads
        k = np.repeat(k, heads // kv_heads, axis=1)
        v = np.repeat(v, heads // kv_heads, axis=1)
        logits = np.einsum("ihd,jhd->hij", q, k) * spec.scaling
        logits = np.where(np.tril(np.ones((n, n), dtype=bool))[None], logits, -np.inf)
        e = np.exp(logits - logits.max(axis=-1, keepdims=True))
        probs = e / e.sum(axis=-1, keepdims=True)
        attentions.append(probs)
        out = np.einsum("hij,jhd->ihd", probs, v).reshape(n, heads * head_dim)
        x = x + out @ tensors[p + "self_attn.o_proj.weight"].T
        h = _rms_norm(x, tensors[p + "post_attention_layernorm.weight"], eps)
        gate = h @ tensors[p + "mlp.gate_proj.weight"].T
        up = h @ tensors[p + "mlp.up_proj.weight"].T
        x = x + (_silu(gate) * up) @ tensors[p + "mlp.down_proj.weight"].T
    x = _rms_norm(x, tensors["model.norm.weight"], eps)
    head = tensors.get("lm_head.weight")
    if head is None or config.get("tie_word_embeddings", False):
        head = tensors["model.embed_tokens.weight"]
    return x @ head.T, attentions
