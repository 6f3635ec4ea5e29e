"""hirope.eval (python/hirope/eval.py) against the JavaScript evaluation (lib/model-eval.mjs, the
one training/eval/report.mjs runs), through tests/python/eval_reference.mjs on the same held-out
windows: the presets and the report's schemes, the windows, the recall classes (byte and token
windows), and the per-window sums and the report's
aggregates, run as a Dask job (the synchronous scheduler, and a LocalCluster of 2 workers).

    PYTHONPATH=build/python /usr/bin/python3 -m unittest -v tests.python.test_eval
"""

import json
import os
import subprocess
import sys
import unittest

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
    """The parts that need no native module: the presets, windows and recall classes."""

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

    def test_byte_windows_and_recall_classes_equal_the_javascript(self):
        files = held_out("pybyte", 8)
        for length, per_file in ((1024, 4), (2048, 3)):
            ref = reference("pybyte", length, per_file, files, losses=False)
            windows = [w for f in files for w in ev.windows_of_file(f, read(f), length, per_file)]
            self.assertEqual([(w["file"], w["offset"]) for w in windows], [(w["file"], w["offset"]) for w in ref["windows"]])
            classes = 0
            for w, r in zip(windows, ref["windows"]):
                got = ev.recall_classes(w["bytes"], 256).tolist()
                self.assertEqual(got, r["classes"], "%s @ %d" % (w["file"], w["offset"]))
                classes += sum(1 for c in got if c == ev.FAR)
            self.assertGreater(classes, 0, "no far-recall byte: the test would show nothing")

    def test_token_recall_classes_equal_the_javascript(self):
        files = held_out("pyjs-llama2", 4)
        ref = reference("pyjs-llama2", 2048, 2, files, losses=False)
        self.assertTrue(ref["windows"])
        far = 0
        for r in ref["windows"]:
            data = read(r["file"])[r["byteStart"]:r["byteStart"] + r["bytes"]]
            got = ev.token_recall_classes(data, r["start"], r["end"], 512).tolist()
            self.assertEqual(got, r["classes"], "%s @ %d" % (r["file"], r["offset"]))
            far += got.count(ev.FAR)
        self.assertGreater(far, 0)

    def test_window_sums_and_statistics(self):
        # Two windows of one file and one of another, with known losses.
        edges = [0, 2, 4]
        sums, class_sums, class_counts = ev.window_sums([1.0, 2.0, 4.0], [0, 3, 3, 1], edges)
        self.assertEqual(sums, [1.0, 6.0])
        self.assertEqual(class_sums, [0.0, 4.0, 0.0, 3.0])
        self.assertEqual(class_counts, [0, 1, 0, 2])
        self.assertEqual(ev.per_file([("a", 1, 2), ("a", 3, 2), ("b", 1, 0)]), {"a": 1.0})
        with self.assertRaises(ValueError):
            ev.recall_classes(b"abc", 0)


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
        files = held_out("pybyte", 4)
        ref = reference("pybyte", 1024, 2, files)
        result = ev.evaluate(files, model="pybyte", window="4x", per_file=2, scheduler="sync")
        self.assertEqual(list(result["run"]["schemes"]), list(ref["run"]["schemes"]))
        worst = self.check(self, result, ref)
        print("\npybyte 4x: %d windows from %d files, %d schemes, max |difference| of a sum %.3g bits" % (
            len(ref["windows"]), len(files), len(ref["run"]["schemes"]), worst), file=sys.stderr)

    def test_byte_model_8x_on_a_local_cluster(self):
        from distributed import Client, LocalCluster

        files = held_out("pybyte", 3)
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
