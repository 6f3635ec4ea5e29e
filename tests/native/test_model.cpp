// The code model: logits against the trainer's test vectors, the KV-cache decoder against the
// full forward for every scheme, generation, linear layers against a naive product, positions,
// and every kind of bad weights file.
#include "hirope/model.h"
#include "kernels/activation.h"
#include "model/model_internal.h"
#include "util/hash.h"

#include "test_compare.h"
#include "test_files.h"
#include "test_vocabularies.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>

using namespace hirope;
using namespace hirope::model;

namespace {

const std::vector<uint8_t>& weights() {
    static const std::vector<uint8_t> data = read_file("models/pybyte.hrm");
    return data;
}

const Model& shared_model() {
    static std::unique_ptr<Model> m;
    if (!m) {
        INFO("run from the repository root (models/pybyte.hrm)");
        REQUIRE(!weights().empty());
        Status st = Model::load(weights().data(), weights().size(), &m);
        INFO(st.message());
        REQUIRE(st.ok());
    }
    return *m;
}

// A small JSON reader for the test vectors file (trusted input, shallow nesting).
struct Json {
    enum Kind { null, number, string, array, object } kind = null;
    double num = 0;
    std::string str;
    std::vector<Json> items;
    std::map<std::string, Json> fields;
    const Json& operator[](const std::string& k) const { return fields.at(k); }
    bool has(const std::string& k) const { return fields.count(k) != 0; }
};

struct JsonParser {
    const std::string& s;
    size_t i = 0;
    void ws() {
        while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    }
    Json parse() {
        ws();
        Json j;
        if (s[i] == '{') {
            j.kind = Json::object;
            ++i;
            ws();
            if (s[i] == '}') return ++i, j;
            while (true) {
                ws();
                std::string key = parse().str;
                ws();
                ++i; // ':'
                j.fields[key] = parse();
                ws();
                if (s[i++] == '}') break;
            }
        } else if (s[i] == '[') {
            j.kind = Json::array;
            ++i;
            ws();
            if (s[i] == ']') return ++i, j;
            while (true) {
                j.items.push_back(parse());
                ws();
                if (s[i++] == ']') break;
            }
        } else if (s[i] == '"') {
            j.kind = Json::string;
            ++i;
            while (s[i] != '"') j.str += s[i++];
            ++i;
        } else if (s.compare(i, 4, "null") == 0) {
            i += 4;
        } else if (s.compare(i, 4, "true") == 0 || s.compare(i, 5, "false") == 0) {
            j.kind = Json::number;
            j.num = s[i] == 't';
            i += s[i] == 't' ? 4 : 5;
        } else {
            j.kind = Json::number;
            size_t used = 0;
            j.num = std::stod(s.substr(i, 40), &used);
            i += used;
        }
        return j;
    }
};

std::string base64_decode(const std::string& in) {
    auto value = [](char c) -> int {
        if (c >= 'A' && c <= 'Z') return c - 'A';
        if (c >= 'a' && c <= 'z') return c - 'a' + 26;
        if (c >= '0' && c <= '9') return c - '0' + 52;
        return c == '+' ? 62 : c == '/' ? 63 : -1;
    };
    std::string out;
    int bits = 0;
    uint32_t acc = 0;
    for (char c : in) {
        const int v = value(c);
        if (v < 0) continue;
        acc = (acc << 6 | static_cast<uint32_t>(v)) & 0xffffffu; // 4 sextets at most are pending
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out.push_back(static_cast<char>((acc >> bits) & 0xff));
        }
    }
    return out;
}

Scheme base_scheme(const Model& m) {
    Scheme s;
    s.base = m.config().rope_base;
    s.layout = Layout::half;
    s.training_length = m.config().training_context;
    return s;
}

// The trainer's scheme description as a hirope Scheme.
Scheme vector_scheme(const Model& m, const Json& j) {
    Scheme s = base_scheme(m);
    const std::string type = j["type"].str;
    if (type == "rerope") s.type = SchemeType::rerope;
    if (type == "self_extend") s.type = SchemeType::self_extend;
    if (type == "hirope") s.type = SchemeType::hirope;
    if (j.has("scaling")) {
        s.scaling.type = j["scaling"].str == "linear" ? ScalingType::linear : ScalingType::ntk;
        s.scaling.factor = j["factor"].num;
    }
    if (j.has("window")) s.window = static_cast<int64_t>(j["window"].num);
    if (j.has("group")) s.group = static_cast<int64_t>(j["group"].num);
    if (j.has("ratio")) s.ratio = j["ratio"].num;
    return s;
}

std::vector<float> forward_logits(const Model& m, const std::string& text, const Scheme& s,
                                  const BytePositions& p, const ContextLimit& limit = {}) {
    std::vector<float> logits(text.size() * m.config().vocab);
    Model::ForwardRequest r;
    r.bytes = reinterpret_cast<const uint8_t*>(text.data());
    r.n = static_cast<int64_t>(text.size());
    r.scheme = s;
    r.positions = p.view();
    r.logits = logits.data();
    r.limit = limit;
    Status st = m.forward(r);
    INFO(st.message());
    REQUIRE(st.ok());
    return logits;
}

BytePositions segment_positions(int64_t n, int64_t size) {
    BytePositions p;
    HierarchyOptions o;
    o.hierarchy = ByteHierarchy::segments;
    o.segment_size = size;
    REQUIRE(byte_positions(std::string(static_cast<size_t>(n), 'x'), o, &p).ok());
    return p;
}

const std::string kCode =
    "import os\n\n\ndef add(a, b):\n    return a + b\n\n\nclass Point:\n"
    "    def __init__(self, x, y):\n        self.x = x\n        self.y = y\n\n"
    "    def norm(self):\n        return (self.x ** 2 + self.y ** 2) ** 0.5\n";

} // namespace

TEST_CASE("model: logits match the trainer's test vectors within 1e-3", "[model]") {
    const Model& m = shared_model();
    const std::vector<uint8_t> raw = read_file("models/pybyte-vectors.json");
    REQUIRE(!raw.empty());
    const std::string text(raw.begin(), raw.end());
    JsonParser parser{text};
    const Json doc = parser.parse();
    REQUIRE(doc["cases"].items.size() >= 7);
    for (const Json& c : doc["cases"].items) {
        const std::string input = base64_decode(c["input"].str);
        const Scheme s = vector_scheme(m, c["scheme"]);
        BytePositions p = segment_positions(static_cast<int64_t>(input.size()), 1);
        if (c.has("units"))
            for (size_t t = 0; t < input.size(); ++t)
                p.unit[t] = static_cast<int32_t>(c["units"].items[t].num);
        const std::vector<float> logits = forward_logits(m, input, s, p);
        double worst = 0;
        const auto& positions = c["positions"].items;
        for (size_t k = 0; k < positions.size(); ++k) {
            const size_t t = static_cast<size_t>(positions[k].num);
            REQUIRE(c["logits"].items[k].items.size() == 256);
            REQUIRE(logits.size() >= (t + 1) * 256);
            for (int v = 0; v < 256; ++v)
                worst = hirope_test::worse(
                    worst, std::fabs(logits[t * 256 + v] - c["logits"].items[k].items[v].num));
        }
        INFO(c["scheme"]["type"].str << " on " << input.size() << " bytes");
        CHECK(worst < 1e-3);
    }
}

TEST_CASE("model: the KV-cache decoder equals the full forward for every scheme", "[model]") {
    const Model& m = shared_model();
    // Past the training context.
    std::string text = kCode;
    while (static_cast<int>(text.size()) < m.config().training_context + 80) text += kCode;
    const int64_t n = static_cast<int64_t>(text.size());
    HierarchyOptions ho;
    BytePositions p;
    REQUIRE(byte_positions(text, ho, &p).ok());
    std::vector<std::pair<std::string, Scheme>> schemes;
    Scheme s = base_scheme(m);
    schemes.push_back({"rope", s});
    s.scaling.type = ScalingType::linear;
    s.scaling.factor = 4;
    schemes.push_back({"pi", s});
    s.scaling.type = ScalingType::dynamic_ntk;
    s.scaling.factor = 1;
    s.scaling.original_length = m.config().training_context;
    schemes.push_back({"dynamic ntk", s});
    s.scaling.type = ScalingType::yarn;
    s.scaling.factor = 4;
    schemes.push_back({"yarn", s});
    s = base_scheme(m);
    s.type = SchemeType::rerope;
    s.window = 64;
    s.log_n = true;
    schemes.push_back({"rerope log-n", s});
    s.type = SchemeType::leaky_rerope;
    schemes.push_back({"leaky rerope", s});
    s.type = SchemeType::self_extend;
    s.group = 4;
    schemes.push_back({"self-extend", s});
    s = base_scheme(m);
    s.type = SchemeType::hirope;
    s.window = 64;
    s.ratio = 1.0 / 3;
    schemes.push_back({"hirope", s});
    s.levels = 3;
    s.statement_ratio = 1.0 / 3;
    schemes.push_back({"hirope 3 levels", s});
    s = base_scheme(m);
    s.type = SchemeType::xpos;
    schemes.push_back({"xpos", s});
    for (const auto& [name, scheme] : schemes) {
        INFO(name);
        const std::vector<float> full = forward_logits(m, text, scheme, p);
        // Dynamic NTK's frequencies follow the sequence length: the decoder uses those of the
        // final length, as generate() does, and then equals the full forward.
        const bool dynamic = scheme.scaling.type == ScalingType::dynamic_ntk;
        Decoder dec(m, scheme, dynamic ? n : 0);
        std::vector<float> logits(256);
        // A prompt in one block (the attention plan), then byte by byte (the cache).
        const int64_t prompt = 100;
        Status st = dec.append(reinterpret_cast<const uint8_t*>(text.data()), prompt, p.unit.data(),
                               p.statement.data(), logits.data());
        REQUIRE(st.ok());
        double worst = 0;
        for (int v = 0; v < 256; ++v)
            worst = hirope_test::worse(
                worst, static_cast<double>(std::fabs(logits[v] - full[(prompt - 1) * 256 + v])));
        for (int64_t t = prompt; t < n; ++t) {
            st = dec.append(reinterpret_cast<const uint8_t*>(text.data()) + t, 1, p.unit.data() + t,
                            p.statement.data() + t, logits.data());
            REQUIRE(st.ok());
            for (int v = 0; v < 256; ++v)
                worst = hirope_test::worse(
                    worst, static_cast<double>(std::fabs(logits[v] - full[t * 256 + v])));
        }
        CHECK(dec.length() == n);
        CHECK(worst < 1e-3);
    }
}

TEST_CASE("model: greedy generation follows the argmax of repeated full forwards", "[model]") {
    const Model& m = shared_model();
    Scheme s = base_scheme(m);
    s.type = SchemeType::hirope;
    s.window = 64;
    s.ratio = 1.0 / 3;
    GenerateOptions o;
    o.scheme = s;
    o.hierarchy.hierarchy = ByteHierarchy::segments;
    o.max_bytes = 12;
    o.temperature = 0;
    const std::string prompt = kCode.substr(0, 150);
    std::string generated;
    REQUIRE(generate(m, prompt, o, &generated).ok());
    std::string text = prompt;
    for (size_t i = 0; i < generated.size(); ++i) {
        BytePositions p = segment_positions(static_cast<int64_t>(text.size()), 32);
        const std::vector<float> logits = forward_logits(m, text, s, p);
        const float* last = logits.data() + (text.size() - 1) * 256;
        const int best = static_cast<int>(std::max_element(last, last + 256) - last);
        REQUIRE(static_cast<int>(static_cast<uint8_t>(generated[i])) == best);
        text.push_back(static_cast<char>(best));
    }
    // Sampling is repeatable by seed and differs across seeds.
    o.temperature = 1.0;
    o.seed = 7;
    std::string a, b, c;
    REQUIRE(generate(m, prompt, o, &a).ok());
    REQUIRE(generate(m, prompt, o, &b).ok());
    o.seed = 8;
    REQUIRE(generate(m, prompt, o, &c).ok());
    CHECK(a == b);
    CHECK(a != c);
    // Parsed hierarchies re-analyse at newlines.
    o.hierarchy.hierarchy = ByteHierarchy::units;
    o.max_bytes = 80;
    REQUIRE(generate(m, prompt, o, &a).ok());
    CHECK(!a.empty());
}

// The baselines, checked against what they mean rather than against their own code.
TEST_CASE("model: truncate equals the plain model's last prediction on the last L bytes",
          "[model][baselines]") {
    const Model& m = shared_model();
    const Scheme s = base_scheme(m);
    const std::string text = kCode.substr(0, 170);
    const int64_t n = static_cast<int64_t>(text.size()), vocab = m.config().vocab;
    for (int64_t L : {1, 24, 64}) {
        for (int64_t stride : {int64_t{1}, std::min<int64_t>(L, 7), L}) {
            CAPTURE(L, stride);
            ContextLimit limit{ContextLimitType::truncate, L, stride};
            const std::vector<float> got =
                forward_logits(m, text, s, segment_positions(n, 32), limit);
            for (int64_t t = 0; t < n; ++t) {
                // The window serving row t: [0, L) for t < L, else the stride grid's.
                const int64_t start = t < L ? 0 : ((t - L) / stride + 1) * stride;
                const std::string seen = text.substr(start, t - start + 1);
                REQUIRE(static_cast<int64_t>(seen.size()) <= L);
                if (t >= L) REQUIRE(static_cast<int64_t>(seen.size()) > L - stride);
                const std::vector<float> plain = forward_logits(
                    m, seen, s, segment_positions(static_cast<int64_t>(seen.size()), 32));
                const float* a = got.data() + t * vocab;
                const float* b = plain.data() + (seen.size() - 1) * vocab;
                const double worst = hirope_test::max_abs_error(hirope_test::span(a, vocab),
                                                                hirope_test::span(b, vocab));
                CAPTURE(t);
                REQUIRE(worst < 1e-4);
            }
            if (L == 64 && stride == 1) break; // the exact case is the slow one
        }
    }
}

TEST_CASE("model: a sliding window hides exactly the bytes beyond layers x (W - 1)",
          "[model][baselines]") {
    const Model& m = shared_model();
    const Scheme s = base_scheme(m);
    const std::string text = kCode.substr(0, 160);
    const int64_t n = static_cast<int64_t>(text.size()), vocab = m.config().vocab;
    const int64_t W = 16, reach = m.config().layers * (W - 1);
    const BytePositions p = segment_positions(n, 32);
    const ContextLimit limit{ContextLimitType::sliding_window, W, 1};
    const std::vector<float> windowed = forward_logits(m, text, s, p, limit);
    const std::vector<float> plain = forward_logits(m, text, s, p);
    // Rows before W see everything in every layer: equal to the plain model.
    for (int64_t t = 0; t < W; ++t)
        for (int64_t v = 0; v < vocab; ++v)
            REQUIRE(std::fabs(windowed[t * vocab + v] - plain[t * vocab + v]) < 1e-4f);
    // Later rows differ from the plain model ...
    double diff = 0;
    for (int64_t t = reach + 1; t < n; ++t)
        for (int64_t v = 0; v < vocab; ++v)
            diff =
                std::max<double>(diff, std::fabs(windowed[t * vocab + v] - plain[t * vocab + v]));
    CHECK(diff > 1e-2);
    // ... and do not depend on bytes more than layers x (W - 1) back: replacing the first 40
    // bytes leaves every row from 40 + reach on unchanged, and changes a row within reach.
    std::string other = text;
    for (int64_t i = 0; i < 40; ++i) other[i] = static_cast<char>('a' + i % 26);
    const std::vector<float> changed = forward_logits(m, other, s, p, limit);
    for (int64_t t = 40 + reach; t < n; ++t)
        for (int64_t v = 0; v < vocab; ++v)
            REQUIRE(std::fabs(changed[t * vocab + v] - windowed[t * vocab + v]) < 1e-4f);
    double near = 0;
    for (int64_t v = 0; v < vocab; ++v)
        near = std::max<double>(near, std::fabs(changed[(40 + reach - 2) * vocab + v] -
                                                windowed[(40 + reach - 2) * vocab + v]));
    CHECK(near > 1e-6);
    // The attention of every layer's rows sums to 1 over the last W keys only.
    std::vector<float> probs(static_cast<size_t>(n * n));
    Model::ForwardRequest r;
    r.bytes = reinterpret_cast<const uint8_t*>(text.data());
    r.n = n;
    r.scheme = s;
    r.positions = p.view();
    r.attention = probs.data();
    r.attention_layer = m.config().layers - 1;
    r.limit = limit;
    REQUIRE(m.forward(r).ok());
    for (int64_t i = 0; i < n; ++i) {
        double in = 0, out = 0;
        for (int64_t j = 0; j < n; ++j) (i - j >= 0 && i - j < W ? in : out) += probs[i * n + j];
        CAPTURE(i);
        REQUIRE(std::fabs(in - 1) < 1e-5);
        REQUIRE(out == 0);
    }
}

TEST_CASE("model: generation under a baseline follows the argmax of its forwards",
          "[model][baselines]") {
    const Model& m = shared_model();
    const Scheme s = base_scheme(m);
    const std::string prompt = kCode.substr(0, 50);
    for (ContextLimit limit : {ContextLimit{ContextLimitType::truncate, 32, 1},
                               ContextLimit{ContextLimitType::truncate, 32, 5},
                               ContextLimit{ContextLimitType::sliding_window, 20, 1}}) {
        CAPTURE(static_cast<int>(limit.type), limit.stride);
        GenerateOptions o;
        o.scheme = s;
        o.limit = limit;
        o.hierarchy.hierarchy = ByteHierarchy::segments;
        o.max_bytes = 30;
        o.temperature = 0;
        std::string generated;
        Status st = generate(m, prompt, o, &generated);
        INFO(st.message());
        REQUIRE(st.ok());
        REQUIRE(!generated.empty());
        std::string text = prompt;
        // Truncate with stride S: the decoder restarts from the last L - S bytes when full.
        int64_t offset = std::max<int64_t>(0, static_cast<int64_t>(prompt.size()) - limit.length);
        for (size_t i = 0; i < generated.size(); ++i) {
            std::string seen = text;
            if (limit.type == ContextLimitType::truncate) {
                if (static_cast<int64_t>(text.size()) - offset > limit.length)
                    offset = static_cast<int64_t>(text.size()) - (limit.length - limit.stride + 1);
                seen = text.substr(offset);
            }
            const int64_t k = static_cast<int64_t>(seen.size());
            const std::vector<float> logits = forward_logits(
                m, seen, s, segment_positions(k, 32),
                limit.type == ContextLimitType::sliding_window ? limit : ContextLimit{});
            const float* last = logits.data() + (k - 1) * 256;
            const int best = static_cast<int>(std::max_element(last, last + 256) - last);
            CAPTURE(i);
            REQUIRE(static_cast<int>(static_cast<uint8_t>(generated[i])) == best);
            text.push_back(static_cast<char>(best));
        }
    }
}

TEST_CASE("model: bad context limits are errors", "[model][baselines][errors]") {
    const Model& m = shared_model();
    const Scheme s = base_scheme(m);
    for (ContextLimit bad :
         {ContextLimit{ContextLimitType::truncate, 0, 1},
          ContextLimit{ContextLimitType::truncate, 8, 9},
          ContextLimit{ContextLimitType::truncate, 8, 0},
          ContextLimit{ContextLimitType::sliding_window, -3, 1},
          ContextLimit{ContextLimitType::sliding_window, ModelLimits::max_input_bytes + 1, 1},
          ContextLimit{static_cast<ContextLimitType>(7), 8, 1}}) {
        CHECK(!validate(bad).ok());
        std::vector<float> logits(256 * 10);
        Model::ForwardRequest r;
        r.bytes = reinterpret_cast<const uint8_t*>(kCode.data());
        r.n = 10;
        r.scheme = s;
        const BytePositions p = segment_positions(10, 32);
        r.positions = p.view();
        r.logits = logits.data();
        r.limit = bad;
        CHECK(!m.forward(r).ok());
        GenerateOptions o;
        o.scheme = s;
        o.limit = bad;
        std::string out;
        CHECK(!generate(m, "x", o, &out).ok());
    }
    Decoder dec(m, s, 0, ContextLimit{ContextLimitType::truncate, 8, 1});
    float logits[256];
    const uint8_t b = 'x';
    const int32_t zero = 0;
    CHECK(!dec.append(&b, 1, &zero, &zero, logits).ok());
}

TEST_CASE("model: linear layers equal a naive product for any row count", "[model]") {
    const int out = 20, in = 13; // neither a multiple of the tile
    std::vector<float> w(out * in);
    for (size_t i = 0; i < w.size(); ++i) w[i] = std::sin(0.37f * static_cast<float>(i));
    const Linear lin(w, out, in);
    for (int64_t n : {1, 3, 4, 5, 67, 130}) {
        std::vector<float> x(n * in), y(n * out);
        for (size_t i = 0; i < x.size(); ++i) x[i] = std::cos(0.11f * static_cast<float>(i));
        lin.apply(x.data(), n, y.data());
        double worst = 0;
        for (int64_t r = 0; r < n; ++r)
            for (int c = 0; c < out; ++c) {
                double ref = 0;
                for (int k = 0; k < in; ++k)
                    ref += static_cast<double>(x[r * in + k]) * w[c * in + k];
                worst = hirope_test::worse(worst, std::fabs(ref - y[r * out + c]));
            }
        INFO("n = " << n);
        CHECK(worst < 1e-5);
    }
}

TEST_CASE("model: byte positions from units, statements and segments", "[model]") {
    BytePositions p;
    HierarchyOptions o;
    REQUIRE(byte_positions(kCode, o, &p).ok());
    // import (code), add, Point: three units; every byte of `def add` is in the second.
    const size_t def_add = kCode.find("def add"), cls = kCode.find("class Point");
    CHECK(p.unit[0] == 0);
    CHECK(p.unit[def_add] == 1);
    CHECK(p.unit[cls - 1] == 1);
    CHECK(p.unit[cls] == 2);
    CHECK(p.unit.back() == 2);
    for (size_t t = 1; t < kCode.size(); ++t) CHECK(p.statement[t] >= p.statement[t - 1]);
    o.hierarchy = ByteHierarchy::statements;
    BytePositions q;
    REQUIRE(byte_positions(kCode, o, &q).ok());
    CHECK(q.unit == p.statement);
    CHECK(q.unit.back() > 5);
    o.hierarchy = ByteHierarchy::segments;
    o.segment_size = 10;
    REQUIRE(byte_positions(kCode, o, &q).ok());
    CHECK(q.unit[9] == 0);
    CHECK(q.unit[10] == 1);
    o.segment_size = 0;
    CHECK(!byte_positions(kCode, o, &q).ok());
}

TEST_CASE("model: bad weights files are errors and leave nothing loaded", "[model][errors]") {
    const std::vector<uint8_t>& good = weights();
    REQUIRE(good.size() > 1000);
    auto load_error = [](const std::vector<uint8_t>& data) {
        std::unique_ptr<Model> m;
        Status st = Model::load(data.data(), data.size(), &m);
        CHECK(m == nullptr);
        return st.ok() ? std::string() : st.message();
    };
    // Truncated anywhere: header, parameters, checksum.
    for (size_t len :
         {size_t(0), size_t(5), size_t(12), size_t(40), good.size() / 2, good.size() - 1}) {
        const std::vector<uint8_t> cut(good.begin(), good.begin() + static_cast<long>(len));
        const std::string e = load_error(cut);
        INFO(len << ": " << e);
        CHECK(!e.empty());
    }
    CHECK(load_error({good.begin(), good.begin() + 40}).find("truncated") != std::string::npos);
    // One flipped bit in the weights: the checksum.
    std::vector<uint8_t> bad = good;
    bad[bad.size() / 2] ^= 0x10;
    CHECK(load_error(bad).find("corrupted") != std::string::npos);
    // Another format version (with a valid checksum): named as such.
    bad = good;
    bad[8] = 2;
    const uint32_t h = util::fnv1a(bad.data(), bad.size() - 4);
    std::memcpy(bad.data() + bad.size() - 4, &h, 4);
    CHECK(load_error(bad).find("version 2 is not supported") != std::string::npos);
    // Not a model at all; trailing bytes.
    CHECK(load_error(std::vector<uint8_t>(100, 'x')).find("not a hirope model") !=
          std::string::npos);
    bad = good;
    bad.push_back(0);
    CHECK(load_error(bad).find("unexpected bytes") != std::string::npos);
    Config c;
    REQUIRE(read_config(good.data(), good.size(), &c).ok());
    // The dimensions the trainer's config names.
    const std::vector<uint8_t> raw = read_file("training/models/pybyte/config.json");
    const std::string cfg(raw.begin(), raw.end());
    const auto value = [&](const std::string& key) {
        const size_t at = cfg.find("\"" + key + "\":");
        REQUIRE(at != std::string::npos);
        return std::stoi(cfg.substr(cfg.find(':', at) + 1));
    };
    CHECK(c.layers == value("layers"));
    CHECK(c.d_model == value("d_model"));
    CHECK(c.training_context == value("context"));
    const int64_t d = value("d_model");
    CHECK(c.parameters() ==
          256 * d + value("layers") * (2 * d + 4 * d * d + 3 * d * value("ffn_hidden")) + d);
}

TEST_CASE("model: bad requests are errors", "[model][errors]") {
    const Model& m = shared_model();
    const std::string text = "x = 1\n";
    BytePositions p = segment_positions(static_cast<int64_t>(text.size()), 4);
    Model::ForwardRequest r;
    r.bytes = reinterpret_cast<const uint8_t*>(text.data());
    r.n = static_cast<int64_t>(text.size());
    r.scheme = base_scheme(m);
    r.positions = p.view();
    std::vector<float> attn(r.n * r.n);
    r.attention = attn.data();
    const int last = m.config().layers - 1;
    r.attention_layer = last + 1;
    CHECK(m.forward(r).message().find("layer must be in [0, " + std::to_string(last) + "]") !=
          std::string::npos);
    r.attention_layer = last;
    r.attention_head = 0;
    REQUIRE(m.forward(r).ok());
    for (int64_t i = 0; i < r.n; ++i) {
        double sum = 0;
        for (int64_t j = 0; j < r.n; ++j) sum += attn[i * r.n + j];
        CHECK(std::fabs(sum - 1) < 1e-5);
        CHECK(attn[i * r.n + r.n - 1] == (i == r.n - 1 ? attn[i * r.n + r.n - 1] : 0.0f));
    }
    r.scheme.type = SchemeType::alibi;
    CHECK(m.forward(r).message().find("trained with RoPE") != std::string::npos);
    // The half-layout rule is the model's own (check_scheme), not only the bindings'.
    r.scheme = base_scheme(m);
    r.scheme.layout = Layout::interleaved;
    CHECK(m.forward(r).message() ==
          "the code model rotates in the half-split layout: scheme.layout must be 'half'");
    r.scheme.type = SchemeType::nope; // takes no layout
    CHECK(m.forward(r).ok());
    r.scheme = base_scheme(m);
    r.n = ModelLimits::max_input_bytes + 1;
    CHECK(m.forward(r).message().find("limit") != std::string::npos);
    GenerateOptions o;
    o.scheme = base_scheme(m);
    o.max_bytes = ModelLimits::max_input_bytes;
    std::string out;
    CHECK(generate(m, text, o, &out).message().find("exceeds the model's limit") !=
          std::string::npos);
    CHECK(!generate(m, "", GenerateOptions{}, &out).ok());
}

TEST_CASE("model: the SwiGLU gate equals u * sigmoid(u) * g", "[model]") {
    std::vector<float> a, g, ref;
    for (int i = 0; i <= 1203; ++i) { // not a multiple of 4: the scalar tail too
        const float u = -40.0f + 80.0f * static_cast<float>(i) / 1203.0f;
        a.push_back(u);
        g.push_back(0.5f + 0.001f * static_cast<float>(i));
        ref.push_back(static_cast<float>(u / (1.0 + std::exp(-static_cast<double>(u))) * g.back()));
    }
    kernels::silu_gate(a.data(), g.data(), a.size());
    for (size_t i = 0; i < a.size(); ++i) {
        INFO("u index " << i);
        CHECK(std::fabs(a[i] - ref[i]) <= 1e-6f * (1.0f + std::fabs(ref[i])));
    }
}

// ---------------------------------------------------------------------------------------------
// Token models: a file that names a tokenizer reads its ids.

namespace {

// A small model file written here, byte by byte as docs/model.md describes the format:
// deterministic small weights, flags and tokenizer name as given.
std::vector<uint8_t> tiny_model_file(uint32_t vocab, uint32_t flags, const std::string& tokenizer,
                                     int d = 8, int layers = 1, int heads = 2, int ffn = 16) {
    std::vector<uint8_t> out;
    auto u32 = [&](uint32_t v) {
        for (int k = 0; k < 4; ++k) out.push_back(static_cast<uint8_t>(v >> (8 * k)));
    };
    auto f32 = [&](float f) {
        uint32_t v;
        std::memcpy(&v, &f, 4);
        u32(v);
    };
    auto text = [&](const std::string& s) {
        u32(static_cast<uint32_t>(s.size()));
        out.insert(out.end(), s.begin(), s.end());
        while (out.size() % 4) out.push_back(0);
    };
    for (char c : std::string("HRPMODEL")) out.push_back(static_cast<uint8_t>(c));
    for (uint32_t v :
         {1u, vocab, uint32_t(d), uint32_t(layers), uint32_t(heads), uint32_t(ffn), 64u})
        u32(v);
    f32(10000.0f);
    f32(1e-5f);
    u32(flags);
    text("tiny");
    if (flags & 2) text(tokenizer);
    const uint64_t count =
        uint64_t(vocab) * d + uint64_t(layers) * (2 * d + 4 * d * d + 3 * d * ffn) + d;
    u32(static_cast<uint32_t>(count));
    for (uint64_t i = 0; i < count; ++i) {
        // fp16 values of magnitude 2^-6 .. 2^-3 with varying signs and mantissas
        const uint16_t h = static_cast<uint16_t>(((i * 7919) % 2 ? 0x8000 : 0) |
                                                 (0x2400 + (i * 2654435761u) % 0x0C00));
        out.push_back(static_cast<uint8_t>(h));
        out.push_back(static_cast<uint8_t>(h >> 8));
    }
    while (out.size() % 4) out.push_back(0);
    u32(util::fnv1a(out.data(), out.size()));
    return out;
}

std::string load_message(const std::vector<uint8_t>& data, std::unique_ptr<Model>* out = nullptr) {
    std::unique_ptr<Model> m;
    Status st = Model::load(data.data(), data.size(), &m);
    if (out) *out = std::move(m);
    return st.ok() ? std::string() : st.message();
}

const Model& shared_token_model() {
    static std::unique_ptr<Model> m;
    if (!m) {
        static const std::vector<uint8_t> data = read_file("models/pyjs-llama2.hrm");
        INFO("run from the repository root (models/pyjs-llama2.hrm)");
        REQUIRE(!data.empty());
        Status st = Model::load(data.data(), data.size(), &m);
        INFO(st.message());
        REQUIRE(st.ok());
    }
    return *m;
}

std::vector<float> forward_ids(const Model& m, const std::vector<int32_t>& ids, const Scheme& s,
                               const Positions& p) {
    std::vector<float> logits(ids.size() * m.config().vocab);
    Model::ForwardRequest r;
    r.ids = ids.data();
    r.n = static_cast<int64_t>(ids.size());
    r.scheme = s;
    r.positions = p;
    r.logits = logits.data();
    Status st = m.forward(r);
    INFO(st.message());
    REQUIRE(st.ok());
    return logits;
}

} // namespace

TEST_CASE("model: a token model's file names its tokenizer; bad token headers are errors",
          "[model][tokens][errors]") {
    std::unique_ptr<Model> m;
    REQUIRE(load_message(tiny_model_file(300, 3, "llama2"), &m).empty());
    CHECK(m->config().tokenizer == "llama2");
    CHECK(m->config().vocab == 300);
    Config c;
    const std::vector<uint8_t> file = tiny_model_file(300, 3, "llama2");
    REQUIRE(read_config(file.data(), file.size(), &c).ok());
    CHECK(c.tokenizer == "llama2");
    // A byte model's file names none.
    REQUIRE(read_config(weights().data(), weights().size(), &c).ok());
    CHECK(c.tokenizer.empty());
    CHECK(load_message(tiny_model_file(300, 3, "")).find("empty tokenizer") != std::string::npos);
    CHECK(load_message(tiny_model_file(300, 1, "")).find("vocabulary must be 256") !=
          std::string::npos);
    CHECK(load_message(tiny_model_file(1, 3, "llama2")).find("must be in [2, ") !=
          std::string::npos);
    CHECK(load_message(tiny_model_file(300, 2, "llama2")).find("flags 2 are not supported") !=
          std::string::npos);
    CHECK(load_message(tiny_model_file(300, 3, std::string(300, 'x'))).find("over 256 bytes") !=
          std::string::npos);
    // Cut inside the tokenizer name.
    std::vector<uint8_t> cut = tiny_model_file(300, 3, "llama2");
    cut.resize(66);
    CHECK(load_message(cut).find("truncated") != std::string::npos);
}

TEST_CASE("model: the fused loss (blocked output projection, log-sum-exp per block) equals the "
          "logits' cross-entropy",
          "[model][tokens][kernels]") {
    // A vocabulary over two 4,096-column blocks with a tail that is no multiple of the tile, and
    // more rows than one 64-row block; plain, sliding-window and truncated forwards.
    const int vocab = 9001;
    std::unique_ptr<Model> m;
    REQUIRE(load_message(tiny_model_file(vocab, 3, "llama2"), &m).empty());
    std::vector<int32_t> ids;
    for (int t = 0; t < 150; ++t) ids.push_back((t * 7919 + 13) % vocab);
    const int64_t n = static_cast<int64_t>(ids.size());
    BytePositions p = segment_positions(n, 16);
    const Scheme s = base_scheme(*m);
    for (const ContextLimit limit :
         {ContextLimit{}, ContextLimit{ContextLimitType::sliding_window, 40, 1},
          ContextLimit{ContextLimitType::truncate, 48, 6}}) {
        INFO("limit type " << static_cast<int>(limit.type));
        std::vector<float> logits(static_cast<size_t>(n) * vocab), losses(n - 1, -1.0f);
        Model::ForwardRequest r;
        r.ids = ids.data();
        r.n = n;
        r.scheme = s;
        r.positions = p.view();
        r.limit = limit;
        r.logits = logits.data();
        REQUIRE(m->forward(r).ok());
        r.logits = nullptr;
        r.losses = losses.data();
        REQUIRE(m->forward(r).ok());
        double worst = 0;
        for (int64_t t = 0; t + 1 < n; ++t) {
            const float* row = logits.data() + t * vocab;
            double mx = row[0], sum = 0;
            for (int v = 1; v < vocab; ++v) mx = std::max(mx, static_cast<double>(row[v]));
            for (int v = 0; v < vocab; ++v) sum += std::exp(row[v] - mx);
            const double bits = (std::log(sum) - (row[ids[t + 1]] - mx)) / std::log(2.0);
            worst = hirope_test::worse(worst, std::fabs(losses[t] - bits));
        }
        CHECK(worst < 1e-4);
    }
}

TEST_CASE("model: the log-sum-exp kernels and a column range of the packed product equal the "
          "scalar reference",
          "[model][kernels]") {
    for (size_t len : {1, 3, 4, 15, 16, 17, 4096, 4103}) {
        std::vector<float> x(len);
        for (size_t i = 0; i < len; ++i)
            x[i] = 9.0f * std::sin(0.71f * static_cast<float>(i) + 0.3f);
        double mx = x[0], sum = 0;
        for (float v : x) mx = std::max(mx, static_cast<double>(v));
        for (float v : x) sum += std::exp(v - mx);
        INFO("len " << len);
        CHECK(kernels::max_row(x.data(), len) == static_cast<float>(mx));
        CHECK(std::fabs(kernels::sum_exp_row(x.data(), len, static_cast<float>(mx)) - sum) <=
              1e-6 * sum);
    }
    const int out = 37, in = 13;
    std::vector<float> w(out * in);
    for (size_t i = 0; i < w.size(); ++i) w[i] = std::sin(0.37f * static_cast<float>(i));
    const Linear lin(w, out, in);
    for (int64_t n : {1, 5, 70}) {
        std::vector<float> x(n * in);
        for (size_t i = 0; i < x.size(); ++i) x[i] = std::cos(0.11f * static_cast<float>(i));
        for (const auto [c0, cols] : {std::pair<int, int>{0, out}, {8, 16}, {24, 20}, {32, 5}}) {
            const int width = std::min(cols, out - c0);
            std::vector<float> y(n * width, -7.0f);
            lin.apply_columns(x.data(), n, c0, cols, y.data(), width);
            double worst = 0;
            for (int64_t r = 0; r < n; ++r)
                for (int c = 0; c < width; ++c) {
                    double ref = 0;
                    for (int k = 0; k < in; ++k)
                        ref += static_cast<double>(x[r * in + k]) * w[(c0 + c) * in + k];
                    worst = hirope_test::worse(worst, std::fabs(ref - y[r * width + c]));
                }
            INFO("n " << n << ", columns " << c0 << " + " << cols);
            CHECK(worst < 1e-5);
        }
    }
}

TEST_CASE("model: a token model reads ids below its vocabulary, not bytes",
          "[model][tokens][errors]") {
    std::unique_ptr<Model> m;
    REQUIRE(load_message(tiny_model_file(300, 3, "llama2"), &m).empty());
    const std::vector<int32_t> ids = {5, 299, 0, 17, 42};
    BytePositions p = segment_positions(5, 2);
    Scheme s = base_scheme(*m);
    const std::vector<float> logits = forward_ids(*m, ids, s, p.view());
    // losses[t] = -log2 softmax(logits[t])[ids[t + 1]], computed here in double.
    std::vector<float> losses(ids.size() - 1);
    Model::ForwardRequest r;
    r.ids = ids.data();
    r.n = 5;
    r.scheme = s;
    r.positions = p.view();
    r.losses = losses.data();
    REQUIRE(m->forward(r).ok());
    for (size_t t = 0; t + 1 < ids.size(); ++t) {
        const float* row = logits.data() + t * 300;
        double sum = 0;
        for (int v = 0; v < 300; ++v) sum += std::exp(static_cast<double>(row[v]));
        const double bits = -(row[ids[t + 1]] - std::log(sum)) / std::log(2.0);
        CHECK(std::fabs(losses[t] - bits) < 1e-4);
    }
    std::vector<int32_t> bad = ids;
    bad[3] = 300;
    r.ids = bad.data();
    CHECK(m->forward(r).message().find(
              "token id 300 at 3 is outside the model's vocabulary of 300") != std::string::npos);
    bad[3] = -1;
    CHECK(m->forward(r).message().find("outside") != std::string::npos);
    const uint8_t bytes[5] = {1, 2, 3, 4, 5};
    r.ids = nullptr;
    r.bytes = bytes;
    CHECK(m->forward(r).message().find("reads llama2 token ids, not bytes") != std::string::npos);
    r.ids = ids.data();
    CHECK(!m->forward(r).ok());
    Decoder dec(*m, s);
    std::vector<float> row(300);
    CHECK(dec.append(bytes, 5, p.unit.data(), p.statement.data(), row.data())
              .message()
              .find("not bytes") != std::string::npos);
    CHECK(dec.append(bad.data(), 5, p.unit.data(), p.statement.data(), row.data())
              .message()
              .find("outside") != std::string::npos);
    CHECK(dec.length() == 0);
    REQUIRE(dec.append(ids.data(), 5, p.unit.data(), p.statement.data(), row.data()).ok());
    for (int v = 0; v < 300; ++v) CHECK(std::fabs(row[v] - logits[4 * 300 + v]) < 1e-4);
    // Generation needs the named tokenizer; a byte model takes none.
    GenerateOptions o;
    o.scheme = s;
    std::string out;
    CHECK(generate(*m, "x = 1", o, &out).message().find("needs that tokenizer") !=
          std::string::npos);
    o.vocabulary = &test_vocabulary("cl100k");
    CHECK(generate(*m, "x = 1", o, &out).message().find("not cl100k tokens") != std::string::npos);
    o.scheme = base_scheme(shared_model());
    CHECK(generate(shared_model(), "x = 1", o, &out).message().find("takes no tokenizer") !=
          std::string::npos);
}

TEST_CASE("model: token positions: the vocabulary's tokens, each with its first byte's unit",
          "[model][tokens]") {
    const Vocabulary& v = test_vocabulary("llama2");
    std::vector<Token> tokens;
    v.encode(kCode, &tokens);
    HierarchyOptions o;
    for (ByteHierarchy h : {ByteHierarchy::units, ByteHierarchy::statements}) {
        o.hierarchy = h;
        TokenPositions tp;
        REQUIRE(token_positions(kCode, v, o, &tp).ok());
        BytePositions bp;
        REQUIRE(byte_positions(kCode, o, &bp).ok());
        REQUIRE(tp.ids.size() == tokens.size());
        for (size_t k = 0; k < tokens.size(); ++k) {
            CHECK(tp.ids[k] == tokens[k].id);
            CHECK(tp.start[k] == tokens[k].start);
            CHECK(tp.end[k] == tokens[k].end);
            CHECK(tp.token[k] == static_cast<int32_t>(k));
            CHECK(tp.unit[k] == bp.unit[tokens[k].start]);
            CHECK(tp.statement[k] == bp.statement[tokens[k].start]);
        }
    }
    // By hand: the tokens that start "def add" and "class Point" lie in different top-level
    // units, after the one of "import".
    o.hierarchy = ByteHierarchy::units;
    TokenPositions tp;
    REQUIRE(token_positions(kCode, v, o, &tp).ok());
    auto unit_at = [&](const std::string& what) {
        const size_t at = kCode.find(what);
        for (size_t k = 0; k < tp.ids.size(); ++k)
            if (tp.start[k] <= at && at < tp.end[k]) return tp.unit[k];
        FAIL("no token at " << what);
        return -1;
    };
    CHECK(unit_at("import") < unit_at("def add"));
    CHECK(unit_at("def add") < unit_at("class Point"));
    CHECK(unit_at("class Point") == unit_at("def norm"));
    // Segments count tokens, not bytes.
    o.hierarchy = ByteHierarchy::segments;
    o.segment_size = 4;
    REQUIRE(token_positions(kCode, v, o, &tp).ok());
    for (size_t k = 0; k < tp.ids.size(); ++k) {
        CHECK(tp.unit[k] == static_cast<int32_t>(k / 4));
        CHECK(tp.statement[k] == tp.unit[k]);
    }
    o.segment_size = 0;
    CHECK(!token_positions(kCode, v, o, &tp).ok());
}

TEST_CASE("model: the token model's logits match the trainer's test vectors within 1e-3",
          "[model][tokens]") {
    const Model& m = shared_token_model();
    CHECK(m.config().tokenizer == "llama2");
    const std::vector<uint8_t> raw = read_file("models/pyjs-llama2-vectors.json");
    REQUIRE(!raw.empty());
    const std::string text(raw.begin(), raw.end());
    JsonParser parser{text};
    const Json doc = parser.parse();
    REQUIRE(doc["tokenizer"].str == "llama2");
    REQUIRE(doc["cases"].items.size() >= 7);
    const Vocabulary& v = test_vocabulary("llama2");
    const int vocab = m.config().vocab;
    // The trainer keeps every stride-th logit of a row (ids 0, stride, 2 stride, ...).
    const int stride = doc.has("vocab_stride") ? static_cast<int>(doc["vocab_stride"].num) : 1;
    for (const Json& c : doc["cases"].items) {
        std::vector<int32_t> ids;
        for (const Json& id : c["ids"].items) ids.push_back(static_cast<int32_t>(id.num));
        // The trainer's ids are hirope's tokens of the input (its tokenizer is this one).
        std::vector<Token> tokens;
        v.encode(base64_decode(c["input"].str), &tokens);
        REQUIRE(tokens.size() == ids.size());
        for (size_t k = 0; k < ids.size(); ++k) REQUIRE(tokens[k].id == ids[k]);
        const Scheme s = vector_scheme(m, c["scheme"]);
        BytePositions p = segment_positions(static_cast<int64_t>(ids.size()), 1);
        if (c.has("units"))
            for (size_t t = 0; t < ids.size(); ++t)
                p.unit[t] = static_cast<int32_t>(c["units"].items[t].num);
        const std::vector<float> logits = forward_ids(m, ids, s, p.view());
        double worst = 0;
        const auto& positions = c["positions"].items;
        for (size_t k = 0; k < positions.size(); ++k) {
            const size_t t = static_cast<size_t>(positions[k].num);
            const auto& row = c["logits"].items[k].items;
            REQUIRE(row.size() == static_cast<size_t>((vocab + stride - 1) / stride));
            for (size_t x = 0; x < row.size(); ++x)
                worst = hirope_test::worse(worst,
                                           std::fabs(logits[t * vocab + x * stride] - row[x].num));
        }
        INFO(c["scheme"]["type"].str << " on " << ids.size() << " tokens");
        CHECK(worst < 1e-3);
    }
}

TEST_CASE("model: the token model's decoder equals its forward; greedy generation its argmax",
          "[model][tokens]") {
    const Model& m = shared_token_model();
    const Vocabulary& v = test_vocabulary("llama2");
    const int vocab = m.config().vocab;
    std::string text = kCode;
    while (text.size() < 1200) text += kCode;
    HierarchyOptions ho;
    TokenPositions tp;
    REQUIRE(token_positions(text, v, ho, &tp).ok());
    const int64_t n = static_cast<int64_t>(tp.ids.size());
    REQUIRE(n > m.config().training_context);
    Scheme s = base_scheme(m);
    s.type = SchemeType::hirope;
    s.window = 128;
    s.ratio = 1.0 / 3;
    const std::vector<float> full = forward_ids(m, tp.ids, s, tp.view());
    Decoder dec(m, s);
    std::vector<float> logits(vocab);
    const int64_t prompt = 200;
    REQUIRE(
        dec.append(tp.ids.data(), prompt, tp.unit.data(), tp.statement.data(), logits.data()).ok());
    double worst = 0;
    for (int64_t t = prompt; t < n; ++t) {
        REQUIRE(dec.append(tp.ids.data() + t, 1, tp.unit.data() + t, tp.statement.data() + t,
                           logits.data())
                    .ok());
        for (int x = 0; x < vocab; ++x)
            worst = hirope_test::worse(
                worst, static_cast<double>(std::fabs(logits[x] - full[t * vocab + x])));
    }
    CHECK(worst < 1e-3);

    // Greedy generation on segments: each sampled token is the argmax of a full forward over the
    // prompt's tokens and the tokens sampled so far; the text is their bytes.
    GenerateOptions o;
    o.scheme = s;
    o.vocabulary = &v;
    o.hierarchy.hierarchy = ByteHierarchy::segments;
    o.hierarchy.segment_size = 16;
    o.max_bytes = 24;
    o.temperature = 0;
    const std::string prompt_text = kCode.substr(0, 150);
    std::string generated;
    REQUIRE(generate(m, prompt_text, o, &generated).ok());
    std::vector<Token> encoded;
    v.encode(prompt_text, &encoded);
    std::vector<int32_t> ids;
    for (const Token& t : encoded) ids.push_back(t.id);
    std::string replay;
    while (replay.size() < generated.size()) {
        BytePositions p = segment_positions(static_cast<int64_t>(ids.size()), 16);
        const std::vector<float> l = forward_ids(m, ids, s, p.view());
        const float* last = l.data() + (ids.size() - 1) * vocab;
        const int32_t best = static_cast<int32_t>(std::max_element(last, last + vocab) - last);
        const std::string_view piece = v.token_bytes(best);
        REQUIRE(!piece.empty());
        replay += piece;
        ids.push_back(best);
    }
    CHECK(replay == generated);
    CHECK(generated.size() >= 24);
    // Units re-analysed at newlines; sampling repeatable by seed.
    o.hierarchy.hierarchy = ByteHierarchy::units;
    o.temperature = 1.0;
    o.seed = 3;
    o.max_bytes = 60;
    std::string a, b;
    REQUIRE(generate(m, prompt_text, o, &a).ok());
    REQUIRE(generate(m, prompt_text, o, &b).ok());
    CHECK(a == b);
}

TEST_CASE("model: scheme defaults and baselines are the core's", "[model]") {
    Config c;
    c.training_context = 256;
    c.rope_base = 10000;
    std::vector<SchemeDefault> d;
    auto value = [&](const std::string& key) -> const SchemeDefault* {
        for (const SchemeDefault& x : d)
            if (x.key == key) return &x;
        return nullptr;
    };
    const std::string yarn = "yarn", none = "none";
    REQUIRE(model_scheme_defaults(c, "rope", "'rope'", &yarn, &d).ok());
    REQUIRE(value("base"));
    CHECK(value("base")->number == 10000);
    CHECK(value("layout")->name == "half");
    CHECK(value("scaling.originalLength")->number == 256);
    CHECK(!value("window"));
    REQUIRE(model_scheme_defaults(c, "rope", "'rope'", &none, &d).ok());
    CHECK(!value("scaling.originalLength")); // no originalLength without a scaling that takes it
    REQUIRE(model_scheme_defaults(c, "hirope", "'hirope'", nullptr, &d).ok());
    CHECK(value("window")->number == 128);
    CHECK(value("trainingLength")->number == 256);
    REQUIRE(model_scheme_defaults(c, "nope", "'nope'", nullptr, &d).ok());
    CHECK(d.empty());
    const Status bad = model_scheme_defaults(c, "alibi", "'alibi'", nullptr, &d);
    CHECK(bad.message().rfind("the code model was trained with RoPE: scheme.type must be one of "
                              "'rope', ",
                              0) == 0);
    CHECK(bad.message().find("'nope', 'sliding-window' or 'truncate', got 'alibi'") !=
          std::string::npos);

    // Baselines: the training context, the stride length / 8 (at least 1), ranges named.
    CHECK(truncate_stride(256) == 32);
    CHECK(truncate_stride(7) == 1);
    UserNumber absent, length, stride;
    length.present = length.number = true;
    ContextLimit l;
    REQUIRE(model_baseline(c, 8192, ContextLimitType::truncate, absent, absent, &l).ok());
    CHECK((l.length == 256 && l.stride == 32));
    length.value = 100;
    REQUIRE(model_baseline(c, 8192, ContextLimitType::truncate, length, absent, &l).ok());
    CHECK((l.length == 100 && l.stride == 12));
    REQUIRE(model_baseline(c, 8192, ContextLimitType::sliding_window, absent, absent, &l).ok());
    CHECK((l.type == ContextLimitType::sliding_window && l.length == 256 && l.stride == 1));
    length.value = 8;
    stride.present = stride.number = true;
    stride.value = 9;
    stride.shown = "9";
    CHECK(model_baseline(c, 8192, ContextLimitType::truncate, length, stride, &l).message() ==
          "scheme.stride must be an integer in [1, 8], got 9");
    length.value = 2.5;
    length.shown = "2.5";
    CHECK(model_baseline(c, 8192, ContextLimitType::sliding_window, length, absent, &l).message() ==
          "scheme.window must be an integer in [1, 8192], got 2.5");
    length.number = false;
    length.shown = "'x'";
    CHECK(model_baseline(c, 8192, ContextLimitType::truncate, length, absent, &l).message() ==
          "scheme.length must be an integer in [1, 8192], got 'x'");
}
