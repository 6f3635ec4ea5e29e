#!/usr/bin/env python3
"""How fast does a model learn to copy? A diagnostic, separate from training runs.

    /usr/bin/python3 training/copy_check.py [--weights FILE | --vocab N [--config FILE]] [--context N]
        [--block N] [--steps N] [--lr X] [--pool FILE] [--seed N]

Trains a model (from exported weights, or from scratch with a config's model dimensions and
--vocab) for a few steps on rows made only of repeats: blocks of --block tokens drawn at random
(from --pool, a uint16 token cache of build/training/, by corpus frequency; uniform otherwise),
each followed by itself. Every 25 steps it prints the loss on the first copies (nothing to copy)
and on the second (only copying helps): when they part, the copying circuit has formed. Nothing is
saved. The numbers in docs/model.md's account of the token model's copying come from this.
"""
import argparse
import json
import math
import os
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import train  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--weights", help="start from this weights file (default: from scratch)")
    ap.add_argument("--vocab", type=int, default=32000, help="vocabulary when from scratch")
    ap.add_argument("--config", default=os.path.join(train.ROOT, "training", "config-pyjs.json"),
                    help="the config whose model dimensions a fresh model takes")
    ap.add_argument("--context", type=int, default=128)
    ap.add_argument("--block", type=int, help="tokens per block (default: half the context)")
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--pool", help="draw tokens from this uint16 token file (corpus frequency)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    if args.weights:
        model, _ = train.load_weights(args.weights)
        model.train()
    else:
        with open(args.config) as f:
            model = train.Model(dict(json.load(f)["model"], vocab=args.vocab))
    m = model.m
    vocab, n = m["vocab"], args.context
    block = args.block or n // 2
    pool = (torch.from_numpy(np.fromfile(args.pool, dtype="<u2").astype(np.int64))
            if args.pool else None)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, betas=(0.9, 0.95), weight_decay=0.1)
    fn = train.rope_scores(n, m["d_model"] // m["heads"], m["rope_base"], "cpu")
    # Target t (token t + 1) is a second copy when (t + 1) mod 2*block >= block.
    second = ((torch.arange(1, n + 1) % (2 * block)) >= block)
    start = time.time()
    for step in range(1, args.steps + 1):
        blocks = -(-(n + 1) // (2 * block))
        shape = (args.batch, blocks, block)
        seq = (pool[torch.randint(0, len(pool), shape)] if pool is not None
               else torch.randint(0, vocab, shape))
        rows = torch.cat([seq, seq], dim=2).reshape(args.batch, -1)[:, : n + 1]
        logits = model(rows[:, :-1], fn)
        losses = F.cross_entropy(logits.reshape(-1, vocab), rows[:, 1:].reshape(-1),
                                 reduction="none").view(args.batch, n) / math.log(2)
        opt.zero_grad(set_to_none=True)
        losses.mean().backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        if step % 25 == 0:
            print("step %d: first copies %.2f, second copies %.2f bits/token (%.0f s)" % (
                step, losses[:, ~second].mean().item(), losses[:, second].mean().item(),
                time.time() - start), flush=True)


if __name__ == "__main__":
    main()
