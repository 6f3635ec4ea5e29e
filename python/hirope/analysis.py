"""Code analysis: tree-sitter parse, tokens and hierarchical positions (hr.analyze)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional, Union

import numpy as np

from . import _hirope
from .tokenizers import Tokenizer, load_tokenizer

HiRoPEError = _hirope.HiRoPEError


@dataclass(frozen=True)
class Unit:
    """A top-level function/class unit (or gap code, or a fixed segment).

    start/end are byte offsets into the UTF-8 text (start_utf16/end_utf16: UTF-16 code units, as
    the JS API's start/end); tokens is the range of token indices in it, statements the range of
    statement indices its tokens carry."""

    index: int
    kind: str  # 'function', 'class', 'code' or 'segment'
    name: str
    node_type: str
    language_kind: str
    start: int
    end: int
    start_utf16: int
    end_utf16: int
    tokens: range
    statements: range


@dataclass(frozen=True)
class ErrorRegion:
    """A syntax error in the tree: byte offsets (and UTF-16 ones); missing: a MISSING node."""

    start: int
    end: int
    start_utf16: int
    end_utf16: int
    missing: bool


@dataclass(frozen=True, eq=False)
class Analysis:
    """The result of analyze(): one entry per token in ids, starts, ends, token, unit, statement.

    starts/ends are byte offsets into the UTF-8 encoding of the text (uint32); starts_utf16 and
    ends_utf16 the same in UTF-16 code units (the JS API's tokens.start/end). token, unit and
    statement are the hierarchical positions (int32), ready for attention(positions=...)."""

    language: str
    tokenizer: str
    ids: np.ndarray
    starts: np.ndarray
    ends: np.ndarray
    starts_utf16: np.ndarray
    ends_utf16: np.ndarray
    token: np.ndarray
    unit: np.ndarray
    statement: np.ndarray
    units: List[Unit]
    errors: List[ErrorRegion]
    statements: int
    source: Union[str, bytes] = field(repr=False)

    @property
    def text(self) -> bytes:
        """The analysed text as UTF-8 bytes (what starts and ends index)."""
        return self.source if isinstance(self.source, bytes) else self.source.encode("utf-8")

    @property
    def has_error(self) -> bool:
        """Whether the syntax tree has errors (a partial parse still gives positions)."""
        return bool(self.errors)

    @property
    def positions(self) -> Dict[str, np.ndarray]:
        """{'token', 'unit', 'statement'} for attention(), rotate(), relative_distances()."""
        return {"token": self.token, "unit": self.unit, "statement": self.statement}

    @property
    def texts(self) -> List[str]:
        """Each token's text (a token inside a character reads as U+FFFD)."""
        b = self.text  # encoded once per call, not per analysis: most callers never ask
        return [
            b[s:e].decode("utf-8", errors="replace")
            for s, e in zip(self.starts.tolist(), self.ends.tolist())
        ]

    def __len__(self) -> int:
        return int(self.ids.shape[0])


def _units(raw: List[dict]) -> List[Unit]:
    # tokens and statements are ranges the core computes (JS units carry the same).
    return [Unit(index=index, **u) for index, u in enumerate(raw)]


def detect_language(filename: str) -> Optional[str]:
    """The language of a file name by its extension, or None."""
    if not isinstance(filename, str):
        raise HiRoPEError(f"filename must be a string, got {filename!r}")
    # A file name's undecodable bytes are lone surrogates in Python (surrogateescape), which no
    # UTF-8 string can hold; the extension, all that is read, encodes either way.
    return _hirope.detect_language(filename.encode("utf-8", "surrogatepass")) or None


def _tokenizer(tokenizer) -> Optional[_hirope.Tokenizer]:
    if tokenizer is None or tokenizer == "lexical":
        return None
    return load_tokenizer(tokenizer)._native


def analyze(
    code: Union[str, bytes],
    language: Optional[str] = None,
    filename: Optional[str] = None,
    tokenizer: Union[str, Tokenizer, None] = "lexical",
    hierarchy: str = "units",
    segment_size: int = 128,
    gap: str = "own",
    descend_classes: bool = False,
    timeout_ms: Optional[float] = None,
) -> Analysis:
    """Parses code with tree-sitter, tokenizes it and gives every token its hierarchical position
    (hr.analyze). language: one of hirope.languages, or detected from filename's extension.
    tokenizer: 'lexical' (syntax-tree leaves, the default), a built-in name, a tokenizer.json path
    or a Tokenizer. hierarchy 'units' (top-level functions/classes) or 'segments' (unit = token //
    segment_size). gap: where top-level code between definitions goes ('own', 'next',
    'previous'). timeout_ms: the parse's budget (None: 10 s + 1 s per MB; 0: no limit).
    Offsets in the result are bytes of the UTF-8 text. The GIL is released while it runs."""
    if language is None and filename is not None:
        language = detect_language(filename)
        if not language:
            raise HiRoPEError(
                f"cannot detect the language of {filename!r} (known: "
                f"{', '.join(_hirope.languages())}); pass language"
            )
    if language is None:
        raise HiRoPEError("language (or filename) is required")
    native = _tokenizer(tokenizer)
    r = _hirope.analyze(
        code, language, native, gap, descend_classes, hierarchy, segment_size, timeout_ms
    )
    return Analysis(
        language=r["language"],
        tokenizer=r["tokenizer"],
        ids=r["ids"],
        starts=r["starts"],
        ends=r["ends"],
        starts_utf16=r["starts_utf16"],
        ends_utf16=r["ends_utf16"],
        token=r["token"],
        unit=r["unit"],
        statement=r["statement"],
        units=_units(r["units"]),
        errors=[ErrorRegion(**e) for e in r["errors"]],
        statements=r["statements"],
        source=code,
    )


def parse(code: Union[str, bytes], language: str, timeout_ms: Optional[float] = None) -> bool:
    """Parses code and nothing more: whether the tree has syntax errors."""
    return _hirope.parse(code, language, timeout_ms)
