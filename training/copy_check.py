#!/usr/bin/env python3
"""How fast does a model learn to copy? A diagnostic, separate from training runs.

    /usr/bin/python3 -m training.copy_check [--weights FILE | --vocab N [--config FILE]] [--context N]
        [--block N | --sizes LO HI [--gap N]] [--steps N] [--lr X] [--pool FILE [--top K]] [--seed N]

Trains a model (from exported weights, or from scratch with a config's model dimensions and
--vocab) for a few steps on rows made only of repeats: blocks of --block tokens drawn at random
(from --pool, a uint16 token cache of build/training/, by corpus frequency; uniform otherwise),
each followed by itself. Every 25 steps it prints the loss on the first copies (nothing to copy)
and on the second (only copying helps): when they part, the copying circuit has formed. Nothing is
saved. The numbers in docs/model.md's account of the token model's copying come from this.

With a fixed --block every copy lies the same distance back, so a head that looks that far back
copies without matching anything: --sizes gives every block its own length (the trainer's
copying.repeat_tokens rows), so only matching content predicts a copy.
"""
import argparse
import json
import math
import random
import time

import numpy as np
import torch
import torch.nn.functional as F

from . import copying
from . import registry
from .export import load_weights
from .model import Model, rope_scores
from .train import keep_freed_memory


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--weights", help="start from this weights file (default: from scratch)")
    ap.add_argument("--vocab", type=int, default=32000, help="vocabulary when from scratch")
    ap.add_argument("--config", default=registry.model("pyjs-llama2")["config"],
                    help="the config whose model dimensions a fresh model takes")
    ap.add_argument("--context", type=int, default=128)
    ap.add_argument("--block", type=int, help="tokens per block (default: half the context)")
    ap.add_argument("--sizes", type=int, nargs=2, metavar=("LO", "HI"),
                    help="instead of --block, blocks of LO..HI tokens (a new size per block, so no "
                         "fixed distance predicts a copy and only matching content can)")
    ap.add_argument("--probe-sizes", type=int, nargs=2, metavar=("LO", "HI"),
                    help="also print, without training on it, the loss on second copies in a batch "
                         "of --sizes LO HI rows: whether what was learnt matches content")
    ap.add_argument("--gap", type=int, default=0,
                    help="with --sizes, up to GAP consecutive --pool tokens (real code, unless "
                         "--top has thinned the pool) between copies")
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--pool", help="draw tokens from this uint16 token file (corpus frequency)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--top", type=int,
                    help="draw only the TOP most frequent tokens of --pool and compute the softmax "
                         "over those alone (the output layer is most of a step's cost)")
    args = ap.parse_args()
    keep_freed_memory()
    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    if args.weights:
        model, _ = load_weights(args.weights)
        model.train()
    else:
        with open(args.config) as f:
            model = Model(dict(json.load(f)["model"], vocab=args.vocab))
    m = model.m
    vocab, n = m["vocab"], args.context
    block = args.block or n // 2
    pool = (torch.from_numpy(np.fromfile(args.pool, dtype="<u2").astype(np.int64))
            if args.pool else None)
    if args.top:
        keep = torch.bincount(pool, minlength=vocab).argsort(descending=True)[: args.top]
        index = torch.full((vocab,), -1, dtype=torch.long)
        index[keep] = torch.arange(args.top)
        pool = pool[index[pool] >= 0]
    # --sizes rows come from the trainer's own generator; with no pool, uniform ids stand in.
    draw = pool.numpy() if pool is not None else np.arange(vocab)
    rng = random.Random(args.seed)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, betas=(0.9, 0.95), weight_decay=0.1)
    fn = rope_scores(n, m["d_model"] // m["heads"], m["rope_base"], "cpu")
    # Target t (token t + 1) is a second copy when (t + 1) mod 2*block >= block.
    second = ((torch.arange(1, n + 1) % (2 * block)) >= block)
    start = time.time()
    probe_rng = random.Random(args.seed + 1)

    def marked_rows(gen, sizes):
        marked = [copying.repeat_tokens_marked(draw, gen, n + 1, sizes, args.gap)
                  for _ in range(args.batch)]
        return (torch.tensor([row for row, _ in marked]),
                torch.tensor([copies[1:] for _, copies in marked]))

    def bits(rows):
        if args.top:  # the model's own output layer, restricted to the drawn tokens
            logits = model.hidden(rows[:, :-1], fn) @ model.emb.weight[keep].T
            targets = index[rows[:, 1:]]
        else:
            logits, targets = model(rows[:, :-1], fn), rows[:, 1:]
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1),
                               reduction="none").view(args.batch, n) / math.log(2)

    for step in range(1, args.steps + 1):
        if args.sizes:
            rows, second = marked_rows(rng, args.sizes)
        else:
            blocks = -(-(n + 1) // (2 * block))
            shape = (args.batch, blocks, block)
            seq = (pool[torch.randint(0, len(pool), shape)] if pool is not None
                   else torch.randint(0, vocab, shape))
            rows = torch.cat([seq, seq], dim=2).reshape(args.batch, -1)[:, : n + 1]
        losses = bits(rows)
        opt.zero_grad(set_to_none=True)
        losses.mean().backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        if step % 25 == 0:
            print("step %d: %s %.2f, second copies %.2f bits/token (%.0f s)" % (
                step, "first copies and gaps" if args.gap else "first copies",
                losses[..., ~second].mean().item(), losses[..., second].mean().item(),
                time.time() - start), flush=True)
            if args.probe_sizes:
                with torch.no_grad():
                    rows, copies = marked_rows(probe_rng, args.probe_sizes)
                    probe = bits(rows)
                print("    untrained probe, blocks of %d-%d tokens: first copies %.2f, second "
                      "copies %.2f bits/token" % (*args.probe_sizes, probe[~copies].mean().item(),
                                                  probe[copies].mean().item()), flush=True)


if __name__ == "__main__":
    main()
