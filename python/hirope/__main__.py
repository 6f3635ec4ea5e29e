"""python -m hirope positions CORPUS... --out DIR [--tokenizer llama3] [--hierarchy units]
[--scheduler tcp://HOST:PORT | sync] [--workers N]: see docs/python.md#a-corpus-on-dask.
python -m hirope eval [FILE...] [--model pybyte] [--window 4x] [--per-file 4] [--scheduler ...]:
see docs/python.md#the-model-evaluation-on-dask.
python -m hirope eval-checkpoint FOLDER --files 'repo/**/*.py' [--length 4x] [--schemes ...]
[--rows FILE]: see docs/checkpoint-eval.md.

Exit codes (docs/python.md#exit-codes): 0 done; 1 the job could not run (an output directory of
another job, an unreachable scheduler, a file system error); 2 a wrong option or argument (named
in the message; nothing was written); 130 interrupted (Ctrl-C).
"""

import argparse
import json
import sys

EXIT_FAILED = 1
EXIT_USAGE = 2  # argparse's own
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as a shell reports it

# positions()'s keywords as the command line spells them
_FLAGS = {"tokenizer": "--tokenizer", "hierarchy": "--hierarchy", "language": "--language",
          "timeout_ms": "--timeout-ms", "segment_size": "--segment-size", "workers": "--workers",
          "partition_size": "--partition-size", "client": "--scheduler", "out": "--out",
          "connect_timeout": "--connect-timeout"}


def _positions(args):
    from . import corpus as hd  # imports Dask only for this command
    options = {}
    if args.segment_size is not None:
        options["segment_size"] = args.segment_size
    if args.no_progress:
        progress = False
    else:
        progress = True if args.progress_every is None else args.progress_every
    if not args.connect_timeout > 0:
        return _fail(EXIT_USAGE, "--connect-timeout: must be a number of seconds > 0, got %r"
                     % (args.connect_timeout,))
    if args.progress_every is not None and not args.progress_every >= 0:
        return _fail(EXIT_USAGE, "--progress-every: must be a number of seconds >= 0, got %r"
                     % (args.progress_every,))
    try:
        summary = hd.positions(args.corpus, args.out, tokenizer=args.tokenizer,
                               hierarchy=args.hierarchy, client=args.scheduler,
                               partition_size=args.partition_size, workers=args.workers,
                               progress=progress, language=args.language,
                               timeout_ms=args.timeout_ms, fsync=not args.no_fsync,
                               compress=args.compress, connect_timeout=args.connect_timeout,
                               **options)
    except hd.SettingsError as e:
        return _fail(EXIT_USAGE, "%s: %s" % (_FLAGS.get(e.option, e.option), e))
    except FileNotFoundError as e:  # a corpus path: nothing planned or written
        return _fail(EXIT_USAGE, "%s" % (e,))
    except (hd.ManifestMismatch, hd.SchedulerUnreachable, hd.OutputBusy) as e:
        return _fail(EXIT_FAILED, "%s" % (e,))
    except OSError as e:  # the output directory (permissions, a full disk, ...)
        return _fail(EXIT_FAILED, "%s%s" % (e.strerror or e, ": %s" % e.filename
                                            if e.filename else ""))
    if args.json:
        print(json.dumps(summary))
    else:
        print("%s: %d files, %d tokens, %d error rows; %d shards written, %d skipped "
              "(already finished), %.1f s"
              % (summary["out"], summary["files"], summary["tokens"], summary["errors"],
                 summary["written"], summary["skipped"], summary["seconds"]))
        if summary["reasons"]:
            print("error rows by reason:")
            for reason, count in summary["reasons"].items():
                print("%8d  %s" % (count, reason))
    return 0


def _fail(code, message):
    print("hirope positions: %s" % (message,), file=sys.stderr)
    return code


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        return _main(argv)
    except KeyboardInterrupt:
        if argv[:1] == ["eval"] or argv[:1] == ["eval-checkpoint"]:
            # the rows written (--rows) are kept; the same command resumes from them
            print("hirope %s: interrupted" % argv[0], file=sys.stderr)
        else:  # finished shards stay; a rerun removes the temporaries and resumes
            print("hirope positions: interrupted; the finished shards are kept, and the same "
                  "command resumes the job", file=sys.stderr)
        return EXIT_INTERRUPTED


def _main(argv):
    if argv[:1] == ["eval"]:  # the model evaluation parses its own options (hirope.eval.main)
        from . import eval as model_eval
        return model_eval.main(argv[1:])
    if argv[:1] == ["eval-checkpoint"]:  # the same job on a checkpoint (hirope.eval.main_checkpoint)
        from . import eval as model_eval
        return model_eval.main_checkpoint(argv[1:])
    try:
        from . import corpus as hd  # the positions job (its defaults name the help's numbers)
    except ImportError as e:
        return _fail(EXIT_FAILED, "needs Dask (Debian: python3-dask python3-distributed): %s" % e)
    parser = argparse.ArgumentParser(prog="python -m hirope")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("eval", add_help=False, help="the code models' evaluation (training/eval/report.mjs's "
                        "per-window numbers) on Dask: python -m hirope eval --help")
    commands.add_parser("eval-checkpoint", add_help=False, help="a Hugging Face checkpoint "
                        "beyond its training length under each scheme, the same job: python -m "
                        "hirope eval-checkpoint --help")
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
    p.add_argument("--connect-timeout", type=float, default=hd.DEFAULT_CONNECT_TIMEOUT_S,
                   help="seconds the --scheduler may take to answer (default %(default)s)")
    p.add_argument("--workers", type=int, help="the LocalCluster's worker processes, at least 1 "
                   "(default: one per core)")
    p.add_argument("--partition-size", type=int, default=hd.DEFAULT_PARTITION_SIZE,
                   help="files per shard (default %(default)s)")
    p.add_argument("--no-progress", action="store_true", help="no progress report")
    p.add_argument("--progress-every", type=float, metavar="SECONDS", help="a progress line at most "
                   "this often (default: a bar on a terminal, else a line every %d s)"
                   % hd.PROGRESS_LINE_INTERVAL_S)
    p.add_argument("--no-fsync", action="store_true", help="do not fsync each shard")
    p.add_argument("--compress", action="store_true",
                   help="deflate the .npz shards (about 4x smaller, more CPU)")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.set_defaults(run=_positions)
    args = parser.parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
