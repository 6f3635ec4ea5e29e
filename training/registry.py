"""The model registry (training/models/registry.json) and the manifests it names, for the trainer
and its diagnostics; training/registry.mjs reads the same file for JavaScript. Both files are JSON,
so each side reads them with its standard library and the format is written down once, in the
registry's comment and in docs/model.md."""
import json
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REGISTRY_PATH = os.path.join(ROOT, "training", "models", "registry.json")


def load():
    with open(REGISTRY_PATH) as f:
        return json.load(f)


def names():
    return [m["name"] for m in load()["models"]]


def model(name=None):
    """A model's registry entry ({name, config, manifest}, paths absolute); the default model when
    name is None."""
    registry = load()
    name = name or registry["default"]
    for entry in registry["models"]:
        if entry["name"] == name:
            return dict(entry, config=os.path.join(ROOT, entry["config"]),
                        manifest=os.path.join(ROOT, entry["manifest"]))
    raise SystemExit("--model must be one of %s, got %s" % (", ".join(names()), name))


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
