// The config.json reader (include/hirope/model_config.h) against transformers' formulas,
// transcribed here independently in double precision from modeling_rope_utils.py
// (_compute_default/linear/dynamic_ntk/yarn/longrope/llama3/proportional_rope_parameters), and
// against the layer patterns of the configuration_*.py files (docs/real-models.md).
#include "hirope/model_config.h"
#include "test_files.h"
#include "tokenizers/json.h"
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

using namespace hirope;

namespace {

const double kPi = 3.14159265358979323846;

// _compute_default_rope_parameters: 1 / base^(arange(0, dim, 2) / dim).
std::vector<double> tf_default(double base, int dim) {
    std::vector<double> f;
    for (int i = 0; i < dim; i += 2)
        f.push_back(1.0 / std::pow(base, static_cast<double>(i) / dim));
    return f;
}

std::vector<double> tf_linear(double base, int dim, double factor) {
    std::vector<double> f = tf_default(base, dim);
    for (double& x : f) x /= factor;
    return f;
}

// _compute_dynamic_ntk_parameters: base * ((factor * seq / orig) - (factor - 1))^(dim / (dim - 2)),
// seq = max(seq_len, orig).
std::vector<double> tf_dynamic(double base, int dim, double factor, double orig, double seq) {
    seq = std::max(seq, orig);
    const double b = base * std::pow(factor * seq / orig - (factor - 1), dim / (dim - 2.0));
    return tf_default(b, dim);
}

double tf_get_mscale(double scale, double m) {
    return scale <= 1 ? 1.0 : 0.1 * m * std::log(scale) + 1.0;
}

// _compute_yarn_parameters.
std::vector<double> tf_yarn(double base, int dim, double factor, double orig, double beta_fast,
                            double beta_slow, bool truncate) {
    auto corr = [&](double rot) {
        return dim * std::log(orig / (rot * 2 * kPi)) / (2 * std::log(base));
    };
    double low = corr(beta_fast), high = corr(beta_slow);
    if (truncate) low = std::floor(low), high = std::ceil(high);
    low = std::max(low, 0.0);
    high = std::min(high, dim - 1.0);
    if (low == high) high += 0.001;
    std::vector<double> f;
    for (int i = 0; i < dim / 2; ++i) {
        const double pos = std::pow(base, 2.0 * i / dim);
        const double ramp = std::min(1.0, std::max(0.0, (i - low) / (high - low)));
        const double extrapolation = 1 - ramp;
        f.push_back((1 / (factor * pos)) * (1 - extrapolation) + (1 / pos) * extrapolation);
    }
    return f;
}

// _compute_llama3_parameters.
std::vector<double> tf_llama3(double base, int dim, double factor, double low_ff, double high_ff,
                              double orig) {
    std::vector<double> f = tf_default(base, dim);
    const double low_wl = orig / low_ff, high_wl = orig / high_ff;
    for (double& x : f) {
        const double wl = 2 * kPi / x;
        if (wl > low_wl) {
            x = x / factor;
        } else if (!(wl < high_wl)) {
            const double smooth = (orig / wl - low_ff) / (high_ff - low_ff);
            x = (1 - smooth) * x / factor + smooth * x;
        }
    }
    return f;
}

// _compute_longrope_parameters: 1 / (ext * base^(arange(0,dim,2)/dim)), long past orig.
std::vector<double> tf_longrope(double base, int dim, const std::vector<double>& sf,
                                const std::vector<double>& lf, double orig, double seq) {
    const std::vector<double>& ext = seq > orig ? lf : sf;
    std::vector<double> f;
    for (int i = 0; i < dim / 2; ++i) f.push_back(1 / (ext[i] * std::pow(base, 2.0 * i / dim)));
    return f;
}

// _compute_proportional_rope_parameters: the first int(p * dim // 2) of the default, then 0;
// then inv_freq /= factor (rope_parameters.get("factor", 1.0)).
std::vector<double> tf_proportional(double base, int dim, double p, double factor = 1.0) {
    std::vector<double> f = tf_default(base, dim);
    const int rope_angles = static_cast<int>(std::floor(p * dim / 2));
    for (int i = rope_angles; i < dim / 2; ++i) f[i] = 0;
    for (double& x : f) x /= factor;
    return f;
}

void check_freqs(const LayerSetup& layer, int64_t seq, const std::vector<double>& want) {
    std::vector<double> got;
    const Status st = inverse_frequencies(layer.scheme, layer.head_dim, seq, &got);
    INFO(st.message());
    REQUIRE(st.ok());
    REQUIRE(got.size() == want.size());
    for (size_t i = 0; i < want.size(); ++i) {
        INFO("pair " << i);
        REQUIRE(got[i] == Approx(want[i]).epsilon(1e-12).margin(1e-300));
    }
}

ModelSetup read_ok(const std::string& text) {
    ModelSetup m;
    const Status st = read_model_config(text, &m);
    INFO(st.message());
    REQUIRE(st.ok());
    return m;
}

std::string read_error(const std::string& text,
                       const ModelConfigLimits& limits = ModelConfigLimits()) {
    ModelSetup m;
    const Status st = read_model_config(text, &m, limits);
    REQUIRE(!st.ok());
    REQUIRE(m.layers.empty());
    return st.message();
}

bool same_scheme(const Scheme& a, const Scheme& b) {
    return a.type == b.type && a.base == b.base && a.layout == b.layout &&
           a.rotary_fraction == b.rotary_fraction && a.scaling.type == b.scaling.type &&
           a.scaling.factor == b.scaling.factor &&
           a.scaling.original_length == b.scaling.original_length &&
           a.scaling.beta_fast == b.scaling.beta_fast &&
           a.scaling.beta_slow == b.scaling.beta_slow && a.scaling.truncate == b.scaling.truncate &&
           a.scaling.mscale == b.scaling.mscale &&
           a.scaling.mscale_all_dim == b.scaling.mscale_all_dim &&
           a.scaling.attention_factor == b.scaling.attention_factor &&
           a.scaling.low_freq_factor == b.scaling.low_freq_factor &&
           a.scaling.high_freq_factor == b.scaling.high_freq_factor &&
           a.scaling.short_factor == b.scaling.short_factor &&
           a.scaling.long_factor == b.scaling.long_factor &&
           a.scaling.partial_rotary_factor == b.scaling.partial_rotary_factor &&
           a.rotary_last == b.rotary_last;
}

void check_same_setup(const ModelSetup& a, const ModelSetup& b) {
    REQUIRE(a.head_dim == b.head_dim);
    REQUIRE(a.rotary_dim == b.rotary_dim);
    REQUIRE(a.trained_length == b.trained_length);
    REQUIRE(a.max_length == b.max_length);
    REQUIRE(a.layers.size() == b.layers.size());
    for (size_t i = 0; i < a.layers.size(); ++i) {
        INFO("layer " << i);
        REQUIRE(a.layers[i].attention == b.layers[i].attention);
        REQUIRE(a.layers[i].window == b.layers[i].window);
        REQUIRE(a.layers[i].chunk_size == b.layers[i].chunk_size);
        REQUIRE(a.layers[i].rope == b.layers[i].rope);
        REQUIRE(a.layers[i].head_dim == b.layers[i].head_dim);
        REQUIRE(same_scheme(a.layers[i].scheme, b.layers[i].scheme));
        REQUIRE(a.layers[i].scale == b.layers[i].scale);
        REQUIRE(a.layers[i].softcap == b.layers[i].softcap);
        REQUIRE(a.layers[i].linear == b.layers[i].linear);
    }
}

std::string list_of(int n, double v) {
    std::string s = "[";
    for (int i = 0; i < n; ++i) s += (i ? "," : "") + std::to_string(v + 0.01 * i);
    return s + "]";
}
std::vector<double> values_of(int n, double v) {
    std::vector<double> out;
    for (int i = 0; i < n; ++i) out.push_back(std::stod(std::to_string(v + 0.01 * i)));
    return out;
}

} // namespace

TEST_CASE("model config: default and linear, v4 and v5", "[model_config]") {
    const ModelSetup v4 = read_ok(R"({"model_type":"llama","num_hidden_layers":2,"hidden_size":512,
        "num_attention_heads":8,"max_position_embeddings":4096,"rope_theta":10000.0,
        "rope_scaling":{"type":"linear","factor":4.0}})");
    const ModelSetup v5 = read_ok(R"({"model_type":"llama","num_hidden_layers":2,"hidden_size":512,
        "num_attention_heads":8,"max_position_embeddings":4096,
        "rope_parameters":{"rope_type":"linear","factor":4.0,"rope_theta":10000.0}})");
    REQUIRE(v4.head_dim == 64);
    REQUIRE(v4.rotary_dim == 64);
    REQUIRE(v4.layout == Layout::half);
    check_same_setup(v4, v5);
    check_freqs(v4.layers[1], 100, tf_linear(10000, 64, 4));
    REQUIRE(attention_factor(v4.layers[0].scheme, 100) == 1.0);
    const ModelSetup plain =
        read_ok(R"({"num_hidden_layers":1,"head_dim":128,"rope_theta":500000})");
    check_freqs(plain.layers[0], 1, tf_default(500000, 128));
    REQUIRE(plain.layers[0].scheme.scaling.type == ScalingType::none);
    // No rope_theta at all: transformers' default base 10000.
    const ModelSetup none = read_ok(R"({"num_hidden_layers":1,"head_dim":16})");
    check_freqs(none.layers[0], 1, tf_default(10000, 16));
}

TEST_CASE("model config: a key given twice has its last value, as JSON.parse and json.load read it",
          "[model_config]") {
    // The first value used to win: a file edited by appending a key read differently here than
    // in transformers (json.load) and in the browser (JSON.parse).
    const ModelSetup twice = read_ok(R"({"model_type":"llama","num_hidden_layers":2,
        "hidden_size":512,"num_attention_heads":8,"max_position_embeddings":4096,
        "rope_theta":10000.0,"max_position_embeddings":8192,"rope_theta":500000.0})");
    REQUIRE(twice.trained_length == 8192);
    check_freqs(twice.layers[0], 1, tf_default(500000, 64));
    json::Document d;
    REQUIRE(d.parse(R"({"a":1,"b":{"c":2},"a":{"d":3}})").ok());
    const uint32_t a = d.find(json::Document::root, "a");
    REQUIRE(a != json::Document::none);
    REQUIRE(d.find(a, "d") != json::Document::none);
}

TEST_CASE("model config: dynamic NTK follows the sequence length", "[model_config]") {
    const ModelSetup m =
        read_ok(R"({"num_hidden_layers":1,"head_dim":64,"max_position_embeddings":2048,
        "rope_theta":10000,"rope_scaling":{"rope_type":"dynamic","factor":2.0}})");
    for (int64_t seq : {100, 2048, 5000, 100000})
        check_freqs(m.layers[0], seq, tf_dynamic(10000, 64, 2, 2048, seq));
}

TEST_CASE("model config: Llama 3.1 llama3 scaling, both formats", "[model_config]") {
    const char* v4 =
        R"({"architectures":["LlamaForCausalLM"],"model_type":"llama","hidden_size":4096,
        "num_attention_heads":32,"num_hidden_layers":32,"max_position_embeddings":131072,"rope_theta":500000.0,
        "rope_scaling":{"factor":8.0,"low_freq_factor":1.0,"high_freq_factor":4.0,
        "original_max_position_embeddings":8192,"rope_type":"llama3"}})";
    const char* v5 =
        R"({"model_type":"llama","hidden_size":4096,"num_attention_heads":32,"num_hidden_layers":32,
        "max_position_embeddings":131072,"rope_parameters":{"rope_theta":500000.0,"factor":8.0,
        "low_freq_factor":1.0,"high_freq_factor":4.0,"original_max_position_embeddings":8192,"rope_type":"llama3"}})";
    const ModelSetup a = read_ok(v4), b = read_ok(v5);
    check_same_setup(a, b);
    REQUIRE(a.trained_length == 8192); // original_max_position_embeddings inside rope_scaling
    REQUIRE(a.max_length == 131072);
    for (const LayerSetup& l : a.layers)
        check_freqs(l, 1000, tf_llama3(500000, 128, 8, 1, 4, 8192));
    REQUIRE(a.warnings.empty());
}

TEST_CASE("model config: YaRN (GPT-oss): layers, sinks, attention factor", "[model_config]") {
    const char* v4 =
        R"({"model_type":"gpt_oss","num_hidden_layers":4,"hidden_size":2880,"head_dim":64,
        "num_attention_heads":64,"max_position_embeddings":131072,"rope_theta":150000,"sliding_window":128,
        "initial_context_length":4096,
        "layer_types":["sliding_attention","full_attention","sliding_attention","full_attention"],
        "rope_scaling":{"beta_fast":32.0,"beta_slow":1.0,"factor":32.0,"original_max_position_embeddings":4096,
        "rope_type":"yarn","truncate":false}})";
    const ModelSetup m = read_ok(v4);
    REQUIRE(m.layers.size() == 4);
    for (size_t i = 0; i < 4; ++i) {
        const LayerSetup& l = m.layers[i];
        REQUIRE(l.sinks);
        REQUIRE(l.attention == (i % 2 ? AttentionKind::full : AttentionKind::sliding));
        if (i % 2 == 0) REQUIRE(l.window == 128);
        check_freqs(l, 10, tf_yarn(150000, 64, 32, 4096, 32, 1, false));
        REQUIRE(attention_factor(l.scheme, 10) == Approx(0.1 * std::log(32.0) + 1).epsilon(1e-14));
    }
    // Without layer_types, gpt_oss's default alternates starting with sliding.
    std::string no_types = v4;
    const size_t at = no_types.find("\"layer_types\"");
    no_types.erase(at, no_types.find(']', at) - at + 2);
    check_same_setup(m, read_ok(no_types));
    REQUIRE(m.warnings.size() == 1);
    REQUIRE(m.warnings[0].find("initial_context_length") == 0);
    // The nested v5 form gives the same setup.
    const ModelSetup v5 = read_ok(R"({"model_type":"gpt_oss","num_hidden_layers":4,"head_dim":64,
        "max_position_embeddings":131072,"sliding_window":128,"rope_parameters":{
        "full_attention":{"rope_type":"yarn","rope_theta":150000,"factor":32.0,"beta_fast":32.0,"beta_slow":1.0,
           "original_max_position_embeddings":4096,"truncate":false},
        "sliding_attention":{"rope_type":"yarn","rope_theta":150000,"factor":32.0,"beta_fast":32.0,"beta_slow":1.0,
           "original_max_position_embeddings":4096,"truncate":false}}})");
    check_same_setup(m, v5);
}

TEST_CASE("model config: YaRN defaults, truncate, factor from the lengths", "[model_config]") {
    // Qwen2.5's opt-in YaRN, keyed by "type"; betas default to 32 / 1 and truncate to true.
    const ModelSetup q = read_ok(R"({"model_type":"qwen2","num_hidden_layers":2,"hidden_size":3584,
        "num_attention_heads":28,"max_position_embeddings":32768,"rope_theta":1000000.0,
        "sliding_window":131072,"use_sliding_window":false,"max_window_layers":28,
        "rope_scaling":{"factor":4.0,"original_max_position_embeddings":32768,"type":"yarn"}})");
    REQUIRE(q.layers[0].attention == AttentionKind::full);
    REQUIRE(q.trained_length == 32768);
    check_freqs(q.layers[0], 1, tf_yarn(1e6, 128, 4, 32768, 32, 1, true));
    REQUIRE(attention_factor(q.layers[0].scheme, 1) ==
            Approx(0.1 * std::log(4.0) + 1).epsilon(1e-14));
    // No factor: max / original (transformers' fallback).
    const ModelSetup f =
        read_ok(R"({"num_hidden_layers":1,"head_dim":64,"max_position_embeddings":65536,
        "rope_parameters":{"rope_type":"yarn","rope_theta":10000,"original_max_position_embeddings":4096,
        "attention_factor":0.5}})");
    check_freqs(f.layers[0], 1, tf_yarn(10000, 64, 16, 4096, 32, 1, true));
    REQUIRE(attention_factor(f.layers[0].scheme, 1) == 0.5);
}

TEST_CASE("model config: DeepSeek-V3 MLA, mscale, interleaved pairs", "[model_config]") {
    const ModelSetup m =
        read_ok(R"({"model_type":"deepseek_v3","num_hidden_layers":3,"hidden_size":7168,
        "num_attention_heads":128,"qk_nope_head_dim":128,"qk_rope_head_dim":64,"v_head_dim":128,
        "kv_lora_rank":512,"max_position_embeddings":163840,"rope_theta":10000,
        "rope_scaling":{"beta_fast":32,"beta_slow":1,"factor":40,"mscale":1.0,"mscale_all_dim":1.0,
        "original_max_position_embeddings":4096,"type":"yarn"}})");
    REQUIRE(m.head_dim == 192);
    REQUIRE(m.rotary_dim == 64);
    REQUIRE(m.layout == Layout::interleaved);
    REQUIRE(m.trained_length == 4096);
    REQUIRE(rotary_dim(m.layers[0].scheme, m.head_dim) == 64);
    check_freqs(m.layers[0], 1, tf_yarn(10000, 64, 40, 4096, 32, 1, true));
    REQUIRE(attention_factor(m.layers[0].scheme, 1) ==
            Approx(tf_get_mscale(40, 1) / tf_get_mscale(40, 1)));
    const ModelSetup lite =
        read_ok(R"({"model_type":"deepseek_v2","num_hidden_layers":1,"qk_nope_head_dim":128,
        "qk_rope_head_dim":64,"max_position_embeddings":163840,"rope_theta":10000,"rope_scaling":{"type":"yarn",
        "factor":40,"mscale":0.707,"mscale_all_dim":0.707,"original_max_position_embeddings":4096}})");
    REQUIRE(attention_factor(lite.layers[0].scheme, 1) == Approx(1.0));
    const ModelSetup one =
        read_ok(R"({"num_hidden_layers":1,"head_dim":64,"max_position_embeddings":163840,
        "rope_scaling":{"type":"yarn","factor":40,"mscale":0.707,"mscale_all_dim":1,"original_max_position_embeddings":4096}})");
    REQUIRE(attention_factor(one.layers[0].scheme, 1) ==
            Approx(tf_get_mscale(40, 0.707) / tf_get_mscale(40, 1)).epsilon(1e-14));
}

TEST_CASE("model config: LongRoPE (Phi-3.5) switches factor lists past the original length",
          "[model_config]") {
    const std::string sf = list_of(48, 1.0), lf = list_of(48, 1.5);
    const std::string v4 =
        R"({"model_type":"phi3","num_hidden_layers":2,"hidden_size":3072,"num_attention_heads":32,
        "max_position_embeddings":131072,"original_max_position_embeddings":4096,"rope_theta":10000.0,
        "sliding_window":262144,"rope_scaling":{"type":"longrope","short_factor":)" +
        sf + R"(,"long_factor":)" + lf + "}}";
    const ModelSetup m = read_ok(v4);
    REQUIRE(m.head_dim == 96);
    REQUIRE(m.trained_length == 4096);
    REQUIRE(m.layers[0].attention == AttentionKind::sliding);
    REQUIRE(m.layers[0].window == 262144);
    check_freqs(m.layers[0], 4096,
                tf_longrope(10000, 96, values_of(48, 1.0), values_of(48, 1.5), 4096, 4096));
    check_freqs(m.layers[0], 4097,
                tf_longrope(10000, 96, values_of(48, 1.0), values_of(48, 1.5), 4096, 4097));
    REQUIRE(attention_factor(m.layers[0].scheme, 1) ==
            Approx(std::sqrt(1 + std::log(32.0) / std::log(4096.0))).epsilon(1e-14));
    // v5: the original length inside, the same setup.
    const std::string v5 =
        R"({"model_type":"phi3","num_hidden_layers":2,"hidden_size":3072,"num_attention_heads":32,
        "max_position_embeddings":131072,"sliding_window":262144,"rope_parameters":{"rope_type":"longrope",
        "rope_theta":10000.0,"original_max_position_embeddings":4096,"short_factor":)" +
        sf + R"(,"long_factor":)" + lf + "}}";
    const ModelSetup b = read_ok(v5);
    check_same_setup(m, b);
    // A list of the wrong length names the key.
    const std::string bad =
        R"({"num_hidden_layers":1,"head_dim":96,"max_position_embeddings":131072,
        "original_max_position_embeddings":4096,"rope_scaling":{"type":"longrope","short_factor":)" +
        list_of(47, 1) + R"(,"long_factor":)" + lf + "}}";
    REQUIRE(read_error(bad) ==
            "rope_scaling.short_factor must have rotary_dim / 2 = 48 entries, got 47");
}

TEST_CASE("model config: Gemma 3 local/global, v4 and nested v5, text_config", "[model_config]") {
    const char* v4 = R"({"architectures":["Gemma3ForConditionalGeneration"],"model_type":"gemma3",
        "vision_config":{"model_type":"siglip_vision_model"},"text_config":{"model_type":"gemma3_text",
        "num_hidden_layers":12,"hidden_size":5376,"head_dim":128,"num_attention_heads":32,
        "max_position_embeddings":131072,"rope_theta":1000000.0,"rope_local_base_freq":10000.0,
        "rope_scaling":{"factor":8.0,"rope_type":"linear"},"sliding_window":1024,"sliding_window_pattern":6,
        "query_pre_attn_scalar":168}})";
    const char* v5 = R"({"model_type":"gemma3_text","num_hidden_layers":12,"head_dim":128,
        "max_position_embeddings":131072,"sliding_window":1024,"query_pre_attn_scalar":168,
        "layer_types":["sliding_attention","sliding_attention","sliding_attention","sliding_attention",
        "sliding_attention","full_attention","sliding_attention","sliding_attention","sliding_attention",
        "sliding_attention","sliding_attention","full_attention"],
        "rope_parameters":{"full_attention":{"rope_type":"linear","factor":8.0,"rope_theta":1000000.0},
        "sliding_attention":{"rope_type":"default","rope_theta":10000.0}}})";
    const ModelSetup a = read_ok(v4), b = read_ok(v5);
    REQUIRE(a.model_type == "gemma3_text");
    check_same_setup(a, b);
    for (size_t i = 0; i < 12; ++i) {
        const LayerSetup& l = a.layers[i];
        if ((i + 1) % 6 == 0) {
            REQUIRE(l.attention == AttentionKind::full);
            check_freqs(l, 1, tf_linear(1e6, 128, 8));
        } else {
            REQUIRE(l.attention == AttentionKind::sliding);
            REQUIRE(l.window == 1024);
            check_freqs(l, 1, tf_default(1e4, 128));
        }
    }
    // The vision tower; Gemma 3's q/k norm (query_pre_attn_scalar is modeled: LayerSetup::scale).
    REQUIRE(a.warnings.size() == 2);
    REQUIRE(a.warnings[0].find("vision_config") == 0);
    REQUIRE(a.warnings[1].find("text_config.model_type: gemma3_text normalizes q and k") == 0);
    // Gemma 2: every even layer slides; one RoPE for all.
    const ModelSetup g2 = read_ok(R"({"model_type":"gemma2","num_hidden_layers":4,"head_dim":256,
        "sliding_window":4096,"rope_theta":10000.0,"attn_logit_softcapping":50.0})");
    REQUIRE(g2.layers[0].attention == AttentionKind::sliding);
    REQUIRE(g2.layers[1].attention == AttentionKind::full);
    REQUIRE(g2.layers[2].attention == AttentionKind::sliding);
    REQUIRE(g2.warnings.empty()); // the soft-cap is modeled (LayerSetup::softcap)
}

TEST_CASE("model config: Gemma 4 proportional RoPE and global head dim", "[model_config]") {
    const ModelSetup m =
        read_ok(R"({"model_type":"gemma4_text","num_hidden_layers":6,"head_dim":256,
        "global_head_dim":512,"sliding_window":512,
        "layer_types":["sliding_attention","sliding_attention","sliding_attention","sliding_attention",
        "sliding_attention","full_attention"],"rope_parameters":{
        "sliding_attention":{"rope_type":"default","rope_theta":10000.0},
        "full_attention":{"rope_type":"proportional","partial_rotary_factor":0.25,"rope_theta":1000000.0}}})");
    check_freqs(m.layers[0], 1, tf_default(1e4, 256));
    REQUIRE(m.layers[5].head_dim == 512);
    check_freqs(m.layers[5], 1, tf_proportional(1e6, 512, 0.25));
}

TEST_CASE("model config: Llama 4 chunked and NoPE layers, temperature", "[model_config]") {
    const char* text =
        R"({"model_type":"llama4","text_config":{"model_type":"llama4_text","num_hidden_layers":8,
        "hidden_size":5120,"head_dim":128,"num_attention_heads":40,"max_position_embeddings":10485760,
        "rope_theta":500000.0,"rope_scaling":{"factor":16.0,"high_freq_factor":1.0,"low_freq_factor":1.0,
        "original_max_position_embeddings":8192,"rope_type":"llama3"},"attention_chunk_size":8192,
        "attn_temperature_tuning":true,"floor_scale":8192,"attn_scale":0.1,
        "no_rope_layers":[1,1,1,0,1,1,1,0],"use_qk_norm":true}})";
    const ModelSetup m = read_ok(text);
    REQUIRE(m.layout == Layout::interleaved);
    for (size_t i = 0; i < 8; ++i) {
        const LayerSetup& l = m.layers[i];
        INFO("layer " << i);
        if ((i + 1) % 4 == 0) {
            REQUIRE(!l.rope);
            REQUIRE(l.scheme.type == SchemeType::nope);
            REQUIRE(l.attention == AttentionKind::full);
            REQUIRE(l.temperature.enabled);
            REQUIRE(l.temperature.floor_scale == 8192);
            REQUIRE(l.temperature.scale == 0.1);
            REQUIRE(l.temperature.offset == 1);
        } else {
            REQUIRE(l.rope);
            REQUIRE(l.attention == AttentionKind::chunked);
            REQUIRE(l.chunk_size == 8192);
            REQUIRE(!l.temperature.enabled);
            // low == high: the ramp is a step at wavelength 8192, which the core takes as it is.
            check_freqs(l, 1, tf_llama3(500000, 128, 16, 1, 1, 8192));
        }
    }
    // Without no_rope_layers: every 4th layer by no_rope_layer_interval.
    std::string interval = text;
    const size_t at = interval.find("\"no_rope_layers\"");
    interval.erase(at, interval.find(']', at) - at + 2);
    check_same_setup(m, read_ok(interval));
    int warned = 0;
    for (const std::string& w : m.warnings)
        warned += w.find("high_freq_factor") != std::string::npos;
    REQUIRE(warned == 1); // once, though both layer types read the block
    // attn_temperature_tuning is tested for truth (Scout's own file says 4); 0 turns it off.
    auto with_tuning = [&](const std::string& value) {
        std::string t = text;
        const std::string on = "\"attn_temperature_tuning\":true";
        t.replace(t.find(on), on.size(), "\"attn_temperature_tuning\":" + value);
        return t;
    };
    check_same_setup(m, read_ok(with_tuning("4")));
    REQUIRE_FALSE(read_ok(with_tuning("0")).layers[3].temperature.enabled);
    REQUIRE(read_error(with_tuning("\"yes\"")).find("attn_temperature_tuning") !=
            std::string::npos);
}

TEST_CASE("model config: sliding patterns, NoPE patterns, Ministral temperature, DCA",
          "[model_config]") {
    // Qwen: sliding only from max_window_layers on, when use_sliding_window.
    const ModelSetup q = read_ok(R"({"model_type":"qwen2","num_hidden_layers":4,"head_dim":64,
        "sliding_window":4096,"use_sliding_window":true,"max_window_layers":2})");
    REQUIRE(q.layers[1].attention == AttentionKind::full);
    REQUIRE(q.layers[2].attention == AttentionKind::sliding);
    // Mistral 7B v0.1: every layer slides.
    const ModelSetup mi =
        read_ok(R"({"model_type":"mistral","num_hidden_layers":2,"hidden_size":4096,
        "num_attention_heads":32,"sliding_window":4096,"rope_theta":10000.0})");
    REQUIRE(mi.layers[0].attention == AttentionKind::sliding);
    REQUIRE(mi.layers[1].window == 4096);
    // Cohere2: sliding_window_pattern 4, the global layers NoPE, interleaved pairs.
    const ModelSetup c = read_ok(R"({"model_type":"cohere2","num_hidden_layers":8,"head_dim":128,
        "sliding_window":4096,"sliding_window_pattern":4,"rope_theta":50000})");
    REQUIRE(c.layout == Layout::interleaved);
    REQUIRE(c.layers[3].attention == AttentionKind::full);
    REQUIRE(!c.layers[3].rope);
    REQUIRE(c.layers[2].rope);
    REQUIRE(c.layers[2].attention == AttentionKind::sliding);
    REQUIRE(c.warnings.empty());
    // Command R7B's config.json says "position_embedding_type": "rope_gptj": GPT-J's adjacent
    // pairs, the layout cohere2 is read with (modeling_cohere2.py rotates interleaved pairs), so no
    // warning; another value, or rope_gptj on a rotate_half type, still warns.
    const char* const cohere2 = R"({"model_type":"cohere2","num_hidden_layers":8,"head_dim":128,
        "sliding_window":4096,"sliding_window_pattern":4,"rope_theta":50000,"rotary_pct":1.0,
        "position_embedding_type":"rope_gptj"})";
    REQUIRE(read_ok(cohere2).warnings.empty());
    std::string absolute = cohere2;
    absolute.replace(absolute.find("rope_gptj"), 9, "absolute");
    REQUIRE(read_ok(absolute).warnings.size() == 1);
    REQUIRE(read_ok(absolute).warnings[0].find("position_embedding_type") == 0);
    const ModelSetup lg = read_ok(R"({"model_type":"llama","num_hidden_layers":2,"hidden_size":4096,
        "num_attention_heads":32,"position_embedding_type":"rope_gptj"})");
    REQUIRE(lg.warnings.size() == 1);
    REQUIRE(lg.warnings[0].find("position_embedding_type") == 0);
    // SmolLM3: no_rope_layers, no sliding.
    const ModelSetup s = read_ok(R"({"model_type":"smollm3","num_hidden_layers":4,"head_dim":128,
        "no_rope_layers":[1,1,1,0],"use_sliding_window":false,"sliding_window":null,"rope_theta":5000000.0})");
    REQUIRE(!s.layers[3].rope);
    REQUIRE(!s.layers[3].temperature.enabled);
    REQUIRE(s.layers[0].attention == AttentionKind::full);
    // Ministral 3: the temperature on every layer, offset 0, floor at the original length.
    const ModelSetup mn =
        read_ok(R"({"model_type":"ministral3","num_hidden_layers":2,"head_dim":128,
        "max_position_embeddings":262144,"rope_parameters":{"rope_type":"yarn","factor":16.0,
        "original_max_position_embeddings":16384,"beta_fast":32.0,"beta_slow":1.0,"mscale":1.0,
        "mscale_all_dim":1.0,"llama_4_scaling_beta":0.1,"rope_theta":1000000.0}})");
    REQUIRE(mn.layers[1].temperature.enabled);
    REQUIRE(mn.layers[1].temperature.offset == 0);
    REQUIRE(mn.layers[1].temperature.floor_scale == 16384);
    check_freqs(mn.layers[0], 1, tf_yarn(1e6, 128, 16, 16384, 32, 1, true));
    // Qwen2.5-1M: Dual Chunk Attention.
    const ModelSetup d = read_ok(R"({"model_type":"qwen2","num_hidden_layers":1,"head_dim":128,
        "max_position_embeddings":1010000,"rope_theta":10000000.0,"dual_chunk_attention_config":{
        "chunk_size":262144,"local_size":8192,"original_max_position_embeddings":262144}})");
    REQUIRE(d.dual_chunk.enabled);
    REQUIRE(d.dual_chunk.chunk_size == 262144);
    REQUIRE(d.dual_chunk.local_size == 8192);
    // Partial rotation: Phi-4-mini's partial_rotary_factor.
    const ModelSetup p =
        read_ok(R"({"num_hidden_layers":1,"head_dim":128,"partial_rotary_factor":0.75,
        "rope_theta":10000})");
    REQUIRE(p.rotary_dim == 96);
    check_freqs(p.layers[0], 1, tf_default(10000, 96));
}

TEST_CASE("model config: M-RoPE and malformed configs are errors naming the key",
          "[model_config]") {
    REQUIRE(read_error(R"({"num_hidden_layers":1,"head_dim":128,"rope_scaling":{"type":"mrope",
        "mrope_section":[16,24,24]}})")
                .find("only text decoders") != std::string::npos);
    REQUIRE(read_error(R"({"text_config":{"num_hidden_layers":1,"head_dim":128,"rope_parameters":{
        "rope_type":"default","rope_theta":1e6,"mrope_section":[24,20,20]}}})")
                .find("M-RoPE") != std::string::npos);
    REQUIRE(
        read_error(
            R"({"num_hidden_layers":1,"head_dim":64,"rope_scaling":{"type":"linear","factor":"8"}})") ==
        "rope_scaling.factor must be a number, got a string");
    REQUIRE(
        read_error(
            R"({"num_hidden_layers":1,"head_dim":64,"rope_scaling":{"type":"linear","factor":-2}})") ==
        "rope_scaling.factor must be a number >= 1, got -2");
    REQUIRE(read_error(
                R"({"num_hidden_layers":1,"head_dim":64,"rope_scaling":{"type":"su","factor":2}})")
                .find("rope_scaling.rope_type 'su'") == 0);
    REQUIRE(
        read_error(R"({"num_hidden_layers":2,"head_dim":64,"layer_types":["full_attention"]})") ==
        "layer_types has 1 entries for num_hidden_layers = 2");
    REQUIRE(read_error(
                R"({"num_hidden_layers":1,"head_dim":64,"layer_types":["sliding_attention"]})") ==
            "sliding_window is required: layer 0 is sliding_attention");
    REQUIRE(read_error(R"({"num_hidden_layers":1,"hidden_size":100,"num_attention_heads":3})")
                .find("head_dim must be an even integer") == 0);
    REQUIRE(read_error(R"({"num_hidden_layers":1,"head_dim":64,"rope_theta":1e999})")
                .find("rope_theta must be a finite number") == 0);
    REQUIRE(read_error(R"({"num_hidden_layers":1,"head_dim":64,"rope_theta":NaN})")
                .find("config.json: invalid JSON") == 0);
    REQUIRE(read_error(R"({"head_dim":64})") == "num_hidden_layers is required");
    REQUIRE(read_error("[1]") == "config.json must be an object, got an array");
    REQUIRE(
        read_error(
            R"({"num_hidden_layers":1,"head_dim":64,"rope_parameters":{"full_attention":{"rope_theta":1e4}},
        "layer_types":["sliding_attention"],"sliding_window":5})")
            .find("rope_parameters.sliding_attention is required") == 0);
    // Unknown keys in the rope parameters are warned about.
    const ModelSetup w =
        read_ok(R"({"num_hidden_layers":1,"head_dim":64,"rope_scaling":{"type":"linear",
        "factor":2,"finetuned":true}})");
    // No model_type: the layout was assumed; then the unknown key; then no training length.
    REQUIRE(w.warnings.size() == 3);
    REQUIRE(w.warnings[0].find("model_type: absent: the pair layout is assumed rotate_half") == 0);
    REQUIRE(w.warnings[1].find("rope_scaling.finetuned") == 0);
    REQUIRE(w.warnings[2].find("max_position_embeddings: absent, and the model type has no "
                               "default the reader knows") == 0);
    REQUIRE(w.trained_length == 0);
}

// A config.json without max_position_embeddings: transformers' config class fills in its default
// (the values below as each configuration_<type>.py declares them; Mistral, Mixtral, PhiMoE and
// Llama4TextConfig write 4096 * 32), and the training length is that.
TEST_CASE("model config: an absent max_position_embeddings is the config class's default") {
    const std::pair<const char*, int64_t> defaults[] = {
        {"mistral", 4096 * 32}, {"mixtral", 4096 * 32}, {"qwen2", 32768},       {"qwen3", 32768},
        {"phi3", 4096},         {"phimoe", 4096 * 32},  {"starcoder2", 4096},   {"olmo2", 2048},
        {"gemma", 8192},        {"deepseek_v3", 4096},  {"deepseek_v2", 2048},  {"cohere2", 8192},
        {"glm4", 131072},       {"persimmon", 16384},   {"ministral3", 262144}, {"llama", 2048}};
    for (const auto& [type, length] : defaults) {
        CAPTURE(type);
        const ModelSetup m =
            read_ok(std::string(R"({"model_type":")") + type +
                    R"(","num_hidden_layers":1,"head_dim":64,"sliding_window":4096})");
        REQUIRE(m.max_length == length);
        REQUIRE(m.trained_length == length);
        for (const std::string& warning : m.warnings)
            REQUIRE(warning.find("max_position_embeddings") == std::string::npos);
    }
    // Written in the file, the file's value wins.
    REQUIRE(read_ok(R"({"model_type":"qwen2","num_hidden_layers":1,"head_dim":64,
        "max_position_embeddings":131072})")
                .trained_length == 131072);
}

// Each hostile input is refused by a limit checked before the work it would cause (the nesting
// depth while parsing, the layer count before any layer, the size before parsing, a list's length
// before its copy). How long that takes is bench work, not a test's: a sanitizer build is slow.
TEST_CASE("model config: hostile inputs are refused by their limits", "[model_config]") {
    // 10^5-deep nesting.
    const std::string deep = std::string(100000, '[') + std::string(100000, ']');
    REQUIRE(read_error(deep).find("nesting deeper than") != std::string::npos);
    const std::string deep_obj = "{\"num_hidden_layers\":1,\"x\":" + std::string(100000, '[') +
                                 std::string(100000, ']') + "}";
    REQUIRE(read_error(deep_obj).find("nesting deeper than") != std::string::npos);
    // 10^9 layers.
    REQUIRE(read_error(R"({"num_hidden_layers":1000000000,"head_dim":64})")
                .find("num_hidden_layers must be an integer in [1, 4096]") == 0);
    // A factor list of 10^7 numbers: refused by size (20 MB), and with the size limit raised, by
    // its length before any copy.
    std::string big =
        R"({"num_hidden_layers":1,"head_dim":64,"original_max_position_embeddings":4096,
        "max_position_embeddings":8192,"rope_scaling":{"type":"longrope","short_factor":[)";
    big.reserve(big.size() + 20000010);
    for (int i = 0; i < 10000000; ++i) big += i ? ",1" : "1";
    big += R"(],"long_factor":[1]}})";
    REQUIRE(read_error(big).find("bytes is more than the limit") != std::string::npos);
    ModelConfigLimits wide;
    wide.max_bytes = size_t{64} << 20;
    wide.max_values = size_t{1} << 25;
    REQUIRE(read_error(big, wide) ==
            "rope_scaling.short_factor must have rotary_dim / 2 = 32 entries, got 10000000");
    // A 50 MB file.
    const std::string huge(50u << 20, ' ');
    REQUIRE(read_error(huge).find("bytes is more than the limit") != std::string::npos);
}

TEST_CASE("model config: every gallery config loads with its expected warnings", "[model_config]") {
    const std::vector<uint8_t> index_bytes = read_file("models/configs/index.json");
    REQUIRE(!index_bytes.empty());
    const std::string index(index_bytes.begin(), index_bytes.end());
    json::Document d;
    REQUIRE(d.parse(index).ok());
    const uint32_t entries = d.find(json::Document::root, "entries");
    REQUIRE(entries != json::Document::none);
    size_t count = 0;
    for (uint32_t e = d.first(entries); e != d.end(entries); e = d.next(e), ++count) {
        const std::string id = d.string(d.find(e, "id"));
        INFO(id);
        REQUIRE(d.find(e, "model") != json::Document::none);
        REQUIRE(d.find(e, "source") != json::Document::none);
        const std::vector<uint8_t> bytes = read_file("models/configs/" + id + ".json");
        REQUIRE(!bytes.empty());
        ModelSetup m;
        const Status st = read_model_config(std::string(bytes.begin(), bytes.end()), &m);
        INFO(st.message());
        REQUIRE(st.ok());
        std::vector<std::string> expected;
        const uint32_t w = d.find(e, "warnings");
        if (w != json::Document::none)
            for (uint32_t x = d.first(w); x != d.end(w); x = d.next(x)) {
                REQUIRE(d.find(x, "reason") != json::Document::none);
                expected.push_back(d.string(d.find(x, "key")));
            }
        std::vector<std::string> got;
        for (const std::string& s : m.warnings) got.push_back(s.substr(0, s.find(':')));
        REQUIRE(got == expected);
        for (const LayerSetup& l : m.layers) {
            std::vector<double> f;
            REQUIRE(
                inverse_frequencies(l.scheme, l.head_dim, m.max_length > 0 ? m.max_length : 1, &f)
                    .ok());
        }
    }
    REQUIRE(count >= 15);
}

TEST_CASE("model config: masks and query temperature against plain references", "[model_config]") {
    LayerSetup sliding, chunked, full;
    sliding.attention = AttentionKind::sliding;
    sliding.window = 5;
    chunked.attention = AttentionKind::chunked;
    chunked.chunk_size = 4;
    for (int64_t q = 0; q < 40; ++q)
        for (int64_t k = 0; k < 40; ++k) {
            INFO("q " << q << " k " << k);
            REQUIRE(layer_sees(full, q, k) == (k <= q));
            // The window as the last 5 keys up to the query.
            bool in_window = false;
            for (int64_t j = q; j >= 0 && j > q - 5; --j) in_window |= j == k;
            REQUIRE(layer_sees(sliding, q, k) == in_window);
            // The chunk as the run of keys from the chunk's first position to the query.
            const int64_t start = q - q % 4;
            REQUIRE(layer_sees(chunked, q, k) == (k >= start && k <= q));
        }
    // Llama 4: q * (log(floor((p + 1) / floor_scale) + 1) * attn_scale + 1) on NoPE layers.
    const ModelSetup l4 =
        read_ok(R"({"model_type":"llama4_text","num_hidden_layers":4,"head_dim":128,
        "rope_theta":500000.0,"floor_scale":8192,"attn_scale":0.1})");
    const QueryTemperature& t = l4.layers[3].temperature;
    for (int64_t p : {0, 8190, 8191, 8192, 16383, 16384, 100000, 10000000}) {
        const double want = std::log(std::floor((p + 1.0) / 8192) + 1) * 0.1 + 1.0;
        REQUIRE(query_scale(t, p) == Approx(want).epsilon(1e-15));
        REQUIRE(query_scale(l4.layers[0].temperature, p) == 1.0);
    }
    // Ministral 3: 1 + beta * log(1 + floor(p / original)).
    const ModelSetup mn =
        read_ok(R"({"model_type":"ministral3","num_hidden_layers":1,"head_dim":128,
        "max_position_embeddings":262144,"rope_parameters":{"rope_type":"yarn","factor":16.0,
        "original_max_position_embeddings":16384,"llama_4_scaling_beta":0.1,"rope_theta":1000000.0}})");
    for (int64_t p : {0, 16383, 16384, 40000, 262143})
        REQUIRE(query_scale(mn.layers[0].temperature, p) ==
                Approx(1 + 0.1 * std::log(1 + std::floor(p / 16384.0))).epsilon(1e-15));
}

TEST_CASE("model config: every rope type gives the same setup in v4 and v5", "[model_config]") {
    struct Pair {
        const char* v4;
        const char* v5;
    };
    const Pair pairs[] = {
        {R"({"num_hidden_layers":2,"head_dim":64,"max_position_embeddings":4096,"rope_theta":10000,
            "rope_scaling":{"type":"dynamic","factor":2.0}})",
         R"({"num_hidden_layers":2,"head_dim":64,"max_position_embeddings":4096,
            "rope_parameters":{"rope_type":"dynamic","factor":2.0,"rope_theta":10000}})"},
        {R"({"model_type":"deepseek_v3","num_hidden_layers":2,"qk_nope_head_dim":128,"qk_rope_head_dim":64,
            "max_position_embeddings":163840,"rope_theta":10000,"rope_scaling":{"beta_fast":32,"beta_slow":1,
            "factor":40,"mscale":1.0,"mscale_all_dim":1.0,"original_max_position_embeddings":4096,"type":"yarn"}})",
         R"({"model_type":"deepseek_v3","num_hidden_layers":2,"qk_nope_head_dim":128,"qk_rope_head_dim":64,
            "max_position_embeddings":163840,"rope_parameters":{"beta_fast":32,"beta_slow":1,"factor":40,
            "mscale":1.0,"mscale_all_dim":1.0,"original_max_position_embeddings":4096,"rope_type":"yarn",
            "rope_theta":10000}})"},
        {R"({"model_type":"llama4_text","num_hidden_layers":4,"head_dim":128,"max_position_embeddings":10485760,
            "rope_theta":500000.0,"rope_scaling":{"factor":16.0,"high_freq_factor":1.0,"low_freq_factor":1.0,
            "original_max_position_embeddings":8192,"rope_type":"llama3"},"attention_chunk_size":8192})",
         R"({"model_type":"llama4_text","num_hidden_layers":4,"head_dim":128,"max_position_embeddings":10485760,
            "layer_types":["chunked_attention","chunked_attention","chunked_attention","full_attention"],
            "no_rope_layers":[1,1,1,0],"attention_chunk_size":8192,"rope_parameters":{"factor":16.0,
            "high_freq_factor":1.0,"low_freq_factor":1.0,"original_max_position_embeddings":8192,
            "rope_type":"llama3","rope_theta":500000.0}})"},
        {R"({"model_type":"cohere2","num_hidden_layers":4,"head_dim":128,"sliding_window":4096,"rope_theta":50000})",
         R"({"model_type":"cohere2","num_hidden_layers":4,"head_dim":128,"sliding_window":4096,
            "layer_types":["sliding_attention","sliding_attention","sliding_attention","full_attention"],
            "rope_parameters":{"rope_type":"default","rope_theta":50000}})"},
        {R"({"model_type":"phi3","num_hidden_layers":1,"head_dim":128,"partial_rotary_factor":0.75,
            "rope_theta":10000,"rope_scaling":{"type":"linear","factor":2}})",
         R"({"model_type":"phi3","num_hidden_layers":1,"head_dim":128,
            "rope_parameters":{"rope_type":"linear","factor":2,"partial_rotary_factor":0.75,"rope_theta":10000}})"},
    };
    for (const Pair& p : pairs) {
        INFO(p.v4);
        const ModelSetup a = read_ok(p.v4), b = read_ok(p.v5);
        check_same_setup(a, b);
        for (size_t i = 0; i < a.layers.size(); ++i)
            for (int64_t n : {int64_t{1}, int64_t{5000}, int64_t{200000}}) {
                std::vector<double> fa, fb;
                REQUIRE(inverse_frequencies(a.layers[i].scheme, a.layers[i].head_dim, n, &fa).ok());
                REQUIRE(inverse_frequencies(b.layers[i].scheme, b.layers[i].head_dim, n, &fb).ok());
                REQUIRE(fa == fb);
                REQUIRE(attention_factor(a.layers[i].scheme, n) ==
                        attention_factor(b.layers[i].scheme, n));
            }
    }
    // And against transformers' formulas: dynamic at several lengths, DeepSeek's YaRN, partial
    // linear.
    const ModelSetup dyn = read_ok(pairs[0].v5);
    for (int64_t n : {100, 4096, 9000})
        check_freqs(dyn.layers[1], n, tf_dynamic(10000, 64, 2, 4096, n));
    const ModelSetup part = read_ok(pairs[4].v5);
    REQUIRE(part.rotary_dim == 96);
    REQUIRE(rotary_dim(part.layers[0].scheme, 128) == 96);
    check_freqs(part.layers[0], 1, tf_linear(10000, 96, 2));
}

// Issue 48 section 1: one layer as transformers computes it. The expected values are transcribed
// from the modeling files: Gemma2Attention / Gemma3Attention (self.scaling =
// query_pre_attn_scalar**-0.5; Gemma 2's eager_attention_forward soft-caps c * tanh(x / c)),
// Gemma4TextAttention (self.scaling = 1.0), DeepseekV3Attention (self.scaling = qk_head_dim **
// -0.5, times yarn_get_mscale(factor, mscale_all_dim) ** 2).
TEST_CASE("model config: softmax scale and logit soft-cap per layer", "[model_config]") {
    // Gemma 2 9B: query_pre_attn_scalar 256, attn_logit_softcapping 50.
    const ModelSetup g9 = read_ok(R"({"model_type":"gemma2","num_hidden_layers":4,"head_dim":256,
        "num_attention_heads":16,"hidden_size":3584,"sliding_window":4096,"rope_theta":10000.0,
        "query_pre_attn_scalar":256,"attn_logit_softcapping":50.0,"final_logit_softcapping":30.0})");
    for (const LayerSetup& l : g9.layers) {
        REQUIRE(l.scale == std::pow(256.0, -0.5));
        REQUIRE(l.scale == 1.0 / 16);
        REQUIRE(l.softcap == 50.0);
    }
    // final_logit_softcapping soft-caps the output logits: still a warning; the others are read.
    REQUIRE(g9.warnings.size() == 1);
    REQUIRE(g9.warnings[0].find("final_logit_softcapping") == 0);
    // Gemma 2 27B: 144 with head_dim 128, so the scale is 1/12, not 128^-1/2.
    const ModelSetup g27 = read_ok(R"({"model_type":"gemma2","num_hidden_layers":2,"head_dim":128,
        "query_pre_attn_scalar":144,"attn_logit_softcapping":50.0})");
    REQUIRE(g27.layers[1].scale == std::pow(144.0, -0.5));
    REQUIRE(g27.layers[1].scale == Approx(1.0 / 12).epsilon(1e-15));
    // Left out: Gemma2Config's defaults (256, 50.0). Null: no soft-cap (None).
    const ModelSetup gd =
        read_ok(R"({"model_type":"gemma2","num_hidden_layers":2,"head_dim":128})");
    REQUIRE(gd.layers[0].scale == std::pow(256.0, -0.5));
    REQUIRE(gd.layers[0].softcap == 50.0);
    const ModelSetup gn = read_ok(
        R"({"model_type":"gemma2","num_hidden_layers":2,"head_dim":128,"attn_logit_softcapping":null})");
    REQUIRE(gn.layers[0].softcap == 0);
    REQUIRE(read_error(R"({"model_type":"gemma2","num_hidden_layers":1,"head_dim":128,
        "attn_logit_softcapping":0})")
                .find("attn_logit_softcapping must be a number > 0 or null") == 0);
    // Gemma 3: query_pre_attn_scalar on every layer (168 for 27B); no soft-cap, and a file that
    // sets one is told that Gemma3Attention does not apply it.
    const ModelSetup g3 = read_ok(R"({"model_type":"gemma3_text","num_hidden_layers":6,
        "head_dim":128,"query_pre_attn_scalar":168,"sliding_window":1024,"attn_logit_softcapping":null})");
    for (const LayerSetup& l : g3.layers) {
        REQUIRE(l.scale == std::pow(168.0, -0.5));
        REQUIRE(l.softcap == 0);
    }
    const ModelSetup g3c = read_ok(R"({"model_type":"gemma3_text","num_hidden_layers":6,
        "head_dim":128,"attn_logit_softcapping":30})");
    REQUIRE(g3c.layers[0].scale == std::pow(256.0, -0.5)); // Gemma3TextConfig's default
    REQUIRE(g3c.layers[0].softcap == 0);
    bool told = false;
    for (const std::string& w : g3c.warnings)
        told |= w.find("attn_logit_softcapping: Gemma3Attention") == 0;
    REQUIRE(told);
    // Gemma 4: scaling 1.0 on sliding and full layers alike.
    const ModelSetup g4 = read_ok(R"({"model_type":"gemma4_text","num_hidden_layers":6,
        "head_dim":256,"global_head_dim":512})");
    for (const LayerSetup& l : g4.layers) REQUIRE(l.scale == 1.0);
    // Llama: the default (0 stands for head_dim^-1/2), no soft-cap.
    const ModelSetup ll = read_ok(R"({"model_type":"llama","num_hidden_layers":2,"head_dim":128})");
    REQUIRE(ll.layers[0].scale == 0);
    REQUIRE(ll.layers[0].softcap == 0);
}

TEST_CASE("model config: DeepSeek MLA softmax scale with mscale_all_dim", "[model_config]") {
    auto mscale = [](double s, double m) { return s <= 1 ? 1.0 : 0.1 * m * std::log(s) + 1.0; };
    // DeepSeek-V3: qk_head_dim 192, factor 40, mscale_all_dim 1.0.
    const ModelSetup v3 =
        read_ok(R"({"model_type":"deepseek_v3","num_hidden_layers":2,"qk_nope_head_dim":128,
        "qk_rope_head_dim":64,"max_position_embeddings":163840,"rope_theta":10000,
        "rope_scaling":{"beta_fast":32,"beta_slow":1,"factor":40,"mscale":1.0,"mscale_all_dim":1.0,
        "original_max_position_embeddings":4096,"type":"yarn"}})");
    const double m3 = mscale(40, 1.0);
    REQUIRE(m3 * m3 == Approx(1.874).epsilon(1e-3));
    for (const LayerSetup& l : v3.layers) {
        REQUIRE(l.head_dim == 192);
        REQUIRE(l.scale == Approx(std::pow(192.0, -0.5) * m3 * m3).epsilon(1e-15));
        REQUIRE(l.softcap == 0);
    }
    // DeepSeek-V2-Lite: mscale_all_dim 0.707.
    const ModelSetup v2 =
        read_ok(R"({"model_type":"deepseek_v2","num_hidden_layers":1,"qk_nope_head_dim":128,
        "qk_rope_head_dim":64,"max_position_embeddings":163840,"rope_theta":10000,"rope_scaling":{
        "type":"yarn","factor":40,"mscale":0.707,"mscale_all_dim":0.707,"original_max_position_embeddings":4096}})");
    const double m2 = mscale(40, 0.707);
    REQUIRE(m2 * m2 == Approx(1.590).epsilon(1e-3));
    REQUIRE(v2.layers[0].scale == Approx(std::pow(192.0, -0.5) * m2 * m2).epsilon(1e-15));
    // No mscale_all_dim, no rope parameters, a default type, a factor <= 1: qk_head_dim^-1/2,
    // which is the default (0).
    for (const char* text : {
             R"({"model_type":"deepseek_v3","num_hidden_layers":1,"qk_nope_head_dim":128,
             "qk_rope_head_dim":64,"max_position_embeddings":163840,"rope_scaling":{"type":"yarn",
             "factor":40,"original_max_position_embeddings":4096}})",
             R"({"model_type":"deepseek_v3","num_hidden_layers":1,"qk_nope_head_dim":128,
             "qk_rope_head_dim":64})",
             R"({"model_type":"deepseek_v3","num_hidden_layers":1,"qk_nope_head_dim":128,
             "qk_rope_head_dim":64,"rope_parameters":{"rope_type":"default","rope_theta":10000,
             "mscale_all_dim":1.0}})",
             R"({"model_type":"deepseek_v3","num_hidden_layers":1,"qk_nope_head_dim":128,
             "qk_rope_head_dim":64,"max_position_embeddings":4096,"rope_scaling":{"type":"yarn",
             "factor":1,"mscale_all_dim":1.0,"original_max_position_embeddings":4096}})"}) {
        INFO(text);
        REQUIRE(read_ok(text).layers[0].scale == 0);
    }
    // mscale_all_dim scales only MLA's softmax: Ministral 3's YaRN keeps head_dim^-1/2.
    const ModelSetup mn =
        read_ok(R"({"model_type":"ministral3","num_hidden_layers":1,"head_dim":128,
        "max_position_embeddings":262144,"rope_parameters":{"rope_type":"yarn","factor":16.0,
        "original_max_position_embeddings":16384,"mscale":1.0,"mscale_all_dim":1.0,"rope_theta":1000000.0}})");
    REQUIRE(mn.layers[0].scale == 0);
}

// MLA: query_states = cat(q_pass, q_rot) with q_rot the RoPE'd qk_rope_head_dim dims (DeepSeek
// V2's view_as_complex: adjacent pairs); the first qk_nope_head_dim dims pass unrotated.
TEST_CASE("model config: MLA rotates the last qk_rope_head_dim dims", "[model_config]") {
    const ModelSetup m =
        read_ok(R"({"model_type":"deepseek_v2","num_hidden_layers":1,"qk_nope_head_dim":128,
        "qk_rope_head_dim":64,"max_position_embeddings":163840,"rope_theta":10000,"rope_scaling":{
        "type":"yarn","factor":40,"mscale":0.707,"mscale_all_dim":0.707,"original_max_position_embeddings":4096}})");
    const LayerSetup& l = m.layers[0];
    REQUIRE(l.scheme.rotary_last);
    REQUIRE(l.scheme.layout == Layout::interleaved);
    REQUIRE(!read_ok(R"({"model_type":"llama","num_hidden_layers":1,"head_dim":64})")
                 .layers[0]
                 .scheme.rotary_last);
    const std::vector<double> freqs = tf_yarn(10000, 64, 40, 4096, 32, 1, true);
    // attention_factor = mscale(40, 0.707) / mscale(40, 0.707) = 1.
    const int d = 192, nope = 128;
    std::vector<float> x(d), out(d);
    for (int i = 0; i < d; ++i) x[static_cast<size_t>(i)] = static_cast<float>(0.25 + 0.01 * i);
    for (int32_t p : {0, 1, 7, 5000}) {
        INFO("position " << p);
        Positions pos;
        pos.token = &p;
        REQUIRE(
            rotate(l.scheme, d, 1, 1, pos, Role::query, Branch::near, x.data(), out.data()).ok());
        for (int i = 0; i < nope; ++i)
            REQUIRE(out[static_cast<size_t>(i)] == x[static_cast<size_t>(i)]);
        for (int j = 0; j < 32; ++j) {
            const double a = x[static_cast<size_t>(nope + 2 * j)],
                         b = x[static_cast<size_t>(nope + 2 * j + 1)];
            const double c = std::cos(p * freqs[static_cast<size_t>(j)]),
                         s = std::sin(p * freqs[static_cast<size_t>(j)]);
            REQUIRE(out[static_cast<size_t>(nope + 2 * j)] == Approx(a * c - b * s).margin(1e-6));
            REQUIRE(out[static_cast<size_t>(nope + 2 * j + 1)] ==
                    Approx(a * s + b * c).margin(1e-6));
        }
    }
}

TEST_CASE("model config: config-class defaults that real files rely on", "[model_config]") {
    // gemma-3-4b-it's text_config names neither head_dim nor num_attention_heads:
    // Gemma3TextConfig's 256 and 8 (not hidden_size / heads = 320), and its
    // query_pre_attn_scalar 256.
    const ModelSetup g4b = read_ok(R"({"architectures":["Gemma3ForConditionalGeneration"],
        "model_type":"gemma3","text_config":{"hidden_size":2560,"intermediate_size":10240,
        "model_type":"gemma3_text","num_hidden_layers":34,"rope_scaling":{"factor":8.0,
        "rope_type":"linear"},"sliding_window":1024},"vision_config":{"model_type":"siglip_vision_model"}})");
    REQUIRE(g4b.head_dim == 256);
    REQUIRE(g4b.layers.size() == 34);
    REQUIRE(g4b.max_length == 131072);
    for (size_t i = 0; i < 34; ++i) {
        const LayerSetup& l = g4b.layers[i];
        INFO("layer " << i);
        REQUIRE(l.scale == std::pow(256.0, -0.5));
        if ((i + 1) % 6) {
            REQUIRE(l.attention == AttentionKind::sliding);
            REQUIRE(l.window == 1024);
            check_freqs(l, 1, tf_default(1e4, 256));
        } else {
            REQUIRE(l.attention == AttentionKind::full);
            check_freqs(l, 1, tf_linear(1e6, 256, 8));
        }
    }
    // gemma-3-12b-it: 16 heads given, head_dim still the class default.
    const ModelSetup g12 = read_ok(R"({"model_type":"gemma3","text_config":{"hidden_size":3840,
        "model_type":"gemma3_text","num_attention_heads":16,"num_hidden_layers":48,
        "num_key_value_heads":8,"rope_scaling":{"factor":8.0,"rope_type":"linear"},"sliding_window":1024}})");
    REQUIRE(g12.head_dim == 256);
    // A gemma3 wrapper's text_config without a model_type is a Gemma3TextConfig.
    const ModelSetup bare =
        read_ok(R"({"model_type":"gemma3","text_config":{"num_hidden_layers":6}})");
    REQUIRE(bare.model_type == "gemma3_text");
    REQUIRE(bare.head_dim == 256);
    REQUIRE(bare.layers[0].window == 4096);

    // Qwen3Config's head_dim is 128 whatever hidden_size / num_attention_heads gives
    // (configuration_qwen3.py; modeling_qwen3.py reads config.head_dim): here 1024 / 16 = 64.
    const ModelSetup q3 = read_ok(R"({"model_type":"qwen3","hidden_size":1024,
        "num_attention_heads":16,"num_key_value_heads":8,"num_hidden_layers":2})");
    REQUIRE(q3.head_dim == 128);
    check_freqs(q3.layers[0], 1, tf_default(1e4, 128));

    // LLaVA-1.5 7B: text_config {max_position_embeddings 4096, model_type llama, ...}:
    // LlamaConfig's 32 layers, hidden_size 4096 and 32 heads (head_dim 128), base 10000.
    const char* llava = R"({"architectures":["LlavaForConditionalGeneration"],"model_type":"llava",
        "ignore_index":-100,"image_token_index":32000,"projector_hidden_act":"gelu",
        "text_config":{"_name_or_path":"lmsys/vicuna-7b-v1.5","architectures":["LlamaForCausalLM"],
        "max_position_embeddings":4096,"model_type":"llama","rms_norm_eps":1e-05,
        "torch_dtype":"float16","vocab_size":32064},"vision_config":{"model_type":"clip_vision_model"}})";
    const ModelSetup lv = read_ok(llava);
    REQUIRE(lv.model_type == "llama");
    REQUIRE(lv.layers.size() == 32);
    REQUIRE(lv.head_dim == 4096 / 32);
    REQUIRE(lv.max_length == 4096);
    REQUIRE(lv.layout == Layout::half);
    check_freqs(lv.layers[31], 1, tf_default(10000, 128));
    // LlavaConfig: text_config.get("model_type", "llama").
    const ModelSetup lv2 =
        read_ok(R"({"model_type":"llava","text_config":{"max_position_embeddings":4096}})");
    REQUIRE(lv2.model_type == "llama");
    REQUIRE(lv2.layers.size() == 32);
    REQUIRE(lv2.warnings.empty());

    // Gemma 4 without layer_types: Gemma4TextConfig's pattern, sliding unless (i + 1) % 6 == 0,
    // then the last layer forced full; global_head_dim 512 on full layers; sliding_window 512;
    // its default rope_parameters (sliding default 1e4, full proportional 0.25 at 1e6).
    const ModelSetup g4 = read_ok(R"({"model_type":"gemma4_text","num_hidden_layers":8,
        "head_dim":256})");
    std::vector<std::string> types;
    for (int i = 0; i < 8; ++i)
        types.push_back((i + 1) % 6 ? "sliding_attention" : "full_attention");
    types.back() = "full_attention";
    REQUIRE(types[6] == "sliding_attention");
    for (size_t i = 0; i < 8; ++i) {
        const LayerSetup& l = g4.layers[i];
        INFO("layer " << i);
        REQUIRE(l.type == types[i]);
        if (types[i] == "full_attention") {
            REQUIRE(l.attention == AttentionKind::full);
            REQUIRE(l.head_dim == 512);
            check_freqs(l, 1, tf_proportional(1e6, 512, 0.25));
        } else {
            REQUIRE(l.attention == AttentionKind::sliding);
            REQUIRE(l.window == 512);
            REQUIRE(l.head_dim == 256);
            check_freqs(l, 1, tf_default(1e4, 256));
        }
    }
    // The gemma4 wrapper, and layer_types ending in a sliding layer: forced full, and said so.
    const ModelSetup g4w = read_ok(R"({"model_type":"gemma4","text_config":{"num_hidden_layers":2,
        "layer_types":["sliding_attention","sliding_attention"],"rope_parameters":{
        "sliding_attention":{"rope_type":"default","rope_theta":10000.0},
        "full_attention":{"rope_type":"proportional","partial_rotary_factor":0.25,"rope_theta":1000000.0}}}})");
    REQUIRE(g4w.model_type == "gemma4_text");
    REQUIRE(g4w.layers[0].attention == AttentionKind::sliding);
    REQUIRE(g4w.layers[1].attention == AttentionKind::full);
    REQUIRE(g4w.layers[1].head_dim == 512);
    bool forced = false;
    for (const std::string& w : g4w.warnings)
        forced |= w.find("text_config.layer_types: the last layer is sliding_attention") == 0;
    REQUIRE(forced);
}

TEST_CASE("model config: proportional RoPE divides by its factor", "[model_config]") {
    const ModelSetup m =
        read_ok(R"({"model_type":"gemma4_text","num_hidden_layers":2,"head_dim":256,
        "global_head_dim":512,"layer_types":["sliding_attention","full_attention"],"rope_parameters":{
        "sliding_attention":{"rope_type":"default","rope_theta":10000.0},
        "full_attention":{"rope_type":"proportional","partial_rotary_factor":0.25,"rope_theta":1000000.0,
        "factor":8.0}}})");
    REQUIRE(m.layers[1].scheme.scaling.factor == 8.0);
    check_freqs(m.layers[1], 1, tf_proportional(1e6, 512, 0.25, 8.0));
    REQUIRE(attention_factor(m.layers[1].scheme, 1) == 1.0);
    // The scheme as JSON carries the factor, and reads back to the same frequencies.
    REQUIRE(scheme_json(m.layers[1].scheme, SchemeKeys::taken).find("\"factor\":8") !=
            std::string::npos);
    REQUIRE(read_error(R"({"model_type":"gemma4_text","num_hidden_layers":1,"head_dim":256,
        "layer_types":["full_attention"],"rope_parameters":{"full_attention":{"rope_type":"proportional",
        "rope_theta":1000000.0,"factor":0}}})")
                .find("rope_parameters.full_attention.factor must be a number > 0") == 0);
}

// A NoPE layer's scheme works as it is in every call: no frequencies, attention factor 1.
TEST_CASE("model config: every layer's scheme works in every call, NoPE included",
          "[model_config]") {
    const std::vector<uint8_t> scout = read_file("models/configs/llama-4-scout-17b-16e.json");
    REQUIRE(!scout.empty());
    const ModelSetup a = read_ok(std::string(scout.begin(), scout.end()));
    const ModelSetup b = read_ok(R"({"model_type":"smollm3","num_hidden_layers":36,
        "hidden_size":2048,"num_attention_heads":16,"max_position_embeddings":65536,
        "rope_theta":5000000.0,"use_sliding_window":false,"sliding_window":null,
        "no_rope_layers":[1,1,1,0,1,1,1,0,1,1,1,0,1,1,1,0,1,1,1,0,1,1,1,0,1,1,1,0,1,1,1,0,1,1,1,0]})");
    for (const ModelSetup* m : {&a, &b}) {
        int nope = 0;
        for (size_t i = 0; i < m->layers.size(); ++i) {
            const LayerSetup& l = m->layers[i];
            INFO(m->model_type << " layer " << i);
            REQUIRE(l.rope == ((i + 1) % 4 != 0));
            std::vector<double> f;
            REQUIRE(inverse_frequencies(l.scheme, l.head_dim, 100000, &f).ok());
            if (l.rope) {
                REQUIRE(f.size() == static_cast<size_t>(m->rotary_dim / 2));
                REQUIRE(f[0] == 1.0);
            } else {
                REQUIRE(l.scheme.type == SchemeType::nope);
                REQUIRE(f.empty());
                REQUIRE(attention_factor(l.scheme, 100000) == 1.0);
                ++nope;
            }
        }
        REQUIRE(nope == static_cast<int>(m->layers.size() / 4));
    }
}

TEST_CASE("model config: pair layout by model type; GPT-J and CodeGen files", "[model_config]") {
    // ERNIE 4.5 (modeling_ernie4_5.py: GLM's rotate_half on repeat_interleave'd cos/sin, adjacent
    // pairs); rope_theta left out is Ernie4_5Config's default_theta 500000.
    for (const char* t : {"ernie4_5", "ernie4_5_moe"}) {
        const ModelSetup e = read_ok(std::string(R"({"model_type":")") + t +
                                     R"(","num_hidden_layers":2,"hidden_size":1024,
            "num_attention_heads":16,"head_dim":128,"max_position_embeddings":131072})");
        INFO(t);
        REQUIRE(e.layout == Layout::interleaved);
        REQUIRE(e.layers[0].scheme.layout == Layout::interleaved);
        check_freqs(e.layers[0], 1, tf_default(500000, 128));
        REQUIRE(e.warnings.empty());
    }
    // A known rotate_half type: no warning. An unknown one: rotate_half, and a warning saying so.
    REQUIRE(read_ok(R"({"model_type":"mixtral","num_hidden_layers":1,"head_dim":128})")
                .warnings.empty());
    const ModelSetup u =
        read_ok(R"({"model_type":"some_new_model","num_hidden_layers":1,"head_dim":128})");
    REQUIRE(u.layout == Layout::half);
    REQUIRE(u.warnings.size() == 2);
    REQUIRE(u.warnings[0].find("model_type: 'some_new_model' is not a model type the reader "
                               "knows: the pair layout is assumed rotate_half") == 0);
    REQUIRE(u.warnings[1].find("max_position_embeddings: absent") == 0);
    REQUIRE(u.layout_source.find("assumed") != std::string::npos);
    // rope_interleave decides, for any type.
    REQUIRE(read_ok(R"({"model_type":"some_new_model","num_hidden_layers":1,"head_dim":128,
        "rope_interleave":true,"max_position_embeddings":4096})")
                .warnings.empty());

    // GPT-J 6B (config.json): n_embd 4096, n_head 16, n_layer 28, n_positions 2048, rotary_dim 64;
    // rotate_every_two (adjacent pairs) over the first 64 dims of each 256-dim head, base 10000.
    const ModelSetup j =
        read_ok(R"({"activation_function":"gelu_new","architectures":["GPTJForCausalLM"],
        "attn_pdrop":0.0,"bos_token_id":50256,"embd_pdrop":0.0,"eos_token_id":50256,
        "gradient_checkpointing":false,"initializer_range":0.02,"layer_norm_epsilon":1e-05,
        "model_type":"gptj","n_embd":4096,"n_head":16,"n_inner":null,"n_layer":28,"n_positions":2048,
        "resid_pdrop":0.0,"rotary":true,"rotary_dim":64,"scale_attn_weights":true,"tie_word_embeddings":false,
        "use_cache":true,"vocab_size":50400})");
    REQUIRE(j.layers.size() == 28);
    REQUIRE(j.head_dim == 256);
    REQUIRE(j.rotary_dim == 64);
    REQUIRE(j.max_length == 2048);
    REQUIRE(j.layout == Layout::interleaved);
    check_freqs(j.layers[27], 1, tf_default(10000, 64));
    REQUIRE(j.warnings.empty());
    // CodeGen-350M-mono: n_embd 1024, n_head 16, n_layer 20, rotary_dim 32.
    const ModelSetup c = read_ok(R"({"model_type":"codegen","n_embd":1024,"n_head":16,"n_layer":20,
        "n_positions":2048,"n_ctx":2048,"rotary_dim":32})");
    REQUIRE(c.head_dim == 64);
    REQUIRE(c.rotary_dim == 32);
    REQUIRE(c.layers.size() == 20);
    REQUIRE(c.layout == Layout::interleaved);
    check_freqs(c.layers[0], 1, tf_default(10000, 32));
    // rotary_dim left out: the classes' default 64; null: the whole head (GPT-J's
    // `if self.rotary_dim is not None`).
    REQUIRE(read_ok(R"({"model_type":"gptj","n_embd":4096,"n_head":16,"n_layer":1})").rotary_dim ==
            64);
    REQUIRE(
        read_ok(R"({"model_type":"gptj","n_embd":4096,"n_head":16,"n_layer":1,"rotary_dim":null})")
            .rotary_dim == 256);
    REQUIRE(read_error(
                R"({"model_type":"gptj","n_embd":4096,"n_head":16,"n_layer":1,"rotary_dim":512})")
                .find("rotary_dim must be an integer in [2, 256]") == 0);
}

// Qwen3-Next: Qwen3NextConfig's layer_types default, linear_attention except every
// full_attention_interval-th layer; partial_rotary_factor 0.25 of head_dim 256 on the full ones.
TEST_CASE("model config: Qwen3-Next linear-attention layers are marked, full ones read",
          "[model_config]") {
    const char* text = R"({"architectures":["Qwen3NextForCausalLM"],"model_type":"qwen3_next",
        "hidden_size":2048,"num_attention_heads":16,"num_key_value_heads":2,"head_dim":256,
        "num_hidden_layers":8,"full_attention_interval":4,"partial_rotary_factor":0.25,
        "rope_theta":10000000,"max_position_embeddings":262144,"linear_conv_kernel_dim":4,
        "linear_key_head_dim":128,"linear_value_head_dim":128,"linear_num_key_heads":16,
        "linear_num_value_heads":32})";
    const ModelSetup m = read_ok(text);
    REQUIRE(m.rotary_dim == 64);
    REQUIRE(m.layout == Layout::half);
    for (size_t i = 0; i < 8; ++i) {
        const LayerSetup& l = m.layers[i];
        INFO("layer " << i);
        if ((i + 1) % 4) {
            REQUIRE(l.type == "linear_attention");
            REQUIRE(l.linear);
            REQUIRE(!l.rope);
            REQUIRE(l.scheme.type == SchemeType::nope);
            REQUIRE(!l.temperature.enabled);
        } else {
            REQUIRE(l.type == "full_attention");
            REQUIRE(!l.linear);
            REQUIRE(l.rope);
            REQUIRE(l.attention == AttentionKind::full);
            check_freqs(l, 1, tf_default(1e7, 64));
        }
    }
    std::vector<std::string> keys;
    for (const std::string& w : m.warnings) keys.push_back(w.substr(0, w.find(':')));
    REQUIRE(keys == std::vector<std::string>{"model_type", "layer_types"});
    // Its layer_types written out (and transformers' legacy names) give the same setup; the
    // partial_rotary_factor left out is the class's 0.25.
    std::string listed = text;
    const std::string interval = R"("full_attention_interval":4,"partial_rotary_factor":0.25,)";
    listed.replace(listed.find(interval), interval.size(),
                   R"("layer_types":["linear_attention","mamba","linear_attention","attention",
                   "linear_attention","linear_attention","linear_attention","full_attention"],)");
    check_same_setup(m, read_ok(listed));
    // The JSON: attention {"type":"linear"}, which no attention call takes as a mask.
    const std::string json = model_setup_json(m);
    REQUIRE(
        json.find(R"({"type":"linear_attention","attention":{"type":"linear"},"rope":false,)") !=
        std::string::npos);
    AttentionKind kind;
    REQUIRE_FALSE(attention_kind_from_name("linear", &kind));
}

// Whether a scaling was put on after training (unseen_pairs' question for linear and NTK-aware
// scalings): the config names a length before its extension (original_max_position_embeddings
// below max_position_embeddings), as Llama 3.1's llama3 (8,192 of 131,072) and Phi-3.5's LongRoPE
// (4,096 of 131,072); Gemma 3's linear x8 names none (it trained with it at 131,072).
TEST_CASE("model config: scaled after training, from the lengths the config names",
          "[model_config]") {
    auto gallery = [](const char* id) {
        const std::vector<uint8_t> bytes = read_file(std::string("models/configs/") + id + ".json");
        REQUIRE(!bytes.empty());
        return read_ok(std::string(bytes.begin(), bytes.end()));
    };
    CHECK(gallery("llama-3.1-8b").scaled_after_training);
    // Qwen2.5's card adds YaRN without raising max_position_embeddings (32,768 both): the lengths
    // name no extension; unseen_pairs reads YaRN's own original length instead.
    CHECK(!gallery("qwen2.5-3b-yarn").scaled_after_training);
    CHECK(gallery("phi-3.5-mini").scaled_after_training);
    CHECK(!gallery("gemma-3-27b-it").scaled_after_training);
    CHECK(gallery("llama-3.2-1b").scaled_after_training);
    CHECK(!gallery("codellama-7b").scaled_after_training);
    const ModelSetup none = read_ok(R"({"model_type":"llama","num_hidden_layers":2,
        "head_dim":64,"rope_theta":10000})");
    CHECK(none.max_length > 0); // LlamaConfig's default
    CHECK(!none.scaled_after_training);
    CHECK(model_setup_json(gallery("llama-3.1-8b")).find("\"scaledAfterTraining\":true") !=
          std::string::npos);
    CHECK(model_setup_json(gallery("gemma-3-27b-it")).find("\"scaledAfterTraining\":false") !=
          std::string::npos);
}
