"""Export: the fp16 weights file (.hrm, format in docs/model.md) written and read back, and the
test vectors (inputs, positions and this trainer's logits under several schemes)."""
import base64
import json
import os
import struct

import numpy as np
import torch

from .data import log
from .model import Model, rope_scores
from .reference import reference_scores
from .registry import ROOT

FORMAT_VERSION = 1
MAGIC = b"HRPMODEL"


def fnv1a32(data):
    h = 0x811C9DC5
    for byte in data:
        h = ((h ^ byte) * 0x01000193) & 0xFFFFFFFF
    return h


def tensors_in_order(model):
    out = [model.emb.weight]
    for blk in model.blocks:
        out += [blk.attn_norm.weight, blk.wqkv.weight, blk.wo.weight, blk.mlp_norm.weight,
                blk.w1.weight, blk.w3.weight, blk.w2.weight]
    out.append(model.norm.weight)
    return out


def export_weights(model, cfg, path, name):
    m = cfg["model"]
    flat = torch.cat([t.detach().float().reshape(-1).cpu() for t in tensors_in_order(model)])
    name_bytes = name.encode()
    tokenizer = m.get("tokenizer", "").encode()
    # flags: 1 tied embeddings; 2 a token vocabulary, named after the model's name
    head = MAGIC + struct.pack("<7I2fI", FORMAT_VERSION, m["vocab"], m["d_model"], m["layers"],
                               m["heads"], m["ffn_hidden"], cfg["train"]["context"],
                               float(m["rope_base"]), float(m["norm_eps"]),
                               1 | (2 if tokenizer else 0))
    head += struct.pack("<I", len(name_bytes)) + name_bytes + b"\0" * (-len(name_bytes) % 4)
    if tokenizer:
        head += struct.pack("<I", len(tokenizer)) + tokenizer + b"\0" * (-len(tokenizer) % 4)
    head += struct.pack("<I", flat.numel())
    body = flat.numpy().astype("<f2").tobytes()
    body += b"\0" * (-len(body) % 4)
    data = head + body
    data += struct.pack("<I", fnv1a32(data))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)
    log("weights: %s (%d bytes, %d parameters)" % (path, len(data), flat.numel()))


def load_weights(path):
    """A Model (float32, eval mode) and its config from a weights file written by export_weights."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != MAGIC:
        raise ValueError("%s is not a hirope model file" % path)
    if struct.unpack("<I", data[-4:])[0] != fnv1a32(data[:-4]):
        raise ValueError("%s is corrupted (checksum)" % path)
    version, vocab, d, layers, heads, ffn, context = struct.unpack("<7I", data[8:36])
    if version != FORMAT_VERSION:
        raise ValueError("%s has format version %d, not %d" % (path, version, FORMAT_VERSION))
    base, eps, flags, name_len = struct.unpack("<2f2I", data[36:52])
    at = 52 + name_len + (-name_len % 4)
    tokenizer = ""
    if flags & 2:
        (tok_len,) = struct.unpack("<I", data[at: at + 4])
        tokenizer = data[at + 4: at + 4 + tok_len].decode()
        at += 4 + tok_len + (-tok_len % 4)
    (count,) = struct.unpack("<I", data[at: at + 4])
    flat = torch.from_numpy(np.frombuffer(data, dtype="<f2", count=count, offset=at + 4).astype(np.float32))
    m = {"vocab": vocab, "d_model": d, "layers": layers, "heads": heads, "ffn_hidden": ffn,
         "rope_base": base, "norm_eps": eps, "context": context}
    if tokenizer:
        m["tokenizer"] = tokenizer
    model = Model(m)
    pos = 0
    with torch.no_grad():
        for t in tensors_in_order(model):
            t.copy_(flat[pos: pos + t.numel()].view_as(t))
            pos += t.numel()
    return model.eval(), m


def fp16_roundtrip(model):
    """The model as the fp16 file stores it (inference runs the stored weights in float32)."""
    with torch.no_grad():
        for t in tensors_in_order(model):
            t.copy_(t.half().float())


def units_by_definition(text):
    """A simple, independent unit rule for the test vectors: a new unit at every line that starts
    a top-level def or class. (The C++ test feeds these exact indices.)"""
    units, unit, at_line_start = [], 0, True
    data = text
    for idx in range(len(data)):
        if at_line_start and (data.startswith(b"def ", idx) or data.startswith(b"class ", idx)
                              or data.startswith(b"async def ", idx)) and idx > 0:
            unit += 1
        units.append(unit)
        at_line_start = data[idx] == 0x0A
    return units


VECTOR_SCHEMES = [
    {"type": "rope"},
    {"type": "rope", "scaling": "linear", "factor": 4},
    {"type": "rope", "scaling": "ntk", "factor": 4},
    {"type": "rerope", "window": 48},
    {"type": "self_extend", "window": 48, "group": 4},
    {"type": "hirope", "ratio": 1 / 3, "window": 48, "hierarchy": "segments", "segment": 32},
    {"type": "hirope", "ratio": 0.5, "window": 48, "hierarchy": "units"},
]


def export_vectors(model, cfg, held_out, path, probes, probe_bits, tok=None):
    """Lengths are in bytes for a byte model, in tokens for a token model (whose cases carry the
    ids, and units taken at each token's first byte)."""
    m = cfg["model"]
    hd = m["d_model"] // m["heads"]
    cases = []
    text = held_out[0][1]
    # A token model's rows are long (32,000 logits): every stride-th id is kept, about 500.
    stride = max(1, m["vocab"] // 512)
    if tok:
        all_ids, starts, ends = tok.spans(text)
        byte_units = units_by_definition(text)
    for length in cfg["export"]["vector_lengths"]:
        if tok:
            data = text[: int(ends[length - 1])]
            ids = torch.tensor([all_ids[:length].tolist()], dtype=torch.long)
            n = length
        else:
            data = text[:length]
            ids = torch.tensor([list(data)])
            n = len(data)
        keep = sorted(set(list(range(0, n, 25)) + [n - 1]))
        for scheme in VECTOR_SCHEMES:
            if scheme["type"] == "hirope" and scheme["hierarchy"] == "segments":
                units = [t // scheme["segment"] for t in range(n)]
            elif tok:
                units = [byte_units[int(starts[t])] for t in range(n)]
            else:
                units = units_by_definition(data)
            with torch.no_grad():
                fn = reference_scores(scheme, n, hd, m["rope_base"], units, "cpu")
                logits = model(ids, fn)[0]
                if scheme == {"type": "rope"}:  # the training path must agree with the reference
                    direct = model(ids, rope_scores(n, hd, m["rope_base"], "cpu"))[0]
                    err = (direct - logits).abs().max().item()
                    assert err < 1e-3, "reference scores disagree with training RoPE: %g" % err
            case = {"scheme": scheme, "input": base64.b64encode(data).decode(), "positions": keep,
                    "logits": [[round(float(x), 5) for x in logits[p][::stride]] for p in keep]}
            if tok:
                case["ids"] = ids[0].tolist()
            if scheme["type"] == "hirope":
                case["units"] = units
            cases.append(case)
    with open(path, "w") as f:
        control = [{"style": p["style"], "input": base64.b64encode(p["text"]).decode(),
                    "first": p["first"], "second": p["second"],
                    "bits": [round(b[0], 4), round(b[1], 4)]} for p, b in zip(probes, probe_bits)]
        if tok:  # spans of token indices; the ids as this trainer's tokenizer gave them
            for c, p in zip(control, probes):
                c.update(ids=p["ids"], first=p["first_tokens"], second=p["second_tokens"])
        json.dump({"format": FORMAT_VERSION, "source": os.path.relpath(held_out[0][0], ROOT)
                   if tok else held_out[0][0], "tokenizer": m.get("tokenizer"),
                   "vocab_stride": stride, "cases": cases,
                   "copy_control": {"threshold_bits": cfg["copy_control"]["threshold_bits"],
                                    "probes": control}}, f)
        f.write("\n")
    log("test vectors: %s (%d cases)" % (path, len(cases)))
