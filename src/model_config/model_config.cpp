// The config.json reader (include/hirope/model_config.h). Rules and their sources:
// docs/real-models.md.
//
// The JSON parser is the tokenizers library's (src/tokenizers/json.h, iterative, with limits on
// size, depth and values): one parser for every JSON the core reads. It is reached across the
// folder boundary on purpose until it moves to src/util; its messages name "tokenizer.json", which
// this reader rewrites to "config.json".
#include "hirope/model_config.h"

#include "tokenizers/json.h"

#include <cmath>
#include <map>
#include <set>

namespace hirope {

bool layer_sees(const LayerSetup& layer, int64_t query, int64_t key) {
    return mask_sees(layer.attention, layer.window, layer.chunk_size, query, key);
}

namespace {

using json::Document;
using json::Type;

std::string num(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}

// Typed access to one object of the document; a null value counts as absent (configs write
// "rope_scaling": null, "sliding_window": null).
class Reader {
  public:
    explicit Reader(const Document& d) : d_(d) {}

    uint32_t get(uint32_t obj, const char* key) const {
        if (obj == Document::none || d_.type(obj) != Type::object) return Document::none;
        const uint32_t v = d_.find(obj, key);
        if (v == Document::none || d_.type(v) == Type::null) return Document::none;
        return v;
    }
    bool has(uint32_t obj, const char* key) const { return get(obj, key) != Document::none; }

    Status number(uint32_t obj, const char* key, const std::string& path, double* out,
                  bool* present = nullptr) const {
        const uint32_t v = get(obj, key);
        if (present) *present = v != Document::none;
        if (v == Document::none) return {};
        if (d_.type(v) != Type::number)
            return Status::error(path + key + " must be a number, got " +
                                 json::type_name(d_.type(v)));
        const double x = d_.number(v);
        if (!std::isfinite(x))
            return Status::error(path + key + " must be a finite number, got " +
                                 std::string(d_.raw(v)));
        *out = x;
        return {};
    }
    // An integer in [lo, hi].
    Status integer(uint32_t obj, const char* key, const std::string& path, int64_t lo, int64_t hi,
                   int64_t* out, bool* present = nullptr) const {
        double x = 0;
        bool here = false;
        Status st = number(obj, key, path, &x, &here);
        if (present) *present = here;
        if (!st.ok() || !here) return st;
        if (x != std::floor(x) || x < static_cast<double>(lo) || x > static_cast<double>(hi))
            return Status::error(path + key + " must be an integer in [" + std::to_string(lo) +
                                 ", " + std::to_string(hi) + "], got " + num(x));
        *out = static_cast<int64_t>(x);
        return {};
    }
    Status boolean(uint32_t obj, const char* key, const std::string& path, bool* out,
                   bool* present = nullptr) const {
        const uint32_t v = get(obj, key);
        if (present) *present = v != Document::none;
        if (v == Document::none) return {};
        if (d_.type(v) != Type::boolean)
            return Status::error(path + key + " must be a boolean, got " +
                                 json::type_name(d_.type(v)));
        *out = d_.boolean(v);
        return {};
    }
    // A switch that Python code tests for truth (`if config.x:`): a boolean, or a number that is
    // on unless 0 (Llama 4 Scout's file says "attn_temperature_tuning": 4).
    Status truthy(uint32_t obj, const char* key, const std::string& path, bool* out) const {
        const uint32_t v = get(obj, key);
        if (v != Document::none && d_.type(v) == Type::number) {
            const double x = d_.number(v);
            if (!std::isfinite(x))
                return Status::error(path + key + " must be a boolean or a finite number");
            *out = x != 0;
            return {};
        }
        return boolean(obj, key, path, out);
    }
    Status string(uint32_t obj, const char* key, const std::string& path, std::string* out,
                  bool* present = nullptr) const {
        const uint32_t v = get(obj, key);
        if (present) *present = v != Document::none;
        if (v == Document::none) return {};
        if (d_.type(v) != Type::string)
            return Status::error(path + key + " must be a string, got " +
                                 json::type_name(d_.type(v)));
        if (d_.node(v).len > 256) return Status::error(path + key + " is longer than 256 bytes");
        *out = d_.string(v);
        return {};
    }
    // A list of numbers whose length must be `want` (checked before copying).
    Status numbers(uint32_t obj, const char* key, const std::string& path, size_t want,
                   std::vector<double>* out) const {
        const uint32_t v = get(obj, key);
        if (v == Document::none) return Status::error(path + key + " is required");
        if (d_.type(v) != Type::array)
            return Status::error(path + key + " must be a list of numbers, got " +
                                 json::type_name(d_.type(v)));
        if (d_.node(v).len != want)
            return Status::error(path + key +
                                 " must have rotary_dim / 2 = " + std::to_string(want) +
                                 " entries, got " + std::to_string(d_.node(v).len));
        out->clear();
        out->reserve(want);
        size_t i = 0;
        for (uint32_t c = d_.first(v); c != d_.end(v); c = d_.next(c), ++i) {
            const double x = d_.type(c) == Type::number ? d_.number(c) : NAN;
            if (!std::isfinite(x) || x <= 0)
                return Status::error(path + key + "[" + std::to_string(i) +
                                     "] must be a positive number");
            out->push_back(x);
        }
        return {};
    }
    const Document& doc() const { return d_; }

  private:
    const Document& d_;
};

// The RoPE parameters of one layer type, resolved from either format.
struct RopeParams {
    uint32_t node = Document::none; // the object holding the type and its parameters (or none)
    std::string path;               // "rope_scaling." / "rope_parameters.full_attention."
    double theta = 10000;
    // Gemma4TextConfig's default full_attention parameters (no rope_parameters in the file):
    // proportional, partial_rotary_factor 0.25 (theta 1e6).
    bool gemma4_proportional = false;
};

// The pair layout each model type's modeling code applies (modeling_<type>.py): adjacent pairs
// (view_as_complex, rotate_every_two, GLM's and ERNIE 4.5's interleaved rotate_half, DeepSeek's
// de-interleave), or rotate_half over the two halves. A type in neither list is read as
// rotate_half with a warning.
bool is_interleaved_type(const std::string& t) {
    static const char* const types[] = {"llama4",   "llama4_text", "cohere",      "cohere2",
                                        "glm",      "glm4",        "chatglm",     "gptj",
                                        "codegen",  "deepseek_v2", "deepseek_v3", "kimi_k2",
                                        "ernie4_5", "ernie4_5_moe"};
    for (const char* x : types)
        if (t == x) return true;
    return false;
}
bool is_half_type(const std::string& t) {
    static const char* const types[] = {
        "llama",     "mistral",  "mixtral",   "ministral",   "ministral3",  "qwen2",
        "qwen2_moe", "qwen3",    "qwen3_moe", "qwen3_next",  "phi",         "phi3",
        "phimoe",    "gemma",    "gemma2",    "gemma3_text", "gemma4_text", "starcoder2",
        "olmo",      "olmo2",    "olmo3",     "olmoe",       "smollm3",     "gpt_oss",
        "gpt_neox",  "stablelm", "falcon",    "granite",     "granitemoe",  "nemotron",
        "persimmon", "glm4_moe", "minicpm"};
    for (const char* x : types)
        if (t == x) return true;
    return false;
}

// Model types whose attention normalizes q and k per head (an RMSNorm with learned weights)
// before RoPE, with no config key saying so (modeling_<type>.py's q_norm / k_norm).
bool implied_qk_norm(const std::string& t) {
    static const char* const types[] = {"qwen3",       "qwen3_moe", "qwen3_next", "gemma3_text",
                                        "gemma4_text", "olmo2",     "olmo3",      "olmoe"};
    for (const char* x : types)
        if (t == x) return true;
    return false;
}

// Known keys of rope parameter objects; any other key is warned about.
bool known_rope_key(const std::string& k) {
    static const std::set<std::string> keys = {"rope_type",
                                               "type",
                                               "rope_theta",
                                               "factor",
                                               "original_max_position_embeddings",
                                               "beta_fast",
                                               "beta_slow",
                                               "mscale",
                                               "mscale_all_dim",
                                               "truncate",
                                               "attention_factor",
                                               "low_freq_factor",
                                               "high_freq_factor",
                                               "short_factor",
                                               "long_factor",
                                               "partial_rotary_factor",
                                               "llama_4_scaling_beta"};
    return keys.count(k) > 0;
}

// transformers' configuration defaults for the keys a real config.json may omit (its config class
// fills them in): configuration_gemma2.py, configuration_gemma3.py (Gemma3TextConfig),
// configuration_gemma4.py (Gemma4TextConfig), configuration_gpt_oss.py, configuration_llama4.py,
// configuration_llama.py (LlamaConfig: LLaVA's text_config), configuration_gptj.py,
// configuration_codegen.py, configuration_qwen3.py, configuration_qwen3_next.py,
// configuration_ernie4_5.py and configuration_ernie4_5_moe.py (default_theta 500000). Keys by their
// transformers names (GPT-J's n_embd ... are read as hidden_size ...).
struct TypeDefault {
    const char* model_type;
    const char* key;
    double value;
};
const TypeDefault kTypeDefaults[] = {
    {"llama", "num_hidden_layers", 32},
    {"llama", "hidden_size", 4096},
    {"llama", "num_attention_heads", 32},
    {"llama", "max_position_embeddings", 2048},
    {"gemma2", "num_hidden_layers", 26},
    {"gemma2", "hidden_size", 2304},
    {"gemma2", "num_attention_heads", 8},
    {"gemma2", "head_dim", 256},
    {"gemma2", "sliding_window", 4096},
    {"gemma2", "max_position_embeddings", 8192},
    {"gemma2", "query_pre_attn_scalar", 256},
    {"gemma2", "attn_logit_softcapping", 50.0},
    {"gemma3_text", "num_hidden_layers", 26},
    {"gemma3_text", "hidden_size", 2304},
    {"gemma3_text", "num_attention_heads", 8},
    {"gemma3_text", "head_dim", 256},
    {"gemma3_text", "rope_theta", 1000000.0},
    {"gemma3_text", "rope_local_base_freq", 10000.0},
    {"gemma3_text", "sliding_window", 4096},
    {"gemma3_text", "max_position_embeddings", 131072},
    {"gemma3_text", "query_pre_attn_scalar", 256},
    {"gemma4_text", "num_hidden_layers", 30},
    {"gemma4_text", "hidden_size", 2304},
    {"gemma4_text", "num_attention_heads", 8},
    {"gemma4_text", "head_dim", 256},
    {"gemma4_text", "global_head_dim", 512},
    {"gemma4_text", "sliding_window", 512},
    {"gemma4_text", "max_position_embeddings", 131072},
    {"gpt_oss", "rope_theta", 150000.0},
    {"gpt_oss", "sliding_window", 128},
    {"gpt_oss", "max_position_embeddings", 131072},
    {"llama4_text", "rope_theta", 500000.0},
    {"gptj", "num_hidden_layers", 28},
    {"gptj", "hidden_size", 4096},
    {"gptj", "num_attention_heads", 16},
    {"gptj", "max_position_embeddings", 2048},
    {"gptj", "rotary_dim", 64},
    {"codegen", "num_hidden_layers", 28},
    {"codegen", "hidden_size", 4096},
    {"codegen", "num_attention_heads", 16},
    {"codegen", "max_position_embeddings", 2048},
    {"codegen", "rotary_dim", 64},
    {"qwen3_next", "num_hidden_layers", 48},
    {"qwen3_next", "hidden_size", 2048},
    {"qwen3_next", "num_attention_heads", 16},
    {"qwen3_next", "head_dim", 256},
    {"qwen3_next", "max_position_embeddings", 32768},
    {"qwen3_next", "partial_rotary_factor", 0.25},
    {"ernie4_5", "rope_theta", 500000.0},
    {"ernie4_5", "head_dim", 128},
    {"ernie4_5_moe", "rope_theta", 500000.0},
    // max_position_embeddings as each configuration_<type>.py declares it (4096 * 32 for Mistral,
    // Mixtral, Ministral, PhiMoE and Llama4TextConfig).
    {"mistral", "max_position_embeddings", 131072},
    {"mixtral", "max_position_embeddings", 131072},
    {"ministral", "max_position_embeddings", 131072},
    {"ministral3", "max_position_embeddings", 262144},
    {"qwen2", "max_position_embeddings", 32768},
    {"qwen2_moe", "max_position_embeddings", 32768},
    {"qwen3", "max_position_embeddings", 32768},
    {"qwen3", "head_dim", 128}, // Qwen3Config: head_dim 128, not hidden_size / heads
    {"qwen3_moe", "max_position_embeddings", 32768},
    {"phi", "max_position_embeddings", 2048},
    {"phi3", "max_position_embeddings", 4096},
    {"phimoe", "max_position_embeddings", 131072},
    {"gemma", "max_position_embeddings", 8192},
    {"starcoder2", "max_position_embeddings", 4096},
    {"olmo", "max_position_embeddings", 2048},
    {"olmo2", "max_position_embeddings", 2048},
    {"olmo3", "max_position_embeddings", 2048},
    {"olmoe", "max_position_embeddings", 4096},
    {"smollm3", "max_position_embeddings", 32768},
    {"gpt_neox", "max_position_embeddings", 2048},
    {"stablelm", "max_position_embeddings", 4096},
    {"falcon", "max_position_embeddings", 2048},
    {"granite", "max_position_embeddings", 2048},
    {"granitemoe", "max_position_embeddings", 2048},
    {"nemotron", "max_position_embeddings", 4096},
    {"persimmon", "max_position_embeddings", 16384},
    {"glm", "max_position_embeddings", 131072},
    {"glm4", "max_position_embeddings", 131072},
    {"glm4_moe", "max_position_embeddings", 131072},
    {"cohere", "max_position_embeddings", 8192},
    {"cohere2", "max_position_embeddings", 8192},
    {"deepseek_v2", "max_position_embeddings", 2048},
    {"deepseek_v3", "max_position_embeddings", 4096},
    {"ernie4_5", "max_position_embeddings", 131072},
    {"ernie4_5_moe", "max_position_embeddings", 131072},
    {"llama4_text", "max_position_embeddings", 131072},
};

bool type_default(const std::string& model_type, const char* key, double* out) {
    for (const TypeDefault& t : kTypeDefaults)
        if (model_type == t.model_type && std::string(key) == t.key) {
            *out = t.value;
            return true;
        }
    return false;
}

// The text model type a wrapper's text_config stands for when it names none (the wrapper config
// class builds that class from the dict): configuration_llava.py, configuration_gemma3.py,
// configuration_gemma4.py, configuration_llama4.py.
const char* wrapped_text_type(const std::string& wrapper) {
    if (wrapper == "llava") return "llama";
    if (wrapper == "gemma3") return "gemma3_text";
    if (wrapper == "gemma4") return "gemma4_text";
    if (wrapper == "llama4") return "llama4_text";
    return nullptr;
}

// yarn_get_mscale (modeling_deepseek_v3.py): 0.1 m ln(s) + 1, or 1 for s <= 1.
double yarn_get_mscale(double scale, double m) {
    return scale <= 1 ? 1.0 : 0.1 * m * std::log(scale) + 1.0;
}

// Top-level keys that change what attention computes but that a ModelSetup does not carry.
struct Unmodeled {
    const char* key;
    const char* what;
};
const Unmodeled kUnmodeled[] = {
    {"attn_logit_softcapping", "soft-caps attention logits (tanh) before the softmax"},
    {"final_logit_softcapping", "soft-caps the output logits (not attention)"},
    {"query_pre_attn_scalar",
     "sets the logit scale to query_pre_attn_scalar^-0.5 instead of head_dim^-0.5"},
    {"use_qk_norm", "normalizes q and k before attention"},
    {"qk_layernorm", "normalizes q and k before attention"},
    {"logit_scale", "scales the output logits (not attention)"},
    {"alibi", "adds an ALiBi bias to the logits (not read as the scheme)"},
    {"position_embedding_type", "names a position embedding not read here"},
    {"initial_context_length",
     "a training length outside the rope parameters (not used by transformers' RoPE)"},
    {"rope_interleave", "read for the pair layout only"},
    {"kv_lora_rank", "MLA compresses keys and values; only the RoPE part is modeled"},
    {"sliding_window_size", "not a transformers key; sliding_window is the one read"},
};

class Builder {
  public:
    Builder(const Document& d, const ModelConfigLimits& limits, ModelSetup* out)
        : r_(d), limits_(limits), out_(out) {}

    Status run() {
        const Document& d = r_.doc();
        if (d.type(Document::root) != Type::object)
            return Status::error("config.json must be an object, got " +
                                 std::string(json::type_name(d.type(Document::root))));
        cfg_ = Document::root;
        std::string model_type;
        Status st = r_.string(cfg_, "model_type", "", &model_type);
        if (!st.ok()) return st;
        const uint32_t text = r_.get(cfg_, "text_config");
        if (text != Document::none) {
            if (d.type(text) != Type::object)
                return Status::error("text_config must be an object, got " +
                                     std::string(json::type_name(d.type(text))));
            for (const char* k : {"vision_config", "audio_config"})
                if (r_.has(cfg_, k))
                    warn(k, "the " + std::string(k) + " tower is not read: text decoders only");
            cfg_ = text;
            std::string inner;
            st = r_.string(cfg_, "model_type", "text_config.", &inner);
            if (!st.ok()) return st;
            if (!inner.empty())
                model_type = inner;
            else if (const char* wrapped = wrapped_text_type(model_type))
                model_type = wrapped;
            prefix_ = "text_config.";
        }
        out_->model_type = model_type;
        if ((st = refuse_mrope()).ok() && (st = dimensions()).ok() && (st = lengths()).ok() &&
            (st = layer_pattern()).ok() && (st = rope_layers()).ok() && (st = extras()).ok()) {
            if (top_orig_ == 0 && params_orig_ > 0) out_->trained_length = params_orig_;
            if (out_->trained_length == 0)
                warn(key("max_position_embeddings"),
                     "absent, and the model type has no default the reader knows: the training "
                     "length is unknown (0), so no position is marked beyond it");
            out_->scaled_after_training =
                out_->max_length > 0 && out_->trained_length < out_->max_length;
            // v5 may state partial_rotary_factor inside the rope parameters only.
            for (const LayerSetup& l : out_->layers)
                if (l.rope && l.head_dim == out_->head_dim &&
                    l.scheme.scaling.type != ScalingType::proportional) {
                    out_->rotary_dim = rotary_dim(l.scheme, l.head_dim);
                    break;
                }
            unmodeled();
        }
        return st;
    }

  private:
    // Once per key and reason: a rope block read for several layer types warns once.
    void warn(const std::string& key, const std::string& what) {
        std::string line = key + ": " + what;
        for (const std::string& w : out_->warnings)
            if (w == line) return;
        out_->warnings.push_back(std::move(line));
    }
    std::string key(const char* k) const { return prefix_ + k; }

    // An integer key, else its GPT-J spelling (`alias`: n_layer ...), else the default of
    // transformers' config class for the model type (kTypeDefaults); *present says whether any
    // gave a value.
    Status int_key(const char* k, const char* alias, int64_t lo, int64_t hi, int64_t* out,
                   bool* present) {
        Status st = r_.integer(cfg_, k, prefix_, lo, hi, out, present);
        if (st.ok() && !*present && alias)
            st = r_.integer(cfg_, alias, prefix_, lo, hi, out, present);
        if (!st.ok() || *present) return st;
        double fallback = 0;
        if (type_default(out_->model_type, k, &fallback)) {
            *out = static_cast<int64_t>(fallback);
            *present = true;
        }
        return {};
    }
    // A number key, else the config class's default (kTypeDefaults).
    Status number_key(const char* k, double* out, bool* present) {
        Status st = r_.number(cfg_, k, prefix_, out, present);
        if (!st.ok() || *present) return st;
        *present = type_default(out_->model_type, k, out);
        return {};
    }
    // Whether the config writes the key as null (transformers' None, not the class default).
    bool is_null(const char* k) const {
        const Document& d = r_.doc();
        const uint32_t v = d.find(cfg_, k);
        return v != Document::none && d.type(v) == Type::null;
    }

    // M-RoPE takes three position ids per token (time, height, width): not a text decoder.
    Status refuse_mrope() {
        const Document& d = r_.doc();
        std::vector<uint32_t> objects = {cfg_};
        for (const char* k : {"rope_scaling", "rope_parameters"}) {
            const uint32_t o = r_.get(cfg_, k);
            if (o == Document::none || d.type(o) != Type::object) continue;
            objects.push_back(o);
            uint32_t c = d.first(o);
            while (c != d.end(o)) {
                const uint32_t v = d.next(c);
                if (d.type(v) == Type::object) objects.push_back(v);
                c = d.next(v);
            }
        }
        for (uint32_t o : objects) {
            std::string type;
            for (const char* k : {"rope_type", "type"}) {
                const uint32_t v = r_.get(o, k);
                if (v != Document::none && d.type(v) == Type::string && d.equals(v, "mrope"))
                    type = "mrope";
            }
            if (!type.empty() || r_.has(o, "mrope_section") || r_.has(o, "mrope_interleaved"))
                return Status::error(
                    "config.json uses M-RoPE (mrope_section: vision position ids over time, height "
                    "and width); only text decoders are read");
        }
        return {};
    }

    Status dimensions() {
        int64_t layers = 0, hidden = 0, heads = 0, head_dim = 0;
        bool has_layers = false, has_hidden = false, has_heads = false, has_head_dim = false;
        Status st =
            int_key("num_hidden_layers", "n_layer", 1, limits_.max_layers, &layers, &has_layers);
        if (!st.ok()) return st;
        if (!has_layers) return Status::error(key("num_hidden_layers") + " is required");
        if ((st = int_key("hidden_size", "n_embd", 1, int64_t{1} << 24, &hidden, &has_hidden)).ok())
            st = int_key("num_attention_heads", "n_head", 1, int64_t{1} << 16, &heads, &has_heads);
        if (st.ok())
            st = int_key("head_dim", nullptr, 2, Limits::max_head_dim, &head_dim, &has_head_dim);
        if (!st.ok()) return st;
        int64_t rope_dim = 0, nope_dim = 0;
        bool has_nope = false;
        st = r_.integer(cfg_, "qk_rope_head_dim", prefix_, 2, Limits::max_head_dim, &rope_dim,
                        &mla_);
        if (st.ok())
            st = r_.integer(cfg_, "qk_nope_head_dim", prefix_, 0, Limits::max_head_dim, &nope_dim,
                            &has_nope);
        if (!st.ok()) return st;
        if (mla_) {
            head_dim = nope_dim + rope_dim;
        } else if (!has_head_dim) {
            if (!has_hidden || !has_heads)
                return Status::error(key("head_dim") +
                                     " is required, or hidden_size and num_attention_heads");
            head_dim = hidden / heads;
        }
        if (head_dim < 2 || head_dim % 2 != 0 || head_dim > Limits::max_head_dim)
            return Status::error(key("head_dim") + " must be an even integer in [2, " +
                                 std::to_string(Limits::max_head_dim) + "], got " +
                                 std::to_string(head_dim));
        out_->head_dim = static_cast<int>(head_dim);
        layer_count_ = layers;

        // The rotated dims: transformers' int(head_dim * partial_rotary_factor).
        double prf = 1;
        bool has_prf = false;
        const char* prf_key = "partial_rotary_factor";
        st = number_key(prf_key, &prf, &has_prf);
        if (!st.ok()) return st;
        if (!has_prf) {
            prf_key = "rotary_pct";
            st = r_.number(cfg_, prf_key, prefix_, &prf, &has_prf);
            if (!st.ok()) return st;
        }
        if (has_prf && !(prf > 0 && prf <= 1))
            return Status::error(key(prf_key) + " must be in (0, 1], got " + num(prf));
        int64_t rdim = static_cast<int64_t>(std::floor(head_dim * prf + 1e-9));
        int64_t explicit_rdim = 0;
        bool has_rdim = false;
        // GPT-J and CodeGen: rotary_dim (their classes' default 64; null rotates the whole head).
        if (is_null("rotary_dim"))
            st = r_.integer(cfg_, "rotary_dim", prefix_, 2, head_dim, &explicit_rdim, &has_rdim);
        else
            st = int_key("rotary_dim", nullptr, 2, head_dim, &explicit_rdim, &has_rdim);
        if (!st.ok()) return st;
        if (has_rdim) rdim = explicit_rdim;
        if (mla_) rdim = rope_dim;
        if (rdim < 2 || rdim % 2 != 0)
            return Status::error("the rotated dims (" + std::to_string(rdim) +
                                 ") must be an even number >= 2");
        out_->rotary_dim = static_cast<int>(rdim);
        rotary_fraction_ = static_cast<double>(rdim) / static_cast<double>(head_dim);

        const std::string& t = out_->model_type;
        bool interleave = true;
        bool has_interleave = false;
        st = r_.boolean(cfg_, "rope_interleave", prefix_, &interleave, &has_interleave);
        if (!st.ok()) return st;
        if (has_interleave) {
            out_->layout = interleave ? Layout::interleaved : Layout::half;
            out_->layout_source = "rope_interleave";
        } else if (is_interleaved_type(t)) {
            out_->layout = Layout::interleaved;
            out_->layout_source = "model type " + t + " (adjacent pairs)";
        } else if (is_half_type(t)) {
            out_->layout = Layout::half;
            out_->layout_source = "model type " + t + " (rotate_half)";
        } else {
            out_->layout = Layout::half;
            out_->layout_source =
                (t.empty() ? std::string("no model type") : "model type " + t + " (unknown)") +
                ": rotate_half assumed";
            warn(
                key("model_type"),
                (t.empty() ? std::string("absent")
                           : "'" + t + "' is not a model type the reader knows") +
                    ": the pair layout is assumed rotate_half (dims i and i + d/2, transformers' "
                    "default); a model whose code pairs adjacent dims needs rope_interleave: true");
        }
        return {};
    }

    Status lengths() {
        int64_t max_len = 0, orig = 0;
        bool has_max = false, has_orig = false;
        Status st = int_key("max_position_embeddings", "n_positions", 1, int64_t{1} << 40, &max_len,
                            &has_max);
        if (!st.ok()) return st;
        st = r_.integer(cfg_, "original_max_position_embeddings", prefix_, 1, int64_t{1} << 40,
                        &orig, &has_orig);
        if (!st.ok()) return st;
        out_->max_length = has_max ? max_len : 0;
        top_orig_ = has_orig ? orig : 0;
        out_->trained_length = has_orig ? orig : out_->max_length;
        return {};
    }

    // layer_types, or transformers' per-model defaults; then NoPE layers.
    Status layer_pattern() {
        const Document& d = r_.doc();
        const std::string& t = out_->model_type;
        const int64_t n = layer_count_;
        types_.assign(static_cast<size_t>(n), "full_attention");
        rope_.assign(static_cast<size_t>(n), true);
        const uint32_t lt = r_.get(cfg_, "layer_types");
        bool sliding_cfg = false;
        Status st = r_.integer(cfg_, "sliding_window", prefix_, 1, int64_t{1} << 40, &window_,
                               &sliding_cfg);
        if (!st.ok()) return st;
        double fallback = 0;
        if (!sliding_cfg && type_default(t, "sliding_window", &fallback)) {
            window_ = static_cast<int64_t>(fallback);
            sliding_cfg = true;
        }
        if (lt != Document::none) {
            if (d.type(lt) != Type::array)
                return Status::error(key("layer_types") + " must be a list of strings");
            if (d.node(lt).len != static_cast<uint32_t>(n))
                return Status::error(key("layer_types") + " has " + std::to_string(d.node(lt).len) +
                                     " entries for num_hidden_layers = " + std::to_string(n));
            int64_t i = 0;
            for (uint32_t c = d.first(lt); c != d.end(lt); c = d.next(c), ++i) {
                if (d.type(c) != Type::string || d.node(c).len > 64)
                    return Status::error(key("layer_types") + "[" + std::to_string(i) +
                                         "] must be a layer type name");
                std::string s = d.string(c);
                // transformers' remap_legacy_layer_types (configuration_utils.py).
                if (s == "mamba") s = "linear_attention";
                if (s == "attention") s = "full_attention";
                if (s != "full_attention" && s != "sliding_attention" && s != "chunked_attention" &&
                    s != "linear_attention")
                    return Status::error(key("layer_types") + "[" + std::to_string(i) + "] is '" +
                                         s +
                                         "': only full_attention, sliding_attention, "
                                         "chunked_attention and linear_attention are read");
                types_[static_cast<size_t>(i)] = s;
            }
        } else if (t == "gemma2" || t == "gpt_oss") {
            for (int64_t i = 0; i < n; ++i)
                if ((i + 1) % 2) types_[static_cast<size_t>(i)] = "sliding_attention";
        } else if (t == "gemma3" || t == "gemma3_text" || t == "cohere2") {
            int64_t pattern = t == "cohere2" ? 4 : 6;
            st = r_.integer(cfg_, "sliding_window_pattern", prefix_, 1, int64_t{1} << 20, &pattern);
            if (!st.ok()) return st;
            for (int64_t i = 0; i < n; ++i)
                if ((i + 1) % pattern) types_[static_cast<size_t>(i)] = "sliding_attention";
        } else if (t == "gemma4_text") {
            // Gemma4TextConfig: sliding_window_pattern = 6, fixed (no key).
            for (int64_t i = 0; i < n; ++i)
                if ((i + 1) % 6) types_[static_cast<size_t>(i)] = "sliding_attention";
        } else if (t == "qwen3_next") {
            // Qwen3NextConfig: full_attention_interval (default 4); the others linear_attention.
            int64_t interval = 4;
            st = r_.integer(cfg_, "full_attention_interval", prefix_, 1, int64_t{1} << 20,
                            &interval);
            if (!st.ok()) return st;
            for (int64_t i = 0; i < n; ++i)
                if ((i + 1) % interval) types_[static_cast<size_t>(i)] = "linear_attention";
        } else if (t == "olmo3") {
            for (int64_t i = 0; i < n; ++i)
                if ((i + 1) % 4) types_[static_cast<size_t>(i)] = "sliding_attention";
        } else if (r_.has(cfg_, "use_sliding_window")) {
            bool use = false;
            int64_t from = 0;
            st = r_.boolean(cfg_, "use_sliding_window", prefix_, &use);
            if (st.ok())
                st = r_.integer(cfg_, "max_window_layers", prefix_, 0, int64_t{1} << 20, &from);
            if (!st.ok()) return st;
            if (use && sliding_cfg)
                for (int64_t i = from; i < n; ++i)
                    types_[static_cast<size_t>(i)] = "sliding_attention";
        } else if (sliding_cfg && t != "llama4" && t != "llama4_text") {
            // Mistral, Mixtral, StarCoder2, Phi-3: sliding_window applies to every layer.
            for (auto& s : types_) s = "sliding_attention";
        }

        // Gemma4TextConfig forces the last layer to full_attention (with a warning when
        // layer_types said otherwise).
        if (t == "gemma4_text" && types_.back() != "full_attention") {
            if (lt != Document::none)
                warn(key("layer_types"),
                     "the last layer is " + types_.back() +
                         ": transformers forces it to full_attention (Gemma 4)");
            types_.back() = "full_attention";
        }

        // NoPE layers: no_rope_layers (1 = RoPE) or every no_rope_layer_interval-th layer.
        const uint32_t nr = r_.get(cfg_, "no_rope_layers");
        const bool llama4 = t == "llama4" || t == "llama4_text";
        if (nr != Document::none && (d.type(nr) != Type::array || d.node(nr).len > 0)) {
            if (d.type(nr) != Type::array)
                return Status::error(key("no_rope_layers") + " must be a list of 0 and 1");
            if (d.node(nr).len < static_cast<uint32_t>(n))
                return Status::error(key("no_rope_layers") + " has " +
                                     std::to_string(d.node(nr).len) +
                                     " entries for num_hidden_layers = " + std::to_string(n));
            int64_t i = 0;
            for (uint32_t c = d.first(nr); c != d.end(nr) && i < n; c = d.next(c), ++i) {
                int32_t v = -1;
                if (d.type(c) != Type::number || !d.index(c, &v) || v > 1)
                    return Status::error(key("no_rope_layers") + "[" + std::to_string(i) +
                                         "] must be 0 or 1");
                rope_[static_cast<size_t>(i)] = v == 1;
            }
        } else if (llama4 || t == "smollm3" || r_.has(cfg_, "no_rope_layer_interval")) {
            int64_t interval = 4;
            st =
                r_.integer(cfg_, "no_rope_layer_interval", prefix_, 1, int64_t{1} << 20, &interval);
            if (!st.ok()) return st;
            for (int64_t i = 0; i < n; ++i) rope_[static_cast<size_t>(i)] = (i + 1) % interval != 0;
        }
        if (t == "cohere2")
            for (int64_t i = 0; i < n; ++i)
                rope_[static_cast<size_t>(i)] =
                    types_[static_cast<size_t>(i)] == "sliding_attention";
        if (llama4 && lt == Document::none)
            for (int64_t i = 0; i < n; ++i)
                types_[static_cast<size_t>(i)] =
                    rope_[static_cast<size_t>(i)] ? "chunked_attention" : "full_attention";
        // Linear-attention layers have no RoPE.
        for (int64_t i = 0; i < n; ++i)
            if (types_[static_cast<size_t>(i)] == "linear_attention")
                rope_[static_cast<size_t>(i)] = false;

        chunk_ = 0;
        bool has_chunk = false;
        st = r_.integer(cfg_, "attention_chunk_size", prefix_, 1, int64_t{1} << 40, &chunk_,
                        &has_chunk);
        if (!st.ok()) return st;
        if (!has_chunk && llama4) chunk_ = 8192; // Llama4TextConfig's default
        for (int64_t i = 0; i < n; ++i) {
            const std::string& s = types_[static_cast<size_t>(i)];
            if (s == "sliding_attention" && !sliding_cfg)
                return Status::error(key("sliding_window") + " is required: layer " +
                                     std::to_string(i) + " is sliding_attention");
            if (s == "chunked_attention" && chunk_ == 0)
                return Status::error(key("attention_chunk_size") + " is required: layer " +
                                     std::to_string(i) + " is chunked_attention");
        }
        return {};
    }

    // The rope parameter object of a layer type, in either format.
    Status rope_for(const std::string& layer_type, RopeParams* p) {
        const Document& d = r_.doc();
        const uint32_t v5 = r_.get(cfg_, "rope_parameters");
        if (v5 != Document::none) {
            if (d.type(v5) != Type::object)
                return Status::error(key("rope_parameters") + " must be an object");
            const bool flat =
                r_.has(v5, "rope_type") || r_.has(v5, "rope_theta") || r_.has(v5, "type");
            if (flat) {
                p->node = v5;
                p->path = key("rope_parameters") + ".";
            } else {
                const uint32_t nested = r_.get(v5, layer_type.c_str());
                if (nested == Document::none || d.type(nested) != Type::object)
                    return Status::error(key("rope_parameters") + "." + layer_type +
                                         " is required (an object): a layer is " + layer_type);
                p->node = nested;
                p->path = key("rope_parameters") + "." + layer_type + ".";
            }
            bool has_theta = false;
            Status st = r_.number(p->node, "rope_theta", p->path, &p->theta, &has_theta);
            if (!st.ok()) return st;
            if (!has_theta) {
                st = r_.number(cfg_, "rope_theta", prefix_, &p->theta, &has_theta);
                if (!st.ok()) return st;
            }
            if (!has_theta) return Status::error(p->path + "rope_theta is required");
            return {};
        }
        if (out_->model_type == "gemma4_text") {
            // Gemma4TextConfig without rope_parameters: its default_rope_params (it reads no v4
            // rope_theta or rope_scaling): sliding {default, 1e4}, full {proportional, 0.25, 1e6}.
            p->node = Document::none;
            p->gemma4_proportional = layer_type == "full_attention";
            p->theta = p->gemma4_proportional ? 1000000.0 : 10000.0;
            return {};
        }
        type_default(out_->model_type, "rope_theta", &p->theta);
        Status st = r_.number(cfg_, "rope_theta", prefix_, &p->theta);
        if (!st.ok()) return st;
        // Gemma 3 (v4): sliding layers rotate with rope_local_base_freq and no scaling.
        double local = 0;
        if (layer_type == "sliding_attention" &&
            (r_.has(cfg_, "rope_local_base_freq") ||
             type_default(out_->model_type, "rope_local_base_freq", &local))) {
            p->node = Document::none;
            p->theta = local;
            return r_.number(cfg_, "rope_local_base_freq", prefix_, &p->theta);
        }
        const uint32_t sc = r_.get(cfg_, "rope_scaling");
        if (sc != Document::none && d.type(sc) != Type::object)
            return Status::error(key("rope_scaling") + " must be an object or null");
        // OLMo 3 scales only its full-attention layers.
        if (out_->model_type == "olmo3" && layer_type == "sliding_attention") {
            p->node = Document::none;
            return {};
        }
        p->node = sc;
        p->path = key("rope_scaling") + ".";
        return {};
    }

    // The Scheme of one RoPE layer from its rope parameters; *softmax_mscale is MLA's
    // mscale(factor, mscale_all_dim) for its softmax scale (1: none).
    Status scheme_for(const RopeParams& p, Scheme* s, QueryTemperature* temperature,
                      double* softmax_mscale) {
        *softmax_mscale = 1;
        s->type = SchemeType::rope;
        s->layout = out_->layout;
        s->rotary_fraction = rotary_fraction_;
        // MLA (DeepSeek V2/V3): q = cat(q_nope, q_pe), the RoPE dims last.
        s->rotary_last = mla_;
        if (!(p.theta > 1))
            return Status::error((p.path.empty() ? key("rope_theta") : p.path + "rope_theta") +
                                 " must be a number > 1, got " + num(p.theta));
        s->base = p.theta;
        Scaling& sc = s->scaling;
        sc = Scaling();
        if (p.gemma4_proportional) {
            sc.type = ScalingType::proportional;
            sc.partial_rotary_factor = 0.25;
            s->rotary_fraction = 1.0;
        }
        if (p.node == Document::none) return {};
        const Document& d = r_.doc();
        const std::string& path = p.path;
        std::string type = "default";
        bool has = false;
        Status st = r_.string(p.node, "rope_type", path, &type, &has);
        if (st.ok() && !has) st = r_.string(p.node, "type", path, &type, &has);
        if (!st.ok()) return st;
        if (!has) type = "default";
        // Unknown keys are warned about once per object.
        if (warned_.insert(p.node).second) {
            uint32_t c = d.first(p.node);
            while (c != d.end(p.node)) {
                const std::string k = d.node(c).len <= 64 ? d.string(c) : std::string("(long key)");
                if (!known_rope_key(k))
                    warn(path + k, "not a parameter of rope type " + type + "; ignored");
                c = d.next(d.next(c));
            }
        }
        double factor = 1;
        bool has_factor = false;
        st = r_.number(p.node, "factor", path, &factor, &has_factor);
        if (!st.ok()) return st;
        int64_t orig = 0;
        bool has_orig = false;
        st = r_.integer(p.node, "original_max_position_embeddings", path, 1, int64_t{1} << 40,
                        &orig, &has_orig);
        if (!st.ok()) return st;
        if (has_orig && params_orig_ == 0) params_orig_ = orig;
        if (!has_orig && top_orig_ > 0) orig = top_orig_, has_orig = true;
        auto need_factor = [&]() -> Status {
            if (!has_factor)
                return Status::error(path + "factor is required for rope type " + type);
            if (!(factor >= 1))
                return Status::error(path + "factor must be a number >= 1, got " + num(factor));
            return {};
        };
        auto need_orig = [&](bool fallback_max) -> Status {
            if (has_orig) return {};
            if (fallback_max && out_->max_length > 0) {
                orig = out_->max_length;
                return {};
            }
            return Status::error(
                path + "original_max_position_embeddings is required for rope type " + type);
        };
        double attention = -1;
        bool has_attention = false;
        st = r_.number(p.node, "attention_factor", path, &attention, &has_attention);
        if (!st.ok()) return st;
        if (has_attention && attention < 0)
            return Status::error(path + "attention_factor must be >= 0, got " + num(attention));
        double prf = 1;
        bool has_prf = false;
        st = r_.number(p.node, "partial_rotary_factor", path, &prf, &has_prf);
        if (!st.ok()) return st;
        if (has_prf && !(prf > 0 && prf <= 1))
            return Status::error(path + "partial_rotary_factor must be in (0, 1], got " + num(prf));
        if (has_prf && type != "proportional") {
            const int64_t rdim = static_cast<int64_t>(std::floor(out_->head_dim * prf + 1e-9));
            if (rdim < 2 || rdim % 2)
                return Status::error(path + "partial_rotary_factor gives " + std::to_string(rdim) +
                                     " rotated dims, not an even number >= 2");
            s->rotary_fraction = static_cast<double>(rdim) / out_->head_dim;
        }
        double beta = 0;
        bool has_beta = false;
        st = r_.number(p.node, "llama_4_scaling_beta", path, &beta, &has_beta);
        if (!st.ok()) return st;
        if (has_beta) {
            if (st = need_orig(false); !st.ok()) return st;
            temperature->enabled = true;
            temperature->scale = beta;
            temperature->floor_scale = static_cast<double>(orig);
            temperature->offset = 0;
        }

        if (type == "default") {
            sc.type = ScalingType::none;
        } else if (type == "linear") {
            if (st = need_factor(); !st.ok()) return st;
            sc.type = ScalingType::linear;
            sc.factor = factor;
        } else if (type == "dynamic") {
            if (st = need_factor(); !st.ok()) return st;
            if (st = need_orig(true); !st.ok()) return st;
            sc.type = ScalingType::dynamic_ntk;
            sc.factor = factor;
            sc.original_length = static_cast<double>(orig);
        } else if (type == "yarn") {
            if (st = need_orig(true); !st.ok()) return st;
            if (!has_factor) {
                if (out_->max_length <= 0)
                    return Status::error(path + "factor is required (or max_position_embeddings)");
                factor = static_cast<double>(out_->max_length) / static_cast<double>(orig);
                has_factor = true;
            }
            if (st = need_factor(); !st.ok()) return st;
            sc.type = ScalingType::yarn;
            sc.factor = factor;
            sc.original_length = static_cast<double>(orig);
            // transformers: `get("beta_fast") or 32`, so 0 means the default too.
            double bf = 0, bs = 0;
            if ((st = r_.number(p.node, "beta_fast", path, &bf)).ok())
                st = r_.number(p.node, "beta_slow", path, &bs);
            if (!st.ok()) return st;
            sc.beta_fast = bf != 0 ? bf : 32;
            sc.beta_slow = bs != 0 ? bs : 1;
            double ms = 0, msa = 0;
            if ((st = r_.number(p.node, "mscale", path, &ms)).ok())
                st = r_.number(p.node, "mscale_all_dim", path, &msa);
            if (st.ok()) st = r_.boolean(p.node, "truncate", path, &sc.truncate);
            if (!st.ok()) return st;
            if (ms != 0 && msa != 0) {
                if (ms < 0 || msa < 0)
                    return Status::error(path + "mscale and mscale_all_dim must be >= 0");
                sc.mscale = ms;
                sc.mscale_all_dim = msa;
            }
            if (has_attention) sc.attention_factor = attention;
        } else if (type == "longrope") {
            if (st = need_orig(true); !st.ok()) return st;
            if (!has_factor) {
                if (out_->max_length <= 0)
                    return Status::error(path + "factor is required (or max_position_embeddings)");
                factor = static_cast<double>(out_->max_length) / static_cast<double>(orig);
            }
            if (!(factor > 0))
                return Status::error(path + "factor must be a positive number, got " + num(factor));
            sc.type = ScalingType::longrope;
            const int rdim = rotary_dim(*s, out_->head_dim);
            if ((st = r_.numbers(p.node, "short_factor", path, rdim / 2, &sc.short_factor)).ok())
                st = r_.numbers(p.node, "long_factor", path, rdim / 2, &sc.long_factor);
            if (!st.ok()) return st;
            sc.factor = factor;
            sc.original_length = static_cast<double>(orig);
            // The core's factor must be >= 1 for its validation; transformers' default attention
            // factor is 1 whenever factor <= 1.
            if (factor < 1) {
                sc.factor = 1;
                if (!has_attention) sc.attention_factor = 1;
            }
            if (has_attention) sc.attention_factor = attention;
        } else if (type == "llama3") {
            if (st = need_factor(); !st.ok()) return st;
            if (st = need_orig(false); !st.ok()) return st;
            sc.type = ScalingType::llama3;
            sc.factor = factor;
            sc.original_length = static_cast<double>(orig);
            double lo = 1, hi = 4;
            bool has_lo = false, has_hi = false;
            if ((st = r_.number(p.node, "low_freq_factor", path, &lo, &has_lo)).ok())
                st = r_.number(p.node, "high_freq_factor", path, &hi, &has_hi);
            if (!st.ok()) return st;
            if (!has_lo || !has_hi)
                return Status::error(
                    path +
                    "low_freq_factor and high_freq_factor are required for rope type llama3");
            if (!(lo > 0) || hi < lo)
                return Status::error(path +
                                     "llama3 needs 0 < low_freq_factor <= high_freq_factor, got " +
                                     num(lo) + " and " + num(hi));
            if (hi == lo)
                warn(path + "high_freq_factor",
                     "equals low_freq_factor (transformers warns): the llama3 ramp is a step at "
                     "wavelength original_max_position_embeddings / low_freq_factor");
            sc.low_freq_factor = lo;
            sc.high_freq_factor = hi;
        } else if (type == "proportional") {
            sc.type = ScalingType::proportional;
            sc.partial_rotary_factor = has_prf ? prf : 1.0;
            s->rotary_fraction = 1.0; // p-RoPE keeps the full head dim's denominator
            // _compute_proportional_rope_parameters: inv_freq /= get("factor", 1.0).
            if (has_factor && !(factor > 0))
                return Status::error(path + "factor must be a number > 0, got " + num(factor));
            sc.factor = has_factor ? factor : 1.0;
        } else if (type == "mrope") {
            return Status::error("config.json uses M-RoPE; only text decoders are read");
        } else {
            return Status::error(
                path + "rope_type '" + type +
                "' is not one of default, linear, dynamic, yarn, longrope, llama3, proportional");
        }
        if (has_attention && sc.type != ScalingType::yarn && sc.type != ScalingType::longrope)
            warn(path + "attention_factor",
                 "read only for yarn and longrope (as transformers); ignored");
        // MLA's softmax scale (modeling_deepseek_v3.py, DeepseekV2Attention since transformers
        // PR #47435): for a rope type other than default with a mscale_all_dim, the scale is
        // multiplied by yarn_get_mscale(factor, mscale_all_dim)^2.
        double msa = 0;
        st = r_.number(p.node, "mscale_all_dim", path, &msa);
        if (!st.ok()) return st;
        if (mla_ && type != "default" && msa != 0) {
            if (!has_factor)
                return Status::error(path +
                                     "factor is required: mscale_all_dim scales the softmax by "
                                     "mscale(factor, mscale_all_dim)^2");
            *softmax_mscale = yarn_get_mscale(factor, msa);
        }
        return {};
    }

    // The softmax scale and the logit soft-cap every softmax layer of the model takes (MLA's is
    // per layer type: rope_layers). Gemma 2/3: query_pre_attn_scalar^-0.5 (modeling_gemma2.py,
    // modeling_gemma3.py); Gemma 2: attn_logit_softcapping (Gemma2Config's default 50.0, null for
    // none); Gemma 4: 1.0 (modeling_gemma4.py).
    Status scale_and_softcap(double* scale, double* softcap) {
        *scale = 0;
        *softcap = 0;
        const std::string& t = out_->model_type;
        if (t == "gemma2" || t == "gemma3_text" || t == "gemma3") {
            double scalar = 256;
            bool has = false;
            Status st = number_key("query_pre_attn_scalar", &scalar, &has);
            if (!st.ok()) return st;
            if (!(scalar > 0))
                return Status::error(key("query_pre_attn_scalar") + " must be a number > 0, got " +
                                     num(scalar));
            *scale = std::pow(scalar, -0.5);
            scale_modeled_ = true;
        } else if (t == "gemma4_text" || t == "gemma4") {
            *scale = 1.0;
        }
        if (t == "gemma2" && !is_null("attn_logit_softcapping")) {
            double cap = 0;
            bool has = false;
            Status st = number_key("attn_logit_softcapping", &cap, &has);
            if (!st.ok()) return st;
            if (has && !(cap > 0))
                return Status::error(key("attn_logit_softcapping") +
                                     " must be a number > 0 or null, got " + num(cap));
            *softcap = has ? cap : 0;
        }
        if (t == "gemma2") softcap_modeled_ = true;
        return {};
    }

    Status rope_layers() {
        const int64_t n = layer_count_;
        const std::string& t = out_->model_type;
        bool tuning = t == "llama4" || t == "llama4_text";
        double floor_scale = 8192, attn_scale = 0.1;
        Status st = r_.truthy(cfg_, "attn_temperature_tuning", prefix_, &tuning);
        if (st.ok()) st = r_.number(cfg_, "floor_scale", prefix_, &floor_scale);
        if (st.ok()) st = r_.number(cfg_, "attn_scale", prefix_, &attn_scale);
        if (!st.ok()) return st;
        if (!(floor_scale > 0))
            return Status::error(key("floor_scale") + " must be > 0, got " + num(floor_scale));
        int64_t global_head_dim = 0;
        bool has_global = false;
        st = int_key("global_head_dim", nullptr, 2, Limits::max_head_dim, &global_head_dim,
                     &has_global);
        if (!st.ok()) return st;
        if (has_global && global_head_dim % 2)
            return Status::error(key("global_head_dim") + " must be even, got " +
                                 std::to_string(global_head_dim));
        double scale = 0, softcap = 0;
        st = scale_and_softcap(&scale, &softcap);
        if (!st.ok()) return st;
        const bool sinks = t == "gpt_oss";

        // One Scheme per layer type (the rope parameters are per type).
        struct TypeSetup {
            Scheme scheme;
            QueryTemperature temperature;
            double softmax_mscale = 1;
        };
        std::map<std::string, TypeSetup> per_type;
        out_->layers.reserve(static_cast<size_t>(n));
        for (int64_t i = 0; i < n; ++i) {
            LayerSetup layer;
            layer.type = types_[static_cast<size_t>(i)];
            layer.rope = rope_[static_cast<size_t>(i)];
            layer.head_dim = out_->head_dim;
            if (layer.type == "linear_attention") {
                // No softmax map and no RoPE: nothing of the rope parameters applies.
                layer.linear = true;
                layer.scheme = Scheme();
                layer.scheme.type = SchemeType::nope;
                out_->layers.push_back(std::move(layer));
                continue;
            }
            if (has_global && layer.type == "full_attention")
                layer.head_dim = static_cast<int>(global_head_dim);
            layer.sinks = sinks;
            if (layer.type == "sliding_attention") {
                layer.attention = AttentionKind::sliding;
                layer.window = window_;
            } else if (layer.type == "chunked_attention") {
                layer.attention = AttentionKind::chunked;
                layer.chunk_size = chunk_;
            }
            auto it = per_type.find(layer.type);
            if (it == per_type.end()) {
                RopeParams p;
                TypeSetup made;
                if ((st = rope_for(layer.type, &p)).ok())
                    st = scheme_for(p, &made.scheme, &made.temperature, &made.softmax_mscale);
                if (st.ok()) {
                    st = validate(made.scheme, layer.head_dim);
                    if (!st.ok())
                        st = Status::error((p.path.empty() ? key("rope_theta") : p.path) + ": " +
                                           st.message());
                }
                if (!st.ok()) return st;
                it = per_type.emplace(layer.type, made).first;
            }
            layer.temperature = it->second.temperature;
            layer.scale = scale;
            layer.softcap = softcap;
            // MLA: self.scaling = qk_head_dim ** -0.5, then * mscale * mscale.
            if (mla_ && it->second.softmax_mscale != 1) {
                const double m = it->second.softmax_mscale;
                layer.scale = std::pow(static_cast<double>(layer.head_dim), -0.5) * m * m;
            }
            if (layer.rope) {
                layer.scheme = it->second.scheme;
            } else {
                layer.scheme = Scheme();
                layer.scheme.type = SchemeType::nope;
                // Llama 4 tunes the temperature of its NoPE layers only.
                if (tuning) {
                    layer.temperature.enabled = true;
                    layer.temperature.floor_scale = floor_scale;
                    layer.temperature.scale = attn_scale;
                    layer.temperature.offset = 1;
                }
            }
            out_->layers.push_back(std::move(layer));
        }
        return {};
    }

    Status extras() {
        const uint32_t dca = r_.get(cfg_, "dual_chunk_attention_config");
        if (dca == Document::none) return {};
        const std::string path = key("dual_chunk_attention_config") + ".";
        if (r_.doc().type(dca) != Type::object)
            return Status::error(path.substr(0, path.size() - 1) + " must be an object");
        DualChunk& c = out_->dual_chunk;
        bool has_chunk = false, has_local = false;
        Status st =
            r_.integer(dca, "chunk_size", path, 1, int64_t{1} << 40, &c.chunk_size, &has_chunk);
        if (st.ok())
            st =
                r_.integer(dca, "local_size", path, 1, int64_t{1} << 40, &c.local_size, &has_local);
        if (st.ok())
            st = r_.integer(dca, "original_max_position_embeddings", path, 1, int64_t{1} << 40,
                            &c.original_length);
        if (!st.ok()) return st;
        if (!has_chunk || !has_local)
            return Status::error(path + "chunk_size and local_size are required");
        if (c.local_size >= c.chunk_size)
            return Status::error(path + "local_size must be below chunk_size, got " +
                                 std::to_string(c.local_size) + " and " +
                                 std::to_string(c.chunk_size));
        c.enabled = true;
        // Qwen2.5-1M states its trained length only here.
        if (top_orig_ == 0 && params_orig_ == 0 && c.original_length > 0)
            out_->trained_length = c.original_length;
        const Document& d = r_.doc();
        uint32_t k = d.first(dca);
        while (k != d.end(dca)) {
            const std::string name = d.node(k).len <= 64 ? d.string(k) : std::string("(long key)");
            if (name != "chunk_size" && name != "local_size" &&
                name != "original_max_position_embeddings")
                warn(path + name, "a Dual Chunk Attention option not modeled");
            k = d.next(d.next(k));
        }
        return {};
    }

    void unmodeled() {
        const Document& d = r_.doc();
        const std::string& t = out_->model_type;
        for (const Unmodeled& u : kUnmodeled) {
            const std::string k = u.key;
            const uint32_t v = r_.get(cfg_, u.key);
            if (v == Document::none) continue;
            // false / 0 flags change nothing.
            if (d.type(v) == Type::boolean && !d.boolean(v)) continue;
            if (k == "rope_interleave") continue; // read: the layout
            // Cohere's "rope_gptj" (GPT-J's adjacent pairs) is the layout its type is read with.
            if (k == "position_embedding_type" && d.type(v) == Type::string &&
                d.equals(v, "rope_gptj") && is_interleaved_type(t))
                continue;
            if (k == "query_pre_attn_scalar" && scale_modeled_) continue;
            if (k == "attn_logit_softcapping" && softcap_modeled_) continue;
            if (k == "attn_logit_softcapping" && (t == "gemma3_text" || t == "gemma3")) {
                warn(key(u.key), "Gemma3Attention keeps it but passes no softcap to the attention "
                                 "function (modeling_gemma3.py): not applied");
                continue;
            }
            warn(key(u.key), u.what);
        }
        if (implied_qk_norm(t))
            warn(key("model_type"),
                 t + " normalizes q and k per head (q_norm, k_norm: RMSNorm with learned weights) "
                     "before RoPE; no config key says so and the setup does not model it");
        for (const LayerSetup& l : out_->layers)
            if (l.linear) {
                warn(key("layer_types"),
                     "linear_attention layers (Gated DeltaNet) have no softmax attention map and "
                     "no RoPE: marked linear, not modeled");
                break;
            }
    }

    Reader r_;
    const ModelConfigLimits& limits_;
    ModelSetup* out_;
    uint32_t cfg_ = Document::root;
    std::string prefix_;
    int64_t layer_count_ = 0;
    int64_t window_ = 0;
    int64_t chunk_ = 0;
    int64_t top_orig_ = 0;
    int64_t params_orig_ = 0; // the first original_max_position_embeddings inside rope parameters
    double rotary_fraction_ = 1;
    bool mla_ = false;             // qk_rope_head_dim: the RoPE dims last, DeepSeek's softmax scale
    bool scale_modeled_ = false;   // query_pre_attn_scalar read into LayerSetup::scale
    bool softcap_modeled_ = false; // attn_logit_softcapping read into LayerSetup::softcap
    std::vector<std::string> types_;
    std::vector<bool> rope_;
    std::set<uint32_t> warned_;
};

} // namespace

Status read_model_config(std::string_view text, ModelSetup* out, const ModelConfigLimits& limits) {
    *out = ModelSetup();
    if (text.size() > limits.max_bytes)
        return Status::error("config.json: " + std::to_string(text.size()) +
                             " bytes is more than the limit of " +
                             std::to_string(limits.max_bytes));
    json::Limits jl;
    jl.max_bytes = limits.max_bytes;
    jl.max_depth = limits.max_depth;
    jl.max_nodes = limits.max_values;
    Document doc;
    Status st = doc.parse(text, jl);
    if (!st.ok()) {
        std::string m = st.message();
        const std::string from = "tokenizer.json";
        if (m.compare(0, from.size(), from) == 0) m = "config.json" + m.substr(from.size());
        return Status::error(m);
    }
    st = Builder(doc, limits, out).run();
    if (!st.ok()) *out = ModelSetup();
    return st;
}

} // namespace hirope
