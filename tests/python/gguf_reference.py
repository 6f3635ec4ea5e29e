"""GGUF files of the tests' checkpoints, for the comparison with llama.cpp (issue 51, section 5).

Written from the format's own description (ggml-org/ggml, docs/gguf.md, version 3) and llama.cpp's converter
(convert_hf_to_gguf.py: LlamaModel.modify_tensors permutes q_proj and k_proj, Qwen2Model does not; the key names of
gguf-py/gguf/constants.py), never from hirope's code:
  file: "GGUF", uint32 version 3, uint64 tensor count, uint64 key/value count, the key/values, the tensor infos,
      zero padding to general.alignment (32 when absent), then the tensor data, each tensor at an offset (from the
      data's start) that is a multiple of the alignment. All little-endian.
  string: uint64 byte length, UTF-8 bytes (no terminator). key/value: string key, uint32 value type, the value;
      an array is uint32 element type, uint64 count, the elements.
  tensor info: string name, uint32 dimension count, uint64 per dimension (ne: the fastest-varying first, so a torch
      weight of shape (out, in) is [in, out]), uint32 ggml type (F32 0, F16 1, BF16 30), uint64 offset.
  llama: q_proj and k_proj rows permuted per head from transformers' rotate_half layout to ggml's interleaved one
      (permute(w, n_head): w.reshape(n_head, 2, rows // n_head // 2, cols).swapaxes(1, 2).reshape(w.shape), with
      n_head = num_key_value_heads for k_proj). qwen2: no permutation (ggml rotates it in NEOX order), q/k/v biases.
  tensor names (gguf-py/gguf/tensor_mapping.py): token_embd, blk.N.attn_norm, attn_q, attn_k, attn_v,
      attn_output, ffn_norm, ffn_gate, ffn_up, ffn_down, output_norm, output (absent when the embeddings are tied:
      llama.cpp then reads token_embd).
The vocabulary is a byte-level "gpt2" one with no merges (GPT-2's bytes_to_unicode characters of bytes 0..255, then
"<tN>" texts): the comparisons give llama.cpp token ids, so only its loader needs it."""

import struct
from typing import Any, Dict, List, Mapping, Tuple

import numpy as np

GGML_TYPES = {"F32": (0, "<f4"), "F16": (1, "<f2")}
_U32, _F32, _BOOL, _STRING, _ARRAY, _I32 = 4, 6, 7, 8, 9, 5
ALIGNMENT = 32


def _string(text: str) -> bytes:
    raw = text.encode("utf-8")
    return struct.pack("<Q", len(raw)) + raw


def _value(kind: int, value: Any) -> bytes:
    if kind == _U32:
        return struct.pack("<I", value)
    if kind == _I32:
        return struct.pack("<i", value)
    if kind == _F32:
        return struct.pack("<f", value)
    if kind == _BOOL:
        return struct.pack("<?", value)
    if kind == _STRING:
        return _string(value)
    raise ValueError(f"value type {kind} is not written here")


def _kv(key: str, kind: int, value: Any) -> bytes:
    if kind == _ARRAY:
        element, items = value
        return (_string(key) + struct.pack("<I", _ARRAY) + struct.pack("<IQ", element, len(items))
                + b"".join(_value(element, item) for item in items))
    return _string(key) + struct.pack("<I", kind) + _value(kind, value)


def bytes_to_unicode() -> List[str]:
    """GPT-2's byte-to-character table (openai/gpt-2 encoder.py bytes_to_unicode), indexed by byte."""
    printable = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(
        range(ord("®"), ord("ÿ") + 1))
    table, extra = {}, 0
    for b in range(256):
        if b in printable:
            table[b] = chr(b)
        else:
            table[b] = chr(256 + extra)
            extra += 1
    return [table[b] for b in range(256)]


def _vocabulary(n: int) -> List[str]:
    """n token texts: the bytes' characters, then "<tN>" for a vocabulary larger than 256."""
    return bytes_to_unicode()[:n] + [f"<t{i}>" for i in range(256, n)]


def _permute(w: np.ndarray, n_head: int) -> np.ndarray:
    return w.reshape(n_head, 2, w.shape[0] // n_head // 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)


def gguf_tensors(config: Mapping[str, Any], tensors: Mapping[str, np.ndarray]) -> List[Tuple[str, np.ndarray]]:
    """(GGUF name, float64 array) for a llama or qwen2 checkpoint's transformers tensors."""
    arch = config["model_type"]
    if arch not in ("llama", "qwen2"):
        raise ValueError(f"GGUF is written here for llama and qwen2, not {arch!r}")
    heads, kv_heads = int(config["num_attention_heads"]), int(config["num_key_value_heads"])
    out = [("token_embd.weight", tensors["model.embed_tokens.weight"])]
    for i in range(int(config["num_hidden_layers"])):
        p = f"model.layers.{i}."
        q, k = tensors[p + "self_attn.q_proj.weight"], tensors[p + "self_attn.k_proj.weight"]
        if arch == "llama":
            q, k = _permute(q, heads), _permute(k, kv_heads)
        out += [(f"blk.{i}.attn_norm.weight", tensors[p + "input_layernorm.weight"]),
                (f"blk.{i}.attn_q.weight", q), (f"blk.{i}.attn_k.weight", k),
                (f"blk.{i}.attn_v.weight", tensors[p + "self_attn.v_proj.weight"])]
        if arch == "qwen2":
            out += [(f"blk.{i}.attn_{x}.bias", tensors[p + f"self_attn.{x}_proj.bias"]) for x in "qkv"]
        out += [(f"blk.{i}.attn_output.weight", tensors[p + "self_attn.o_proj.weight"]),
                (f"blk.{i}.ffn_norm.weight", tensors[p + "post_attention_layernorm.weight"]),
                (f"blk.{i}.ffn_gate.weight", tensors[p + "mlp.gate_proj.weight"]),
                (f"blk.{i}.ffn_up.weight", tensors[p + "mlp.up_proj.weight"]),
                (f"blk.{i}.ffn_down.weight", tensors[p + "mlp.down_proj.weight"])]
    out.append(("output_norm.weight", tensors["model.norm.weight"]))
    if not config.get("tie_word_embeddings"):
        out.append(("output.weight", tensors["lm_head.weight"]))
    return out


def write_gguf(path: str, config: Mapping[str, Any], tensors: Mapping[str, np.ndarray], dtype: str = "F32",
               rope_scaling: Mapping[str, Any] = None) -> None:
    """Writes a llama or qwen2 checkpoint (its config.json as a dict, its float tensors by transformers' names) as
    GGUF: matrices and embeddings in `dtype` (F32 or F16), norms and biases in F32 as the converter keeps them.
    rope_scaling (transformers' form; the config's own when None): "linear" or "yarn", written as the converter's
    {arch}.rope.scaling.type, .factor and (yarn) .original_context_length."""
    arch = config["model_type"]
    hidden, heads = int(config["hidden_size"]), int(config["num_attention_heads"])
    head_dim = int(config.get("head_dim") or hidden // heads)
    vocab = int(config["vocab_size"])
    eps = float(config.get("rms_norm_eps", 1e-6))
    kvs = [
        _kv("general.architecture", _STRING, arch),
        _kv("general.alignment", _U32, ALIGNMENT),
        _kv(f"{arch}.context_length", _U32, int(config["max_position_embeddings"])),
        _kv(f"{arch}.embedding_length", _U32, hidden),
        _kv(f"{arch}.block_count", _U32, int(config["num_hidden_layers"])),
        _kv(f"{arch}.feed_forward_length", _U32, int(config["intermediate_size"])),
        _kv(f"{arch}.attention.head_count", _U32, heads),
        _kv(f"{arch}.attention.head_count_kv", _U32, int(config["num_key_value_heads"])),
        _kv(f"{arch}.attention.key_length", _U32, head_dim),
        _kv(f"{arch}.attention.value_length", _U32, head_dim),
        _kv(f"{arch}.attention.layer_norm_rms_epsilon", _F32, eps),
        _kv(f"{arch}.rope.freq_base", _F32, float(config.get("rope_theta", 10000.0))),
        _kv(f"{arch}.rope.dimension_count", _U32, head_dim),
        _kv(f"{arch}.vocab_size", _U32, vocab),
    ]
    scaling = rope_scaling if rope_scaling is not None else config.get("rope_scaling")
    if scaling:
        kind = scaling.get("rope_type", scaling.get("type"))
        if kind not in ("linear", "yarn"):
            raise ValueError(f"rope scaling {kind!r} is not written here")
        kvs += [_kv(f"{arch}.rope.scaling.type", _STRING, kind),
                _kv(f"{arch}.rope.scaling.factor", _F32, float(scaling["factor"]))]
        if kind == "yarn":
            kvs.append(_kv(f"{arch}.rope.scaling.original_context_length", _U32,
                           int(scaling["original_max_position_embeddings"])))
    kvs += [
        _kv("tokenizer.ggml.model", _STRING, "gpt2"),
        _kv("tokenizer.ggml.pre", _STRING, "default"),
        _kv("tokenizer.ggml.tokens", _ARRAY, (_STRING, _vocabulary(vocab))),
        _kv("tokenizer.ggml.token_type", _ARRAY, (_I32, [1] * vocab)),
        _kv("tokenizer.ggml.merges", _ARRAY, (_STRING, [])),
        _kv("tokenizer.ggml.bos_token_id", _U32, 0),
        _kv("tokenizer.ggml.eos_token_id", _U32, 1),
        _kv("tokenizer.ggml.add_bos_token", _BOOL, False),  # a prompt is its own tokens, nothing added
    ]
    infos: List[bytes] = []
    blobs: List[bytes] = []
    offset = 0
    for name, array in gguf_tensors(config, tensors):
        kind = dtype if array.ndim == 2 else "F32"
        code, numpy_type = GGML_TYPES[kind]
        data = np.ascontiguousarray(array, dtype=np.float64).astype(numpy_type).tobytes()
        pad = -offset % ALIGNMENT
        blobs.append(b"\0" * pad + data)
        offset += pad
        ne = list(reversed(array.shape))
        infos.append(_string(name) + struct.pack("<I", len(ne)) + struct.pack(f"<{len(ne)}Q", *ne)
                     + struct.pack("<IQ", code, offset))
        offset += len(data)
    head = b"GGUF" + struct.pack("<IQQ", 3, len(infos), len(kvs)) + b"".join(kvs) + b"".join(infos)
    with open(path, "wb") as f:
        f.write(head)
        f.write(b"\0" * (-len(head) % ALIGNMENT))
        for blob in blobs:
            f.write(blob)


def write_gguf_from_checkpoint(folder: str, path: str, dtype: str = "F32") -> Dict[str, Any]:
    """The checkpoint in `folder` (config.json and its safetensors, read by checkpoint_reference) as GGUF."""
    from checkpoint_reference import read_checkpoint

    config, tensors, _ = read_checkpoint(folder)
    write_gguf(path, config, tensors, dtype)
    return config
