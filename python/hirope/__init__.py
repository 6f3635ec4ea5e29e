"""hirope: position encodings (RoPE, HiRoPE and their relatives) applied to attention on code.

The native Python binding of hirope's C++ core (pybind11, beside the WebAssembly one): the same
schemes, tokenizers, code analysis and code models as the npm package, with its words::

    import hirope
    tok = hirope.load_tokenizer("cl100k")
    a = hirope.analyze(open("x.py").read(), filename="x.py", tokenizer=tok)
    q = k = np.ones((len(a), 64), np.float32)
    p = hirope.attention(q, k, positions=a, scheme={"type": "hirope", "ratio": 0.5, "window": 3})

Errors are HiRoPEError (a ValueError) carrying the core's message. Calls that take time release
the GIL. Offsets are bytes of the UTF-8 text.
"""

import importlib.abc
import sys

from . import _hirope
from ._hirope import HiRoPEError
from .analysis import Analysis, ErrorRegion, Unit, analyze, detect_language, parse
from .attention import (
    attention,
    attention_factor,
    bands,
    inverse_frequencies,
    normalize_scheme,
    qk,
    relative_distances,
    rotate,
    unseen_pairs,
)
from .model import Loss, Model
from .model_config import from_config
from .tokenizers import Tokenizer, load_tokenizer
from ._data import manifest as _manifest

__all__ = [
    "HiRoPEError", "Analysis", "ErrorRegion", "Unit", "analyze", "detect_language", "parse",
    "attention", "attention_factor", "bands", "inverse_frequencies", "normalize_scheme", "qk",
    "relative_distances", "rotate", "unseen_pairs", "Loss", "Model", "from_config", "Tokenizer",
    "load_tokenizer", "catalogue", "schemes", "scalings", "languages", "tokenizer_names", "models",
    "limits", "kernel", "__version__",
]

#: The package's version: package.json's, the npm package's (one number for both bindings).
__version__: str = _manifest()["version"]

#: The core's scheme table (the JS API's hr.catalogue): schemes, scalings, their parameters
#: (name, kind, default, range, description), value lists, default rules, languages.
catalogue = _hirope.catalogue()
#: The scheme type names every function accepts.
schemes = [s["name"] for s in catalogue["schemes"]]
#: The RoPE scaling names (and aliases) accepted in scheme['scaling']['type'].
scalings = [n for s in catalogue["scalings"] for n in [s["name"], *s["aliases"]]]
#: Languages analyze() parses.
languages = [l["name"] for l in catalogue["languages"]]
#: Tokenizer names: 'lexical' (syntax-tree leaves) and the built-in vocabularies. (Named so that
#: hirope.tokenizers stays the module: ``import hirope.tokenizers as T``.)
tokenizer_names = ["lexical", *_manifest()["tokenizers"]]
#: The shipped code models (Model.load(name)); the first is the default.
models = list(_manifest()["models"])
#: Size limits, checked before any allocation.
limits = {**_hirope.limits(), **{f"analysis_{k}": v for k, v in _hirope.analysis_limits().items()},
          **{f"model_{k}": v for k, v in _hirope.model_limits().items()}}
#: The vector kernels compiled in ('sse2' or 'scalar').
kernel = _hirope.kernel_name()


class _RenamedModules(importlib.abc.MetaPathFinder):
    """``import hirope.dask`` (the module's name before issue 41) fails saying what it is now.

    A finder rather than a hirope/dask.py that raises: no module of that name sits inside the
    package, which is why it was renamed (it shadowed the dask package). Consulted last, so it
    answers only names nothing else finds.
    """

    RENAMED = {"hirope.dask": "hirope.corpus"}

    def find_spec(self, fullname, path=None, target=None):
        new = self.RENAMED.get(fullname)
        if new is None:
            return None
        # No name= on the error: `from hirope import dask` passes over a ModuleNotFoundError
        # that names the submodule and says only "cannot import name".
        raise ModuleNotFoundError(
            f"No module named {fullname!r}: it is {new!r} now (renamed, with the same functions, "
            f"errors, shards and command: import {new})"
        )


if not any(isinstance(finder, _RenamedModules) for finder in sys.meta_path):
    sys.meta_path.append(_RenamedModules())
