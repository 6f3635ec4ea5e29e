#!/usr/bin/env python3
"""Trains one of hirope's code models and exports its weights and test vectors.

    /usr/bin/python3 training/train.py [--config FILE] [--steps N] [--device cpu|cuda] [--out DIR]

Reads a config (training/config.json: the byte model; training/config-pyjs.json: the token
model; seed, hyperparameters, export paths) and its manifest (data.manifest: the files, their
SHA-256 and split). A config whose model names a tokenizer trains on its token ids: hirope's own
tokenizer (training/tokenize.mjs, from dist/) tokenizes the files once (cached under
build/training/) and every augmented sequence, and lengths count tokens. Every file's hash is checked first: a different file is an error,
so a run is either the documented one or refused. Writes the fp16 weights file (format in
docs/model.md) and a JSON of test vectors: inputs, positions and this trainer's logits under
several position schemes, computed from the schemes' relative-distance formulas (docs/schemes.md
sections 2.1, 3.1 - 3.2, 5 and 6.3), which the C++ inference must match.
"""
import argparse
import base64
import copy
import ctypes
import hashlib
import json
import math
import os
import struct
import sys
import time

import random

import numpy as np
import torch
import torch.nn.functional as F

import circuits
import copying

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FORMAT_VERSION = 1
MAGIC = b"HRPMODEL"


def keep_freed_memory():
    """Asks glibc to keep freed memory for reuse instead of handing it back to the kernel. Each
    step allocates and frees tensors of tens of MB (the logits of a batch over the vocabulary);
    by default glibc maps each anew and unmaps it when freed, so every step pays the kernel to
    zero fresh pages again. On this project's 2-core VM a token-model step (8 x 512 tokens, one
    thread) took 13.7 s that way, two thirds of it in the kernel, and 4.1 s with this. Returns
    whether glibc took the settings (elsewhere it is a no-op)."""
    try:
        libc = ctypes.CDLL("libc.so.6")
    except OSError:
        return False
    m_trim_threshold, m_top_pad, m_mmap_max = -1, -2, -4
    return all(libc.mallopt(option, value) == 1 for option, value in (
        (m_mmap_max, 0), (m_trim_threshold, 2 ** 31 - 1), (m_top_pad, 2 ** 28)))


def log(*args):
    print("train:", *args, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------
# Data


MANIFEST = "training/manifest.tsv"  # the config's data.manifest (set in main)


def read_manifest(split):
    rows = []
    with open(os.path.join(ROOT, MANIFEST)) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            path, size, sha, part = line.rstrip("\n").split("\t")
            if part == split:  # relative paths are the repository's (node_modules)
                rows.append((os.path.join(ROOT, path), int(size), sha))
    return rows


def load_files(split, strict=True):
    """The bytes of every manifest file of a split, hash-checked."""
    files = []
    for path, size, sha in read_manifest(split):
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError as e:
            if strict:
                sys.exit("train: %s is missing (%s); the manifest names it" % (path, e))
            continue
        if hashlib.sha256(data).hexdigest() != sha:
            if strict:
                sys.exit("train: %s differs from the manifest (SHA-256 mismatch): this machine has "
                         "another version of the file" % path)
            continue
        files.append((path, data))
    return files


class Tokenizer:
    """hirope's tokenizer (training/tokenize.mjs over a pipe) for models with a token vocabulary:
    ids(bytes) -> list of ids; spans(bytes) -> (ids, starts, ends) with byte offsets."""

    def __init__(self, name):
        import subprocess
        self.name = name
        self.proc = subprocess.Popen(["node", os.path.join(ROOT, "training", "tokenize.mjs"), name],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def _ask(self, mode, data):
        self.proc.stdin.write(struct.pack("<II", mode, len(data)) + data)
        self.proc.stdin.flush()
        head = self.proc.stdout.read(4)
        if len(head) != 4:
            sys.exit("train: the tokenizer process stopped (is dist/ built? npm run build)")
        (count,) = struct.unpack("<I", head)
        ids = np.frombuffer(self.proc.stdout.read(4 * count), dtype="<i4")
        if mode == 0:
            return ids
        starts = np.frombuffer(self.proc.stdout.read(4 * count), dtype="<u4")
        ends = np.frombuffer(self.proc.stdout.read(4 * count), dtype="<u4")
        return ids, starts, ends

    def ids(self, data):
        return self._ask(0, data)

    def spans(self, data):
        return self._ask(1, data)


def token_stream(files, tok, split):
    """Every file's token ids, files joined by a newline token, cached under build/training/ by
    the manifest's hashes (uint16: both vocabularies fit)."""
    key = hashlib.sha256(("%s\n" % tok.name + "\n".join(
        hashlib.sha256(d).hexdigest() for _, d in files)).encode()).hexdigest()[:16]
    cache = os.path.join(ROOT, "build", "training", "%s-%s-%s.u16" % (tok.name, split, key))
    if os.path.exists(cache):
        return torch.from_numpy(np.fromfile(cache, dtype="<u2").astype(np.int64))
    newline = tok.ids(b"\n")[-1:]
    parts = []
    for _, data in files:
        parts += [tok.ids(data), newline]
    ids = np.concatenate(parts).astype("<u2")
    os.makedirs(os.path.dirname(cache), exist_ok=True)
    ids.tofile(cache)
    return torch.from_numpy(ids.astype(np.int64))


# ---------------------------------------------------------------------------------------------
# Model: pre-norm decoder, RMSNorm, half-split RoPE, SwiGLU, tied embeddings.


class RMSNorm(torch.nn.Module):
    def __init__(self, d, eps):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.ones(d))
        self.eps = eps

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


class Block(torch.nn.Module):
    def __init__(self, m):
        super().__init__()
        d, f = m["d_model"], m["ffn_hidden"]
        self.heads = m["heads"]
        self.attn_norm = RMSNorm(d, m["norm_eps"])
        self.wqkv = torch.nn.Linear(d, 3 * d, bias=False)
        self.wo = torch.nn.Linear(d, d, bias=False)
        self.mlp_norm = RMSNorm(d, m["norm_eps"])
        self.w1 = torch.nn.Linear(d, f, bias=False)
        self.w3 = torch.nn.Linear(d, f, bias=False)
        self.w2 = torch.nn.Linear(f, d, bias=False)

    def forward(self, x, scores_fn):
        b, n, d = x.shape
        hd = d // self.heads
        q, k, v = self.wqkv(self.attn_norm(x)).split(d, dim=-1)
        q = q.view(b, n, self.heads, hd).transpose(1, 2)
        k = k.view(b, n, self.heads, hd).transpose(1, 2)
        v = v.view(b, n, self.heads, hd).transpose(1, 2)
        scores = scores_fn(q, k)  # b, heads, n, n (masked with -inf)
        attn = torch.softmax(scores, dim=-1) @ v
        x = x + self.wo(attn.transpose(1, 2).reshape(b, n, d))
        h = self.mlp_norm(x)
        return x + self.w2(F.silu(self.w1(h)) * self.w3(h))


class Model(torch.nn.Module):
    def __init__(self, m):
        super().__init__()
        self.m = m
        self.emb = torch.nn.Embedding(m["vocab"], m["d_model"])
        self.blocks = torch.nn.ModuleList(Block(m) for _ in range(m["layers"]))
        self.norm = RMSNorm(m["d_model"], m["norm_eps"])
        torch.nn.init.normal_(self.emb.weight, std=0.02)
        for blk in self.blocks:
            for lin in (blk.wqkv, blk.w1, blk.w3):
                torch.nn.init.normal_(lin.weight, std=0.02)
            for lin in (blk.wo, blk.w2):  # residual projections, scaled by depth
                torch.nn.init.normal_(lin.weight, std=0.02 / math.sqrt(2 * m["layers"]))

    def hidden(self, ids, scores_fn):
        """The final normed states, before the output layer."""
        x = self.emb(ids)
        for blk in self.blocks:
            x = blk(x, scores_fn)
        return self.norm(x)

    def forward(self, ids, scores_fn):
        return self.hidden(ids, scores_fn) @ self.emb.weight.T


def inverse_frequencies(hd, base):
    return 1.0 / (base ** (torch.arange(0, hd // 2, dtype=torch.float64) * 2.0 / hd))


def seed_previous_token_head(model, init, seed):
    """A fresh model's head init["head"] of layer init["layer"] made a previous-token head: every
    embedding gets a shared component of norm init["common"] along one random direction u, and the
    head's query and key read u, with the query turned back by one position's RoPE angle in
    every pair, so that its scores peak one token back whatever the tokens are. Its values, and
    everything else, start as usual and are trained.

    Why: copying needs an induction circuit, and its first half, a head that attends to the
    previous token, never formed in the token model trained from a plain init (no layer-0 head
    put more than 0.03 of its attention one token back after 1,000 steps; the byte model's puts
    0.83). RoPE without biases can only attend by position through a component that all inputs
    share, and the token model's embeddings had none. The shared component changes no output:
    with tied embeddings it adds the same amount to every logit."""
    m = model.m
    d, heads = m["d_model"], m["heads"]
    hd = d // heads
    gen = torch.Generator().manual_seed(seed)
    u = torch.randn(d, generator=gen)
    u /= u.norm()
    with torch.no_grad():
        model.emb.weight += init["common"] * u
        # After the layer's RMSNorm the shared part is about sqrt(d) * common / |embedding| of u;
        # 1/sqrt(d) per unit keeps the query and key near init["strength"] per pair.
        w = model.blocks[init["layer"]].wqkv.weight  # rows: queries, keys, values
        theta = inverse_frequencies(hd, m["rope_base"]).float()
        scale = init["strength"] / math.sqrt(d)
        at = init["head"] * hd
        for p in range(hd // 2):
            w[at + p] = scale * math.cos(theta[p]) * u
            w[at + p + hd // 2] = -scale * math.sin(theta[p]) * u
            w[d + at + p] = scale * u
            w[d + at + p + hd // 2] = 0.0


def rope_scores(n, hd, base, device):
    """Training attention: RoPE in the half-split layout (pairs j, j + hd/2), causal."""
    inv = inverse_frequencies(hd, base).to(device)
    ang = torch.arange(n, dtype=torch.float64, device=device)[:, None] * inv[None, :]
    cos = torch.cat([ang.cos(), ang.cos()], -1).float()
    sin = torch.cat([ang.sin(), ang.sin()], -1).float()
    mask = torch.full((n, n), float("-inf"), device=device).triu(1)

    def rot(x):
        x1, x2 = x[..., : hd // 2], x[..., hd // 2:]
        return x * cos + torch.cat([-x2, x1], -1) * sin

    def fn(q, k):
        return (rot(q) @ rot(k).transpose(-1, -2)) / math.sqrt(hd) + mask

    return fn


# ---------------------------------------------------------------------------------------------
# Reference scores for the inference-time schemes, from the relative-distance formulas: the
# score of query i and key j is sum_p Re(q_p conj(k_p) exp(i * D_p(i, j) * theta_p)) with
# q_p = q[p] + i q[p + hd/2], D_p the distance rule of pair p's band.


def scheme_distances(scheme, n, units):
    """Per-band distance matrices (float64, n x n) and the band of every pair."""
    i = np.arange(n)[:, None].astype(np.float64)
    j = np.arange(n)[None, :].astype(np.float64)
    delta = i - j
    kind = scheme["type"]
    if kind == "rope":
        return [delta], None
    w = scheme["window"]
    if kind == "rerope":
        return [np.where(delta < w, delta, w)], None
    if kind == "self_extend":
        g = scheme["group"]
        far = np.floor(i / g) - np.floor(j / g) + w - math.floor(w / g)
        return [np.where(delta < w, delta, far)], None
    if kind == "hirope":
        f = np.asarray(units, dtype=np.float64)
        far = f[:, None] - f[None, :] + w - 1
        return [delta, np.where(delta < w, delta, far)], "hirope"
    raise ValueError(kind)


def reference_scores(scheme, n, hd, base, units, device):
    inv = inverse_frequencies(hd, base)
    scaling = scheme.get("scaling")
    if scaling == "linear":
        inv = inv / scheme["factor"]
    elif scaling == "ntk":
        s = scheme["factor"]
        inv = inverse_frequencies(hd, base * s ** (hd / (hd - 2)))
    dists, split = scheme_distances(scheme, n, units)
    pairs = hd // 2
    band = np.zeros(pairs, dtype=np.int64)
    if split == "hirope":
        ds = 2 * round(scheme["ratio"] * hd / 2)  # round_to_even(ratio * d)
        band[ds // 2:] = 1
    # phase[p] = exp(i * D_band(p) * theta_p), n x n complex per pair
    phase = torch.stack([torch.polar(torch.ones(n, n, dtype=torch.float64),
                                     torch.from_numpy(dists[band[p]]) * inv[p])
                         for p in range(pairs)]).to(device)
    mask = torch.full((n, n), float("-inf"), dtype=torch.float64, device=device).triu(1)

    def fn(q, k):
        q = q.double()
        k = k.double()
        qc = torch.complex(q[..., :pairs], q[..., pairs:])  # b, h, n, pairs
        kc = torch.complex(k[..., :pairs], k[..., pairs:])
        prod = qc[..., :, None, :] * kc.conj()[..., None, :, :]  # b, h, n, n, pairs
        s = (prod * phase.permute(1, 2, 0)).real.sum(-1)
        return (s / math.sqrt(hd) + mask).float()

    return fn


# ---------------------------------------------------------------------------------------------
# Export


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


# ---------------------------------------------------------------------------------------------
# Training


def batches(stream, context, batch, gen, augment=None, seed=0):
    """Random windows of context + 1 bytes; with augment ({fraction, mix}), that fraction of them
    rewritten by copying.augment from a source of three contexts' bytes."""
    hi = len(stream) - 3 * (context + 1)
    rng = random.Random(seed)
    raw = stream.numpy() if augment else None
    while True:
        starts = torch.randint(0, hi, (batch,), generator=gen).tolist()
        rows = []
        for s in starts:
            row = stream[s: s + context + 1]
            if augment and rng.random() < augment["fraction"]:
                out = copying.augment(raw[s: s + 3 * (context + 1)].tobytes(), rng, augment["mix"],
                                      context)
                if len(out) == context + 1:
                    row = torch.frombuffer(bytearray(out), dtype=torch.uint8)
            rows.append(row)
        chunk = torch.stack(rows)
        yield chunk[:, :-1].long(), chunk[:, 1:].long()


def token_batches(stream, raw, context, batch, gen, tok, augment=None, seed=0):
    """Random windows of context + 1 tokens; with augment, that fraction of the rows instead
    comes from copying.augment applied to bytes (a random place in the raw byte stream,
    augment["bytes_per_token"] bytes per token of context, 5 unless given: the rewrites place
    their copies within those bytes), tokenized, cut to context + 1 tokens. With
    augment["token_repeats"], a fraction of the rows (drawn first) are copying.repeat_tokens,
    and its "uniform" fraction of their blocks draw each of the corpus's distinct ids alike."""
    hi = len(stream) - (context + 1)
    span = int((augment or {}).get("bytes_per_token", 5) * context)
    raw_hi = len(raw) - 3 * (span + 1)
    rng = random.Random(seed)
    repeats = (augment or {}).get("token_repeats")
    pool = stream.numpy()
    uniform = (repeats or {}).get("uniform", 0.0)
    distinct = np.unique(pool) if uniform else None
    while True:
        rows = []
        for s in torch.randint(0, hi, (batch,), generator=gen).tolist():
            row = stream[s: s + context + 1]
            if repeats and rng.random() < repeats["fraction"]:
                row = torch.tensor(copying.repeat_tokens(pool, rng, context + 1,
                                                         repeats["sizes"], repeats["gap"],
                                                         distinct, uniform))
            elif augment and rng.random() < augment["fraction"]:
                at = rng.randrange(0, raw_hi)
                out = copying.augment(raw[at: at + 3 * (span + 1)], rng, augment["mix"], span)
                ids = tok.ids(out)
                if len(ids) >= context + 1:
                    row = torch.from_numpy(ids[: context + 1].astype(np.int64))
            rows.append(row)
        chunk = torch.stack(rows)
        yield chunk[:, :-1].long(), chunk[:, 1:].long()


def step_loss(model, x, y, fn, mask=None, kept=None):
    """A training step's loss in nats: cross-entropy of targets y given inputs x, over the positions
    mask selects (all when None), with the softmax over the token ids in kept only (all when
    None; targets outside kept are left out of the mean)."""
    h = model.hidden(x, fn)
    if mask is not None:
        h, y = h[mask], y[mask]
    else:
        h, y = h.reshape(-1, h.shape[-1]), y.reshape(-1)
    if kept is None:
        return F.cross_entropy(h @ model.emb.weight.T, y)
    slot = torch.full((model.m["vocab"],), -1, dtype=torch.long, device=y.device)
    slot[kept] = torch.arange(len(kept), device=y.device)
    return F.cross_entropy(h @ model.emb.weight[kept].T, slot[y], ignore_index=-1)


def loss_positions(x, y, rule, common, gen):
    """Which predictions a step's loss counts, as a (batch, n) bool mask: every target that a
    copy could supply (copying.copy_targets) and a random rule["other_fraction"] of the rest.
    The output layer over the vocabulary dominates a step, so computing it for the positions
    that teach copying (about 40% of them) makes a step cheaper (2.1 s instead of 3.6 for
    8 x 512 llama2 tokens, two runs side by side on 2 cores) and weights the loss toward
    copying; the held-out loss still counts every position."""
    full = torch.cat([x[:, :1], y], dim=1).tolist()  # row r: tokens 0..len, target t is t + 1
    mask = torch.rand(y.shape, generator=gen) < rule["other_fraction"]
    copyable = torch.tensor([copying.copy_targets(row, rule["ngram"], common) for row in full])
    return mask | copyable


def tokenize_probes(probes, tok):
    """Adds each probe's ids and its two spans as token indices: the tokens that overlap the
    name's or line's bytes (a name's first token usually carries the space before it)."""
    for p in probes:
        ids, starts, ends = tok.spans(p["text"])
        p["ids"] = ids.tolist()
        for key in ("first", "second"):
            a, b = p[key]
            inside = [k for k in range(len(ids)) if starts[k] < b and ends[k] > a]
            p[key + "_tokens"] = [inside[0], inside[-1] + 1]


def copy_control(model, probes, device):
    """Mean bits/byte (a token model: bits/token) of each probe style at its first and second
    occurrence (RoPE, the training scheme), and "after_first": the second occurrence without
    its first unit, the part a copy can supply (nothing before the second occurrence says which
    name or line comes, so its first unit is a guess): {style: {"first", "second",
    "after_first"}}, plus per-probe (first, second) values."""
    hd = model.m["d_model"] // model.m["heads"]
    per, tails = [], []
    with torch.no_grad():
        for p in probes:
            tokens = "ids" in p
            seq = p["ids"] if tokens else list(p["text"])
            ids = torch.tensor([seq], device=device)
            logits = model(ids, rope_scores(len(seq), hd, model.m["rope_base"], device))[0]
            losses = F.cross_entropy(logits[:-1], ids[0, 1:], reduction="none") / math.log(2)
            losses = losses.tolist()
            first = p["first_tokens"] if tokens else p["first"]
            second = p["second_tokens"] if tokens else p["second"]
            per.append((copying.span_bits(losses, first), copying.span_bits(losses, second)))
            after = [second[0] + 1, second[1]]
            tails.append(copying.span_bits(losses, after) if after[1] > after[0] else None)
    out = {}
    for style in sorted({p["style"] for p in probes}):
        rows = [v for p, v in zip(probes, per) if p["style"] == style]
        after = [t for p, t in zip(probes, tails) if p["style"] == style and t is not None]
        out[style] = {"first": round(sum(r[0] for r in rows) / len(rows), 4),
                      "second": round(sum(r[1] for r in rows) / len(rows), 4),
                      "after_first": round(sum(after) / len(after), 4) if after else None}
    return out, per


def circuit_heads(model, stream, context, windows=4):
    """The strongest previous-token and induction heads (circuits.strongest) over the first
    windows consecutive windows of context ids of stream (the held-out split): when copying
    appears on the loss curve, these show the circuit that does it."""
    hd = model.m["d_model"] // model.m["heads"]
    if next(model.parameters()).device.type != "cpu":  # read on a CPU copy; training goes on
        model = copy.deepcopy(model).cpu()
    rows = [stream[k * context: (k + 1) * context].tolist() for k in range(windows)]
    scores = circuits.head_scores(model, rows,
                                  lambda n: rope_scores(n, hd, model.m["rope_base"], "cpu"))
    return circuits.strongest(scores)


def evaluate(model, stream, context, batch, batches_n, device, gen):
    """Mean held-out loss in bits per byte (per token for a token model) over random windows of
    stream (the held-out bytes or token ids), in batches of the training batch size."""
    it = batches(stream, context, batch, gen)
    fn = rope_scores(context, model.m["d_model"] // model.m["heads"], model.m["rope_base"], device)
    total = 0.0
    vocab = model.m["vocab"]
    with torch.no_grad():
        for _ in range(batches_n):
            x, y = next(it)
            logits = model(x.to(device), fn)
            total += F.cross_entropy(logits.reshape(-1, vocab), y.to(device).reshape(-1)).item()
    return total / batches_n / math.log(2)


def train_phase(model, cfg, phase, number, data, held_stream, probes, device, curve, offset):
    """One phase: a fresh AdamW, warmup then cosine over phase["steps"], batches seeded by the
    phase number, augmented with phase["augment"]. Ends with the weights rounded to fp16 (as a
    later phase started from the exported file would see them)."""
    seed = cfg["seed"] + 1000 * (number - 1)
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    decay = [p for p in model.parameters() if p.dim() >= 2]
    no_decay = [p for p in model.parameters() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": phase["weight_decay"]},
                             {"params": no_decay, "weight_decay": 0.0}],
                            lr=phase["lr"], betas=tuple(phase["betas"]))
    hd = cfg["model"]["d_model"] // cfg["model"]["heads"]
    fn = rope_scores(phase["context"], hd, cfg["model"]["rope_base"], device)
    if data["tok"]:
        it = token_batches(data["stream"], data["raw"], phase["context"], phase["batch"], gen,
                           data["tok"], phase.get("augment"), seed)
    else:
        it = batches(data["stream"], phase["context"], phase["batch"], gen, phase.get("augment"),
                     seed)
    vocab = cfg["model"]["vocab"]
    unit = "token" if data["tok"] else "byte"
    rule = phase.get("loss_positions")
    keep = phase.get("output_vocab")
    if rule or keep:  # a pass over the whole corpus: only for the settings that need it
        by_frequency = torch.bincount(data["stream"], minlength=vocab).argsort(descending=True)
    if rule:
        common = torch.zeros(vocab, dtype=torch.bool)
        common[by_frequency[: rule["common"]]] = True
        common = common.tolist()
    # output_vocab K: the loss's softmax runs over the K most frequent training tokens only, and
    # targets outside them are left out. The output layer over all 32,000 tokens is most of a
    # step's cost; K = 8,192 covers 98.7% of the token corpus's targets at a quarter of it.
    kept = by_frequency[:keep].to(device) if keep else None
    start = time.time()
    window, counted = [], []
    steps = phase["steps"]
    for step in range(1, steps + 1):
        if step <= phase["warmup_steps"]:
            lr = phase["lr"] * step / phase["warmup_steps"]
        else:
            progress = (step - phase["warmup_steps"]) / max(1, steps - phase["warmup_steps"])
            lr = phase["lr"] * (phase["min_lr_fraction"] + (1 - phase["min_lr_fraction"]) * 0.5 *
                                (1 + math.cos(math.pi * progress)))
        for group in opt.param_groups:
            group["lr"] = lr
        x, y = next(it)
        mask = None
        if rule:
            mask = loss_positions(x, y, rule, common, gen).to(device)
            counted.append(mask.float().mean().item())
        loss = step_loss(model, x.to(device), y.to(device), fn, mask, kept)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), phase["grad_clip"])
        opt.step()
        window.append(loss.item() / math.log(2))
        at = offset + step
        if step % 50 == 0:
            curve["train"].append({"step": at, "bits": round(sum(window) / len(window), 4),
                                   "lr": lr, "seconds": round(time.time() - start, 1)})
            if rule:
                curve["train"][-1]["counted"] = round(sum(counted) / len(counted), 3)
            window, counted = [], []
            log("phase %d step %d/%d (%d) loss %.3f bits/%s (training mix%s), lr %.2e, %.0f s" %
                (number, step, steps, at, curve["train"][-1]["bits"], unit,
                 ", %.0f%% of positions" % (100 * curve["train"][-1]["counted"]) if rule else "",
                 lr, time.time() - start))
        if step % phase["eval_every"] == 0 or step == steps:
            model.eval()
            ev = evaluate(model, held_stream, phase["context"], phase["batch"],
                          phase["eval_batches"], device,
                          torch.Generator().manual_seed(cfg["seed"] + 1))
            control, _ = copy_control(model, probes, device)
            heads = circuit_heads(model, held_stream, phase["context"])
            model.train()
            curve["eval"].append({"step": at, "held_out_bits": round(ev, 4), "copy": control,
                                  "heads": heads})
            log("step %d held-out %.3f bits/%s; copy control (first -> second occurrence, "
                "without its first unit): %s" % (at, ev, unit, ", ".join(
                    "%s %.2f -> %.2f (%s)" % (k, v["first"], v["second"],
                                              "-" if v["after_first"] is None
                                              else "%.2f" % v["after_first"])
                    for k, v in control.items())))
            log("strongest heads (layer, head, score): %s" % heads)
    log("phase %d trained in %.0f s" % (number, time.time() - start))
    curve["phases"].append({"phase": number, "from": offset + 1, "to": offset + steps,
                            "seconds": round(time.time() - start, 1), "threads": phase["threads"]})
    if rule:  # its training loss counts only these positions
        curve["phases"][-1]["loss_positions"] = {k: v for k, v in rule.items() if k != "comment"}
    if keep:  # and its softmax only these tokens
        curve["phases"][-1]["output_vocab"] = keep
    curve["phases"][-1].update(context=phase["context"], batch=phase["batch"])
    fp16_roundtrip(model)
    return offset + steps


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--steps", type=int, help="override the first phase's step count")
    ap.add_argument("--context", type=int, help="override the config's training context")
    ap.add_argument("--batch", type=int, help="override the config's batch size")
    ap.add_argument("--threads", type=int, help="override the config's thread count")
    ap.add_argument("--seed", type=int, help="override the config's seed")
    ap.add_argument("--config", default=os.path.join(ROOT, "training", "config.json"),
                    help="the config file (default training/config.json)")
    ap.add_argument("--resume", metavar="PHASE",  type=int,
                    help="start at this phase from the exported weights and loss curve of the "
                         "phases before it (in --out)")
    ap.add_argument("--export-only", action="store_true",
                    help="write the test vectors (and the copy control) of the exported weights in "
                         "--out again, without training")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--out", default=ROOT, help="directory the export paths are relative to")
    args = ap.parse_args()

    keep_freed_memory()
    with open(args.config) as f:
        cfg = json.load(f)
    tc = cfg["train"]
    for key in ("steps", "context", "batch", "threads"):
        if getattr(args, key):
            tc[key] = getattr(args, key)
    if args.seed is not None:
        cfg["seed"] = args.seed
    # Phase 1 is "train"; each entry of "continue" overrides some of its settings (steps, lr,
    # warmup_steps, augment, ...) for a later phase that starts from the weights before it.
    phases = [dict(tc, augment=cfg.get("augment"))]
    for more in cfg.get("continue", []):
        phases.append(dict(phases[0], **{k: v for k, v in more.items() if k != "comment"}))
    torch.set_num_threads(tc["threads"])
    global MANIFEST
    MANIFEST = cfg["data"].get("manifest", MANIFEST)
    tok = Tokenizer(cfg["model"]["tokenizer"]) if cfg["model"].get("tokenizer") else None

    train_files = load_files("train")
    held_out = load_files("held-out")
    raw = b"\n".join(d for _, d in train_files)
    if tok:
        stream = token_stream(train_files, tok, "train")
        held_stream = token_stream(held_out, tok, "held-out")
    else:
        stream = torch.frombuffer(bytearray(raw), dtype=torch.uint8)
        held_stream = torch.frombuffer(bytearray(b"\n".join(d for _, d in held_out)),
                                       dtype=torch.uint8)
    log("%d train files, %d bytes, %d %s; %d held-out files" % (
        len(train_files), len(raw), len(stream), tok.name + " tokens" if tok else "bytes",
        len(held_out)))
    probes = copying.copy_probes(held_out, cfg["seed"] + 2, **cfg["copy_control"]["probes"])
    if tok:
        tokenize_probes(probes, tok)
    data = {"tok": tok, "stream": stream, "raw": raw}

    device = args.device
    weights_path = os.path.join(args.out, cfg["export"]["weights"])
    curve_path = os.path.join(args.out, cfg["export"]["curve"])
    if args.export_only:
        model, _ = load_weights(weights_path)
        control, per = copy_control(model, probes, "cpu")
        log("copy control of %s: %s" % (weights_path, control))
        export_vectors(model, cfg, held_out, os.path.join(args.out, cfg["export"]["vectors"]),
                       probes, per, tok)
        return
    first = args.resume or 1
    if first > 1:
        model, _ = load_weights(weights_path)
        model.m.update(cfg["model"])
        model.train()
        with open(curve_path) as f:
            curve = json.load(f)
        if "phases" not in curve:  # a curve from before phases: one phase, the whole of it
            curve["phases"] = [{"phase": 1, "from": 1, "to": curve["train"][-1]["step"],
                                "seconds": curve.get("seconds", 0),
                                "threads": curve.get("threads", tc["threads"])}]
        curve["phases"] = [p for p in curve["phases"] if p["phase"] < first]
        offset = curve["phases"][-1]["to"] if curve["phases"] else curve["train"][-1]["step"]
        curve["train"] = [p for p in curve["train"] if p["step"] <= offset]
        curve["eval"] = [p for p in curve["eval"] if p["step"] <= offset]
        log("resuming at phase %d from %s (step %d)" % (first, weights_path, offset))
    else:
        torch.manual_seed(cfg["seed"])
        model = Model(cfg["model"])
        if cfg.get("init"):
            seed_previous_token_head(model, cfg["init"], cfg["seed"])
        curve = {"train": [], "eval": [], "phases": []}
        offset = 0
    model = model.to(device)
    params = sum(p.numel() for p in model.parameters())
    log("model: %d parameters; phases of %s steps of %d x %d" %
        (params, [p["steps"] for p in phases], tc["batch"], tc["context"]))
    start = time.time()
    for number, phase in enumerate(phases, 1):
        if number >= first:
            offset = train_phase(model, cfg, phase, number, data, held_stream, probes, device,
                                 curve, offset)

    model = model.cpu()
    fp16_roundtrip(model)
    # The model's training context (its name, the weights header, the final held-out loss) is the
    # last phase's: a run may start on shorter windows and end on the context it is meant for.
    last = phases[-1]
    cfg["train"]["context"] = last["context"]
    ev = evaluate(model, held_stream, last["context"], last["batch"], tc["eval_batches"], "cpu",
                  torch.Generator().manual_seed(cfg["seed"] + 1))
    control, per = copy_control(model, probes, "cpu")
    log("fp16 weights: held-out %.3f bits/%s at context %d; copy control %s" %
        (ev, "token" if tok else "byte", last["context"], control))
    name = "%s-%dx%d-ctx%d" % (cfg["export"].get("name", "pybyte"), cfg["model"]["layers"],
                               cfg["model"]["d_model"], last["context"])
    export_weights(model, cfg, weights_path, name)
    export_vectors(model, cfg, held_out, os.path.join(args.out, cfg["export"]["vectors"]),
                   probes, per, tok)
    curve.update({"model": name, "seed": cfg["seed"], "parameters": params, "batch": last["batch"],
                  "steps": offset, "seconds": round(sum(p["seconds"] for p in curve["phases"]), 1),
                  "final": {"held_out_bits": round(ev, 4), "copy": control}})
    with open(curve_path, "w") as f:
        json.dump(curve, f, indent=1)
        f.write("\n")
    log("loss curve: %s (this run %.0f s)" % (cfg["export"]["curve"], time.time() - start))


if __name__ == "__main__":
    main()
