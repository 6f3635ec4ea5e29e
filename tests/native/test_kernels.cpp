// Every scheme through every kernel: the tiled kernels (SIMD in this build, or scalar lanes)
// against the double-precision reference, which computes each logit from the relative-distance
// form and never rotates a vector.
#include "hirope/hirope.h"
#include "test_compare.h"
#include "test_schemes.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

using namespace hirope;

namespace {

std::vector<float> random_values(size_t count, uint64_t seed) {
    std::vector<int32_t> ids(count / 2 + 1, 0);
    for (size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<int32_t>(i);
    std::vector<float> out((count / 2 + 1) * 2);
    seeded_vectors(seed, ids.data(), static_cast<int64_t>(ids.size()), 2, 0, out.data());
    out.resize(count);
    return out;
}

struct Inputs {
    int64_t n;
    int hd, heads;
    std::vector<float> q, k, v;
    std::vector<int32_t> tok, unit, stmt;
    Inputs(int64_t n_, int hd_, int heads_) : n(n_), hd(hd_), heads(heads_) {
        const size_t size = static_cast<size_t>(n * hd * heads);
        q = random_values(size, 1);
        k = random_values(size, 2);
        v = random_values(size, 3);
        for (int64_t t = 0; t < n; ++t) {
            tok.push_back(static_cast<int32_t>(t));
            unit.push_back(static_cast<int32_t>(t / 7));
            stmt.push_back(static_cast<int32_t>(t / 3));
        }
    }
    AttentionRequest request(const Scheme& s, Output out, bool causal) const {
        AttentionRequest r;
        r.q = q.data();
        r.k = k.data();
        r.v = v.data();
        r.n = n;
        r.head_dim = hd;
        r.heads = heads;
        r.positions = Positions{tok.data(), unit.data(), stmt.data()};
        r.scheme = s;
        r.causal = causal;
        r.output = out;
        return r;
    }
};

void compare(const std::vector<float>& got, const std::vector<float>& want, double tol,
             const std::string& what) {
    REQUIRE(got.size() == want.size());
    size_t where = 0;
    const double worst = hirope_test::max_relative_error(got, want, &where);
    INFO(what << ": worst relative error " << worst << " at " << where << " (got " << got[where]
              << ", want " << want[where] << ")");
    CHECK(worst <= tol);
}

} // namespace

TEST_CASE("Fast kernels match the reference on every scheme", "[kernels]") {
    for (const NamedScheme& c : all_schemes()) {
        for (int64_t n : {1, 5, 37, 70}) {
            for (bool causal : {true, false}) {
                if (!causal && is_windowed(c.scheme.type)) continue;
                Inputs in(n, 16, 2);
                for (Output out : {Output::logits, Output::probs}) {
                    std::vector<float> want(2 * n * n), fast(2 * n * n);
                    AttentionRequest r = in.request(c.scheme, out, causal);
                    const std::string what = c.name + " n=" + std::to_string(n) +
                                             (causal ? " causal" : " full") +
                                             (out == Output::probs ? " probs" : " logits");
                    REQUIRE(attention(r, want.data(), Kernel::reference).ok());
                    Status st = attention(r, fast.data(), Kernel::fast);
                    INFO(st.message());
                    REQUIRE(st.ok());
                    compare(fast, want, out == Output::probs ? 2e-6 : 2e-5, what + " fast");
                }
                // Attention output with v, in strips that do not align with the tiles.
                AttentionRequest r = in.request(c.scheme, Output::probs, causal);
                std::vector<float> want(n * 32), fast(n * 32);
                AttentionPlan ref_plan, fast_plan;
                REQUIRE(ref_plan.prepare(r, Kernel::reference).ok());
                REQUIRE(fast_plan.prepare(r, Kernel::fast).ok());
                for (int64_t r0 = 0; r0 < n; r0 += 3) {
                    const int64_t r1 = std::min<int64_t>(n, r0 + 3);
                    REQUIRE(ref_plan.output_rows(r0, r1, want.data() + r0 * 32).ok());
                    REQUIRE(fast_plan.output_rows(r0, r1, fast.data() + r0 * 32).ok());
                }
                compare(fast, want, 2e-5, c.name + " output fast");
            }
        }
    }
}

TEST_CASE("Head dimensions that are not multiples of the tile", "[kernels]") {
    for (int hd : {2, 6, 10, 18}) {
        Inputs in(23, hd, 1);
        Scheme s;
        s.type = SchemeType::hirope;
        s.window = 4;
        AttentionRequest r = in.request(s, Output::probs, true);
        std::vector<float> want(23 * 23), fast(23 * 23), ow(23 * hd), of(23 * hd);
        REQUIRE(attention(r, want.data(), Kernel::reference).ok());
        REQUIRE(attention(r, fast.data(), Kernel::fast).ok());
        compare(fast, want, 2e-6, "hd=" + std::to_string(hd));
        AttentionPlan a, b;
        REQUIRE(a.prepare(r, Kernel::reference).ok());
        REQUIRE(b.prepare(r, Kernel::fast).ok());
        REQUIRE(a.output_rows(0, 23, ow.data()).ok());
        REQUIRE(b.output_rows(0, 23, of.data()).ok());
        compare(of, ow, 2e-5, "output hd=" + std::to_string(hd));
    }
}

TEST_CASE("The attention output of a long input, a few rows at a time, is probabilities x v",
          "[kernels]") {
    // output_rows holds a bounded strip of probabilities (it held rows x n: at n = 32,768 that was
    // 4 GiB, and the WASM module stopped). Here n = 2,047 is several strips of a row count that is
    // not a multiple of the tile; the expected output is each head's probabilities (rows())
    // times v, summed in double by hand.
    const int64_t n = 2047;
    const int hd = 6, heads = 2, width = hd * heads;
    Inputs in(n, hd, heads);
    Scheme rope;
    rope.type = SchemeType::rope;
    for (AttentionKind mask : {AttentionKind::full, AttentionKind::sliding}) {
        for (Kernel kernel : {Kernel::fast, Kernel::reference}) {
            AttentionRequest r = in.request(rope, Output::probs, true);
            r.mask_kind = mask;
            r.window = 300;
            AttentionPlan plan;
            REQUIRE(plan.prepare(r, kernel).ok());
            std::vector<float> probs(static_cast<size_t>(heads * n * n));
            for (int h = 0; h < heads; ++h)
                REQUIRE(plan.rows(h, 0, n, probs.data() + h * n * n).ok());
            for (const auto& range : {std::pair<int64_t, int64_t>{0, n}, {5, n - 3}}) {
                const int64_t r0 = range.first, r1 = range.second;
                std::vector<float> got(static_cast<size_t>((r1 - r0) * width)), want(got.size());
                REQUIRE(plan.output_rows(r0, r1, got.data()).ok());
                for (int64_t i = r0; i < r1; ++i)
                    for (int h = 0; h < heads; ++h)
                        for (int c = 0; c < hd; ++c) {
                            double sum = 0;
                            for (int64_t j = 0; j <= i; ++j)
                                sum += static_cast<double>(probs[(h * n + i) * n + j]) *
                                       in.v[j * width + h * hd + c];
                            want[(i - r0) * width + h * hd + c] = static_cast<float>(sum);
                        }
                compare(got, want, 2e-5,
                        std::string(mask == AttentionKind::full ? "full" : "sliding") +
                            (kernel == Kernel::fast ? " fast" : " reference") + " rows " +
                            std::to_string(r0) + ".." + std::to_string(r1));
            }
        }
    }
}

TEST_CASE("RoPE by hand: d = 2, unit vectors", "[rope]") {
    // q = k = (1, 0) at every token, theta_0 = 1: logit(i, j) = cos(i - j) / sqrt(2).
    std::vector<float> q(10, 0), k(10, 0), out(25);
    std::vector<int32_t> tok = {0, 1, 2, 3, 4};
    for (int t = 0; t < 5; ++t) q[2 * t] = k[2 * t] = 1;
    AttentionRequest r;
    r.q = q.data();
    r.k = k.data();
    r.n = 5;
    r.head_dim = 2;
    r.positions.token = tok.data();
    r.causal = false;
    r.output = Output::logits;
    REQUIRE(attention(r, out.data()).ok());
    for (int i = 0; i < 5; ++i)
        for (int j = 0; j < 5; ++j)
            CHECK(out[i * 5 + j] ==
                  Catch::Detail::Approx(std::cos(i - j) / std::sqrt(2.0)).margin(1e-6));
}

TEST_CASE("RoPE logits depend only on m - n", "[rope][spec]") {
    // The same q and k at every token: every diagonal of the logit matrix is constant, and
    // shifting all positions leaves the matrix unchanged.
    const int64_t n = 48;
    const int hd = 32;
    std::vector<float> one_q = random_values(hd, 7), one_k = random_values(hd, 8);
    std::vector<float> q, k;
    std::vector<int32_t> tok, shifted;
    for (int64_t t = 0; t < n; ++t) {
        q.insert(q.end(), one_q.begin(), one_q.end());
        k.insert(k.end(), one_k.begin(), one_k.end());
        tok.push_back(static_cast<int32_t>(t));
        shifted.push_back(static_cast<int32_t>(t + 1000));
    }
    AttentionRequest r;
    r.q = q.data();
    r.k = k.data();
    r.n = n;
    r.head_dim = hd;
    r.positions.token = tok.data();
    r.output = Output::logits;
    r.causal = false;
    std::vector<float> a(n * n), b(n * n);
    REQUIRE(attention(r, a.data()).ok());
    r.positions.token = shifted.data();
    REQUIRE(attention(r, b.data()).ok());
    for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < n; ++j) {
            CHECK(a[i * n + j] ==
                  Catch::Detail::Approx(a[(i - std::min(i, j)) * n + (j - std::min(i, j))])
                      .margin(2e-5));
            CHECK(b[i * n + j] == Catch::Detail::Approx(a[i * n + j]).margin(2e-5));
        }
}

TEST_CASE("Interleaved and half layouts agree under the pair permutation", "[rope][spec]") {
    // Interleaved pair (2j, 2j+1) holds what the half layout keeps at (j, j + d/2).
    const int64_t n = 21;
    const int hd = 16;
    Inputs in(n, hd, 1);
    std::vector<float> qp(in.q.size()), kp(in.k.size());
    for (int64_t t = 0; t < n; ++t)
        for (int j = 0; j < hd / 2; ++j) {
            qp[t * hd + j] = in.q[t * hd + 2 * j];
            qp[t * hd + j + hd / 2] = in.q[t * hd + 2 * j + 1];
            kp[t * hd + j] = in.k[t * hd + 2 * j];
            kp[t * hd + j + hd / 2] = in.k[t * hd + 2 * j + 1];
        }
    for (SchemeType type : {SchemeType::rope, SchemeType::hirope, SchemeType::self_extend}) {
        Scheme s;
        s.type = type;
        s.window = 5;
        s.layout = Layout::interleaved;
        AttentionRequest r = in.request(s, Output::logits, true);
        std::vector<float> a(n * n), b(n * n);
        REQUIRE(attention(r, a.data()).ok());
        r.scheme.layout = Layout::half;
        r.q = qp.data();
        r.k = kp.data();
        REQUIRE(attention(r, b.data()).ok());
        compare(b, a, 1e-5, "layout");
    }
}

TEST_CASE("HiRoPE with ratio 1 is RoPE; windowed schemes are RoPE inside the window",
          "[hirope][windowed][spec]") {
    const int64_t n = 40;
    Inputs in(n, 32, 1);
    Scheme rope;
    std::vector<float> want(n * n), got(n * n);
    REQUIRE(attention(in.request(rope, Output::logits, true), want.data()).ok());

    Scheme hi;
    hi.type = SchemeType::hirope;
    hi.ratio = 1;
    hi.window = 3;
    REQUIRE(attention(in.request(hi, Output::logits, true), got.data()).ok());
    compare(got, want, 1e-6, "hirope ratio 1");

    for (SchemeType t : {SchemeType::hirope, SchemeType::rerope, SchemeType::leaky_rerope,
                         SchemeType::self_extend}) {
        Scheme s;
        s.type = t;
        s.window = n; // every causal pair is inside the window
        s.ratio = 0.5;
        REQUIRE(attention(in.request(s, Output::logits, true), got.data()).ok());
        compare(got, want, 1e-6, "inside window");
        // With a small window, pairs inside it still match RoPE and the others do not.
        s.window = 6;
        REQUIRE(attention(in.request(s, Output::logits, true), got.data()).ok());
        int differ = 0;
        for (int64_t i = 0; i < n; ++i)
            for (int64_t j = 0; j <= i; ++j) {
                if (i - j < 6)
                    CHECK(got[i * n + j] == Catch::Detail::Approx(want[i * n + j]).margin(1e-5));
                else if (std::fabs(got[i * n + j] - want[i * n + j]) > 1e-4)
                    ++differ;
            }
        CHECK(differ > 0);
    }
}

TEST_CASE("Rotation preserves norms; the attention factor scales rotated dims", "[rope]") {
    Inputs in(9, 8, 2);
    Scheme s;
    std::vector<float> out(in.q.size());
    REQUIRE(rotate(s, 8, 2, 9, Positions{in.tok.data()}, Role::query, Branch::near, in.q.data(),
                   out.data())
                .ok());
    for (int64_t t = 0; t < 9; ++t)
        for (int h = 0; h < 2; ++h) {
            double a = 0, b = 0;
            for (int d = 0; d < 8; ++d) {
                a += in.q[t * 16 + h * 8 + d] * in.q[t * 16 + h * 8 + d];
                b += out[t * 16 + h * 8 + d] * out[t * 16 + h * 8 + d];
            }
            CHECK(b == Catch::Detail::Approx(a).epsilon(1e-5));
        }
    // Position 0 is the identity.
    for (int d = 0; d < 16; ++d) CHECK(out[d] == Catch::Detail::Approx(in.q[d]));
}

TEST_CASE("Seeded vectors: same token id, same vector", "[sources]") {
    std::vector<int32_t> ids = {5, 9, 5};
    std::vector<float> a(3 * 6), b(3 * 6);
    seeded_vectors(42, ids.data(), 3, 6, 0, a.data());
    seeded_vectors(42, ids.data(), 3, 6, 1, b.data());
    for (int d = 0; d < 6; ++d) {
        CHECK(a[d] == a[12 + d]);
        CHECK(a[d] != a[6 + d]);
        CHECK(a[d] != b[d]);
    }
    double mean = 0, var = 0;
    std::vector<int32_t> many(2000);
    for (int i = 0; i < 2000; ++i) many[i] = i;
    std::vector<float> big(2000 * 8);
    seeded_vectors(1, many.data(), 2000, 8, 0, big.data());
    for (float x : big) mean += x;
    mean /= big.size();
    for (float x : big) var += (x - mean) * (x - mean);
    var /= big.size();
    CHECK(std::fabs(mean) < 0.05);
    CHECK(var == Catch::Detail::Approx(1.0).margin(0.05));
}

TEST_CASE("Transform coefficients reproduce rotate() on every scheme", "[kernels][webgpu]") {
    // The WebGPU path applies these coefficients; they must give what the WASM path computes.
    for (const NamedScheme& c : all_schemes()) {
        Inputs in(19, 16, 2);
        const Positions pos{in.tok.data(), in.unit.data(), in.stmt.data()};
        for (Role role : {Role::query, Role::key}) {
            for (Branch branch : {Branch::near, Branch::far}) {
                std::vector<float> want(in.q.size()), a(19 * 16), b(19 * 16), cc(19 * 16);
                std::vector<int32_t> partner(16);
                REQUIRE(
                    rotate(c.scheme, 16, 2, 19, pos, role, branch, in.q.data(), want.data()).ok());
                REQUIRE(transform_coefficients(c.scheme, 16, 19, pos, role, branch, a.data(),
                                               b.data(), cc.data(), partner.data())
                            .ok());
                double worst = 0;
                for (int64_t t = 0; t < 19; ++t)
                    for (int h = 0; h < 2; ++h)
                        for (int i = 0; i < 16; ++i) {
                            const float* x = in.q.data() + t * 32 + h * 16;
                            const double got = x[i] * a[t * 16 + i] +
                                               x[partner[i]] * b[t * 16 + i] + cc[t * 16 + i];
                            const double w = want[t * 32 + h * 16 + i];
                            worst =
                                hirope_test::worse(worst, std::fabs(got - w) / (1 + std::fabs(w)));
                        }
                INFO(c.name);
                CHECK(worst < 1e-5);
            }
        }
    }
}

TEST_CASE("A Rotator over row ranges equals rotate() on every scheme", "[kernels][rotator]") {
    for (const NamedScheme& c : all_schemes()) {
        INFO(c.name);
        Inputs in(19, 16, 2);
        const Positions pos{in.tok.data(), in.unit.data(), in.stmt.data()};
        Rotator rot;
        REQUIRE(rot.prepare(c.scheme, 16, 2, 19, pos).ok());
        CHECK(rot.n() == 19);
        CHECK(rot.frequency_length() == 19);
        std::vector<double> freq;
        REQUIRE(inverse_frequencies(c.scheme, 16, 19, &freq).ok());
        CHECK(rot.inverse_frequencies() == freq);
        CHECK(rot.attention_factor() == attention_factor(c.scheme, 19));
        for (Role role : {Role::query, Role::key}) {
            for (Branch branch : {Branch::near, Branch::far}) {
                std::vector<float> want(in.q.size()), got(in.q.size());
                REQUIRE(
                    rotate(c.scheme, 16, 2, 19, pos, role, branch, in.q.data(), want.data()).ok());
                // Uneven pieces, an empty one, and the last in place.
                const std::pair<int64_t, int64_t> pieces[] = {{0, 5}, {5, 6}, {6, 6}};
                for (const auto& [begin, end] : pieces)
                    REQUIRE(rot.rotate_rows(role, branch, begin, end, in.q.data() + begin * 32,
                                            got.data() + begin * 32)
                                .ok());
                std::copy(in.q.begin() + 6 * 32, in.q.end(), got.begin() + 6 * 32);
                REQUIRE(
                    rot.rotate_rows(role, branch, 6, 19, got.data() + 6 * 32, got.data() + 6 * 32)
                        .ok());
                CHECK(got == want);
            }
        }
    }
}

TEST_CASE("A Rotator's frequency_length fixes the length-dependent factors", "[rotator]") {
    // Rows of a 19-token prefix rotated for a 64-token sequence equal those rows of a rotator
    // prepared over all 64 tokens: dynamic NTK's base, YaRN's factor, xPos's centre.
    Inputs in(64, 16, 1);
    const Positions pos{in.tok.data(), in.unit.data(), in.stmt.data()};
    for (const NamedScheme& c : all_schemes()) {
        INFO(c.name);
        Rotator part, whole;
        REQUIRE(part.prepare(c.scheme, 16, 1, 19, pos, 64).ok());
        REQUIRE(whole.prepare(c.scheme, 16, 1, 64, pos).ok());
        CHECK(part.frequency_length() == 64);
        CHECK(part.inverse_frequencies() == whole.inverse_frequencies());
        CHECK(part.attention_factor() == whole.attention_factor());
        std::vector<float> a(19 * 16), b(19 * 16);
        for (Role role : {Role::query, Role::key}) {
            REQUIRE(part.rotate_rows(role, Branch::far, 0, 19, in.k.data(), a.data()).ok());
            REQUIRE(whole.rotate_rows(role, Branch::far, 0, 19, in.k.data(), b.data()).ok());
            CHECK(a == b);
        }
    }
}

TEST_CASE("A Rotator reports bad use as a Status", "[rotator][errors]") {
    Inputs in(8, 8, 1);
    std::vector<float> out(64);
    Rotator rot;
    CHECK(!rot.prepared());
    CHECK(rot.rotate_rows(Role::key, Branch::near, 0, 1, in.k.data(), out.data()).message() ==
          "the rotator is not prepared");
    Scheme s;
    s.type = SchemeType::hirope;
    s.window = 4;
    Positions tok_only{in.tok.data(), nullptr, nullptr};
    CHECK(rot.prepare(s, 8, 1, 8, tok_only).message().find("positions.unit is required") !=
          std::string::npos);
    CHECK(!rot.prepared());
    const Positions pos{in.tok.data(), in.unit.data(), in.stmt.data()};
    CHECK(rot.prepare(s, 8, 0, 8, pos).message().find("heads must be in") != std::string::npos);
    CHECK(rot.prepare(s, 8, 1, 8, pos, -1).message().find("frequency_length") != std::string::npos);
    REQUIRE(rot.prepare(s, 8, 1, 8, pos).ok());
    CHECK(rot.rotate_rows(Role::key, Branch::near, 3, 9, in.k.data(), out.data())
              .message()
              .find("row range [3, 9)") != std::string::npos);
    CHECK(rot.rotate_rows(Role::key, Branch::near, 4, 3, in.k.data(), out.data()).message() != "");
    CHECK(rot.rotate_rows(Role::key, Branch::near, 0, 2, nullptr, out.data()).message() != "");
    CHECK(rot.rotate_rows(Role::key, Branch::near, 2, 2, nullptr, nullptr).ok());
    // The positions were copied: changing the caller's arrays changes nothing.
    std::vector<float> before(64), after(64);
    REQUIRE(rot.rotate_rows(Role::key, Branch::far, 0, 8, in.k.data(), before.data()).ok());
    std::fill(in.unit.begin(), in.unit.end(), 5);
    REQUIRE(rot.rotate_rows(Role::key, Branch::far, 0, 8, in.k.data(), after.data()).ok());
    CHECK(before == after);
    // Moved from: unprepared until prepared again.
    Rotator moved(std::move(rot));
    CHECK(moved.prepared());
    CHECK(!rot.prepared());
    CHECK(rot.n() == 0);
    CHECK(rot.inverse_frequencies().empty());
    REQUIRE(rot.prepare(s, 8, 1, 8, pos).ok());
    CHECK(rot.prepared());
}

TEST_CASE("pool_rows gives the mean over each cell, relative to row maxima, in any strip order") {
    using namespace hirope;
    const int64_t n = 23;
    std::vector<float> m(n * n);
    for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < n; ++j)
            m[i * n + j] = static_cast<float>(((i * 37 + j * 11) % 17) + 1) / 17.0f;
    for (bool causal : {true, false}) {
        PoolGrid g;
        g.n = n;
        g.row_begin = 3;
        g.row_end = 21;
        g.col_begin = 1;
        g.col_end = 20;
        g.rows = 5;
        g.cols = 7;
        std::vector<float> ratio(35, 0.0f), raw(35, 0.0f), row_max(n, -1.0f);
        // Two strips, the second first.
        REQUIRE(
            pool_rows(g, m.data() + 10 * n, 10, n, causal, ratio.data(), raw.data(), row_max.data())
                .ok());
        REQUIRE(
            pool_rows(g, m.data(), 0, 10, causal, ratio.data(), raw.data(), row_max.data()).ok());
        pool_finish(g, ratio.data(), raw.data());
        auto edge = [](int64_t b, int64_t span, int64_t cells, int64_t c) {
            return b + (c * span + cells - 1) / cells;
        };
        for (int64_t i = 0; i < n; ++i) {
            double best = 0;
            for (int64_t j = 0; j < (causal ? i + 1 : n); ++j)
                best = hirope_test::worse(best, double(m[i * n + j]));
            CHECK(row_max[i] == Approx(best));
        }
        for (int64_t y = 0; y < 5; ++y) {
            for (int64_t x = 0; x < 7; ++x) {
                double sr = 0, sp = 0;
                int count = 0;
                for (int64_t i = edge(3, 18, 5, y); i < edge(3, 18, 5, y + 1); ++i) {
                    for (int64_t j = edge(1, 19, 7, x); j < edge(1, 19, 7, x + 1); ++j) {
                        const double p = causal && j > i ? 0.0 : m[i * n + j];
                        sp += p;
                        sr += p / row_max[i];
                        ++count;
                    }
                }
                CHECK(raw[y * 7 + x] == Approx(sp / count).epsilon(1e-5));
                CHECK(ratio[y * 7 + x] == Approx(sr / count).epsilon(1e-5));
            }
        }
    }
}

TEST_CASE("pool_rows refuses bad grids") {
    using namespace hirope;
    float cell = 0;
    PoolGrid g;
    g.n = 4;
    g.row_end = g.col_end = 4;
    g.rows = g.cols = 5; // more cells than rows
    CHECK_FALSE(pool_rows(g, &cell, 0, 0, true, &cell, &cell, nullptr).ok());
    g.rows = g.cols = 2;
    g.row_begin = 3;
    g.row_end = 2;
    CHECK(pool_rows(g, &cell, 0, 0, true, &cell, &cell, nullptr).message() ==
          "pool: the region's rows must satisfy 0 <= r0 < r1 <= n");
}
