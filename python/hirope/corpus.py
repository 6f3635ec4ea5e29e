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
- the settings are checked before anything is planned or written (``SettingsError``): a wrong
  setting never becomes a finished output of error rows;
- a file that cannot be read (a dangling link, a link loop, not a regular file: a FIFO is never
  opened for reading), is too large (checked before it is read), has a name or text that is not
  UTF-8, or fails in ``hirope.analyze`` (a ``HiRoPEError``: parse timeout, size limit) becomes a
  row with its error and no tokens; the job goes on.
"""

import fcntl
import fnmatch
import glob as _globlib
import hashlib
import math
import logging
import os
import re
import sys
import time

import dask

from . import shards
from ._files import Unreadable, read_regular

DEFAULT_PARTITION_SIZE = 256
# hr.limits.maxSourceBytes of the package; larger files are error rows without being read whole.
DEFAULT_MAX_BYTES = 15 * 1024 * 1024
LOCAL_SCHEDULERS = ("sync", "synchronous", "single-threaded", "threads", "processes")
# How long a scheduler address may take to answer before the job gives up (distributed's own
# default is 30 s).
DEFAULT_CONNECT_TIMEOUT_S = 10
# Progress when the stream is not a terminal: one line at most this often (and one at the end).
PROGRESS_LINE_INTERVAL_S = 10


class ManifestMismatch(ValueError):
    """The output directory holds a run planned differently (other files, settings, or
    partitioning); pick another directory or remove it."""


class OutputBusy(RuntimeError):
    """Another job is writing into the output directory (it holds its lock file)."""


LOCK = ".lock"  # in the output directory: held (flock) by the job writing there


def _claim_output(out):
    """An open descriptor holding the output directory's lock (released when it is closed or
    the process ends, however it ends), or OutputBusy: a second job into the same directory
    would plan and write the same shards beside the first."""
    fd = os.open(os.path.join(out, LOCK), os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0),
                 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        raise OutputBusy("%s is being written by another job (it holds %s); wait for it to end "
                         "or pick another output directory"
                         % (out, os.path.join(out, LOCK))) from None
    return fd


class SettingsError(ValueError):
    """A setting of the job is wrong; `option` names it (positions()'s keyword: 'tokenizer',
    'timeout_ms', 'segment_size', 'workers', 'out', ...). Raised before anything is planned or
    written."""

    def __init__(self, option, message):
        super().__init__(message)
        self.option = option


class SchedulerUnreachable(ConnectionError):
    """The scheduler address did not answer within the connect timeout."""


# ---------------------------------------------------------------------------------------------
# Planning (on the client)

def _is_glob(s):
    return any(c in s for c in "*?[")


def _walk(root, unlisted):
    """The files below root (no link to a directory followed); each directory that cannot be
    listed is appended to `unlisted` (it becomes an error row, not a silent gap)."""
    def refused(e):  # a directory that vanished meanwhile (or a root that is none) is no row
        if not isinstance(e, (FileNotFoundError, NotADirectoryError)):
            unlisted.append(e.filename)

    for dirpath, dirnames, filenames in os.walk(root, onerror=refused):
        dirnames.sort()
        for name in sorted(filenames):
            yield os.path.join(dirpath, name)


def _glob_segment(name, pattern):
    """One path segment against one glob segment, as glob does: a name starting with '.' is
    matched only by a pattern starting with '.'."""
    if name.startswith(".") and not pattern.startswith("."):
        return False
    return fnmatch.fnmatchcase(name, pattern)


def _glob_match(parts, patterns):
    """Whether the path segments `parts` match the glob segments `patterns` ('**' any number of
    directories, none of them hidden). Iterative: the set of pattern positions reached so far."""
    def past_stars(reached):  # '**' may match no directory at all
        out = set()
        for i in reached:
            out.add(i)
            while i < len(patterns) and patterns[i] == "**":
                i += 1
                out.add(i)
        return out

    reached = past_stars({0})
    for name in parts:
        step = set()
        for i in reached:
            if i == len(patterns):
                continue
            if patterns[i] == "**":
                if not name.startswith("."):
                    step.add(i)
            elif _glob_segment(name, patterns[i]):
                step.add(i + 1)
        reached = past_stars(step)
        if not reached:
            return False
    return len(patterns) in reached


def _glob(pattern):
    """Everything but a directory that a glob matches, '**' any number of directories. Links to
    directories are not followed (glob.glob's '**' follows them: a link loop listed each file once
    per turn, two loops never ended), as a directory argument does."""
    if "**" not in pattern:
        return [p for p in _globlib.glob(pattern) if not os.path.isdir(p)]
    absolute = pattern.startswith(os.sep)
    segments = pattern.lstrip(os.sep).split(os.sep)
    fixed = next(i for i, s in enumerate(segments) if _is_glob(s))  # the directories named as is
    root = (os.sep if absolute else "") + os.sep.join(segments[:fixed])
    segments = segments[fixed:]
    out, start = [], root or os.curdir
    unlisted = []  # directories that cannot be listed: listed themselves, as error rows
    for path in _walk(start, unlisted):
        rel = os.path.relpath(path, start)
        if _glob_match(rel.split(os.sep), segments):
            out.append(path)
    return out + unlisted


def _named(path):
    """Whether a path given by name is listed: it exists, or it cannot be looked at (a file in a
    directory one may not search: its row says "Permission denied", not that it is missing)."""
    try:
        os.lstat(path)
    except FileNotFoundError:
        return False
    except OSError:
        return True
    return True


def collect(files):
    """The sorted, de-duplicated paths that `files` names: a path, a glob (``**`` any number of
    directories) or a directory (every entry below it but directories whose language hirope
    detects from its name), or a list of those; neither a glob nor a directory follows links to
    directories. A path given by name is kept even
    when no language is detected for it (it becomes an error row); so is everything but a
    directory that a glob matches. Whatever cannot be read (a dangling link, a link loop, a FIFO,
    a device) is listed the same way from a directory, a glob or by name, and becomes an error
    row."""
    if isinstance(files, (str, os.PathLike)):
        files = [files]
    found = set()
    for item in files:
        item = os.fspath(item)
        if os.path.isdir(item):
            unlisted = []
            found.update(p for p in _walk(item, unlisted) if _detect_language(p))
            found.update(unlisted)
        elif _is_glob(item) and not os.path.lexists(item):
            matched = _glob(item)
            if not matched:
                raise FileNotFoundError("%s: no file matches" % item)
            found.update(matched)
        elif _named(item):
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


def _settings(tokenizer, hierarchy, language, timeout_ms, max_bytes, options, compress=False):
    tok = os.fspath(tokenizer)
    settings = {
        "tokenizer": tok,
        "hierarchy": hierarchy,
        "language": language,
        "timeout_ms": timeout_ms,
        "max_bytes": max_bytes,
        "options": dict(sorted(options.items())),
        # Special-token markers in the code are text (the tokenizers' default since it became one
        # rule): recorded so that a job written while they were matched is not resumed into a mix.
        "special_tokens": False,
        # The shards' bytes differ with it: a resume with the other value would mix two formats.
        "compress": bool(compress),
    }
    if os.path.isfile(tok):  # a tokenizer.json of one's own: the same file on a rerun
        settings["tokenizer_sha256"] = shards.file_sha256(tok)
    return settings


# positions()'s options that hirope.analyze takes (the rest of analyze's arguments are the job's)
ANALYZE_OPTIONS = ("gap", "descend_classes", "segment_size")


def check_settings(tokenizer="llama3", hierarchy="units", language=None, timeout_ms=None,
                   max_bytes=DEFAULT_MAX_BYTES, partition_size=DEFAULT_PARTITION_SIZE, workers=None,
                   client=None, out=None, **options):
    """Raises SettingsError naming the first wrong setting; positions() calls it before it plans
    or writes anything. The analysis settings are checked by hirope.analyze itself on an empty
    file (one rule, the core's), the tokenizer by loading it."""
    hr = _native()
    for name, value, least in (("partition_size", partition_size, 1), ("workers", workers, 1),
                               ("max_bytes", max_bytes, 0)):
        if name == "workers" and value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            raise SettingsError(name, "%s must be an integer >= %d, got %r" % (name, least, value))
    core_max = hr.limits["analysis_max_bytes"]
    if max_bytes > core_max:  # a larger file would be read whole, then refused by the core
        raise SettingsError("max_bytes", "max_bytes must be at most the core's limit of %d bytes "
                            "per file, got %r" % (core_max, max_bytes))
    if out is not None and not isinstance(out, (str, os.PathLike)):
        raise SettingsError("out", "out must be a directory path, got %r" % (out,))
    if client is not None and not isinstance(client, str):
        import distributed

        if not isinstance(client, distributed.Client):
            raise SettingsError("client", "client must be None (a LocalCluster), a "
                                "distributed.Client, a scheduler address or one of %s, got %r"
                                % (", ".join(LOCAL_SCHEDULERS), client))
    if workers is not None and client is not None:
        raise SettingsError("workers", "workers starts a LocalCluster of hirope's (client=None); "
                            "with a client or a scheduler the cluster has its own workers")
    if isinstance(client, str) and client not in LOCAL_SCHEDULERS and ":" not in client:
        raise SettingsError("client", "%r is neither a scheduler address (tcp://HOST:PORT) nor one "
                            "of %s" % (client, ", ".join(LOCAL_SCHEDULERS)))
    if out is not None and os.path.lexists(out) and not os.path.isdir(out):
        raise SettingsError("out", "%s exists and is not a directory" % (out,))
    unknown = sorted(set(options) - set(ANALYZE_OPTIONS))
    if unknown:
        raise SettingsError(unknown[0], "%s is not an option of the job (options: %s)"
                            % (unknown[0], ", ".join(ANALYZE_OPTIONS)))
    if not isinstance(tokenizer, (str, os.PathLike)):
        raise SettingsError("tokenizer", "tokenizer must be a name or a tokenizer.json path, got %r"
                            % (tokenizer,))
    if os.fspath(tokenizer) != "lexical":
        try:
            _tokenizer(os.fspath(tokenizer))
        except hr.HiRoPEError as e:
            raise SettingsError("tokenizer", str(e)) from None
    if timeout_ms is not None and isinstance(timeout_ms, float) and not math.isfinite(timeout_ms):
        # The manifest records it: JSON has no infinity (0 is no limit).
        raise SettingsError("timeout_ms", "timeout_ms must be a finite number of milliseconds "
                            ">= 0 (0: no limit), got %r" % (timeout_ms,))
    kwargs = dict(options)
    if timeout_ms is not None:
        kwargs["timeout_ms"] = timeout_ms
    try:
        hr.analyze(b"", language=language or hr.languages[0], tokenizer="lexical",
                   hierarchy=hierarchy, **kwargs)
    except (hr.HiRoPEError, TypeError, ValueError, OverflowError, RuntimeError) as e:
        message = str(e)
        named = [n for n in ("language", "hierarchy", "timeout_ms") + ANALYZE_OPTIONS
                 if message.startswith(n + " ")]
        raise SettingsError(named[0] if named else "options", message) from None


def _check_manifest(out, manifest):
    old = shards.read_manifest(out)
    if old is None:
        if any(n.startswith("shard-") for n in os.listdir(out)):
            raise ManifestMismatch("%s holds shards but no %s: not an output directory of this "
                                   "run; pick another --out" % (out, shards.MANIFEST))
        shards.write_manifest(out, manifest)
        return
    for key, what in (("format", "format"), ("version", "format version"),
                      ("settings", "settings (tokenizer, hierarchy, options, compress)"),
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


class _Unread(Exception):
    """Why a file was not read: its row's error (REASON or REASON: DETAIL) and its size if known."""

    def __init__(self, error, size=None):
        super().__init__(error)
        self.error = error
        self.size = size


def _name_error(path):
    """The row's error for a path that is not UTF-8 (undecodable bytes of a file name), else
    None."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return _Unread("file name is not UTF-8")
    return None


def error_reason(error):
    """The kind of a row's error, for counting: its text before the first ': ', numbers as N
    ('file too large', 'not UTF-8', 'cannot read (Permission denied)', 'parsing stopped after N ms
    at byte N of N')."""
    return re.sub(r"(?<![\w-])\d+(?![\w-])", "N", error.split(": ", 1)[0])


def analyze_file(path, data, settings):
    """One file's row and arrays (None when it has no tokens). `data` is its bytes or text, or
    an exception when it was not read (the row says why)."""
    hr = _native()
    row = {"path": path, "sha256": None, "bytes": None, "language": None, "units": 0,
           "error": None}
    if isinstance(data, _Unread):
        row.update(bytes=data.size, language=settings["language"] or _detect_language(path),
                   error=data.error)
        return row, None
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


def _too_large(size, max_bytes):
    if size is None:  # it grew while read, or its size says 0 (a kernel pseudo-file)
        return _Unread("file too large: over the limit of %d bytes" % max_bytes)
    return _Unread("file too large: %d bytes, the limit is %d" % (size, max_bytes), size)


def _read(path, max_bytes):
    """The bytes of a regular file, or an _Unread saying why not (_files.read_regular: the kind
    and size checked before it is read, never past max_bytes)."""
    try:
        return read_regular(path, max_bytes)
    except Unreadable as u:
        if u.reason == "kind":
            if u.detail == "a directory":  # listed because it could not be listed
                try:
                    os.scandir(path).close()
                except OSError as e:
                    return _Unread("cannot list (%s)" % (e.strerror or e,))
            return _Unread("not a regular file (%s)" % u.detail)
        if u.reason == "size":
            return _too_large(u.detail, max_bytes)
        return _Unread("cannot read (%s)" % u.detail)


def _counts(index, rows, written, tokens=None):
    reasons = {}
    for r in rows:
        if r["error"] is not None:
            reason = error_reason(r["error"])
            reasons[reason] = reasons.get(reason, 0) + 1
    return {"shard": index, "files": len(rows),
            "tokens": sum(r["tokens"] for r in rows) if tokens is None else tokens,
            "errors": sum(reasons.values()), "reasons": reasons, "written": written}


def _write(out, index, items, settings, fsync, compress):
    """items: (path, bytes | str | exception). Writes the shard, returns its counts."""
    rows, arrays = [], []
    for path, data in items:
        row, arr = analyze_file(path, data, settings)
        rows.append(row)
        arrays.append(arr)
    tokens = shards.write_shard(out, index, rows, arrays, fsync=fsync, compress=compress)
    return _counts(index, rows, 1, tokens)


def _skipped(out, index):
    return _counts(index, shards.read_rows(out, index), 0)


def paths_task(out, index, paths, settings, fsync=True, compress=False, cwd=None):
    """A partition of paths: reads, analyzes and writes shard `index` (skipped when finished).
    Relative paths are read from `cwd` (the client's), whatever the worker's own directory."""
    if shards.is_finished(out, index):
        return _skipped(out, index)
    cwd = cwd or os.getcwd()
    return _write(out, index, ((p, _name_error(p) or _read(os.path.join(cwd, p),
                                                           settings["max_bytes"]))
                               for p in paths), settings, fsync, compress)


def records_task(records, out, index, settings, fsync=True, compress=False):
    """A bag partition of {path, text} records (text: str or bytes)."""
    if shards.is_finished(out, index):
        return _skipped(out, index)
    items = []
    for r in records:
        try:
            path, text = r["path"], r["text"]
        except (KeyError, TypeError) as e:
            raise ValueError("a bag record must be a dict with 'path' and 'text', got %r"
                             % (type(r).__name__,)) from e
        if not isinstance(path, str):
            raise ValueError("a bag record's path must be a str, got %r" % (type(path).__name__,))
        items.append((path, _name_error(path) or text))
    return _write(out, index, items, settings, fsync, compress)


# ---------------------------------------------------------------------------------------------
# Running

def _is_bag(files):
    try:
        import dask.bag
    except ImportError:
        return False
    return isinstance(files, dask.bag.Bag)


class Progress:
    """Shards done out of the job's, on `stream` (stderr): a bar redrawn in place on a terminal,
    else (a log file, a pipe) a line at most every `interval` seconds and one at the end, so a log
    holds no carriage returns. interval None: a bar on a terminal, else lines every
    PROGRESS_LINE_INTERVAL_S."""

    def __init__(self, total, interval=None, stream=None):
        self.stream = sys.stderr if stream is None else stream
        self.total, self.done = total, 0
        isatty = getattr(self.stream, "isatty", None)
        self.bar = interval is None and bool(isatty and isatty())
        self.interval = PROGRESS_LINE_INTERVAL_S if interval is None else interval
        self.start = self.last = time.monotonic()

    def update(self, count=1):
        self.done += count
        now = time.monotonic()
        percent = 100 * self.done // max(self.total, 1)
        if self.bar:
            width = 30
            filled = width * self.done // max(self.total, 1)
            self.stream.write("\r[%s%s] %3d%% %d/%d shards, %.1f s" % (
                "#" * filled, " " * (width - filled), percent, self.done, self.total,
                now - self.start))
            if self.done >= self.total:
                self.stream.write("\n")
        elif self.done >= self.total or now - self.last >= self.interval:
            self.stream.write("hirope positions: %d/%d shards (%d%%), %.1f s\n" % (
                self.done, self.total, percent, now - self.start))
            self.last = now
        self.stream.flush()


def _local_progress(progress):
    """A dask.callbacks.Callback counting hirope's shard tasks on a local scheduler."""
    from dask.callbacks import Callback

    def posttask(key, result, dsk, state, worker_id):
        if isinstance(key, str) and key.startswith("hirope-shard-"):
            progress.update()

    return Callback(posttask=posttask)


def connect_scheduler(address, timeout=DEFAULT_CONNECT_TIMEOUT_S):
    """A distributed Client of the scheduler at `address`, or SchedulerUnreachable (one line)
    when none answers within `timeout` seconds."""
    import distributed
    try:
        return distributed.Client(address, timeout=timeout)
    except (OSError, TimeoutError) as e:  # distributed raises OSError("Timed out trying to ...")
        raise SchedulerUnreachable(
            "no Dask scheduler answered at %s within %g s (%s); start one there (dask scheduler) "
            "or leave the address out for a LocalCluster" % (address, timeout, e)) from None


def local_cluster(workers, **options):
    """A distributed LocalCluster of `workers` processes of one thread each, whose processes
    ignore SIGINT. A terminal's Ctrl-C reaches every process of the job; only this one should act
    on it, closing the cluster in order (its workers, then its scheduler). A nanny that stopped on
    the signal by itself would log its broken connection's traceback as the scheduler closed. An
    ignored signal stays ignored in the processes started meanwhile (it survives their exec, and
    Python does not install its handler over it), so SIGINT is ignored while they start."""
    import signal
    import threading

    import distributed
    main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN) if main_thread else None
    try:
        # The workers' own warnings off: a failed task is the job's error, reported once by it
        # (a full disk made each of them log its "Compute Failed", some 300 lines).
        options.setdefault("silence_logs", logging.ERROR)
        return distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                        **options)
    finally:
        if main_thread:
            signal.signal(signal.SIGINT, previous)


def _run(tasks, client, workers, progress, connect_timeout=DEFAULT_CONNECT_TIMEOUT_S):
    """Computes the delayed tasks on `client`: a distributed Client, a scheduler address, one of
    LOCAL_SCHEDULERS, or None for a LocalCluster of `workers` processes of one thread each.
    progress: a Progress or None."""
    if isinstance(client, str) and client in LOCAL_SCHEDULERS:
        if progress is not None:
            with _local_progress(progress):
                return list(dask.compute(*tasks, scheduler=client))
        return list(dask.compute(*tasks, scheduler=client))
    import distributed
    owned = []
    futures = None
    try:
        if client is None:
            cluster = local_cluster(workers or os.cpu_count() or 1, dashboard_address=":0")
            owned.append(cluster)
            client = distributed.Client(cluster)
            owned.append(client)
        elif isinstance(client, str):
            client = connect_scheduler(client, connect_timeout)
            owned.append(client)
        futures = client.compute(tasks)
        # waited for here, not in gather: gather interrupted by Ctrl-C leaves asyncio tasks that
        # print tracebacks at exit. The first task that fails (a shard that cannot be written)
        # stops the job: the others are cancelled, not run to the end before it is reported.
        for future in distributed.as_completed(futures):
            if future.status == "error":
                error = future.exception()
                client.cancel(futures)
                raise error
            if progress is not None:
                progress.update()
        return client.gather(futures)
    except BaseException:
        if futures is not None and not owned:  # a cluster of the caller's: stop our tasks there
            try:
                client.cancel(futures)
            except Exception:  # the interruption, not the cancel, is what the caller must see
                pass
        raise
    finally:
        for thing in reversed(owned):
            thing.close()


def positions(files, out, tokenizer="llama3", hierarchy="units", client=None,
              partition_size=DEFAULT_PARTITION_SIZE, progress=True, workers=None, language=None,
              timeout_ms=None, max_bytes=DEFAULT_MAX_BYTES, fsync=True, compress=False,
              connect_timeout=DEFAULT_CONNECT_TIMEOUT_S, **options):
    """Writes the positions of every file into shards in `out`; returns a summary dict
    (files, tokens, errors, reasons: error rows by kind, shards, written, skipped, seconds, out).

    files: a path, glob or directory (or a list of them; see collect), or a dask.bag of
    {path, text} records (one shard per bag partition). client: None (a LocalCluster of `workers`
    processes, default one per core, one thread each, closed at the end), a distributed.Client, a
    scheduler address ('tcp://host:8786'), or 'sync' / 'threads' / 'processes' for Dask's local
    schedulers. compress: deflate the .npz shards (about 4x smaller, more CPU; the arrays read the
    same). options go to hirope.analyze (gap, descend_classes, segment_size). progress: True (a
    bar on stderr when it is a terminal, else a line every PROGRESS_LINE_INTERVAL_S), a number of
    seconds between lines, or False. connect_timeout: seconds a scheduler address may take to
    answer (SchedulerUnreachable).

    Raises SettingsError (a wrong setting) before anything is planned or written,
    FileNotFoundError for a path of `files` that does not exist, ManifestMismatch for an `out`
    planned differently.
    """
    start = time.perf_counter()
    if out is None:
        raise SettingsError("out", "out must be a directory path, got None")
    if not _is_bag(files):
        items = [files] if isinstance(files, (str, os.PathLike)) else files
        if not (isinstance(items, (list, tuple))
                and all(isinstance(f, (str, os.PathLike)) for f in items)):
            raise SettingsError("files", "files must be a path, a glob, a directory, a list of "
                                "those or a dask.bag of {path, text} records, got %r" % (files,))
    check_settings(tokenizer, hierarchy, language, timeout_ms, max_bytes, partition_size, workers,
                   client, out, **options)
    settings = _settings(tokenizer, hierarchy, language, timeout_ms, max_bytes, options, compress)
    out = os.path.abspath(os.fspath(out))  # the workers' view too: a shared file system
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
    os.makedirs(out, exist_ok=True)
    lock = _claim_output(out)  # one job at a time per output directory
    try:
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
            bar = None
            if progress is not False and progress is not None:
                bar = Progress(len(tasks), None if progress is True else progress)
            try:
                results += _run(tasks, client, workers, bar, connect_timeout)
            except BaseException:  # Ctrl-C, a shard that could not be written
                if client is None:  # our LocalCluster is closed: its writers are gone
                    shards.remove_temporaries(out)
                raise
        # Every shard is finished now, so no writer is left: a *.tmp-* here is a killed writer's
        # (its task ran again elsewhere under another temporary name).
        if all(shards.is_finished(out, i, verify=False) for i in range(count)):
            shards.remove_temporaries(out)
        results.sort(key=lambda r: r["shard"])
        reasons = {}
        for r in results:
            for reason, n in r["reasons"].items():
                reasons[reason] = reasons.get(reason, 0) + n
        return {
            "out": out,
            "files": sum(r["files"] for r in results),
            "tokens": sum(r["tokens"] for r in results),
            "errors": sum(r["errors"] for r in results),
            "reasons": dict(sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0]))),
            "shards": count,
            "written": sum(r["written"] for r in results),
            "skipped": count - sum(r["written"] for r in results),
            "seconds": time.perf_counter() - start,
        }
    finally:
        os.close(lock)
