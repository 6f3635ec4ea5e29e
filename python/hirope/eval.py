"""The code models' evaluation as a Dask job: the per-window evaluation of
``training/eval/report.mjs`` (``lib/model-eval.mjs``) through the native module, on any number of
files.

For each window of each file (consecutive windows of ``length`` bytes, or tokens for a token model;
at most ``per_file`` per file, evenly spread) and each preset scheme, the sums of the losses (bits)
in every position bucket ([0, L), [L, 2L), [2L, 4L), ...) and in every recall class (far, near,
first, other: an identifier's previous occurrence more than L units back, within L, none); then the
report's aggregates: per-file ratio means, their mean over files with its standard error, bits past
L, and the paired difference of each scheme to the better baseline on far-recall units.

The numbers are the JavaScript evaluation's: the presets come from the one table both read
(``models/registry.json`` ``evaluation.presets``, the package's copy, and the model config's
``evaluation.tuned``), the windows, bucket edges, per-window sums, recall classes and the presets'
symbols are the core's (``src/model/evaluation.cpp``, which ``lib/model-eval.mjs`` calls too), the
statistics are the JavaScript package's (``dist/eval-stats.js``, run by node: ``summarize``), and
the result's ``runs`` entry has the layout of the report's kept per-window data
(``models/<name>-eval.json`` ``runs[multiple]``).

    from hirope.eval import evaluate
    result = evaluate("held-out", model="pybyte", window="4x", per_file=4)       # synchronous
    result = evaluate(files, model="pybyte", window=1024, client=client)          # a Dask cluster
    result["summary"]["rope"]["far"]                                              # bits/byte

    python -m hirope eval --model pybyte --window 4x --per-file 4 [--scheduler tcp://... | local:N] [--out FILE]
    (or python -m hirope.eval ...)
"""

import argparse
import fcntl
import hashlib
import json
import math
import os
import pathlib
import shutil
import subprocess
import sys

import numpy as np

from . import _hirope
from . import _registry
from ._files import Unreadable, read_regular

# ---------------------------------------------------------------------------------------------
# The registry (the presets, the truncate stride, the models: the package's data, _registry.py)
# and the repository (the models' training configs and data manifests, training/models/NAME)


REGISTRY = os.path.join("models", "registry.json")  # what marks the repository


class NoRepository(FileNotFoundError):
    """The evaluation needs the hirope repository (its model configs and data manifests), and
    none was found."""


def _repository_above(d):
    while True:
        if os.path.exists(os.path.join(d, REGISTRY)):
            return d
        parent = os.path.dirname(d)
        if parent == d:
            return None
        d = parent


def repository_root():
    """The repository (it holds models/registry.json): $HIROPE_ROOT, else the first folder
    above this file that has it (python/hirope/ in the source tree, build/python/hirope/ built),
    else the first above the working directory (an installed package, run from a checkout)."""
    env = os.environ.get("HIROPE_ROOT")
    if env:
        root = os.path.abspath(env)
        if not os.path.exists(os.path.join(root, REGISTRY)):
            raise NoRepository("HIROPE_ROOT=%s has no %s: point it at the hirope repository"
                               % (env, REGISTRY))
        return root
    root = (_repository_above(os.path.dirname(os.path.abspath(__file__)))
            or _repository_above(os.getcwd()))
    if root is None:
        raise NoRepository(
            "the evaluation reads the hirope repository's model configs and data manifests "
            "(training/models/), and neither the package (%s) nor the working directory is inside "
            "one: run it from the repository, or set HIROPE_ROOT=/path/to/hirope"
            % os.path.dirname(os.path.abspath(__file__)))
    return root


def _read_json(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def registry(root=None):
    """The registry (models/registry.json), as JSON: the package's copy, so that it needs no
    repository (root, kept for the callers, is not read)."""
    return _registry.load()


def model_entry(name=None, root=None):
    """A shipped model by name (the registry's default when None): {name, config (the training
    config, JSON), manifest (path), weights (path)}."""
    root = root or repository_root()
    reg = registry(root)
    name = name or reg["default"]
    for m in reg["models"]:
        if m["name"] == name:
            config = _read_json(os.path.join(root, m["config"]))
            return {"name": name, "config": config,
                    "manifest": os.path.join(root, m["manifest"]),
                    "weights": os.path.join(root, config["export"]["weights"])}
    raise ValueError("model must be one of %s, got %r" % (", ".join(m["name"] for m in reg["models"]), name))


def truncate_stride(L, reg=None):
    """The truncate baseline's stride at a training context L: L / stride_divisor, at least 1 (the
    core's rule: preset_symbols)."""
    reg = reg or registry()
    return _hirope.preset_symbols(L, L, reg["truncate"]["stride_divisor"])["truncate stride"]


def _with_symbols(options, symbols):
    if isinstance(options, dict):
        return {k: _with_symbols(v, symbols) for k, v in options.items()}
    if isinstance(options, list):
        return [_with_symbols(v, symbols) for v in options]
    if isinstance(options, str) and options in symbols:
        return symbols[options]
    return options


def _js_number(x):
    """A float that is an integer as an int, as JSON.parse gives it back in JavaScript."""
    return int(x) if isinstance(x, float) and x.is_integer() else x


def preset_schemes(L, length, tuned=None, reg=None):
    """The preset schemes (name -> model options, in the JavaScript words) for a model trained at
    context L on windows of `length` units: the registry's evaluation.presets with its symbols
    replaced, then the tuned presets (a model config's evaluation.tuned), their factor 'length/L'
    replaced. The symbols' numbers are the core's (preset_symbols), as lib/model-eval.mjs
    presetSchemes reads them."""
    reg = reg or registry()
    symbols = _hirope.preset_symbols(L, length, reg["truncate"]["stride_divisor"])
    symbols["length/L"] = factor = _js_number(symbols["length/L"])
    presets = _with_symbols(reg["evaluation"]["presets"], symbols)
    for name, options in (tuned or {}).items():
        presets[name] = _with_symbols(options, {"length/L": factor})
    return presets


def report_schemes(tuned=None, reg=None):
    """The schemes the report compares: (baselines, schemes), lib/model-eval.mjs reportSchemes."""
    reg = reg or registry()
    tuned = tuned or {}
    listed = [n + " (tuned)" if (n + " (tuned)") in tuned else n for n in reg["evaluation"]["report"]]
    schemes = list(dict.fromkeys(listed + list(tuned)))
    return listed[:2], schemes


def default_buckets(L, length):
    """Bucket edges [0, L, 2L, 4L, ..., length] (the core's default_buckets)."""
    return _hirope.default_buckets(L, length)


def bucket_label(edges, b):
    return "%d-%d" % (edges[b], edges[b + 1] - 1)


def language_of(name):
    """JavaScript for .js, .mjs, .cjs; Python otherwise (the core's evaluation_language)."""
    return _hirope.evaluation_language(name)


# ---------------------------------------------------------------------------------------------
# Recall classes (the core's: model.h "The evaluation")

RECALL_CLASSES = tuple(_hirope.recall_class_names())
OTHER, FIRST, NEAR, FAR = (RECALL_CLASSES.index(c) for c in ("other", "first", "near", "far"))


def recall_classes(data, reach):
    """A class per byte (uint8 indices of RECALL_CLASSES): far for the bytes of an identifier whose
    previous occurrence starts more than `reach` bytes before it, near within, first at its first
    occurrence, other for every other byte."""
    return _hirope.recall_classes(bytes(data), reach)


def token_recall_classes(data, start, end, reach):
    """The same classes per token, given each token's byte span [start[k], end[k]) in data;
    distances count tokens and a token takes the highest class of the identifiers it overlaps."""
    return _hirope.token_recall_classes(bytes(data), start, end, reach)


# ---------------------------------------------------------------------------------------------
# The native model, through one adapter (the JavaScript option words to the module's)

_LOADED = {}


def _is_path(model):
    """A model given as a weights path rather than a shipped model's name."""
    return os.path.exists(model) or os.sep in model or model.endswith(".hrm")


# dask.compute's scheduler names (a dask.distributed cluster comes as evaluate's client)
DASK_SCHEDULERS = ("sync", "synchronous", "single-threaded", "threads", "threading", "processes",
                   "multiprocessing")


class UsageError(_hirope.HiRoPEError):
    """A wrong argument of evaluate() or evaluate_checkpoint() (a HiRoPEError, so a ValueError),
    found before any task runs; `argument` names it ('model', 'weights', 'window', 'schemes',
    'files', 'per_file', 'scheduler'; the checkpoint's 'folder', 'length'). The command says it in
    one line, naming its option, and exits 2."""

    def __init__(self, message, argument):
        super().__init__(message)
        self.argument = argument


def _checked(argument, compute, *args):
    """compute(*args), its ValueError (HiRoPEError too) a UsageError naming `argument`."""
    try:
        return compute(*args)
    except UsageError:
        raise
    except ValueError as e:
        raise UsageError(str(e), argument) from None


def load_model(model):
    """A loaded hirope.Model from a shipped name, a weights path, a Hugging Face checkpoint folder
    (Model.from_pretrained) or a loaded model; cached per process (a Dask worker loads each model
    once: a task is handed the name or path, never the model)."""
    if not isinstance(model, str):
        return model
    if model not in _LOADED:
        import hirope  # the native module (P1): imported only where a model runs

        if os.path.isdir(model):
            _LOADED[model] = hirope.Model.from_pretrained(model)
        else:
            path = model if _is_path(model) else model_entry(model)["weights"]
            _LOADED[model] = hirope.Model.load(path)
    return _LOADED[model]


def _get(obj, *names):
    for name in names:
        if isinstance(obj, dict) and name in obj:
            return obj[name]
        if not isinstance(obj, dict) and hasattr(obj, name):
            return getattr(obj, name)
    raise KeyError("none of %s in %r" % (names, type(obj)))


_SNAKE = {"segmentSize": "segment_size", "descendClasses": "descend_classes"}


def _kwargs(options):
    """Model options in the JavaScript words -> the module's keyword arguments (snake_case at the
    top level; a scheme object is passed as it is)."""
    return {_SNAKE.get(k, k): v for k, v in options.items() if v is not None}


def model_config(model):
    config = _get(model, "config")
    return {"training_context": int(_get(config, "training_context", "trainingContext")),
            "name": _get(config, "name"),
            "tokenizer": _get(config, "tokenizer") if _has(config, "tokenizer") else None}


def _has(obj, name):
    return name in obj if isinstance(obj, dict) else hasattr(obj, name)


def _tokenizer(model):
    t = _get(model, "tokenizer") if _has(model, "tokenizer") else None
    return t or None


def _loss(model, code, options):
    """Per-unit losses (float32) of a window: its bytes, or a token model's ids."""
    kwargs = _kwargs(options)
    if isinstance(code, (bytes, bytearray)):
        return np.asarray(_get(model.loss(code, **kwargs), "losses"), dtype=np.float32)
    ids = np.ascontiguousarray(code, dtype=np.int32)
    return np.asarray(_get(model.loss(ids, **kwargs), "losses"), dtype=np.float32)


def _positions(model, code, options):
    """A whole file's positions: unit, statement, and a token model's tokens {ids, start, end}."""
    r = model.positions(code, **_kwargs(options))
    out = {k: np.asarray(_get(r, k)) for k in ("unit", "statement")}
    t = r.get("tokens") if isinstance(r, dict) and "tokens" in r else r if _has(r, "ids") else None
    if t is not None:
        out["tokens"] = {"ids": np.asarray(_get(t, "ids")), "start": np.asarray(_get(t, "starts", "start")),
                         "end": np.asarray(_get(t, "ends", "end"))}
    return out


# ---------------------------------------------------------------------------------------------
# Windows and per-window sums (lib/model-eval.mjs windowsOf, bucketLosses)


def windows_of_file(name, data, length, per_file=None, model=None):
    """The windows of one file: at most per_file (None: all) consecutive windows of `length`
    bytes, evenly spread; with a token model, windows of `length` tokens of the whole file's
    tokens. Each: {file, language, offset (first byte or token), bytes, and for tokens ids,
    start, end (byte spans in the window's bytes)}."""
    language = language_of(name)
    tokens = None
    if model is not None and _tokenizer(model):
        tokens = _positions(model, data, {"hierarchy": "segments"})["tokens"]
    total = len(tokens["ids"]) if tokens is not None else len(data)
    out = []
    for a in _hirope.window_offsets(total, length, -1 if per_file is None else per_file):
        if tokens is None:
            out.append({"file": name, "language": language, "offset": a, "bytes": data[a:a + length]})
            continue
        b0 = int(tokens["start"][a])
        start = tokens["start"][a:a + length].astype(np.int64) - b0
        end = tokens["end"][a:a + length].astype(np.int64) - b0
        out.append({"file": name, "language": language, "offset": a,
                    "ids": tokens["ids"][a:a + length].astype(np.int32), "start": start, "end": end,
                    "bytes": data[b0:b0 + int(end[-1])]})
    return out


def _window_options(model, w, source, options, cache):
    """The model options of one window: a parsed hierarchy's positions cut from the whole file's
    parse and rebased to 0 (lib/model-eval.mjs windowOptions)."""
    scheme = options.get("scheme")
    kind = scheme if isinstance(scheme, str) else (scheme or {}).get("type")
    hierarchy = options.get("hierarchy") or ("segments" if options.get("segmentSize") else "units")
    if kind != "hirope" or hierarchy == "segments" or options.get("positions") is not None:
        return options
    rest = {k: v for k, v in options.items() if k not in ("hierarchy", "gap", "descendClasses")}
    language = options.get("language") or w["language"]
    key = (hierarchy, language, options.get("gap"), options.get("descendClasses"))
    if key not in cache:
        cache[key] = _positions(model, source, {"hierarchy": hierarchy, "language": language,
                                                "gap": options.get("gap"),
                                                "descendClasses": options.get("descendClasses")})
    whole = cache[key]
    n = len(w["ids"]) if "ids" in w else len(w["bytes"])

    def cut(xs):
        part = np.asarray(xs[w["offset"]:w["offset"] + n], dtype=np.int32)
        return part - part[0]

    rest["positions"] = {"unit": cut(whole["unit"]), "statement": cut(whole["statement"])}
    return rest


def window_sums(losses, classes, edges):
    """One window's sums: bits per bucket, bits and counts per recall class. losses[p - 1] is the
    loss of unit p (p >= 1), in the bucket holding p and the class of unit p (the core's
    window_sums)."""
    return _hirope.window_sums(losses, classes, edges)


def evaluate_file(name, path, model, length, per_file, presets, edges, reach=None, sha256=None):
    """One file's part of the job (a Dask task): its windows, and per window and scheme the sums of
    window_sums. Returns {file, skipped (None or why), windows: [{file, offset, schemes: {name:
    [sums, class_sums, class_counts]}}]}."""
    try:
        data = read_regular(path, None)  # a FIFO or a device is refused, not read without end
    except Unreadable as u:
        why = "missing: %s" % u.detail if u.reason == "os" else "not a regular file: %s" % u.detail
        return {"file": name, "skipped": "%s (%s)" % (name, why), "windows": []}
    if sha256 and hashlib.sha256(data).hexdigest() != sha256:
        return {"file": name, "skipped": "%s (differs from the manifest)" % name, "windows": []}
    m = load_model(model)
    reach = reach or model_config(m)["training_context"]
    try:
        windows = windows_of_file(name, data, length, per_file, m)
    except _hirope.HiRoPEError as e:  # the file's tokens or parse (its size, a parse timeout)
        return {"file": name, "skipped": "%s (%s)" % (name, e), "windows": []}
    cache = {}
    out = []
    for w in windows:
        if "ids" in w:
            classes = token_recall_classes(w["bytes"], w["start"], w["end"], reach)
            code = w["ids"]
        else:
            classes = recall_classes(w["bytes"], reach)
            code = w["bytes"]
        row = {"file": name, "offset": w["offset"], "schemes": {}}
        for scheme, options in presets.items():
            losses = _loss(m, code, _window_options(m, w, data, options, cache))
            row["schemes"][scheme] = window_sums(losses, classes, edges)
        out.append(row)
    return {"file": name, "skipped": None, "windows": out}


# ---------------------------------------------------------------------------------------------
# The report's statistics: the JavaScript package's (wasm/eval-stats.js, their one home, which the
# report and the playground read), run by node on the run's JSON; this reads the JSON it writes.

STATS = os.path.join("dist", "eval-stats.js")
_SUMMARIZE = ("import { summarize } from %s; let text = ''; process.stdin.setEncoding('utf8'); "
              "process.stdin.on('data', (d) => { text += d; }).on('end', () => { "
              "const { run, baselines } = JSON.parse(text); "
              "process.stdout.write(JSON.stringify(summarize(run, baselines))); });")


def _nan_for_null(stat):
    """A {mean | diff, se, files} from JSON, its nulls (JavaScript's NaN) back to NaN."""
    return {k: float("nan") if v is None else v for k, v in stat.items()}


def summarize(run, baselines, root=None):
    """The report's table of a run: per scheme the mean over files of each bucket's, far, near,
    first and other units' and every unit past L's bits per unit (with standard errors), far
    minus the better baseline's (paired by file), and by_file: each file's means. Returns
    (summary, baseline). Computed by the package's statistics (eval-stats.js summarize) under
    node, from the repository's dist/ (scripts/build.sh)."""
    node = shutil.which("node")
    if node is None:
        raise RuntimeError("the evaluation's statistics are the JavaScript package's (%s): they "
                           "need node on the PATH" % STATS)
    stats = os.path.join(root or repository_root(), STATS)
    if not os.path.exists(stats):
        raise FileNotFoundError("the evaluation's statistics are the JavaScript package's, and %s "
                                "is missing: build the package (scripts/build.sh)" % stats)
    program = _SUMMARIZE % json.dumps(pathlib.Path(stats).as_uri())
    done = subprocess.run([node, "--input-type=module", "-e", program], capture_output=True,
                          text=True, input=json.dumps({"run": run, "baselines": list(baselines)}))
    if done.returncode != 0:
        raise RuntimeError("the evaluation's statistics (%s) failed: %s" % (stats, done.stderr.strip()))
    result = json.loads(done.stdout)
    summary = result["summary"]
    for row in summary.values():
        row["buckets"] = [_nan_for_null(c) for c in row["buckets"]]
        for k in ("far", "near", "first", "other", "beyond"):
            row[k] = _nan_for_null(row[k])
        if row["far_minus_baseline"] is not None:
            row["far_minus_baseline"] = _nan_for_null(row["far_minus_baseline"])
    return summary, result["baseline"]


# ---------------------------------------------------------------------------------------------
# The job


def _resolve_files(files, entry, root):
    """[(name, path, sha256 or None)]: a split name of the model's manifest ('held-out', 'tuning',
    'train': names are the manifest's paths, hash-checked by the task), or paths, or (name, path)."""
    if isinstance(files, str):
        rows = _read_json(entry["manifest"])["files"]
        out = [(f["path"], os.path.join(root, f["path"]), f["sha256"]) for f in rows if f["split"] == files]
        if not out:
            raise ValueError("the manifest %s has no %r split" % (entry["manifest"], files))
        return out
    out = []
    for f in files:
        if isinstance(f, (tuple, list)):
            out.append((f[0], os.path.abspath(f[1]), f[2] if len(f) > 2 else None))
        else:
            out.append((str(f), os.path.abspath(str(f)), None))
    return out


def _window_length(window, L, name="window"):
    if window is None:
        return 4 * L
    text = str(window)
    count = text[:-1] if text.endswith("x") else text
    if not (count.isdigit() and int(count) >= 1):
        raise ValueError("%s must be a length in units or Kx (K times the training context), "
                         "a whole number >= 1, got %r" % (name, window))
    return int(count) * (L if text.endswith("x") else 1)


def _check_run(per_file, client, scheduler):
    """The arguments both jobs check first (UsageError): per_file and the scheduler."""
    if per_file is not None and not (isinstance(per_file, int) and not isinstance(per_file, bool)
                                     and per_file >= 1):
        raise UsageError("per_file must be a whole number >= 1 (None: all), got %r" % (per_file,),
                         "per_file")
    if client is None and scheduler not in (None,) + DASK_SCHEDULERS:
        raise UsageError("scheduler must be one of %s, got %r"
                         % (", ".join(DASK_SCHEDULERS), scheduler), "scheduler")


def _prepare(files, model, schemes, window, weights, root):
    """What evaluate() checks before any task runs (each a UsageError naming its argument): the
    model and its weights (loaded here too: the training context and the tokenizer), the window,
    the schemes and the files."""
    reg = registry(root)
    if isinstance(model, str) and not _is_path(model):
        entry = _checked("model", model_entry, model, root)
        tuned = entry["config"].get("evaluation", {}).get("tuned", {})
        argument, weights = ("weights", weights) if weights else ("model", entry["weights"])
    else:
        entry, weights, tuned, argument = None, model, {}, "model"
    config = model_config(_checked(argument, load_model, weights))
    L = config["training_context"]
    length = _checked("window", _window_length, window, L)
    presets = preset_schemes(L, length, tuned, reg)
    baselines, listed = report_schemes(tuned, reg)
    if schemes is None:
        chosen = {n: presets[n] for n in listed}
    elif isinstance(schemes, dict):
        chosen = dict(schemes)
    else:
        unknown = [n for n in schemes if n not in presets]
        if unknown:
            raise UsageError("unknown schemes %s; the presets are %s"
                             % (unknown, ", ".join(presets)), "schemes")
        chosen = {n: presets[n] for n in schemes}
    edges = default_buckets(L, length)
    if entry is None and isinstance(files, str):
        raise UsageError("a split name needs a shipped model's name (its manifest)", "files")
    resolved = _checked("files", _resolve_files, files, entry, root)
    return config, length, chosen, baselines, edges, resolved, weights


# ---------------------------------------------------------------------------------------------
# One row per file, resumable: the job's rows file (JSON lines). Its first line holds the job's
# settings; each further line is one file's part (evaluate_file's result), appended and synced as
# its task ends. A rerun with the same settings reads the rows back and runs only the files that
# have none (a file skipped as unreadable is tried again); a line cut short by a killed job is
# dropped. Both jobs (evaluate, evaluate_checkpoint) run through _run_files.

ROWS_FORMAT = "hirope-eval-rows/1"


class RowsError(RuntimeError):
    """The rows file cannot be used: it cannot be opened or written (the system's words), or is
    one of the cases below. The command says it in one line and exits 1."""


class RowsMismatch(RowsError):
    """The rows file was written by a job with other settings (or is not a rows file)."""


class RowsBusy(RowsError):
    """Another job is writing the rows file (it holds its lock)."""


def _jsonable(x):
    return json.loads(json.dumps(x))


class RowsFile:
    """A rows file opened for a job: `done` ({file: row} of the files already evaluated) and
    append(row). Held under an exclusive lock (flock) until close()."""

    def __init__(self, path, settings):
        self.path = path
        settings = _jsonable(settings)
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o644)
        except OSError as e:
            raise RowsError("cannot open %s: %s" % (path, e.strerror or e)) from None
        self.f = os.fdopen(fd, "r+b")
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            self.f.close()
            raise RowsBusy("%s is being written by another job (it holds its lock); wait for it "
                           "to end or pick another rows file" % path) from None
        try:
            self.done = self._read(settings)
        except BaseException:
            self.f.close()
            raise

    def _read(self, settings):
        data = self.f.read()
        lines = data.split(b"\n")
        # the text after the last newline is a line a killed job did not finish: dropped
        complete = len(data) - len(lines[-1])
        lines = lines[:-1]
        if not lines:
            self.f.seek(0)
            self.f.truncate()
            self._write({"format": ROWS_FORMAT, "settings": settings})
            return {}
        try:
            head = json.loads(lines[0])
        except ValueError:
            head = None
        if not isinstance(head, dict) or head.get("format") != ROWS_FORMAT:
            raise RowsMismatch("%s is not a rows file of hirope's evaluation (its first line is "
                               "not %s's header); pick another rows file" % (self.path, ROWS_FORMAT))
        if head.get("settings") != settings:
            theirs = head.get("settings") or {}
            differ = sorted(k for k in set(theirs) | set(settings) if theirs.get(k) != settings.get(k))
            raise RowsMismatch("%s holds the rows of a job with other settings (%s differ); rerun "
                               "that job's command, or pick another rows file"
                               % (self.path, ", ".join(differ)))
        done = {}
        for i, line in enumerate(lines[1:], 2):
            try:
                row = json.loads(line)
            except ValueError:
                raise RowsMismatch("%s: line %d is not JSON; pick another rows file"
                                   % (self.path, i)) from None
            if row.get("skipped") is None:
                done[row["file"]] = row
            else:
                done.pop(row["file"], None)
        self.f.seek(complete)
        self.f.truncate()
        return done

    def _write(self, obj):
        try:
            self.f.write(json.dumps(obj).encode("utf-8") + b"\n")
            self.f.flush()
            os.fsync(self.f.fileno())
        except OSError as e:  # a full disk: the rows written so far stay, a rerun resumes
            raise RowsError("cannot write %s: %s" % (self.path, e.strerror or e)) from None

    def append(self, row):
        self._write(row)

    def close(self):
        self.f.close()


def _compute(tasks, client, scheduler, on_part):
    """The tasks' results in their order, computed on `client` (a dask.distributed Client) or, without
    one, by dask.compute on `scheduler`; on_part(result) is called here, in this process, as each
    task ends (a local scheduler's posttask callback; a cluster's futures as they complete)."""
    import dask

    if client is None:
        from dask.callbacks import Callback

        keys = {t.key for t in tasks}

        def posttask(key, result, dsk, state, worker_id):
            if key in keys:
                on_part(result)

        with Callback(posttask=posttask):
            return list(dask.compute(*tasks, scheduler=scheduler or "sync"))
    import distributed

    futures = client.compute(tasks)
    try:
        for future in distributed.as_completed(futures):
            if future.status == "error":
                raise future.exception()
            on_part(future.result())
        return client.gather(futures)
    except BaseException:
        try:
            client.cancel(futures)
        except Exception:  # what stopped the job is what the caller must see
            pass
        raise


def _run_files(resolved, model, length, per_file, chosen, edges, reach, client, scheduler, rows,
               settings):
    """The parts of the files `resolved` ([(name, path, sha256)]), in its order, one Dask task per
    file not already in the rows file: evaluate_file(name, path, model, ...), where `model` is
    what load_model reads (a name or a path: each worker loads it once). Returns (parts, resumed:
    how many came from the rows file)."""
    import dask

    store = RowsFile(rows, settings) if rows else None
    try:
        done = store.done if store else {}
        task = dask.delayed(evaluate_file, pure=True)
        tasks = [task(name, path, model, length, per_file, chosen, edges, reach, sha)
                 for name, path, sha in resolved if name not in done]
        parts = _compute(tasks, client, scheduler, store.append if store else (lambda part: None))
    finally:
        if store:
            store.close()
    new = {p["file"]: p for p in parts}
    return [done[name] if name in done else new[name] for name, _, _ in resolved], len(
        [1 for name, _, _ in resolved if name in done])


def _result(parts, length, per_file, chosen, edges, baselines, root):
    """The result of a job from its parts (per file, in order): the run in the report's layout,
    its summary (summarize) and the files skipped."""
    windows = [w for p in parts for w in p["windows"]]
    run = {"length": length, "edges": edges,
           "counts": [min(edges[b + 1], length) - max(edges[b], 1) for b in range(len(edges) - 1)],
           "windows": [{"file": w["file"], "offset": w["offset"]} for w in windows],
           "schemes": {n: {"options": chosen[n],
                           "sums": [w["schemes"][n][0] for w in windows],
                           "classSums": [w["schemes"][n][1] for w in windows],
                           "classCounts": [w["schemes"][n][2] for w in windows]} for n in chosen}}
    summary, baseline = summarize(run, baselines, root) if windows else ({}, None)
    return {"length": length, "per_file": per_file, "baselines": list(baselines),
            "baseline": baseline, "skipped": [p["skipped"] for p in parts if p["skipped"]],
            "run": run, "summary": summary}


def evaluate(files="held-out", model="pybyte", schemes=None, window=None, per_file=4, client=None,
             scheduler=None, weights=None, reach=None, root=None, rows=None):
    """The report's per-window evaluation as a Dask job, one task per file.

    files: a split of the model's manifest ('held-out', the default; 'tuning'), or a list of paths
    (or (name, path) pairs). model: a shipped model's name (the registry's: its config's tuned
    presets and its manifest) or a weights path; weights: other weights for a named model (the
    report's --weights, e.g. a second training seed, under the same tuned settings).
    schemes: preset names (default: the report's, baselines first; see preset_schemes), or a dict
    name -> model options. window: the window length in units (bytes, or tokens for a token
    model), or 'Kx' for K times the training context (default 4x). per_file: at most this many
    windows per file (None: all). client: a dask.distributed Client (its cluster runs the tasks);
    without one, `scheduler` (default 'sync'; any dask scheduler name). rows: a rows file (JSON
    lines, one row per file, written as each file's task ends; a rerun with the same settings
    resumes: see RowsFile).

    Returns {model, length, per_file, baselines, baseline, skipped, resumed, run, summary}: run
    has the layout of the report's kept data (models/<name>-eval.json runs[multiple]: length,
    edges, counts, windows [{file, offset}], schemes {name: {options, sums, classSums,
    classCounts}}); summary per scheme: {buckets, far, near, first, other, beyond: {mean, se,
    files}, far_minus_baseline: {diff, se, files}, by_file: {file: {buckets, far, near, first,
    other, beyond}}} (bits per unit; the means are over files of per-file means, as the report's).
    """
    _check_run(per_file, client, scheduler)
    root = root or repository_root()
    config, length, chosen, baselines, edges, resolved, weights = _prepare(
        files, model, schemes, window, weights, root)
    key = weights if not isinstance(weights, str) else (
        os.path.abspath(weights) if _is_path(weights) else weights)
    settings = {"model": key if isinstance(key, str) else repr(key),
                "length": length, "per_file": per_file, "schemes": chosen, "edges": edges,
                "reach": reach}
    parts, resumed = _run_files(resolved, weights, length, per_file, chosen, edges, reach, client,
                                scheduler, rows, settings)
    result = {"model": config["name"], "resumed": resumed}
    result.update(_result(parts, length, per_file, chosen, edges, baselines, root))
    return result


# ---------------------------------------------------------------------------------------------
# A Hugging Face checkpoint (python -m hirope eval-checkpoint): the same job, its windows runs of
# the model's own tokens (tokenizer.json), the schemes put on every RoPE layer

#: The schemes evaluate_checkpoint runs by default, in the table's order (the HiRoPE paper's
#: Table 4: the model as trained, HiRoPE, ReRoPE, Self-Extend, YaRN).
CHECKPOINT_SCHEMES = ("model", "hirope", "rerope", "self-extend", "yarn")
#: Names only the checkpoint job has: 'model', the checkpoint's own positions (each layer's, from
#: its config.json), and 'hirope', the paper's default (the registry's hirope-0.5-units preset:
#: ratio 0.5, window L/2, the file's top-level units). Every preset name is accepted too.
CHECKPOINT_ALIASES = {"hirope": "hirope-0.5-units"}
MODEL_SCHEME = "model"


def checkpoint_schemes(L, length, reg=None):
    """The schemes the checkpoint job knows (name -> model options): 'model', the aliases, then
    the registry's presets (preset_schemes: the same symbols, YaRN's factor length / L)."""
    presets = preset_schemes(L, length, None, reg)
    out = {MODEL_SCHEME: {"scheme": MODEL_SCHEME}}
    out.update({alias: presets[target] for alias, target in CHECKPOINT_ALIASES.items()})
    out.update(presets)
    return out


def _try_schemes(m, chosen):
    """Each scheme on two tokens of the model (zero positions), so that one the model refuses
    (the core's words: a scheme it cannot put on its layers) is a UsageError before any task
    runs."""
    ids = np.zeros(2, dtype=np.int32)
    zeros = np.zeros(2, dtype=np.int32)
    for name, options in chosen.items():
        try:
            _loss(m, ids, dict(options, positions={"unit": zeros, "statement": zeros}))
        except _hirope.HiRoPEError as e:
            raise UsageError("the scheme %r does not run on this model: %s" % (name, e),
                             "schemes") from None


def _collect(files):
    from .corpus import collect  # its paths, globs ('**' any directories) and folders

    try:
        return [(p, os.path.abspath(p), None) for p in collect(files)]
    except FileNotFoundError as e:  # a path or a glob that names nothing
        raise UsageError(str(e), "files") from None


def evaluate_checkpoint(folder, files, schemes=None, length="4x", per_file=4, client=None,
                        scheduler=None, rows=None, reach=None, root=None):
    """The evaluation of a Hugging Face checkpoint folder (config.json, its safetensors and
    tokenizer.json) beyond its training length: evaluate()'s job, one Dask task per file, each
    loading the folder itself (once per worker).

    files: paths, globs ('repo/**/*.py') or folders (hirope.corpus.collect). schemes: names of
    checkpoint_schemes (default CHECKPOINT_SCHEMES), or a dict name -> model options. length:
    tokens per window, or 'Kx' for K times the model's training length (config.json's; default
    4x). Windows are runs of the whole file's tokens (tokenizer.json), at most per_file per file,
    evenly spread (None: all); HiRoPE's units and statements are cut from the whole file's
    parse. rows: a rows file (one row per file, resumable; see RowsFile).

    Every wrong argument is a UsageError (a HiRoPEError) naming it ('folder', 'files', 'length',
    'schemes', 'per_file', 'scheduler'), before any task runs. Returns evaluate()'s result, its
    unit the token; baselines ['model'] (far_minus_baseline: each scheme minus the checkpoint's
    own positions on far-recall tokens).
    """
    _check_run(per_file, client, scheduler)
    root = root or repository_root()
    if not isinstance(folder, (str, os.PathLike)):
        raise UsageError("folder must be a checkpoint folder's path, got %r" % (folder,), "folder")
    folder = os.path.abspath(os.fspath(folder))
    if not os.path.isdir(folder):  # the loader's words for it
        import hirope

        _checked("folder", hirope.Model.from_pretrained, folder)
    m = _checked("folder", load_model, folder)
    if not m.checkpoint:
        raise UsageError("%s is not a checkpoint folder" % folder, "folder")
    if not _tokenizer(m):
        raise UsageError("the checkpoint folder %s has no tokenizer.json: the evaluation reads "
                         "files as text, in the model's own tokens" % folder, "folder")
    L = model_config(m)["training_context"]
    length = _checked("length", _window_length, length, L, "length")
    if length > m.max_input_bytes:
        raise UsageError("length is %d tokens; the model's limit is %d"
                         % (length, m.max_input_bytes), "length")
    known = checkpoint_schemes(L, length)
    if schemes is None:
        schemes = CHECKPOINT_SCHEMES
    if isinstance(schemes, dict):
        chosen = dict(schemes)
    else:
        if isinstance(schemes, str):
            schemes = [schemes]
        unknown = [n for n in schemes if n not in known]
        if unknown or not schemes:
            raise UsageError("unknown schemes %s; the schemes are %s"
                             % (unknown, ", ".join(known)), "schemes")
        chosen = {n: known[n] for n in schemes}
    _try_schemes(m, chosen)
    edges = default_buckets(L, length)
    resolved = _checked("files", _collect, files)
    settings = {"model": folder, "length": length, "per_file": per_file, "schemes": chosen,
                "edges": edges, "reach": reach}
    parts, resumed = _run_files(resolved, folder, length, per_file, chosen, edges, reach, client,
                                scheduler, rows, settings)
    result = {"model": folder, "model_type": m.config["model_type"], "training_context": L,
              "resumed": resumed}
    result.update(_result(parts, length, per_file, chosen, edges, [MODEL_SCHEME], root))
    return result


# ---------------------------------------------------------------------------------------------
# The tables and the commands


def format_table(result):
    """The report's table of one window length as Markdown (sorted by far-recall bits/unit)."""
    run, summary, baseline = result["run"], result["summary"], result["baseline"]
    edges = run["edges"]
    nb = len(edges) - 1
    # The difference to the better baseline: a column only when a baseline was run.
    head = "| scheme | %s | far-recall | near-recall | first |%s" % (
        " | ".join(bucket_label(edges, b) for b in range(nb)),
        "" if baseline is None else " far - %s |" % baseline)
    lines = [head, "|---|" + "---:|" * (nb + 3 + (baseline is not None))]
    for n in sorted(summary, key=lambda n: summary[n]["far"]["mean"]):
        s = summary[n]
        d = s["far_minus_baseline"]
        diff = "" if baseline is None else " %s |" % (
            "-" if d is None else "%+.3f ± %.3f" % (d["diff"], d["se"]))
        lines.append("| %s | %s | %.3f | %.3f | %.3f |%s" % (
            n, " | ".join("%.3f" % c["mean"] for c in s["buckets"]), s["far"]["mean"],
            s["near"]["mean"], s["first"]["mean"], diff))
    return "\n".join(lines)


def _mean_se(stat):
    return "%.3f ± %.3f" % (stat["mean"], stat["se"])


def format_checkpoint_table(result):
    """The checkpoint job's table as Markdown, the shape of the HiRoPE paper's Table 4: per scheme
    (in the order run) the bits per token in each position bucket past the training length and
    over all of them, then on far-recall tokens, each the mean over files ± its standard error
    (NaN where one file: no spread to measure); the first column is positions within it."""
    run, summary = result["run"], result["summary"]
    edges = run["edges"]
    nb = len(edges) - 1
    head = "| scheme | %s |%s past %d | far-recall |" % (
        bucket_label(edges, 0) + " (trained)",
        "".join(" %s |" % bucket_label(edges, b) for b in range(1, nb)),
        result.get("training_context", edges[1]) - 1)
    lines = [head, "|---|" + "---:|" * (nb + 2)]
    for n in run["schemes"]:
        s = summary[n]
        lines.append("| %s | %s | %s | %s |" % (
            n, " | ".join(_mean_se(c) for c in s["buckets"]), _mean_se(s["beyond"]),
            _mean_se(s["far"])))
    return "\n".join(lines)


def _fail(code, message, command="eval"):
    print("hirope %s: %s" % (command, message), file=sys.stderr)
    return code


def _job_options(p, rows_help):
    """The options both commands share (the job's: windows per file, the scheduler, the outputs)."""
    p.add_argument("--per-file", type=int, default=4, help="windows per file at most, 0 for all "
                   "(default %(default)s)")
    p.add_argument("--scheduler", default=None, help="a dask.distributed scheduler address, "
                   "'local:N' (a LocalCluster of N workers) or one of Dask's local schedulers: %s "
                   "(default sync)" % ", ".join(DASK_SCHEDULERS))
    p.add_argument("--connect-timeout", type=float, default=10.0, metavar="SECONDS",
                   help="seconds a --scheduler address may take to answer (default %(default)s)")
    p.add_argument("--rows", default=None, metavar="FILE", help=rows_help)
    p.add_argument("--out", default=None, help="write the whole result as JSON here (default: "
                   "none)")


def _run_command(a, command, job, options, table, unit):
    """Checks the shared options, starts the client, runs job(per_file, client, scheduler, root)
    and prints the result's line and table (exit codes: main's). options: a UsageError's argument
    -> the option that names it."""
    if a.per_file < 0:
        return _fail(2, "--per-file: windows per file at most, a whole number >= 0 (0: all), "
                        "got %d" % a.per_file, command)
    if not (a.connect_timeout > 0 and math.isfinite(a.connect_timeout)):
        return _fail(2, "--connect-timeout: seconds, a number > 0, got %s" % a.connect_timeout,
                     command)
    for flag, path in (("--out", a.out), ("--rows", a.rows)):
        if path and not os.path.isdir(os.path.dirname(os.path.abspath(path))):
            return _fail(2, "%s: no such directory: %s" % (flag, os.path.dirname(os.path.abspath(path))),
                         command)
    try:
        root = repository_root()  # found before any work
    except NoRepository as e:
        return _fail(2, e, command)
    client = cluster = None
    scheduler = a.scheduler
    if scheduler and scheduler.startswith("local:"):
        workers = scheduler[len("local:"):]
        if not (workers.isdigit() and int(workers) >= 1):
            return _fail(2, "--scheduler: local:N needs N, the number of worker processes, as a "
                            "whole number >= 1, got %r" % (scheduler,), command)
        from distributed import Client

        from .corpus import local_cluster

        cluster = local_cluster(int(workers))
        client = Client(cluster)
        scheduler = None
    elif scheduler and "://" not in scheduler and scheduler not in DASK_SCHEDULERS:
        return _fail(2, "--scheduler: a scheduler address (tcp://HOST:PORT), local:N or one of "
                        "%s, got %r" % (", ".join(DASK_SCHEDULERS), scheduler), command)
    elif scheduler and "://" in scheduler:
        from .corpus import SchedulerUnreachable, connect_scheduler

        try:
            client = connect_scheduler(scheduler, a.connect_timeout)
        except SchedulerUnreachable as e:
            return _fail(1, e, command)
        scheduler = None
    try:
        result = job(a.per_file or None, client, scheduler, root)
    except UsageError as e:
        option = options.get(e.argument, "--" + e.argument.replace("_", "-"))
        return _fail(2, "%s: %s" % (option, e), command)
    except RowsError as e:
        return _fail(1, "--rows: %s" % (e,), command)
    finally:
        if client is not None:
            client.close()
        if cluster is not None:
            cluster.close()
    if a.out:
        try:
            with open(a.out, "w") as f:
                json.dump(result, f)
        except OSError as e:
            return _fail(1, "--out: %s: %s" % (e.strerror or e, a.out), command)
    files = len({w["file"] for w in result["run"]["windows"]})
    print("%s: %d windows of %d %s from %d files%s%s" % (
        result["model"], len(result["run"]["windows"]), result["length"], unit, files,
        " (%d read back from %s)" % (result["resumed"], a.rows) if result["resumed"] else "",
        "; skipped: " + ", ".join(result["skipped"]) if result["skipped"] else ""))
    if not result["run"]["windows"]:
        return _fail(1, "no window to evaluate: %s" % (
            "every file was skipped" if result["skipped"] else "the files are shorter than a window"),
            command)
    print(table(result))
    return 0


_ROWS_HELP = ("a rows file (JSON lines, one row per file, written as each file ends); the same "
              "command again resumes from it (default: none)")


def main(argv=None):
    """`python -m hirope eval`. Exit codes as `positions`' (docs/python.md#exit-codes): 0 done; 1
    the job could not run or no file could be evaluated; 2 a wrong option or argument, said in
    one line before any work."""
    p = argparse.ArgumentParser(prog="python -m hirope eval", description=(
        "The model evaluation of training/eval/report.mjs as a Dask job: bits per unit by position "
        "bucket and recall class, per scheme, over a manifest split or files."))
    p.add_argument("files", nargs="*", help="files (default: the model's --split)")
    p.add_argument("--model", default=None, help="a shipped model or a weights file (.hrm) "
                   "(default: the registry's default model)")
    p.add_argument("--weights", default=None, help="other weights for the named model, under its "
                   "tuned settings (default: the model's own)")
    p.add_argument("--split", default="held-out", help="the manifest split when no files are "
                   "given (default %(default)s)")
    p.add_argument("--window", default="4x", help="window length in units, or Kx (K times the "
                   "training context) (default %(default)s)")
    p.add_argument("--schemes", default=None, help="comma-separated preset names (default: the "
                   "report's)")
    _job_options(p, _ROWS_HELP)
    a = p.parse_args(argv)

    def job(per_file, client, scheduler, root):
        try:
            model = a.model or registry(root)["default"]
        except NoRepository as e:  # pragma: no cover (repository_root found it)
            raise UsageError(str(e), "model") from None
        return evaluate(a.files or a.split, model=model,
                        schemes=a.schemes.split(",") if a.schemes else None, window=a.window,
                        per_file=per_file, client=client, scheduler=scheduler, weights=a.weights,
                        root=root, rows=a.rows)

    return _run_command(a, "eval", job, {"files": "FILE" if a.files else "--split"}, format_table,
                        "units")


def main_checkpoint(argv=None):
    """`python -m hirope eval-checkpoint FOLDER --files ...`: evaluate_checkpoint from the shell.
    Exit codes as `eval`'s: 0 done; 1 the job could not run (an unreachable scheduler, a rows
    file of another job or in use) or no file could be evaluated; 2 a wrong option or argument,
    said in one line before any work."""
    p = argparse.ArgumentParser(prog="python -m hirope eval-checkpoint", description=(
        "A Hugging Face checkpoint beyond its training length, as a Dask job: bits per token by "
        "position bucket (and on far-recall tokens) under each scheme, with standard errors over "
        "files, from windows of the files' tokens (the folder's tokenizer.json)."))
    p.add_argument("folder", help="the checkpoint folder (config.json, safetensors, tokenizer.json)")
    p.add_argument("--files", nargs="+", required=True, metavar="FILE",
                   help="files, globs (quoted; ** is recursive) or folders")
    p.add_argument("--length", default="4x", help="window length in tokens, or Kx (K times the "
                   "model's training length) (default %(default)s)")
    p.add_argument("--schemes", default=",".join(CHECKPOINT_SCHEMES), help="comma-separated: "
                   "'model' (the checkpoint's own positions), 'hirope' (the paper's default), or a "
                   "preset name of `eval` (default %(default)s)")
    _job_options(p, _ROWS_HELP)
    a = p.parse_args(argv)

    def job(per_file, client, scheduler, root):
        return evaluate_checkpoint(a.folder, a.files, schemes=a.schemes.split(","),
                                   length=a.length, per_file=per_file, client=client,
                                   scheduler=scheduler, rows=a.rows, root=root)

    return _run_command(a, "eval-checkpoint", job, {"folder": "FOLDER"}, format_checkpoint_table,
                        "tokens")


if __name__ == "__main__":
    sys.exit(main())
