// Attention per layer of a real model: masks (full, sliding, chunked), sinks and the query
// temperature, through both kernels, against a plain double-precision reference written here from
// transformers' definitions (docs/real-models.md): key k is seen by query q when k <= q and, for
// sliding, q - k < window, for chunked, floor(q / C) == floor(k / C); a sink is one more softmax
// column per head, dropped after the softmax; the query of position p is multiplied by
// 1 + scale * ln(floor((p + offset) / floor_scale) + 1). RoPE by hand: half layout, theta_j =
// base^(-2j / d), rotation by the position times theta_j.
#include "hirope/hirope.h"
#include "test_compare.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

using namespace hirope;

namespace {

struct LayerCase {
    AttentionKind kind = AttentionKind::full;
    int64_t window = 0, chunk = 0;
    bool sinks = false;
    QueryTemperature temperature;
    std::string name() const {
        std::string s = attention_kind_name(kind);
        if (kind == AttentionKind::sliding) s += " window " + std::to_string(window);
        if (kind == AttentionKind::chunked) s += " chunk " + std::to_string(chunk);
        if (sinks) s += " sinks";
        if (temperature.enabled) s += " temperature";
        return s;
    }
};

struct Data {
    int64_t n;
    int hd, heads;
    std::vector<float> q, k, v, sinks;
    std::vector<int32_t> tok;
    Data(int64_t n_, int hd_, int heads_) : n(n_), hd(hd_), heads(heads_) {
        const int64_t size = n * hd * heads;
        std::vector<int32_t> ids(n);
        for (int64_t t = 0; t < n; ++t) ids[t] = static_cast<int32_t>(t), tok.push_back(ids[t]);
        q.resize(size), k.resize(size), v.resize(size);
        seeded_vectors(11, ids.data(), n, hd * heads, 0, q.data());
        seeded_vectors(11, ids.data(), n, hd * heads, 1, k.data());
        seeded_vectors(11, ids.data(), n, hd * heads, 2, v.data());
        for (int h = 0; h < heads; ++h) sinks.push_back(0.75f - 0.9f * h); // above and below 0
    }
    AttentionRequest request(const LayerCase& c, bool rope, Output out) const {
        AttentionRequest r;
        r.q = q.data(), r.k = k.data(), r.v = v.data();
        r.n = n, r.head_dim = hd, r.heads = heads;
        r.positions = Positions{tok.data()};
        r.scheme.type = rope ? SchemeType::rope : SchemeType::nope;
        r.output = out;
        r.mask_kind = c.kind, r.window = c.window, r.chunk_size = c.chunk;
        if (c.sinks) r.sinks = sinks.data();
        r.temperature = c.temperature;
        return r;
    }
};

// The plain reference: logits (masked -inf), probabilities (masked 0) and outputs of head h.
struct Want {
    std::vector<double> logits, probs, out; // n x n, n x n, n x hd
};

Want reference(const Data& d, const LayerCase& c, bool rope, int h) {
    const int64_t n = d.n;
    const int hd = d.hd, half = hd / 2, width = hd * d.heads;
    auto rotated = [&](const std::vector<float>& x, int64_t t) {
        std::vector<double> r(hd);
        for (int i = 0; i < hd; ++i) r[i] = x[t * width + h * hd + i];
        if (!rope) return r;
        std::vector<double> o(r);
        for (int j = 0; j < half; ++j) {
            const double angle = t * std::pow(10000.0, -2.0 * j / hd);
            o[j] = r[j] * std::cos(angle) - r[j + half] * std::sin(angle);
            o[j + half] = r[j + half] * std::cos(angle) + r[j] * std::sin(angle);
        }
        return o;
    };
    auto seen = [&](int64_t qi, int64_t kj) {
        if (kj > qi) return false;
        if (c.kind == AttentionKind::sliding) return qi - kj < c.window;
        if (c.kind == AttentionKind::chunked) return qi / c.chunk == kj / c.chunk;
        return true;
    };
    const QueryTemperature& t = c.temperature;
    Want w;
    w.logits.assign(n * n, -std::numeric_limits<double>::infinity());
    w.probs.assign(n * n, 0.0);
    w.out.assign(n * hd, 0.0);
    for (int64_t i = 0; i < n; ++i) {
        const double qs =
            t.enabled ? 1 + t.scale * std::log(std::floor(double(i + t.offset) / t.floor_scale) + 1)
                      : 1.0;
        const std::vector<double> qi = rotated(d.q, i);
        double m = c.sinks ? d.sinks[h] : -std::numeric_limits<double>::infinity();
        for (int64_t j = 0; j < n; ++j) {
            if (!seen(i, j)) continue;
            const std::vector<double> kj = rotated(d.k, j);
            double dot = 0;
            for (int e = 0; e < hd; ++e) dot += qs * qi[e] * kj[e];
            w.logits[i * n + j] = dot / std::sqrt(double(hd));
            m = std::max(m, w.logits[i * n + j]);
        }
        double sum = c.sinks ? std::exp(d.sinks[h] - m) : 0.0;
        for (int64_t j = 0; j < n; ++j)
            if (seen(i, j)) sum += std::exp(w.logits[i * n + j] - m);
        for (int64_t j = 0; j < n; ++j)
            if (seen(i, j)) {
                w.probs[i * n + j] = std::exp(w.logits[i * n + j] - m) / sum;
                for (int e = 0; e < hd; ++e)
                    w.out[i * hd + e] += w.probs[i * n + j] * d.v[j * width + h * hd + e];
            }
    }
    return w;
}

void check_close(const std::vector<float>& got, const std::vector<double>& want, double tol,
                 const std::string& what) {
    size_t where = 0;
    const double worst = hirope_test::max_relative_error(got, want, &where);
    INFO(what << ": worst relative error " << worst << " at " << where << " (got "
              << (got.empty() ? 0 : got[where]) << ", want " << (want.empty() ? 0 : want[where])
              << ")");
    CHECK(worst <= tol);
}

std::vector<LayerCase> layer_cases(int64_t n) {
    QueryTemperature llama4; // offset 1 as Llama 4; a small floor so that it varies within n
    llama4.enabled = true, llama4.floor_scale = 4, llama4.scale = 0.3, llama4.offset = 1;
    QueryTemperature ministral; // offset 0, floor not an integer
    ministral.enabled = true, ministral.floor_scale = 6.5, ministral.scale = 0.1,
    ministral.offset = 0;
    std::vector<LayerCase> cases;
    auto add = [&](AttentionKind kind, int64_t window, int64_t chunk) {
        for (int variant = 0; variant < 4; ++variant) {
            LayerCase c;
            c.kind = kind, c.window = window, c.chunk = chunk;
            c.sinks = variant & 1;
            if (variant & 2) c.temperature = (window + chunk) % 2 ? llama4 : ministral;
            cases.push_back(c);
        }
    };
    add(AttentionKind::full, 0, 0);
    for (int64_t w : {int64_t{1}, int64_t{5}, n - 1, n, n + 50}) add(AttentionKind::sliding, w, 0);
    for (int64_t c : {int64_t{1}, int64_t{8}, n - 1, n, n + 50}) add(AttentionKind::chunked, 0, c);
    return cases;
}

} // namespace

TEST_CASE("Layer attention: masks, sinks and temperature match a plain reference",
          "[layer_attention]") {
    for (int64_t n : {1, 37}) {
        const Data d(n, 16, 3);
        for (const LayerCase& c : layer_cases(n)) {
            if ((c.kind == AttentionKind::sliding && c.window < 1) ||
                (c.kind == AttentionKind::chunked && c.chunk < 1))
                continue; // n - 1 at n = 1
            for (bool rope : {false, true}) {
                for (Kernel kernel : {Kernel::fast, Kernel::reference}) {
                    const std::string what = c.name() + (rope ? " rope" : " nope") +
                                             (kernel == Kernel::fast ? " fast" : " reference") +
                                             " n=" + std::to_string(n);
                    std::vector<Want> want;
                    for (int h = 0; h < d.heads; ++h) want.push_back(reference(d, c, rope, h));
                    for (Output output : {Output::logits, Output::probs}) {
                        AttentionPlan plan;
                        Status st = plan.prepare(d.request(c, rope, output), kernel);
                        INFO(what << ": " << st.message());
                        REQUIRE(st.ok());
                        for (int h = 0; h < d.heads; ++h) {
                            // In strips that do not align with the tiles.
                            std::vector<float> got(n * n);
                            for (int64_t r0 = 0; r0 < n; r0 += 5) {
                                const int64_t r1 = std::min<int64_t>(n, r0 + 5);
                                REQUIRE(plan.rows(h, r0, r1, got.data() + r0 * n).ok());
                            }
                            if (output == Output::logits)
                                check_close(got, want[h].logits, 2e-5, what + " logits");
                            else
                                check_close(got, want[h].probs, 2e-6, what + " probs");
                        }
                    }
                    AttentionPlan plan;
                    REQUIRE(plan.prepare(d.request(c, rope, Output::probs), kernel).ok());
                    std::vector<float> got(n * d.hd * d.heads);
                    for (int64_t r0 = 0; r0 < n; r0 += 3)
                        REQUIRE(plan.output_rows(r0, std::min<int64_t>(n, r0 + 3),
                                                 got.data() + r0 * d.hd * d.heads)
                                    .ok());
                    for (int h = 0; h < d.heads; ++h) {
                        std::vector<float> head;
                        for (int64_t i = 0; i < n; ++i)
                            for (int e = 0; e < d.hd; ++e)
                                head.push_back(got[(i * d.heads + h) * d.hd + e]);
                        check_close(head, want[h].out, 2e-5, what + " output");
                    }
                }
            }
        }
    }
}

TEST_CASE("Layer attention: a sliding window at a longer length, tiles skipped, rows sum < 1 with "
          "sinks",
          "[layer_attention]") {
    const Data d(300, 8, 2);
    LayerCase c;
    c.kind = AttentionKind::sliding, c.window = 20, c.sinks = true;
    for (int h = 0; h < 2; ++h) {
        const Want want = reference(d, c, true, h);
        AttentionPlan plan;
        REQUIRE(plan.prepare(d.request(c, true, Output::probs), Kernel::fast).ok());
        std::vector<float> got(100 * 300);
        REQUIRE(plan.rows(h, 150, 250, got.data()).ok());
        check_close(
            got,
            std::vector<double>(want.probs.begin() + 150 * 300, want.probs.begin() + 250 * 300),
            2e-6, "sliding 20 at n=300, rows [150, 250)");
        for (int64_t i = 0; i < 100; ++i) {
            double sum = 0;
            for (int64_t j = 0; j < 300; ++j) sum += got[i * 300 + j];
            CHECK(sum < 1.0);
            CHECK(sum > 0.0);
        }
    }
}

TEST_CASE("Layer attention: the temperature scales the query, not an ALiBi bias",
          "[layer_attention]") {
    const Data d(21, 8, 2);
    LayerCase plain, warm;
    warm.temperature.enabled = true, warm.temperature.floor_scale = 3, warm.temperature.scale = 0.5;
    for (Kernel kernel : {Kernel::fast, Kernel::reference}) {
        std::vector<float> nope_warm(2 * 21 * 21), alibi_warm(2 * 21 * 21);
        AttentionRequest r = d.request(warm, false, Output::logits);
        REQUIRE(attention(r, nope_warm.data(), kernel).ok());
        r.scheme.type = SchemeType::alibi;
        REQUIRE(attention(r, alibi_warm.data(), kernel).ok());
        const std::vector<double> slopes = alibi_slopes(2);
        std::vector<double> want;
        for (int h = 0; h < 2; ++h)
            for (int64_t i = 0; i < 21; ++i)
                for (int64_t j = 0; j < 21; ++j)
                    want.push_back(j > i ? -std::numeric_limits<double>::infinity()
                                         : nope_warm[(h * 21 + i) * 21 + j] -
                                               slopes[h] * double(i - j));
        check_close(alibi_warm, want, 2e-6, "alibi with temperature");
    }
}

TEST_CASE("Layer attention: pooled masked probabilities are the means of the matrix",
          "[layer_attention][pool]") {
    const Data d(50, 8, 1);
    LayerCase c;
    c.kind = AttentionKind::chunked, c.chunk = 16, c.sinks = true;
    const Want want = reference(d, c, true, 0);
    AttentionPlan plan;
    REQUIRE(plan.prepare(d.request(c, true, Output::probs), Kernel::fast).ok());
    std::vector<float> probs(50 * 50);
    REQUIRE(plan.rows(0, 0, 50, probs.data()).ok());
    PoolGrid g;
    g.n = 50, g.row_end = 50, g.col_end = 50, g.rows = 7, g.cols = 7;
    std::vector<float> ratio(49, 0.0f), raw(49, 0.0f), row_max(50);
    REQUIRE(pool_rows(g, probs.data(), 0, 50, true, ratio.data(), raw.data(), row_max.data()).ok());
    pool_finish(g, ratio.data(), raw.data());
    auto edge = [](int64_t cell) { return (cell * 50 + 6) / 7; };
    std::vector<double> want_raw, want_ratio;
    for (int64_t y = 0; y < 7; ++y)
        for (int64_t x = 0; x < 7; ++x) {
            double s = 0, r = 0, count = 0;
            for (int64_t i = edge(y); i < edge(y + 1); ++i) {
                double m = 0;
                for (int64_t j = 0; j < 50; ++j) m = std::max(m, want.probs[i * 50 + j]);
                for (int64_t j = edge(x); j < edge(x + 1); ++j, ++count) {
                    s += want.probs[i * 50 + j];
                    r += want.probs[i * 50 + j] / m;
                }
            }
            want_raw.push_back(s / count);
            want_ratio.push_back(r / count);
        }
    check_close(raw, want_raw, 2e-6, "pooled raw");
    check_close(ratio, want_ratio, 2e-6, "pooled ratio");
}

TEST_CASE("Layer attention: bad masks, sinks and temperatures are errors naming the option",
          "[layer_attention][errors]") {
    const Data d(8, 4, 2);
    auto message = [&](auto edit) {
        AttentionRequest r = d.request(LayerCase(), true, Output::probs);
        edit(r);
        AttentionPlan plan;
        Status st = plan.prepare(r, Kernel::fast);
        REQUIRE(!st.ok());
        return st.message();
    };
    using Catch::Matchers::Contains;
    CHECK_THAT(message([](AttentionRequest& r) { r.mask_kind = AttentionKind::sliding; }),
               Contains("mask.window must be an integer >= 1, got 0"));
    CHECK_THAT(message([](AttentionRequest& r) {
                   r.mask_kind = AttentionKind::chunked, r.chunk_size = -3;
               }),
               Contains("mask.chunkSize must be an integer >= 1, got -3"));
    CHECK_THAT(message([](AttentionRequest& r) {
                   r.mask_kind = AttentionKind::sliding, r.window = 4, r.causal = false;
               }),
               Contains("mask 'sliding' is causal"));
    CHECK_THAT(message([](AttentionRequest& r) {
                   r.mask_kind = static_cast<AttentionKind>(7), r.window = 4;
               }),
               Contains("mask.type"));
    const float bad[2] = {0.5f, std::numeric_limits<float>::quiet_NaN()};
    CHECK_THAT(message([&](AttentionRequest& r) { r.sinks = bad; }),
               Contains("sinks[1] must be a finite number, got NaN"));
    const float inf[2] = {std::numeric_limits<float>::infinity(), 0};
    CHECK_THAT(message([&](AttentionRequest& r) { r.sinks = inf; }),
               Contains("sinks[0] must be a finite number, got an infinity"));
    auto warm = [](double floor, double scale, int64_t offset) {
        QueryTemperature t;
        t.enabled = true, t.floor_scale = floor, t.scale = scale, t.offset = offset;
        return t;
    };
    CHECK_THAT(message([&](AttentionRequest& r) { r.temperature = warm(0, 0.1, 1); }),
               Contains("temperature.floorScale must be a finite number > 0, got 0"));
    CHECK_THAT(message([&](AttentionRequest& r) {
                   r.temperature = warm(std::numeric_limits<double>::quiet_NaN(), 0.1, 1);
               }),
               Contains("temperature.floorScale must be a finite number > 0"));
    CHECK_THAT(message([&](AttentionRequest& r) { r.temperature = warm(4, -1, 1); }),
               Contains("temperature.scale must be a finite number >= 0, got -1"));
    CHECK_THAT(message([&](AttentionRequest& r) {
                   r.temperature = warm(4, std::numeric_limits<double>::infinity(), 1);
               }),
               Contains("temperature.scale must be a finite number >= 0"));
    CHECK_THAT(message([&](AttentionRequest& r) { r.temperature = warm(4, 0.1, -1); }),
               Contains("temperature.offset must be an integer in [0, 2^53], got -1"));
    CHECK_THAT(message([&](AttentionRequest& r) { r.temperature = warm(1e-300, 1e307, 0); }),
               Contains("beyond the float range"));
    // A disabled temperature and a full mask ignore their values.
    AttentionRequest r = d.request(LayerCase(), true, Output::probs);
    r.temperature = warm(0, -1, -1);
    r.temperature.enabled = false;
    r.window = -5, r.chunk_size = -5;
    AttentionPlan plan;
    CHECK(plan.prepare(r, Kernel::fast).ok());
}

TEST_CASE("Layer attention: mask names and mask_sees", "[layer_attention]") {
    for (AttentionKind k : {AttentionKind::full, AttentionKind::sliding, AttentionKind::chunked}) {
        AttentionKind back = AttentionKind::full;
        REQUIRE(attention_kind_from_name(attention_kind_name(k), &back));
        CHECK(back == k);
    }
    AttentionKind unchanged = AttentionKind::chunked;
    CHECK(!attention_kind_from_name("global", &unchanged));
    CHECK(unchanged == AttentionKind::chunked);
    CHECK(mask_sees(AttentionKind::sliding, 1, 0, 7, 7));
    CHECK(!mask_sees(AttentionKind::sliding, 1, 0, 7, 6));
    CHECK(mask_sees(AttentionKind::chunked, 0, 4, 7, 4));
    CHECK(!mask_sees(AttentionKind::chunked, 0, 4, 8, 7));
    CHECK(!mask_sees(AttentionKind::full, 0, 0, 3, 4));
}
