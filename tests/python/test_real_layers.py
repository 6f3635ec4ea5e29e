"""Real models' layers: hirope.attention on hirope.from_config's layer against transformers' eager attention.

The expected probabilities come from tests/python/transformers_reference.py, a numpy float64 transcription of
transformers' own code that reads the raw config.json itself (with the config classes' defaults) and never sees
hirope's setup. hirope's side is what a user would run: hirope.from_config(config) and the layer's scheme, headDim,
attention mask, sinks, temperature, scale and softcap passed to hirope.attention as they are.

Each case: one layer of a gallery config (models/configs) or of a Gemma 4 config written from
configuration_gemma4.py's defaults, seeded random q and k (the layer's head width, 2 heads), the given token
positions (offsets up to 70,031, some with a stride so that a sliding window or a chunk boundary falls inside the n
tokens), both kernels. Pass: max |hirope - reference| <= 2e-5 over every probability.

The test can fail: test_each_case_needs_its_rules leaves out of hirope's call, one at a time, each rule a case is
there for (positions read as row indices, one position later, no mask, the window one larger, no temperature,
softcap, scale or sinks, the other pair layout, MLA rotating the first dims, plain RoPE frequencies) and requires
the error to pass 10x the tolerance. test_fixture_is_current_and_hirope_meets_it keeps
tests/fixtures/real-layers.json (for the JS and native tests) equal to what tools/write-real-layer-fixture.py writes.

Run: PYTHONPATH=build/python /usr/bin/python3 -m pytest -q -p no:cacheprovider tests/python/test_real_layers.py
(-rA prints each case's max error; HIROPE_REAL_LAYERS_TABLE=path writes the table as JSON lines.)"""

import json
import os
import sys
import zlib
from dataclasses import dataclass
from typing import Any, Dict, Optional, Sequence, Union

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
if os.path.isdir(os.path.join(ROOT, "build", "python")) and "hirope" not in sys.modules:
    sys.path.insert(0, os.path.join(ROOT, "build", "python"))
sys.path.insert(0, HERE)

import hirope  # noqa: E402
import transformers_reference as reference  # noqa: E402

TOLERANCE = 2e-5
GALLERY = os.path.join(ROOT, "models", "configs")

GEMMA4 = reference.GEMMA4_CONFIG


@dataclass
class Case:
    id: str
    config: Union[str, Dict[str, Any]]  # a gallery id or an inline config
    layer: int
    positions: Sequence[int]
    why: str
    guards: Sequence[str]  # the rules this case checks: hirope's call without any one of them must miss (MUTATIONS)
    amp: float = 1.0  # q and k entries ~ N(0, amp^2)
    heads: int = 2


def span(start: int, n: int, stride: int = 1):
    return list(range(start, start + n * stride, stride))


CASES = [
    # Llama 3.1 / 3.2: llama3 frequency smoothing, half layout
    Case("llama-3.1-8b/L0/0", "llama-3.1-8b", 0, span(0, 32), "llama3 x8", ["no-scaling"]),
    Case("llama-3.1-8b/L0/9000s3", "llama-3.1-8b", 0, span(9000, 40, 3), "llama3 past the 8192 pretraining",
         ["positions-as-rows", "no-scaling"]),
    Case("llama-3.2-1b/L0/12000", "llama-3.2-1b", 0, span(12000, 32), "llama3 x32, head_dim 64", ["no-scaling"]),
    # Llama 4 Scout: chunked RoPE layers (adjacent pairs), NoPE full layers with the query temperature
    Case("llama-4-scout/L0/20000", "llama-4-scout-17b-16e", 0, span(20000, 200),
         "chunked 8192 at 20,000..20,199, llama3 x16, interleaved", ["other-layout", "no-scaling"]),
    Case("llama-4-scout/L0/24560", "llama-4-scout-17b-16e", 0, span(24560, 40),
         "a chunk boundary at 24,576 among the keys",
         ["no-mask", "positions+1", "positions-as-rows", "other-layout"]),
    Case("llama-4-scout/L3/8180", "llama-4-scout-17b-16e", 3, span(8180, 32),
         "NoPE + temperature: floor((p+1)/8192) steps 0 -> 1 at p = 8191",
         ["no-temperature", "positions+1", "positions-as-rows"]),
    Case("llama-4-scout/L3/32740", "llama-4-scout-17b-16e", 3, span(32740, 48),
         "NoPE + temperature at 32,740..32,787 (steps 3 -> 4 at 32,767)",
         ["no-temperature", "positions+1", "positions-as-rows"]),
    # GPT-oss: sinks, YaRN x32 untruncated, sliding 128 / full
    Case("gpt-oss-20b/L0/0", "gpt-oss-20b", 0, span(0, 48), "sliding 128 + sinks, yarn truncate=false",
         ["no-sinks", "no-scaling"]),
    Case("gpt-oss-20b/L0/1000s8", "gpt-oss-20b", 0, span(1000, 40, 8),
         "sliding 128 inside the keys, a key exactly 128 back",
         ["no-mask", "window+1", "positions-as-rows", "no-sinks"]),
    Case("gpt-oss-20b/L1/5000s5", "gpt-oss-20b", 1, span(5000, 40, 5), "full + sinks past the 4096 pretraining",
         ["no-sinks", "no-scaling"]),
    # DeepSeek MLA: only the last 64 dims rotate (adjacent pairs); softmax scale * mscale^2
    Case("deepseek-v3/L0/0", "deepseek-v3", 0, span(0, 32), "MLA, yarn x40, scale 192^-1/2 * 1.874",
         ["no-scale", "rotary-first", "other-layout", "no-scaling"]),
    Case("deepseek-v3/L0/30000", "deepseek-v3", 0, span(30000, 32), "MLA at 30,000",
         ["no-scale", "rotary-first", "other-layout", "no-scaling"]),
    Case("deepseek-v2-lite/L0/100", "deepseek-v2-lite", 0, span(100, 32), "MLA, mscale_all_dim 0.707 (x1.590)",
         ["no-scale", "rotary-first", "other-layout"]),
    # Gemma 2: logit softcap 50 (before the mask), query_pre_attn_scalar, sliding 4096 on even layers
    Case("gemma-2-9b/L0/0s128", "gemma-2-9b", 0, span(0, 40, 128), "softcap 50 + sliding 4096 inside the keys",
         ["no-softcap", "no-mask", "window+1", "positions-as-rows"], amp=2.0),
    Case("gemma-2-9b/L1/6000", "gemma-2-9b", 1, span(6000, 32), "softcap 50, full", ["no-softcap"], amp=2.0),
    # Gemma 3: local layers at rope_local_base_freq, global ones linear x8 at 1e6; query_pre_attn_scalar 168
    Case("gemma-3-27b/L0/0s64", "gemma-3-27b-it", 0, span(0, 32, 64), "local 1e4, window 1024 inside the keys",
         ["no-mask", "window+1", "no-scale", "positions-as-rows"]),
    Case("gemma-3-27b/L5/10000", "gemma-3-27b-it", 5, span(10000, 32), "global, linear x8 at 1e6, scale 168^-1/2",
         ["no-scale", "no-scaling"]),
    Case("gemma-3-1b/L0/300s16", "gemma-3-1b-it", 0, span(300, 40, 16), "local window 512 inside the keys",
         ["no-mask", "window+1", "positions-as-rows"]),
    Case("gemma-3-1b/L5/20000", "gemma-3-1b-it", 5, span(20000, 32), "global 1e6, no scaling", ["other-layout"]),
    # Gemma 4 (configuration_gemma4 defaults): scale 1.0, proportional RoPE over global_head_dim 512
    Case("gemma-4/L0/0s16", GEMMA4, 0, span(0, 48, 16), "sliding 512 inside the keys, scale 1.0",
         ["no-mask", "window+1", "no-scale", "positions-as-rows"], amp=0.25),
    Case("gemma-4/L5/1000", GEMMA4, 5, span(1000, 32), "full, head_dim 512, proportional 0.25",
         ["no-scale", "no-scaling"], amp=0.25),
    # Phi-3.5: LongRoPE, short factors while max position + 1 <= 4096, long ones past it
    Case("phi-3.5-mini/L0/0", "phi-3.5-mini", 0, span(0, 48), "longrope short regime", ["no-scaling"]),
    Case("phi-3.5-mini/L0/4090", "phi-3.5-mini", 0, span(4090, 48), "longrope long regime (max position 4137)",
         ["positions-as-rows", "no-scaling"]),
    Case("phi-3.5-mini/L0/4048", "phi-3.5-mini", 0, span(4048, 48), "longrope: max position 4095, still short",
         ["no-scaling", "positions+1"]),
    Case("phi-3.5-mini/L0/4049", "phi-3.5-mini", 0, span(4049, 48), "longrope: max position 4096, long",
         ["positions-as-rows", "no-scaling"]),
    # Qwen2.5 YaRN x4 (truncated ramp), attention factor 1.139
    Case("qwen2.5-3b-yarn/L0/0", "qwen2.5-3b-yarn", 0, span(0, 48), "yarn x4", ["no-scaling"]),
    Case("qwen2.5-3b-yarn/L0/20000s10", "qwen2.5-3b-yarn", 0, span(20000, 32, 10), "yarn x4 at 20,000",
         ["no-scaling", "positions-as-rows"]),
    Case("qwen2.5-coder-7b-yarn/L0/25000", "qwen2.5-coder-7b-instruct-yarn", 0, span(25000, 32), "yarn x4, 7B",
         ["no-scaling"]),
    # Ministral 3: YaRN x16 (mscale 1/1) and q * (1 + 0.1 ln(1 + floor(p / 16384)))
    Case("ministral-3-3b/L0/32700s2", "ministral-3-3b", 0, span(32700, 48, 2),
         "temperature steps 1 -> 2 at 32,768 (positions 32,700..32,794)",
         ["no-temperature", "positions-as-rows", "no-scaling"]),
    Case("ministral-3-3b/L0/16370", "ministral-3-3b", 0, span(16370, 32), "temperature steps 0 -> 1 at 16,384",
         ["no-temperature", "positions+1", "positions-as-rows"]),
    # Plain RoPE families, other layouts and windows
    Case("mistral-7b-v0.3/L0/0", "mistral-7b-v0.3", 0, span(0, 32), "theta 1e6, no window", ["other-layout"]),
    Case("aya-23-8b/L0/500", "aya-23-8b", 0, span(500, 32), "Cohere: adjacent pairs (repeat_interleave)",
         ["other-layout"]),
    Case("starcoder2-7b/L0/0s128", "starcoder2-7b", 0, span(0, 40, 128), "sliding 4096 inside the keys",
         ["no-mask", "window+1", "positions-as-rows"]),
    Case("qwen3-8b/L0/3000", "qwen3-8b", 0, span(3000, 32), "theta 1e6, head_dim 128", ["other-layout"]),
    Case("olmo2-7b/L0/100", "olmo2-7b", 0, span(100, 32), "theta 5e5", ["other-layout"]),
    Case("smollm2-135m/L0/0", "smollm2-135m", 0, span(0, 32), "theta 1e5, head_dim 64", ["other-layout"]),
    Case("codellama-7b/L0/10000", "codellama-7b", 0, span(10000, 32), "theta 1e6", ["other-layout"]),
    Case("minicpm-2b/L0/0", "minicpm-2b", 0, span(0, 32), "dynamic NTK below max_position_embeddings (plain)",
         ["other-layout"]),
    Case("minicpm-2b/L0/70000", "minicpm-2b", 0, span(70000, 32), "dynamic NTK past 65,536: the base grows",
         ["no-scaling", "positions-as-rows"]),
]


def load_config(case: Case) -> Dict[str, Any]:
    if isinstance(case.config, dict):
        return case.config
    with open(os.path.join(GALLERY, case.config + ".json"), encoding="utf-8") as f:
        return json.load(f)


def inputs(case: Case, spec: "reference.LayerSpec"):
    """Seeded q, k (float32, (n, heads * head_dim)) and sinks for a case."""
    rng = np.random.default_rng(zlib.crc32(case.id.encode()))
    n, h, d = len(case.positions), case.heads, spec.head_dim
    q = rng.standard_normal((n, h, d)) * case.amp
    k = rng.standard_normal((n, h, d)) * case.amp
    if spec.model_type in ("deepseek_v2", "deepseek_v3"):
        k[:, 1:, spec.rotary_slice] = k[:, :1, spec.rotary_slice]  # MLA: k_rot is one head, expanded
    sinks = rng.standard_normal(h).astype(np.float32) if spec.sinks else None
    return q.reshape(n, h * d).astype(np.float32), k.reshape(n, h * d).astype(np.float32), sinks


def hirope_layer(config: Dict[str, Any], case: Case) -> Dict[str, Any]:
    """hirope.from_config's layer for the case (the config given as its text)."""
    return hirope.from_config(json.dumps(config))["layers"][case.layer]


def hirope_probs(layer: Dict[str, Any], case: Case, q, k, sinks, kernel: str, mutation: Optional[str] = None):
    """hirope's probabilities for the case, from hirope.from_config's layer and nothing else (a mutation leaves
    one rule out, for test_each_case_needs_its_rules)."""
    kwargs: Dict[str, Any] = dict(
        positions=np.asarray(case.positions, dtype=np.int64),
        scheme=layer["scheme"],
        heads=case.heads,
        head_dim=layer["headDim"],
        mask=layer["attention"],
        temperature=layer.get("temperature"),
        sinks=sinks if layer.get("sinks") else None,
        kernel=kernel,
        output="probs",
    )
    if layer.get("scale"):
        kwargs["scale"] = layer["scale"]
    if layer.get("softcap"):
        kwargs["softcap"] = layer["softcap"]
    if mutation is not None:
        MUTATIONS[mutation](kwargs)
    return hirope.attention(q, k, **kwargs)


def _scheme_with(kwargs, **changes):
    kwargs["scheme"] = {**kwargs["scheme"], **changes}


# One rule left out of hirope's call each: what the case would see if hirope missed that rule.
MUTATIONS = {
    "positions-as-rows": lambda kw: kw.pop("positions"),  # 0..n-1: masks and temperature by row index
    # every position one later: RoPE is relative, so only a chunk boundary, a temperature step or LongRoPE's
    # switch moves (an off-by-one in those)
    "positions+1": lambda kw: kw.update(positions=kw["positions"] + 1),
    "window+1": lambda kw: kw.update(mask={**kw["mask"], "window": kw["mask"]["window"] + 1}),  # q - k <= window
    "no-mask": lambda kw: kw.update(mask={"type": "full"}),
    "no-temperature": lambda kw: kw.update(temperature=None),
    "no-softcap": lambda kw: kw.pop("softcap"),
    "no-scale": lambda kw: kw.pop("scale"),  # head_dim^-1/2
    "no-sinks": lambda kw: kw.update(sinks=None),
    "other-layout": lambda kw: _scheme_with(
        kw, layout="half" if kw["scheme"]["layout"] == "interleaved" else "interleaved"),
    "rotary-first": lambda kw: _scheme_with(kw, rotaryLast=False),  # MLA rotating the first dims
    "no-scaling": lambda kw: _scheme_with(kw, scaling={"type": "none"}),  # the frequencies of plain RoPE
}


RESULTS = []


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_layer_matches_transformers(case):
    config = load_config(case)
    spec = reference.layer_spec(config, case.layer)
    q, k, sinks = inputs(case, spec)
    want = reference.layer_attention(config, case.layer, q, k, case.positions, sinks)
    what = reference.describe(spec, max(case.positions) + 1)
    errors = {}
    problem = None
    try:
        layer = hirope_layer(config, case)
        if layer["headDim"] != spec.head_dim:
            problem = f"hirope's headDim is {layer['headDim']}, transformers' {spec.head_dim}"
    except hirope.HiRoPEError as e:
        problem = f"from_config: {e}"
    for kernel in ("tiled", "reference"):
        if problem is not None:
            break
        try:
            got = hirope_probs(layer, case, q, k, sinks, kernel)
        except (hirope.HiRoPEError, TypeError) as e:  # an option hirope does not take (yet)
            problem = f"{kernel} kernel: {type(e).__name__}: {e}"
            break
        errors[kernel] = float(np.max(np.abs(np.asarray(got, dtype=np.float64) - want)))
    worst = max(errors.values()) if errors and problem is None else float("inf")
    RESULTS.append({"case": case.id, "max_error": worst, "problem": problem, "reference": what})
    table = os.environ.get("HIROPE_REAL_LAYERS_TABLE")
    if table:
        with open(table, "a", encoding="utf-8") as f:
            f.write(json.dumps(RESULTS[-1]) + "\n")
    print(f"{case.id}: max error {worst:.3g} ({case.why}; {what})")
    assert problem is None, f"{case.id} ({case.why}): {problem}\n  transformers: {what}"
    assert worst <= TOLERANCE, (
        f"{case.id} ({case.why}): max |hirope - transformers| = {worst:.3g} > {TOLERANCE:g} "
        f"(per kernel {errors})\n  transformers: {what}"
    )


MUTATED = [(c, m) for c in CASES for m in c.guards]


@pytest.mark.parametrize("case, mutation", MUTATED, ids=[f"{c.id}-{m}" for c, m in MUTATED])
def test_each_case_needs_its_rules(case, mutation):
    """The test can fail: leaving out any rule a case is there for moves hirope's probabilities past 10x the
    tolerance (so the cases did catch masks by row index, a missing softcap, scale or rotaryLast, ...)."""
    config = load_config(case)
    spec = reference.layer_spec(config, case.layer)
    q, k, sinks = inputs(case, spec)
    want = reference.layer_attention(config, case.layer, q, k, case.positions, sinks)
    got = hirope_probs(hirope_layer(config, case), case, q, k, sinks, "tiled", mutation)
    error = float(np.max(np.abs(np.asarray(got, dtype=np.float64) - want)))
    assert error > 10 * TOLERANCE, f"{case.id} without {mutation}: max error only {error:.3g}"


def test_the_cases_cover_the_brief():
    """Every mask kind, sinks, both temperatures, MLA, softcap, LongRoPE's two regimes, >= 26 cases and >= 15
    configs, positions past 32,700."""
    kinds, features, configs = set(), set(), set()
    for case in CASES:
        config = load_config(case)
        spec = reference.layer_spec(config, case.layer)
        kinds.add(spec.layer_type)
        configs.add(case.config if isinstance(case.config, str) else json.dumps(case.config, sort_keys=True))
        features.update(f for f, on in (
            ("sinks", spec.sinks), ("softcap", spec.softcap is not None), ("mla", spec.rotary_slice.start > 0),
            ("llama4-temperature", spec.model_type == "llama4_text" and spec.temperature is not None),
            ("ministral-temperature", spec.model_type == "ministral3" and spec.temperature is not None),
            ("proportional", spec.rope is not None and spec.rope["rope_type"] == "proportional"),
        ) if on)
        if spec.rope is not None and spec.rope["rope_type"] == "longrope":
            orig = spec.rope["original_max_position_embeddings"]
            features.add("longrope-long" if max(case.positions) + 1 > orig else "longrope-short")
    assert kinds == {"full_attention", "sliding_attention", "chunked_attention"}
    assert features >= {"sinks", "softcap", "mla", "llama4-temperature", "ministral-temperature", "proportional",
                        "longrope-long", "longrope-short"}
    assert len(CASES) >= 26 and len(configs) >= 15
    assert max(max(c.positions) for c in CASES) >= 32700


def test_reference_is_rope_as_complex_numbers():
    """The reference itself on a plain config: RoPE written as complex rotations of (x_j, x_{j+d/2}) pairs."""
    config = {"model_type": "llama", "hidden_size": 16, "num_attention_heads": 2, "num_hidden_layers": 1,
              "rope_theta": 10000.0, "max_position_embeddings": 64}
    rng = np.random.default_rng(3)
    n, h, d = 9, 2, 8
    positions = span(5, n, 2)
    q, k = rng.standard_normal((n, h * d)), rng.standard_normal((n, h * d))
    theta = 10000.0 ** (-np.arange(0, d, 2) / d)
    rot = np.exp(1j * np.asarray(positions)[:, None, None] * theta[None, None, :])
    qc = (q.reshape(n, h, d)[..., : d // 2] + 1j * q.reshape(n, h, d)[..., d // 2:]) * rot
    kc = (k.reshape(n, h, d)[..., : d // 2] + 1j * k.reshape(n, h, d)[..., d // 2:]) * rot
    logits = np.real(np.einsum("ihd,jhd->hij", qc, np.conj(kc))) / np.sqrt(d)
    logits = np.where(np.tril(np.ones((n, n), bool))[None], logits, -np.inf)
    want = np.exp(logits - logits.max(-1, keepdims=True))
    want /= want.sum(-1, keepdims=True)
    got = reference.layer_attention(config, 0, q, k, positions)
    np.testing.assert_allclose(got, want, atol=1e-12)


def test_reference_llama3_matches_metas_loop():
    """llama3 frequencies as Meta's apply_scaling loop (llama-models) writes them, for Llama 3.1 8B."""
    with open(os.path.join(GALLERY, "llama-3.1-8b.json"), encoding="utf-8") as f:
        spec = reference.layer_spec(json.load(f), 0)
    got, factor = reference.inverse_frequencies(spec, 1)
    want = []
    for freq in 1.0 / 500000.0 ** (np.arange(0, 128, 2) / 128):
        wavelen = 2 * np.pi / freq
        if wavelen < 8192 / 4:
            want.append(freq)
        elif wavelen > 8192 / 1:
            want.append(freq / 8)
        else:
            smooth = (8192 / wavelen - 1) / (4 - 1)
            want.append((1 - smooth) * freq / 8 + smooth * freq)
    np.testing.assert_allclose(got, want, rtol=1e-14)
    assert factor == 1.0


def _fixture_module():
    import importlib.util

    path = os.path.join(ROOT, "tools", "write-real-layer-fixture.py")
    spec = importlib.util.spec_from_file_location("write_real_layer_fixture", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_fixture_is_current_and_hirope_meets_it():
    """tests/fixtures/real-layers.json (for the JS and native tests) is what tools/write-real-layer-fixture.py writes
    now, and hirope meets it from the file's own numbers."""
    writer = _fixture_module()
    with open(writer.OUT, encoding="utf-8") as f:
        text = f.read()
    assert text == writer.text(writer.build()), "stale: run /usr/bin/python3 tools/write-real-layer-fixture.py"
    for entry in json.loads(text)["cases"]:
        config = entry["config"]
        if isinstance(config, str):
            with open(os.path.join(GALLERY, config + ".json"), encoding="utf-8") as f:
                config = json.load(f)
        layer = hirope.from_config(json.dumps(config))["layers"][entry["layer"]]
        n, d = len(entry["positions"]), entry["headDim"]
        case = Case(entry["id"], config, entry["layer"], entry["positions"], "fixture", [], heads=1)
        q = np.asarray(entry["q"], dtype=np.float32).reshape(n, d)
        k = np.asarray(entry["k"], dtype=np.float32).reshape(n, d)
        sinks = None if entry["sinks"] is None else np.asarray(entry["sinks"], dtype=np.float32)
        got = hirope_probs(layer, case, q, k, sinks, "tiled")[0]
        error = float(np.max(np.abs(got - np.asarray(entry["probs"]))))
        assert error <= TOLERANCE, f"fixture {entry['id']}: max error {error:.3g}"
