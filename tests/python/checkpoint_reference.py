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
from that description: the fused wqkv rows are q, k, v; w1, w3, w2 are gate_proj, up_proj, down_proj.

Every architecture hirope reads (issue 51, section 5): make_checkpoint writes a small random Hugging Face checkpoint of
llama, mistral, qwen2, qwen3, gemma2, gemma3_text, phi3 or starcoder2 (config.json with the keys its config class
reads, model.safetensors or shards with model.safetensors.index.json as save_pretrained writes them, tensor names as
the model's state_dict has them), and reference_forward runs it in float64 from config.json and the stored values.
What each architecture does differently is data (_ARCHITECTURES), each entry citing the modeling file it was read
from (huggingface/transformers, src/transformers/models/<type>/, the commits the search index holds):
  llama/modeling_llama.py: LlamaAttention (q/k/v/o bias = attention_bias), LlamaMLP (gate/up/down bias = mlp_bias),
      LlamaRMSNorm, LlamaDecoderLayer, LlamaForCausalLM
  mistral/modular_mistral.py @0096ba4f: MistralAttention and MistralMLP (bias=False throughout), MistralModel (a
      sliding-window mask on every layer when config.sliding_window is not None); configuration_mistral.py
      @001f85b3 (sliding_window 4096, rms_norm_eps 1e-6, tie_word_embeddings False)
  qwen2/modular_qwen2.py @022c4a9b: Qwen2Attention (q/k/v bias=True, o_proj bias=False; sliding_window on
      layer_types' sliding layers), Qwen2MLP (no bias), Qwen2Model (MistralModel's masks per layer type)
  qwen3/modular_qwen3.py @02e8340b: Qwen3Attention(LlamaAttention): q_norm/k_norm = Qwen3RMSNorm(head_dim) on each
      head of q_proj/k_proj before apply_rotary_pos_emb; Qwen3MLP = GemmaMLP (no bias)
  gemma2/modeling_gemma2.py @9a80143c and modular_gemma2.py (the layer_types version): Gemma2RMSNorm (x * rsqrt(
      mean(x^2) + eps) * (1 + w), in float32), Gemma2MLP (act_fn = ACT2FN[hidden_activation]),
      eager_attention_forward (scaling = query_pre_attn_scalar**-0.5; logits / softcap, tanh, * softcap before the
      mask), Gemma2Attention (sliding_window on "sliding_attention" layers: layer_types, default
      "sliding_attention" if bool((i + 1) % 2), i.e. layers 0, 2, 4, ...; the older file: not bool(layer_idx % 2),
      the same layers), Gemma2DecoderLayer (input_layernorm, attention, post_attention_layernorm, residual;
      pre_feedforward_layernorm, mlp, post_feedforward_layernorm, residual), Gemma2Model.forward (normalizer =
      torch.tensor(hidden_size**0.5, dtype=hidden_states.dtype)), Gemma2ForCausalLM.forward (final_logit_softcapping)
  gemma3/modeling_gemma3.py @f14d0cbc: Gemma3TextScaledWordEmbedding (embed_scale.to(weight.dtype)),
      Gemma3Attention (q_norm/k_norm = Gemma3RMSNorm(head_dim), (1 + w), before RoPE; its call to the attention
      function passes no softcap, so attn_logit_softcapping is not applied), Gemma3DecoderLayer (Gemma 2's four
      norms; position_embeddings_local on sliding layers), Gemma3TextModel (rotary_emb_local: rope_theta =
      rope_local_base_freq, rope_scaling default), Gemma3ForCausalLM (final_logit_softcapping when set);
      configuration_gemma3.py @d98ac17c (defaults) and the later layer_types rule "sliding_attention" if
      bool((i + 1) % sliding_window_pattern)
  phi3/modeling_phi3.py @00d4b3d2: Phi3Attention (qkv_proj rows: q (heads * head_dim), k, v (kv_heads * head_dim)
      each), apply_rotary_pos_emb (rotary_dim = cos.shape[-1]: the first int(head_dim * partial_rotary_factor) dims
      of each head rotate with rotate_half over those dims alone, the rest pass), Phi3MLP (gate_up_proj.chunk(2):
      gate rows first, then up; up * act(gate)); configuration_phi3.py @008e5743 (rms_norm_eps 1e-5, tie False)
  starcoder2/modeling_starcoder2.py @00d4b3d2: Starcoder2Attention (q/k/v/o bias = use_bias), Starcoder2MLP (c_fc,
      act, c_proj, bias = use_bias), nn.LayerNorm(eps=norm_epsilon) with weight and bias for every norm,
      Starcoder2ForCausalLM; configuration_starcoder2.py @008e5743 (norm_epsilon 1e-5, use_bias True, tie True)
RoPE (which dims, base, linear / llama3 scaling, local base on Gemma 3 sliding layers), the softmax scale, softcaps
and masks are tests/python/transformers_reference.py's layer_spec (read from the same files and
modeling_rope_utils.py, masking_utils.py); gelu_pytorch_tanh is activations.py's PytorchGELUTanh
(torch.nn.functional.gelu(x, approximate="tanh")). Positions are 0..n-1."""

import json
import math
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


def _decode(raw: bytes, dtype: str, shape) -> np.ndarray:
    kind, _ = _DTYPES[dtype]
    values = np.frombuffer(raw, dtype=kind)
    if dtype == "BF16":
        values = (values.astype("<u4") << 16).view("<f4")
    return values.astype(np.float64).reshape(shape)


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
        out[name] = _decode(data[begin:end], entry["dtype"], entry["shape"])
    return out


def read_safetensors_header(path: str) -> Dict[str, Any]:
    """A file's JSON header: name -> {"dtype", "shape", "data_offsets"}, and "__metadata__" when it has one."""
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        return json.loads(f.read(n).decode("utf-8"))


def stored(values, dtype: str) -> np.ndarray:
    """values as a `dtype` tensor stores them, back in float64 (what write_safetensors then read_safetensors give)."""
    a = np.asarray(values, dtype=np.float64)
    return _decode(_encode(a, dtype), dtype, a.shape)


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


# --------------------------------------------------------------------------------------------------------------------
# Checkpoint folders: config.json, and model.safetensors or shards with model.safetensors.index.json
# --------------------------------------------------------------------------------------------------------------------

SINGLE_FILE = "model.safetensors"  # transformers' SAFE_WEIGHTS_NAME
INDEX_FILE = "model.safetensors.index.json"  # SAFE_WEIGHTS_INDEX_NAME
_TORCH_DTYPE = {"F32": "float32", "F16": "float16", "BF16": "bfloat16"}


def shard_name(k: int, count: int) -> str:
    """save_pretrained's shard k of count (1-based): "model{suffix}.safetensors" with huggingface_hub's
    split_torch_state_dict_into_shards suffix "-{k:05d}-of-{count:05d}"."""
    return f"model-{k:05d}-of-{count:05d}.safetensors"


def write_checkpoint(out_dir: str, config: Mapping[str, Any], tensors: Mapping[str, np.ndarray], dtype: str = "F32",
                     shards: int = 1) -> None:
    """config.json and the tensors in `dtype`: one model.safetensors, or `shards` files (the tensors in order, cut
    where the bytes so far pass each shard's share) with the index save_pretrained writes: {"metadata":
    {"total_size": bytes of every tensor}, "weight_map": {name: file}}, json.dumps(indent=2, sort_keys=True) + "\\n".
    Each file's metadata is {"format": "pt"}, as save_pretrained's safe_save_file gives it."""
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "config.json"), "w", encoding="utf-8") as f:
        json.dump(dict(config), f, indent=2, sort_keys=True)
        f.write("\n")
    names = list(tensors)
    if shards == 1:
        write_safetensors(os.path.join(out_dir, SINGLE_FILE), tensors, dtype, {"format": "pt"})
        return
    if not 1 < shards <= len(names):
        raise ValueError(f"shards must be 1..{len(names)} for {len(names)} tensors, got {shards}")
    width = _DTYPES[dtype][1]
    sizes = [int(np.prod(np.shape(tensors[name]), dtype=np.int64)) * width for name in names]
    total = sum(sizes)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])  # each tensor's first byte
    cuts = [0]
    for k in range(1, shards):
        # shard k + 1 begins at the first tensor starting past k shares of the bytes, one tensor at least per shard
        at = int(np.searchsorted(starts, k * total / shards, side="left"))
        cuts.append(min(max(at, cuts[-1] + 1), len(names) - (shards - k)))
    cuts.append(len(names))
    groups = [names[cuts[k]:cuts[k + 1]] for k in range(shards)]
    weight_map = {}
    for k, group in enumerate(groups, start=1):
        file = shard_name(k, shards)
        write_safetensors(os.path.join(out_dir, file), {name: tensors[name] for name in group}, dtype,
                          {"format": "pt"})
        weight_map.update({name: file for name in group})
    index = {"metadata": {"total_size": total}, "weight_map": weight_map}
    with open(os.path.join(out_dir, INDEX_FILE), "w", encoding="utf-8") as f:
        f.write(json.dumps(index, indent=2, sort_keys=True) + "\n")


def read_checkpoint(out_dir: str) -> Tuple[Dict[str, Any], Dict[str, np.ndarray], Dict[str, str]]:
    """(config, tensors as float64, each tensor's stored dtype) of a checkpoint folder: model.safetensors.index.json's
    shards when the index is there (every name where its weight_map says, nothing else), else model.safetensors."""
    with open(os.path.join(out_dir, "config.json"), encoding="utf-8") as f:
        config = json.load(f)
    index_path = os.path.join(out_dir, INDEX_FILE)
    if os.path.exists(index_path):
        with open(index_path, encoding="utf-8") as f:
            weight_map = json.load(f)["weight_map"]
        files = sorted(set(weight_map.values()))
    else:
        weight_map = None
        files = [SINGLE_FILE]
    tensors: Dict[str, np.ndarray] = {}
    dtypes: Dict[str, str] = {}
    for file in files:
        path = os.path.join(out_dir, file)
        header = read_safetensors_header(path)
        for name, values in read_safetensors(path).items():
            if name in tensors:
                raise ValueError(f"{out_dir}: {name} is in two files")
            if weight_map is not None and weight_map.get(name) != file:
                raise ValueError(f"{out_dir}: {name} is in {file}, the index says {weight_map.get(name)}")
            tensors[name] = values
            dtypes[name] = header[name]["dtype"]
    if weight_map is not None and set(weight_map) != set(tensors):
        raise ValueError(f"{out_dir}: the index names {sorted(set(weight_map) - set(tensors))} that no shard has")
    return config, tensors, dtypes


# --------------------------------------------------------------------------------------------------------------------
# The architectures as data
# --------------------------------------------------------------------------------------------------------------------

# What each model type's modeling file builds (see the module's docstring for the files). Bias entries: True / False
# as the file hard-codes them, or the config key the file reads. norm: "rms" (weight * x / rms), "gemma" ((1 + w) *
# x / rms), "layer" (nn.LayerNorm, weight and bias). qk_norm: a per-head norm of that kind on q and k before RoPE.
# mlp: "gated" (down(act(gate) * up)), "fused_gated" (Phi3MLP: gate_up_proj), "plain" (c_proj(act(c_fc))).
_ARCHITECTURES: Dict[str, Dict[str, Any]] = {
    "llama": dict(cls="LlamaForCausalLM", norm="rms", eps="rms_norm_eps", act="hidden_act", qkv_bias="attention_bias",
                  o_bias="attention_bias", mlp="gated", mlp_bias="mlp_bias"),
    "mistral": dict(cls="MistralForCausalLM", norm="rms", eps="rms_norm_eps", act="hidden_act", qkv_bias=False,
                    o_bias=False, mlp="gated", mlp_bias=False),
    "qwen2": dict(cls="Qwen2ForCausalLM", norm="rms", eps="rms_norm_eps", act="hidden_act", qkv_bias=True,
                  o_bias=False, mlp="gated", mlp_bias=False),
    "qwen3": dict(cls="Qwen3ForCausalLM", norm="rms", eps="rms_norm_eps", act="hidden_act", qkv_bias="attention_bias",
                  o_bias="attention_bias", mlp="gated", mlp_bias=False, qk_norm="rms"),
    "gemma2": dict(cls="Gemma2ForCausalLM", norm="gemma", eps="rms_norm_eps", act="hidden_activation",
                   qkv_bias="attention_bias", o_bias="attention_bias", mlp="gated", mlp_bias=False, sandwich=True,
                   embed_scale=True, final_softcap=True),
    "gemma3_text": dict(cls="Gemma3ForCausalLM", norm="gemma", eps="rms_norm_eps", act="hidden_activation",
                        qkv_bias="attention_bias", o_bias="attention_bias", mlp="gated", mlp_bias=False, sandwich=True,
                        embed_scale=True, final_softcap=True, qk_norm="gemma", no_attn_softcap=True),
    "phi3": dict(cls="Phi3ForCausalLM", norm="rms", eps="rms_norm_eps", act="hidden_act", qkv_bias=False,
                 o_bias=False, mlp="fused_gated", mlp_bias=False, fused_qkv=True),
    "starcoder2": dict(cls="Starcoder2ForCausalLM", norm="layer", eps="norm_epsilon", act="hidden_act",
                       qkv_bias="use_bias", o_bias="use_bias", mlp="plain", mlp_bias="use_bias"),
}
ARCHITECTURES = tuple(_ARCHITECTURES)

# The config classes' defaults for the keys the forward reads beyond transformers_reference's (attention) ones:
# configuration_llama.py LlamaConfig, configuration_mistral.py @001f85b3, configuration_qwen2.py Qwen2Config,
# configuration_qwen3.py Qwen3Config, configuration_gemma2.py @19f53461, configuration_gemma3.py @d98ac17c,
# configuration_phi3.py @008e5743, configuration_starcoder2.py @008e5743.
_LLAMA_DEFAULTS = {"rms_norm_eps": 1e-6, "hidden_act": "silu", "tie_word_embeddings": False, "attention_bias": False,
                   "mlp_bias": False}
_GEMMA_DEFAULTS = {"rms_norm_eps": 1e-6, "hidden_activation": "gelu_pytorch_tanh", "tie_word_embeddings": True,
                   "attention_bias": False}
FORWARD_DEFAULTS: Dict[str, Dict[str, Any]] = {
    "llama": dict(_LLAMA_DEFAULTS),
    "mistral": dict(_LLAMA_DEFAULTS),
    "qwen2": dict(_LLAMA_DEFAULTS),
    "qwen3": dict(_LLAMA_DEFAULTS),
    "gemma2": {**_GEMMA_DEFAULTS, "final_logit_softcapping": 30.0},
    "gemma3_text": {**_GEMMA_DEFAULTS, "final_logit_softcapping": None},
    "phi3": {"rms_norm_eps": 1e-5, "hidden_act": "silu", "tie_word_embeddings": False},
    "starcoder2": {"norm_epsilon": 1e-5, "hidden_act": "gelu_pytorch_tanh", "use_bias": True,
                   "tie_word_embeddings": True},
}


def _model_type(config: Mapping[str, Any]) -> str:
    mt = config.get("model_type")
    if mt not in _ARCHITECTURES:
        raise ValueError(f"checkpoint_reference has no forward for model_type {mt!r} "
                         f"(it has {', '.join(ARCHITECTURES)})")
    return mt


def _read(config: Mapping[str, Any], key: str) -> Any:
    """The file's value when the key is there, else the config class's default; neither: an error, not a guess."""
    if key in config:
        return config[key]
    defaults = FORWARD_DEFAULTS[_model_type(config)]
    if key in defaults:
        return defaults[key]
    raise KeyError(f"{config.get('model_type')}: {key!r} is neither in config.json nor among the defaults here")


def _flag(config: Mapping[str, Any], entry: Any) -> bool:
    return bool(_read(config, entry)) if isinstance(entry, str) else bool(entry)


def _dims(config: Mapping[str, Any]) -> Tuple[int, int, int, int]:
    """(hidden, heads, kv_heads, head_dim): head_dim as each attention class reads it (layer_spec's _head_dim: the
    config's head_dim or hidden // heads; Qwen3 and Gemma's class defaults)."""
    heads = int(config["num_attention_heads"])
    kv = int(config.get("num_key_value_heads") or heads)
    return int(config["hidden_size"]), heads, kv, layer_spec(config, 0).head_dim


def tied(config: Mapping[str, Any]) -> bool:
    """tie_word_embeddings from the file or the class default: lm_head is embed_tokens and no lm_head tensor is
    saved (the CausalLM classes' _tied_weights_keys = ["lm_head.weight"])."""
    return bool(_read(config, "tie_word_embeddings"))


def tensor_table(config: Mapping[str, Any]) -> List[Tuple[str, Tuple[int, ...], str]]:
    """(name, shape, role) of every tensor in the CausalLM's state_dict, in module order. Roles: embed, linear,
    out (o_proj / down_proj / c_proj: the residual branch's last matrix), bias, norm, norm_bias."""
    mt = _model_type(config)
    a = _ARCHITECTURES[mt]
    d, heads, kv, hd = _dims(config)
    ffn = int(config["intermediate_size"])
    vocab = int(config["vocab_size"])
    qkv_bias, o_bias, mlp_bias = (_flag(config, a[k]) for k in ("qkv_bias", "o_bias", "mlp_bias"))
    layer_norm = a["norm"] == "layer"
    rows: List[Tuple[str, Tuple[int, ...], str]] = [("model.embed_tokens.weight", (vocab, d), "embed")]

    def norm(name: str, width: int) -> None:
        rows.append((name + ".weight", (width,), "norm"))
        if layer_norm:
            rows.append((name + ".bias", (width,), "norm_bias"))

    def linear(name: str, out: int, fan_in: int, bias: bool, role: str = "linear") -> None:
        rows.append((name + ".weight", (out, fan_in), role))
        if bias:
            rows.append((name + ".bias", (out,), "bias"))

    for i in range(int(config["num_hidden_layers"])):
        p = f"model.layers.{i}."
        norm(p + "input_layernorm", d)
        if a.get("fused_qkv"):
            linear(p + "self_attn.qkv_proj", (heads + 2 * kv) * hd, d, qkv_bias)
        else:
            linear(p + "self_attn.q_proj", heads * hd, d, qkv_bias)
            linear(p + "self_attn.k_proj", kv * hd, d, qkv_bias)
            linear(p + "self_attn.v_proj", kv * hd, d, qkv_bias)
        linear(p + "self_attn.o_proj", d, heads * hd, o_bias, "out")
        if a.get("qk_norm"):
            norm(p + "self_attn.q_norm", hd)
            norm(p + "self_attn.k_norm", hd)
        norm(p + "post_attention_layernorm", d)
        if a.get("sandwich"):
            norm(p + "pre_feedforward_layernorm", d)
            norm(p + "post_feedforward_layernorm", d)
        if a["mlp"] == "gated":
            linear(p + "mlp.gate_proj", ffn, d, mlp_bias)
            linear(p + "mlp.up_proj", ffn, d, mlp_bias)
            linear(p + "mlp.down_proj", d, ffn, mlp_bias, "out")
        elif a["mlp"] == "fused_gated":
            linear(p + "mlp.gate_up_proj", 2 * ffn, d, mlp_bias)
            linear(p + "mlp.down_proj", d, ffn, mlp_bias, "out")
        else:
            linear(p + "mlp.c_fc", ffn, d, mlp_bias)
            linear(p + "mlp.c_proj", d, ffn, mlp_bias, "out")
    norm("model.norm", d)
    if not tied(config):
        rows.append(("lm_head.weight", (vocab, d), "linear"))
    return rows


# --------------------------------------------------------------------------------------------------------------------
# Small random checkpoints
# --------------------------------------------------------------------------------------------------------------------

_DIMS = {"hidden_size": 32, "intermediate_size": 48, "num_hidden_layers": 2, "num_attention_heads": 4,
         "num_key_value_heads": 2, "vocab_size": 64}


def checkpoint_config(arch: str, dtype: str = "F32", **dims: Any) -> Dict[str, Any]:
    """config.json for a small `arch` model: _DIMS and head_dim 8, the architecture's own keys written out (so no
    default decides), then `dims` (any config key; None writes null). Windows and soft-caps are set small enough to
    act on a 24-token input where the class has them on by default: mistral, gemma2 and gemma3_text slide over 6
    positions; gemma2's attention logits are capped at 5 and its final logits at 8; Gemma's query_pre_attn_scalar is
    head_dim. qwen2 (use_sliding_window False), phi3 and starcoder2 (sliding_window None) keep full attention."""
    if arch not in _ARCHITECTURES:
        raise ValueError(f"unknown architecture {arch!r} (known: {', '.join(ARCHITECTURES)})")
    head_dim = int(dims.pop("head_dim", 8))
    config: Dict[str, Any] = {"architectures": [_ARCHITECTURES[arch]["cls"]], "model_type": arch, **_DIMS,
                              "max_position_embeddings": 256, "rope_theta": 10000.0,
                              "torch_dtype": _TORCH_DTYPE[dtype], "tie_word_embeddings": FORWARD_DEFAULTS[arch][
                                  "tie_word_embeddings"]}
    hidden, heads = int(dims.get("hidden_size", _DIMS["hidden_size"])), int(
        dims.get("num_attention_heads", _DIMS["num_attention_heads"]))
    if arch in ("phi3", "starcoder2") and head_dim == hidden // heads:
        pass  # their config classes have no head_dim: the attention reads hidden_size // num_attention_heads
    else:
        config["head_dim"] = head_dim
    if arch == "llama":
        config.update(rms_norm_eps=1e-6, hidden_act="silu", attention_bias=False, mlp_bias=False, rope_scaling=None)
    elif arch == "mistral":
        config.update(rms_norm_eps=1e-6, hidden_act="silu", sliding_window=6)
    elif arch in ("qwen2", "qwen3"):
        config.update(rms_norm_eps=1e-6, hidden_act="silu", use_sliding_window=False, sliding_window=None,
                      max_window_layers=int(dims.get("num_hidden_layers", _DIMS["num_hidden_layers"])))
        if arch == "qwen3":
            config["attention_bias"] = False
    elif arch == "gemma2":
        config.update(rms_norm_eps=1e-6, hidden_activation="gelu_pytorch_tanh", attention_bias=False,
                      query_pre_attn_scalar=head_dim, sliding_window=6, attn_logit_softcapping=5.0,
                      final_logit_softcapping=8.0)
    elif arch == "gemma3_text":
        config.update(rms_norm_eps=1e-6, hidden_activation="gelu_pytorch_tanh", attention_bias=False,
                      query_pre_attn_scalar=head_dim, sliding_window=6, attn_logit_softcapping=None,
                      final_logit_softcapping=None, rope_theta=1_000_000.0, rope_local_base_freq=10000.0,
                      sliding_window_pattern=2, rope_scaling=None)
    elif arch == "phi3":
        config.update(rms_norm_eps=1e-5, hidden_act="silu", partial_rotary_factor=1.0, sliding_window=None,
                      original_max_position_embeddings=256)
    elif arch == "starcoder2":
        config.update(norm_epsilon=1e-5, hidden_act="gelu_pytorch_tanh", use_bias=True, sliding_window=None)
    config.update(dims)
    if arch == "gemma3_text" and "layer_types" not in dims:
        # the later Gemma3TextConfig's rule, written out so both config versions build the same layers
        pattern = int(config["sliding_window_pattern"])
        config["layer_types"] = ["sliding_attention" if (i + 1) % pattern else "full_attention"
                                 for i in range(int(config["num_hidden_layers"]))]
    return config


def random_tensors(config: Mapping[str, Any], seed: int = 0) -> Dict[str, np.ndarray]:
    """Random weights for tensor_table(config), in its order, that keep the activations O(1): matrices normal /
    sqrt(fan_in) (times 0.5 on the residual branch's last one), embeddings normal * 0.5 (Gemma: normal /
    sqrt(hidden_size), so that its sqrt(hidden_size) scale brings them to normal), biases normal * 0.1, RMSNorm and
    LayerNorm weights 1 + normal * 0.1 (Gemma's (1 + w): w = normal * 0.1), LayerNorm biases normal * 0.1."""
    rng = np.random.default_rng(seed)
    a = _ARCHITECTURES[_model_type(config)]
    out: Dict[str, np.ndarray] = {}
    for name, shape, role in tensor_table(config):
        z = rng.standard_normal(shape)
        if role == "embed":
            out[name] = z * (1.0 / math.sqrt(int(config["hidden_size"])) if a.get("embed_scale") else 0.5)
        elif role in ("linear", "out"):
            out[name] = z / math.sqrt(shape[1]) * (0.5 if role == "out" else 1.0)
        elif role in ("bias", "norm_bias"):
            out[name] = z * 0.1
        elif a["norm"] == "gemma":
            out[name] = z * 0.1
        else:
            out[name] = 1.0 + z * 0.1
    return out


def make_checkpoint(arch: str, out_dir: str, dtype: str = "F32", shards: int = 1, seed: int = 0,
                    **dims: Any) -> Tuple[Dict[str, Any], Dict[str, np.ndarray]]:
    """Writes a random `arch` checkpoint (checkpoint_config(arch, dtype, **dims), random_tensors(config, seed)) to
    out_dir in `dtype`, as one file or `shards` shards; returns (config, the float64 tensors before rounding to
    `dtype`). The same seed and dims give the same values whatever the dtype and the shards."""
    config = checkpoint_config(arch, dtype, **dims)
    tensors = random_tensors(config, seed)
    write_checkpoint(out_dir, config, tensors, dtype, shards)
    return config, tensors


# --------------------------------------------------------------------------------------------------------------------
# The forward of every architecture
# --------------------------------------------------------------------------------------------------------------------


def gelu_tanh(x: np.ndarray) -> np.ndarray:
    # activations.py PytorchGELUTanh / NewGELUActivation: 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3)))
    return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))


def _gelu_erf(x: np.ndarray) -> np.ndarray:
    # activations.py GELUActivation: nn.functional.gelu, x * Phi(x) with the error function
    return 0.5 * x * (1.0 + np.vectorize(math.erf)(x / math.sqrt(2.0)))


# ACT2FN's names for the functions above (activations.py ACT2CLS)
ACTIVATIONS = {"silu": _silu, "swish": _silu, "gelu_pytorch_tanh": gelu_tanh, "gelu_new": gelu_tanh,
               "gelu_python_tanh": gelu_tanh, "gelu": _gelu_erf, "gelu_python": _gelu_erf}


def layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    # nn.LayerNorm: (x - mean) / sqrt(biased variance + eps) * weight + bias
    mean = np.mean(x, axis=-1, keepdims=True)
    var = np.mean((x - mean) ** 2, axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * weight + bias


def _norm(kind: str, x: np.ndarray, tensors: Mapping[str, np.ndarray], name: str, eps: float) -> np.ndarray:
    if kind == "rms":
        return _rms_norm(x, tensors[name + ".weight"], eps)  # LlamaRMSNorm / Qwen2RMSNorm / Phi3RMSNorm
    if kind == "gemma":
        return _rms_norm(x, 1.0 + tensors[name + ".weight"], eps)  # Gemma2RMSNorm / Gemma3RMSNorm: (1 + w)
    return layer_norm(x, tensors[name + ".weight"], tensors[name + ".bias"], eps)


def softcap(x: np.ndarray, cap: float) -> np.ndarray:
    # Gemma2ForCausalLM.forward and eager_attention_forward: x / cap, tanh, * cap
    return np.tanh(x / cap) * cap


def embedding_scale(config: Mapping[str, Any], dtype: str) -> float:
    """Gemma's sqrt(hidden_size) as the embedding's dtype holds it (Gemma2Model.forward: torch.tensor(hidden_size**0.5,
    dtype=hidden_states.dtype); Gemma3TextScaledWordEmbedding: embed_scale.to(weight.dtype)); 1 for the others."""
    if not _ARCHITECTURES[_model_type(config)].get("embed_scale"):
        return 1.0
    return float(stored(math.sqrt(int(config["hidden_size"])), dtype))


def _attention(config: Mapping[str, Any], layer: int, q: np.ndarray, k: np.ndarray, v: np.ndarray,
               positions: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """One layer's eager attention: q (n, heads, d), k and v (n, kv_heads, d) after any q/k norm; returns (output
    (n, heads * d), probabilities (heads, n, n))."""
    spec = layer_spec(config, layer)
    if _ARCHITECTURES[_model_type(config)].get("no_attn_softcap"):
        spec.softcap = None  # Gemma3Attention.forward passes no softcap to the attention function
    n, heads, d = q.shape
    q, k = q.copy(), k.copy()
    inv_freq, attention_factor = inverse_frequencies(spec, n)
    angles = positions[:, None] * inv_freq[None, :]
    sl = spec.rotary_slice  # Phi3 apply_rotary_pos_emb: q[..., :rotary_dim] rotates, q[..., rotary_dim:] passes
    q[..., sl] = _rotate(q[..., sl], angles, attention_factor, spec.layout)
    k[..., sl] = _rotate(k[..., sl], angles, attention_factor, spec.layout)
    # repeat_kv: key/value head j serves query heads j * groups .. (j + 1) * groups - 1
    groups = heads // k.shape[1]
    k = np.repeat(k, groups, axis=1)
    v = np.repeat(v, groups, axis=1)
    logits = np.einsum("ihd,jhd->hij", q, k) * spec.scaling
    if spec.softcap is not None:
        logits = softcap(logits, spec.softcap)
    # masking_utils: causal (kv <= q), and sliding_window_overlay (kv > q - sliding_window) on sliding layers
    qi, kj = positions[:, None], positions[None, :]
    seen = kj <= qi
    if spec.window is not None:
        seen &= kj > qi - spec.window
    logits = np.where(seen[None], logits, -np.inf)
    e = np.exp(logits - logits.max(axis=-1, keepdims=True))
    probs = e / e.sum(axis=-1, keepdims=True)
    return np.einsum("hij,jhd->ihd", probs, v).reshape(n, heads * d), probs


def forward(config: Mapping[str, Any], tensors: Mapping[str, np.ndarray], ids,
            embedding_dtype: str = "F32") -> Tuple[np.ndarray, List[np.ndarray]]:
    """The CausalLM of config["model_type"] on token ids at positions 0..n-1, float64: (logits (n, vocab), per layer
    (heads, n, n) attention probabilities). embedding_dtype: the stored dtype of embed_tokens (Gemma's scale)."""
    mt = _model_type(config)
    a = _ARCHITECTURES[mt]
    expected = {name: shape for name, shape, _ in tensor_table(config)}
    missing = sorted(set(expected) - set(tensors))
    unexpected = sorted(set(tensors) - set(expected))
    if missing or unexpected:
        raise ValueError(f"{mt}: tensors missing {missing[:4]}, unexpected {unexpected[:4]}")
    for name, shape in expected.items():
        if tuple(np.shape(tensors[name])) != tuple(shape):
            raise ValueError(f"{mt}: {name} is {np.shape(tensors[name])}, the config implies {shape}")
    ids = np.asarray(ids, dtype=np.int64)
    n = ids.shape[0]
    _, heads, kv, hd = _dims(config)
    eps = float(_read(config, a["eps"]))
    act_name = _read(config, a["act"])
    if act_name not in ACTIVATIONS:
        raise ValueError(f"{mt}: activation {act_name!r} is not written here")
    act = ACTIVATIONS[act_name]
    qkv_bias, o_bias, mlp_bias = (_flag(config, a[k]) for k in ("qkv_bias", "o_bias", "mlp_bias"))
    kind = a["norm"]

    def linear(h: np.ndarray, name: str, bias: bool) -> np.ndarray:
        y = h @ tensors[name + ".weight"].T
        return y + tensors[name + ".bias"] if bias else y

    x = tensors["model.embed_tokens.weight"][ids] * embedding_scale(config, embedding_dtype)
    positions = np.arange(n, dtype=np.float64)
    attentions = []
    for i in range(int(config["num_hidden_layers"])):
        p = f"model.layers.{i}."
        h = _norm(kind, x, tensors, p + "input_layernorm", eps)
        if a.get("fused_qkv"):
            qkv = linear(h, p + "self_attn.qkv_proj", qkv_bias)  # Phi3Attention: rows q, then k, then v
            q, k, v = qkv[:, :heads * hd], qkv[:, heads * hd:(heads + kv) * hd], qkv[:, (heads + kv) * hd:]
        else:
            q, k, v = (linear(h, p + f"self_attn.{t}_proj", qkv_bias) for t in "qkv")
        q, k, v = q.reshape(n, heads, hd), k.reshape(n, kv, hd), v.reshape(n, kv, hd)
        if a.get("qk_norm"):
            # Qwen3Attention / Gemma3Attention: q_norm(q_proj(x).view(..., head_dim)) per head, before RoPE
            q = _norm(a["qk_norm"], q, tensors, p + "self_attn.q_norm", eps)
            k = _norm(a["qk_norm"], k, tensors, p + "self_attn.k_norm", eps)
        out, probs = _attention(config, i, q, k, v, positions)
        attentions.append(probs)
        out = linear(out, p + "self_attn.o_proj", o_bias)
        if a.get("sandwich"):
            # Gemma2DecoderLayer: post_attention_layernorm on the attention's output, then the residual; the MLP
            # between pre_feedforward_layernorm and post_feedforward_layernorm
            x = x + _norm(kind, out, tensors, p + "post_attention_layernorm", eps)
            h = _norm(kind, x, tensors, p + "pre_feedforward_layernorm", eps)
        else:
            x = x + out
            h = _norm(kind, x, tensors, p + "post_attention_layernorm", eps)
        if a["mlp"] == "gated":
            m = linear(act(linear(h, p + "mlp.gate_proj", mlp_bias)) * linear(h, p + "mlp.up_proj", mlp_bias),
                       p + "mlp.down_proj", mlp_bias)
        elif a["mlp"] == "fused_gated":
            gate, up = np.split(linear(h, p + "mlp.gate_up_proj", mlp_bias), 2, axis=-1)  # chunk(2): gate first
            m = linear(up * act(gate), p + "mlp.down_proj", mlp_bias)
        else:
            m = linear(act(linear(h, p + "mlp.c_fc", mlp_bias)), p + "mlp.c_proj", mlp_bias)
        if a.get("sandwich"):
            m = _norm(kind, m, tensors, p + "post_feedforward_layernorm", eps)
        x = x + m
    x = _norm(kind, x, tensors, "model.norm", eps)
    head = tensors["model.embed_tokens.weight"] if tied(config) else tensors["lm_head.weight"]
    logits = x @ head.T
    if a.get("final_softcap"):
        cap = _read(config, "final_logit_softcapping")
        if cap is not None:
            logits = softcap(logits, float(cap))
    return logits, attentions


def reference_forward(out_dir: str, ids) -> Tuple[np.ndarray, List[np.ndarray]]:
    """The forward of the checkpoint in out_dir (config.json, model.safetensors or shards) on ids, from the stored
    values: (logits (n, vocab) float64, per layer (heads, n, n) attention probabilities)."""
    config, tensors, dtypes = read_checkpoint(out_dir)
    return forward(config, tensors, ids, dtypes["model.embed_tokens.weight"])
