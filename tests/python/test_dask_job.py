"""hirope.corpus.positions and `python -m hirope` on small inputs with Dask's serial scheduler: wrong
settings refused before anything is written, files that are not plain UTF-8-named regular files
as error rows (from a directory, a glob or named), one-line messages with documented exit codes,
progress lines in a log, the documented shard reader, and `python -m hirope eval` outside the
repository. Run: PYTHONPATH=build/python /usr/bin/python3 -m pytest tests/python/test_dask_job.py"""

import io
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if os.path.isdir(os.path.join(ROOT, "build", "python")) and "hirope" not in sys.modules:
    sys.path.insert(0, os.path.join(ROOT, "build", "python"))

import hirope  # noqa: E402

hd = pytest.importorskip("hirope.corpus")
from hirope import shards  # noqa: E402

TOKENIZER = "cl100k"
ENV = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))


def cli(*args, cwd=None, timeout=120):
    return subprocess.run([sys.executable, "-m", "hirope", *args], env=ENV, cwd=cwd,
                          capture_output=True, text=True, timeout=timeout)


def one_line(stderr):
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in stderr, stderr
    return lines[0]


@pytest.fixture
def code(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    for i in range(3):
        (src / ("m%d.py" % i)).write_text("def f%d(x):\n    return x + %d\n" % (i, i))
    return src


# ---------------------------------------------------------------------------------------------
# Settings

BAD_SETTINGS = [  # (arguments, the option the message names)
    (["--tokenizer", "llama33"], "--tokenizer"),
    (["--tokenizer", "missing/tok.json"], "--tokenizer"),
    (["--language", "cobol"], "--language"),
    (["--timeout-ms", "-5"], "--timeout-ms"),
    (["--timeout-ms", "nan"], "--timeout-ms"),
    (["--timeout-ms", "inf"], "--timeout-ms"),  # the manifest would hold Infinity
    (["--hierarchy", "segments", "--segment-size", "-1"], "--segment-size"),
    (["--hierarchy", "segments", "--segment-size", "0"], "--segment-size"),
    (["--workers", "-1"], "--workers"),
    (["--workers", "0"], "--workers"),
    (["--partition-size", "0"], "--partition-size"),
    (["--scheduler", "thread"], "--scheduler"),
    (["--scheduler", "sync", "--workers", "2"], "--workers"),
]


@pytest.mark.parametrize("args,option", BAD_SETTINGS, ids=[" ".join(a) for a, _ in BAD_SETTINGS])
def test_a_wrong_setting_is_refused_before_anything_is_written(code, tmp_path, args, option):
    out = tmp_path / "out"
    run = cli("positions", str(code), "--out", str(out), "--no-progress", *args, timeout=60)
    assert run.returncode == 2, run.stdout + run.stderr
    assert one_line(run.stderr).startswith("hirope positions: %s: " % option), run.stderr
    assert not out.exists()  # nothing planned, nothing locked in


def test_settings_errors_name_the_keyword(code, tmp_path):
    out = str(tmp_path / "out")
    for kwargs, option in [(dict(tokenizer="llama33"), "tokenizer"),
                           (dict(timeout_ms=-5), "timeout_ms"),
                           (dict(hierarchy="segments", segment_size=-1), "segment_size"),
                           (dict(hierarchy="lines"), "hierarchy"),
                           (dict(gap="middle"), "gap"),
                           (dict(segmentsize=8), "segmentsize"),
                           (dict(workers=0), "workers"),
                           (dict(partition_size=1.5), "partition_size"),
                           (dict(max_bytes=-1), "max_bytes"),
                           # over the core's own limit: a 300 MB file was read, then refused
                           (dict(max_bytes=hirope.limits["analysis_max_bytes"] + 1), "max_bytes"),
                           # wrong types were TypeError or AttributeError, after a manifest
                           (dict(client=42), "client"), (dict(files=42), "files"),
                           (dict(files=[str(code), 7]), "files"), (dict(out=42), "out")]:
        arguments = {"files": str(code), "out": out, "client": "sync", "progress": False,
                     **kwargs}
        with pytest.raises(hd.SettingsError) as e:
            hd.positions(**arguments)
        assert e.value.option == option, (kwargs, str(e.value))
        assert not os.path.exists(out)
    # a good job then runs
    summary = hd.positions(str(code), out, tokenizer=TOKENIZER, client="sync", progress=False)
    assert (summary["files"], summary["errors"]) == (3, 0)


# ---------------------------------------------------------------------------------------------
# Files

ODD = {  # name -> the row's error
    "bad\udcffname.py": "file name is not UTF-8",
    "fifo.py": "not a regular file (a FIFO)",
    "loop.py": "cannot read (Too many levels of symbolic links)",
    "dangling.py": "cannot read (No such file or directory)",
    "zero.py": "not a regular file (a character device)",
}


@pytest.fixture
def odd(code):
    (code / "bad\udcffname.py").write_text("x = 1\n")
    os.mkfifo(code / "fifo.py")
    os.symlink("loop.py", code / "loop.py")
    os.symlink("nowhere.py", code / "dangling.py")
    os.symlink("/dev/zero", code / "zero.py")
    return code


@pytest.mark.parametrize("how", ["directory", "glob", "named"])
def test_odd_files_are_error_rows(odd, tmp_path, how):
    """A FIFO is not opened (the job would wait forever), nor a device read; links that lead
    nowhere and names that are not UTF-8 are rows too, the same whichever way they are listed."""
    names = sorted(os.listdir(odd))
    corpus = {"directory": [str(odd)], "glob": [str(odd / "*.py")],
              "named": [str(odd / n) for n in names]}[how]
    out = tmp_path / "out"
    run = cli("positions", *corpus, "--out", str(out), "--tokenizer", TOKENIZER,
              "--scheduler", "sync", "--partition-size", "3", "--no-progress", "--json",
              timeout=60)
    assert run.returncode == 0, run.stderr
    summary = json.loads(run.stdout)
    rows = {os.path.basename(row["path"]): row for row, _ in shards.iter_files(str(out))}
    assert sorted(rows) == names
    assert {n: r["error"] for n, r in rows.items() if r["error"]} == ODD
    for name in ODD:
        assert rows[name]["tokens"] == 0 and rows[name]["language"] == "python", rows[name]
    assert summary["files"] == 8 and summary["errors"] == 5
    assert summary["reasons"] == {error: 1 for error in ODD.values()}
    # the shards are UTF-8 text; the name comes back as the same bytes
    for name in os.listdir(out):
        if name.endswith(".jsonl"):
            (out / name).read_bytes().decode("utf-8")
    bad = [r["path"] for r in rows.values() if r["error"] == ODD["bad\udcffname.py"]][0]
    assert os.fsencode(bad).endswith(b"bad\xffname.py")


def test_a_double_star_glob_follows_no_link_to_a_directory(code):
    """`**` lists each file once and ends, as a directory argument does: glob.glob's `**` followed
    links to directories, so one loop listed every file once per turn and two never ended (the
    CLI runs a subprocess with a timeout; here SIGALRM turns such a hang into a failure)."""
    (code / "sub").mkdir()
    (code / "sub" / "b.py").write_text("y = 2\n")
    (code / ".hidden").mkdir()
    (code / ".hidden" / "c.py").write_text("z = 3\n")
    os.symlink(".", code / "again")  # a loop
    os.symlink("..", code / "sub" / "up")  # a second one through the first
    os.symlink("sub/b.py", code / "link.py")  # a link to a file is listed, as glob lists it
    previous = signal.signal(signal.SIGALRM, lambda *_: pytest.fail("the glob did not end"))
    signal.alarm(60)
    try:
        found = hd.collect(str(code / "**" / "*.py"))
        relative = hd.collect(os.path.join(os.path.relpath(code), "**", "*.py"))
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    names = ["link.py", "m0.py", "m1.py", "m2.py", "sub/b.py"]  # not .hidden/, as glob
    assert [os.path.relpath(p, code) for p in found] == names
    assert relative == [os.path.relpath(p) for p in found]


def as_an_ordinary_user(site, *args):
    """`python -m hirope ARGS` as a user whom file permissions bind (root may list and read
    everything): nobody when the tests run as root, with the package from `site` (a copy that
    user can read, wherever the checkout is)."""
    user = dict(user=65534, group=65534, extra_groups=[]) if os.geteuid() == 0 else {}
    try:
        return subprocess.run([sys.executable, "-m", "hirope", *args],
                              env=dict(ENV, PYTHONPATH=site), capture_output=True, text=True,
                              timeout=120, **user)
    except PermissionError as e:  # a container whose root may not change user (setgroups denied)
        pytest.skip("cannot run a command as another user here: %s" % e)


def test_a_write_failure_on_a_local_cluster_stops_the_job_with_one_line(tmp_path):
    """A shard that cannot be written (here: over a file-size limit every process of the job
    inherits, as a full disk fails a write) stops a LocalCluster job with one line naming the path
    and the reason, as --scheduler sync does (the first failed task cancels the others): it used
    to print about 300 lines of Dask warnings, run every remaining task and show 100 % before
    failing."""
    import resource

    src = tmp_path / "src"
    src.mkdir()
    files = 16
    for i in range(files):  # each file's shard is tens of KB, its manifest entry 100 bytes
        (src / ("m%02d.py" % i)).write_text("def f%d(x):\n    return x + %d\n" % (i, i) * 300)
    out = tmp_path / "out"

    def limit_file_size():  # Python ignores SIGXFSZ: a write past the limit is an OSError
        resource.setrlimit(resource.RLIMIT_FSIZE, (16384, 16384))

    run = subprocess.run([sys.executable, "-m", "hirope", "positions", str(src), "--out",
                          str(out), "--tokenizer", TOKENIZER, "--partition-size", "1",
                          "--workers", "2", "--no-progress"], env=ENV, capture_output=True,
                         text=True, timeout=180, preexec_fn=limit_file_size)
    assert run.returncode == 1, run.stderr
    line = one_line(run.stderr)
    assert re.match(r"^hirope positions: File too large: %s/shard-\d+\.npz$" % re.escape(str(out)), line), line
    # No shard is taken as finished, and no temporary file is left behind.
    assert sum(shards.is_finished(str(out), i) for i in range(files)) == 0
    assert sorted(os.listdir(out)) == [".lock", "manifest.json"], sorted(os.listdir(out))


def test_a_directory_that_cannot_be_listed_is_an_error_row():
    """A directory the job may not list is a row of its own ("cannot list (Permission denied)"),
    from a directory or a '**' glob, and a file named inside one says "Permission denied": the
    directory used to be skipped without a word (exit 0, its files missing) and the file called
    missing."""
    base = tempfile.mkdtemp(dir="/tmp")  # not tmp_path: pytest's folder is root's alone
    locked = os.path.join(base, "src", "locked")
    try:
        os.chmod(base, 0o755)
        os.makedirs(locked)
        with open(os.path.join(base, "src", "a.py"), "w") as f:
            f.write("x = 1\n")
        with open(os.path.join(locked, "b.py"), "w") as f:
            f.write("y = 2\n")
        os.chmod(locked, 0)
        site = os.path.join(base, "site")
        shutil.copytree(os.path.dirname(hirope.__file__), os.path.join(site, "hirope"))
        for n, corpus in enumerate([[os.path.join(base, "src")],
                                    [os.path.join(base, "src", "**", "*.py")],
                                    [os.path.join(locked, "b.py")]]):
            out = os.path.join(base, "out%d" % n)
            os.mkdir(out)
            os.chmod(out, 0o777)
            run = as_an_ordinary_user(site, "positions", *corpus, "--out", out, "--tokenizer",
                                      TOKENIZER, "--scheduler", "sync", "--no-progress", "--json")
            assert run.returncode == 0, run.stderr
            rows = {os.path.relpath(row["path"], base): row["error"]
                    for row, _ in shards.iter_files(out)}
            want = ({"src/locked/b.py": "cannot read (Permission denied)"} if n == 2 else
                    {"src/a.py": None, "src/locked": "cannot list (Permission denied)"})
            assert rows == want, (corpus, rows)
    finally:
        os.chmod(locked, 0o755)
        shutil.rmtree(base)


def test_detect_language_takes_names_that_are_not_utf8():
    assert hirope.detect_language("bad\udcffname.py") == "python"
    assert hirope.detect_language("\ud800.rs") == "rust"


def test_a_file_past_max_bytes_is_not_read(tmp_path):
    big = tmp_path / "big.py"
    big.write_text("x = 1\n" * 100)
    out = str(tmp_path / "out")
    summary = hd.positions([str(big)], out, tokenizer=TOKENIZER, client="sync", progress=False,
                           max_bytes=100)
    row = next(shards.iter_files(out))[0]
    assert row["error"] == "file too large: 600 bytes, the limit is 100" and row["bytes"] == 600
    assert summary["reasons"] == {"file too large": 1}


# ---------------------------------------------------------------------------------------------
# Messages and exit codes

def test_out_that_is_a_file(code, tmp_path):
    out = tmp_path / "taken"
    out.write_text("mine\n")
    run = cli("positions", str(code), "--out", str(out), "--scheduler", "sync", "--tokenizer",
              TOKENIZER, timeout=60)
    assert run.returncode == 2
    assert one_line(run.stderr) == "hirope positions: --out: %s exists and is not a directory" % out
    assert out.read_text() == "mine\n"


def test_a_corpus_path_that_does_not_exist(tmp_path):
    run = cli("positions", str(tmp_path / "nothing"), "--out", str(tmp_path / "out"),
              "--scheduler", "sync", timeout=60)
    assert run.returncode == 2 and "no such file or directory" in one_line(run.stderr)
    assert not (tmp_path / "out").exists()


def test_an_unreachable_scheduler(code, tmp_path):
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    start = time.monotonic()
    run = cli("positions", str(code), "--out", str(tmp_path / "out"), "--tokenizer", TOKENIZER,
              "--scheduler", "tcp://127.0.0.1:%d" % port, "--connect-timeout", "2", timeout=60)
    assert run.returncode == 1, run.stderr
    line = one_line(run.stderr)
    assert line.startswith("hirope positions: no Dask scheduler answered at tcp://127.0.0.1:%d "
                           "within 2 s" % port), line
    assert time.monotonic() - start < 30


def test_eval_outside_the_repository(tmp_path):
    """An installed package (here: the package linked from elsewhere) finds the repository from
    the working directory, and outside one says in one line what to do."""
    site = tmp_path / "site"
    site.mkdir()
    os.symlink(os.path.dirname(hirope.__file__), site / "hirope")
    env = dict(ENV, PYTHONPATH=str(site))
    env.pop("HIROPE_ROOT", None)
    run = subprocess.run([sys.executable, "-m", "hirope", "eval", "--per-file", "1"], env=env,
                         cwd=str(tmp_path), capture_output=True, text=True, timeout=60)
    assert run.returncode == 2, run.stdout + run.stderr
    line = one_line(run.stderr)
    assert line.startswith("hirope eval: ") and "HIROPE_ROOT=" in line, line
    found = subprocess.run([sys.executable, "-c", "import hirope.eval as e; "
                            "print(e.repository_root())"], env=env, cwd=os.path.join(ROOT, "docs"),
                           capture_output=True, text=True, timeout=60)
    assert found.stdout.strip() == ROOT, found.stderr


# ---------------------------------------------------------------------------------------------
# Logs

def test_progress_in_a_log_is_lines(code, tmp_path):
    """stderr to a pipe (a log): no carriage returns, a line per shard with --progress-every 0,
    and the summary says how many error rows of which kind."""
    (code / "latin1.py").write_bytes(b"# caf\xe9\n")
    (code / "notes.txt").write_text("no language\n")
    files = sorted(str(p) for p in code.iterdir())
    out = tmp_path / "out"
    run = cli("positions", *files, "--out", str(out), "--tokenizer", TOKENIZER, "--scheduler",
              "sync", "--partition-size", "2", "--progress-every", "0", timeout=60)
    assert run.returncode == 0, run.stderr
    assert "\r" not in run.stderr + run.stdout
    assert re.findall(r"(\d+)/3 shards", run.stderr) == ["1", "2", "3"], run.stderr
    assert run.stdout.splitlines()[1:] == ["error rows by reason:",
                                           "       1  no language detected from the file name",
                                           "       1  not UTF-8"], run.stdout
    # the default in a log: no bar, a last line
    again = cli("positions", *files, "--out", str(tmp_path / "again"), "--tokenizer", TOKENIZER,
                "--scheduler", "sync", "--partition-size", "2", timeout=60)
    assert "\r" not in again.stderr and again.stderr.splitlines()[-1].startswith(
        "hirope positions: 3/3 shards (100%)"), again.stderr


def test_progress_on_a_terminal_is_a_bar():
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    stream = Terminal()
    progress = hd.Progress(2, stream=stream)
    progress.update()
    progress.update()
    assert stream.getvalue().count("\r") == 2 and stream.getvalue().endswith("2/2 shards, 0.0 s\n")


# ---------------------------------------------------------------------------------------------
# The documented reader

def docs_reader():
    with open(os.path.join(ROOT, "docs", "python.md"), encoding="utf-8") as f:
        text = f.read()
    section = text[text.index("A reader in"):]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def test_the_documented_reader_reads_each_array_once(code, tmp_path, monkeypatch):
    """np.load's z[k] reads the member from the .npz again on every access: the documented reader
    and iter_files read each array of a shard once (dict(np.load(...)))."""
    for i in range(20):
        (code / ("n%02d.py" % i)).write_text("def g(y):\n    return y * %d\n" % i)
    out = str(tmp_path / "out")
    hd.positions(str(code), out, tokenizer=TOKENIZER, client="sync", progress=False,
                 partition_size=10)
    reads = []
    getitem = np.lib.npyio.NpzFile.__getitem__

    def counted(self, key):
        reads.append(key)
        return getitem(self, key)

    monkeypatch.setattr(np.lib.npyio.NpzFile, "__getitem__", counted)
    members = len(shards.ARRAYS) + 1
    reader = docs_reader().replace("'out/", repr(out + "/")[:-1] + "/")
    assert out in reader
    seen = {}
    exec(reader, seen)
    assert len(seen["rows"]) == 3 and len(seen["ids"]) > 0  # it ran to the last row
    assert len(reads) <= 3 * members, len(reads)
    reads.clear()
    assert len(list(shards.iter_files(out))) == 23
    assert len(reads) <= 3 * members, len(reads)


def test_bag_records_with_names_that_are_not_utf8(tmp_path):
    import dask.bag as db
    records = [{"path": "ok.py", "text": "x = 1\n"}, {"path": "bad\udcffname.py", "text": "y = 2\n"}]
    out = str(tmp_path / "bag")
    summary = hd.positions(db.from_sequence(records), out, tokenizer=TOKENIZER, client="sync",
                           progress=False)
    assert summary["reasons"] == {"file name is not UTF-8": 1} and summary["files"] == 2
    with pytest.raises(ValueError, match="path must be a str"):
        hd.positions(db.from_sequence([{"path": b"x.py", "text": ""}]), str(tmp_path / "bytes"),
                     tokenizer=TOKENIZER, client="sync", progress=False)


def test_eval_with_an_unreachable_scheduler_or_a_bad_local_cluster():
    """python -m hirope eval: an address nobody answers is one line and exit 1; local:N with a
    bad N is one line naming --scheduler and exit 2 (both before any work)."""
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    run = cli("eval", "--per-file", "1", "--scheduler", "tcp://127.0.0.1:%d" % port,
              "--connect-timeout", "2", timeout=60)
    assert run.returncode == 1, run.stderr
    line = one_line(run.stderr)
    assert line.startswith("hirope eval: no Dask scheduler answered at tcp://127.0.0.1:%d "
                           "within 2 s" % port), line
    for bad in ("local:", "local:0", "local:two"):
        run = cli("eval", "--per-file", "1", "--scheduler", bad, timeout=60)
        assert run.returncode == 2, run.stderr
        assert one_line(run.stderr).startswith("hirope eval: --scheduler: local:N"), run.stderr


EVAL_USAGE = [  # arguments -> the start of the one line (exit 2, before any work)
    (["--model", "nosuch"], "--model: model must be one of pybyte, pyjs-llama2, got 'nosuch'"),
    (["--model", "/nonexistent.hrm"],
     "--model: cannot read model file '/nonexistent.hrm': No such"),
    (["--weights", "/nonexistent"], "--weights: cannot read model file '/nonexistent': No such"),
    (["--weights", "/dev/zero"], "--weights: cannot read model file '/dev/zero': it is not a "
                                 "regular file (a character device)"),
    (["--split", "nosplit"], "--split: the manifest "),
    (["--window", "abc"], "--window: window must be a length in units or Kx"),
    (["--window", "0x"], "--window: window must be a length in units or Kx"),
    (["--per-file", "-1"], "--per-file: windows per file at most, a whole number >= 0"),
    (["--schemes", "rope,nosuch"], "--schemes: unknown schemes ['nosuch']; the presets are "),
    (["--scheduler", "nosuch"], "--scheduler: a scheduler address (tcp://HOST:PORT), local:N or "),
    (["--scheduler", "tcp://127.0.0.1:1", "--connect-timeout", "-1"],
     "--connect-timeout: seconds, a number > 0, got -1.0"),
    (["--out", "/nonexistent/result.json"], "--out: no such directory: /nonexistent"),
]


@pytest.mark.parametrize("args,message", EVAL_USAGE, ids=[" ".join(a) for a, _ in EVAL_USAGE])
def test_eval_usage_errors_are_one_line_naming_the_option(args, message):
    """Each wrong option of python -m hirope eval is one line naming it and exit 2, before any
    work: they were tracebacks (exit 1), --weights errors said 'model must be one of', and
    --per-file -1 ran the whole evaluation."""
    run = cli("eval", *args, timeout=60)
    assert run.returncode == 2, run.stdout + run.stderr
    assert one_line(run.stderr).startswith("hirope eval: " + message), run.stderr
    assert run.stdout == ""


def test_eval_without_a_window_fails_and_without_a_baseline_has_no_baseline_column(tmp_path):
    """Every file missing is exit 1 (it was 0, with an empty table); a run of schemes without a
    baseline has no 'far - None' column; --help shows the defaults."""
    run = cli("eval", str(tmp_path / "missing.py"), "--per-file", "1", timeout=120)
    assert run.returncode == 1, run.stdout + run.stderr
    assert one_line(run.stderr) == "hirope eval: no window to evaluate: every file was skipped"
    assert "missing: No such file or directory" in run.stdout
    sample = tmp_path / "sample.py"
    sample.write_text("def f(x):\n    return x + 1\n" * 40)
    run = cli("eval", str(sample), "--per-file", "1", "--window", "1x", "--schemes", "rope",
              timeout=120)
    assert run.returncode == 0, run.stderr
    head = run.stdout.splitlines()[1]
    assert head.startswith("| scheme | ") and head.endswith("| first |"), head
    assert "None" not in run.stdout
    run = cli("eval", "--help", timeout=60)
    for default in ("(default held-out)", "(default 4x)", "(default 4)", "(default sync)",
                    "(default 10.0)"):
        assert default in " ".join(run.stdout.split()), default
