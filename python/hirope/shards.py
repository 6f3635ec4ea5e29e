"""The shard format of `hirope.corpus.positions` (docs/python.md#the-shard-format), written and read
with numpy and json only: nothing here imports the native module, so a reader needs neither hirope
nor Dask.

An output directory holds:

- ``manifest.json``: what was run (tokenizer, hierarchy, options), how the files were partitioned
  (``partition_size``, one entry per shard with its file count and a SHA-256 of its paths) and the
  format version. A rerun into the same directory must plan the same partitions.
- ``shard-00000.npz`` ... : per shard, the concatenated per-token arrays ``ids``, ``token``,
  ``unit``, ``statement``, ``starts``, ``ends`` (int32; starts/ends are UTF-8 byte offsets into
  the file) and ``offsets`` (int64, one more than the shard's files: file i's tokens are
  ``offsets[i]:offsets[i + 1]``).
- ``shard-00000.jsonl`` ... : one JSON row per file, in the shard's order: path, sha256 (of the
  file's bytes), bytes, language, tokens, units, shard, offset (= offsets[i]) and error (null, or
  why the file has no tokens).

- ``shard-00000.sha256`` ... : the SHA-256 of the shard's .npz and .jsonl (``sha256sum``'s format),
  written last.

A shard is finished when its checksums file exists and matches both files (a rerun writes a
damaged or truncated shard again); its files are written under temporary names in the same
directory and renamed into place (``os.replace``), the .npz first and the checksums last, so a
reader never sees a partial shard and a crashed writer leaves only ``*.tmp-*`` files behind
(``remove_temporaries``).

Text is UTF-8: a path that is not (a file name's undecodable bytes, which Python keeps as lone
surrogates) is written as JSON's ``\\udcXX`` escapes, which ``json.loads`` turns back into the same
string (``os.fsencode`` gives the original bytes).
"""

import hashlib
import io
import json
import os
import threading
import uuid
import zipfile

import numpy as np

FORMAT = "hirope-positions"
VERSION = 1
ARRAYS = ("ids", "token", "unit", "statement", "starts", "ends")
MANIFEST = "manifest.json"
ROW_KEYS = ("path", "sha256", "bytes", "language", "tokens", "units", "shard", "offset", "error")


def shard_name(index):
    return "shard-%05d" % index


def shard_paths(out, index):
    """The shard's final (.npz, .jsonl) paths."""
    base = os.path.join(out, shard_name(index))
    return base + ".npz", base + ".jsonl"


def checksum_path(out, index):
    """The shard's checksums: the SHA-256 of its .npz and of its .jsonl, written last."""
    return os.path.join(out, shard_name(index) + ".sha256")


def file_sha256(path):
    """The SHA-256 of a file's bytes (hex), read a MiB at a time."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _checksums_text(out, index):
    return "".join("%s  %s\n" % (file_sha256(p), os.path.basename(p))
                   for p in shard_paths(out, index))


def is_finished(out, index, verify=True):
    """Whether shard `index` is written whole: its checksums file exists and (verify) still
    matches both files, so a shard truncated or damaged since (a full disk, a copy cut short) is
    written again by a rerun instead of trusted."""
    try:
        with open(checksum_path(out, index), encoding="ascii") as f:
            recorded = f.read()
        return not verify or recorded == _checksums_text(out, index)
    except (OSError, UnicodeDecodeError):
        return False


def paths_digest(paths):
    """SHA-256 over the paths, each UTF-8 encoded (surrogate escapes kept) and NUL-terminated."""
    h = hashlib.sha256()
    for p in paths:
        h.update(os.fsencode(p) + b"\0")
    return h.hexdigest()


def _temporary(path):
    return "%s.tmp-%d-%s" % (path, os.getpid(), uuid.uuid4().hex[:8])


# A test hook (tests/python/test_dask.py): with HOLD_WRITER set to the path of a FIFO, the first
# writer of a shard file (the one that creates FIFO + '.claimed') reports "PID TEMPORARY" into the
# FIFO once its temporary file is open, and then waits: the test kills or interrupts it at that
# known point instead of guessing one by timing. A writer nobody stops fails after HOLD_LIMIT_S.
HOLD_WRITER = "HIROPE_TEST_HOLD_WRITER"
HOLD_LIMIT_S = 300


def _hold_writer(path, tmp):
    fifo = os.environ.get(HOLD_WRITER)
    if not fifo or not os.path.basename(path).startswith("shard-"):
        return
    try:
        os.close(os.open(fifo + ".claimed", os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:
        return  # another writer was held: this one (a retry, or any other shard) goes on
    with open(fifo, "w") as f:
        f.write("%d %s\n" % (os.getpid(), tmp))
    if not threading.Event().wait(HOLD_LIMIT_S):
        raise RuntimeError("%s: this writer was held for a test that never stopped it"
                           % HOLD_WRITER)


def _replace(write, path, fsync):
    """Writes through write(file) into a temporary name beside path, then renames it to path."""
    tmp = _temporary(path)
    try:
        with open(tmp, "wb") as f:
            _hold_writer(path, tmp)
            write(f)
            if fsync:
                f.flush()
                os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        # A write through a file object (numpy's, a full disk) names no file: the shard's path.
        if isinstance(e, OSError) and e.filename is None and e.errno is not None:
            raise OSError(e.errno, e.strerror or str(e), path) from e
        raise


def _fsync_dir(out):
    try:
        fd = os.open(out, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _savez(f, data, compress=False):
    """np.savez (or np.savez_compressed) without its clock: members with a fixed date, so the same
    arrays always give the same bytes (np.load reads it as any .npz). Deflate at level 1: zlib's
    default, 6, took twice the CPU time for 10% less."""
    method = zipfile.ZIP_DEFLATED if compress else zipfile.ZIP_STORED
    with zipfile.ZipFile(f, "w", method, allowZip64=True) as z:
        for name, array in data.items():
            info = zipfile.ZipInfo(name + ".npy", date_time=(1980, 1, 1, 0, 0, 0))
            buf = io.BytesIO()
            np.lib.format.write_array(buf, np.ascontiguousarray(array), allow_pickle=False)
            z.writestr(info, buf.getbuffer(), compress_type=method, compresslevel=1)


def _json_line(value, **kwargs):
    """JSON text that encodes as UTF-8: non-ASCII as itself, unless the value holds lone
    surrogates (a non-UTF-8 file name), which only JSON's escapes can carry."""
    text = json.dumps(value, ensure_ascii=False, **kwargs)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(value, ensure_ascii=True, **kwargs)
    return text


def write_shard(out, index, rows, arrays, fsync=True, compress=False):
    """Writes shard `index`: rows (dicts with ROW_KEYS but shard and offset, in order) and per-row
    dicts of ARRAYS (None for a row without tokens). The same input gives the same bytes, so a
    retried or duplicated task rewrites the same shard. compress: deflate the .npz members (about
    4x smaller, np.savez_compressed's format)."""
    parts = {name: [] for name in ARRAYS}
    offsets = np.zeros(len(rows) + 1, dtype=np.int64)
    total = 0
    lines = []
    for i, (row, arr) in enumerate(zip(rows, arrays)):
        n = 0 if arr is None else int(len(arr["ids"]))
        if arr is not None:
            for name in ARRAYS:
                a = np.asarray(arr[name], dtype=np.int32)
                if len(a) != n:
                    raise ValueError("%s: %s has %d entries, ids %d" % (row["path"], name, len(a), n))
                parts[name].append(a)
        full = dict(row, tokens=n, shard=index, offset=total)
        lines.append(_json_line({k: full.get(k) for k in ROW_KEYS}, separators=(",", ":"),
                                allow_nan=False))
        total += n
        offsets[i + 1] = total
    data = {name: (np.concatenate(parts[name]) if parts[name] else np.zeros(0, np.int32))
            for name in ARRAYS}
    data["offsets"] = offsets
    npz, jsonl = shard_paths(out, index)
    _replace(lambda f: _savez(f, data, compress), npz, fsync)
    text = "".join(line + "\n" for line in lines).encode("utf-8")
    _replace(lambda f: f.write(text), jsonl, fsync)
    sums = _checksums_text(out, index).encode("ascii")  # last: the shard is finished
    _replace(lambda f: f.write(sums), checksum_path(out, index), fsync)
    if fsync:
        _fsync_dir(out)
    return total


def read_rows(out, index):
    with open(shard_paths(out, index)[1], encoding="utf-8", errors="surrogateescape") as f:
        return [json.loads(line) for line in f]


def read_arrays(out, index):
    """The shard's arrays, each read from the .npz once (``z[name]`` on np.load's result reads the
    member again on every access: the slow way to slice per row)."""
    with np.load(shard_paths(out, index)[0]) as z:
        return dict(z)


def read_manifest(out):
    path = os.path.join(out, MANIFEST)
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def write_manifest(out, manifest):
    # Finite JSON only (allow_nan=False): another reader (JSON.parse, jq) refuses NaN and Infinity.
    text = (_json_line(manifest, indent=1, allow_nan=False) + "\n").encode("utf-8")
    _replace(lambda f: f.write(text), os.path.join(out, MANIFEST), True)


def iter_files(out):
    """Every file of a finished output directory, in order: (row, arrays of that file)."""
    manifest = read_manifest(out)
    if manifest is None:
        raise FileNotFoundError("%s: no %s" % (out, MANIFEST))
    for entry in manifest["shards"]:
        index = entry["shard"]
        rows = read_rows(out, index)
        arrays = read_arrays(out, index)
        off = arrays["offsets"]
        for i, row in enumerate(rows):
            yield row, {name: arrays[name][off[i]:off[i + 1]] for name in ARRAYS}


def remove_temporaries(out):
    """Removes the *.tmp-* files a killed writer left. Call it when no writer can be running:
    before any task runs, and once every shard is finished (a writer killed mid-shard leaves its
    temporary behind, and the task's retry writes the shard under another name)."""
    removed = 0
    for name in os.listdir(out):
        if ".tmp-" in name and name.startswith(("shard-", MANIFEST)):
            try:
                os.unlink(os.path.join(out, name))
                removed += 1
            except OSError:
                pass
    return removed
