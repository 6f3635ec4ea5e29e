"""hirope's code models (hr.model): a byte-level model and a token model, run in C++ with any
position scheme applied at inference. The model's scheme defaults are wasm/model.js's."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Union

import numpy as np

from . import _hirope
from ._data import DATA_DIR, manifest, quoted, read_file
from .tokenizers import load_tokenizer

HiRoPEError = _hirope.HiRoPEError


def model_names() -> List[str]:
    """The shipped models' names; the first is the default."""
    return list(manifest()["models"])


@dataclass(frozen=True, eq=False)
class Loss:
    """Model.loss()'s result. losses[t]: the loss in bits of byte (token) t + 1 given 0..t
    (n - 1 float32 values). bits_per_byte: their mean for a byte model; for a token model their
    sum over the bytes of tokens 1..n-1 (text input), with bits_per_token their mean. tokens: a
    token model's {'ids', 'starts', 'ends'} (byte offsets into the UTF-8 text), else None."""

    losses: np.ndarray
    bits_per_byte: float
    bits_per_token: Optional[float]
    n: int
    positions: Dict[str, np.ndarray]
    tokens: Optional[Dict[str, np.ndarray]]


@dataclass(frozen=True, eq=False)
class Attention:
    """Model.attention()'s result: matrix[i, j] is the probability with which query i attends to
    key j in one layer and head ((n, n) float32, 0 where j > i); n bytes (tokens); positions
    {'token', 'unit', 'statement'}; tokens: a token model's {'ids', 'starts', 'ends'} of a text,
    else None."""

    matrix: np.ndarray
    n: int
    positions: Dict[str, np.ndarray]
    tokens: Optional[Dict[str, np.ndarray]]


def _integer(value, name: str, lo: int, hi: int) -> int:
    # The binding's reading of integers (numpy integers too; past 64 bits a HiRoPEError).
    return _hirope.as_integer(value, name, lo, hi, f"an integer in [{lo}, {hi}]")


class Model:
    """A loaded code model: Model.load() (the default 'pybyte'), Model.load('pyjs-llama2') or
    Model.load(path). Immutable after loading: threads may share it."""

    def __init__(self, handle: "_hirope.ModelHandle", tokenizer=None):
        self._handle = handle
        #: {name, version, vocab, d_model, layers, heads, head_dim, ffn_hidden, training_context,
        #: rope_base, norm_eps, parameters, tokenizer}; a checkpoint's also kv_heads,
        #: weight_bytes, model_type, setup (its per-layer setup as JSON) and warnings.
        self.config: Dict[str, Any] = handle.config
        #: Whether this is a Hugging Face checkpoint (Model.from_pretrained).
        self.checkpoint: bool = "model_type" in self.config
        #: The tokenizer whose ids this model reads ('llama2', a checkpoint's tokenizer.json), or
        #: None (bytes; a checkpoint without tokenizer.json takes ids only).
        self.tokenizer: Optional[str] = self.config["tokenizer"]
        self._tokenizer = load_tokenizer(self.tokenizer)._native if self.tokenizer else None
        if tokenizer is not None:
            self.tokenizer = tokenizer.name
            self._tokenizer = tokenizer._native
        limits = _hirope.model_limits()
        #: Bytes (tokens) one call accepts.
        self.max_input_bytes: int = limits["max_input_bytes"]
        self._max_source = _hirope.analysis_limits()["max_bytes"]

    @classmethod
    def load(cls, path_or_name: Union[str, "os.PathLike[str]", None] = None) -> "Model":
        """A shipped model by name (hirope.models: 'pybyte', the default, or 'pyjs-llama2') or a
        weights file (.hrm) by path. A truncated, corrupted or other-version file is a
        HiRoPEError. A token model loads its tokenizer too."""
        files = manifest()["models"]
        if path_or_name is None:
            path_or_name = manifest()["defaultModel"]
        if isinstance(path_or_name, str) and path_or_name in files:
            path = os.path.join(DATA_DIR, files[path_or_name])
        elif isinstance(path_or_name, (str, os.PathLike)) and (
            os.path.exists(path_or_name) or os.sep in os.fspath(path_or_name)
            or os.fspath(path_or_name).endswith(".hrm")
        ):
            path = os.fspath(path_or_name)
        else:
            raise HiRoPEError(
                f"model must be {quoted(files)} or a path to a weights file (.hrm), got "
                f"{path_or_name!r}"
            )
        limit = _hirope.model_limits()["max_file_bytes"]
        data = read_file(path, limit, "model file")
        config = _hirope.model_config(data)
        tok = config["tokenizer"]
        if tok is not None:
            if tok not in manifest()["tokenizers"]:
                raise HiRoPEError(
                    f"the model reads '{tok}' tokens, which is not one of hirope's tokenizers "
                    f"({quoted(manifest()['tokenizers'])})"
                )
            size = load_tokenizer(tok).size
            if config["vocab"] < size:
                raise HiRoPEError(
                    f"the model's vocabulary of {config['vocab']} is smaller than the '{tok}' "
                    f"tokenizer's {size} ids"
                )
        return cls(_hirope.ModelHandle.load(data))

    @classmethod
    def from_pretrained(cls, folder: Union[str, "os.PathLike[str]"]) -> "Model":
        """A Hugging Face checkpoint folder: config.json, model.safetensors (or its shards with
        model.safetensors.index.json) and, for text input, tokenizer.json. Architectures llama,
        mistral, qwen2, qwen3, gemma2, gemma3_text, phi3 and starcoder2 (F32, F16, BF16). Every
        header is checked before a tensor is read; a file that does not fit is a HiRoPEError.
        Its calls take scheme=None (the default: each layer's own positions, as its config
        sets them) or a scheme put on every RoPE layer; inputs are text (tokenized by
        tokenizer.json) or an int array of ids. The GIL is released while it loads."""
        path = os.fspath(folder)
        if not os.path.isdir(path):
            raise HiRoPEError(f"folder must be a checkpoint folder, got {path!r} (not a folder)")
        handle = _hirope.ModelHandle.from_pretrained(path)
        tokenizer_json = os.path.join(path, "tokenizer.json")
        tokenizer = load_tokenizer(tokenizer_json) if os.path.isfile(tokenizer_json) else None
        return cls(handle, tokenizer)

    # -- schemes (wasm/model.js CodeModel.scheme and _baseline) ---------------------------------

    def scheme(self, scheme: Union[str, Mapping[str, Any]] = "rope") -> Dict[str, Any]:
        """The scheme with the model's defaults filled in: base and layout of its training RoPE,
        trainingLength and scaling.originalLength = its training context, window = half of it.
        The baselines 'sliding-window' ({'window'}) and 'truncate' ({'length', 'stride'}) default
        to the training context (stride length // 8, the core's truncate_stride) and run the
        training RoPE: then a dict {name, window | length, stride, rope, limit}."""
        baseline = self._baseline(scheme)
        if baseline:
            return baseline
        if isinstance(scheme, str):
            s: Dict[str, Any] = {"type": scheme}
        elif isinstance(scheme, Mapping):
            s = dict(scheme)
        else:
            raise HiRoPEError(f"scheme must be a dict such as {{'type': 'hirope'}}, got {scheme!r}")
        # The model's defaults where the user left a key out (the core's model_scheme_defaults).
        sc = s.get("scaling")
        scaling = (sc.get("type", "none") if isinstance(sc, Mapping) and "originalLength" not in sc
                   else None)
        for key, value in self._handle.scheme_defaults(s.get("type"), scaling):
            if key == "scaling.originalLength":
                s["scaling"] = {**sc, "originalLength": value}
            elif key not in s:
                s[key] = value
        _hirope.normalize_scheme(s)  # checks keys and kinds now
        return s

    def _baseline(self, scheme) -> Optional[Dict[str, Any]]:
        names = [x["name"] for x in _catalogue()["contextLimits"] if x["name"] != "none"]
        kind = scheme if isinstance(scheme, str) else scheme.get("type") if isinstance(scheme, Mapping) else None
        if kind not in names:
            return None
        keys = ["type", "length", "stride"] if kind == "truncate" else ["type", "window"]
        o = {"type": kind} if isinstance(scheme, str) else dict(scheme)
        for key in o:
            if key not in keys:
                raise HiRoPEError(
                    f"scheme (type '{kind}') options has an unknown key {key!r} (known keys: "
                    f"{', '.join(keys)})"
                )
        size = "length" if kind == "truncate" else "window"
        # The defaults and ranges are the core's (model_baseline).
        length, stride = self._handle.baseline(kind, self.max_input_bytes, o.get(size, ...),
                                               o.get("stride", ...))
        rope = self.scheme({"type": "rope"})
        out = {"name": kind, "rope": rope, "limit": (kind, length, stride)}
        if kind == "truncate":
            out.update(length=length, stride=stride)
        else:
            out["window"] = length
        return out

    def _plan(self, scheme):
        if scheme is None or scheme == "model":
            # The model's own positions: a checkpoint's per-layer setup, RoPE for hirope's.
            if self.checkpoint or scheme == "model":
                return None, ("none", 0, 1)
            scheme = "rope"
        s = self.scheme(scheme)
        if "limit" in s and "rope" in s and s.get("name") in ("truncate", "sliding-window"):
            # A baseline runs the model's own positions: a checkpoint's per layer, else RoPE.
            return (None if self.checkpoint else s["rope"]), s["limit"]
        return s, ("none", 0, 1)

    def _hierarchy(self, scheme, hierarchy, language, gap, descend_classes, segment_size):
        seg = scheme.get("segmentSize") if isinstance(scheme, Mapping) else None
        level = hierarchy if hierarchy is not None else ("segments" if seg else "units")
        if segment_size is None:
            segment_size = seg or 32
        descend_classes = _hirope.as_boolean(descend_classes, "descend_classes")
        return level, language, gap, descend_classes, segment_size

    def _text(self, code, name: str, limit: int) -> bytes:
        if isinstance(code, str):
            if len(code) > limit and limit != self.max_input_bytes:
                # A character is at least one byte: over without encoding it.
                raise HiRoPEError(
                    f"{name} has {len(code):,} characters, over the limit of {limit:,} bytes of UTF-8"
                    " (a character is one byte or more)"
                )
            try:
                data = code.encode("utf-8")
            except UnicodeEncodeError:
                raise HiRoPEError(f"{name} is not encodable as UTF-8 (it holds a lone surrogate)") from None
        elif isinstance(code, (bytes, bytearray)):
            data = bytes(code)
        else:
            raise HiRoPEError(f"{name} must be a str or bytes, got {type(code).__name__}")
        if len(data) > limit:
            whose = "the model's" if limit == self.max_input_bytes else "the analysis's"
            raise HiRoPEError(f"{name} is {len(data):,} bytes; {whose} limit is {limit:,}")
        return data

    # -- calls ---------------------------------------------------------------------------------

    def positions(self, code, hierarchy=None, language="python", gap="own",
                  descend_classes=False, segment_size=None) -> Dict[str, np.ndarray]:
        """Byte positions {'token', 'unit', 'statement'} for a hierarchy (a token model's per
        token, with 'ids', 'starts', 'ends')."""
        h = self._hierarchy(None, hierarchy, language, gap, descend_classes, segment_size)
        data = self._text(code, "code", self._max_source)
        return self._handle.positions(data, self._tokenizer, *h)

    def loss(
        self,
        code: Union[str, bytes, np.ndarray],
        scheme: Union[str, Mapping[str, Any], None] = None,
        hierarchy: Optional[str] = None,
        language: str = "python",
        segment_size: Optional[int] = None,
        gap: str = "own",
        descend_classes: bool = False,
        positions: Optional[Mapping[str, Any]] = None,
    ) -> Loss:
        """Per-byte (a token model: per-token) losses in bits under a scheme (hr.model.loss).
        hierarchy: 'units', 'statements' or 'segments' (default: 'segments' when the scheme has a
        segmentSize, else 'units'), parsed as language. A token model also takes an int array of
        its token ids (with positions {'unit', 'statement'} from positions(), or segments).
        The GIL is released while it runs."""
        losses, n, position_arrays, tokens = self._forward(
            "losses", code, scheme, hierarchy, language, segment_size, gap, descend_classes,
            positions)
        total = float(np.sum(losses, dtype=np.float64))
        mean = total / losses.shape[0] if losses.shape[0] else float("nan")
        if not self.tokenizer and not self.checkpoint:
            return Loss(losses, mean, None, n, position_arrays, None)
        if tokens is None:  # ids in: no bytes to count
            return Loss(losses, float("nan"), mean, n, position_arrays, None)
        nbytes = int(tokens["ends"][n - 1]) - int(tokens["starts"][1]) if n > 1 else 0
        bpb = total / nbytes if nbytes > 0 else float("nan")
        return Loss(losses, bpb, mean, n, position_arrays, tokens)

    def logits(
        self,
        code: Union[str, bytes, np.ndarray],
        scheme: Union[str, Mapping[str, Any], None] = None,
        hierarchy: Optional[str] = None,
        language: str = "python",
        segment_size: Optional[int] = None,
        gap: str = "own",
        descend_classes: bool = False,
        positions: Optional[Mapping[str, Any]] = None,
    ) -> np.ndarray:
        """Next-byte (a token model: next-token) logits under a scheme (hr.model.logits): a float32
        array of shape (n, vocab) whose row t predicts byte (token) t + 1. Takes what loss()
        takes. The GIL is released while it runs."""
        return self._forward("logits", code, scheme, hierarchy, language, segment_size, gap,
                             descend_classes, positions)[0]

    def attention(
        self,
        code: Union[str, bytes, np.ndarray],
        scheme: Union[str, Mapping[str, Any], None] = None,
        layer: int = 0,
        head: int = 0,
        hierarchy: Optional[str] = None,
        language: str = "python",
        segment_size: Optional[int] = None,
        gap: str = "own",
        descend_classes: bool = False,
    ) -> Attention:
        """The model's own attention probabilities for one layer and head under a scheme
        (hr.model.attention): an Attention with matrix (n, n) float32, rows the queries (causal:
        0 above the diagonal), n, positions, and a token model's tokens of a text. The GIL is
        released while it runs."""
        layer = _integer(layer, "layer", 0, self.config["layers"] - 1)
        head = _integer(head, "head", 0, self.config["heads"] - 1)
        matrix, n, position_arrays, tokens = self._forward(
            "attention", code, scheme, hierarchy, language, segment_size, gap, descend_classes,
            None, layer, head)
        return Attention(matrix, n, position_arrays, tokens)

    def attention_all(
        self,
        code: Union[str, bytes, np.ndarray],
        scheme: Union[str, Mapping[str, Any], None] = None,
        hierarchy: Optional[str] = None,
        language: str = "python",
        segment_size: Optional[int] = None,
        gap: str = "own",
        descend_classes: bool = False,
        positions: Optional[Mapping[str, Any]] = None,
    ) -> np.ndarray:
        """Every layer's and head's attention probabilities from one forward (hr.model.attentionAll):
        float32 of shape (layers, heads, n, n). No baseline scheme. The GIL is released while it
        runs."""
        return self._forward("attention_all", code, scheme, hierarchy, language, segment_size, gap,
                             descend_classes, positions)[0]

    def _forward(self, output, code, scheme, hierarchy, language, segment_size, gap,
                 descend_classes, positions, layer=0, head=0):
        """One forward pass (wasm/model.js _forward and _input): (the output array, n, positions
        {'token', 'unit', 'statement'}, a token model's tokens of a text or None)."""
        core, limit = self._plan(scheme)
        h = self._hierarchy(scheme, hierarchy, language, gap, descend_classes, segment_size)
        tokens = None
        if self.checkpoint and not self.tokenizer and not isinstance(code, np.ndarray):
            raise HiRoPEError("this checkpoint folder has no tokenizer.json: pass token ids (an "
                              "int array)")
        if (self.tokenizer or self.checkpoint) and isinstance(code, np.ndarray):
            # A token model's ids (a window of model.positions(text)'s tokens), as wasm/model.js
            # takes an Int32Array: positions given, or segments of segment_size tokens.
            if code.ndim != 1 or code.dtype.kind not in "iu":
                raise HiRoPEError(f"code must be a str, bytes or a 1-D array of token ids, got "
                                  f"an array of {code.dtype} with shape {code.shape}")
            if code.shape[0] > self.max_input_bytes:
                raise HiRoPEError(
                    f"code is {code.shape[0]} tokens; the model's limit is {self.max_input_bytes}"
                )
            ids = np.ascontiguousarray(code, dtype=np.int32)
            n = int(ids.shape[0])
            kind = scheme if isinstance(scheme, str) else scheme.get("type") if isinstance(scheme, Mapping) else None
            if positions is None:
                if h[0] != "segments" and kind == "hirope":
                    raise HiRoPEError("token ids carry no parse: pass positions (from "
                                      "model.positions(text)) or use hierarchy 'segments'")
                unit = (np.arange(n) // h[4]).astype(np.int32)
                pos = {"unit": unit, "statement": unit.copy()}
        elif not self.tokenizer:
            data = self._text(code, "code", self.max_input_bytes)
            ids = np.frombuffer(data, dtype=np.uint8).astype(np.int32)
            pos = None if positions is not None else self._handle.positions(data, None, *h)
        else:
            data = self._text(code, "code", self._max_source)
            t = self._handle.positions(data, self._tokenizer, *h)
            ids = t["ids"]
            if ids.shape[0] > self.max_input_bytes:
                raise HiRoPEError(
                    f"code is {ids.shape[0]} tokens; the model's limit is {self.max_input_bytes}"
                )
            tokens = {"ids": t["ids"], "starts": t["starts"], "ends": t["ends"]}
            pos = None if positions is not None else t
        n = int(ids.shape[0])
        if positions is not None:
            for key in positions:
                if key not in ("unit", "statement"):
                    raise HiRoPEError(f"positions has an unknown key {key!r} (known keys: unit, statement)")
            unit, statement = positions.get("unit"), positions.get("statement")
        else:
            unit, statement = pos["unit"], pos["statement"]
        out = self._handle.forward(core, *limit, ids, unit, statement, output, layer, head,
                                   core is None)
        token = np.arange(n, dtype=np.int32)
        zeros = np.zeros(n, dtype=np.int32)
        position_arrays = {
            "token": token,
            "unit": np.asarray(unit, dtype=np.int32) if unit is not None else zeros,
            "statement": np.asarray(statement, dtype=np.int32) if statement is not None else zeros,
        }
        return out, n, position_arrays, tokens

    def generate(
        self,
        prompt: Union[str, bytes],
        max_bytes: int = 256,
        temperature: float = 0.8,
        seed: int = 1,
        scheme: Union[str, Mapping[str, Any], None] = None,
        hierarchy: Optional[str] = None,
        language: str = "python",
        segment_size: Optional[int] = None,
        gap: str = "own",
        descend_classes: bool = False,
    ) -> str:
        """Continues prompt with the KV-cache decoder (hr.model.generate): the generated text
        (decoded as UTF-8 with U+FFFD for a cut character). temperature 0 is greedy; seed makes
        sampling repeatable. The GIL is released while it runs."""
        core, limit = self._plan(scheme)
        h = self._hierarchy(scheme, hierarchy, language, gap, descend_classes, segment_size)
        max_bytes = _integer(max_bytes, "max_bytes", 0, self.max_input_bytes)
        temperature = _hirope.as_number(temperature, "temperature", "a number")
        seed = _integer(seed, "seed", 0, 2**53 - 1)
        data = self._text(prompt, "prompt", self.max_input_bytes)
        out = self._handle.generate(core, limit[0], limit[1], limit[2], data, self._tokenizer,
                                    *h, max_bytes, temperature, seed, core is None)
        return out.decode("utf-8", errors="replace")

    def __repr__(self) -> str:
        c = self.config
        return f"<hirope.Model {c['name']!r} ({c['parameters']} parameters, tokenizer {self.tokenizer})>"


def _catalogue():
    from . import catalogue

    return catalogue
