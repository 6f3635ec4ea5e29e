"""The model registry (models/registry.json) and the manifests it names, for the trainer and its
diagnostics. The registry is read by the package's Python reader (python/hirope/_registry.py,
loaded from its file so that the trainer needs no built package); the manifests are JSON, read with
the standard library, and the format is written down once, in the registry's comment and in
docs/model.md."""
import importlib.util
import json
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REGISTRY_PATH = os.path.join(ROOT, "models", "registry.json")

_spec = importlib.util.spec_from_file_location(
    "hirope_registry", os.path.join(ROOT, "python", "hirope", "_registry.py"))
_reader = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_reader)


def load():
    return _reader.load(REGISTRY_PATH)


def names():
    return _reader.model_names(load())


def model(name=None):
    """A model's registry entry ({name, weights, config, manifest}, config and manifest paths
    absolute); the default model when name is None."""
    entry = _reader.entry(name, load())
    if entry is None:
        raise SystemExit("--model must be one of %s, got %s" % (", ".join(names()), name))
    return dict(entry, config=os.path.join(ROOT, entry["config"]),
                manifest=os.path.join(ROOT, entry["manifest"]))


def read_manifest(path, split=None):
    """A manifest's files ({path, bytes, sha256, split}; a relative path made the repository's),
    those of one split when split is given, in manifest order."""
    with open(path) as f:
        files = json.load(f)["files"]
    return [dict(e, path=os.path.join(ROOT, e["path"])) for e in files
            if split is None or e["split"] == split]


def write_manifest(path, rows, comment):
    """Writes a manifest: rows of (path, bytes, sha256, split), one file per line."""
    with open(path, "w") as f:
        f.write('{\n "comment": %s,\n "files": [\n' % json.dumps(comment))
        f.write(",\n".join("  " + json.dumps({"path": p, "bytes": n, "sha256": s, "split": part})
                           for p, n, s, part in rows))
        f.write("\n ]\n}\n")
