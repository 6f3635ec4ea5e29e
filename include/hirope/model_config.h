// hirope model configs: what a Hugging Face config.json says about positions, layer by layer.
//
// read_model_config takes the text of a config.json (a text decoder, or a multimodal wrapper whose
// "text_config" is one) and returns a ModelSetup: the model-wide dimensions and lengths, and for
// every layer its attention kind (full, sliding window, chunked, or a linear-attention layer), RoPE
// or NoPE, the hirope Scheme that layer rotates with (base and Scaling, as every other hirope call
// takes it), sinks, the query temperature, the softmax scale and the logit soft-cap. The meaning of
// every key is transformers' (its configuration_*.py classes and modeling_*.py code; vLLM's for
// Dual Chunk Attention); docs/real-models.md states each rule with its source.
//
// What it reads
// - Dimensions: head_dim, else hidden_size / num_attention_heads (GPT-J and CodeGen: n_embd,
//   n_head, n_layer, n_positions); the rotated part from partial_rotary_factor (top level or inside
//   the rope parameters), qk_rope_head_dim (MLA: the head is qk_nope_head_dim + qk_rope_head_dim,
//   the RoPE part last: Scheme::rotary_last), rotary_dim or rotary_pct. Gemma 4's global_head_dim
//   for its full-attention layers.
// - Config-class defaults: a key the file leaves out takes the default of transformers' config
//   class for its model type (Gemma3TextConfig's head_dim 256 and 8 heads, LlamaConfig's 32 layers
//   for a LLaVA text_config, Gemma4TextConfig's global_head_dim 512, GPT-J's rotary_dim 64 ...). A
//   wrapper's text_config without a model_type takes the wrapper's (llava: llama; gemma3:
//   gemma3_text; gemma4: gemma4_text; llama4: llama4_text).
// - Lengths: max_position_embeddings; the trained length is original_max_position_embeddings
//   (inside the rope parameters or at the top level) where present, else the maximum.
// - RoPE, both formats: v4 rope_theta + rope_scaling (keyed by "rope_type" or "type"); v5
//   rope_parameters, flat or nested per layer type ({"full_attention": {...}, ...}). Types:
//   default, linear, dynamic, yarn, longrope, llama3, proportional (ScalingType none, linear,
//   dynamic_ntk, yarn, longrope, llama3, proportional; proportional's factor divides its
//   frequencies). Gemma 3's rope_local_base_freq for its sliding layers.
// - Pair layout: rope_interleave, else the model type (adjacent pairs: Llama 4, Cohere, GLM,
//   GPT-J, CodeGen, DeepSeek V2/V3, ERNIE 4.5; rotate_half: the known half-split types); another
//   model type is read as rotate_half with a warning that the layout was assumed.
// - Layer patterns: layer_types; sliding_window with sliding_window_pattern, or with
//   use_sliding_window and max_window_layers; the defaults transformers applies per model type when
//   layer_types is absent (gemma2, gemma3, gemma4 with its last layer full, cohere2, gpt_oss,
//   olmo3, llama4, qwen3_next, qwen2/qwen3 and the models that slide every layer); no_rope_layers,
//   no_rope_layer_interval; attention_chunk_size; Llama 4's attn_temperature_tuning, floor_scale,
//   attn_scale and Ministral 3's llama_4_scaling_beta; dual_chunk_attention_config.
// - Softmax scale and soft-cap (LayerSetup::scale, softcap): Gemma 2/3 query_pre_attn_scalar^-1/2,
//   Gemma 2's attn_logit_softcapping, Gemma 4's 1.0, MLA's qk_head_dim^-1/2 * mscale^2.
// - Linear-attention layers (Qwen3-Next's "linear_attention", Gated DeltaNet): marked
//   (LayerSetup::linear), with no RoPE and no softmax attention map.
// - Refused: M-RoPE (a "mrope" type or an mrope_section: vision position ids), with a message
//   saying that only text decoders are read.
//
// Errors and warnings
// - A key that matters for attention but that the setup does not model (the output logits'
//   soft-cap, QK norm, explicit or implied by the model type, an unknown rope parameter ...) is
//   listed in ModelSetup::warnings with what it does; nothing is dropped silently.
// - A malformed config is an error naming the key ("rope_scaling.factor must be a number >= 1,
//   got -2"). Limits (ModelConfigLimits) are checked before the memory they guard is taken: the
//   text's size, nesting depth and value count (the JSON parser is iterative), the layer count,
//   a factor list's length (it must match the rotated dims).
#pragma once

#include "hirope/hirope.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace hirope {

// AttentionKind and QueryTemperature are the core's (hirope.h): attention takes them per layer.

// Dual Chunk Attention (Qwen2.5-1M, run by vLLM): keys at p mod (chunk_size - local_size); queries
// within the chunk likewise, in the next chunk up to chunk_size, and farther a constant.
struct DualChunk {
    bool enabled = false;
    int64_t chunk_size = 0;
    int64_t local_size = 0;
    int64_t original_length = 0;
};

struct LayerSetup {
    AttentionKind attention = AttentionKind::full;
    int64_t window = 0;     // sliding
    int64_t chunk_size = 0; // chunked
    bool rope = true;       // false: NoPE (scheme.type is SchemeType::nope)
    Scheme scheme;      // this layer's own frequencies: inverse_frequencies(scheme, head_dim, n)
    int head_dim = 0;   // the head dim to pass with scheme (Gemma 4's global layers differ)
    bool sinks = false; // a learned sink logit per head (GPT-oss): a weight, not in the config
    QueryTemperature temperature;
    // The layer's softmax scale on q.k, AttentionRequest::scale (0: head_dim^-1/2, its default).
    // Set where the model's code sets its own: Gemma 2/3 query_pre_attn_scalar^-1/2 (default 256),
    // Gemma 4 1.0, MLA (DeepSeek V2/V3) qk_head_dim^-1/2 * mscale(factor, mscale_all_dim)^2 when
    // the rope parameters have a type other than default and a mscale_all_dim, with
    // mscale(s, m) = 0.1 m ln(s) + 1 for s > 1, else 1.
    double scale = 0;
    // Logit soft-capping, AttentionRequest::softcap (0: none): Gemma 2's attn_logit_softcapping
    // (Gemma2Config's default 50 when the file leaves the key out; null: none).
    double softcap = 0;
    // A linear-attention layer (Qwen3-Next's "linear_attention", a Gated DeltaNet): no softmax
    // attention map and no RoPE (rope is false, scheme is NoPE; attention is full and causal for
    // layer_sees). model_setup_json writes its attention as {"type": "linear"}, which no attention
    // call takes as a mask.
    bool linear = false;
    std::string type; // the layer type as transformers names it: "sliding_attention" ...
};

struct ModelSetup {
    std::string model_type; // of the text decoder ("gemma3_text" inside a gemma3 wrapper)
    int head_dim = 0;       // the query/key head dim (MLA: qk_nope_head_dim + qk_rope_head_dim)
    int rotary_dim = 0;     // dims rotated on the RoPE layers (model-wide)
    Layout layout = Layout::half;
    std::string layout_source;  // why that layout: "model type llama4 (view_as_complex)" ...
    int64_t trained_length = 0; // original_max_position_embeddings, else max_length
    int64_t max_length = 0;     // max_position_embeddings (0 when the config has none)
    // Whether the scaling was put on after training at trained_length: the config names a length
    // before its extension (trained_length below max_length). One that names none (Gemma 3's
    // linear x8) trained with it. What unseen_pairs needs for linear and NTK-aware scalings
    // (UnseenRequest::scaled_after_training); JSON "scaledAfterTraining".
    bool scaled_after_training = false;
    std::vector<LayerSetup> layers;
    DualChunk dual_chunk;
    std::vector<std::string> warnings; // keys read but not modeled, each with why it matters
};

struct ModelConfigLimits {
    size_t max_bytes = size_t{1} << 20; // real config.json files are < 100 KB
    size_t max_depth = 32;
    size_t max_values = size_t{1} << 17;
    int64_t max_layers = 4096;
};

// Reads a config.json (see above). On error *out is left empty and the message names the key.
Status read_model_config(std::string_view text, ModelSetup* out,
                         const ModelConfigLimits& limits = ModelConfigLimits());

// A setup as JSON text, the shape hr.fromConfig and hirope.from_config return (keys in camelCase
// as the JS API writes them): {modelType, headDim, rotaryDim, layout, layoutSource, trainedLength,
// maxLength, layerCount, layers: [{type, attention: {type, window?, chunkSize?}, rope, scheme,
// headDim, sinks, temperature?: {floorScale, scale, offset}, scale?, softcap?}], dualChunk?,
// warnings}. A layer's scale and softcap are written only where they are set (non-zero: absent
// means head_dim^-1/2 and no soft-cap); a linear-attention layer's attention is {type: "linear"}.
// Each scheme is scheme_json's, which every other call takes back.
// (src/model_config/model_setup_json.cpp)
std::string model_setup_json(const ModelSetup& setup);
// One layer of it, as model_setup_json writes each: its "attention" (a mask), "scheme",
// "temperature", "scale" and "softcap" are the options an attention call takes for that layer.
std::string layer_setup_json(const LayerSetup& layer);

// Whether the query at position `query` sees the key at `key` on this layer (the core's mask_sees
// with the layer's mask; every kind is causal). For callers that build masks and for tests;
// positions are >= 0. The query temperature's factor is the core's query_scale.
bool layer_sees(const LayerSetup& layer, int64_t query, int64_t key);

} // namespace hirope
