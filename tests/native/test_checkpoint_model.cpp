// A checkpoint folder opened (checkpoint::open_checkpoint) and run (model::Model::from_checkpoint)
// from files held in memory, written here as the safetensors format describes them. The values are
// checked by identities of the architectures that do not go through hirope's reading of them:
// grouped-query attention with one key/value head equals the same weights with that head written
// out for every query head (transformers' repeat_kv); zero biases change nothing; a fused q/k/v
// matrix (Phi-3) equals the same rows given separately (Llama); each forward under its own
// per-layer setup equals the forward under that setup's scheme given as a replacement. The exact
// values against transformers' forward are tests/python/test_checkpoint_forward.py's.
#include "hirope/architectures.h"
#include "hirope/model.h"
#include "test_compare.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <map>
#include <string>
#include <vector>

using hirope::Status;
using namespace hirope::checkpoint;
using hirope::model::Model;

namespace {

using Files = std::map<std::string, std::string>;

std::string le64(uint64_t n) {
    std::string s(8, '\0');
    for (int i = 0; i < 8; ++i) s[i] = static_cast<char>((n >> (8 * i)) & 0xFF);
    return s;
}

struct Tensor {
    std::string name;
    std::vector<uint64_t> shape;
    std::vector<float> values;
};

// A safetensors file of F32 tensors, in the order given.
std::string safetensors(const std::vector<Tensor>& ts) {
    std::string json = "{", data;
    for (const Tensor& t : ts) {
        if (json.size() > 1) json += ",";
        json += "\"" + t.name + "\":{\"dtype\":\"F32\",\"shape\":[";
        for (size_t i = 0; i < t.shape.size(); ++i)
            json += (i ? "," : "") + std::to_string(t.shape[i]);
        const size_t begin = data.size();
        data.append(reinterpret_cast<const char*>(t.values.data()), t.values.size() * 4);
        json += "],\"data_offsets\":[" + std::to_string(begin) + "," + std::to_string(data.size()) +
                "]}";
    }
    json += "}";
    while (json.size() % 8) json += ' ';
    return le64(json.size()) + json + data;
}

CheckpointFolder folder_of(const Files& files, int* reads = nullptr) {
    CheckpointFolder f;
    f.stat = [&files](const std::string& name, uint64_t* size) {
        auto it = files.find(name);
        if (it == files.end()) return false;
        *size = it->second.size();
        return true;
    };
    f.read = [&files, reads](const std::string& name, uint64_t offset, uint64_t size,
                             uint8_t* dst) {
        if (reads) ++*reads;
        const std::string& data = files.at(name);
        if (offset + size > data.size()) return Status::error("read past the end");
        std::memcpy(dst, data.data() + offset, static_cast<size_t>(size));
        return Status{};
    };
    return f;
}

// Deterministic values in [-scale, scale).
std::vector<float> values(size_t count, uint32_t seed, float scale = 0.3f) {
    std::vector<float> v(count);
    uint32_t x = seed * 2654435761u + 1;
    for (float& f : v) {
        x = x * 1664525u + 1013904223u;
        f = scale * (static_cast<float>(x >> 8) / 8388608.0f - 1.0f);
    }
    return v;
}

const uint64_t H = 16, I = 24, V = 40, NH = 4, D = 4, LAYERS = 2;

std::string L(uint64_t layer, const std::string& rest) {
    return "model.layers." + std::to_string(layer) + "." + rest;
}

// A llama-form checkpoint with kv heads; `kv_expanded`: the same model with its kv_heads key and
// value heads written out for each of NH query heads (what repeat_kv computes).
std::vector<Tensor> llama_tensors(uint64_t kv, bool kv_expanded = false, bool zero_bias = false) {
    std::vector<Tensor> ts = {{"model.embed_tokens.weight", {V, H}, values(V * H, 1, 1.0f)},
                              {"model.norm.weight", {H}, values(H, 2, 0.2f)}};
    for (float& w : ts[1].values) w += 1;
    for (uint64_t l = 0; l < LAYERS; ++l) {
        const uint32_t s = static_cast<uint32_t>(10 * (l + 1));
        Tensor norm{L(l, "input_layernorm.weight"), {H}, values(H, s, 0.2f)};
        for (float& w : norm.values) w += 1;
        ts.push_back(norm);
        ts.push_back({L(l, "self_attn.q_proj.weight"), {NH * D, H}, values(NH * D * H, s + 1)});
        std::vector<float> k = values(kv * D * H, s + 2), v = values(kv * D * H, s + 3);
        uint64_t rows = kv;
        if (kv_expanded) {
            std::vector<float> k2, v2;
            for (uint64_t h = 0; h < NH; ++h) {
                const size_t from = static_cast<size_t>(h / (NH / kv) * D * H);
                k2.insert(k2.end(), k.begin() + from, k.begin() + from + D * H);
                v2.insert(v2.end(), v.begin() + from, v.begin() + from + D * H);
            }
            k = k2;
            v = v2;
            rows = NH;
        }
        ts.push_back({L(l, "self_attn.k_proj.weight"), {rows * D, H}, k});
        ts.push_back({L(l, "self_attn.v_proj.weight"), {rows * D, H}, v});
        if (zero_bias) {
            ts.push_back({L(l, "self_attn.q_proj.bias"), {NH * D}, std::vector<float>(NH * D)});
            ts.push_back({L(l, "self_attn.k_proj.bias"), {rows * D}, std::vector<float>(rows * D)});
            ts.push_back({L(l, "self_attn.v_proj.bias"), {rows * D}, std::vector<float>(rows * D)});
        }
        ts.push_back({L(l, "self_attn.o_proj.weight"), {H, NH * D}, values(H * NH * D, s + 4)});
        Tensor post{L(l, "post_attention_layernorm.weight"), {H}, values(H, s + 5, 0.2f)};
        for (float& w : post.values) w += 1;
        ts.push_back(post);
        ts.push_back({L(l, "mlp.gate_proj.weight"), {I, H}, values(I * H, s + 6)});
        ts.push_back({L(l, "mlp.up_proj.weight"), {I, H}, values(I * H, s + 7)});
        ts.push_back({L(l, "mlp.down_proj.weight"), {H, I}, values(H * I, s + 8)});
    }
    return ts;
}

std::string config(const std::string& type, uint64_t kv, const std::string& extra = "") {
    return R"({"model_type":")" + type + R"(","vocab_size":40,"hidden_size":16,)" +
           R"("intermediate_size":24,"num_hidden_layers":2,"num_attention_heads":4,)" +
           R"("num_key_value_heads":)" + std::to_string(kv) +
           R"(,"max_position_embeddings":64,"rope_theta":100.0,"rms_norm_eps":1e-5,)" +
           R"("tie_word_embeddings":true)" + extra + "}";
}

// The llama-form checkpoint with kv key/value heads, as files.
Files llama_files(uint64_t kv) {
    return {{"config.json", config("llama", kv)},
            {"model.safetensors", safetensors(llama_tensors(kv))}};
}

struct Loaded {
    OpenedCheckpoint opened;
    std::unique_ptr<Model> model;
};

Status load(const Files& files, Loaded* out, int* reads = nullptr) {
    const CheckpointFolder folder = folder_of(files, reads);
    Status st = open_checkpoint(folder, &out->opened);
    if (!st.ok()) return st;
    const OpenedCheckpoint& o = out->opened;
    return Model::from_checkpoint(
        o.plan,
        [&](uint32_t file, uint64_t offset, uint64_t size, uint8_t* dst) {
            return folder.read(o.files[file], offset, size, dst);
        },
        &out->model);
}

std::vector<int32_t> ids(int n) {
    std::vector<int32_t> v(n);
    for (int i = 0; i < n; ++i) v[i] = (i * 7 + 3) % static_cast<int>(V);
    return v;
}

std::vector<float> logits_of(const Model& m, int n, bool model_schemes = true,
                             const hirope::Scheme& scheme = {}) {
    const std::vector<int32_t> in = ids(n);
    std::vector<int32_t> token(n);
    for (int i = 0; i < n; ++i) token[i] = i;
    std::vector<float> out(static_cast<size_t>(n) * V);
    Model::ForwardRequest r;
    r.ids = in.data();
    r.n = n;
    r.positions.token = token.data();
    r.logits = out.data();
    r.model_schemes = model_schemes;
    r.scheme = scheme;
    const Status st = m.forward(r);
    INFO(st.message());
    REQUIRE(st.ok());
    return out;
}

double max_diff(const std::vector<float>& a, const std::vector<float>& b) {
    REQUIRE(a.size() == b.size());
    double d = 0;
    for (size_t i = 0; i < a.size(); ++i) d = hirope_test::worse(d, std::fabs(double(a[i]) - b[i]));
    return d;
}

} // namespace

TEST_CASE("a checkpoint folder opens config, then headers, never reading a tensor early",
          "[checkpoint][checkpoint-model]") {
    Files files = {{"config.json", config("llama", 1)},
                   {"model.safetensors", safetensors(llama_tensors(1))}};
    OpenedCheckpoint o;
    int reads = 0;
    REQUIRE(open_checkpoint(folder_of(files, &reads), &o).ok());
    CHECK(o.files == std::vector<std::string>{"model.safetensors"});
    CHECK(o.plan.architecture != nullptr);
    CHECK(o.plan.tied);
    CHECK(reads == 3); // config.json, the first 8 bytes, the header

    SECTION("missing files are named") {
        Files no_config = files;
        no_config.erase("config.json");
        CHECK(open_checkpoint(folder_of(no_config), &o).message() ==
              "the checkpoint folder has no config.json");
        CHECK(o.plan.architecture == nullptr);
        Files no_weights = files;
        no_weights.erase("model.safetensors");
        CHECK(open_checkpoint(folder_of(no_weights), &o).message() ==
              "the checkpoint folder has no model.safetensors");
    }
    SECTION("a cut file is refused when its header is read") {
        Files cut = files;
        cut["model.safetensors"].resize(cut["model.safetensors"].size() - 4);
        const Status st = open_checkpoint(folder_of(cut), &o);
        CHECK_FALSE(st.ok());
        CHECK(st.message().rfind("model.safetensors: ", 0) == 0);
        cut["model.safetensors"] = "abc";
        CHECK_FALSE(open_checkpoint(folder_of(cut), &o).ok());
    }
    SECTION("an oversized config.json is refused before it is read") {
        Files big = files;
        big["config.json"] = std::string(hirope::ModelConfigLimits().max_bytes + 1, ' ');
        CHECK(open_checkpoint(folder_of(big), &o).message().find("over the limit") !=
              std::string::npos);
    }
    SECTION("shards: the index's files, checked against it") {
        const std::vector<Tensor> ts = llama_tensors(1);
        std::vector<Tensor> a(ts.begin(), ts.begin() + 5), b(ts.begin() + 5, ts.end());
        std::string map;
        for (const Tensor& t : a)
            map += (map.empty() ? "" : ",") + ("\"" + t.name + "\":\"a.safetensors\"");
        for (const Tensor& t : b) map += ",\"" + t.name + "\":\"b.safetensors\"";
        Files sharded = {{"config.json", config("llama", 1)},
                         {"model.safetensors.index.json", "{\"weight_map\":{" + map + "}}"},
                         {"a.safetensors", safetensors(a)},
                         {"b.safetensors", safetensors(b)}};
        Loaded one, two;
        REQUIRE(load(files, &one).ok());
        REQUIRE(load(sharded, &two).ok());
        CHECK(two.opened.files == std::vector<std::string>{"a.safetensors", "b.safetensors"});
        CHECK(max_diff(logits_of(*one.model, 12), logits_of(*two.model, 12)) == 0);
        sharded.erase("b.safetensors");
        CHECK(open_checkpoint(folder_of(sharded), &o).message() ==
              "the checkpoint folder has no b.safetensors");
    }
}

TEST_CASE("checkpoint forward: grouped-query attention is repeat_kv", "[checkpoint-model]") {
    Loaded gqa, full;
    REQUIRE(load(llama_files(2), &gqa).ok());
    REQUIRE(load({{"config.json", config("llama", 4)},
                  {"model.safetensors", safetensors(llama_tensors(2, true))}},
                 &full)
                .ok());
    CHECK(gqa.model->config().kv_head_count() == 2);
    const std::vector<float> a = logits_of(*gqa.model, 20), b = logits_of(*full.model, 20);
    CHECK(max_diff(a, b) < 1e-5);
    // The comparison can fail: another model's logits are far off.
    Loaded other;
    REQUIRE(load({{"config.json", config("llama", 1)},
                  {"model.safetensors", safetensors(llama_tensors(1))}},
                 &other)
                .ok());
    CHECK(max_diff(a, logits_of(*other.model, 20)) > 1e-2);
}

TEST_CASE("checkpoint forward: zero biases (qwen2) change nothing", "[checkpoint-model]") {
    Loaded llama, qwen;
    REQUIRE(load(llama_files(2), &llama).ok());
    const Status st = load({{"config.json", config("qwen2", 2)},
                            {"model.safetensors", safetensors(llama_tensors(2, false, true))}},
                           &qwen);
    INFO(st.message());
    REQUIRE(st.ok());
    CHECK(max_diff(logits_of(*llama.model, 16), logits_of(*qwen.model, 16)) < 1e-6);
}

TEST_CASE("checkpoint forward: phi3's fused q/k/v and gate/up are llama's rows",
          "[checkpoint-model]") {
    const std::vector<Tensor> ts = llama_tensors(2);
    std::vector<Tensor> fused;
    for (const Tensor& t : ts) {
        auto ends = [&](const std::string& s) {
            return t.name.size() > s.size() &&
                   t.name.compare(t.name.size() - s.size(), s.size(), s) == 0;
        };
        if (ends("k_proj.weight") || ends("v_proj.weight") || ends("up_proj.weight")) continue;
        if (ends("q_proj.weight") || ends("gate_proj.weight")) {
            const std::string prefix =
                t.name.substr(0, t.name.find(ends("q_proj.weight") ? "q_proj" : "gate_proj"));
            const bool attn = ends("q_proj.weight");
            Tensor f{prefix + (attn ? "qkv_proj.weight" : "gate_up_proj.weight"), {}, t.values};
            for (const char* part : attn
                                        ? std::vector<const char*>{"k_proj.weight", "v_proj.weight"}
                                        : std::vector<const char*>{"up_proj.weight"})
                for (const Tensor& u : ts)
                    if (u.name == prefix + part)
                        f.values.insert(f.values.end(), u.values.begin(), u.values.end());
            f.shape = {f.values.size() / H, H};
            fused.push_back(f);
            continue;
        }
        fused.push_back(t);
    }
    Loaded llama, phi3;
    REQUIRE(
        load({{"config.json", config("llama", 2)}, {"model.safetensors", safetensors(ts)}}, &llama)
            .ok());
    const Status st = load({{"config.json", config("phi3", 2, R"(,"hidden_act":"silu")")},
                            {"model.safetensors", safetensors(fused)}},
                           &phi3);
    INFO(st.message());
    REQUIRE(st.ok());
    CHECK(max_diff(logits_of(*llama.model, 16), logits_of(*phi3.model, 16)) < 1e-6);
}

TEST_CASE("checkpoint forward: the model's own schemes, or one swapped in", "[checkpoint-model]") {
    Loaded m;
    REQUIRE(load(llama_files(2), &m).ok());
    const Model& model = *m.model;
    REQUIRE(model.setup() != nullptr);
    REQUIRE(model.setup()->layers.size() == LAYERS);
    // Its own positions equal its layers' scheme (RoPE, base 100) given as the replacement.
    const hirope::Scheme own = model.setup()->layers[0].scheme;
    CHECK(own.base == 100.0);
    const std::vector<float> a = logits_of(model, 24);
    CHECK(max_diff(a, logits_of(model, 24, false, own)) == 0);
    hirope::Scheme other = own;
    other.base = 10000.0;
    CHECK(max_diff(a, logits_of(model, 24, false, other)) > 1e-3);

    std::vector<int32_t> in = ids(8), token(8);
    for (int i = 0; i < 8; ++i) token[i] = i;
    Model::ForwardRequest r;
    r.ids = in.data();
    r.n = 8;
    r.positions.token = token.data();
    std::vector<float> out(8 * V);
    r.logits = out.data();
    r.model_schemes = true;
    SECTION("the baselines: a window or truncation as long as the input changes nothing") {
        std::vector<float> none(8 * V);
        r.logits = none.data();
        REQUIRE(model.forward(r).ok());
        r.logits = out.data();
        for (const auto type : {hirope::model::ContextLimitType::sliding_window,
                                hirope::model::ContextLimitType::truncate}) {
            r.limit.type = type;
            r.limit.length = 8;
            r.limit.stride = 1;
            REQUIRE(model.forward(r).ok());
            CHECK(max_diff(out, none) < 1e-5);
            r.limit.length = 3; // a short one bites
            REQUIRE(model.forward(r).ok());
            CHECK(max_diff(out, none) > 1e-3);
        }
    }
    SECTION("a scheme that does not rotate is refused on RoPE layers") {
        r.model_schemes = false;
        r.scheme.type = hirope::SchemeType::alibi;
        CHECK(model.forward(r).message().find("layer 0: ") == 0);
    }
    SECTION("ids outside the vocabulary") {
        in[3] = static_cast<int32_t>(V);
        CHECK(model.forward(r).message().find("outside the model's vocabulary") !=
              std::string::npos);
    }
}

TEST_CASE("checkpoint loading: a failed read and a non-finite weight are named",
          "[checkpoint-model]") {
    std::vector<Tensor> ts = llama_tensors(1);
    ts[5].values[2] = std::nanf("");
    Loaded m;
    Status st =
        load({{"config.json", config("llama", 1)}, {"model.safetensors", safetensors(ts)}}, &m);
    CHECK(st.message() == "tensor " + ts[5].name + " holds a non-finite value at element 2");
    CHECK(m.model == nullptr);
    OpenedCheckpoint o;
    const Files files = {{"config.json", config("llama", 1)},
                         {"model.safetensors", safetensors(llama_tensors(1))}};
    REQUIRE(open_checkpoint(folder_of(files), &o).ok());
    std::unique_ptr<Model> model;
    st = Model::from_checkpoint(
        o.plan, [](uint32_t, uint64_t, uint64_t, uint8_t*) { return Status::error("disk gone"); },
        &model);
    CHECK(st.message().find(": disk gone") != std::string::npos);
    CHECK(model == nullptr);
}

// The KV cache against the full forward: after a prompt, each token appended alone gives the
// logits the forward gives at its row (keys rotated as the full forward rotates them; the layer's
// own mask, here Mistral's sliding window of 5, and a windowed scheme's two branches).
TEST_CASE("checkpoint decoding: the KV cache gives the full forward's logits",
          "[checkpoint-model]") {
    for (const std::string type : {"llama", "mistral"}) {
        Loaded m;
        REQUIRE(load({{"config.json",
                       config(type, 2, type == "mistral" ? R"(,"sliding_window":5)" : "")},
                      {"model.safetensors", safetensors(llama_tensors(2))}},
                     &m)
                    .ok());
        const Model& model = *m.model;
        const hirope::Scheme own = model.setup()->layers[0].scheme;
        hirope::Scheme rerope = own;
        rerope.type = hirope::SchemeType::rerope;
        rerope.window = 4;
        for (const hirope::Scheme& scheme : {own, rerope}) {
            const int n = 14, prompt = 6;
            const std::vector<float> full = logits_of(model, n, false, scheme);
            const std::vector<int32_t> in = ids(n);
            hirope::model::Decoder dec(model, scheme, n);
            std::vector<float> row(V);
            double worst = 0, spread = 0;
            for (int t = 0; t < n; ++t) {
                const int count = t == 0 ? prompt : 1;
                if (t > 0 && t < prompt) continue;
                const Status st =
                    dec.append(in.data() + (t == 0 ? 0 : t), count, nullptr, nullptr, row.data());
                INFO(type << " " << st.message());
                REQUIRE(st.ok());
                const int at = t == 0 ? prompt - 1 : t;
                for (uint64_t v = 0; v < V; ++v) {
                    worst = hirope_test::worse(worst, std::fabs(double(row[v]) - full[at * V + v]));
                    spread = std::max(spread, std::fabs(double(full[at * V + v])));
                }
            }
            CHECK(dec.length() == n);
            INFO(type << " scheme " << static_cast<int>(scheme.type));
            CHECK(worst <= 1e-4 * spread);
        }
    }
}

namespace {

// y = x . W^T for a ForwardSteps product, in double, from the weight's packed panels as
// Model::linear_view describes them (the layout the WebGPU backend reads), not through Linear.
void product_from_view(const Model& m, const hirope::model::ForwardSteps::Product& p) {
    const Model::LinearView v = m.linear_view(p.weight);
    REQUIRE(v.format == 0); // the F32 checkpoints written here
    REQUIRE(v.in == p.in);
    REQUIRE(v.out == p.out);
    const float* w = static_cast<const float*>(v.data);
    const int pw = v.panel_width;
    for (int64_t r = 0; r < p.rows; ++r)
        for (int o = 0; o < v.out; ++o) {
            double sum = 0;
            const float* panel = w + static_cast<size_t>(o / pw) * v.in * pw + o % pw;
            for (int i = 0; i < v.in; ++i) sum += double(p.x[r * v.in + i]) * panel[i * pw];
            p.y[r * v.out + o] = static_cast<float>(sum);
        }
}

} // namespace

TEST_CASE("checkpoint forward in steps: products computed elsewhere give forward()'s outputs",
          "[checkpoint-model]") {
    using hirope::model::ForwardSteps;
    Loaded m;
    REQUIRE(load(llama_files(2), &m).ok());
    const Model& model = *m.model;
    CHECK(model.linear_count() == 5 * LAYERS + 1);
    const Model::LinearView head = model.linear_view(5 * LAYERS);
    CHECK((head.out == int(V) && head.in == int(H) && head.format == 0));
    CHECK(model.linear_view(2).out == int(I)); // layer 0's gate
    CHECK(model.linear_view(5 * LAYERS + 1).data == nullptr);
    // 70 rows: the output layer comes in two blocks of rows.
    const int n = 70;
    const std::vector<int32_t> in = ids(n);
    std::vector<int32_t> token(n);
    for (int i = 0; i < n; ++i) token[i] = i;
    auto request = [&](float* logits, float* losses, float* attention) {
        Model::ForwardRequest r;
        r.ids = in.data();
        r.n = n;
        r.positions.token = token.data();
        r.model_schemes = true;
        r.logits = logits;
        r.losses = losses;
        r.attention = attention;
        r.attention_layer = 1;
        r.attention_head = 2;
        return r;
    };
    std::vector<float> logits(n * V), losses(n - 1), attention(n * n);
    REQUIRE(model.forward(request(logits.data(), nullptr, nullptr)).ok());
    REQUIRE(model.forward(request(nullptr, losses.data(), nullptr)).ok());
    REQUIRE(model.forward(request(nullptr, nullptr, attention.data())).ok());
    // Runs a request in steps, each product by `compute`; the count of products.
    auto run = [&](const Model::ForwardRequest& r, bool on_cpu) {
        std::unique_ptr<ForwardSteps> steps;
        const Status st = ForwardSteps::start(model, r, &steps);
        INFO(st.message());
        REQUIRE(st.ok());
        int products = 0;
        while (true) {
            bool more = false;
            ForwardSteps::Product p;
            REQUIRE(steps->next(&more, &p).ok());
            if (!more) break;
            ++products;
            if (p.weight < 0) {
                // A layer's attention: q, k and v of every head (key/value heads repeated).
                CHECK((p.in == int(NH * D) && p.out == p.in && p.k && p.v && p.layer >= 0));
                REQUIRE(steps->apply(p).ok());
            } else if (on_cpu) {
                REQUIRE(steps->apply(p).ok());
            } else {
                product_from_view(model, p);
            }
        }
        bool more = true;
        ForwardSteps::Product p;
        CHECK(steps->next(&more, &p).message() == "the forward is done");
        return products;
    };
    std::vector<float> got_logits(n * V), got_losses(n - 1), got_attention(n * n);
    // Every layer's five linear products and its attention, then the output layer in 64-row
    // blocks.
    CHECK(run(request(got_logits.data(), nullptr, nullptr), false) == 6 * LAYERS + 2);
    CHECK(max_diff(got_logits, logits) < 1e-5);
    CHECK(run(request(nullptr, got_losses.data(), nullptr), false) == 6 * LAYERS + 2);
    CHECK(max_diff(got_losses, losses) < 1e-5);
    // Only one layer's attention: the steps stop after its output product, and that layer
    // attends on the CPU (which writes its probabilities).
    CHECK(run(request(nullptr, nullptr, got_attention.data()), false) == 6 + 2);
    CHECK(max_diff(got_attention, attention) < 1e-6);
    // Logits and losses together; every product on the CPU: forward()'s own numbers.
    std::fill(got_losses.begin(), got_losses.end(), 0.0f);
    run(request(got_logits.data(), got_losses.data(), nullptr), true);
    CHECK(max_diff(got_logits, logits) == 0);
    CHECK(max_diff(got_losses, losses) < 1e-5);
    // The comparison can fail: a product left unwritten changes the logits.
    {
        std::unique_ptr<ForwardSteps> steps;
        REQUIRE(
            ForwardSteps::start(model, request(got_logits.data(), nullptr, nullptr), &steps).ok());
        bool more = true;
        int k = 0;
        ForwardSteps::Product p;
        while (steps->next(&more, &p).ok() && more)
            if (k++ != 3) REQUIRE(steps->apply(p).ok());
        CHECK(max_diff(got_logits, logits) > 1e-3);
    }
    // A layer's attention call: its own scheme (RoPE at the config's base) and mask.
    {
        std::unique_ptr<ForwardSteps> steps;
        REQUIRE(
            ForwardSteps::start(model, request(got_logits.data(), nullptr, nullptr), &steps).ok());
        const std::string call = steps->attention_call(1);
        CHECK(call.find("\"attention\":{\"type\":\"full\"}") != std::string::npos);
        CHECK(call.find("\"type\":\"rope\"") != std::string::npos);
        CHECK(call.find("\"base\":100") != std::string::npos);
        CHECK(steps->attention_call(LAYERS) == "null");
        CHECK(steps->heads() == int(NH));
        CHECK(steps->positions().token[n - 1] == n - 1);
    }
    // A context limit, or bad input, is refused as forward() refuses it.
    Model::ForwardRequest limited = request(logits.data(), nullptr, nullptr);
    limited.limit = {hirope::model::ContextLimitType::sliding_window, 8, 1};
    std::unique_ptr<ForwardSteps> steps;
    CHECK(ForwardSteps::start(model, limited, &steps).message() ==
          "a forward in steps takes no context limit");
    Model::ForwardRequest bad = request(logits.data(), nullptr, nullptr);
    bad.attention = attention.data();
    bad.attention_layer = 9;
    CHECK(ForwardSteps::start(model, bad, &steps).message() == "layer must be in [0, 1], got 9");
}
