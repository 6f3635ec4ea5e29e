#!/usr/bin/env python3
"""Trains one of hirope's code models and exports its weights and test vectors.

    /usr/bin/python3 -m training.train [--model NAME] [--config FILE] [--steps N] [--device cpu|cuda]
        [--out DIR]                                    (from the repository root)

Reads a model's config and manifest from the registry (models/registry.json: pybyte,
the byte model, by default; pyjs-llama2, the token model; the config holds the seed,
hyperparameters and export paths, the manifest the files, their SHA-256 and split). A config whose
model names a tokenizer trains on its token ids: hirope's own tokenizer (training/tokenize.mjs,
from dist/) tokenizes the files once (cached under build/training/) and every augmented sequence,
and lengths count tokens. Every file's hash is checked first: a different file is an error, so a
run is either the documented one or refused. Writes the fp16 weights file (format in
docs/model.md) and a JSON of test vectors: inputs, positions and this trainer's logits under
several position schemes, computed from the schemes' relative-distance formulas
(training/reference.py), which the C++ inference must match.

The parts: data.py (files, tokenizer, batches), model.py, reference.py, export.py; this module is
the training loop.
"""
import argparse
import copy
import ctypes
import json
import math
import os
import time

import torch
import torch.nn.functional as F

from . import circuits
from . import copying
from . import registry
from .data import Tokenizer, batches, load_files, log, token_batches, token_stream
from .export import export_vectors, export_weights, fp16_roundtrip, load_weights
from .model import Model, rope_scores, seed_previous_token_head

ROOT = registry.ROOT


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
    ap.add_argument("--model", help="the registry's model to train (models/registry.json; "
                    "default %s)" % registry.load()["default"])
    ap.add_argument("--config", help="another config file for the model (default: its registry's, "
                    "training/models/NAME/config.json)")
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
    entry = registry.model(args.model)
    with open(args.config or entry["config"]) as f:
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
    tok = Tokenizer(cfg["model"]["tokenizer"]) if cfg["model"].get("tokenizer") else None

    train_files = load_files(entry["manifest"], "train")
    held_out = load_files(entry["manifest"], "held-out")
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
