// Architectures as data and the binding of a checkpoint's tensors to one
// (include/hirope/architectures.h). Every row below was written from transformers' modeling and
// configuration files for its model type (the names each nn.Module registers, the bias flags, the
// config class's defaults); the llama.cpp names are its src/llama-arch.cpp LLM_TENSOR_NAMES.
//
// config.json is read twice: by the config reader (read_model_config: the per-layer position
// setup) and here for the keys that reader does not give (sizes, biases, norm, activation), with
// the same JSON parser (src/tokenizers/json.h, reached across the folder line as the reader does).
#include "hirope/architectures.h"

#include "tokenizers/json.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

namespace hirope {
namespace checkpoint {

namespace {

using json::Document;
using json::Type;

constexpr Presence kAlways = Presence::always;
constexpr Presence kAttnBias = Presence::attention_bias;
constexpr Presence kMlpBias = Presence::mlp_bias;

// A row group: rows several architectures share, in their order. join() lays groups end to end,
// so each architecture's table below reads as the modules its modeling file registers.
template <size_t N> using Rows = std::array<TensorName, N>;
template <size_t... N> constexpr Rows<(N + ...)> join(const Rows<N>&... groups) {
    Rows<(N + ...)> out{};
    size_t i = 0;
    auto put = [&](const auto& group) {
        for (const TensorName& row : group) out[i++] = row;
    };
    (put(groups), ...);
    return out;
}

// The decoder's ends (LlamaModel: embed_tokens, norm) and a layer's first norm
// (LlamaDecoderLayer.input_layernorm), as every RMSNorm architecture here names them.
constexpr Rows<3> kEmbedAndNorms = {{
    {WeightRole::embed, "embed_tokens.weight", kAlways, "token_embd"},
    {WeightRole::final_norm, "norm.weight", kAlways, "output_norm"},
    {WeightRole::attn_norm, "layers.{L}.input_layernorm.weight", kAlways, "blk.%d.attn_norm"},
}};
// LlamaAttention's q/k/v/o_proj with bias=attention_bias (Qwen3, Gemma 2/3 and StarCoder2's
// attention are the same modules, their bias keys named in their rows below).
constexpr Rows<8> kAttention = {{
    {WeightRole::q, "layers.{L}.self_attn.q_proj.weight", kAlways, "blk.%d.attn_q"},
    {WeightRole::q_bias, "layers.{L}.self_attn.q_proj.bias", kAttnBias, "blk.%d.attn_q"},
    {WeightRole::k, "layers.{L}.self_attn.k_proj.weight", kAlways, "blk.%d.attn_k"},
    {WeightRole::k_bias, "layers.{L}.self_attn.k_proj.bias", kAttnBias, "blk.%d.attn_k"},
    {WeightRole::v, "layers.{L}.self_attn.v_proj.weight", kAlways, "blk.%d.attn_v"},
    {WeightRole::v_bias, "layers.{L}.self_attn.v_proj.bias", kAttnBias, "blk.%d.attn_v"},
    {WeightRole::o, "layers.{L}.self_attn.o_proj.weight", kAlways, "blk.%d.attn_output"},
    {WeightRole::o_bias, "layers.{L}.self_attn.o_proj.bias", kAttnBias, "blk.%d.attn_output"},
}};
// Qwen3RMSNorm / Gemma3RMSNorm(head_dim) on each head's q and k.
constexpr Rows<2> kQkNorms = {{
    {WeightRole::q_norm, "layers.{L}.self_attn.q_norm.weight", kAlways, "blk.%d.attn_q_norm"},
    {WeightRole::k_norm, "layers.{L}.self_attn.k_norm.weight", kAlways, "blk.%d.attn_k_norm"},
}};
// LlamaDecoderLayer.post_attention_layernorm: the MLP's input norm.
constexpr Rows<1> kMlpNorm = {{
    {WeightRole::ffn_norm, "layers.{L}.post_attention_layernorm.weight", kAlways,
     "blk.%d.ffn_norm"},
}};
// A gated MLP without biases (Qwen2MLP, Qwen3MLP, Gemma2MLP: gate/up/down_proj, bias=False).
constexpr Rows<3> kGatedMlp = {{
    {WeightRole::gate, "layers.{L}.mlp.gate_proj.weight", kAlways, "blk.%d.ffn_gate"},
    {WeightRole::up, "layers.{L}.mlp.up_proj.weight", kAlways, "blk.%d.ffn_up"},
    {WeightRole::down, "layers.{L}.mlp.down_proj.weight", kAlways, "blk.%d.ffn_down"},
}};
// Gemma2DecoderLayer's other norms (Gemma2RMSNorm): post_attention_layernorm on attention's
// output, pre_feedforward_layernorm (the MLP's input), post_feedforward_layernorm.
constexpr Rows<3> kGemmaNorms = {{
    {WeightRole::attn_post_norm, "layers.{L}.post_attention_layernorm.weight", kAlways,
     "blk.%d.post_attention_norm"},
    {WeightRole::ffn_norm, "layers.{L}.pre_feedforward_layernorm.weight", kAlways,
     "blk.%d.ffn_norm"},
    {WeightRole::ffn_post_norm, "layers.{L}.post_feedforward_layernorm.weight", kAlways,
     "blk.%d.post_ffw_norm"},
}};

// modeling_llama.py (LlamaModel: embed_tokens, layers, norm; LlamaDecoderLayer: input_layernorm,
// self_attn, post_attention_layernorm, mlp; LlamaAttention: q/k/v/o_proj, bias=attention_bias;
// LlamaMLP: gate/up/down_proj, bias=mlp_bias). Mistral's rows are these with both bias keys absent
// (modeling_mistral.py: bias=False throughout).
constexpr auto kLlamaTensors =
    join(kEmbedAndNorms, kAttention, kMlpNorm,
         Rows<6>{{
             {WeightRole::gate, "layers.{L}.mlp.gate_proj.weight", kAlways, "blk.%d.ffn_gate"},
             {WeightRole::gate_bias, "layers.{L}.mlp.gate_proj.bias", kMlpBias, "blk.%d.ffn_gate"},
             {WeightRole::up, "layers.{L}.mlp.up_proj.weight", kAlways, "blk.%d.ffn_up"},
             {WeightRole::up_bias, "layers.{L}.mlp.up_proj.bias", kMlpBias, "blk.%d.ffn_up"},
             {WeightRole::down, "layers.{L}.mlp.down_proj.weight", kAlways, "blk.%d.ffn_down"},
             {WeightRole::down_bias, "layers.{L}.mlp.down_proj.bias", kMlpBias, "blk.%d.ffn_down"},
         }});

// modeling_qwen2.py: Qwen2Attention q/k/v_proj bias=True, o_proj bias=False; Qwen2MLP bias=False.
constexpr auto kQwen2Tensors =
    join(kEmbedAndNorms,
         Rows<7>{{
             {WeightRole::q, "layers.{L}.self_attn.q_proj.weight", kAlways, "blk.%d.attn_q"},
             {WeightRole::q_bias, "layers.{L}.self_attn.q_proj.bias", kAlways, "blk.%d.attn_q"},
             {WeightRole::k, "layers.{L}.self_attn.k_proj.weight", kAlways, "blk.%d.attn_k"},
             {WeightRole::k_bias, "layers.{L}.self_attn.k_proj.bias", kAlways, "blk.%d.attn_k"},
             {WeightRole::v, "layers.{L}.self_attn.v_proj.weight", kAlways, "blk.%d.attn_v"},
             {WeightRole::v_bias, "layers.{L}.self_attn.v_proj.bias", kAlways, "blk.%d.attn_v"},
             {WeightRole::o, "layers.{L}.self_attn.o_proj.weight", kAlways, "blk.%d.attn_output"},
         }},
         kMlpNorm, kGatedMlp);

// modeling_qwen3.py: Qwen3Attention q/k/v/o_proj bias=attention_bias, q_norm and k_norm
// Qwen3RMSNorm(head_dim); Qwen3MLP bias=False.
constexpr auto kQwen3Tensors = join(kEmbedAndNorms, kAttention, kQkNorms, kMlpNorm, kGatedMlp);

// modeling_gemma2.py: Gemma2DecoderLayer's four norms (Gemma2RMSNorm); Gemma2Attention
// q/k/v/o_proj bias=attention_bias; Gemma2MLP gate/up/down_proj bias=False.
constexpr auto kGemma2Tensors = join(kEmbedAndNorms, kAttention, kGemmaNorms, kGatedMlp);

// modeling_gemma3.py: Gemma 2's rows plus Gemma3Attention's q_norm and k_norm
// (Gemma3RMSNorm(head_dim)).
constexpr auto kGemma3Tensors = join(kEmbedAndNorms, kAttention, kQkNorms, kGemmaNorms, kGatedMlp);

// modular_phi3.py: Phi3Attention qkv_proj (op_size = (nH + 2 nKV) * head_dim, bias=False) and
// o_proj; Phi3MLP gate_up_proj (2 * intermediate_size, bias=False), down_proj; the decoder layer
// is Mistral's (input_layernorm, post_attention_layernorm).
constexpr auto kPhi3Tensors =
    join(kEmbedAndNorms,
         Rows<2>{{
             {WeightRole::qkv, "layers.{L}.self_attn.qkv_proj.weight", kAlways, "blk.%d.attn_qkv"},
             {WeightRole::o, "layers.{L}.self_attn.o_proj.weight", kAlways, "blk.%d.attn_output"},
         }},
         kMlpNorm,
         Rows<2>{{
             {WeightRole::gate_up, "layers.{L}.mlp.gate_up_proj.weight", kAlways, "blk.%d.ffn_up"},
             {WeightRole::down, "layers.{L}.mlp.down_proj.weight", kAlways, "blk.%d.ffn_down"},
         }});

// modeling_starcoder2.py: Starcoder2DecoderLayer input_layernorm and post_attention_layernorm
// (nn.LayerNorm: weight and bias), Starcoder2Model norm (nn.LayerNorm); Starcoder2Attention
// q/k/v/o_proj bias=use_bias; Starcoder2MLP c_fc, c_proj bias=use_bias.
constexpr auto kStarcoder2Tensors = join(
    Rows<5>{{
        {WeightRole::embed, "embed_tokens.weight", kAlways, "token_embd"},
        {WeightRole::final_norm, "norm.weight", kAlways, "output_norm"},
        {WeightRole::final_norm_bias, "norm.bias", kAlways, "output_norm"},
        {WeightRole::attn_norm, "layers.{L}.input_layernorm.weight", kAlways, "blk.%d.attn_norm"},
        {WeightRole::attn_norm_bias, "layers.{L}.input_layernorm.bias", kAlways,
         "blk.%d.attn_norm"},
    }},
    kAttention,
    Rows<6>{{
        {WeightRole::ffn_norm, "layers.{L}.post_attention_layernorm.weight", kAlways,
         "blk.%d.ffn_norm"},
        {WeightRole::ffn_norm_bias, "layers.{L}.post_attention_layernorm.bias", kAlways,
         "blk.%d.ffn_norm"},
        {WeightRole::up, "layers.{L}.mlp.c_fc.weight", kAlways, "blk.%d.ffn_up"},
        {WeightRole::up_bias, "layers.{L}.mlp.c_fc.bias", kMlpBias, "blk.%d.ffn_up"},
        {WeightRole::down, "layers.{L}.mlp.c_proj.weight", kAlways, "blk.%d.ffn_down"},
        {WeightRole::down_bias, "layers.{L}.mlp.c_proj.bias", kMlpBias, "blk.%d.ffn_down"},
    }});

constexpr Prefix kTextPrefix[] = {{"model.", "lm_head.weight"}};
// Gemma3ForConditionalGeneration: the text model's own names, the legacy multimodal save
// (_checkpoint_conversion_mapping "^language_model.model" -> "model.language_model",
// "^language_model.lm_head" -> "lm_head"), and the current one.
constexpr Prefix kGemma3Prefixes[] = {{"model.", "lm_head.weight"},
                                      {"language_model.model.", "language_model.lm_head.weight"},
                                      {"model.language_model.", "lm_head.weight"}};
// A multimodal wrapper's other towers, skipped (with a warning) when the text decoder is found
// under a wrapper's prefix.
constexpr const char* kOtherTowers[] = {"vision_tower.", "multi_modal_projector.",
                                        "model.vision_tower.", "model.multi_modal_projector."};

template <size_t N> constexpr size_t count_of(const Prefix (&)[N]) {
    return N;
}

// Llama's row (modeling_llama.py, configuration_llama.py: LlamaConfig's defaults); every other row
// starts from it and says where it differs (the defaults from configuration_<type>.py).
Architecture llama_row() {
    Architecture a{};
    a.model_type = "llama";
    a.description = "Llama 2/3.x, CodeLlama, SmolLM2";
    a.source = "modeling_llama.py, configuration_llama.py";
    a.norm = NormKind::rms;
    a.norm_eps_key = "rms_norm_eps";
    a.norm_eps_default = 1e-6;
    a.activation_key = "hidden_act";
    a.activation_default = "silu";
    a.mlp = MlpKind::gated;
    a.fused_qkv = false;
    a.qk_norm = false;
    a.sandwich_norms = false;
    a.embedding_scaled = false;
    a.attention_bias_key = "attention_bias";
    a.attention_bias_default = false;
    a.mlp_bias_key = "mlp_bias";
    a.mlp_bias_default = false;
    a.final_softcap_key = nullptr;
    a.final_softcap_default = 0;
    a.vocab_size = 32000;
    a.hidden_size = 4096;
    a.intermediate_size = 11008;
    a.num_attention_heads = 32;
    a.num_key_value_heads = 0; // num_attention_heads
    a.head_dim = 0;            // hidden_size / num_attention_heads
    a.tie_word_embeddings = false;
    a.prefixes = kTextPrefix;
    a.prefix_count = count_of(kTextPrefix);
    a.tensors = kLlamaTensors.data();
    a.tensor_count = kLlamaTensors.size();
    return a;
}

Architecture mistral_row() {
    Architecture a = llama_row();
    a.model_type = "mistral";
    a.description = "Mistral";
    a.source = "modeling_mistral.py, configuration_mistral.py";
    a.attention_bias_key = nullptr; // bias=False throughout
    a.mlp_bias_key = nullptr;
    a.intermediate_size = 14336;
    a.num_key_value_heads = 8;
    return a;
}

Architecture qwen2_row() {
    Architecture a = llama_row();
    a.model_type = "qwen2";
    a.description = "Qwen2, Qwen2.5, Qwen2.5-Coder (q/k/v biases)";
    a.source = "modeling_qwen2.py, configuration_qwen2.py";
    a.attention_bias_key = nullptr; // q/k/v always biased, o never: the table says so
    a.mlp_bias_key = nullptr;
    a.vocab_size = 151936;
    a.intermediate_size = 22016;
    a.num_key_value_heads = 32;
    a.tensors = kQwen2Tensors.data();
    a.tensor_count = kQwen2Tensors.size();
    return a;
}

Architecture qwen3_row() {
    Architecture a = llama_row();
    a.model_type = "qwen3";
    a.description = "Qwen3 (per-head q/k RMSNorm)";
    a.source = "modeling_qwen3.py, configuration_qwen3.py";
    a.qk_norm = true;
    a.mlp_bias_key = nullptr;
    a.vocab_size = 151936;
    a.intermediate_size = 22016;
    a.num_key_value_heads = 32;
    a.head_dim = 128;
    a.tensors = kQwen3Tensors.data();
    a.tensor_count = kQwen3Tensors.size();
    return a;
}

Architecture gemma2_row() {
    Architecture a = llama_row();
    a.model_type = "gemma2";
    a.description = "Gemma 2 (GeGLU, (1 + w) RMSNorm, sandwich norms, soft-caps)";
    a.source = "modeling_gemma2.py, configuration_gemma2.py";
    a.norm = NormKind::rms_one_plus;
    a.activation_key = "hidden_activation";
    a.activation_default = "gelu_pytorch_tanh";
    a.sandwich_norms = true;
    a.embedding_scaled = true;
    a.mlp_bias_key = nullptr;
    a.final_softcap_key = "final_logit_softcapping";
    a.final_softcap_default = 30.0;
    a.vocab_size = 256000;
    a.hidden_size = 2304;
    a.intermediate_size = 9216;
    a.num_attention_heads = 8;
    a.num_key_value_heads = 4;
    a.head_dim = 256;
    a.tie_word_embeddings = true;
    a.tensors = kGemma2Tensors.data();
    a.tensor_count = kGemma2Tensors.size();
    return a;
}

Architecture gemma3_row() {
    Architecture a = gemma2_row();
    a.model_type = "gemma3_text";
    a.description = "Gemma 3 text (as Gemma 2 with q/k norms and a local RoPE base)";
    a.source = "modeling_gemma3.py, configuration_gemma3.py";
    a.qk_norm = true;
    a.final_softcap_default = 0; // Gemma3TextConfig: None
    a.vocab_size = 262208;
    a.prefixes = kGemma3Prefixes;
    a.prefix_count = count_of(kGemma3Prefixes);
    a.tensors = kGemma3Tensors.data();
    a.tensor_count = kGemma3Tensors.size();
    return a;
}

Architecture phi3_row() {
    Architecture a = llama_row();
    a.model_type = "phi3";
    a.description = "Phi-3 (fused qkv and gate_up, partial rotary)";
    a.source = "modular_phi3.py, configuration_phi3.py";
    a.norm_eps_default = 1e-5;
    a.mlp = MlpKind::fused_gated;
    a.fused_qkv = true;
    a.attention_bias_key = nullptr; // bias=False
    a.mlp_bias_key = nullptr;
    a.vocab_size = 32064;
    a.hidden_size = 3072;
    a.intermediate_size = 8192;
    a.tensors = kPhi3Tensors.data();
    a.tensor_count = kPhi3Tensors.size();
    return a;
}

Architecture starcoder2_row() {
    Architecture a = llama_row();
    a.model_type = "starcoder2";
    a.description = "StarCoder2 (LayerNorm with bias, plain GELU MLP, biases)";
    a.source = "modeling_starcoder2.py, configuration_starcoder2.py";
    a.norm = NormKind::layer_norm;
    a.norm_eps_key = "norm_epsilon";
    a.norm_eps_default = 1e-5;
    a.activation_default = "gelu_pytorch_tanh";
    a.mlp = MlpKind::plain;
    a.attention_bias_key = "use_bias";
    a.attention_bias_default = true;
    a.mlp_bias_key = "use_bias";
    a.mlp_bias_default = true;
    a.vocab_size = 49152;
    a.hidden_size = 3072;
    a.intermediate_size = 12288;
    a.num_attention_heads = 24;
    a.num_key_value_heads = 2;
    a.tie_word_embeddings = true;
    a.tensors = kStarcoder2Tensors.data();
    a.tensor_count = kStarcoder2Tensors.size();
    return a;
}

constexpr const char* kRoleNames[] = {"embed",
                                      "final_norm",
                                      "final_norm_bias",
                                      "lm_head",
                                      "attn_norm",
                                      "attn_norm_bias",
                                      "q",
                                      "q_bias",
                                      "k",
                                      "k_bias",
                                      "v",
                                      "v_bias",
                                      "qkv",
                                      "o",
                                      "o_bias",
                                      "q_norm",
                                      "k_norm",
                                      "attn_post_norm",
                                      "ffn_norm",
                                      "ffn_norm_bias",
                                      "ffn_post_norm",
                                      "gate",
                                      "gate_bias",
                                      "up",
                                      "up_bias",
                                      "gate_up",
                                      "down",
                                      "down_bias"};

static_assert(sizeof(kRoleNames) / sizeof(kRoleNames[0]) == kWeightRoleCount, "a name per Role");

// A weight's shape as terms of the config's dims: one rule for the numbers (expected_shape) and
// the formula in config keys that error messages show.
enum class Term : uint8_t { vocab, hidden, intermediate, intermediate2, q, kv, qkv, head_dim };

struct ShapeTerms {
    Term dims[2];
    int count;
};

ShapeTerms shape_terms(WeightRole role) {
    using T = Term;
    switch (role) {
    case WeightRole::embed:
    case WeightRole::lm_head:
        return {{T::vocab, T::hidden}, 2};
    case WeightRole::q:
        return {{T::q, T::hidden}, 2};
    case WeightRole::q_bias:
        return {{T::q}, 1};
    case WeightRole::k:
    case WeightRole::v:
        return {{T::kv, T::hidden}, 2};
    case WeightRole::k_bias:
    case WeightRole::v_bias:
        return {{T::kv}, 1};
    case WeightRole::qkv:
        return {{T::qkv, T::hidden}, 2};
    case WeightRole::o:
        return {{T::hidden, T::q}, 2};
    case WeightRole::q_norm:
    case WeightRole::k_norm:
        return {{T::head_dim}, 1};
    case WeightRole::gate:
    case WeightRole::up:
        return {{T::intermediate, T::hidden}, 2};
    case WeightRole::gate_bias:
    case WeightRole::up_bias:
        return {{T::intermediate}, 1};
    case WeightRole::gate_up:
        return {{T::intermediate2, T::hidden}, 2};
    case WeightRole::down:
        return {{T::hidden, T::intermediate}, 2};
    default: // the norms, their biases, o_bias, down_bias
        return {{T::hidden}, 1};
    }
}

const char* term_formula(Term t) {
    switch (t) {
    case Term::vocab:
        return "vocab_size";
    case Term::hidden:
        return "hidden_size";
    case Term::intermediate:
        return "intermediate_size";
    case Term::intermediate2:
        return "2 * intermediate_size";
    case Term::q:
        return "num_attention_heads * head_dim";
    case Term::kv:
        return "num_key_value_heads * head_dim";
    case Term::qkv:
        return "(num_attention_heads + 2 * num_key_value_heads) * head_dim";
    case Term::head_dim:
        return "head_dim";
    }
    return "";
}

uint64_t term_value(Term t, const Dims& d) {
    const uint64_t hd = static_cast<uint64_t>(d.head_dim), q = static_cast<uint64_t>(d.heads) * hd,
                   kv = static_cast<uint64_t>(d.kv_heads) * hd,
                   i = static_cast<uint64_t>(d.intermediate);
    switch (t) {
    case Term::vocab:
        return static_cast<uint64_t>(d.vocab);
    case Term::hidden:
        return static_cast<uint64_t>(d.hidden);
    case Term::intermediate:
        return i;
    case Term::intermediate2:
        return 2 * i;
    case Term::q:
        return q;
    case Term::kv:
        return kv;
    case Term::qkv:
        return q + 2 * kv;
    case Term::head_dim:
        return hd;
    }
    return 0;
}

// The expected shape's formula, in config keys: "[vocab_size, hidden_size]".
std::string shape_formula(WeightRole role) {
    const ShapeTerms t = shape_terms(role);
    std::string out = "[";
    for (int k = 0; k < t.count; ++k) out += std::string(k ? ", " : "") + term_formula(t.dims[k]);
    return out + "]";
}

std::string grouped(uint64_t v) {
    std::string digits = std::to_string(v), out;
    const size_t n = digits.size();
    for (size_t i = 0; i < n; ++i) {
        if (i > 0 && (n - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

std::string num(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}

std::string shape_text(const std::vector<uint64_t>& shape) {
    std::string s = "[";
    for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + "]";
}

std::string quoted(const std::string& s) {
    return "'" + s + "'";
}

std::string expand(const char* pattern, int layer) {
    std::string s = pattern;
    const size_t at = s.find("{L}");
    if (at != std::string::npos) s.replace(at, 3, std::to_string(layer));
    return s;
}

bool starts_with(const std::string& s, const char* p) {
    return s.compare(0, std::strlen(p), p) == 0;
}
bool ends_with(const std::string& s, const char* p) {
    const size_t n = std::strlen(p);
    return s.size() >= n && s.compare(s.size() - n, n, p) == 0;
}

// Typed access to config.json's keys; null counts as absent (as the config reader does).
class Keys {
  public:
    Keys(const Document& d, uint32_t cfg, std::string path)
        : d_(d), cfg_(cfg), path_(std::move(path)) {}

    uint32_t get(const char* key) const {
        const uint32_t v = d_.find(cfg_, key);
        if (v == Document::none || d_.type(v) == Type::null) return Document::none;
        return v;
    }
    bool is_null(const char* key) const {
        const uint32_t v = d_.find(cfg_, key);
        return v != Document::none && d_.type(v) == Type::null;
    }
    std::string name(const char* key) const { return path_ + key; }

    // An integer in [lo, hi], else `fallback` when absent (fallback 0: required).
    Status integer(const char* key, int64_t lo, int64_t hi, int64_t fallback, int64_t* out) const {
        const uint32_t v = get(key);
        if (v == Document::none) {
            if (fallback == 0) return Status::error("config.json: " + name(key) + " is required");
            *out = fallback;
            return {};
        }
        const double x = d_.type(v) == Type::number ? d_.number(v) : NAN;
        if (!(x == std::floor(x)) || x < static_cast<double>(lo) || x > static_cast<double>(hi))
            return Status::error("config.json: " + name(key) + " must be an integer in [" +
                                 std::to_string(lo) + ", " + std::to_string(hi) + "], got " +
                                 (d_.type(v) == Type::number ? std::string(d_.raw(v))
                                                             : json::type_name(d_.type(v))));
        *out = static_cast<int64_t>(x);
        return {};
    }
    Status boolean(const char* key, bool* out, bool* present) const {
        const uint32_t v = get(key);
        *present = v != Document::none;
        if (!*present) return {};
        if (d_.type(v) != Type::boolean)
            return Status::error("config.json: " + name(key) + " must be a boolean, got " +
                                 json::type_name(d_.type(v)));
        *out = d_.boolean(v);
        return {};
    }
    Status number(const char* key, double* out, bool* present) const {
        const uint32_t v = get(key);
        *present = v != Document::none;
        if (!*present) return {};
        if (d_.type(v) != Type::number || !std::isfinite(d_.number(v)))
            return Status::error("config.json: " + name(key) + " must be a finite number, got " +
                                 (d_.type(v) == Type::number ? std::string(d_.raw(v))
                                                             : json::type_name(d_.type(v))));
        *out = d_.number(v);
        return {};
    }
    Status string(const char* key, std::string* out, bool* present) const {
        const uint32_t v = get(key);
        *present = v != Document::none;
        if (!*present) return {};
        if (d_.type(v) != Type::string || d_.node(v).len > 64)
            return Status::error("config.json: " + name(key) + " must be a short string, got " +
                                 json::type_name(d_.type(v)));
        *out = d_.string(v);
        return {};
    }

  private:
    const Document& d_;
    uint32_t cfg_;
    std::string path_;
};

Status parse_config(std::string_view text, Document* doc) {
    const ModelConfigLimits limits;
    json::Limits jl;
    jl.max_bytes = limits.max_bytes;
    jl.max_depth = limits.max_depth;
    jl.max_nodes = limits.max_values;
    if (text.size() > limits.max_bytes)
        return Status::error("config.json: " + grouped(text.size()) +
                             " bytes is more than the limit of " + grouped(limits.max_bytes));
    return doc->parse(text, jl);
}

Status unsupported(const std::string& type) {
    return Status::error("config.json: model_type " +
                         (type.empty() ? std::string("(none)") : quoted(type)) +
                         " is not an architecture hirope reads checkpoints of; supported: " +
                         supported_model_types());
}

// The model types config.json names (the root's and its text_config's), for the unsupported-type
// error when the config reader refused the file.
bool names_supported_type(const Document& d, std::string* named) {
    bool supported = false;
    if (d.type(Document::root) != Type::object) return false;
    for (uint32_t obj : {Document::root, d.find(Document::root, "text_config")}) {
        if (obj == Document::none || d.type(obj) != Type::object) continue;
        const uint32_t t = d.find(obj, "model_type");
        if (t == Document::none || d.type(t) != Type::string || d.node(t).len > 64) continue;
        *named = d.string(t);
        supported = supported || find_architecture(*named) || *named == "gemma3";
    }
    return supported;
}

Status read_activation(const std::string& key, const std::string& value, Activation* out) {
    if (value == "silu" || value == "swish") {
        *out = Activation::silu;
    } else if (value == "gelu_pytorch_tanh" || value == "gelu_new" || value == "gelu_python_tanh") {
        *out = Activation::gelu_tanh;
    } else if (value == "gelu" || value == "gelu_python") {
        *out = Activation::gelu;
    } else {
        return Status::error("config.json: " + key + " is " + quoted(value) +
                             "; read: silu, swish, gelu_pytorch_tanh, gelu_new, "
                             "gelu_python_tanh, gelu, gelu_python");
    }
    return {};
}

// A checkpoint's tensors by name, across its files.
struct Held {
    const std::string* name;
    uint32_t file;
    const TensorInfo* info;
};

class Binder {
  public:
    Binder(const std::vector<ShardHeader>& files, CheckpointPlan* plan)
        : files_(files), p_(*plan) {}

    Status index() {
        if (files_.empty()) return Status::error("checkpoint: no safetensors file was given");
        size_t count = 0;
        for (const ShardHeader& f : files_) {
            if (f.header == nullptr)
                return Status::error("checkpoint: " + quoted(f.file) + " has no header");
            count += f.header->tensors.size();
        }
        held_.reserve(count);
        for (size_t i = 0; i < files_.size(); ++i)
            for (const TensorInfo& t : files_[i].header->tensors)
                held_.push_back({&t.name, static_cast<uint32_t>(i), &t});
        std::sort(held_.begin(), held_.end(), [](const Held& a, const Held& b) {
            if (*a.name != *b.name) return *a.name < *b.name;
            return a.file < b.file;
        });
        for (size_t i = 1; i < held_.size(); ++i)
            if (*held_[i].name == *held_[i - 1].name)
                return Status::error("checkpoint: tensor " + quoted(*held_[i].name) +
                                     " is in both " + quoted(files_[held_[i - 1].file].file) +
                                     " and " + quoted(files_[held_[i].file].file));
        used_.assign(held_.size(), false);
        where_ = files_.size() == 1 ? quoted(files_[0].file)
                                    : "the " + std::to_string(files_.size()) + " files";
        return {};
    }

    // The held tensor named `name`, or -1.
    int64_t lookup(const std::string& name) const {
        const auto it =
            std::lower_bound(held_.begin(), held_.end(), name,
                             [](const Held& h, const std::string& n) { return *h.name < n; });
        if (it == held_.end() || *it->name != name) return -1;
        return it - held_.begin();
    }

    // Adds the weight of `role` named `name` (layer -1: model-wide), checked.
    Status add(WeightRole role, int layer, const std::string& name, int32_t* slot) {
        const std::vector<uint64_t> want = expected_shape(role, p_.dims);
        const std::string what =
            (layer >= 0 ? "layer " + std::to_string(layer) + "'s " : std::string()) +
            role_name(role) + " " + shape_text(want) + " = " + shape_formula(role);
        const int64_t at = lookup(name);
        if (at < 0)
            return Status::error("checkpoint: no tensor " + quoted(name) + " in " + where_ + ": " +
                                 p_.architecture->model_type + " reads it as " + what);
        const Held& h = held_[static_cast<size_t>(at)];
        const TensorInfo& t = *h.info;
        const std::string label =
            "checkpoint: tensor " + quoted(name) + " (in " + quoted(files_[h.file].file) + ")";
        if (!is_weight_dtype(t.dtype))
            return Status::error(label + " is " + dtype_name(t.dtype) +
                                 "; weights are read as F32, F16 or BF16");
        if (t.shape != want)
            return Status::error(label + " has shape " + shape_text(t.shape) + "; " +
                                 p_.architecture->model_type + " expects " + what);
        used_[static_cast<size_t>(at)] = true;
        WeightRef w;
        w.role = role;
        w.layer = layer;
        w.file = h.file;
        w.tensor = t;
        w.file_offset = files_[h.file].header->data_offset + t.begin;
        *slot = static_cast<int32_t>(p_.weights.size());
        p_.weights.push_back(std::move(w));
        return {};
    }

    // Marks a held tensor as read or knowingly skipped.
    void mark(int64_t at) { used_[static_cast<size_t>(at)] = true; }

    // Whether a table entry is one of this model's weights.
    bool present(const TensorName& t) const {
        switch (t.presence) {
        case Presence::attention_bias:
            return p_.attention_bias;
        case Presence::mlp_bias:
            return p_.mlp_bias;
        default:
            return true;
        }
    }

    // Every tensor held but not read: skipped with a warning, or refused.
    Status leftovers() {
        size_t inv_freq = 0, towers = 0;
        std::vector<size_t> unknown;
        const bool wrapped = std::string(p_.prefix.decoder) != p_.architecture->prefixes[0].decoder;
        for (size_t i = 0; i < held_.size(); ++i) {
            if (used_[i]) continue;
            const std::string& name = *held_[i].name;
            if (ends_with(name, "rotary_emb.inv_freq")) {
                ++inv_freq;
                continue;
            }
            bool tower = false;
            if (wrapped)
                for (const char* t : kOtherTowers) tower = tower || starts_with(name, t);
            if (tower) {
                ++towers;
                continue;
            }
            unknown.push_back(i);
        }
        if (!unknown.empty()) {
            const Held& h = held_[unknown[0]];
            std::string m = "checkpoint: tensor " + quoted(*h.name) + " (in " +
                            quoted(files_[h.file].file) + ")";
            if (unknown.size() > 1) m += " and " + std::to_string(unknown.size() - 1) + " more";
            m += (unknown.size() > 1 ? " are" : " is") + std::string(" not ") +
                 (unknown.size() > 1 ? "weights" : "a weight") + " of " +
                 p_.architecture->model_type + " as config.json describes it" + hint(*h.name) +
                 ": hirope refuses tensors it would not read (the config and the weights may not "
                 "match)";
            return Status::error(m);
        }
        if (inv_freq > 0)
            p_.warnings.push_back("checkpoint: " + std::to_string(inv_freq) +
                                  " rotary_emb.inv_freq buffers are not read (RoPE's frequencies "
                                  "come from config.json)");
        if (towers > 0)
            p_.warnings.push_back("checkpoint: " + std::to_string(towers) +
                                  " tensors of the vision tower and projector are not read (the "
                                  "text decoder only)");
        return {};
    }

  private:
    // Why a name the table knows is not read here.
    std::string hint(const std::string& name) const {
        const Architecture& a = *p_.architecture;
        const std::string decoder = p_.prefix.decoder;
        if (starts_with(name, (decoder + "layers.").c_str())) {
            const size_t from = decoder.size() + 7;
            size_t end = from;
            int64_t layer = 0;
            while (end < name.size() && end - from < 9 && name[end] >= '0' && name[end] <= '9')
                layer = layer * 10 + (name[end++] - '0');
            if (end > from && end < name.size() && name[end] == '.') {
                if (layer >= p_.dims.layers)
                    return " (layer " + std::to_string(layer) + ", but num_hidden_layers is " +
                           std::to_string(p_.dims.layers) + ")";
                for (size_t i = 0; i < a.tensor_count; ++i)
                    if (decoder + expand(a.tensors[i].name, static_cast<int>(layer)) == name &&
                        !present(a.tensors[i])) {
                        const char* key = a.tensors[i].presence == Presence::attention_bias
                                              ? a.attention_bias_key
                                              : a.mlp_bias_key;
                        return key ? " (" + std::string(key) + " is false)"
                                   : std::string(" (the architecture has no such bias)");
                    }
            }
        }
        return "";
    }

    const std::vector<ShardHeader>& files_;
    CheckpointPlan& p_;
    std::vector<Held> held_;
    std::vector<bool> used_;
    std::string where_;
};

Status read_config_keys(std::string_view text, CheckpointPlan* p) {
    const Architecture& a = *p->architecture;
    Document doc;
    Status st = parse_config(text, &doc);
    if (!st.ok()) return st;
    uint32_t cfg = Document::root;
    std::string path;
    const uint32_t text_config = doc.find(Document::root, "text_config");
    if (text_config != Document::none && doc.type(text_config) == Type::object) {
        cfg = text_config;
        path = "text_config.";
    }
    const Keys k(doc, cfg, path);
    Dims& d = p->dims;
    d.layers = static_cast<int64_t>(p->setup.layers.size());
    if ((st = k.integer("vocab_size", 1, int64_t{1} << 22, a.vocab_size, &d.vocab)).ok() &&
        (st = k.integer("hidden_size", 1, int64_t{1} << 17, a.hidden_size, &d.hidden)).ok() &&
        (st = k.integer("intermediate_size", 1, int64_t{1} << 20, a.intermediate_size,
                        &d.intermediate))
            .ok() &&
        (st =
             k.integer("num_attention_heads", 1, int64_t{1} << 12, a.num_attention_heads, &d.heads))
            .ok())
        st = k.integer("num_key_value_heads", 1, d.heads,
                       a.num_key_value_heads ? a.num_key_value_heads : d.heads, &d.kv_heads);
    if (!st.ok()) return st;
    if (d.heads % d.kv_heads != 0)
        return Status::error("config.json: " + k.name("num_attention_heads") + " (" +
                             std::to_string(d.heads) + ") must be a multiple of " +
                             k.name("num_key_value_heads") + " (" + std::to_string(d.kv_heads) +
                             "): each key/value head serves a group of query heads");
    if (k.get("head_dim") != Document::none) {
        st = k.integer("head_dim", 2, int64_t{1} << 12, 0, &d.head_dim);
        if (!st.ok()) return st;
    } else if (a.head_dim > 0) {
        d.head_dim = a.head_dim;
    } else {
        if (d.hidden % d.heads != 0)
            return Status::error("config.json: " + k.name("hidden_size") + " (" +
                                 std::to_string(d.hidden) + ") must be a multiple of " +
                                 k.name("num_attention_heads") + " (" + std::to_string(d.heads) +
                                 ") when head_dim is absent");
        d.head_dim = d.hidden / d.heads;
    }
    if (d.head_dim != p->setup.head_dim)
        return Status::error("config.json: head_dim is " + std::to_string(d.head_dim) + " for " +
                             a.model_type + " (transformers' " + a.source +
                             "), but the position setup read " + std::to_string(p->setup.head_dim) +
                             "; write head_dim in the file");

    // tie_word_embeddings: the text config's, else the wrapper's, else the class default.
    bool present = false;
    p->tied = a.tie_word_embeddings;
    st = k.boolean("tie_word_embeddings", &p->tied, &present);
    if (st.ok() && !present && cfg != Document::root)
        st = Keys(doc, Document::root, "").boolean("tie_word_embeddings", &p->tied, &present);
    if (!st.ok()) return st;

    p->norm_eps = a.norm_eps_default;
    st = k.number(a.norm_eps_key, &p->norm_eps, &present);
    if (!st.ok()) return st;
    if (!(p->norm_eps > 0 && p->norm_eps < 1))
        return Status::error("config.json: " + k.name(a.norm_eps_key) + " must be in (0, 1), got " +
                             num(p->norm_eps));

    p->activation_name = a.activation_default;
    if ((st = k.string(a.activation_key, &p->activation_name, &present)).ok())
        st = read_activation(k.name(a.activation_key), p->activation_name, &p->activation);
    if (!st.ok()) return st;

    p->attention_bias = a.attention_bias_default;
    if (a.attention_bias_key) st = k.boolean(a.attention_bias_key, &p->attention_bias, &present);
    if (st.ok() && a.mlp_bias_key) {
        p->mlp_bias = a.mlp_bias_default;
        st = k.boolean(a.mlp_bias_key, &p->mlp_bias, &present);
    }
    if (!st.ok()) return st;

    if (a.final_softcap_key && !k.is_null(a.final_softcap_key)) {
        p->final_softcap = a.final_softcap_default;
        st = k.number(a.final_softcap_key, &p->final_softcap, &present);
        if (!st.ok()) return st;
        if (present && !(p->final_softcap > 0))
            return Status::error("config.json: " + k.name(a.final_softcap_key) +
                                 " must be a number > 0 or null, got " + num(p->final_softcap));
    }
    p->embedding_scale = a.embedding_scaled ? std::sqrt(static_cast<double>(d.hidden)) : 1.0;
    return {};
}

// Whether a config reader's warning ("key: what") is about something the plan models: the logits'
// soft-cap (final_softcap) and the q/k norms (q_norm, k_norm weights), which the position setup
// leaves out.
bool modeled_by_plan(const Architecture& a, const std::string& warning) {
    std::string key = warning.substr(0, warning.find(": "));
    if (key.compare(0, 12, "text_config.") == 0) key = key.substr(12);
    if (key == "final_logit_softcapping") return a.final_softcap_key != nullptr;
    return key == "model_type" && a.qk_norm &&
           warning.find("normalizes q and k") != std::string::npos;
}

Status bind(std::string_view text, const std::vector<ShardHeader>& files, CheckpointPlan* p) {
    Status st = read_model_config(text, &p->setup);
    if (!st.ok()) {
        // A type hirope does not read is named as such, whatever else the reader refused.
        Document doc;
        std::string named;
        if (parse_config(text, &doc).ok() && !names_supported_type(doc, &named) && !named.empty())
            return unsupported(named);
        return st;
    }
    p->architecture = find_architecture(p->setup.model_type);
    if (p->architecture == nullptr) return unsupported(p->setup.model_type);
    const Architecture& a = *p->architecture;
    st = read_config_keys(text, p);
    if (!st.ok()) return st;

    Binder b(files, p);
    if (!(st = b.index()).ok()) return st;

    // The decoder's prefix: the one whose embed_tokens.weight is held (the first when none is).
    size_t found = 0;
    p->prefix = a.prefixes[0];
    for (size_t i = 0; i < a.prefix_count; ++i)
        if (b.lookup(std::string(a.prefixes[i].decoder) + "embed_tokens.weight") >= 0) {
            if (found++ > 0)
                return Status::error(
                    "checkpoint: both " +
                    quoted(std::string(p->prefix.decoder) + "embed_tokens.weight") + " and " +
                    quoted(std::string(a.prefixes[i].decoder) + "embed_tokens.weight") +
                    " are held: two decoders in one checkpoint");
            p->prefix = a.prefixes[i];
        }
    const std::string decoder = p->prefix.decoder;

    p->model_weights.fill(-1);
    p->layer_weights.assign(static_cast<size_t>(p->dims.layers), {});
    for (auto& l : p->layer_weights) l.fill(-1);
    for (size_t i = 0; i < a.tensor_count; ++i) {
        const TensorName& t = a.tensors[i];
        if (is_layer_role(t.role) || !b.present(t)) continue;
        st = b.add(t.role, -1, decoder + t.name, &p->model_weights[static_cast<size_t>(t.role)]);
        if (!st.ok()) return st;
    }
    // The output layer.
    const std::string lm_head = p->prefix.lm_head;
    const int64_t head_at = b.lookup(lm_head);
    const size_t head_slot = static_cast<size_t>(WeightRole::lm_head);
    if (p->tied) {
        if (head_at >= 0) {
            b.mark(head_at);
            p->warnings.push_back("checkpoint: " + quoted(lm_head) +
                                  " is not read: tie_word_embeddings is true, so the output layer "
                                  "is the embedding (transformers ties them after loading)");
        }
    } else if (head_at < 0) {
        p->tied = true;
        p->warnings.push_back("checkpoint: no " + quoted(lm_head) +
                              " although tie_word_embeddings is false: the output layer is the "
                              "embedding (as llama.cpp falls back; transformers would leave it "
                              "at its random initialization)");
    } else {
        st = b.add(WeightRole::lm_head, -1, lm_head, &p->model_weights[head_slot]);
        if (!st.ok()) return st;
    }
    if (p->tied)
        p->model_weights[head_slot] = p->model_weights[static_cast<size_t>(WeightRole::embed)];

    for (int64_t layer = 0; layer < p->dims.layers; ++layer)
        for (size_t i = 0; i < a.tensor_count; ++i) {
            const TensorName& t = a.tensors[i];
            if (!is_layer_role(t.role) || !b.present(t)) continue;
            st = b.add(t.role, static_cast<int>(layer),
                       decoder + expand(t.name, static_cast<int>(layer)),
                       &p->layer_weights[static_cast<size_t>(layer)][static_cast<size_t>(t.role)]);
            if (!st.ok()) return st;
        }
    if (!(st = b.leftovers()).ok()) return st;

    for (const WeightRef& w : p->weights) {
        p->weight_bytes += w.tensor.bytes();
        p->parameters += w.tensor.elements;
    }
    // The config reader's warnings first, less those about what the plan models.
    std::vector<std::string> warnings;
    for (const std::string& w : p->setup.warnings)
        if (!modeled_by_plan(a, w)) warnings.push_back(w);
    warnings.insert(warnings.end(), p->warnings.begin(), p->warnings.end());
    p->warnings = std::move(warnings);
    return {};
}

} // namespace

const char* role_name(WeightRole role) {
    return kRoleNames[static_cast<size_t>(role)];
}

bool is_layer_role(WeightRole role) {
    return role != WeightRole::embed && role != WeightRole::final_norm &&
           role != WeightRole::final_norm_bias && role != WeightRole::lm_head;
}

const std::vector<const Architecture*>& architectures() {
    // Built once, on first use (thread-safe), and never changed.
    static const Architecture rows[] = {llama_row(),  mistral_row(), qwen2_row(), qwen3_row(),
                                        gemma2_row(), gemma3_row(),  phi3_row(),  starcoder2_row()};
    static const std::vector<const Architecture*> all = [] {
        std::vector<const Architecture*> v;
        for (const Architecture& a : rows) v.push_back(&a);
        return v;
    }();
    return all;
}

const Architecture* find_architecture(std::string_view model_type) {
    for (const Architecture* a : architectures())
        if (model_type == a->model_type) return a;
    return nullptr;
}

std::string supported_model_types() {
    std::string s;
    for (const Architecture* a : architectures()) {
        if (!s.empty()) s += ", ";
        s += a->model_type;
        if (std::string(a->model_type) == "gemma3_text") s += " (or gemma3 wrapping one)";
    }
    return s;
}

std::vector<uint64_t> expected_shape(WeightRole role, const Dims& d) {
    const ShapeTerms t = shape_terms(role);
    std::vector<uint64_t> out;
    for (int k = 0; k < t.count; ++k) out.push_back(term_value(t.dims[k], d));
    return out;
}

const WeightRef* CheckpointPlan::weight(WeightRole role, int layer) const {
    int32_t at = -1;
    if (layer < 0) {
        if (!is_layer_role(role)) at = model_weights[static_cast<size_t>(role)];
    } else if (static_cast<size_t>(layer) < layer_weights.size() && is_layer_role(role)) {
        at = layer_weights[static_cast<size_t>(layer)][static_cast<size_t>(role)];
    }
    return at < 0 || static_cast<size_t>(at) >= weights.size() ? nullptr
                                                               : &weights[static_cast<size_t>(at)];
}

Status plan_checkpoint(std::string_view config_json, const std::vector<ShardHeader>& files,
                       CheckpointPlan* out) {
    *out = CheckpointPlan();
    CheckpointPlan plan;
    Status st = bind(config_json, files, &plan);
    if (st.ok()) *out = std::move(plan);
    return st;
}

uint64_t forward_working_bytes(const CheckpointPlan& plan, int64_t tokens, int64_t logits_rows) {
    const double cap = static_cast<double>(int64_t{1} << 24);
    const double n = std::min(std::max(static_cast<double>(tokens), 0.0), cap);
    const double rows = std::min(std::max(static_cast<double>(logits_rows), 0.0), cap);
    const Dims& d = plan.dims;
    const double mlp = plan.architecture && plan.architecture->mlp == MlpKind::plain
                           ? static_cast<double>(d.intermediate)
                           : 2.0 * static_cast<double>(d.intermediate);
    const double kv = static_cast<double>(d.kv_heads) * static_cast<double>(d.head_dim);
    const double q = static_cast<double>(d.heads) * static_cast<double>(d.head_dim);
    const double floats = n * (2.0 * static_cast<double>(d.hidden) + 2.0 * q + 2.0 * kv + mlp) +
                          static_cast<double>(d.layers) * n * 2.0 * kv + n * n +
                          rows * static_cast<double>(d.vocab);
    const double bytes = 4.0 * floats;
    // Exact below 2^53 (every figure here); saturated above 2^64.
    return bytes >= 18446744073709551615.0 ? std::numeric_limits<uint64_t>::max()
                                           : static_cast<uint64_t>(bytes);
}

Status check_memory(const CheckpointPlan& plan, uint64_t budget_bytes, int64_t tokens,
                    int64_t logits_rows) {
    const int64_t cap = int64_t{1} << 24;
    if (tokens < 0 || tokens > cap || logits_rows < 0 || logits_rows > cap)
        return Status::error("check_memory: tokens and logits_rows must be in [0, " +
                             grouped(static_cast<uint64_t>(cap)) + "], got " +
                             std::to_string(tokens) + " and " + std::to_string(logits_rows));
    const uint64_t working = forward_working_bytes(plan, tokens, logits_rows);
    const uint64_t weights = plan.weight_bytes;
    const uint64_t total = weights > std::numeric_limits<uint64_t>::max() - working
                               ? std::numeric_limits<uint64_t>::max()
                               : weights + working;
    if (total <= budget_bytes) return {};
    // The weights' dtypes, in the order F32, F16, BF16.
    std::string dtypes;
    for (DType t : {DType::F32, DType::F16, DType::BF16}) {
        bool any = false;
        for (const WeightRef& w : plan.weights) any = any || w.tensor.dtype == t;
        if (any) dtypes += (dtypes.empty() ? "" : ", ") + std::string(dtype_name(t));
    }
    char gb[32];
    std::snprintf(gb, sizeof gb, "%.2f GB", static_cast<double>(total) / 1e9);
    return Status::error(
        std::string(plan.architecture ? plan.architecture->model_type : "the") + " checkpoint (" +
        grouped(plan.parameters) + " parameters) needs " + grouped(weights) +
        " bytes for its weights (" + (dtypes.empty() ? std::string("none") : dtypes) +
        ", at their stored width) + " + grouped(working) + " bytes for a " +
        grouped(static_cast<uint64_t>(tokens)) + "-token forward = " + grouped(total) + " bytes (" +
        gb + "), over the budget of " + grouped(budget_bytes) + " bytes");
}

} // namespace checkpoint
} // namespace hirope
