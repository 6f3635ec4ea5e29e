"""hirope.eval (python/hirope/eval.py): the presets and the report's schemes, and the Dask job's
per-window sums and the report's aggregates (the synchronous scheduler, and a LocalCluster of 2
workers) against the JavaScript evaluation (lib/model-eval.mjs, the one training/eval/report.mjs
runs) through tests/python/eval_reference.mjs on the same held-out windows; the core's rules
(recall classes, windows, sums) and the package's statistics (summarize) through it by hand.

    PYTHONPATH=build/python /usr/bin/python3 -m unittest -v tests.python.test_eval
"""

import json
import math
import os
import subprocess
import sys
import unittest

import numpy as np

# The package with its native module (build/python, which npm test builds first).
import hirope.eval as ev

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RTOL = 1e-6


def held_out(model, count):
    entry = ev.model_entry(model)
    with open(entry["manifest"]) as f:
        rows = [r for r in json.load(f)["files"] if r["split"] == "held-out"]
    rows = [f for f in rows if os.path.exists(os.path.join(ROOT, f["path"]))]
    return [f["path"] for f in rows[:count]]


_CACHE = {}


def reference(model, length, per_file, files, schemes=None, losses=True):
    key = (model, length, per_file, tuple(files), tuple(schemes or ()), losses)
    if key not in _CACHE:
        cmd = ["node", os.path.join(ROOT, "tests", "python", "eval_reference.mjs"), "--model", model,
               "--length", str(length), "--per-file", str(per_file)]
        if schemes:
            cmd += ["--schemes", ",".join(schemes)]
        if not losses:
            cmd.append("--no-losses")
        out = subprocess.run(cmd + files, cwd=ROOT, capture_output=True, text=True, check=True)
        _CACHE[key] = json.loads(out.stdout)
    return _CACHE[key]


def read(path):
    with open(os.path.join(ROOT, path), "rb") as f:
        return f.read()


def assert_close(case, a, b, what):
    """Equal within RTOL relative (absolute for values near 0); returns the largest |a - b|."""
    worst = 0.0
    for i, (x, y) in enumerate(zip(a, b)):
        d = abs(x - y)
        worst = max(worst, d)
        case.assertLessEqual(d, RTOL * max(1.0, abs(y)), "%s[%d]: %r != %r" % (what, i, x, y))
    case.assertEqual(len(a), len(b), what)
    return worst


class PresetsAndClasses(unittest.TestCase):
    """The presets against the JavaScript's (each language substitutes the registry's symbols), and
    the core's rules and the package's statistics through hirope.eval."""

    def test_presets_and_report_schemes_equal_the_javascript(self):
        for model, L in (("pybyte", 256), ("pyjs-llama2", 512)):
            tuned = ev.model_entry(model)["config"]["evaluation"]["tuned"]
            for length in (4 * L, 8 * L):
                ref = reference(model, length, 1, held_out(model, 1), losses=False)
                self.assertEqual(ref["L"], L)
                got = json.loads(json.dumps(ev.preset_schemes(L, length, tuned)))
                self.assertEqual(list(got), list(ref["presets"]))
                self.assertEqual(got, ref["presets"])
                self.assertEqual(ref["edges"], ev.default_buckets(L, length))
                baselines, schemes = ev.report_schemes(tuned)
                self.assertEqual(baselines, ref["report"]["baselines"])
                self.assertEqual(schemes, ref["report"]["schemes"])

    def test_recall_classes_through_the_binding(self):
        # The core's classes (src/model/evaluation.cpp; the values are its native tests'), through
        # the binding: bytes-like input, numpy or list spans, and its errors as ValueError.
        text = b"alpha = beta\nalpha beta"
        self.assertEqual([ev.RECALL_CLASSES[c] for c in ev.recall_classes(bytearray(text), 13)[13:18]], ["near"] * 5)
        self.assertEqual([ev.RECALL_CLASSES[c] for c in ev.recall_classes(memoryview(text), 12)[13:18]], ["far"] * 5)
        start, end = [0, 5, 7, 12, 13, 18], [5, 7, 12, 13, 18, 23]
        got = ev.token_recall_classes(text, np.asarray(start, dtype=np.uint32), end, 3)
        self.assertEqual(got.dtype, np.uint8)
        self.assertEqual([ev.RECALL_CLASSES[c] for c in got], ["first", "other", "first", "other", "far", "near"])
        self.assertEqual((ev.OTHER, ev.FIRST, ev.NEAR, ev.FAR), (0, 1, 2, 3))
        with self.assertRaisesRegex(ValueError, r"^recall_classes: reach must be an integer >= 1, got 0$"):
            ev.recall_classes(b"abc", 0)
        with self.assertRaisesRegex(ValueError, r"token_recall_classes: reach must be an integer >= 1, got True"):
            ev.token_recall_classes(b"abc", [0], [1], True)
        with self.assertRaisesRegex(ValueError, r"token_recall_classes: token 0 spans \[0, 99\) outside the 3 bytes"):
            ev.token_recall_classes(b"abc", [0], [99], 1)
        with self.assertRaisesRegex(ValueError, "one entry per token"):
            ev.token_recall_classes(b"abc", [0, 1], [1], 1)

    def test_windows_buckets_and_language(self):
        data = bytes(range(256)) * 4  # 1,024 bytes: 4 windows of 256, or 2 spread (0 and 2)
        self.assertEqual([w["offset"] for w in ev.windows_of_file("x.py", data, 256)], [0, 256, 512, 768])
        windows = ev.windows_of_file("x.mjs", data, 256, per_file=2)
        self.assertEqual([w["offset"] for w in windows], [0, 512])
        self.assertEqual(windows[1]["bytes"], data[512:768])
        self.assertEqual(windows[0]["language"], "javascript")
        self.assertEqual(ev.language_of("a.py"), "python")
        self.assertEqual(ev.default_buckets(256, 1500), [0, 256, 512, 1024, 1500])
        self.assertEqual(ev.truncate_stride(256), 32)

    def test_window_sums_and_statistics(self):
        # Two windows of one file and one of another, with known losses.
        edges = [0, 2, 4]
        sums, class_sums, class_counts = ev.window_sums([1.0, 2.0, 4.0], [0, 3, 3, 1], edges)
        self.assertEqual(sums, [1.0, 6.0])
        self.assertEqual(class_sums, [0.0, 4.0, 0.0, 3.0])
        self.assertEqual(class_counts, [0, 1, 0, 2])
        with self.assertRaisesRegex(ValueError, "window_sums: classes must have one entry per unit"):
            ev.window_sums([1.0, 2.0], [0, 3], edges)
        # The statistics are the JavaScript package's (summarize, under node): the values by hand
        # (tests/js/model-report.test.mjs has the same run), read back with NaN for JSON's null.
        run = {"length": 4, "edges": edges, "counts": [1, 2],
               "windows": [{"file": "a", "offset": 0}, {"file": "a", "offset": 4}, {"file": "b", "offset": 0}],
               "schemes": {"x": {"sums": [[1, 4], [3, 2], [2, 6]],
                                 "classSums": [[0, 1, 0, 4], [0, 0, 0, 2], [0, 0, 0, 6]],
                                 "classCounts": [[0, 1, 0, 2], [0, 0, 0, 2], [0, 0, 0, 1]]},
                           "y": {"sums": [[1, 2], [1, 2], [1, 2]],
                                 "classSums": [[0, 1, 0, 2], [0, 0, 0, 2], [0, 0, 0, 2]],
                                 "classCounts": [[0, 1, 0, 2], [0, 0, 0, 2], [0, 0, 0, 1]]}}}
        summary, baseline = ev.summarize(run, ["y", "x"])
        self.assertEqual(baseline, "y")
        x = summary["x"]
        self.assertEqual([c["mean"] for c in x["buckets"]], [2, 2.25])
        self.assertAlmostEqual(x["buckets"][1]["se"], 0.75)
        self.assertEqual(x["far"]["mean"], 3.75)
        self.assertAlmostEqual(x["far"]["se"], 2.25)
        self.assertTrue(math.isnan(x["near"]["mean"]) and math.isnan(x["first"]["se"]))
        self.assertEqual(x["far_minus_baseline"]["diff"], 2.25)
        self.assertAlmostEqual(x["far_minus_baseline"]["se"], 1.75)
        self.assertIsNone(summary["y"]["far_minus_baseline"])
        self.assertEqual(x["by_file"]["b"], {"buckets": [2, 3], "beyond": 3, "far": 6, "near": None,
                                             "first": None, "other": None})


class ParityWithTheJavaScript(unittest.TestCase):
    """The Dask job's per-window sums and the report's aggregates against lib/model-eval.mjs."""

    @staticmethod
    def check(self, result, ref):
        run = result["run"]
        self.assertEqual([(w["file"], w["offset"]) for w in run["windows"]], [(w["file"], w["offset"]) for w in ref["windows"]])
        self.assertEqual(run["counts"], ref["run"]["counts"])
        worst = 0.0
        for name, s in ref["run"]["schemes"].items():
            got = run["schemes"][name]
            self.assertEqual(got["classCounts"], s["classCounts"], name)
            for i in range(len(s["sums"])):
                worst = max(worst, assert_close(self, got["sums"][i], s["sums"][i], "%s sums %d" % (name, i)))
                worst = max(worst, assert_close(self, got["classSums"][i], s["classSums"][i], "%s classSums %d" % (name, i)))
            mine = result["summary"][name]
            theirs = ref["summary"][name]
            assert_close(self, [c["mean"] for c in mine["buckets"]], theirs["buckets"], name + " buckets")
            for k in ("other", "first", "near", "far", "beyond"):
                a, b = mine[k]["mean"], theirs[k]
                if b is None:  # a class no window has: NaN both sides
                    self.assertNotEqual(a, a)
                    continue
                assert_close(self, [a], [b], "%s %s" % (name, k))
        return worst

    def test_byte_model_report_schemes_sync(self):
        # Two files of two windows each: every report scheme, and a file's second window (four
        # files took 27 s of the Python lane, two take 12).
        files = held_out("pybyte", 2)
        ref = reference("pybyte", 1024, 2, files)
        result = ev.evaluate(files, model="pybyte", window="4x", per_file=2, scheduler="sync")
        self.assertEqual(list(result["run"]["schemes"]), list(ref["run"]["schemes"]))
        worst = self.check(self, result, ref)
        print("\npybyte 4x: %d windows from %d files, %d schemes, max |difference| of a sum %.3g bits" % (
            len(ref["windows"]), len(files), len(ref["run"]["schemes"]), worst), file=sys.stderr)

    def test_byte_model_8x_on_a_local_cluster(self):
        from distributed import Client, LocalCluster

        files = held_out("pybyte", 2)  # a file for each of the two workers
        schemes = ["truncate", "rope", "hirope-statements (tuned)", "self-extend (tuned)"]
        ref = reference("pybyte", 2048, 1, files, schemes)
        env = os.environ.get("PYTHONPATH", "")
        cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                               env={"PYTHONPATH": env} if env else None)
        try:
            with Client(cluster) as client:
                result = ev.evaluate(files, model="pybyte", schemes=schemes, window="8x", per_file=1, client=client)
        finally:
            cluster.close()
        worst = self.check(self, result, ref)
        print("\npybyte 8x, LocalCluster of 2: %d windows, max |difference| of a sum %.3g bits" % (
            len(ref["windows"]), worst), file=sys.stderr)

    def test_token_model_sync(self):
        files = held_out("pyjs-llama2", 1)
        schemes = ["rope", "hirope-units (tuned)", "hirope-segments (tuned)"]
        ref = reference("pyjs-llama2", 2048, 1, files, schemes)
        result = ev.evaluate(files, model="pyjs-llama2", schemes=schemes, window=2048, per_file=1)
        worst = self.check(self, result, ref)
        print("\npyjs-llama2 4x: %d windows, max |difference| of a sum %.3g bits" % (len(ref["windows"]), worst), file=sys.stderr)


if __name__ == "__main__":
    unittest.main()
