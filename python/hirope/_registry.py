"""The runtime data list (the repository's models/registry.json, in the package as
data/registry.json): the shipped code models, the built-in tokenizers' data files, the truncate
baseline's stride and the evaluation's presets. The one Python reader: hirope.eval reads it from
the package's data (so it works from an installed wheel), and the trainer (training/registry.py)
through it from the repository. The JavaScript reader is wasm/registry.js. Standard library only,
and no import of the native module, so that training/ can load this file on its own."""

import json
import os

#: The registry in the package's data (scripts/build.sh copies it there).
PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "registry.json")


def load(path=None):
    """The registry, as JSON: the package's, or the one at path."""
    with open(path or PATH, encoding="utf-8") as f:
        return json.load(f)


def model_names(reg=None):
    """The registry's model names, in its order."""
    return [m["name"] for m in (reg or load())["models"]]


def entry(name=None, reg=None):
    """A model's registry entry ({name, weights, config, manifest}; paths the repository's), the
    default model's when name is None; None for a name the registry does not list."""
    reg = reg or load()
    name = name or reg["default"]
    return next((m for m in reg["models"] if m["name"] == name), None)
