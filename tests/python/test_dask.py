"""hirope.corpus.positions on a LocalCluster of 2 worker processes over 2,400 real files (Python's
standard library and Debian's Python packages, smallest first): the same shards as a serial run,
a worker killed mid-run, error rows, resuming, the manifest check, a bag input, and the shard
format read with numpy and json alone. Run: PYTHONPATH=build/python /usr/bin/python3 -m pytest
tests/python/test_dask.py (7 s on a quiet 2-core VM, under a minute loaded)."""

import glob
import hashlib
import json
import os
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if os.path.isdir(os.path.join(ROOT, "build", "python")) and "hirope" not in sys.modules:
    sys.path.insert(0, os.path.join(ROOT, "build", "python"))

import hirope  # noqa: E402
import hirope.corpus as hd  # noqa: E402
from hirope import shards  # noqa: E402

distributed = pytest.importorskip("distributed")

FILES = 2400
PARTITION = 50
TOKENIZER = "llama3"


def corpus(count=FILES):
    """The `count` smallest non-empty .py files of Python's library and Debian's packages
    (ties by path): real code, every one of them analyzed (none is left out)."""
    paths = set()
    for root in ("/usr/lib/python3.11", "/usr/lib/python3/dist-packages"):
        paths.update(glob.glob(os.path.join(root, "**", "*.py"), recursive=True))
    sized = sorted((os.path.getsize(p), p) for p in paths
                   if os.path.isfile(p) and os.path.getsize(p) >= 200)
    assert len(sized) >= count, "this machine has only %d Python files" % len(sized)
    return sorted(p for _, p in sized[:count])


def digests(out):
    """{file name: sha256} of a finished output directory's shards and manifest."""
    result = {}
    for name in sorted(os.listdir(out)):
        with open(os.path.join(out, name), "rb") as f:
            result[name] = hashlib.sha256(f.read()).hexdigest()
    return result


def all_rows(out):
    return [row for row, _ in shards.iter_files(out)]


@pytest.fixture(scope="module")
def files():
    return corpus()


@pytest.fixture(scope="module")
def serial(files, tmp_path_factory):
    out = str(tmp_path_factory.mktemp("serial"))
    summary = hd.positions(files, out, tokenizer=TOKENIZER, client="sync",
                           partition_size=PARTITION, progress=False)
    return out, summary


def test_serial_run_covers_every_file(files, serial):
    out, summary = serial
    rows = all_rows(out)
    assert [r["path"] for r in rows] == files  # sorted, none skipped, none doubled
    assert summary["files"] == len(files) and summary["written"] == summary["shards"] == 48
    errors = [(r["path"], r["error"]) for r in rows if r["error"]]
    # real files parse; an error here is a finding to look at, not noise to allow
    assert errors == []
    assert summary["tokens"] == sum(r["tokens"] for r in rows) > 100 * len(files)


def hold_a_writer(tmp_path, monkeypatch):
    """Sets shards' test hook: the first process to write a shard stops with its temporary file
    open and says so through a FIFO. Returns a function that waits for that moment (it blocks on
    the FIFO, no polling) and gives (pid, temporary path)."""
    fifo = str(tmp_path / "hold-writer")
    os.mkfifo(fifo)
    monkeypatch.setenv(shards.HOLD_WRITER, fifo)

    def wait_for_the_held_writer():
        with open(fifo) as f:
            pid, tmp = f.readline().split(" ", 1)
        return int(pid), tmp.rstrip("\n")

    return wait_for_the_held_writer


def test_cluster_with_a_killed_worker_equals_serial(files, serial, tmp_path, monkeypatch):
    """Two worker processes; the first to write a shard is SIGKILLed with its temporary file open
    (the test hook holds it there). The nanny restarts it, its task runs again, and the output is
    byte for byte the serial one, with no temporary left behind."""
    out = str(tmp_path / "cluster")
    wait_for_the_held_writer = hold_a_writer(tmp_path, monkeypatch)  # before the workers start
    killed = {}

    def kill_the_held_writer():
        pid, tmp = wait_for_the_held_writer()
        killed.update(pid=pid, tmp=tmp, tmp_existed=os.path.exists(tmp),
                      done_before=sum(shards.is_finished(out, i) for i in range(48)))
        os.kill(pid, signal.SIGKILL)

    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=":0") as cluster, \
            distributed.Client(cluster) as client:
        pids = set(client.run(os.getpid).values())
        assert len(pids) == 2
        killer = threading.Thread(target=kill_the_held_writer, daemon=True)
        killer.start()
        summary = hd.positions(files, out, tokenizer=TOKENIZER, client=client,
                               partition_size=PARTITION, progress=False)
        killer.join(timeout=60)
        assert killed["pid"] in pids, killed  # a worker died mid-shard,
        assert killed["tmp_existed"] and killed["done_before"] < 48, killed
        # the nanny brought it back
        client.wait_for_workers(2, timeout=60)
        assert killed["pid"] not in set(client.run(os.getpid).values())
    # results the dead worker held are recomputed: those tasks find their shard finished
    assert summary["files"] == len(files) and summary["shards"] == 48
    assert summary["written"] + summary["skipped"] == 48 and summary["written"] >= 40
    rows = all_rows(out)
    assert [r["path"] for r in rows] == files
    assert not os.path.exists(killed["tmp"])
    assert not [n for n in os.listdir(out) if ".tmp-" in n]
    assert digests(out) == digests(serial[0])


@pytest.mark.parametrize("where", ["sync", "cluster"])
def test_ctrl_c_stops_the_job_with_one_line(files, tmp_path, monkeypatch, where):
    """Ctrl-C (SIGINT to the process group) while a shard is being written (held there by the
    test hook), on the serial scheduler or in a LocalCluster's worker: exit 130, a line on stderr
    and no traceback, no temporary left, the finished shards kept; the same command then resumes
    the job."""
    out = str(tmp_path / "interrupted")
    wait_for_the_held_writer = hold_a_writer(tmp_path, monkeypatch)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    cmd = [sys.executable, "-m", "hirope", "positions", *files[:40], "--out", out,
           "--tokenizer", TOKENIZER, "--partition-size", "10", "--no-progress",
           *(["--scheduler", "sync"] if where == "sync" else ["--workers", "1"])]
    # SIGINT at its default in the job, as a terminal's foreground command has it: a suite started
    # in the background (`npm test &` from a script) ignores SIGINT, and its children inherit that.
    job = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           start_new_session=True,
                           preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        pid, tmp = wait_for_the_held_writer()
        assert (pid == job.pid) == (where == "sync") and os.path.exists(tmp)
        if where == "sync":
            # A second job into the same directory while this one writes: refused in one line.
            second = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=60)
            assert second.returncode == 1, second.stderr
            assert second.stderr.strip() == (
                "hirope positions: %s is being written by another job (it holds %s); wait for "
                "it to end or pick another output directory" % (out, os.path.join(out, ".lock")))
        os.killpg(job.pid, signal.SIGINT)  # as a terminal's Ctrl-C: every process of the job
        stdout, stderr = job.communicate(timeout=60)
    finally:
        if job.poll() is None:
            job.kill()
    assert job.returncode == 130, stderr
    assert "Traceback" not in stderr and stdout == "", stderr
    lines = stderr.strip().splitlines()
    if where == "sync":
        assert len(lines) == 1, stderr
    # (a held worker ignores the signal, so the nanny may log that it killed it)
    assert lines[-1].startswith("hirope positions: interrupted"), stderr
    assert not [n for n in os.listdir(out) if ".tmp-" in n]
    monkeypatch.delenv(shards.HOLD_WRITER)
    env.pop(shards.HOLD_WRITER)
    again = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=180)
    assert again.returncode == 0, again.stderr
    assert "40 files" in again.stdout and "4 shards written" in again.stdout, again.stdout


def test_rerun_skips_finished_shards(serial, files, tmp_path):
    out = str(tmp_path / "rerun")
    subset = files[:300]
    first = hd.positions(subset, out, tokenizer=TOKENIZER, client="sync", partition_size=PARTITION,
                         progress=False)
    assert (first["written"], first["skipped"]) == (6, 0)
    before = {n: os.stat(os.path.join(out, n)).st_mtime_ns for n in os.listdir(out)}
    again = hd.positions(subset, out, tokenizer=TOKENIZER, client="sync", partition_size=PARTITION,
                         progress=False)
    assert (again["written"], again["skipped"]) == (0, 6)
    assert {n: os.stat(os.path.join(out, n)).st_mtime_ns for n in os.listdir(out)} == before
    assert again["tokens"] == first["tokens"]
    # one shard lost (and a writer's leftover): exactly that one is written again
    os.unlink(os.path.join(out, "shard-00003.jsonl"))
    open(os.path.join(out, "shard-00003.jsonl.tmp-1-dead"), "w").close()
    third = hd.positions(subset, out, tokenizer=TOKENIZER, client="sync", partition_size=PARTITION,
                         progress=False)
    assert (third["written"], third["skipped"]) == (1, 5)
    assert sorted(os.listdir(out)) == sorted(before)
    for name in os.listdir(out):
        if not name.startswith("shard-00003") and name != "manifest.json":
            assert os.stat(os.path.join(out, name)).st_mtime_ns == before[name], name
    # a shard cut short or damaged since (its checksums no longer match) is written again too:
    # it used to be trusted because both of its files existed
    with open(os.path.join(out, "shard-00001.npz"), "r+b") as f:
        f.truncate(100)
    with open(os.path.join(out, "shard-00004.jsonl"), "r+b") as f:
        f.seek(3)
        f.write(b"#")
    fourth = hd.positions(subset, out, tokenizer=TOKENIZER, client="sync",
                          partition_size=PARTITION, progress=False)
    assert (fourth["written"], fourth["skipped"]) == (2, 4)
    assert fourth["tokens"] == first["tokens"]
    # the shards equal the full run's first six
    full = digests(serial[0])
    now = digests(out)
    for i in range(6):
        for ext in (".npz", ".jsonl"):
            name = shards.shard_name(i) + ext
            assert now[name] == full[name], name


def test_a_different_job_is_refused(files, tmp_path):
    out = str(tmp_path / "refuse")
    hd.positions(files[:20], out, tokenizer=TOKENIZER, client="sync", partition_size=10,
                 progress=False)
    with pytest.raises(hd.ManifestMismatch, match="file list"):
        hd.positions(files[:21], out, tokenizer=TOKENIZER, client="sync", partition_size=10,
                     progress=False)
    with pytest.raises(hd.ManifestMismatch, match="partitioning"):
        hd.positions(files[:20], out, tokenizer=TOKENIZER, client="sync", partition_size=5,
                     progress=False)
    with pytest.raises(hd.ManifestMismatch, match="settings"):
        hd.positions(files[:20], out, tokenizer="cl100k", client="sync", partition_size=10,
                     progress=False)
    with pytest.raises(hd.ManifestMismatch, match="settings"):
        hd.positions(files[:20], out, tokenizer=TOKENIZER, hierarchy="segments", client="sync",
                     partition_size=10, progress=False)
    # the shards' bytes differ with compress: a resume cannot mix both
    with pytest.raises(hd.ManifestMismatch, match="compress"):
        hd.positions(files[:20], out, tokenizer=TOKENIZER, client="sync", partition_size=10,
                     progress=False, compress=True)
    # a job written while special-token markers were matched (its manifest has no
    # special_tokens setting) is not resumed into a mix of both rules
    manifest = shards.read_manifest(out)
    del manifest["settings"]["special_tokens"]
    shards.write_manifest(out, manifest)
    with pytest.raises(hd.ManifestMismatch, match="special_tokens"):
        hd.positions(files[:20], out, tokenizer=TOKENIZER, client="sync", partition_size=10,
                     progress=False)


def test_bad_files_become_error_rows(files, tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "a_good.py").write_text("def f(x):\n    return x + 1\n")
    (src / "b_latin1.py").write_bytes(b"# caf\xe9\nx = 1\n")  # not UTF-8
    (src / "c_slow.js").write_text('"' * 60000)  # tree-sitter's error recovery: past 1 ms
    (src / "d_notes.txt").write_text("no language")
    (src / "e_empty.py").write_text("")
    out = str(tmp_path / "out")
    names = sorted(str(p) for p in src.iterdir())
    summary = hd.positions(names, out, tokenizer=TOKENIZER, client="sync", partition_size=2,
                           progress=False, timeout_ms=1)
    rows = {os.path.basename(r["path"]): r for r in all_rows(out)}
    assert sorted(rows) == ["a_good.py", "b_latin1.py", "c_slow.js", "d_notes.txt", "e_empty.py"]
    assert rows["a_good.py"]["error"] is None and rows["a_good.py"]["tokens"] > 5
    assert rows["a_good.py"]["language"] == "python"
    assert rows["b_latin1.py"]["error"].startswith("not UTF-8")
    assert rows["b_latin1.py"]["sha256"] == hashlib.sha256(b"# caf\xe9\nx = 1\n").hexdigest()
    assert "timeout" in rows["c_slow.js"]["error"], rows["c_slow.js"]
    assert rows["d_notes.txt"]["error"] == "no language detected from the file name"
    assert rows["e_empty.py"]["error"] is None and rows["e_empty.py"]["tokens"] == 0
    for r in rows.values():
        if r["error"]:
            assert r["tokens"] == 0
    assert summary["errors"] == 3 and summary["files"] == 5
    # a directory takes only the files whose language is detected
    out2 = str(tmp_path / "dir")
    s2 = hd.positions(str(src), out2, tokenizer=TOKENIZER, client="sync", progress=False,
                      timeout_ms=1)
    assert [os.path.basename(r["path"]) for r in all_rows(out2)] == [
        "a_good.py", "b_latin1.py", "c_slow.js", "e_empty.py"]
    assert s2["errors"] == 2


def test_a_bag_of_records_equals_the_paths(files, serial, tmp_path):
    import dask.bag as db
    subset = files[:120]
    records = []
    for p in subset:
        with open(p, "rb") as f:
            records.append({"path": p, "text": f.read().decode("utf-8")})
    bag = db.from_sequence(records, partition_size=PARTITION)
    out = str(tmp_path / "bag")
    summary = hd.positions(bag, out, tokenizer=TOKENIZER, client="sync", progress=False)
    assert summary["shards"] == 3 and summary["files"] == 120
    full = digests(serial[0])
    now = digests(out)
    for i in range(3):
        for ext in (".npz", ".jsonl"):
            name = shards.shard_name(i) + ext
            if i < 2:
                assert now[name] == full[name], name
    again = hd.positions(db.from_sequence(records, partition_size=PARTITION), out,
                         tokenizer=TOKENIZER, client="sync", progress=False)
    assert again["written"] == 0


def test_compressed_shards_hold_the_same_arrays(files, serial, tmp_path):
    out = str(tmp_path / "deflated")
    hd.positions(files[:100], out, tokenizer=TOKENIZER, client="sync", partition_size=PARTITION,
                 progress=False, compress=True)
    for i in range(2):
        full, small = shards.read_arrays(serial[0], i), shards.read_arrays(out, i)
        for name in shards.ARRAYS + ("offsets",):
            np.testing.assert_array_equal(full[name], small[name], name)
        assert shards.read_rows(out, i) == shards.read_rows(serial[0], i)
        npz = shards.shard_paths(out, i)[0]
        assert os.path.getsize(npz) * 3 < os.path.getsize(shards.shard_paths(serial[0], i)[0])


READER = r"""
import glob, json, numpy as np
for npz in sorted(glob.glob(OUT + '/shard-*.npz')):
    z = dict(np.load(npz))
    rows = [json.loads(line) for line in open(npz[:-4] + '.jsonl', encoding='utf-8')]
    for i, row in enumerate(rows):
        ids = z['ids'][z['offsets'][i]:z['offsets'][i + 1]]
        assert len(ids) == row['tokens'] and z['offsets'][i] == row['offset']
        print(row['path'], len(ids), z['unit'][z['offsets'][i]:z['offsets'][i + 1]].max(initial=-1))
"""


def test_the_format_reads_without_hirope(serial, files):
    out = serial[0]
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    run = subprocess.run([sys.executable, "-I", "-c", "OUT = %r\n" % out + READER], env=env,
                         capture_output=True, text=True, check=True, timeout=120)
    lines = run.stdout.splitlines()
    assert [line.rsplit(" ", 2)[0] for line in lines] == files
    # against hirope's own result for one file
    path = files[1234]
    row, arrays = [(r, a) for r, a in shards.iter_files(out) if r["path"] == path][0]
    with open(path, encoding="utf-8") as f:
        text = f.read()
    result = hirope.analyze(text, filename=path, tokenizer=hirope.load_tokenizer(TOKENIZER))
    for name in shards.ARRAYS:
        assert arrays[name].dtype == np.int32
        np.testing.assert_array_equal(arrays[name], np.asarray(getattr(result, name)), name)
    manifest = json.load(open(os.path.join(out, "manifest.json")))
    assert manifest["format"] == "hirope-positions" and manifest["files"] == len(files)
    assert sum(s["files"] for s in manifest["shards"]) == len(files)


def test_command_line(files, tmp_path):
    out = str(tmp_path / "cli")
    listing = tmp_path / "src"
    listing.mkdir()
    for i, p in enumerate(files[:30]):
        os.symlink(p, listing / ("%02d_%s" % (i, os.path.basename(p))))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    cmd = [sys.executable, "-m", "hirope", "positions", str(listing), "--out", out,
           "--tokenizer", TOKENIZER, "--workers", "2", "--partition-size", "10"]
    run = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=180)
    assert run.returncode == 0, run.stderr
    assert "30 files" in run.stdout and "3 shards written" in run.stdout, run.stdout
    local = [a for a in cmd if a not in ("--workers", "2")]
    again = subprocess.run(local + ["--scheduler", "sync"], env=env, capture_output=True, text=True,
                           timeout=180)
    assert again.returncode == 0 and "3 skipped" in again.stdout, again.stdout + again.stderr
    bad = subprocess.run(local[:-1] + ["7", "--scheduler", "sync"], env=env, capture_output=True,
                         text=True, timeout=180)
    assert bad.returncode == 1 and "partitioning" in bad.stderr, bad.stderr
