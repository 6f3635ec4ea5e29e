"""The runtime data list, models/registry.json: the package carries it (data/registry.json) and
reads it there, so hirope.eval's presets need no repository (an installed wheel); the package's
model and tokenizer lists are the registry's (tools/write-python-manifest.mjs); the trainer's
training/registry.py reads it through the same reader."""

import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if os.path.isdir(os.path.join(ROOT, "build", "python")) and "hirope" not in sys.modules:
    sys.path.insert(0, os.path.join(ROOT, "build", "python"))

import hirope  # noqa: E402
from hirope import _registry  # noqa: E402

with open(os.path.join(ROOT, "models", "registry.json"), encoding="utf-8") as f:
    REGISTRY = json.load(f)


def test_the_package_carries_the_registry():
    assert _registry.PATH.startswith(os.path.dirname(hirope.__file__) + os.sep)
    assert _registry.load() == REGISTRY


def test_the_package_lists_are_the_registry_s():
    assert hirope.models == [m["name"] for m in REGISTRY["models"]]
    assert hirope.models[0] == REGISTRY["default"]
    assert hirope.tokenizer_names == ["lexical", *REGISTRY["tokenizers"]["files"]]
    manifest = hirope._manifest()
    assert manifest["models"] == {m["name"]: m["weights"] for m in REGISTRY["models"]}
    assert manifest["defaultModel"] == REGISTRY["default"]
    assert manifest["maxTokenizerJsonBytes"] == REGISTRY["tokenizers"]["max_json_bytes"]
    for m in REGISTRY["models"]:
        assert os.path.isfile(os.path.join(ROOT, "models", m["weights"])), m
        assert os.path.isfile(os.path.join(os.path.dirname(hirope.__file__), "data", m["weights"]))


def test_reader_entries():
    assert _registry.model_names() == hirope.models
    assert _registry.entry()["name"] == REGISTRY["default"]
    assert _registry.entry("pyjs-llama2")["weights"] == "pyjs-llama2.hrm"
    assert _registry.entry("no-such-model") is None


def test_eval_reads_it_outside_the_repository(tmp_path):
    """The package linked from elsewhere, run outside any checkout and without HIROPE_ROOT: the
    registry, the presets and the truncate stride come from the package's data."""
    site = tmp_path / "site"
    site.mkdir()
    os.symlink(os.path.dirname(hirope.__file__), site / "hirope")
    env = dict(os.environ, PYTHONPATH=str(site))
    env.pop("HIROPE_ROOT", None)
    program = ("import json, hirope.eval as e; r = e.registry(); "
               "print(json.dumps([r['default'], e.truncate_stride(256), "
               "e.preset_schemes(256, 1024)['truncate'], e.report_schemes()[0]]))")
    run = subprocess.run([sys.executable, "-c", program], env=env, cwd=str(tmp_path),
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    default, stride, truncate, baselines = json.loads(run.stdout)
    assert default == REGISTRY["default"]
    assert stride == 256 // REGISTRY["truncate"]["stride_divisor"]
    assert truncate == {"scheme": {"type": "truncate", "length": 256, "stride": stride}}
    assert baselines == REGISTRY["evaluation"]["report"][:2]


def test_the_trainer_reads_it_through_the_package_reader():
    program = ("import json; from training import registry as r; "
               "print(json.dumps([r.names(), r.model()['name'], r.model('pyjs-llama2')['config']]))")
    run = subprocess.run([sys.executable, "-c", program], cwd=ROOT, capture_output=True,
                         text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    names, default, config = json.loads(run.stdout)
    assert names == hirope.models and default == REGISTRY["default"]
    assert config == os.path.join(ROOT, "training", "models", "pyjs-llama2", "config.json")
    bad = subprocess.run([sys.executable, "-c", "from training import registry as r; r.model('x')"],
                         cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert bad.returncode == 1 and "--model must be one of pybyte, pyjs-llama2, got x" in bad.stderr
