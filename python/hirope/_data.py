"""Where the package's data files are: the built-in tokenizers' vocabularies and the shipped
code models, listed by data/manifest.json (written at build time by tools/write-python-manifest.mjs
from models/registry.json, the one list both APIs read)."""

from __future__ import annotations

import json
import os
from functools import lru_cache
from typing import Any, Dict

from . import _hirope

DATA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")


@lru_cache(maxsize=None)
def manifest() -> Dict[str, Any]:
    path = os.path.join(DATA_DIR, "manifest.json")
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except OSError as e:
        raise _hirope.HiRoPEError(
            f"the package's data manifest is missing ({path}): build the package with "
            f"`npm run build` (scripts/build.sh): {e}"
        ) from None


def quoted(names) -> str:
    return ", ".join(f"'{n}'" for n in names)


def read_file(path: str, limit: int, what: str) -> bytes:
    """The bytes of a file, its size checked against limit before it is read."""
    try:
        size = os.path.getsize(path)
    except OSError as e:
        raise _hirope.HiRoPEError(f"cannot read {what} {path!r}: {e.strerror}") from None
    if size > limit:
        raise _hirope.HiRoPEError(
            f"{what} {path!r} is {size} bytes, over the limit of {limit} bytes"
        )
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        raise _hirope.HiRoPEError(f"cannot read {what} {path!r}: {e.strerror}") from None
