#!/usr/bin/env python3
"""PyTorch side of bench/model.mjs: the same code model (training/model.py's Model, weights read
from the .hrm file by training/export.py) timed on the same input. Prints one JSON line.

    /usr/bin/python3 -m bench.model_torch WEIGHTS INPUT --repeats 7 --threads 2 [--ids]
                                                          (from the repository root)

With --ids, INPUT holds token ids (int32, little-endian) for a token model, and each run also
takes the loss (cross-entropy of every next token), as hirope's loss() does.
"""
import argparse
import json
import statistics
import time

import torch

from training.export import load_weights
from training.model import rope_scores


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("weights")
    ap.add_argument("input")
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--ids", action="store_true", help="INPUT is int32 token ids; time logits + loss")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    model, m = load_weights(args.weights)
    with open(args.input, "rb") as f:
        data = f.read()
    if args.ids:
        ids = torch.frombuffer(bytearray(data), dtype=torch.int32).to(torch.long).unsqueeze(0)
    else:
        ids = torch.tensor([list(data)])
    n = ids.shape[1]
    hd = m["d_model"] // m["heads"]
    times = []
    with torch.no_grad():
        model(ids, rope_scores(n, hd, m["rope_base"], "cpu"))  # warm-up
        for _ in range(args.repeats):
            t0 = time.perf_counter()
            logits = model(ids, rope_scores(n, hd, m["rope_base"], "cpu"))
            if args.ids:
                torch.nn.functional.cross_entropy(logits[0, :-1], ids[0, 1:])
            times.append((time.perf_counter() - t0) * 1000)
    print(json.dumps({"torch": torch.__version__, "threads": args.threads, "bytes": n,
                      "median_ms": statistics.median(times), "times_ms": times,
                      "first_logits": [round(float(x), 4) for x in logits[0, -1, :4]]}))


if __name__ == "__main__":
    main()
