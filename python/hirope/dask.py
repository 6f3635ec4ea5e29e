"""Corpus-scale positions on Dask (docs/python.md#a-corpus-on-dask).

``positions(files, out)`` analyzes every file with the native module and writes one shard per
partition into ``out`` in the format of ``hirope.shards`` (numpy + json, no hirope needed to read
it). It is a batch job built on Dask's scheduler, not a pool of its own:

- the partitioning is deterministic (sorted, de-duplicated paths chunked by count, or a bag's own
  partitions) and recorded in ``out/manifest.json``; a rerun plans it again and refuses to write
  into a directory planned differently;
- each partition is one task that writes its shard under temporary names and renames them into
  place, so a task retried after its worker died rewrites the same shard (never a lost or doubled
  file), and finished shards are skipped by a rerun;
- a file that cannot be read, decoded as UTF-8, or analyzed (a ``HiRoPEError``: parse timeout,
  size limit, unknown language) becomes a row with its error and no tokens; the job goes on.
"""

import glob as _glob
import hashlib
import os
import time

import dask

from . import shards

DEFAULT_PARTITION_SIZE = 256
# hr.limits.maxSourceBytes of the package; larger files are error rows without being read whole.
DEFAULT_MAX_BYTES = 15 * 1024 * 1024
LOCAL_SCHEDULERS = ("sync", "synchronous", "single-threaded", "threads", "processes")


class ManifestMismatch(ValueError):
    """The output directory holds a run planned differently (other files, settings, or
    partitioning); pick another directory or remove it."""


# ---------------------------------------------------------------------------------------------
# Planning (on the client)

def _is_glob(s):
    return any(c in s for c in "*?[")


def _walk(root):
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(filenames):
            yield os.path.join(dirpath, name)


def collect(files):
    """The sorted, de-duplicated paths that `files` names: a path, a glob (``**`` recursive) or a
    directory (every regular file below it whose language hirope detects from its name), or a
    list of those. A path given by name is kept even when no language is detected for it (it
    becomes an error row); so is every regular file a glob matches."""
    if isinstance(files, (str, os.PathLike)):
        files = [files]
    found = set()
    detect = None
    for item in files:
        item = os.fspath(item)
        if os.path.isdir(item):
            if detect is None:
                detect = _detect_language
            found.update(p for p in _walk(item) if os.path.isfile(p) and detect(p))
        elif _is_glob(item) and not os.path.exists(item):
            matched = [p for p in _glob.glob(item, recursive=True) if os.path.isfile(p)]
            if not matched:
                raise FileNotFoundError("%s: no file matches" % item)
            found.update(matched)
        elif os.path.exists(item):
            found.add(item)
        else:
            raise FileNotFoundError("%s: no such file or directory" % item)
    paths = sorted(os.path.normpath(p) for p in found)
    # normpath can make two spellings one path
    return [p for i, p in enumerate(paths) if i == 0 or p != paths[i - 1]]


def plan(paths, partition_size):
    """The partitions: consecutive runs of `partition_size` sorted paths."""
    if partition_size < 1:
        raise ValueError("partition_size must be at least 1, got %r" % (partition_size,))
    return [paths[i:i + partition_size] for i in range(0, len(paths), partition_size)]


def _file_digest(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _settings(tokenizer, hierarchy, language, timeout_ms, max_bytes, options):
    tok = os.fspath(tokenizer)
    settings = {
        "tokenizer": tok,
        "hierarchy": hierarchy,
        "language": language,
        "timeout_ms": timeout_ms,
        "max_bytes": max_bytes,
        "options": dict(sorted(options.items())),
    }
    if os.path.isfile(tok):  # a tokenizer.json of one's own: the same file on a rerun
        settings["tokenizer_sha256"] = _file_digest(tok)
    return settings


def _check_manifest(out, manifest):
    old = shards.read_manifest(out)
    if old is None:
        if any(n.startswith("shard-") for n in os.listdir(out)):
            raise ManifestMismatch("%s holds shards but no %s: not an output directory of this "
                                   "run; pick another --out" % (out, shards.MANIFEST))
        shards.write_manifest(out, manifest)
        return
    for key, what in (("format", "format"), ("version", "format version"),
                      ("settings", "settings (tokenizer, hierarchy, options)"),
                      ("source", "file list"), ("files", "file list"),
                      ("partition_size", "partitioning"), ("shards", "partitioning")):
        if old.get(key) != manifest.get(key):
            raise ManifestMismatch(
                "%s was written by a run with a different %s (%s: %s, now %s); a rerun resumes "
                "only the same job: pick another output directory or remove this one"
                % (out, what, key, _short(old.get(key)), _short(manifest.get(key))))


def _short(value):
    text = repr(value)
    return text if len(text) <= 160 else text[:150] + "...(%d chars)" % len(text)


# ---------------------------------------------------------------------------------------------
# The task (on a worker)

_TOKENIZERS = {}


def _native():
    import hirope  # the package, with the native module; imported on the worker
    return hirope


def _detect_language(path):
    hr = _native()
    try:
        name = hr.detect_language(path)
    except ValueError:
        return None
    return name or None


def _tokenizer(name):
    """The loaded tokenizer, once per worker process (llama3's vocabulary takes a while)."""
    tok = _TOKENIZERS.get(name)
    if tok is None:
        hr = _native()
        tok = name if name == "lexical" else hr.load_tokenizer(name)
        _TOKENIZERS[name] = tok
    return tok


def _field(result, name):
    """A field of analyze()'s result, whether it is an object or a dict."""
    try:
        return getattr(result, name)
    except AttributeError:
        return result[name]


def _units(result):
    try:
        units = _field(result, "units")
    except (KeyError, TypeError):
        return 0
    return 0 if units is None else len(units)


def analyze_file(path, data, settings):
    """One file's row and arrays (None when it has no tokens). `data` is its bytes, or None when
    it was not read (the row already says why)."""
    hr = _native()
    row = {"path": path, "sha256": None, "bytes": None, "language": None, "units": 0,
           "error": None}
    if isinstance(data, BaseException):
        row["error"] = "cannot read: %s" % (data,)
        return row, None
    if isinstance(data, str):
        try:
            data = data.encode("utf-8")
        except UnicodeEncodeError as e:
            row["error"] = "text is not valid Unicode: %s" % (e,)
            return row, None
    row["sha256"] = hashlib.sha256(data).hexdigest()
    row["bytes"] = len(data)
    language = settings["language"] or _detect_language(path)
    row["language"] = language
    if language is None:
        row["error"] = "no language detected from the file name"
        return row, None
    if len(data) > settings["max_bytes"]:
        row["error"] = "file too large: %d bytes, the limit is %d" % (len(data),
                                                                      settings["max_bytes"])
        return row, None
    try:
        data.decode("utf-8")  # checked here; the bytes go to analyze (no second encoding)
    except UnicodeDecodeError as e:
        row["error"] = "not UTF-8: %s" % (e,)
        return row, None
    kwargs = dict(settings["options"])
    if settings["timeout_ms"] is not None:
        kwargs["timeout_ms"] = settings["timeout_ms"]
    try:
        result = hr.analyze(data, language=language, tokenizer=_tokenizer(settings["tokenizer"]),
                            hierarchy=settings["hierarchy"], **kwargs)
    except hr.HiRoPEError as e:
        row["error"] = str(e)
        return row, None
    row["units"] = _units(result)
    arrays = {name: _field(result, name) for name in shards.ARRAYS}
    return row, arrays


def _read(path, max_bytes):
    try:
        with open(path, "rb") as f:
            data = f.read(max_bytes + 1)
            if len(data) > max_bytes:  # count the rest without holding it
                size = os.fstat(f.fileno()).st_size
                return _TooLarge(size)
            return data
    except OSError as e:
        return e


class _TooLarge(Exception):
    def __init__(self, size):
        super().__init__(size)
        self.size = size


def _write(out, index, items, settings, fsync, compress):
    """items: (path, bytes | str | exception). Writes the shard, returns its counts."""
    rows, arrays = [], []
    for path, data in items:
        if isinstance(data, _TooLarge):
            row = {"path": path, "sha256": None, "bytes": data.size,
                   "language": settings["language"] or _detect_language(path), "units": 0,
                   "error": "file too large: %d bytes, the limit is %d" % (data.size,
                                                                           settings["max_bytes"])}
            arr = None
        else:
            row, arr = analyze_file(path, data, settings)
        rows.append(row)
        arrays.append(arr)
    tokens = shards.write_shard(out, index, rows, arrays, fsync=fsync, compress=compress)
    return {"shard": index, "files": len(rows), "tokens": tokens,
            "errors": sum(r["error"] is not None for r in rows), "written": 1}


def _skipped(out, index):
    rows = shards.read_rows(out, index)
    return {"shard": index, "files": len(rows), "tokens": sum(r["tokens"] for r in rows),
            "errors": sum(r["error"] is not None for r in rows), "written": 0}


def paths_task(out, index, paths, settings, fsync=True, compress=False, cwd=None):
    """A partition of paths: reads, analyzes and writes shard `index` (skipped when finished).
    Relative paths are read from `cwd` (the client's), whatever the worker's own directory."""
    if shards.is_finished(out, index):
        return _skipped(out, index)
    cwd = cwd or os.getcwd()
    return _write(out, index, ((p, _read(os.path.join(cwd, p), settings["max_bytes"]))
                               for p in paths), settings, fsync, compress)


def records_task(records, out, index, settings, fsync=True, compress=False):
    """A bag partition of {path, text} records (text: str or bytes)."""
    if shards.is_finished(out, index):
        return _skipped(out, index)
    items = []
    for r in records:
        try:
            items.append((r["path"], r["text"]))
        except (KeyError, TypeError) as e:
            raise ValueError("a bag record must be a dict with 'path' and 'text', got %r"
                             % (type(r).__name__,)) from e
    return _write(out, index, items, settings, fsync, compress)


# ---------------------------------------------------------------------------------------------
# Running

def _is_bag(files):
    try:
        import dask.bag
    except ImportError:
        return False
    return isinstance(files, dask.bag.Bag)


def _run(tasks, client, workers, progress):
    """Computes the delayed tasks on `client`: a distributed Client, a scheduler address, one of
    LOCAL_SCHEDULERS, or None for a LocalCluster of `workers` processes of one thread each."""
    if isinstance(client, str) and client in LOCAL_SCHEDULERS:
        if progress:
            from dask.diagnostics import ProgressBar
            with ProgressBar():
                return list(dask.compute(*tasks, scheduler=client))
        return list(dask.compute(*tasks, scheduler=client))
    import distributed
    owned = []
    try:
        if client is None:
            cluster = distributed.LocalCluster(
                n_workers=workers or os.cpu_count() or 1, threads_per_worker=1, processes=True,
                dashboard_address=":0")
            owned.append(cluster)
            client = distributed.Client(cluster)
            owned.append(client)
        elif isinstance(client, str):
            client = distributed.Client(client)
            owned.append(client)
        elif workers is not None:
            raise ValueError("workers= goes with a LocalCluster of hirope's (client=None)")
        futures = client.compute(tasks)
        if progress:
            distributed.progress(futures)
        return client.gather(futures)
    finally:
        for thing in reversed(owned):
            thing.close()


def positions(files, out, tokenizer="llama3", hierarchy="units", client=None,
              partition_size=DEFAULT_PARTITION_SIZE, progress=True, workers=None, language=None,
              timeout_ms=None, max_bytes=DEFAULT_MAX_BYTES, fsync=True, compress=False,
              **options):
    """Writes the positions of every file into shards in `out`; returns a summary dict
    (files, tokens, errors, shards, written, skipped, seconds, out).

    files: a path, glob or directory (or a list of them; see collect), or a dask.bag of
    {path, text} records (one shard per bag partition). client: None (a LocalCluster of `workers`
    processes, default one per core, one thread each, closed at the end), a distributed.Client, a
    scheduler address ('tcp://host:8786'), or 'sync' / 'threads' / 'processes' for Dask's local
    schedulers. compress: deflate the .npz shards (about 4x smaller, more CPU; the arrays read the
    same). options go to hirope.analyze (gap, descend_classes, segment_size, ...).
    """
    start = time.perf_counter()
    settings = _settings(tokenizer, hierarchy, language, timeout_ms, max_bytes, options)
    out = os.path.abspath(os.fspath(out))  # the workers' view too: a shared file system
    os.makedirs(out, exist_ok=True)
    manifest = {"format": shards.FORMAT, "version": shards.VERSION, "settings": settings}
    if _is_bag(files):
        bag = files
        manifest.update(source={"kind": "bag", "name": bag.name}, partition_size=None,
                        files=None,
                        shards=[{"shard": i} for i in range(bag.npartitions)])
        parts = None
    else:
        paths = collect(files)
        if not paths:
            raise FileNotFoundError("no files to analyze in %r" % (files,))
        parts = plan(paths, partition_size)
        manifest.update(source={"kind": "paths", "sha256": shards.paths_digest(paths)},
                        partition_size=partition_size, files=len(paths),
                        shards=[{"shard": i, "files": len(p), "sha256": shards.paths_digest(p)}
                                for i, p in enumerate(parts)])
    _check_manifest(out, manifest)
    shards.remove_temporaries(out)
    count = len(manifest["shards"])
    todo = [i for i in range(count) if not shards.is_finished(out, i)]
    pending = set(todo)
    results = [_skipped(out, i) for i in range(count) if i not in pending]
    if todo:
        if parts is not None:
            task = dask.delayed(paths_task, pure=True)
            cwd = os.getcwd()
            tasks = [task(out, i, parts[i], settings, fsync, compress, cwd,
                          dask_key_name="hirope-shard-%d-%s"
                          % (i, manifest["shards"][i]["sha256"][:16])) for i in todo]
        else:
            task = dask.delayed(records_task, pure=True)
            delayed_parts = bag.to_delayed()
            tasks = [task(delayed_parts[i], out, i, settings, fsync, compress,
                          dask_key_name="hirope-shard-%d-%s" % (i, bag.name)) for i in todo]
        results += _run(tasks, client, workers, progress)
    results.sort(key=lambda r: r["shard"])
    return {
        "out": out,
        "files": sum(r["files"] for r in results),
        "tokens": sum(r["tokens"] for r in results),
        "errors": sum(r["errors"] for r in results),
        "shards": count,
        "written": sum(r["written"] for r in results),
        "skipped": count - sum(r["written"] for r in results),
        "seconds": time.perf_counter() - start,
    }
