"""python -m hirope positions CORPUS... --out DIR [--tokenizer llama3] [--hierarchy units]
[--scheduler tcp://HOST:PORT | sync] [--workers N]: see docs/python.md#a-corpus-on-dask.
python -m hirope eval [FILE...] [--model pybyte] [--window 4x] [--per-file 4] [--scheduler ...]:
see docs/python.md#the-model-evaluation-on-dask."""

import argparse
import json
import sys


def _positions(args):
    from . import dask as hd  # imports Dask only for this command
    options = {}
    if args.segment_size is not None:
        options["segment_size"] = args.segment_size
    if args.scheduler and args.workers:
        raise SystemExit("hirope positions: --workers starts a LocalCluster; with --scheduler the "
                         "cluster has its own workers")
    try:
        summary = hd.positions(args.corpus, args.out, tokenizer=args.tokenizer,
                               hierarchy=args.hierarchy, client=args.scheduler,
                               partition_size=args.partition_size, workers=args.workers,
                               progress=not args.no_progress, language=args.language,
                               timeout_ms=args.timeout_ms, fsync=not args.no_fsync,
                               compress=args.compress, **options)
    except (ValueError, FileNotFoundError) as e:  # ManifestMismatch is a ValueError
        print("hirope positions: %s" % (e,), file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(summary))
    else:
        print("%s: %d files, %d tokens, %d error rows; %d shards written, %d skipped "
              "(already finished), %.1f s"
              % (summary["out"], summary["files"], summary["tokens"], summary["errors"],
                 summary["written"], summary["skipped"], summary["seconds"]))
    return 0


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["eval"]:  # the model evaluation parses its own options (hirope.eval.main)
        from . import eval as model_eval
        return model_eval.main(argv[1:])
    parser = argparse.ArgumentParser(prog="python -m hirope")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("eval", add_help=False, help="the code models' evaluation (training/eval/report.mjs's "
                        "per-window numbers) on Dask: python -m hirope eval --help")
    p = commands.add_parser(
        "positions", help="a corpus into shards of token ids and positions, on Dask",
        description="Analyzes every file (a path, a glob, or a directory: every file whose "
        "language hirope detects) and writes one shard per partition into --out (shard-*.npz "
        "arrays, shard-*.jsonl rows, manifest.json). A rerun resumes: finished shards are "
        "skipped.")
    p.add_argument("corpus", nargs="+", help="files, globs (quoted; ** is recursive) or directories")
    p.add_argument("--out", required=True, help="the output directory")
    p.add_argument("--tokenizer", default="llama3",
                   help="a built-in name or a tokenizer.json path (default llama3)")
    p.add_argument("--hierarchy", default="units", choices=("units", "segments"))
    p.add_argument("--segment-size", type=int, help="tokens per segment (--hierarchy segments)")
    p.add_argument("--language", help="one language for every file instead of detecting it")
    p.add_argument("--timeout-ms", type=float, help="the parse budget per file")
    p.add_argument("--scheduler", help="a Dask scheduler's address (tcp://HOST:PORT), or sync / "
                   "threads / processes for Dask's local schedulers; default: a LocalCluster")
    p.add_argument("--workers", type=int, help="the LocalCluster's worker processes "
                   "(default: one per core)")
    p.add_argument("--partition-size", type=int, default=256, help="files per shard (default 256)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--no-fsync", action="store_true", help="do not fsync each shard")
    p.add_argument("--compress", action="store_true",
                   help="deflate the .npz shards (about 4x smaller, more CPU)")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.set_defaults(run=_positions)
    args = parser.parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
