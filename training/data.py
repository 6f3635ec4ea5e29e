"""The trainer's data: a manifest split's files (hash-checked), hirope's tokenizer over a pipe
(training/tokenize.mjs) for models with a token vocabulary, the token-id cache, and the random
training windows (with copy-teaching rewrites, training/copying.py)."""
import hashlib
import os
import random
import struct
import sys

import numpy as np
import torch

from . import copying
from . import registry
from .registry import ROOT


def log(*args):
    print("train:", *args, file=sys.stderr, flush=True)


def load_files(manifest, split, strict=True):
    """The bytes of every file of a manifest's split (manifest: its path), hash-checked."""
    files = []
    for entry in registry.read_manifest(manifest, split):
        path, sha = entry["path"], entry["sha256"]
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
