"""Position schemes applied to attention: attention(), rotate(), relative_distances() and the
scheme's frequencies, on float32 numpy arrays of shape (n, heads * head_dim)."""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional, Tuple, Union

import numpy as np

from . import _hirope

HiRoPEError = _hirope.HiRoPEError

Scheme = Union[str, Mapping[str, Any]]

_POSITION_KEYS = ("token", "unit", "statement")


def _positions(positions) -> Tuple[Any, Any, Any]:
    """(token, unit, statement) from None, an int array of token positions, a dict or an Analysis."""
    if positions is None:
        return None, None, None
    if hasattr(positions, "positions") and not isinstance(positions, Mapping):
        positions = positions.positions
    if isinstance(positions, Mapping):
        for key in positions:
            if key not in _POSITION_KEYS:
                raise HiRoPEError(
                    f"positions has an unknown key {key!r} (known keys: token, unit, statement)"
                )
        if positions.get("token") is None:
            raise HiRoPEError("positions.token is required")
        return positions["token"], positions.get("unit"), positions.get("statement")
    if isinstance(positions, (np.ndarray, list, tuple)):
        return positions, None, None
    raise HiRoPEError(
        "positions must be an int array of token positions or a dict {'token', 'unit'?, "
        f"'statement'?}} (or an Analysis), got {positions!r}"
    )


# A layer's mask and temperature, as hirope.from_config writes them (layer["attention"],
# layer["temperature"]), or in Python's spelling.
_MASK_SIZE_KEYS = {"window": "window", "chunkSize": "chunkSize", "chunk_size": "chunkSize"}
_MASK_SIZE_OF = {"sliding": "window", "chunked": "chunkSize"}
_TEMPERATURE_KEYS = {
    "floorScale": "floorScale",
    "floor_scale": "floorScale",
    "scale": "scale",
    "offset": "offset",
}


def _mask(mask) -> Tuple[str, Any, Any]:
    """(type, window, chunk size) of a mask dict {'type', 'window'?, 'chunkSize'?}; the core
    checks the values."""
    if mask is None:
        return "full", None, None
    if not isinstance(mask, Mapping):
        raise HiRoPEError(
            f"mask must be a dict {{'type', 'window'?, 'chunkSize'?}}, got {mask!r}"
        )
    sizes: Dict[str, Any] = {}
    for key, value in mask.items():
        if key == "type":
            continue
        if key not in _MASK_SIZE_KEYS:
            raise HiRoPEError(
                f"mask has an unknown key {key!r} (known keys: type, window, chunkSize)"
            )
        sizes[_MASK_SIZE_KEYS[key]] = value
    kind = mask.get("type", "full")
    # Another name reaches the core, whose message says what it is ('linear': a linear layer).
    if not isinstance(kind, str):
        raise HiRoPEError(f"mask.type must be 'full', 'sliding' or 'chunked', got {kind!r}")
    if kind not in ("full", "sliding", "chunked"):
        return kind, None, None
    for key in sizes:
        if _MASK_SIZE_OF.get(kind) != key:
            what = "sliding" if key == "window" else "chunked"
            raise HiRoPEError(f"mask.{key} is for {what} masks, not {kind!r}")
    needed = _MASK_SIZE_OF.get(kind)
    if needed and sizes.get(needed) is None:
        raise HiRoPEError(f"mask {kind!r} needs mask.{needed} (an integer >= 1)")
    return kind, sizes.get("window"), sizes.get("chunkSize")


def _sinks(sinks):
    """One sink logit per head as a float array (the binding checks dtype and length)."""
    if sinks is None:
        return None
    if isinstance(sinks, (bool, np.bool_)):
        raise HiRoPEError(
            f"sinks must be an array of numbers (one logit per head), got {sinks!r} (a setup's "
            "layer['sinks'] says only that the layer has them: the logits are weights)"
        )
    if isinstance(sinks, (list, tuple)):
        try:
            return np.asarray(sinks, dtype=np.float32)
        except (TypeError, ValueError) as e:
            raise HiRoPEError(f"sinks must be an array of numbers, got {sinks!r}") from e
    return sinks


def _temperature(temperature) -> Optional[Tuple[Any, Any, Any]]:
    """(floorScale, scale, offset) of a temperature dict; the core checks the values."""
    if temperature is None:
        return None
    if not isinstance(temperature, Mapping):
        raise HiRoPEError(
            "temperature must be a dict {'floorScale', 'scale', 'offset'}, got "
            f"{temperature!r}"
        )
    values: Dict[str, Any] = {}
    for key, value in temperature.items():
        if key not in _TEMPERATURE_KEYS:
            raise HiRoPEError(
                f"temperature has an unknown key {key!r} (known keys: floorScale, scale, offset)"
            )
        values[_TEMPERATURE_KEYS[key]] = value
    for key in ("floorScale", "scale", "offset"):
        if key not in values:
            raise HiRoPEError(f"temperature.{key} is required")
    return values["floorScale"], values["scale"], values["offset"]


def _shape(x, name: str, heads: int, head_dim: Optional[int]) -> Tuple[int, int]:
    """n and head_dim of a (n, heads * head_dim) float32 array (float64 is converted by the
    binding); heads read as the binding reads every integer (numpy integers too)."""
    if not isinstance(x, np.ndarray):
        raise HiRoPEError(f"{name} must be a numpy float32 array, got {type(x).__name__}")
    if x.ndim != 2:
        raise HiRoPEError(
            f"{name} must be 2-D, (n, heads * head_dim), got shape {tuple(x.shape)}"
        )
    heads = _hirope.as_integer(heads, "heads", 1, _hirope.limits()["max_heads"], "an integer >= 1")
    n, width = x.shape
    if head_dim is None:
        if width % heads:
            raise HiRoPEError(
                f"{name} has {width} columns, not a multiple of heads = {heads}"
            )
        head_dim = width // heads
    return int(n), head_dim


def attention(
    q: np.ndarray,
    k: np.ndarray,
    v: Optional[np.ndarray] = None,
    positions=None,
    scheme: Scheme = "rope",
    causal: bool = True,
    output: Optional[str] = None,
    heads: int = 1,
    head_dim: Optional[int] = None,
    scale: Optional[float] = None,
    kernel: str = "tiled",
    mask: Optional[Mapping[str, Any]] = None,
    sinks=None,
    temperature: Optional[Mapping[str, Any]] = None,
    softcap: Optional[float] = None,
) -> np.ndarray:
    """Attention logits, probabilities or outputs under a position scheme (hr.attention).

    q, k, v: float32 arrays of shape (n, heads * head_dim) (head_dim inferred from the width
    unless given). positions: None (0..n-1), an int array of token positions, a dict {'token',
    'unit'?, 'statement'?} or an Analysis. scheme: a name or a dict in the JS API's words, e.g.
    {'type': 'hirope', 'segmentSize': 64} (hirope.catalogue lists every key). output: 'probs'
    (default; 'values' when v is given), 'logits' or 'values'. Returns (heads, n, n) for probs
    (masked = 0) and logits (masked = -inf), (n, heads * head_dim) for values. scale: the logit
    scale (None: 1 / sqrt(head_dim)). kernel: 'tiled' or 'reference' (double precision).
    One layer of a real model (hirope.from_config's layer): mask {'type': 'full' | 'sliding' |
    'chunked', 'window'?, 'chunkSize'?} (layer['attention']; causal), sinks (one logit per head:
    an extra softmax column, dropped after it) and temperature {'floorScale', 'scale', 'offset'}
    (layer['temperature']: the query at position p times 1 + scale * ln(floor((p + offset) /
    floorScale) + 1)); the mask and the temperature follow the tokens' positions (transformers'
    cache positions; non-decreasing under a mask). scale (layer['scale'] when set) and softcap
    (layer['softcap']: each scaled logit x becomes softcap * tanh(x / softcap), Gemma 2). The GIL
    is released while it runs."""
    n, hd = _shape(q, "q", heads, head_dim)
    if output is None:
        output = "values" if v is not None else "probs"
    if not isinstance(output, str):
        raise HiRoPEError(f"output must be 'logits', 'probs' or 'values', got {output!r}")
    if not isinstance(kernel, str):
        raise HiRoPEError(f"kernel must be one of 'tiled', 'reference', got {kernel!r}")
    token, unit, statement = _positions(positions)
    mask_type, window, chunk_size = _mask(mask)
    return _hirope.attention(
        scheme,
        q,
        k,
        v,
        token,
        unit,
        statement,
        n,
        hd,
        heads,
        causal,
        output,
        scale,
        kernel,
        mask_type,
        window,
        chunk_size,
        _sinks(sinks),
        _temperature(temperature),
        softcap,
    )


def rotate(
    x: np.ndarray,
    positions=None,
    scheme: Scheme = "rope",
    role: str = "query",
    branch: str = "near",
    heads: int = 1,
    head_dim: Optional[int] = None,
) -> np.ndarray:
    """The scheme applied to x (n, heads * head_dim) as a query or key, in the near or far branch
    (far exists for windowed schemes): rotation, attention factor, xPos scale, log-n scale,
    sinusoids (hr.rotate). Returns a new float32 array of x's shape. The GIL is released."""
    n, hd = _shape(x, "x", heads, head_dim)
    token, unit, statement = _positions(positions)
    return _hirope.rotate(scheme, x, token, unit, statement, n, hd, heads, role, branch)


def relative_distances(
    n: int, head_dim: int, positions=None, scheme: Scheme = "rope"
) -> List[Dict[str, Any]]:
    """The effective relative distance of each frequency band (hr.relativeDistances): a list of
    {'name', 'pair_begin', 'pair_end', 'distances'} with distances an (n, n) float32 array whose
    (i, j) entry times theta_p is the angle of pair p between query i and key j (NaN where j > i
    for windowed schemes). The GIL is released."""
    token, unit, statement = _positions(positions)
    bands = _hirope.relative_distances(scheme, token, unit, statement, n, head_dim)
    return [
        {
            "name": b["name"],
            "pair_begin": b["pairBegin"],
            "pair_end": b["pairEnd"],
            "distances": b["distances"],
        }
        for b in bands
    ]


def bands(scheme: Scheme, head_dim: int) -> List[Dict[str, Any]]:
    """Frequency bands: runs of pairs sharing one relative-distance rule."""
    return [
        {"name": b["name"], "pair_begin": b["pairBegin"], "pair_end": b["pairEnd"]}
        for b in _hirope.bands(scheme, head_dim)
    ]


def inverse_frequencies(scheme: Scheme, head_dim: int, seq_len: int = 1) -> np.ndarray:
    """theta_j after scaling (rotary_dim / 2 float64 values) at a sequence length."""
    return _hirope.inverse_frequencies(scheme, head_dim, seq_len)["values"]


def attention_factor(scheme: Scheme, head_dim: int, seq_len: int = 1) -> float:
    """The factor multiplying cos and sin (YaRN, LongRoPE); logits scale by its square."""
    return _hirope.inverse_frequencies(scheme, head_dim, seq_len)["attentionFactor"]


def unseen_pairs(
    scheme: Scheme,
    head_dim: int,
    trained_length: int,
    length: int,
    reach: Optional[int] = None,
    band_distances: Optional[List[float]] = None,
    scaled_after_training: bool = False,
) -> Dict[str, Any]:
    """Which frequency pairs of a layer meet rotation angles that training at trained_length never
    showed, at the `length` positions a code reaches (the core's one rule, docs/real-models.md,
    "Angles unseen in training"; hr.unseenPairs): pair j is unseen when
    theta_j(N) * D_j(N) > theta_j^train * (D(L) + 1) and theta_j^train * D(L) < 2 pi, with
    D(x) = min(x, reach) - 1 (reach: a sliding window or a chunk, None for none) or the largest
    distance of the pair's band (band_distances, one per band of bands()).
    scaled_after_training: for linear and NTK-aware scalings, True when they were put on a model
    trained at L without them (Position Interpolation), False when it trained with them.

    A dict: count, pairs, rotated, trained_distance, distance, split_pair (where
    theta_j^train * L = 2 pi, as a fractional pair index), and per pair the numpy arrays unseen
    (bool), trained_frequencies, frequencies, distances, angles, seen_angles and limits (+inf
    where a pair turned a full period in training or does not rotate)."""
    return _hirope.unseen_pairs(
        scheme, head_dim, trained_length, length, reach, band_distances, scaled_after_training
    )


def qk(
    n: int,
    head_dim: int,
    heads: int = 1,
    source: str = "seeded",
    token_ids=None,
    seed: int = 0,
) -> Dict[str, np.ndarray]:
    """q, k and v (each (n, heads * head_dim) float32) for people without a model: 'ones' (every
    entry 1, content-free) or 'seeded' (standard-normal vectors per token id, reproducible from
    seed; the same as hr.qk)."""
    if source == "ones":
        out = _hirope.qk(n, head_dim, heads, None, 0)  # checks the shape
        return {name: np.ones_like(a) for name, a in out.items()}
    if source != "seeded":
        raise HiRoPEError(f"source must be 'ones' or 'seeded', got {source!r}")
    return _hirope.qk(n, head_dim, heads, token_ids, seed)


def normalize_scheme(scheme: Scheme) -> Dict[str, Any]:
    """A scheme with every default filled in (the table's defaults and default rules), in the JS
    API's words; a HiRoPEError for an unknown type or key, or a value of the wrong kind."""
    return _hirope.normalize_scheme(scheme)
