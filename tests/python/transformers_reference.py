"""One layer of a real model's attention as transformers' eager attention computes it, in numpy float64.

An independent reference for hirope.attention on real models (tests/python/test_real_layers.py): it reads the
raw config.json dict itself, fills the keys the file leaves out with the defaults of the model's config class,
and follows transformers' own code line by line. It imports nothing of hirope and never looks at
hirope.from_config's setup.

Sources (huggingface/transformers, src/transformers/; read for this file, the commit where the index named one):
  modeling_rope_utils.py (the 2026 snapshot with "proportional"; find_string id 64056737866): RotaryEmbeddingConfigMixin.standardize_rope_params,
      _compute_linear_scaling_rope_parameters, _compute_dynamic_ntk_parameters, _compute_yarn_parameters (get_mscale),
      _compute_longrope_parameters, _compute_llama3_parameters, _compute_proportional_rope_parameters,
      dynamic_rope_update (longrope_frequency_update, dynamic_frequency_update)
  masking_utils.py @00c4411c: causal_mask_function, sliding_window_overlay, chunked_overlay, sdpa_mask (q_arange =
      arange(q_length) + q_offset, kv_arange = arange(kv_length) + kv_offset: cache positions), eager_mask,
      create_sliding_window_causal_mask (config.sliding_window), create_chunked_causal_mask (attention_chunk_size)
  models/llama/modeling_llama.py: LlamaRotaryEmbedding.forward, rotate_half, apply_rotary_pos_emb,
      eager_attention_forward, LlamaAttention (scaling = head_dim**-0.5)
  models/gemma2/configuration_gemma2.py @19f53461, modeling_gemma2.py: query_pre_attn_scalar, attn_logit_softcapping
      (eager_attention_forward: logits / softcap, tanh, * softcap, then the mask), even layers sliding
  models/gemma3/configuration_gemma3.py @d98ac17c, modeling_gemma3.py: rope_local_base_freq for sliding layers,
      sliding_window_pattern, query_pre_attn_scalar
  models/gemma4/configuration_gemma4.py @351f643a, modeling_gemma4.py @c308a309: Gemma4TextRotaryEmbedding (full
      layers: proportional with head_dim_key="global_head_dim"), Gemma4TextAttention (scaling = 1.0, head_dim =
      global_head_dim on full layers), eager_attention_forward
  models/gpt_oss/modeling_gpt_oss.py: _apply_rotary_emb (chunk halves), eager_attention_forward (sinks column)
  models/llama4/configuration_llama4.py @b17cfe48, modeling_llama4.py @63210d0e: Llama4TextRotaryEmbedding
      (torch.polar), apply_rotary_emb (view_as_complex: adjacent pairs), Llama4TextAttention (use_rope =
      no_rope_layers[i]; attn_temperature_tuning on NoPE layers), layer_types (chunked on RoPE layers)
  models/deepseek_v3/modular_deepseek_v3.py @dfd9abc2 (DeepseekV3Attention: q = cat(q_pass, q_rot), scaling =
      qk_head_dim**-0.5 * yarn_get_mscale(factor, mscale_all_dim)**2), apply_rotary_pos_emb_interleave as the later
      deepseek_v3 / deepseek_v32 / mistral4 files write it (view(d // 2, 2).transpose: de-interleave, then
      rotate_half), configuration_deepseek_v3.py @0fc683d1 (head_dim = qk_rope_head_dim, rope_interleave = True)
  models/deepseek_v2/modular_deepseek_v2.py @ecd75d53 (apply_rotary_emb: view_as_complex on q_pe; head_dim =
      qk_rope_head_dim). Its softmax scale at that commit is qk_head_dim**-0.5 alone; DeepSeek's own
      modeling_deepseek.py (DeepseekV2Attention.softmax_scale) and transformers PR #47435 multiply it by
      yarn_get_mscale(factor, mscale_all_dim)**2 as for V3, which is what the checkpoint was trained with: used here.
  models/ministral3/modular_ministral3.py: _get_llama_4_attn_scale (q * (1 + beta * ln(1 + floor(pos / orig))))
  models/phi3/modeling_phi3.py (partial rotary: the first rotary_dim dims), models/cohere/modeling_cohere.py
      (rotate_half on adjacent pairs, cos/sin by repeat_interleave), models/qwen2 (layer_types from
      use_sliding_window / max_window_layers), models/mistral (sliding_window: a sliding mask when it is set)

What the q and k given here are: one layer's projections in the model's own layout (the checkpoint's q_proj/k_proj
order), after any per-head q/k norm and before the position encoding. The norms either come before RoPE (Gemma 3/4,
Qwen3, OLMo 2) or are a weightless L2 norm that commutes with a rotation (Llama 4), so they belong to the inputs.
GQA's repeat_kv is left out: each query head is given its own key head. Positions are both position_ids and the
cache positions (transformers builds both from cache_position when position_ids is None), so the rotation, the masks
and the query temperatures all read the same numbers; the n tokens are the whole sequence the layer sees.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Mapping, Optional

import numpy as np

# --------------------------------------------------------------------------------------------------------------------
# Config classes' defaults: only the keys read below, as each configuration_*.py writes them.
# --------------------------------------------------------------------------------------------------------------------

# Only the defaults a gallery config leaves out are needed; a key found neither in the file nor here is an error
# (_Config.get), so no value is guessed.
_LLAMA = {  # configuration_llama.py LlamaConfig.__init__ (the classes below that derive from it keep these)
    "head_dim": None,  # None: hidden_size // num_attention_heads
    "rope_scaling": None,
    "rope_parameters": None,
    "partial_rotary_factor": None,
    "layer_types": None,
}

DEFAULTS: Dict[str, Dict[str, Any]] = {
    "llama": dict(_LLAMA),
    "olmo2": dict(_LLAMA),
    "minicpm": dict(_LLAMA),
    "mistral": dict(_LLAMA),
    "ministral3": dict(_LLAMA),
    "starcoder2": dict(_LLAMA),
    "cohere": dict(_LLAMA),
    "qwen2": dict(_LLAMA),
    # configuration_qwen3.py Qwen3Config @008e5743: head_dim 128 (modeling_qwen3.py reads config.head_dim)
    "qwen3": {**_LLAMA, "head_dim": 128},
    "gpt_oss": dict(_LLAMA),
    # configuration_phi3.py Phi3Config: partial_rotary_factor 1.0
    "phi3": {**_LLAMA, "partial_rotary_factor": 1.0},
    # configuration_gemma2.py Gemma2Config @19f53461
    "gemma2": {**_LLAMA, "head_dim": 256, "max_position_embeddings": 8192, "rope_theta": 10000.0,
               "query_pre_attn_scalar": 256, "sliding_window": 4096, "attn_logit_softcapping": 50.0},
    # configuration_gemma3.py Gemma3TextConfig @d98ac17c
    "gemma3_text": {**_LLAMA, "head_dim": 256, "max_position_embeddings": 131_072, "rope_theta": 1_000_000.0,
                    "query_pre_attn_scalar": 256, "sliding_window": 4096, "attn_logit_softcapping": None,
                    "rope_local_base_freq": 10_000.0, "sliding_window_pattern": 6, "num_hidden_layers": 26},
    # configuration_gemma4.py Gemma4TextConfig @351f643a (rope_parameters: __post_init__'s default_rope_params)
    "gemma4_text": {**_LLAMA, "hidden_size": 2304, "num_attention_heads": 8, "head_dim": 256,
                    "global_head_dim": 512, "max_position_embeddings": 131_072, "sliding_window": 512,
                    "num_hidden_layers": 30,
                    "rope_parameters": {
                        "sliding_attention": {"rope_type": "default", "rope_theta": 10_000.0},
                        "full_attention": {"rope_type": "proportional", "partial_rotary_factor": 0.25,
                                           "rope_theta": 1_000_000.0}}},
    # configuration_llama4.py Llama4TextConfig @b17cfe48
    "llama4_text": {**_LLAMA, "head_dim": 128, "max_position_embeddings": 4096 * 32, "rope_theta": 500000,
                    "no_rope_layers": None, "no_rope_layer_interval": 4, "attention_chunk_size": 8192,
                    "attn_temperature_tuning": 4, "floor_scale": 8192, "attn_scale": 0.1, "num_hidden_layers": 48},
    # configuration_deepseek_v3.py DeepseekV3Config @0fc683d1 (head_dim = qk_rope_head_dim)
    "deepseek_v3": {**_LLAMA, "max_position_embeddings": 4096, "rope_theta": 10000.0, "qk_rope_head_dim": 64,
                    "qk_nope_head_dim": 128, "rope_interleave": True},
    # modular_deepseek_v2.py DeepseekV2Config(LlamaConfig) @ecd75d53
    "deepseek_v2": {**_LLAMA, "max_position_embeddings": 2048, "rope_theta": 10000.0, "qk_rope_head_dim": 64,
                    "qk_nope_head_dim": 128},
}

# RotaryEmbeddingConfigMixin.default_theta: rope_theta when neither the file nor the class names one
DEFAULT_THETA = 10_000.0

# The pair layout of each model's rotation.
#   half: modeling_llama.rotate_half = cat(-x2, x1) with cos = cat(freqs, freqs): dim i pairs with i + d/2
#         (gpt_oss _apply_rotary_emb chunks x in halves: the same pairs)
#   interleaved: adjacent dims (2j, 2j + 1) share frequency j: Llama 4 and DeepSeek V2 view_as_complex, DeepSeek V3
#         apply_rotary_pos_emb_interleave (de-interleave, then rotate_half), Cohere rotate_half on x[::2], x[1::2]
_INTERLEAVED = {"llama4_text", "cohere", "deepseek_v2"}


def text_config(config: Mapping[str, Any]) -> Dict[str, Any]:
    """The decoder's config: multimodal wrappers (Gemma3Config, Llama4Config, Mistral3Config for Ministral 3,
    Gemma4Config) keep it under text_config (their sub_configs)."""
    inner = config.get("text_config")
    return dict(inner) if isinstance(inner, Mapping) else dict(config)


class _Config:
    """Attribute reads as PreTrainedConfig does them: the file's value when the key is there (null included), else
    the class default."""

    def __init__(self, raw: Mapping[str, Any]):
        self.raw = text_config(raw)
        self.model_type = self.raw.get("model_type")
        if self.model_type == "gemma3":  # a Gemma3Config without text_config's model_type
            self.model_type = "gemma3_text"
        if self.model_type not in DEFAULTS:
            raise ValueError(f"transformers_reference has no defaults for model_type {self.model_type!r}")
        self.defaults = DEFAULTS[self.model_type]

    def get(self, key: str, *fallback: Any) -> Any:
        if key in self.raw:
            return self.raw[key]
        if key in self.defaults:
            return self.defaults[key]
        if fallback:
            return fallback[0]
        raise KeyError(f"{self.model_type}: {key!r} is neither in the config nor among the class defaults here")


# --------------------------------------------------------------------------------------------------------------------
# The layer: what transformers builds for layer `layer` of this config.
# --------------------------------------------------------------------------------------------------------------------


@dataclass
class LayerSpec:
    model_type: str
    layer: int
    layer_type: str  # full_attention | sliding_attention | chunked_attention
    head_dim: int  # the q/k head width (qk_head_dim for MLA, global_head_dim on Gemma 4 full layers)
    rope: Optional[Dict[str, Any]]  # standardized rope parameters; None: a NoPE layer
    rope_head_dim: int = 0  # the head_dim the rope init function reads
    rotary_slice: slice = field(default_factory=lambda: slice(0, 0))  # the dims that rotate
    layout: str = "half"
    scaling: float = 1.0
    softcap: Optional[float] = None
    window: Optional[int] = None
    chunk_size: Optional[int] = None
    temperature: Optional[Callable[[np.ndarray], np.ndarray]] = None  # query factor from positions
    temperature_rule: str = ""
    sinks: bool = False
    max_position_embeddings: Optional[int] = None  # read only by the rules that need it


def _head_dim(cfg: _Config) -> int:
    # LlamaAttention: getattr(config, "head_dim", None) or hidden_size // num_attention_heads
    return int(cfg.get("head_dim") or cfg.get("hidden_size") // cfg.get("num_attention_heads"))


def _layer_types(cfg: _Config) -> List[str]:
    """config.layer_types, or each config class's default pattern."""
    given = cfg.get("layer_types")
    if given:
        return list(given)
    n = int(cfg.get("num_hidden_layers"))
    mt = cfg.model_type
    if mt == "gemma2":
        # configuration_gemma2: even layers slide (Gemma2Attention: not bool(layer_idx % 2))
        return ["sliding_attention" if (i + 1) % 2 else "full_attention" for i in range(n)]
    if mt == "gemma3_text":
        # Gemma3Attention / Gemma3TextConfig: is_sliding = bool((layer_idx + 1) % sliding_window_pattern)
        pattern = int(cfg.get("sliding_window_pattern"))
        return ["sliding_attention" if (i + 1) % pattern else "full_attention" for i in range(n)]
    if mt == "gemma4_text":
        # Gemma4TextConfig.__post_init__: 5:1, and the last layer forced to full_attention
        types = ["sliding_attention" if (i + 1) % 6 else "full_attention" for i in range(n)]
        types[-1] = "full_attention"
        return types
    if mt == "gpt_oss":
        # GptOssConfig: "sliding_attention" if bool((i + 1) % 2) else "full_attention"
        return ["sliding_attention" if (i + 1) % 2 else "full_attention" for i in range(n)]
    if mt == "llama4_text":
        # Llama4TextConfig: "chunked_attention" if no_rope else "full_attention" over no_rope_layers (1 = RoPE)
        return ["chunked_attention" if r else "full_attention" for r in _no_rope_layers(cfg)]
    if mt in ("qwen2", "qwen3"):
        # Qwen2Config: sliding only when use_sliding_window and layer_idx >= max_window_layers
        use = bool(cfg.get("use_sliding_window"))
        first = int(cfg.get("max_window_layers"))
        return ["sliding_attention" if use and i >= first else "full_attention" for i in range(n)]
    if mt in ("mistral", "ministral3", "starcoder2", "phi3"):
        # MistralModel: create_sliding_window_causal_mask when config.sliding_window is not None
        kind = "full_attention" if cfg.get("sliding_window") is None else "sliding_attention"
        return [kind] * n
    return ["full_attention"] * n


def _no_rope_layers(cfg: _Config) -> List[int]:
    # Llama4TextConfig: no_rope_layers if given, else int((layer_idx + 1) % no_rope_layer_interval != 0)
    given = cfg.get("no_rope_layers")
    if given:
        return [int(v) for v in given]
    n = int(cfg.get("num_hidden_layers"))
    interval = int(cfg.get("no_rope_layer_interval"))
    return [int((i + 1) % interval != 0) for i in range(n)]


def _rope_parameters(cfg: _Config, layer_type: str) -> Dict[str, Any]:
    """RotaryEmbeddingConfigMixin.convert_rope_params_to_dict + standardize_rope_params for this layer type."""
    mt = cfg.model_type
    nested = cfg.get("rope_parameters")
    if isinstance(nested, Mapping) and layer_type in nested and isinstance(nested[layer_type], Mapping):
        # Case 2 of standardize_rope_params: one dict per layer type (Gemma 4, v5 Gemma 3)
        rp = dict(nested[layer_type])
        rp.setdefault("rope_type", rp.get("type", "default"))
        if "rope_theta" not in rp:
            rp["rope_theta"] = cfg.get("rope_theta", DEFAULT_THETA)
        if rp["rope_type"] in ("llama3", "yarn", "longrope") and "original_max_position_embeddings" not in rp:
            rp["original_max_position_embeddings"] = cfg.get("max_position_embeddings")
        return rp
    if mt == "gemma3_text" and layer_type == "sliding_attention":
        # Gemma3TextModel (v4): rotary_emb_local is a copy of the config with rope_theta = rope_local_base_freq
        # and rope_scaling = {"rope_type": "default"}
        return {"rope_type": "default", "rope_theta": float(cfg.get("rope_local_base_freq"))}
    # convert_rope_params_to_dict: rope_parameters = rope_scaling or rope_parameters or {}
    rp = dict(cfg.get("rope_scaling") or (nested if isinstance(nested, Mapping) else None) or {})
    if "rope_theta" not in rp:
        rp["rope_theta"] = cfg.get("rope_theta", DEFAULT_THETA)
    if cfg.get("partial_rotary_factor", None) is not None:
        rp["partial_rotary_factor"] = cfg.get("partial_rotary_factor")
    rp.setdefault("rope_type", rp.get("type", "default"))  # BC: "type" was the key
    if rp["rope_type"] in ("llama3", "yarn", "longrope"):
        # Phi3 keeps the pretraining length at the top level, and it wins there
        if cfg.get("original_max_position_embeddings", None):
            rp["original_max_position_embeddings"] = cfg.get("original_max_position_embeddings")
        elif "original_max_position_embeddings" not in rp:
            rp["original_max_position_embeddings"] = cfg.get("max_position_embeddings")
    return rp


def layer_spec(config: Mapping[str, Any], layer: int) -> LayerSpec:
    """Everything transformers' modeling code does with this layer's q and k, read from the config."""
    cfg = _Config(config)
    mt = cfg.model_type
    types = _layer_types(cfg)
    layer_type = types[layer] if layer < len(types) else types[-1]
    hd = _head_dim(cfg)
    spec = LayerSpec(model_type=mt, layer=layer, layer_type=layer_type, head_dim=hd, rope=None,
                     max_position_embeddings=cfg.get("max_position_embeddings", None))
    spec.layout = "interleaved" if mt in _INTERLEAVED else "half"
    spec.scaling = hd ** -0.5  # LlamaAttention.scaling

    if mt in ("deepseek_v2", "deepseek_v3"):
        nope, rot = int(cfg.get("qk_nope_head_dim")), int(cfg.get("qk_rope_head_dim"))
        spec.head_dim = nope + rot  # qk_head_dim
        spec.rope_head_dim = rot  # the config's head_dim is qk_rope_head_dim
        spec.rotary_slice = slice(nope, nope + rot)  # q = cat(q_pass, q_rot): the last rope dims rotate
        if mt == "deepseek_v3" and not cfg.get("rope_interleave"):
            spec.layout = "half"  # apply_rotary_pos_emb (rotate_half) when rope_interleave is False
        elif mt == "deepseek_v3":
            spec.layout = "interleaved"
        spec.rope = _rope_parameters(cfg, layer_type)
        # DeepseekV3Attention.__init__: scaling = qk_head_dim**-0.5, times mscale**2 when rope_scaling has
        # mscale_all_dim (yarn_get_mscale(factor, mscale_all_dim))
        spec.scaling = spec.head_dim ** -0.5
        scaling_cfg = cfg.get("rope_scaling") or cfg.get("rope_parameters")
        if scaling_cfg:
            mscale_all_dim = scaling_cfg.get("mscale_all_dim", 0)
            if mscale_all_dim:
                m = _get_mscale(float(scaling_cfg["factor"]), float(mscale_all_dim))
                spec.scaling *= m * m
    elif mt == "gemma4_text":
        sliding = layer_type == "sliding_attention"
        # Gemma4TextAttention: head_dim = global_head_dim on full layers (when set), scaling = 1.0
        spec.head_dim = int(cfg.get("global_head_dim")) if not sliding and cfg.get("global_head_dim") else hd
        spec.scaling = 1.0
        spec.rope = _rope_parameters(cfg, layer_type)
        # Gemma4TextRotaryEmbedding: proportional full layers read head_dim_key="global_head_dim"
        spec.rope_head_dim = spec.head_dim if spec.rope["rope_type"] == "proportional" else hd
        spec.rotary_slice = slice(0, spec.head_dim)
    else:
        spec.rope = _rope_parameters(cfg, layer_type)
        spec.rope_head_dim = hd
        # Phi3 apply_rotary_pos_emb: the first rotary_dim = cos.shape[-1] dims rotate, the rest pass
        prf = float(spec.rope.get("partial_rotary_factor", 1.0) or 1.0)
        spec.rotary_slice = slice(0, int(hd * prf))
        if mt == "llama4_text" and not _no_rope_layers(cfg)[layer]:
            spec.rope = None  # Llama4TextAttention: use_rope = no_rope_layers[layer_idx]; NoPE skips RoPE

    if mt in ("gemma2", "gemma3_text"):
        # Gemma2Attention / Gemma3Attention: scaling = query_pre_attn_scalar**-0.5, softcap = attn_logit_softcapping
        spec.scaling = float(cfg.get("query_pre_attn_scalar")) ** -0.5
        cap = cfg.get("attn_logit_softcapping")
        spec.softcap = float(cap) if cap is not None else None

    if layer_type == "sliding_attention":
        spec.window = int(cfg.get("sliding_window"))  # create_sliding_window_causal_mask: config.sliding_window
    elif layer_type == "chunked_attention":
        spec.chunk_size = int(cfg.get("attention_chunk_size"))  # create_chunked_causal_mask

    if mt == "llama4_text" and spec.rope is None and cfg.get("attn_temperature_tuning"):
        floor_scale, attn_scale = float(cfg.get("floor_scale")), float(cfg.get("attn_scale"))
        # Llama4TextAttention.forward: log(floor((cache_position + 1) / floor_scale) + 1) * attn_scale + 1
        spec.temperature = lambda p: np.log(np.floor((p + 1.0) / floor_scale) + 1.0) * attn_scale + 1.0
        spec.temperature_rule = f"1 + {attn_scale} * ln(floor((p + 1) / {floor_scale:g}) + 1)"
    if mt == "ministral3":
        rp = cfg.get("rope_parameters") or cfg.get("rope_scaling") or {}
        beta, orig = rp.get("llama_4_scaling_beta"), rp.get("original_max_position_embeddings")
        if beta is not None:
            beta, orig = float(beta), float(orig)
            # modular_ministral3 _get_llama_4_attn_scale: 1 + beta * log(1 + floor(positions / orig))
            spec.temperature = lambda p: 1.0 + beta * np.log(1.0 + np.floor(p / orig))
            spec.temperature_rule = f"1 + {beta} * ln(1 + floor(p / {orig:g}))"

    spec.sinks = mt == "gpt_oss"  # GptOssAttention.sinks: a learned logit per head on every layer
    return spec


# --------------------------------------------------------------------------------------------------------------------
# Inverse frequencies and the attention factor: modeling_rope_utils.py
# --------------------------------------------------------------------------------------------------------------------


def _get_mscale(scale: float, mscale: float = 1.0) -> float:
    # _compute_yarn_parameters.get_mscale / modeling_deepseek_v3.yarn_get_mscale
    if scale <= 1:
        return 1.0
    return 0.1 * mscale * math.log(scale) + 1.0


def inverse_frequencies(spec: LayerSpec, seq_len: int):
    """(inv_freq over the rotated dims' pairs, attention_factor) for a forward whose largest position is
    seq_len - 1 (dynamic_rope_update reads torch.max(position_ids) + 1)."""
    rp = spec.rope
    kind = rp["rope_type"]
    base = float(rp["rope_theta"])
    head_dim = spec.rope_head_dim
    prf = float(rp.get("partial_rotary_factor", 1.0) or 1.0)
    dim = int(head_dim * prf)
    # compute_default_rope_parameters: 1 / base ** (arange(0, dim, 2) / dim)
    exponents = np.arange(0, dim, 2, dtype=np.float64) / dim

    if kind == "default":
        return 1.0 / base ** exponents, 1.0
    if kind == "linear":
        # _compute_linear_scaling_rope_parameters: the default frequencies / factor
        return 1.0 / base ** exponents / float(rp["factor"]), 1.0
    if kind == "dynamic":
        # dynamic_frequency_update: recomputed with seq_len only when it grows past max_position_embeddings;
        # _compute_dynamic_ntk_parameters: seq_len = max(seq_len, max_position_embeddings)
        factor = float(rp["factor"])
        max_pos = spec.max_position_embeddings
        length = max(seq_len, max_pos)
        base = base * ((factor * length / max_pos) - (factor - 1)) ** (dim / (dim - 2))
        return 1.0 / base ** exponents, 1.0
    if kind == "yarn":
        factor = rp.get("factor")
        orig = float(rp["original_max_position_embeddings"])
        if factor is None:
            factor = spec.max_position_embeddings / orig
        factor = float(factor)
        attention_factor = rp.get("attention_factor")
        mscale, mscale_all_dim = rp.get("mscale"), rp.get("mscale_all_dim")
        if attention_factor is None:
            if mscale and mscale_all_dim:
                attention_factor = _get_mscale(factor, float(mscale)) / _get_mscale(factor, float(mscale_all_dim))
            else:
                attention_factor = _get_mscale(factor)
        beta_fast = rp.get("beta_fast") or 32
        beta_slow = rp.get("beta_slow") or 1

        def correction_dim(num_rotations):  # find_correction_dim
            return (dim * math.log(orig / (num_rotations * 2 * math.pi))) / (2 * math.log(base))

        low, high = correction_dim(beta_fast), correction_dim(beta_slow)  # find_correction_range
        if rp.get("truncate", True):
            low, high = math.floor(low), math.ceil(high)
        low, high = max(low, 0), min(high, dim - 1)
        if low == high:  # linear_ramp_factor: prevent singularity
            high += 0.001
        ramp = np.clip((np.arange(dim // 2, dtype=np.float64) - low) / (high - low), 0.0, 1.0)
        extrapolation_factor = 1.0 - ramp  # inv_freq_extrapolation_factor
        pos_freqs = base ** exponents
        inv = (1.0 / (factor * pos_freqs)) * (1.0 - extrapolation_factor) + (1.0 / pos_freqs) * extrapolation_factor
        return inv, float(attention_factor)
    if kind == "longrope":
        orig = float(rp["original_max_position_embeddings"])
        factor = rp.get("factor")
        if factor is None:
            factor = spec.max_position_embeddings / orig
        factor = float(factor)
        attention_factor = rp.get("attention_factor")
        if attention_factor is None:
            attention_factor = 1.0 if factor <= 1.0 else math.sqrt(1 + math.log(factor) / math.log(orig))
        # longrope_frequency_update: long_factor when max(position_ids) + 1 > original_max_position_embeddings
        ext = np.asarray(rp["long_factor"] if seq_len > orig else rp["short_factor"], dtype=np.float64)
        return 1.0 / (ext * base ** exponents), float(attention_factor)
    if kind == "llama3":
        inv = 1.0 / base ** exponents
        factor = float(rp["factor"])
        low_ff, high_ff = float(rp["low_freq_factor"]), float(rp["high_freq_factor"])
        old = float(rp["original_max_position_embeddings"])
        low_wavelen, high_wavelen = old / low_ff, old / high_ff
        wavelen = 2 * math.pi / inv
        out = np.where(wavelen > low_wavelen, inv / factor, inv)  # longer than low_freq_wavelen: / factor
        with np.errstate(divide="ignore", invalid="ignore"):  # high == low (Llama 4): no medium band
            smooth = (old / wavelen - low_ff) / (high_ff - low_ff)
            smoothed = (1 - smooth) * out / factor + smooth * out
        medium = ~(wavelen < high_wavelen) & ~(wavelen > low_wavelen)
        return np.where(medium, smoothed, out), 1.0
    if kind == "proportional":
        # _compute_proportional_rope_parameters: rope_angles = int(p * head_dim // 2) frequencies over the whole
        # head_dim, then zeros up to head_dim // 2 (those pairs stay put), all / factor
        rope_angles = int(prf * head_dim // 2)
        rotated = 1.0 / base ** (np.arange(0, 2 * rope_angles, 2, dtype=np.float64) / head_dim)
        inv = np.concatenate([rotated, np.zeros(head_dim // 2 - rope_angles)])
        return inv / float(rp.get("factor", 1.0)), 1.0
    raise ValueError(f"transformers_reference: rope_type {kind!r} is not written here")


# --------------------------------------------------------------------------------------------------------------------
# The layer's attention.
# --------------------------------------------------------------------------------------------------------------------


def _rotate(x: np.ndarray, angles: np.ndarray, attention_factor: float, layout: str) -> np.ndarray:
    """x (n, heads, d) rotated by angles (n, d / 2): cos and sin times attention_factor (the rotary embeddings'
    forward: emb.cos() * attention_scaling; Llama 4: polar(1, freqs) * attention_scaling)."""
    cos = np.cos(angles)[:, None, :] * attention_factor
    sin = np.sin(angles)[:, None, :] * attention_factor
    out = np.empty_like(x)
    if layout == "half":
        # apply_rotary_pos_emb: x * cos + rotate_half(x) * sin, rotate_half = cat(-x2, x1)
        d2 = x.shape[-1] // 2
        a, b = x[..., :d2], x[..., d2:]
        out[..., :d2] = a * cos - b * sin
        out[..., d2:] = b * cos + a * sin
    else:
        # view_as_complex(x.reshape(..., -1, 2)) * freqs_cis: (x0 + i x1)(cos + i sin)
        a, b = x[..., 0::2], x[..., 1::2]
        out[..., 0::2] = a * cos - b * sin
        out[..., 1::2] = b * cos + a * sin
    return out


def layer_attention(
    config: Mapping[str, Any],
    layer: int,
    q: np.ndarray,
    k: np.ndarray,
    positions,
    sinks=None,
    output: str = "probs",
) -> np.ndarray:
    """(heads, n, n) float64 attention probabilities (masked 0) or logits (masked -inf) of layer `layer`.

    q, k: (n, heads * head_dim) with the layer's head_dim (layer_spec(config, layer).head_dim). positions: n
    increasing token positions. sinks: one logit per head, required when the model has sinks (gpt-oss)."""
    spec = layer_spec(config, layer)
    q = np.asarray(q, dtype=np.float64)
    k = np.asarray(k, dtype=np.float64)
    n = q.shape[0]
    heads = q.shape[1] // spec.head_dim
    if q.shape != (n, heads * spec.head_dim) or k.shape != q.shape:
        raise ValueError(f"q and k must be (n, heads * {spec.head_dim}), got {q.shape} and {k.shape}")
    p = np.asarray(positions, dtype=np.float64).reshape(n)
    q = q.reshape(n, heads, spec.head_dim).copy()
    k = k.reshape(n, heads, spec.head_dim).copy()

    if spec.rope is not None:
        # the rotary embedding's forward: freqs = inv_freq @ position_ids (float positions)
        inv_freq, attention_factor = inverse_frequencies(spec, int(p.max()) + 1)
        angles = p[:, None] * inv_freq[None, :]
        sl = spec.rotary_slice
        q[..., sl] = _rotate(q[..., sl], angles, attention_factor, spec.layout)
        k[..., sl] = _rotate(k[..., sl], angles, attention_factor, spec.layout)

    if spec.temperature is not None:
        # the query times its position's temperature (Llama 4 NoPE layers, Ministral 3)
        q = q * spec.temperature(p)[:, None, None]

    # eager_attention_forward: matmul(query, key^T) * scaling
    logits = np.einsum("ihd,jhd->hij", q, k) * spec.scaling
    if spec.softcap is not None:
        # Gemma 2's eager_attention_forward: / softcap, tanh, * softcap, before the mask is added
        logits = np.tanh(logits / spec.softcap) * spec.softcap

    # masking_utils: causal_mask_function kv_idx <= q_idx, and_masks with sliding_window_overlay
    # (kv_idx > q_idx - sliding_window) or chunked_overlay (kv_idx // chunk == q_idx // chunk, no left padding);
    # q_idx and kv_idx are cache positions
    qi, kj = p[:, None], p[None, :]
    seen = kj <= qi
    if spec.window is not None:
        seen &= kj > qi - spec.window
    if spec.chunk_size is not None:
        seen &= np.floor(kj / spec.chunk_size) == np.floor(qi / spec.chunk_size)
    logits = np.where(seen[None], logits, -np.inf)  # eager_mask adds finfo.min: the same after softmax
    if output == "logits":
        return logits

    if spec.sinks:
        if sinks is None:
            raise ValueError(f"{spec.model_type} has attention sinks: pass one sink logit per head")
        # gpt_oss eager_attention_forward: cat([logits, sinks]), minus the row max, softmax, drop the sink column
        column = np.broadcast_to(np.asarray(sinks, dtype=np.float64).reshape(heads, 1, 1), (heads, n, 1))
        combined = np.concatenate([logits, column], axis=-1)
        combined = combined - combined.max(axis=-1, keepdims=True)
        e = np.exp(combined)
        return (e / e.sum(axis=-1, keepdims=True))[..., :-1]
    # softmax(dim=-1) in float32 upcast: here float64
    e = np.exp(logits - logits.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def describe(spec: LayerSpec, seq_len: int) -> str:
    """One line of what the layer does (for test messages and the fixture)."""
    parts = [f"{spec.model_type} layer {spec.layer} {spec.layer_type}", f"head_dim {spec.head_dim}"]
    if spec.rope is None:
        parts.append("NoPE")
    else:
        _, af = inverse_frequencies(spec, seq_len)
        sl = spec.rotary_slice
        parts.append(f"{spec.rope['rope_type']} theta {float(spec.rope['rope_theta']):g} dims {sl.start}:{sl.stop} "
                     f"{spec.layout} attention_factor {af:.6g}")
    parts.append(f"scaling {spec.scaling:.6g}")
    if spec.softcap is not None:
        parts.append(f"softcap {spec.softcap:g}")
    if spec.window is not None:
        parts.append(f"window {spec.window}")
    if spec.chunk_size is not None:
        parts.append(f"chunk {spec.chunk_size}")
    if spec.temperature_rule:
        parts.append(f"temperature {spec.temperature_rule}")
    if spec.sinks:
        parts.append("sinks")
    return ", ".join(parts)


# A Gemma 4 text config as a checkpoint would write it, with configuration_gemma4.py's Gemma4TextConfig defaults
# (@351f643a) written out: 5 sliding layers (head_dim 256, window 512, default RoPE at 1e4) for every full layer
# (global_head_dim 512, proportional RoPE: 25% of the pairs at 1e6), softmax scale 1.0, the last layer full.
GEMMA4_CONFIG = {
    "architectures": ["Gemma4ForCausalLM"],
    "model_type": "gemma4_text",
    "hidden_size": 2304,
    "num_hidden_layers": 30,
    "num_attention_heads": 8,
    "num_key_value_heads": 4,
    "head_dim": 256,
    "global_head_dim": 512,
    "max_position_embeddings": 131072,
    "sliding_window": 512,
    "rope_parameters": {
        "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0},
        "full_attention": {"rope_type": "proportional", "partial_rotary_factor": 0.25, "rope_theta": 1000000.0},
    },
}
