"""Where the package's data files are: the built-in tokenizers' vocabularies and the shipped
code models, listed by data/manifest.json (written at build time by tools/write-python-manifest.mjs
from models/registry.json, the one list both APIs read)."""

from __future__ import annotations

import json
import os
from functools import lru_cache
from typing import Any, Dict, Optional

from . import _hirope
from ._files import Unreadable, read_regular

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


def read_file(path: str, limit: Optional[int], what: str) -> bytes:
    """The bytes of the regular file at path, at most limit of them (_files.read_regular), or a
    HiRoPEError naming `what` and saying why not."""
    try:
        return read_regular(path, limit)
    except Unreadable as u:
        if u.reason == "size":
            size = "" if u.detail is None else f"{u.detail} bytes, "
            message = f"{what} {path!r} is {size}over the limit of {limit} bytes"
        elif u.reason == "kind":
            message = f"cannot read {what} {path!r}: it is not a regular file ({u.detail})"
        else:
            message = f"cannot read {what} {path!r}: {u.detail}"
        raise _hirope.HiRoPEError(message) from None
