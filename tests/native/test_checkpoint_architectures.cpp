// Architectures and the binding of a checkpoint's tensors (include/hirope/architectures.h). Each
// architecture's tensor list below is written from transformers' modeling file for its model type
// (the nn.Module attribute names and nn.Linear(in, out) sizes, so [out, in] shapes), not from
// hirope's table: a name or a shape the table got wrong fails here. The safetensors headers are
// real ones, written as the format describes and parsed by the reader (no tensor bytes are needed:
// the reader takes the first 8 + N bytes and the file's size). Tiny dims: hidden 8, intermediate
// 16, vocab 32, 2 layers, 2 heads, 1 key/value head, head_dim 4.
#include "hirope/architectures.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <vector>

using hirope::AttentionKind;
using hirope::Status;
using namespace hirope::checkpoint;

namespace {

struct T {
    std::string name;
    std::vector<uint64_t> shape;
    std::string dtype = "BF16";
};

uint64_t dtype_bytes(const std::string& d) {
    if (d == "F32" || d == "I32") return 4;
    if (d == "F16" || d == "BF16") return 2;
    if (d == "F64") return 8;
    return 1;
}

uint64_t bytes_of(const T& t) {
    uint64_t n = dtype_bytes(t.dtype);
    for (uint64_t d : t.shape) n *= d;
    return n;
}

std::string le64(uint64_t n) {
    std::string s(8, '\0');
    for (int i = 0; i < 8; ++i) s[i] = static_cast<char>((n >> (8 * i)) & 0xFF);
    return s;
}

// A safetensors header over `ts` (data in list order), read by the reader.
Header header_of(const std::vector<T>& ts) {
    std::string json = R"({"__metadata__":{"format":"pt"})";
    uint64_t offset = 0;
    for (const T& t : ts) {
        json += ",\"" + t.name + "\":{\"dtype\":\"" + t.dtype + "\",\"shape\":[";
        for (size_t i = 0; i < t.shape.size(); ++i)
            json += (i ? "," : "") + std::to_string(t.shape[i]);
        const uint64_t end = offset + bytes_of(t);
        json += "],\"data_offsets\":[" + std::to_string(offset) + "," + std::to_string(end) + "]}";
        offset = end;
    }
    json += "}";
    const std::string file = le64(json.size()) + json;
    Header h;
    const Status st = read_safetensors_header(reinterpret_cast<const uint8_t*>(file.data()),
                                              file.size(), file.size() + offset, &h);
    INFO(st.message());
    REQUIRE(st.ok());
    return h;
}

std::vector<T> without(std::vector<T> ts, const std::string& name) {
    ts.erase(std::remove_if(ts.begin(), ts.end(), [&](const T& t) { return t.name == name; }),
             ts.end());
    return ts;
}

// Binds one file, model.safetensors.
Status bind_one(const std::string& config, const std::vector<T>& ts, CheckpointPlan* plan) {
    const Header h = header_of(ts);
    return plan_checkpoint(config, {{"model.safetensors", &h}}, plan);
}

std::string error_of(const std::string& config, const std::vector<T>& ts) {
    CheckpointPlan plan;
    const Status st = bind_one(config, ts, &plan);
    if (st.ok()) return "ok";
    CHECK(plan.architecture == nullptr); // a refusal leaves the plan empty
    CHECK(plan.weights.empty());
    return st.message();
}

const uint64_t H = 8, I = 16, V = 32, NH = 2, NKV = 1, D = 4;

std::string L(int layer, const std::string& rest) {
    return "model.layers." + std::to_string(layer) + "." + rest;
}

// modeling_llama.py: LlamaModel.embed_tokens nn.Embedding(vocab, hidden), norm
// LlamaRMSNorm(hidden); LlamaDecoderLayer.input_layernorm, post_attention_layernorm; LlamaAttention
// q_proj Linear(hidden, heads * head_dim), k_proj/v_proj Linear(hidden, kv_heads * head_dim),
// o_proj Linear(heads * head_dim, hidden), bias=attention_bias; LlamaMLP gate_proj/up_proj
// Linear(hidden, intermediate), down_proj Linear(intermediate, hidden), bias=mlp_bias;
// LlamaForCausalLM.lm_head Linear(hidden, vocab, bias=False).
std::vector<T> llama(bool attention_bias = false, bool mlp_bias = false, bool lm_head = true) {
    std::vector<T> ts = {{"model.embed_tokens.weight", {V, H}}, {"model.norm.weight", {H}}};
    if (lm_head) ts.push_back({"lm_head.weight", {V, H}});
    for (int l = 0; l < 2; ++l) {
        ts.push_back({L(l, "input_layernorm.weight"), {H}});
        ts.push_back({L(l, "self_attn.q_proj.weight"), {NH * D, H}});
        ts.push_back({L(l, "self_attn.k_proj.weight"), {NKV * D, H}});
        ts.push_back({L(l, "self_attn.v_proj.weight"), {NKV * D, H}});
        ts.push_back({L(l, "self_attn.o_proj.weight"), {H, NH * D}});
        if (attention_bias) {
            ts.push_back({L(l, "self_attn.q_proj.bias"), {NH * D}});
            ts.push_back({L(l, "self_attn.k_proj.bias"), {NKV * D}});
            ts.push_back({L(l, "self_attn.v_proj.bias"), {NKV * D}});
            ts.push_back({L(l, "self_attn.o_proj.bias"), {H}});
        }
        ts.push_back({L(l, "post_attention_layernorm.weight"), {H}});
        ts.push_back({L(l, "mlp.gate_proj.weight"), {I, H}});
        ts.push_back({L(l, "mlp.up_proj.weight"), {I, H}});
        ts.push_back({L(l, "mlp.down_proj.weight"), {H, I}});
        if (mlp_bias) {
            ts.push_back({L(l, "mlp.gate_proj.bias"), {I}});
            ts.push_back({L(l, "mlp.up_proj.bias"), {I}});
            ts.push_back({L(l, "mlp.down_proj.bias"), {H}});
        }
    }
    return ts;
}

// modeling_qwen2.py: as Llama, Qwen2Attention q/k/v_proj bias=True, o_proj bias=False.
std::vector<T> qwen2(bool lm_head = false) {
    std::vector<T> ts = llama(false, false, lm_head);
    for (int l = 0; l < 2; ++l) {
        ts.push_back({L(l, "self_attn.q_proj.bias"), {NH * D}});
        ts.push_back({L(l, "self_attn.k_proj.bias"), {NKV * D}});
        ts.push_back({L(l, "self_attn.v_proj.bias"), {NKV * D}});
    }
    return ts;
}

// modeling_qwen3.py: as Llama (bias=attention_bias) plus Qwen3Attention q_norm, k_norm
// Qwen3RMSNorm(head_dim).
std::vector<T> qwen3() {
    std::vector<T> ts = llama(false, false, false);
    for (int l = 0; l < 2; ++l) {
        ts.push_back({L(l, "self_attn.q_norm.weight"), {D}});
        ts.push_back({L(l, "self_attn.k_norm.weight"), {D}});
    }
    return ts;
}

// modeling_gemma2.py: Gemma2DecoderLayer input_layernorm, post_attention_layernorm,
// pre_feedforward_layernorm, post_feedforward_layernorm, all Gemma2RMSNorm(hidden); attention and
// MLP as Llama without biases. modeling_gemma3.py adds q_norm, k_norm Gemma3RMSNorm(head_dim).
// `prefix` is the decoder's ("model." for the text model).
std::vector<T> gemma(bool qk_norm, const std::string& prefix = "model.") {
    std::vector<T> ts = {{prefix + "embed_tokens.weight", {V, H}}, {prefix + "norm.weight", {H}}};
    for (int l = 0; l < 2; ++l) {
        const std::string p = prefix + "layers." + std::to_string(l) + ".";
        ts.push_back({p + "input_layernorm.weight", {H}});
        ts.push_back({p + "self_attn.q_proj.weight", {NH * D, H}});
        ts.push_back({p + "self_attn.k_proj.weight", {NKV * D, H}});
        ts.push_back({p + "self_attn.v_proj.weight", {NKV * D, H}});
        ts.push_back({p + "self_attn.o_proj.weight", {H, NH * D}});
        if (qk_norm) {
            ts.push_back({p + "self_attn.q_norm.weight", {D}});
            ts.push_back({p + "self_attn.k_norm.weight", {D}});
        }
        ts.push_back({p + "post_attention_layernorm.weight", {H}});
        ts.push_back({p + "pre_feedforward_layernorm.weight", {H}});
        ts.push_back({p + "post_feedforward_layernorm.weight", {H}});
        ts.push_back({p + "mlp.gate_proj.weight", {I, H}});
        ts.push_back({p + "mlp.up_proj.weight", {I, H}});
        ts.push_back({p + "mlp.down_proj.weight", {H, I}});
    }
    return ts;
}

// modular_phi3.py: Phi3Attention qkv_proj Linear(hidden, heads * head_dim + 2 * kv_heads *
// head_dim), o_proj; Phi3MLP gate_up_proj Linear(hidden, 2 * intermediate), down_proj; no bias.
std::vector<T> phi3() {
    std::vector<T> ts = {{"model.embed_tokens.weight", {V, H}},
                         {"model.norm.weight", {H}},
                         {"lm_head.weight", {V, H}}};
    for (int l = 0; l < 2; ++l) {
        ts.push_back({L(l, "input_layernorm.weight"), {H}});
        ts.push_back({L(l, "self_attn.qkv_proj.weight"), {NH * D + 2 * NKV * D, H}});
        ts.push_back({L(l, "self_attn.o_proj.weight"), {H, NH * D}});
        ts.push_back({L(l, "post_attention_layernorm.weight"), {H}});
        ts.push_back({L(l, "mlp.gate_up_proj.weight"), {2 * I, H}});
        ts.push_back({L(l, "mlp.down_proj.weight"), {H, I}});
    }
    return ts;
}

// modeling_starcoder2.py: nn.LayerNorm (weight and bias) input_layernorm,
// post_attention_layernorm and the model's norm; q/k/v/o_proj bias=use_bias; Starcoder2MLP c_fc
// Linear(hidden, intermediate), c_proj Linear(intermediate, hidden), bias=use_bias.
std::vector<T> starcoder2(bool use_bias = true) {
    std::vector<T> ts = {{"model.embed_tokens.weight", {V, H}},
                         {"model.norm.weight", {H}},
                         {"model.norm.bias", {H}}};
    for (int l = 0; l < 2; ++l) {
        ts.push_back({L(l, "input_layernorm.weight"), {H}});
        ts.push_back({L(l, "input_layernorm.bias"), {H}});
        for (const char* p : {"q", "k", "v", "o"}) {
            const uint64_t out = std::string(p) == "q"   ? NH * D
                                 : std::string(p) == "o" ? H
                                                         : NKV * D;
            const uint64_t in = std::string(p) == "o" ? NH * D : H;
            ts.push_back({L(l, std::string("self_attn.") + p + "_proj.weight"), {out, in}});
            if (use_bias) ts.push_back({L(l, std::string("self_attn.") + p + "_proj.bias"), {out}});
        }
        ts.push_back({L(l, "post_attention_layernorm.weight"), {H}});
        ts.push_back({L(l, "post_attention_layernorm.bias"), {H}});
        ts.push_back({L(l, "mlp.c_fc.weight"), {I, H}});
        ts.push_back({L(l, "mlp.c_proj.weight"), {H, I}});
        if (use_bias) {
            ts.push_back({L(l, "mlp.c_fc.bias"), {I}});
            ts.push_back({L(l, "mlp.c_proj.bias"), {H}});
        }
    }
    return ts;
}

// The common keys; `extra` ends the object.
std::string config(const std::string& type, const std::string& extra = "") {
    return R"({"model_type":")" + type +
           R"(","vocab_size":32,"hidden_size":8,"intermediate_size":16,"num_hidden_layers":2,
"num_attention_heads":2,"num_key_value_heads":1,"max_position_embeddings":64,"rope_theta":10000)" +
           extra + "}";
}

const std::string kGemmaKeys =
    R"(,"head_dim":4,"query_pre_attn_scalar":4,"sliding_window":16,"rms_norm_eps":1e-6)";

// Every tensor given is read (but `unread`), and the plan's bytes are theirs.
void check_reads_all(const CheckpointPlan& plan, const std::vector<T>& ts,
                     const std::set<std::string>& unread = {}) {
    std::set<std::string> read;
    for (const WeightRef& w : plan.weights) {
        CHECK(read.insert(w.tensor.name).second); // each once
        CHECK(w.tensor.shape == expected_shape(w.role, plan.dims));
    }
    std::set<std::string> given;
    uint64_t bytes = 0, elements = 0;
    for (const T& t : ts)
        if (!unread.count(t.name)) {
            given.insert(t.name);
            bytes += bytes_of(t);
            elements += bytes_of(t) / dtype_bytes(t.dtype);
        }
    CHECK(read == given);
    CHECK(plan.weight_bytes == bytes);
    CHECK(plan.parameters == elements);
}

void check_dims(const CheckpointPlan& plan) {
    CHECK(plan.dims.vocab == 32);
    CHECK(plan.dims.hidden == 8);
    CHECK(plan.dims.intermediate == 16);
    CHECK(plan.dims.layers == 2);
    CHECK(plan.dims.heads == 2);
    CHECK(plan.dims.kv_heads == 1);
    CHECK(plan.dims.head_dim == 4);
    CHECK(plan.setup.layers.size() == 2);
}

std::string name_of(const CheckpointPlan& plan, WeightRole role, int layer = -1) {
    const WeightRef* w = plan.weight(role, layer);
    return w ? w->tensor.name : "(none)";
}

} // namespace

TEST_CASE("architectures: the table's model types, in order, and unknown ones", "[checkpoint]") {
    std::vector<std::string> types;
    for (const Architecture* a : architectures()) types.push_back(a->model_type);
    CHECK(types == std::vector<std::string>{"llama", "mistral", "qwen2", "qwen3", "gemma2",
                                            "gemma3_text", "phi3", "starcoder2"});
    CHECK(find_architecture("qwen2") == architectures()[2]);
    CHECK(find_architecture("gpt2") == nullptr);
    CHECK(supported_model_types() == "llama, mistral, qwen2, qwen3, gemma2, gemma3_text (or "
                                     "gemma3 wrapping one), phi3, starcoder2");
    for (size_t r = 0; r < kWeightRoleCount; ++r)
        CHECK(role_name(static_cast<WeightRole>(r)) != nullptr);
}

TEST_CASE("architectures: llama binds, untied, with and without biases", "[checkpoint]") {
    CheckpointPlan plan;
    const std::vector<T> ts = llama();
    const Status st =
        bind_one(config("llama", R"(,"rms_norm_eps":1e-5,"tie_word_embeddings":false)"), ts, &plan);
    INFO(st.message());
    REQUIRE(st.ok());
    CHECK(std::string(plan.architecture->model_type) == "llama");
    check_dims(plan);
    check_reads_all(plan, ts);
    CHECK_FALSE(plan.tied);
    CHECK(plan.weights.size() == 3 + 2 * 9);
    CHECK(name_of(plan, WeightRole::lm_head) == "lm_head.weight");
    CHECK(name_of(plan, WeightRole::q, 1) == "model.layers.1.self_attn.q_proj.weight");
    CHECK(name_of(plan, WeightRole::ffn_norm, 0) ==
          "model.layers.0.post_attention_layernorm.weight");
    CHECK(name_of(plan, WeightRole::q_bias, 0) == "(none)");
    CHECK(plan.architecture->norm == NormKind::rms);
    CHECK(plan.norm_eps == 1e-5);
    CHECK(plan.activation == Activation::silu);
    CHECK(plan.architecture->mlp == MlpKind::gated);
    CHECK(plan.embedding_scale == 1);
    CHECK(plan.final_softcap == 0);
    const WeightRef* embed = plan.weight(WeightRole::embed);
    REQUIRE(embed != nullptr);
    CHECK(embed->file == 0);
    CHECK(embed->layer == -1);
    CHECK(plan.weight(WeightRole::up, 1)->layer == 1);

    // attention_bias and mlp_bias (LlamaAttention, LlamaMLP) add their biases.
    const std::vector<T> biased = llama(true, true);
    const Status st2 =
        bind_one(config("llama", R"(,"attention_bias":true,"mlp_bias":true)"), biased, &plan);
    INFO(st2.message());
    REQUIRE(st2.ok());
    check_reads_all(plan, biased);
    CHECK(name_of(plan, WeightRole::o_bias, 1) == "model.layers.1.self_attn.o_proj.bias");
    CHECK(name_of(plan, WeightRole::down_bias, 0) == "model.layers.0.mlp.down_proj.bias");
    // Without them in the file: the first missing one is named.
    CHECK(error_of(config("llama", R"(,"attention_bias":true)"), llama()) ==
          "checkpoint: no tensor 'model.layers.0.self_attn.q_proj.bias' in 'model.safetensors': "
          "llama reads it as layer 0's q_bias [8] = [num_attention_heads * head_dim]");
}

TEST_CASE("architectures: mistral, qwen2 and qwen3 bind", "[checkpoint]") {
    CheckpointPlan plan;
    // modeling_mistral.py: no bias; lm_head untied (MistralConfig tie_word_embeddings=False).
    const std::vector<T> m = llama();
    Status st = bind_one(config("mistral", R"(,"sliding_window":16)"), m, &plan);
    INFO(st.message());
    REQUIRE(st.ok());
    check_dims(plan);
    check_reads_all(plan, m);
    CHECK(plan.setup.layers[0].attention == AttentionKind::sliding);
    // A bias is not a Mistral weight, whatever the config says.
    CHECK(error_of(config("mistral", R"(,"attention_bias":true)"), qwen2(true)) ==
          "checkpoint: tensor 'model.layers.0.self_attn.k_proj.bias' (in "
          "'model.safetensors') and 5 more are not weights of mistral "
          "as config.json describes it (the architecture has no such "
          "bias): hirope refuses tensors it would not read (the config "
          "and the weights may not match)");

    // Qwen2.5: q/k/v biases always; tied (Qwen2.5-0.5B's tie_word_embeddings true, no lm_head).
    const std::vector<T> q2 = qwen2();
    st = bind_one(config("qwen2", R"(,"tie_word_embeddings":true)"), q2, &plan);
    INFO(st.message());
    REQUIRE(st.ok());
    check_reads_all(plan, q2);
    CHECK(plan.tied);
    CHECK(name_of(plan, WeightRole::k_bias, 1) == "model.layers.1.self_attn.k_proj.bias");
    CHECK(name_of(plan, WeightRole::o_bias, 1) == "(none)");
    CHECK(error_of(config("qwen2", R"(,"tie_word_embeddings":true)"),
                   without(q2, "model.layers.1.self_attn.v_proj.bias")) ==
          "checkpoint: no tensor 'model.layers.1.self_attn.v_proj.bias' in 'model.safetensors': "
          "qwen2 reads it as layer 1's v_bias [4] = [num_key_value_heads * head_dim]");

    // Qwen3: q_norm and k_norm per head.
    const std::vector<T> q3 = qwen3();
    st = bind_one(config("qwen3", R"(,"head_dim":4,"tie_word_embeddings":true)"), q3, &plan);
    INFO(st.message());
    REQUIRE(st.ok());
    check_reads_all(plan, q3);
    CHECK(plan.architecture->qk_norm);
    CHECK(name_of(plan, WeightRole::k_norm, 0) == "model.layers.0.self_attn.k_norm.weight");
    // The config reader warns that its setup leaves the q/k norms out; the plan models them.
    auto about_qk_norm = [](const std::vector<std::string>& ws) {
        return std::count_if(ws.begin(), ws.end(), [](const std::string& w) {
            return w.find("normalizes q and k") != std::string::npos;
        });
    };
    CHECK(about_qk_norm(plan.setup.warnings) == 1);
    CHECK(about_qk_norm(plan.warnings) == 0);
    // Qwen3Config's head_dim default is 128, not hidden_size / num_attention_heads (4 here): a
    // config without it asks for 128-wide heads, which these tensors do not have.
    CHECK(error_of(config("qwen3", R"(,"tie_word_embeddings":true)"), q3) ==
          "checkpoint: tensor 'model.layers.0.self_attn.q_proj.weight' (in 'model.safetensors') "
          "has shape [8, 8]; qwen3 expects layer 0's q [256, 8] = [num_attention_heads * "
          "head_dim, hidden_size]");
}

TEST_CASE("architectures: gemma2 and gemma3 text bind with Gemma's semantics", "[checkpoint]") {
    CheckpointPlan plan;
    const std::vector<T> g2 = gemma(false);
    Status st = bind_one(config("gemma2", kGemmaKeys + R"(,"final_logit_softcapping":30.0,
        "attn_logit_softcapping":50.0,"hidden_activation":"gelu_pytorch_tanh")"),
                         g2, &plan);
    INFO(st.message());
    REQUIRE(st.ok());
    check_dims(plan);
    check_reads_all(plan, g2);
    CHECK(plan.tied); // Gemma2Config: tie_word_embeddings=True
    CHECK(plan.weight(WeightRole::lm_head) == plan.weight(WeightRole::embed));
    CHECK(plan.architecture->norm == NormKind::rms_one_plus);
    CHECK(plan.activation == Activation::gelu_tanh);
    CHECK(plan.embedding_scale == std::sqrt(8.0));
    CHECK(plan.final_softcap == 30.0);
    // The config reader warns that its setup leaves the logits' soft-cap out; the plan has it.
    auto about_softcap = [](const std::vector<std::string>& ws) {
        return std::count_if(ws.begin(), ws.end(), [](const std::string& w) {
            return w.rfind("final_logit_softcapping: ", 0) == 0;
        });
    };
    CHECK(about_softcap(plan.setup.warnings) == 1);
    CHECK(about_softcap(plan.warnings) == 0);
    CHECK(plan.setup.layers[0].softcap == 50.0);
    CHECK(plan.setup.layers[0].scale == 0.5); // query_pre_attn_scalar 4: 4^-1/2
    CHECK(name_of(plan, WeightRole::attn_post_norm, 1) ==
          "model.layers.1.post_attention_layernorm.weight");
    CHECK(name_of(plan, WeightRole::ffn_norm, 1) ==
          "model.layers.1.pre_feedforward_layernorm.weight");
    CHECK(name_of(plan, WeightRole::ffn_post_norm, 0) ==
          "model.layers.0.post_feedforward_layernorm.weight");
    // final_logit_softcapping null: none; absent: Gemma2Config's 30.
    REQUIRE(bind_one(config("gemma2", kGemmaKeys + R"(,"final_logit_softcapping":null)"), g2, &plan)
                .ok());
    CHECK(plan.final_softcap == 0);
    REQUIRE(bind_one(config("gemma2", kGemmaKeys), g2, &plan).ok());
    CHECK(plan.final_softcap == 30.0);

    const std::vector<T> g3 = gemma(true);
    st =
        bind_one(config("gemma3_text", kGemmaKeys + R"(,"rope_local_base_freq":10000)"), g3, &plan);
    INFO(st.message());
    REQUIRE(st.ok());
    check_reads_all(plan, g3);
    CHECK(plan.final_softcap == 0); // Gemma3TextConfig: None
    CHECK(name_of(plan, WeightRole::q_norm, 1) == "model.layers.1.self_attn.q_norm.weight");
    CHECK(std::string(plan.prefix.decoder) == "model.");
    // Gemma 2's tensors are not a Gemma 3 checkpoint.
    CHECK(error_of(config("gemma3_text", kGemmaKeys), g2) ==
          "checkpoint: no tensor 'model.layers.0.self_attn.q_norm.weight' in 'model.safetensors': "
          "gemma3_text reads it as layer 0's q_norm [4] = [head_dim]");
}

TEST_CASE("architectures: gemma3's multimodal checkpoints, both prefixes", "[checkpoint]") {
    const std::string wrapper = R"({"model_type":"gemma3","text_config":{"vocab_size":32,
"hidden_size":8,"intermediate_size":16,"num_hidden_layers":2,"num_attention_heads":2,
"num_key_value_heads":1,"head_dim":4,"query_pre_attn_scalar":4,"sliding_window":16},
"vision_config":{"model_type":"siglip_vision_model"}})";
    // Saved before transformers 4.52: language_model.model.* and language_model.lm_head.weight
    // (Gemma3ForConditionalGeneration._checkpoint_conversion_mapping), beside the vision tower.
    std::vector<T> legacy = gemma(true, "language_model.model.");
    legacy.push_back({"vision_tower.vision_model.embeddings.patch_embedding.weight", {4, 3, 2, 2}});
    legacy.push_back({"multi_modal_projector.mm_input_projection_weight", {4, 8}});
    CheckpointPlan plan;
    Status st = bind_one(wrapper, legacy, &plan);
    INFO(st.message());
    REQUIRE(st.ok());
    CHECK(std::string(plan.architecture->model_type) == "gemma3_text");
    CHECK(std::string(plan.prefix.decoder) == "language_model.model.");
    check_reads_all(plan, legacy,
                    {"vision_tower.vision_model.embeddings.patch_embedding.weight",
                     "multi_modal_projector.mm_input_projection_weight"});
    CHECK(plan.tied);
    CHECK(name_of(plan, WeightRole::down, 1) ==
          "language_model.model.layers.1.mlp.down_proj.weight");
    CHECK(std::count(plan.warnings.begin(), plan.warnings.end(),
                     "checkpoint: 2 tensors of the vision tower and projector are not read (the "
                     "text decoder only)") == 1);

    // Saved since: model.language_model.* and lm_head.weight (here untied).
    std::vector<T> current = gemma(true, "model.language_model.");
    current.push_back({"model.vision_tower.vision_model.post_layernorm.weight", {4}});
    current.push_back({"lm_head.weight", {V, H}});
    const std::string untied =
        wrapper.substr(0, wrapper.size() - 1) + R"(,"tie_word_embeddings":false})";
    st = bind_one(untied, current, &plan);
    INFO(st.message());
    REQUIRE(st.ok());
    CHECK(std::string(plan.prefix.decoder) == "model.language_model.");
    CHECK_FALSE(plan.tied);
    CHECK(name_of(plan, WeightRole::lm_head) == "lm_head.weight");
    check_reads_all(plan, current, {"model.vision_tower.vision_model.post_layernorm.weight"});

    // A vision tensor beside a text-only checkpoint is not skipped.
    std::vector<T> text = gemma(true);
    text.push_back({"vision_tower.vision_model.post_layernorm.weight", {4}});
    CHECK(error_of(config("gemma3_text", kGemmaKeys), text) ==
          "checkpoint: tensor 'vision_tower.vision_model.post_layernorm.weight' (in "
          "'model.safetensors') is not a weight of gemma3_text as config.json describes it: "
          "hirope refuses tensors it would not read (the config and the weights may not match)");
    // Two decoders.
    std::vector<T> both = gemma(true);
    for (const T& t : gemma(true, "language_model.model.")) both.push_back(t);
    CHECK(error_of(wrapper, both) ==
          "checkpoint: both 'model.embed_tokens.weight' and "
          "'language_model.model.embed_tokens.weight' are held: two decoders in one checkpoint");
}

TEST_CASE("architectures: phi3 and starcoder2 bind", "[checkpoint]") {
    CheckpointPlan plan;
    const std::vector<T> p = phi3();
    Status st = bind_one(config("phi3", R"(,"partial_rotary_factor":0.5)"), p, &plan);
    INFO(st.message());
    REQUIRE(st.ok());
    check_dims(plan);
    check_reads_all(plan, p);
    CHECK(plan.setup.rotary_dim == 2);
    CHECK(plan.architecture->fused_qkv);
    CHECK(plan.architecture->mlp == MlpKind::fused_gated);
    CHECK(plan.norm_eps == 1e-5); // Phi3Config's default
    CHECK(name_of(plan, WeightRole::qkv, 0) == "model.layers.0.self_attn.qkv_proj.weight");
    CHECK(name_of(plan, WeightRole::gate_up, 1) == "model.layers.1.mlp.gate_up_proj.weight");
    CHECK(name_of(plan, WeightRole::q, 0) == "(none)");

    const std::vector<T> s = starcoder2();
    st = bind_one(config("starcoder2", R"(,"norm_epsilon":1e-5,"use_bias":true)"), s, &plan);
    INFO(st.message());
    REQUIRE(st.ok());
    check_reads_all(plan, s);
    CHECK(plan.tied); // Starcoder2Config: tie_word_embeddings=True
    CHECK(plan.architecture->norm == NormKind::layer_norm);
    CHECK(plan.architecture->mlp == MlpKind::plain);
    CHECK(plan.activation == Activation::gelu_tanh); // the default gelu_pytorch_tanh
    CHECK(name_of(plan, WeightRole::final_norm_bias) == "model.norm.bias");
    CHECK(name_of(plan, WeightRole::up, 0) == "model.layers.0.mlp.c_fc.weight");
    CHECK(name_of(plan, WeightRole::down_bias, 1) == "model.layers.1.mlp.c_proj.bias");
    // use_bias false: no linear biases, the LayerNorms keep theirs.
    const std::vector<T> nb = starcoder2(false);
    st = bind_one(config("starcoder2", R"(,"use_bias":false,"hidden_act":"gelu")"), nb, &plan);
    INFO(st.message());
    REQUIRE(st.ok());
    check_reads_all(plan, nb);
    CHECK(plan.activation == Activation::gelu);
    CHECK(name_of(plan, WeightRole::attn_norm_bias, 1) == "model.layers.1.input_layernorm.bias");
    CHECK(error_of(config("starcoder2", R"(,"use_bias":false)"), s) ==
          "checkpoint: tensor 'model.layers.0.mlp.c_fc.bias' (in 'model.safetensors') and 11 more "
          "are not weights of starcoder2 as config.json describes it (use_bias is false): hirope "
          "refuses tensors it would not read (the config and the weights may not match)");
}

TEST_CASE("architectures: tied and untied output layers", "[checkpoint]") {
    CheckpointPlan plan;
    // tie_word_embeddings true and no lm_head.weight: the embedding, counted once.
    const std::vector<T> tied = llama(false, false, false);
    REQUIRE(bind_one(config("llama", R"(,"tie_word_embeddings":true)"), tied, &plan).ok());
    CHECK(plan.tied);
    CHECK(plan.weight(WeightRole::lm_head) == plan.weight(WeightRole::embed));
    check_reads_all(plan, tied);
    CHECK(plan.warnings.empty());
    // tie_word_embeddings true with lm_head.weight stored: not read, said so.
    const std::vector<T> both = llama();
    REQUIRE(bind_one(config("llama", R"(,"tie_word_embeddings":true)"), both, &plan).ok());
    CHECK(plan.tied);
    check_reads_all(plan, both, {"lm_head.weight"});
    REQUIRE(plan.warnings.size() == 1);
    CHECK(plan.warnings[0] == "checkpoint: 'lm_head.weight' is not read: tie_word_embeddings is "
                              "true, so the output layer is the embedding (transformers ties "
                              "them after loading)");
    // LlamaConfig's default is untied: lm_head.weight is read.
    REQUIRE(bind_one(config("llama"), both, &plan).ok());
    CHECK_FALSE(plan.tied);
    CHECK(plan.weight(WeightRole::lm_head) != plan.weight(WeightRole::embed));
    check_reads_all(plan, both);
    // Untied without lm_head.weight: the embedding, with a warning.
    REQUIRE(bind_one(config("llama"), tied, &plan).ok());
    CHECK(plan.tied);
    REQUIRE(plan.warnings.size() == 1);
    CHECK(plan.warnings[0] ==
          "checkpoint: no 'lm_head.weight' although tie_word_embeddings is false: the output layer "
          "is the embedding (as llama.cpp falls back; transformers would leave it at its random "
          "initialization)");
    // A mis-shaped lm_head is refused.
    std::vector<T> bad = tied;
    bad.push_back({"lm_head.weight", {V + 1, H}});
    CHECK(error_of(config("llama"), bad) ==
          "checkpoint: tensor 'lm_head.weight' (in 'model.safetensors') has shape [33, 8]; llama "
          "expects lm_head [32, 8] = [vocab_size, hidden_size]");
}

TEST_CASE("architectures: refusals name what was wrong", "[checkpoint]") {
    const std::string cfg = config("llama");
    // A missing tensor, with the shape it would have needed.
    CHECK(error_of(cfg, without(llama(), "model.layers.1.mlp.down_proj.weight")) ==
          "checkpoint: no tensor 'model.layers.1.mlp.down_proj.weight' in 'model.safetensors': "
          "llama reads it as layer 1's down [8, 16] = [hidden_size, intermediate_size]");
    // A wrong shape: k_proj as if every head had its own key head.
    std::vector<T> ts = llama();
    for (T& t : ts)
        if (t.name == "model.layers.0.self_attn.k_proj.weight") t.shape = {8, 8};
    CHECK(error_of(cfg, ts) ==
          "checkpoint: tensor 'model.layers.0.self_attn.k_proj.weight' (in 'model.safetensors') "
          "has shape [8, 8]; llama expects layer 0's k [4, 8] = [num_key_value_heads * head_dim, "
          "hidden_size]");
    // Transposed.
    ts = llama();
    for (T& t : ts)
        if (t.name == "model.layers.1.mlp.up_proj.weight") t.shape = {H, I};
    CHECK(error_of(cfg, ts) ==
          "checkpoint: tensor 'model.layers.1.mlp.up_proj.weight' (in 'model.safetensors') has "
          "shape [8, 16]; llama expects layer 1's up [16, 8] = [intermediate_size, hidden_size]");
    // A dtype the reader does not widen; mixed F32/F16/BF16 are fine.
    ts = llama();
    ts[1].dtype = "I8";
    CHECK(error_of(cfg, ts) == "checkpoint: tensor 'model.norm.weight' (in 'model.safetensors') "
                               "is I8; weights are read as F32, F16 or BF16");
    ts = llama();
    ts[0].dtype = "F32";
    ts[1].dtype = "F16";
    CheckpointPlan plan;
    REQUIRE(bind_one(cfg, ts, &plan).ok());
    check_reads_all(plan, ts);
    CHECK(plan.weight(WeightRole::embed)->tensor.dtype == DType::F32);
    CHECK(plan.weight(WeightRole::final_norm)->tensor.dtype == DType::F16);
    // An unsupported model type, listing the supported ones; also one the config reader refuses.
    const std::string supported = "; supported: llama, mistral, qwen2, qwen3, gemma2, gemma3_text "
                                  "(or gemma3 wrapping one), phi3, starcoder2";
    CHECK(error_of(config("gpt_neox"), llama()) ==
          "config.json: model_type 'gpt_neox' is not an architecture hirope reads checkpoints of" +
              supported);
    CHECK(error_of(R"({"model_type":"qwen2_vl","hidden_size":8,"num_attention_heads":2,
        "num_hidden_layers":2,"rope_scaling":{"type":"mrope","mrope_section":[1,1]}})",
                   llama()) ==
          "config.json: model_type 'qwen2_vl' is not an architecture hirope reads checkpoints of" +
              supported);
    CHECK(error_of(R"({"hidden_size":8,"num_attention_heads":2,"num_hidden_layers":2})", llama()) ==
          "config.json: model_type (none) is not an architecture hirope reads checkpoints of" +
              supported);
    // A supported type's own config error is the reader's.
    CHECK(error_of(config("llama", R"(,"rope_scaling":{"type":"linear"})"), llama()) ==
          "rope_scaling.factor is required for rope type linear");
    // Grouped-query attention: heads a multiple of the key/value heads.
    CHECK(error_of(R"({"model_type":"llama","vocab_size":32,"hidden_size":12,"intermediate_size":16,
        "num_hidden_layers":2,"num_attention_heads":3,"num_key_value_heads":2})",
                   llama()) ==
          "config.json: num_attention_heads (3) must be a multiple of num_key_value_heads (2): "
          "each key/value head serves a group of query heads");
    CHECK(error_of(config("llama", R"(,"vocab_size":0)"), llama()) ==
          "config.json: vocab_size must be an integer in [1, 4194304], got 0");
    CHECK(error_of(config("llama", R"(,"hidden_act":"relu")"), llama()) ==
          "config.json: hidden_act is 'relu'; read: silu, swish, gelu_pytorch_tanh, gelu_new, "
          "gelu_python_tanh, gelu, gelu_python");
    CHECK(error_of(config("llama", R"(,"rms_norm_eps":0)"), llama()) ==
          "config.json: rms_norm_eps must be in (0, 1), got 0");
    // Tensors the forward would not read are refused (a layer past num_hidden_layers, a bias the
    // config switched off); RoPE buffers are skipped with a warning.
    ts = llama();
    ts.push_back({"model.layers.2.mlp.down_proj.weight", {H, I}});
    CHECK(error_of(cfg, ts) ==
          "checkpoint: tensor 'model.layers.2.mlp.down_proj.weight' (in 'model.safetensors') is "
          "not a weight of llama as config.json describes it (layer 2, but num_hidden_layers is "
          "2): hirope refuses tensors it would not read (the config and the weights may not "
          "match)");
    CHECK(error_of(cfg, llama(true)) ==
          "checkpoint: tensor 'model.layers.0.self_attn.k_proj.bias' (in 'model.safetensors') and "
          "7 more are not weights of llama as config.json describes it (attention_bias is false): "
          "hirope refuses tensors it would not read (the config and the weights may not match)");
    ts = llama();
    ts.push_back({"model.layers.0.self_attn.rotary_emb.inv_freq", {D / 2}, "F32"});
    ts.push_back({"model.layers.1.self_attn.rotary_emb.inv_freq", {D / 2}, "F32"});
    REQUIRE(bind_one(cfg, ts, &plan).ok());
    CHECK(std::count(plan.warnings.begin(), plan.warnings.end(),
                     "checkpoint: 2 rotary_emb.inv_freq buffers are not read (RoPE's frequencies "
                     "come from config.json)") == 1);
    // No file, or a file without its header.
    CHECK(plan_checkpoint(cfg, {}, &plan).message() == "checkpoint: no safetensors file was given");
    CHECK(plan_checkpoint(cfg, {{"model.safetensors", nullptr}}, &plan).message() ==
          "checkpoint: 'model.safetensors' has no header");
}

TEST_CASE("architectures: a sharded checkpoint", "[checkpoint]") {
    const std::vector<T> ts = llama();
    // The embedding and layer 0 in the first shard, the rest in the second.
    std::vector<T> first, second;
    for (const T& t : ts)
        (t.name.find("layers.1.") == std::string::npos && t.name != "model.norm.weight" &&
                 t.name != "lm_head.weight"
             ? first
             : second)
            .push_back(t);
    const Header h1 = header_of(first), h2 = header_of(second);
    std::string index = R"({"metadata":{"total_size":0},"weight_map":{)";
    for (size_t i = 0; i < ts.size(); ++i) {
        const bool in_first = std::any_of(first.begin(), first.end(),
                                          [&](const T& t) { return t.name == ts[i].name; });
        index +=
            (i ? "," : "") + ("\"" + ts[i].name + "\":\"") +
            (in_first ? "model-00001-of-00002.safetensors" : "model-00002-of-00002.safetensors") +
            "\"";
    }
    index += "}}";
    ShardIndex idx;
    REQUIRE(read_shard_index(index, &idx).ok());
    const std::vector<ShardHeader> shards = {{"model-00001-of-00002.safetensors", &h1},
                                             {"model-00002-of-00002.safetensors", &h2}};
    REQUIRE(check_shards(idx, shards).ok());
    CheckpointPlan plan;
    const Status st = plan_checkpoint(config("llama"), shards, &plan);
    INFO(st.message());
    REQUIRE(st.ok());
    check_reads_all(plan, ts);
    for (const WeightRef& w : plan.weights) {
        const bool in_first = std::any_of(first.begin(), first.end(),
                                          [&](const T& t) { return t.name == w.tensor.name; });
        CHECK(w.file == (in_first ? 0u : 1u));
        const Header& h = in_first ? h1 : h2;
        CHECK(w.file_offset == h.data_offset + h.find(w.tensor.name)->begin);
    }
    CHECK(plan.weight(WeightRole::down, 1)->file == 1);
    // A tensor missing from every shard names the files.
    const Header h2_short = header_of(without(second, "model.layers.1.mlp.up_proj.weight"));
    CHECK(plan_checkpoint(config("llama"),
                          {{"model-00001-of-00002.safetensors", &h1},
                           {"model-00002-of-00002.safetensors", &h2_short}},
                          &plan)
              .message() ==
          "checkpoint: no tensor 'model.layers.1.mlp.up_proj.weight' in the 2 files: llama reads "
          "it as layer 1's up [16, 8] = [intermediate_size, hidden_size]");
    // A tensor in two files (shards given without their index) is refused.
    CHECK(plan_checkpoint(config("llama"), {{"a.safetensors", &h1}, {"b.safetensors", &h1}}, &plan)
              .message() ==
          "checkpoint: tensor 'model.embed_tokens.weight' is in both 'a.safetensors' and "
          "'b.safetensors'");
}

TEST_CASE("architectures: the memory rule, weights at their stored width", "[checkpoint]") {
    // Qwen2.5-0.5B's shape (its config.json: hidden 896, intermediate 4864, 24 layers, 14 heads, 2
    // key/value heads, vocab 151936, tied), in BF16.
    const uint64_t h = 896, i = 4864, v = 151936, nh = 14, nkv = 2, d = 64;
    auto qwen = [&](uint64_t hid, uint64_t inter, int layers, uint64_t heads, uint64_t kv,
                    const std::string& dtype) {
        std::vector<T> ts = {{"model.embed_tokens.weight", {v, hid}, dtype},
                             {"model.norm.weight", {hid}, dtype}};
        const uint64_t hd = hid / heads;
        for (int l = 0; l < layers; ++l) {
            ts.push_back({L(l, "input_layernorm.weight"), {hid}, dtype});
            ts.push_back({L(l, "self_attn.q_proj.weight"), {heads * hd, hid}, dtype});
            ts.push_back({L(l, "self_attn.q_proj.bias"), {heads * hd}, dtype});
            ts.push_back({L(l, "self_attn.k_proj.weight"), {kv * hd, hid}, dtype});
            ts.push_back({L(l, "self_attn.k_proj.bias"), {kv * hd}, dtype});
            ts.push_back({L(l, "self_attn.v_proj.weight"), {kv * hd, hid}, dtype});
            ts.push_back({L(l, "self_attn.v_proj.bias"), {kv * hd}, dtype});
            ts.push_back({L(l, "self_attn.o_proj.weight"), {hid, heads * hd}, dtype});
            ts.push_back({L(l, "post_attention_layernorm.weight"), {hid}, dtype});
            ts.push_back({L(l, "mlp.gate_proj.weight"), {inter, hid}, dtype});
            ts.push_back({L(l, "mlp.up_proj.weight"), {inter, hid}, dtype});
            ts.push_back({L(l, "mlp.down_proj.weight"), {hid, inter}, dtype});
        }
        return ts;
    };
    auto cfg = [&](uint64_t hid, uint64_t inter, int layers, uint64_t heads, uint64_t kv) {
        return R"({"model_type":"qwen2","vocab_size":151936,"hidden_size":)" + std::to_string(hid) +
               R"(,"intermediate_size":)" + std::to_string(inter) + R"(,"num_hidden_layers":)" +
               std::to_string(layers) + R"(,"num_attention_heads":)" + std::to_string(heads) +
               R"(,"num_key_value_heads":)" + std::to_string(kv) +
               R"(,"tie_word_embeddings":true,"max_position_embeddings":32768,"rope_theta":1000000})";
    };
    CheckpointPlan plan;
    const std::vector<T> small = qwen(h, i, 24, nh, nkv, "BF16");
    Status st = bind_one(cfg(h, i, 24, nh, nkv), small, &plan);
    INFO(st.message());
    REQUIRE(st.ok());
    // The parameter count from the shapes: embedding + final norm + 24 layers of two norms,
    // q/k/v/o with q/k/v biases, and three MLP matrices.
    const uint64_t per_layer =
        2 * h + (nh * d * h + nh * d) + 2 * (nkv * d * h + nkv * d) + h * nh * d + 3 * i * h;
    const uint64_t params = v * h + h + 24 * per_layer;
    CHECK(params == 494032768); // Qwen2.5-0.5B: 0.49B parameters
    CHECK(plan.parameters == params);
    CHECK(plan.weight_bytes == 2 * params); // BF16 at its stored width: 988 MB, not 1.98 GB
    // The working memory, by the header's formula: per token 2 H + (2 nH + 2 nKV) D + 2 I, the
    // cache 2 nKV D a layer, one head's map, the logits kept.
    const uint64_t tokens = 512;
    const uint64_t floats = tokens * (2 * h + (2 * nh + 2 * nkv) * d + 2 * i) +
                            24 * tokens * 2 * nkv * d + tokens * tokens + tokens * v;
    CHECK(forward_working_bytes(plan, 512, 512) == 4 * floats);
    CHECK(forward_working_bytes(plan, 512, 0) == 4 * (floats - tokens * v));
    // Within wasm32's 4 GiB with a 512-token forward's logits.
    CHECK(check_memory(plan, kWasm32MemoryBytes, 512, 512).ok());
    // The same weights at F32 take twice the bytes.
    const std::vector<T> small32 = qwen(h, i, 24, nh, nkv, "F32");
    REQUIRE(bind_one(cfg(h, i, 24, nh, nkv), small32, &plan).ok());
    CHECK(plan.weight_bytes == 4 * params);

    // Qwen2.5-3B's shape (hidden 2048, intermediate 11008, 36 layers, 16 heads, 2 kv heads) in
    // BF16: refused before a byte is read, with the figures.
    const uint64_t H3 = 2048, I3 = 11008, NH3 = 16, KV3 = 2, D3 = 128;
    const std::vector<T> big = qwen(H3, I3, 36, NH3, KV3, "BF16");
    st = bind_one(cfg(H3, I3, 36, NH3, KV3), big, &plan);
    INFO(st.message());
    REQUIRE(st.ok());
    const uint64_t per3 = 2 * H3 + (NH3 * D3 * H3 + NH3 * D3) + 2 * (KV3 * D3 * H3 + KV3 * D3) +
                          H3 * NH3 * D3 + 3 * I3 * H3;
    const uint64_t params3 = v * H3 + H3 + 36 * per3;
    CHECK(params3 == 3085938688); // Qwen2.5-3B: 3.09B parameters
    const uint64_t work3 = 4 * (512 * (2 * H3 + (2 * NH3 + 2 * KV3) * D3 + 2 * I3) +
                                36 * 512 * 2 * KV3 * D3 + 512 * 512 + 512 * v);
    CHECK(forward_working_bytes(plan, 512, 512) == work3);
    CHECK(2 * params3 + work3 == 6584754176);
    CHECK(check_memory(plan, kWasm32MemoryBytes, 512, 512).message() ==
          "qwen2 checkpoint (3,085,938,688 parameters) needs 6,171,877,376 bytes for its weights "
          "(BF16, at their stored width) + 412,876,800 bytes for a 512-token forward = "
          "6,584,754,176 bytes (6.58 GB), over the budget of 4,294,967,296 bytes");
    CHECK(check_memory(plan, kWasm32MemoryBytes, -1, 0).message() ==
          "check_memory: tokens and logits_rows must be in [0, 16,777,216], got -1 and 0");
}
