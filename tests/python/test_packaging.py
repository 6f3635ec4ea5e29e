"""The package installs as README "Python" says (pip, offline, into a virtual environment) and
leaves the folder it installs from as it was: no build/ or hirope.egg-info/ written there. Its
version is package.json's.

Run: /usr/bin/python3 -m pytest -q tests/python/test_packaging.py (after npm run build)."""

import json
import os
import shutil
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PACKAGE = os.path.join(ROOT, "build", "python")


def _tree(folder):
    return sorted(
        os.path.relpath(os.path.join(d, f), folder)
        for d, _, files in os.walk(folder)
        for f in files
        if "__pycache__" not in d
    )


def test_pip_install_leaves_the_source_folder_clean(tmp_path):
    if not os.path.isfile(os.path.join(PACKAGE, "pyproject.toml")):
        pytest.skip("build/python is not assembled (npm run build)")
    source = tmp_path / "python"
    shutil.copytree(PACKAGE, source, ignore=shutil.ignore_patterns("__pycache__"))
    before = _tree(source)
    venv = tmp_path / "venv"
    # The venv's own interpreter, not the tests' PYTHONPATH (build/python).
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    # README's command, word for word but for the paths.
    subprocess.run(["/usr/bin/python3", "-m", "venv", "--system-site-packages", str(venv)],
                   check=True, timeout=300, env=env)
    subprocess.run([str(venv / "bin" / "pip"), "install", "-q", "--no-index",
                    "--no-build-isolation", str(source)], check=True, timeout=600,
                   cwd=tmp_path, env=env)
    assert _tree(source) == before
    assert not [n for n in os.listdir(tmp_path) if n.endswith(".egg-info") or n == "build"]
    out = subprocess.run(
        [str(venv / "bin" / "python"), "-c",
         "import hirope, json; print(json.dumps([hirope.__version__, hirope.__file__]))"],
        check=True, capture_output=True, text=True, timeout=300, cwd=tmp_path, env=env)
    version, path = json.loads(out.stdout)
    with open(os.path.join(ROOT, "package.json"), encoding="utf-8") as f:
        assert version == json.load(f)["version"]
    assert path.startswith(str(venv))
    meta = subprocess.run([str(venv / "bin" / "pip"), "show", "hirope"], check=True,
                          capture_output=True, text=True, timeout=300, env=env).stdout
    assert f"Version: {version}" in meta
