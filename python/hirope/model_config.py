"""Real models' configs: a Hugging Face config.json read by the core into a model setup.

The reader is the C++ core's (src/model_config): this module only turns what it is given into
text. The setup is the dict hr.fromConfig returns in JS, with the same keys (camelCase, as the
scheme dicts that every call here takes and normalize_scheme returns)::

    setup = hirope.from_config("config.json")
    layer = setup["layers"][0]
    hirope.inverse_frequencies(layer["scheme"], layer["headDim"])

See docs/real-models.md for what each key means and where its rule comes from.
"""

import json
import os
from typing import Any, Dict, Union

from . import _hirope
from ._hirope import HiRoPEError
from ._data import read_file

__all__ = ["from_config"]


#: The largest config.json read, in bytes (the core's ModelConfigLimits().max_bytes).
_MAX_BYTES = _hirope.hf_config_max_bytes()


def _plain(value: Any) -> Any:
    """A numpy scalar (np.int64, np.float32, np.bool_: what a config built with numpy holds) as
    the Python number it is; anything else JSON cannot hold raises TypeError."""
    if type(value).__module__ == "numpy" and hasattr(value, "item") and getattr(value, "ndim", 1) == 0:
        return value.item()
    raise TypeError(type(value).__name__)


def _bad_key(config: Dict[str, Any]) -> str:
    """Where in the dict the first value JSON cannot hold is (a dotted path, list items as
    [i]) and what it is. Iterative: a deep dict is walked without recursion."""
    stack = [("", config)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, dict):
            stack.extend((f"{path}.{k}" if path else str(k), v)
                         for k, v in reversed(list(value.items())))
        elif isinstance(value, (list, tuple)):
            stack.extend((f"{path}[{i}]", v) for i, v in reversed(list(enumerate(value))))
        else:
            try:
                json.dumps(value, allow_nan=False, default=_plain)
            except (TypeError, ValueError):
                return f"{path} is {value!r}" if path else f"the config is {value!r}"
    return "a value is not JSON"


def _object_text(config: Dict[str, Any]) -> str:
    """A dict written as JSON, stopping as soon as its text outgrows the limit. numpy scalars are
    their numbers; a value JSON cannot hold (NaN, infinity, an object) is an error naming its key."""
    parts, size = [], 0
    try:
        for chunk in json.JSONEncoder(allow_nan=False, default=_plain).iterencode(config):
            size += len(chunk)
            if size > _MAX_BYTES:
                raise HiRoPEError(f"config is over the limit of {_MAX_BYTES} bytes as JSON")
            parts.append(chunk)
    except RecursionError:
        raise HiRoPEError("config could not be written as JSON: it nests too deeply") from None
    except (TypeError, ValueError) as e:
        if isinstance(e, HiRoPEError):
            raise
        raise HiRoPEError(
            f"config could not be written as JSON: {_bad_key(config)} (a config holds finite "
            "numbers, strings, booleans, null, lists and objects)") from None
    return "".join(parts)


def _file_text(path: Union[str, "os.PathLike[str]"]) -> bytes:
    """A config file's bytes: a regular file, its size checked before it is read."""
    return read_file(os.fspath(path), _MAX_BYTES, "config file")


def from_config(config: Union[Dict[str, Any], str, bytes, "os.PathLike[str]"]) -> Dict[str, Any]:
    """A Hugging Face config.json as a model setup (hr.fromConfig in JS).

    ``config`` is the parsed dict, the file's text (a str whose first non-blank character is
    ``{``, or bytes of UTF-8), or a path to the file (any other str, or an os.PathLike).

    Returns ``{modelType, headDim, rotaryDim, layout, layoutSource, trainedLength, maxLength,
    scaledAfterTraining, layerCount, layers, dualChunk?, warnings}``; each layer is ``{type,
    attention: {type: 'full' | 'sliding' | 'chunked', window?, chunkSize?}, rope, scheme,
    headDim, sinks, temperature?: {floorScale, scale, offset}}``. ``warnings`` lists keys read but not modelled.
    A malformed config raises HiRoPEError naming the key.
    """
    if isinstance(config, dict):
        text: Union[str, bytes] = _object_text(config)
    elif isinstance(config, bytes):
        text = config
    elif isinstance(config, str) and config.lstrip().startswith("{"):
        text = config
    elif isinstance(config, (str, os.PathLike)):
        text = _file_text(config)
    else:
        raise HiRoPEError(
            "config must be a dict, the text of a config.json, or a path to one, got "
            f"{type(config).__name__}")
    return _hirope.hf_config(text)
