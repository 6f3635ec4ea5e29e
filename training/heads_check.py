#!/usr/bin/env python3
"""Which heads of a model attend to the previous token, and which do induction? A diagnostic.

    /usr/bin/python3 -m training.heads_check [--weights FILE] [--model NAME] [--files N] [--json]

Copying from the context is done by an induction circuit: a head that attends to the previous
token (it writes "the token before me was A" at every position) and, in a later layer, a head
that attends from a token A to the position just after an earlier A, whose token it then
predicts. This reads a model's attention (RoPE, the training scheme) over windows of the held-out
files of its config (the model's own training context, in bytes or tokens) and prints, per head:

- previous: the mean attention a query puts on the key one position back;
- induction: over the queries whose token occurred earlier (not just before them), the mean
  attention put on the positions just after those earlier occurrences.

A head that attends uniformly scores about 2/context on both. The byte model pybyte has a
previous-token head in layer 0 (0.83) and an induction head in layer 1 (0.43); docs/model.md
gives the token model's.
"""
import argparse
import json
import os

import numpy as np
import torch

from . import circuits
from . import registry
from .data import Tokenizer, load_files
from .export import load_weights
from .model import rope_scores


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--weights", default=os.path.join(registry.ROOT, "models", "pyjs-llama2.hrm"))
    ap.add_argument("--model", help="the registry's model whose manifest gives the held-out files "
                    "(default: pyjs-llama2 for a token model, pybyte otherwise)")
    ap.add_argument("--files", type=int, default=8, help="held-out files, one window each")
    ap.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = ap.parse_args()
    torch.set_num_threads(1)
    model, m = load_weights(args.weights)
    entry = registry.model(args.model or ("pyjs-llama2" if m.get("tokenizer") else "pybyte"))
    files = load_files(entry["manifest"], "held-out")[: args.files]
    context = m["context"]
    if m.get("tokenizer"):
        tok = Tokenizer(m["tokenizer"])
        windows = [tok.ids(data)[:context].astype(np.int64).tolist() for _, data in files]
    else:
        windows = [list(data[:context]) for _, data in files]
    hd = m["d_model"] // m["heads"]
    scores = circuits.head_scores(model, [w for w in windows if len(w) > 1],
                                  lambda n: rope_scores(n, hd, m["rope_base"], "cpu"))
    if args.json:
        print(json.dumps([{"layer": l, "head": h, "previous": round(p, 4),
                           "induction": None if i is None else round(i, 4)}
                          for (l, h), (p, i) in scores.items()]))
        return
    print("%s: %d windows of up to %d %s (uniform attention scores about %.3f)" % (
        os.path.basename(args.weights), len(windows), context,
        "tokens" if m.get("tokenizer") else "bytes", 2 / context))
    print("layer head  previous  induction")
    for (layer, head), (prev, ind) in scores.items():
        print("%5d %4d  %8.3f  %9s" % (layer, head, prev, "-" if ind is None else "%.3f" % ind))


if __name__ == "__main__":
    main()
