"""python -m hirope eval-checkpoint (hirope.eval.evaluate_checkpoint): a Hugging Face checkpoint beyond its training
length, the eval job's windows, buckets, sums and statistics under 'model', 'hirope', 'rerope', 'self-extend' and
'yarn', one row per file, resumable.

The checkpoint is hirope's own byte model (models/pybyte.hrm, trained at 256 bytes) exported as a llama checkpoint
(tests/python/checkpoint_reference.py export_hrm_as_llama) with a byte-level tokenizer.json whose id is the byte
(GPT-2's byte-to-character map, no merges: byte_tokenizer below), so its numbers are the byte model's. The expected
rows are computed here from Model.from_pretrained(...).loss over windows of the file's tokens and buckets written
out from the protocol (consecutive windows of 1024 tokens, edges 0, 256, 512, 1024, each scheme's options from the
papers' defaults), not through hirope.eval; the means over files and their standard errors by numpy.

Run: PYTHONPATH=build/python /usr/bin/python3 -m pytest -q -p no:cacheprovider tests/python/test_eval_checkpoint.py
"""

import json
import math
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))
import checkpoint_reference as ref  # noqa: E402

import hirope  # noqa: E402
import hirope.eval as ev  # noqa: E402
from hirope.__main__ import main as cli  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
L, LENGTH = 256, 1024  # pybyte's training context; --length 4x
EDGES = [0, 256, 512, 1024]
RTOL = 1e-6


def _byte_map():
    """GPT-2's bytes_to_unicode: printable bytes stand for themselves, the rest from U+0100 on."""
    keep = list(range(0x21, 0x7F)) + list(range(0xA1, 0xAD)) + list(range(0xAE, 0x100))
    extra = [b for b in range(256) if b not in keep]
    return {**{b: chr(b) for b in keep}, **{b: chr(256 + i) for i, b in enumerate(extra)}}


def byte_tokenizer():
    """A tokenizer.json of byte-level BPE over the 256 bytes with no merges: token id = byte (the shape of
    tests/fixtures/tiny-tokenizer.mjs)."""
    chars = _byte_map()
    return {"version": "1.0", "truncation": None, "padding": None, "added_tokens": [], "normalizer": None,
            "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True,
                              "use_regex": True},
            "post_processor": None, "decoder": None,
            "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
                      "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False,
                      "vocab": {chars[b]: b for b in range(256)}, "merges": []}}


def byte_checkpoint(folder, dtype="F32"):
    """hirope's byte model as a llama checkpoint with a tokenizer.json whose ids are the bytes (docs/checkpoint-eval.md
    makes its example checkpoint with this)."""
    ref.export_hrm_as_llama(os.path.join(ROOT, "models", "pybyte.hrm"), str(folder), dtype)
    with open(os.path.join(str(folder), "tokenizer.json"), "w", encoding="utf-8") as f:
        json.dump(byte_tokenizer(), f)
    return str(folder)


# Each scheme's options written out: the checkpoint's own positions; HiRoPE's paper default (ratio 0.5, window L/2,
# top-level units); ReRoPE's window L/2; Self-Extend's neighbour window L/2 and the smallest group G >= 2 whose reach
# (L - W) * G + W covers the window; YaRN at factor length / L (its paper's beta 32, 1 and original length L are the
# model's defaults).
W = L // 2
GROUP = next(g for g in range(2, 100) if (L - W) * g + W >= LENGTH)
SCHEMES = {
    "model": {},
    "hirope": {"scheme": {"type": "hirope", "ratio": 0.5, "window": W}, "hierarchy": "units"},
    "rerope": {"scheme": {"type": "rerope", "window": W}},
    "self-extend": {"scheme": {"type": "self-extend", "window": W, "group": GROUP}},
    "yarn": {"scheme": {"type": "rope", "scaling": {"type": "yarn", "factor": LENGTH / L}}},
}


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    base = tmp_path_factory.mktemp("checkpoint-eval")
    folder = byte_checkpoint(base / "pybyte-llama")
    code = base / "repo" / "pkg"
    code.mkdir(parents=True)
    # held-out files of the byte model (never trained on), cut to 2 windows, 1 and 1 (the rest of a window dropped)
    with open(os.path.join(ROOT, "training", "models", "pybyte", "manifest.json"), encoding="utf-8") as f:
        held = [r["path"] for r in json.load(f)["files"] if r["split"] == "held-out" and os.path.exists(r["path"])]
    sources = [open(p, "rb").read() for p in held if os.path.getsize(p) >= 2300][:3]
    for name, text, size in zip(("a.py", "b.py", "c.py"), sources, (2300, 1500, 1100)):
        (code / name).write_bytes(text[:size])
    (base / "repo" / "notes.txt").write_text("not python\n")
    return {"folder": folder, "repo": str(base / "repo"), "files": [str(code / n) for n in ("a.py", "b.py", "c.py")],
            "base": base}


def direct(folder, path, names=SCHEMES):
    """Per window (consecutive runs of LENGTH of the file's tokens) and scheme: the losses' sums in each bucket of
    EDGES (the loss of token p, losses[p - 1], in the bucket holding p)."""
    model = hirope.Model.from_pretrained(folder)
    text = open(path, "rb").read()
    whole = model.positions(text, hierarchy="units", language="python")
    ids = np.asarray(whole["ids"])
    assert ids.tolist() == list(text)  # the tokenizer's ids are the bytes
    out = []
    for a in range(0, len(ids) - LENGTH + 1, LENGTH):
        row = {"offset": a, "schemes": {}}
        for name in names:
            options = dict(SCHEMES[name])
            if options.get("hierarchy") == "units":  # HiRoPE's units and statements cut from the whole file's parse
                options["positions"] = {k: np.asarray(whole[k][a:a + LENGTH], dtype=np.int32) - int(whole[k][a])
                                        for k in ("unit", "statement")}
            losses = model.loss(ids[a:a + LENGTH], **options).losses.astype(np.float64)
            assert losses.shape == (LENGTH - 1,)
            p = np.arange(1, LENGTH)
            row["schemes"][name] = [float(losses[(p >= EDGES[b]) & (p < EDGES[b + 1])].sum())
                                    for b in range(len(EDGES) - 1)]
        out.append(row)
    return out


def close(a, b):
    return abs(a - b) <= RTOL * max(1.0, abs(b))


def check_rows(rows, expected, names=SCHEMES):
    """rows: the job's parts by file; expected: direct() by file."""
    assert list(rows) == list(expected)
    for f in expected:
        got = rows[f]["windows"]
        assert [w["offset"] for w in got] == [w["offset"] for w in expected[f]], f
        for g, e in zip(got, expected[f]):
            for name in names:
                sums, class_sums, class_counts = g["schemes"][name]
                assert all(close(x, y) for x, y in zip(sums, e["schemes"][name])), (f, name, sums, e["schemes"][name])
                assert len(sums) == len(EDGES) - 1
                assert close(sum(class_sums), sum(sums)) and sum(class_counts) == LENGTH - 1


def over_files(values):
    xs = np.asarray(values, dtype=np.float64)
    return float(xs.mean()), float(xs.std(ddof=1) / math.sqrt(len(xs))) if len(xs) > 1 else float("nan")


def test_rows_and_summary_equal_a_direct_computation(setup):
    expected = {f: direct(setup["folder"], f) for f in setup["files"]}
    assert [len(expected[f]) for f in setup["files"]] == [2, 1, 1]
    result = ev.evaluate_checkpoint(setup["folder"], os.path.join(setup["repo"], "**", "*.py"), per_file=None,
                                    scheduler="sync")
    assert result["length"] == LENGTH and result["training_context"] == L and result["run"]["edges"] == EDGES
    assert list(result["run"]["schemes"]) == list(SCHEMES) and result["baselines"] == ["model"]
    assert result["skipped"] == [] and result["resumed"] == 0
    windows = result["run"]["windows"]
    parts = {}
    for i, w in enumerate(windows):
        parts.setdefault(w["file"], {"windows": []})["windows"].append(
            {"offset": w["offset"], "schemes": {n: [s["sums"][i], s["classSums"][i], s["classCounts"][i]]
                                                for n, s in result["run"]["schemes"].items()}})
    check_rows(parts, expected)
    # The table's numbers: per file, bits per token in each bucket (position 0 has no loss: the first bucket holds
    # 255 tokens a window) and past L; then their mean over files and its standard error.
    counts = [255, 256, 512]
    for name in SCHEMES:
        s = result["summary"][name]
        for b in range(3):
            per_file = [sum(w["schemes"][name][b] for w in expected[f]) / (counts[b] * len(expected[f]))
                        for f in setup["files"]]
            mean, se = over_files(per_file)
            assert close(s["buckets"][b]["mean"], mean) and close(s["buckets"][b]["se"], se), (name, b)
        beyond = [sum(sum(w["schemes"][name][1:]) for w in expected[f]) / (768 * len(expected[f]))
                  for f in setup["files"]]
        mean, se = over_files(beyond)
        assert close(s["beyond"]["mean"], mean) and close(s["beyond"]["se"], se) and s["beyond"]["files"] == 3
    # a scheme changes the forward past L (else the comparison above could not tell the schemes apart)
    past = {n: result["summary"][n]["beyond"]["mean"] for n in SCHEMES}
    assert len({round(v, 6) for v in past.values()}) == len(past), past
    table = ev.format_checkpoint_table(result).splitlines()
    assert table[0] == "| scheme | 0-255 (trained) | 256-511 | 512-1023 | past 255 | far-recall |"
    assert [line.split(" | ")[0] for line in table[2:]] == ["| " + n for n in SCHEMES]
    assert "%.3f ± %.3f" % over_files(beyond) in table[-1]  # yarn's past-L column


def rows_of(path):
    with open(path, encoding="utf-8") as f:
        lines = [json.loads(line) for line in f]
    return lines[0], {r["file"]: r for r in lines[1:]}, len(lines) - 1


def test_a_rerun_resumes_from_the_rows_file(setup, capsys):
    rows = str(setup["base"] / "rows.jsonl")
    out = str(setup["base"] / "result.json")
    a, b, c = setup["files"]
    args = ["eval-checkpoint", setup["folder"], "--length", "4x", "--per-file", "0", "--schemes", "model,rerope",
            "--rows", rows, "--out", out]
    # a LocalCluster of 2 workers (each loads the folder itself), two files
    assert cli(args + ["--files", a, b, "--scheduler", "local:2"]) == 0, capsys.readouterr().err
    head, done, count = rows_of(rows)
    assert head["format"] == ev.ROWS_FORMAT and head["settings"]["length"] == LENGTH and count == 2
    check_rows({f: done[f] for f in (a, b)}, {f: direct(setup["folder"], f, ["model", "rerope"]) for f in (a, b)},
               ["model", "rerope"])
    # Mark a's row (a rerun that computed it again would lose the mark) and leave a line cut short, as a job killed
    # while writing leaves it: the rerun drops it.
    lines = open(rows, encoding="utf-8").read().splitlines()
    marked = json.loads(lines[1])
    marked["windows"][0]["schemes"]["model"][0][1] = 12345.0
    lines[1] = json.dumps(marked)
    with open(rows, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + '\n{"file": "' + c + '", "skipped": null, "wind')
    capsys.readouterr()
    assert cli(args + ["--files", os.path.join(setup["repo"], "**", "*.py")]) == 0
    printed = capsys.readouterr().out
    assert "4 windows of 1024 tokens from 3 files (2 read back from %s)" % rows in printed, printed
    head2, done, count = rows_of(rows)
    assert head2 == head and count == 3 and set(done) == {a, b, c}
    assert done[marked["file"]]["windows"][0]["schemes"]["model"][0][1] == 12345.0
    result = json.load(open(out, encoding="utf-8"))
    first = [w["file"] for w in result["run"]["windows"]].index(marked["file"])
    assert result["run"]["schemes"]["model"]["sums"][first][1] == 12345.0
    check_rows({c: done[c]}, {c: direct(setup["folder"], c, ["model", "rerope"])}, ["model", "rerope"])
    # other settings into the same rows file: refused before any work, exit 1, the file unchanged
    before = open(rows, "rb").read()
    assert cli(args[:3] + ["2x"] + args[4:] + ["--files", a]) == 1
    err = capsys.readouterr().err
    assert err == ("hirope eval-checkpoint: --rows: %s holds the rows of a job with other settings (edges, length "
                   "differ); rerun that job's command, or pick another rows file\n" % rows), err
    assert open(rows, "rb").read() == before


ERRORS = [  # arguments -> the one line (after "hirope eval-checkpoint: "), exit 2, before any work
    (["{base}/missing", "--files", "{a}"], "FOLDER: folder must be a checkpoint folder, got '{base}/missing' "
                                           "(not a folder)"),
    (["{repo}", "--files", "{a}"], "FOLDER: the checkpoint folder has no config.json"),
    (["{random}", "--files", "{a}"], "FOLDER: the checkpoint folder {random} has no tokenizer.json: the "
                                     "evaluation reads files as text, in the model's own tokens"),
    (["{folder}", "--files", "{a}", "--schemes", "model,nosuch"], "--schemes: unknown schemes ['nosuch']; the "
                                                                  "schemes are model, hirope, sliding-window, "),
    (["{folder}", "--files", "{a}", "--length", "4"], None),  # a token count: fine (checked below)
    (["{folder}", "--files", "{a}", "--length", "abc"], "--length: length must be a length in units or Kx (K "
                                                        "times the training context), a whole number >= 1, got "
                                                        "'abc'"),
    (["{folder}", "--files", "{a}", "--length", "0x"], "--length: length must be a length in units or Kx"),
    (["{folder}", "--files", "{a}", "--length", "99999999"], "--length: length is 99999999 tokens; the model's "
                                                             "limit is "),
    (["{folder}", "--files", "{base}/nothing/**/*.py"], "--files: {base}/nothing/**/*.py: no file matches"),
    (["{folder}", "--files", "{a}", "--per-file", "-1"], "--per-file: windows per file at most, a whole number >= 0"),
]


@pytest.mark.parametrize("args,message", ERRORS, ids=[" ".join(a[1:]) for a, _ in ERRORS])
def test_wrong_arguments_are_one_line_and_exit_2(setup, capsys, args, message):
    random = setup["base"] / "random-llama"
    if not random.exists():
        ref.make_checkpoint("llama", str(random), "F32", seed=3)
    names = dict(setup, a=setup["files"][0], random=str(random))
    argv = [x.format(**names) for x in args]
    if message is None:  # --length 4: windows of 4 tokens, a plain count
        assert cli(["eval-checkpoint"] + argv + ["--schemes", "model", "--per-file", "1"]) == 0
        assert "1 windows of 4 tokens from 1 files" in capsys.readouterr().out
        return
    assert cli(["eval-checkpoint"] + argv) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1, captured
    assert captured.err.startswith("hirope eval-checkpoint: " + message.format(**names)), captured.err


def test_the_python_errors_are_hiropeerrors(setup):
    with pytest.raises(hirope.HiRoPEError, match=r"^unknown schemes \['nosuch'\]") as e:
        ev.evaluate_checkpoint(setup["folder"], setup["files"][:1], schemes=["nosuch"])
    assert e.value.argument == "schemes"
    with pytest.raises(hirope.HiRoPEError, match="not a folder") as e:
        ev.evaluate_checkpoint(os.path.join(str(setup["base"]), "missing"), setup["files"][:1])
    assert e.value.argument == "folder"
    with pytest.raises(hirope.HiRoPEError, match="length must be") as e:
        ev.evaluate_checkpoint(setup["folder"], setup["files"][:1], length="4y")
    assert e.value.argument == "length"


def test_the_exported_byte_model_gives_its_own_evaluation(setup):
    """The byte model read as a checkpoint (tokens = bytes) and `eval` of the byte model itself: the same windows,
    classes and sums (the F32 export keeps its weights' values, and a scheme on every layer is the byte model's
    scheme), 'model' being its RoPE and 'hirope' the paper's default preset."""
    files = setup["files"][:2]
    mine = ev.evaluate_checkpoint(setup["folder"], files, per_file=None)
    names = {"model": "rope", "hirope": "hirope-0.5-units", "rerope": "rerope", "self-extend": "self-extend",
             "yarn": "yarn"}
    rows = str(setup["base"] / "pybyte-rows.jsonl")
    theirs = ev.evaluate(files, model="pybyte", schemes=list(names.values()), window="4x", per_file=None, rows=rows)
    assert mine["run"]["windows"] == theirs["run"]["windows"] and len(mine["run"]["windows"]) == 3
    # `eval` resumes through the same rows file code: a second run reads both files back
    again = ev.evaluate(files, model="pybyte", schemes=list(names.values()), window="4x", per_file=None, rows=rows)
    assert (theirs["resumed"], again["resumed"]) == (0, 2) and again["summary"] == theirs["summary"]
    assert rows_of(rows)[2] == 2
    for name, preset in names.items():
        a, b = mine["run"]["schemes"][name], theirs["run"]["schemes"][preset]
        assert a["classCounts"] == b["classCounts"], name
        for key in ("sums", "classSums"):
            for x, y in zip(a[key], b[key]):
                assert all(close(u, v) for u, v in zip(x, y)), (name, key, x, y)
