"""Tokenizers: the built-in vocabularies (the npm package's data files) and tokenizer.json files."""

from __future__ import annotations

import os
import threading
from typing import Dict, List, Sequence, Tuple, Union

import numpy as np

from . import _hirope
from ._data import DATA_DIR, manifest, quoted, read_file

HiRoPEError = _hirope.HiRoPEError


class Tokenizer:
    """A loaded vocabulary. Immutable: threads may share it (each call releases the GIL)."""

    __slots__ = ("_native",)

    def __init__(self, native: "_hirope.Tokenizer"):
        self._native = native

    @property
    def name(self) -> str:
        """'cl100k', 'llama3', ... or 'json-' + 16 hex digits for a tokenizer.json of your own."""
        return self._native.name

    @property
    def size(self) -> int:
        """Number of ids (the largest id + 1)."""
        return self._native.size

    def encode(self, text: Union[str, bytes], *, special_tokens: bool = False) -> np.ndarray:
        """Token ids of text (a str, or bytes of UTF-8) as an int32 array. No special tokens are
        added (no <|begin_of_text|> or <s> in front).

        Text is text: by default a special token's marker in the text (``<|endoftext|>``,
        ``<|eot_id|>``, ``<|im_end|>``, ``<eos>``, llama2's ``<s>``) is encoded as the ordinary
        text it is, as tiktoken's ``encode_ordinary``, so code that mentions a marker never gets
        a control token in the middle. ``special_tokens=True`` makes each marker its special
        token's id, as Hugging Face tokenizers encode by default. The special tokens are a
        tokenizer.json's added tokens with ``"special": true`` (its other added tokens, such as
        Qwen 3's ``<think>``, are matched either way, as Hugging Face does), tiktoken's for cl100k
        and o200k, and ``<unk>``, ``<s>``, ``</s>`` for llama2."""
        return self._native.encode(text, special_tokens=special_tokens)

    def encode_offsets(
        self, text: Union[str, bytes], *, special_tokens: bool = False
    ) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(ids, starts, ends): ids as int32, starts/ends as uint32 byte offsets into the UTF-8
        text. ``special_tokens`` as for encode()."""
        return self._native.encode_offsets(text, special_tokens=special_tokens)

    def encode_batch(
        self, texts: Sequence[Union[str, bytes]], *, special_tokens: bool = False
    ) -> List[np.ndarray]:
        """encode() of each text, in one call with the GIL released (sequentially: parallelise by
        calling from several threads). ``texts`` is a list (or any iterable) of str or bytes;
        ``special_tokens`` as for encode()."""
        return self._native.encode_batch(texts, special_tokens=special_tokens)

    def decode(self, ids) -> str:
        """The text of token ids: their bytes concatenated, read as UTF-8 (a sequence that is not
        UTF-8, such as a token boundary inside a character, reads as U+FFFD)."""
        return self._native.decode_bytes(ids).decode("utf-8", errors="replace")

    def decode_bytes(self, ids) -> bytes:
        """The bytes of token ids, concatenated."""
        return self._native.decode_bytes(ids)

    def __repr__(self) -> str:
        return f"<hirope.Tokenizer {self.name!r} ({self.size} ids)>"


_cache: Dict[str, Tokenizer] = {}
_lock = threading.Lock()


def builtin_tokenizers() -> List[str]:
    """The built-in tokenizers' names (hr.tokenizers without 'lexical')."""
    return list(manifest()["tokenizers"])


def load_tokenizer(name_or_path: Union[str, "os.PathLike[str]", Tokenizer]) -> Tokenizer:
    """A built-in tokenizer by name (``hirope.tokenizer_names``: 'cl100k', 'o200k', 'llama2',
    'llama3', 'qwen3', 'deepseek-v3', 'gemma3'), or a Hugging Face tokenizer.json (or a hirope
    .bin vocabulary) by path. Loaded once and cached; a tokenizer.json is named 'json-' followed by
    16 hex digits hashing its bytes, as the JS API names it."""
    if isinstance(name_or_path, Tokenizer):
        return name_or_path
    files = manifest()["tokenizers"]
    if isinstance(name_or_path, str) and name_or_path in files:
        name = name_or_path
        with _lock:
            if name in _cache:
                return _cache[name]
        file = files[name]
        path = os.path.join(DATA_DIR, file)
        if file.endswith(".json"):
            data = read_file(path, manifest()["maxTokenizerJsonBytes"], f"the '{name}' tokenizer data")
            native = _hirope.Tokenizer.from_json(data, name)
        else:
            data = read_file(path, 1 << 30, f"the '{name}' tokenizer data")
            native = _hirope.Tokenizer.from_data(data)
        with _lock:
            return _cache.setdefault(name, Tokenizer(native))
    if name_or_path == "lexical":
        raise HiRoPEError(
            "'lexical' has no vocabulary to load: its tokens are the syntax tree's leaves, from "
            "analyze(code, tokenizer='lexical')"
        )
    if isinstance(name_or_path, (str, os.PathLike)) and os.path.exists(name_or_path):
        path = os.fspath(name_or_path)
        limit = manifest()["maxTokenizerJsonBytes"]
        data = read_file(path, limit, "tokenizer file")
        if path.endswith(".bin"):
            native = _hirope.Tokenizer.from_data(data)
            return Tokenizer(native)
        name = "json-" + _hirope.tokenizer_hash(data)
        with _lock:
            if name in _cache:
                return _cache[name]
        native = _hirope.Tokenizer.from_json(data, name)
        with _lock:
            return _cache.setdefault(name, Tokenizer(native))
    if isinstance(name_or_path, (str, os.PathLike)) and (
        os.sep in os.fspath(name_or_path) or os.fspath(name_or_path).endswith((".json", ".bin"))
    ):
        raise HiRoPEError(f"cannot read tokenizer file {os.fspath(name_or_path)!r}: no such file")
    raise HiRoPEError(
        f"tokenizer must be one of {quoted(['lexical'] + list(files))} or a path to a "
        f"tokenizer.json, got {name_or_path!r}"
    )
