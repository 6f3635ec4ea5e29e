// Attention per layer of a real model: masks (full, sliding, chunked), sinks, the query
// temperature, the softmax scale and the logit soft-cap, through both kernels, against a plain
// double-precision reference written here from transformers' definitions (masking_utils.py,
// modeling_llama4.py, modeling_gemma2.py): by the tokens' positions p (cache_position), key k is
// seen by query q when p(k) <= p(q) and, for sliding, p(q) - p(k) < window, for chunked,
// floor(p(q) / C) == floor(p(k) / C); a sink is one more softmax column per head, dropped after
// the softmax; the query at position p is multiplied by 1 + scale * ln(floor((p + offset) /
// floor_scale) + 1); a soft-capped logit x is c * tanh(x / c) before the mask. RoPE by hand: half
// layout, theta_j = base^(-2j / d), rotation by the position times theta_j.
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
    double scale = 0, softcap = 0; // 0: 1 / sqrt(hd), none
    std::string name() const {
        std::string s = attention_kind_name(kind);
        if (kind == AttentionKind::sliding) s += " window " + std::to_string(window);
        if (kind == AttentionKind::chunked) s += " chunk " + std::to_string(chunk);
        if (sinks) s += " sinks";
        if (temperature.enabled) s += " temperature";
        if (scale > 0) s += " scale " + std::to_string(scale);
        if (softcap > 0) s += " softcap " + std::to_string(softcap);
        return s;
    }
};

struct Data {
    int64_t n;
    int hd, heads;
    std::vector<float> q, k, v, sinks;
    std::vector<int32_t> tok; // positions: start + t * stride
    Data(int64_t n_, int hd_, int heads_, int32_t start = 0, int32_t stride = 1)
        : n(n_), hd(hd_), heads(heads_) {
        const int64_t size = n * hd * heads;
        std::vector<int32_t> ids(n);
        for (int64_t t = 0; t < n; ++t)
            ids[t] = static_cast<int32_t>(t),
            tok.push_back(start + static_cast<int32_t>(t) * stride);
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
        r.scale = c.scale;
        r.softcap = c.softcap;
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
            const double angle = d.tok[t] * std::pow(10000.0, -2.0 * j / hd);
            o[j] = r[j] * std::cos(angle) - r[j + half] * std::sin(angle);
            o[j + half] = r[j + half] * std::cos(angle) + r[j] * std::sin(angle);
        }
        return o;
    };
    auto seen = [&](int64_t i, int64_t j) {
        const double pq = d.tok[i], pk = d.tok[j];
        if (j > i || pk > pq) return false;
        if (c.kind == AttentionKind::sliding) return pq - pk < c.window;
        if (c.kind == AttentionKind::chunked)
            return std::floor(pq / c.chunk) == std::floor(pk / c.chunk);
        return true;
    };
    const QueryTemperature& t = c.temperature;
    Want w;
    w.logits.assign(n * n, -std::numeric_limits<double>::infinity());
    w.probs.assign(n * n, 0.0);
    w.out.assign(n * hd, 0.0);
    for (int64_t i = 0; i < n; ++i) {
        const double qs =
            t.enabled
                ? 1 + t.scale *
                          std::log(std::floor(double(d.tok[i] + t.offset) / t.floor_scale) + 1)
                : 1.0;
        const std::vector<double> qi = rotated(d.q, i);
        double m = c.sinks ? d.sinks[h] : -std::numeric_limits<double>::infinity();
        for (int64_t j = 0; j < n; ++j) {
            if (!seen(i, j)) continue;
            const std::vector<double> kj = rotated(d.k, j);
            double dot = 0;
            for (int e = 0; e < hd; ++e) dot += qs * qi[e] * kj[e];
            double x = dot * (c.scale > 0 ? c.scale : 1 / std::sqrt(double(hd)));
            if (c.softcap > 0) x = c.softcap * std::tanh(x / c.softcap);
            w.logits[i * n + j] = x;
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

namespace {

// Both kernels, logits and probabilities, against the reference, for one data set and case.
void check_layer(const Data& d, const LayerCase& c, bool rope, const std::string& label) {
    for (Kernel kernel : {Kernel::fast, Kernel::reference})
        for (Output output : {Output::logits, Output::probs}) {
            const std::string what = label + " " + c.name() +
                                     (kernel == Kernel::fast ? " fast" : " reference") +
                                     (output == Output::logits ? " logits" : " probs");
            std::vector<float> got(d.heads * d.n * d.n);
            Status st = attention(d.request(c, rope, output), got.data(), kernel);
            INFO(what << ": " << st.message());
            REQUIRE(st.ok());
            for (int h = 0; h < d.heads; ++h) {
                const Want want = reference(d, c, rope, h);
                const std::vector<float> head(got.begin() + h * d.n * d.n,
                                              got.begin() + (h + 1) * d.n * d.n);
                if (output == Output::logits)
                    check_close(head, want.logits, 2e-5, what);
                else
                    check_close(head, want.probs, 2e-6, what);
            }
        }
}

} // namespace

TEST_CASE("Layer attention: masks and the temperature follow the tokens' positions, not the rows",
          "[layer_attention]") {
    // A Llama-4-style chunked layer at positions 20,000.. (a chunk boundary at 20,032 inside).
    LayerCase chunked;
    chunked.kind = AttentionKind::chunked, chunked.chunk = 64;
    check_layer(Data(40, 16, 2, 20000), chunked, true, "positions 20000..");
    chunked.temperature.enabled = true, chunked.temperature.floor_scale = 20016,
    chunked.temperature.scale = 0.1, chunked.temperature.offset = 1;
    check_layer(Data(40, 16, 2, 20000), chunked, false, "positions 20000.. NoPE");
    // A Ministral-3 temperature (offset 0, floor 16,384) from position 32,740: the factor steps at
    // 32,768 inside the rows.
    LayerCase ministral;
    ministral.temperature.enabled = true, ministral.temperature.floor_scale = 16384,
    ministral.temperature.scale = 0.1, ministral.temperature.offset = 0;
    check_layer(Data(37, 16, 2, 32740), ministral, true, "positions 32740..");
    // Spread-out positions (a stride of 7): a window of 20 sees the 3 earlier tokens, and a chunk
    // of 50 that the stride does not divide still splits at multiples of 50.
    LayerCase window20, chunk50;
    window20.kind = AttentionKind::sliding, window20.window = 20, window20.sinks = true;
    chunk50.kind = AttentionKind::chunked, chunk50.chunk = 50;
    check_layer(Data(30, 8, 2, 5, 7), window20, true, "stride 7 from 5");
    check_layer(Data(30, 8, 2, 5, 7), chunk50, true, "stride 7 from 5");
    // Equal positions (a repeated cache position) are seen by each other's later rows.
    Data same(12, 8, 1);
    for (int64_t t = 0; t < 12; ++t) same.tok[t] = static_cast<int32_t>(t / 3);
    LayerCase window2;
    window2.kind = AttentionKind::sliding, window2.window = 2;
    check_layer(same, window2, true, "positions in threes");
}

TEST_CASE("Layer attention: the softmax scale and the logit soft-cap (Gemma 2)",
          "[layer_attention]") {
    LayerCase c;
    c.scale = 1 / std::sqrt(256.0) * 4, c.softcap = 5; // logits reach past the cap
    check_layer(Data(33, 16, 2), c, true, "softcap 5");
    c.kind = AttentionKind::sliding, c.window = 9, c.sinks = true;
    check_layer(Data(33, 16, 2, 100, 3), c, true, "softcap 5, sliding");
    // The cap bounds every logit.
    const Data d(33, 16, 2);
    LayerCase big;
    big.scale = 10, big.softcap = 2;
    std::vector<float> logits(2 * 33 * 33);
    REQUIRE(attention(d.request(big, true, Output::logits), logits.data()).ok());
    for (float x : logits)
        if (std::isfinite(x)) CHECK(std::fabs(x) <= 2.0f);
}

TEST_CASE("Layer attention: key starts by position, against mask_sees", "[layer_attention]") {
    std::vector<int32_t> tok = {-9, -9, -4, 0, 0, 3, 10, 11, 11, 30, 31, 95};
    const int64_t n = static_cast<int64_t>(tok.size());
    for (AttentionKind kind : {AttentionKind::full, AttentionKind::sliding, AttentionKind::chunked})
        for (int64_t size : {1, 2, 5, 8, 64}) {
            std::vector<int64_t> starts(n, -1);
            REQUIRE(attention_key_starts(kind, size, size, tok.data(), n, starts.data()).ok());
            for (int64_t i = 0; i < n; ++i)
                for (int64_t j = 0; j <= i; ++j) {
                    INFO(attention_kind_name(kind)
                         << " size " << size << " row " << i << " key " << j);
                    CHECK((j >= starts[i]) == mask_sees(kind, size, size, tok[i], tok[j]));
                }
        }
    // Chunks of negative positions split at multiples too: floor(-9 / 5) = -2 = floor(-6 / 5),
    // floor(-4 / 5) = -1.
    CHECK(!mask_sees(AttentionKind::chunked, 0, 5, -4, -9));
    CHECK(mask_sees(AttentionKind::chunked, 0, 5, -6, -9));
}

TEST_CASE("Layer attention: positions that go back under a mask, and negative positions under a "
          "temperature, are errors",
          "[layer_attention][errors]") {
    Data d(6, 4, 1);
    d.tok = {0, 1, 5, 3, 4, 6};
    LayerCase sliding;
    sliding.kind = AttentionKind::sliding, sliding.window = 3;
    AttentionPlan plan;
    Status st = plan.prepare(d.request(sliding, true, Output::probs));
    REQUIRE(!st.ok());
    CHECK_THAT(st.message(), Catch::Matchers::Contains("positions.token[3] = 3 comes after 5") &&
                                 Catch::Matchers::Contains("must not decrease"));
    // Full attention takes any positions.
    CHECK(plan.prepare(d.request(LayerCase(), true, Output::probs)).ok());
    d.tok = {-2, -1, 0, 1, 2, 3};
    LayerCase warm;
    warm.temperature.enabled = true;
    st = plan.prepare(d.request(warm, true, Output::probs));
    REQUIRE(!st.ok());
    CHECK_THAT(st.message(), Catch::Matchers::Contains("must be >= 0, got positions.token = -2"));
    // The float range is checked at the largest position, not at n - 1.
    d.tok = {0, 1, 2, 3, 4, 1 << 30};
    warm.temperature.floor_scale = 1e-30, warm.temperature.scale = 1e37;
    st = plan.prepare(d.request(warm, true, Output::probs));
    REQUIRE(!st.ok());
    CHECK_THAT(st.message(), Catch::Matchers::Contains("at position 1073741824"));
    // layer_rows: the per-row values the GPU path reads.
    AttentionRequest r = d.request(LayerCase(), true, Output::probs);
    d.tok = {0, 10, 20, 30, 40, 50};
    r.mask_kind = AttentionKind::sliding, r.window = 25;
    r.temperature.enabled = true, r.temperature.floor_scale = 20, r.temperature.offset = 0;
    std::vector<int64_t> starts;
    std::vector<double> factors;
    REQUIRE(layer_rows(r, &starts, &factors).ok());
    CHECK(starts == std::vector<int64_t>{0, 0, 0, 1, 2, 3});
    REQUIRE(factors.size() == 6);
    CHECK(factors[5] == Approx(1 + 0.1 * std::log(std::floor(50 / 20.0) + 1)).epsilon(1e-15));
}

TEST_CASE("Rotation of the last dims (MLA: q = cat(q_nope, q_pe))", "[layer_attention][rotary]") {
    // head_dim 12 with the last 4 rotating in adjacent pairs, as DeepSeek's q_pe: written by hand.
    const int hd = 12, n = 5;
    std::vector<float> x(n * hd);
    for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(1.7 * i) + 0.25f;
    std::vector<int32_t> tok = {0, 3, 7, 100, 2000};
    for (Layout layout : {Layout::interleaved, Layout::half}) {
        Scheme s;
        s.type = SchemeType::rope;
        s.layout = layout;
        s.rotary_fraction = 4.0 / 12.0;
        s.rotary_last = true;
        std::vector<float> out(n * hd);
        REQUIRE(rotate(s, hd, 1, n, Positions{tok.data()}, Role::query, Branch::near, x.data(),
                       out.data())
                    .ok());
        for (int t = 0; t < n; ++t) {
            for (int i = 0; i < 8; ++i) CHECK(out[t * hd + i] == x[t * hd + i]);
            for (int j = 0; j < 2; ++j) {
                const int a = layout == Layout::interleaved ? 8 + 2 * j : 8 + j;
                const int b = layout == Layout::interleaved ? 9 + 2 * j : 10 + j;
                const double angle = tok[t] * std::pow(10000.0, -2.0 * j / 4);
                const double xa = x[t * hd + a], xb = x[t * hd + b];
                CHECK(out[t * hd + a] ==
                      Approx(xa * std::cos(angle) - xb * std::sin(angle)).margin(1e-6));
                CHECK(out[t * hd + b] ==
                      Approx(xa * std::sin(angle) + xb * std::cos(angle)).margin(1e-6));
            }
        }
        // The GPU path's coefficients pair the same dims.
        std::vector<float> ca(n * hd), cb(n * hd), cc(n * hd);
        std::vector<int32_t> partner(hd);
        REQUIRE(transform_coefficients(s, hd, n, Positions{tok.data()}, Role::query, Branch::near,
                                       ca.data(), cb.data(), cc.data(), partner.data())
                    .ok());
        for (int i = 0; i < 8; ++i) CHECK(partner[i] == i);
        CHECK(partner[8] == (layout == Layout::interleaved ? 9 : 10));
        // The reference kernel (relative-distance form) agrees with the fast one.
        std::vector<float> k(n * hd);
        for (size_t i = 0; i < k.size(); ++i) k[i] = std::cos(0.9 * i);
        AttentionRequest r;
        r.q = x.data(), r.k = k.data(), r.n = n, r.head_dim = hd;
        r.positions = Positions{tok.data()};
        r.scheme = s;
        r.output = Output::logits;
        std::vector<float> fast(n * n), ref(n * n);
        REQUIRE(attention(r, fast.data(), Kernel::fast).ok());
        REQUIRE(attention(r, ref.data(), Kernel::reference).ok());
        for (int i = 0; i < n * n; ++i)
            if (std::isfinite(ref[i])) CHECK(fast[i] == Approx(ref[i]).margin(1e-5));
    }
}
