// Numerical edges: positions far from 0 (docs/schemes.md section 1.6), transforms that leave the
// float range, non-finite matrices in pooling, and the domains of the functions that take doubles.
// Expected values are written from the formulas of docs/schemes.md, never from the library's own
// output at other positions.
#include "hirope/hirope.h"
#include "test_compare.h"
#include "test_schemes.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

using namespace hirope;
using Catch::Detail::Approx;

namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr int32_t kShifts[] = {1 << 24, 1000000};

bool mentions(const std::string& msg, const std::string& what) {
    return msg.find(what) != std::string::npos;
}

std::vector<float> normal_values(int64_t rows, int64_t width, uint64_t seed, int role) {
    std::vector<int32_t> ids(rows);
    for (int64_t t = 0; t < rows; ++t) ids[t] = static_cast<int32_t>(t);
    std::vector<float> out(rows * width);
    seeded_vectors(seed, ids.data(), rows, width, role, out.data());
    return out;
}

// q, k, v and positions t0 + t, units u0 + floor(t / 7), statements s0 + floor(t / 3).
struct Inputs {
    int64_t n;
    int hd, heads;
    std::vector<float> q, k, v;
    std::vector<int32_t> tok, unit, stmt;
    Inputs(int64_t n_, int hd_, int heads_, int32_t t0 = 0, int32_t u0 = 0, int32_t s0 = 0)
        : n(n_), hd(hd_), heads(heads_), q(normal_values(n_, hd_ * heads_, 11, 0)),
          k(normal_values(n_, hd_ * heads_, 11, 1)), v(normal_values(n_, hd_ * heads_, 11, 2)) {
        for (int64_t t = 0; t < n; ++t) {
            tok.push_back(t0 + static_cast<int32_t>(t));
            unit.push_back(u0 + static_cast<int32_t>(t / 7));
            stmt.push_back(s0 + static_cast<int32_t>(t / 3));
        }
    }
    Positions positions() const { return Positions{tok.data(), unit.data(), stmt.data()}; }
    AttentionRequest request(const Scheme& s, Output out, bool causal) const {
        AttentionRequest r;
        r.q = q.data();
        r.k = k.data();
        r.v = v.data();
        r.n = n;
        r.head_dim = hd;
        r.heads = heads;
        r.positions = positions();
        r.scheme = s;
        r.causal = causal;
        r.output = out;
        return r;
    }
};

double worst_difference(const std::vector<float>& a, const std::vector<float>& b) {
    return hirope_test::max_relative_error(a, b);
}

} // namespace

TEST_CASE("Shifting all positions by 2^24 or 1e6 leaves the probabilities of every relative "
          "scheme unchanged, in both kernels",
          "[edges][shift]") {
    for (const NamedScheme& c : all_schemes()) {
        if (!relative_only(c.scheme)) continue; // absolute by definition (section 1.6)
        for (int64_t n : {37, 70}) {
            for (bool causal : {true, false}) {
                if (!causal && is_windowed(c.scheme.type)) continue;
                const Inputs base(n, 16, 2);
                for (Kernel kernel : {Kernel::fast, Kernel::reference}) {
                    std::vector<float> want(2 * n * n), got(2 * n * n);
                    Status st = attention(base.request(c.scheme, Output::probs, causal),
                                          want.data(), kernel);
                    INFO(c.name << " n=" << n << (causal ? " causal" : " full")
                                << (kernel == Kernel::fast ? " fast" : " reference") << ": "
                                << st.message());
                    REQUIRE(st.ok());
                    for (int32_t shift : kShifts) {
                        // Units and statements move by amounts of their own: only their
                        // differences feed the far bands.
                        const Inputs moved(n, 16, 2, shift, shift / 3 + 5, shift / 5 + 1);
                        st = attention(moved.request(c.scheme, Output::probs, causal), got.data(),
                                       kernel);
                        INFO("shift " << shift << ": " << st.message());
                        REQUIRE(st.ok());
                        CHECK(worst_difference(got, want) < 1e-5);
                    }
                }
            }
        }
    }
}

TEST_CASE("Far from 0, the fast kernels match the reference on every scheme, absolute ones "
          "included",
          "[edges][shift]") {
    for (const NamedScheme& c : all_schemes()) {
        for (int32_t shift : kShifts) {
            for (bool causal : {true, false}) {
                if (!causal && is_windowed(c.scheme.type)) continue;
                const int64_t n = 45;
                const Inputs in(n, 16, 2, shift, shift / 3, shift / 5);
                for (Output out : {Output::logits, Output::probs}) {
                    std::vector<float> want(2 * n * n), fast(2 * n * n);
                    const AttentionRequest r = in.request(c.scheme, out, causal);
                    INFO(c.name << " shift " << shift << (causal ? " causal" : " full")
                                << (out == Output::probs ? " probs" : " logits"));
                    REQUIRE(attention(r, want.data(), Kernel::reference).ok());
                    Status st = attention(r, fast.data(), Kernel::fast);
                    INFO(st.message());
                    REQUIRE(st.ok());
                    // The log-n scale multiplies logits by up to ln(2^24) / ln(4096) = 2.
                    CHECK(worst_difference(fast, want) < (out == Output::probs ? 1e-5 : 5e-5));
                }
            }
        }
    }
}

TEST_CASE("Sinusoidal stays absolute: computed in double at any position, and a shift changes "
          "the probabilities",
          "[edges][sinusoidal]") {
    // PE(t)[2i] = sin(t / b^(2i/D)), PE(t)[2i + 1] = cos(t / b^(2i/D)) (section 4.2), added to a
    // zero row.
    const int hd = 8;
    for (int32_t t0 : {(1 << 24) + 3, 1000001, 2147483000}) {
        const std::vector<int32_t> tok = {t0, t0 + 1};
        std::vector<float> x(2 * hd, 0.0f), out(2 * hd);
        Scheme s;
        s.type = SchemeType::sinusoidal;
        REQUIRE(rotate(s, hd, 1, 2, Positions{tok.data()}, Role::key, Branch::near, x.data(),
                       out.data())
                    .ok());
        for (int t = 0; t < 2; ++t)
            for (int i = 0; i < hd / 2; ++i) {
                const double angle = static_cast<double>(tok[t]) / std::pow(10000.0, 2.0 * i / hd);
                CHECK(out[t * hd + 2 * i] == Approx(std::sin(angle)).margin(1e-6));
                CHECK(out[t * hd + 2 * i + 1] == Approx(std::cos(angle)).margin(1e-6));
            }
    }
    const Inputs base(20, 16, 1), moved(20, 16, 1, 1000000);
    Scheme s;
    s.type = SchemeType::sinusoidal;
    std::vector<float> a(400), b(400);
    REQUIRE(attention(base.request(s, Output::probs, true), a.data()).ok());
    REQUIRE(attention(moved.request(s, Output::probs, true), b.data()).ok());
    CHECK(worst_difference(a, b) > 1e-3);
}

TEST_CASE("ALiBi far from 0: logits are -m_h |t_q - t_k| exactly", "[edges][alibi]") {
    // q = k = 0: logit(i, j) = -m_h |t_i - t_j| with m = 1/16, 1/256 for two heads (section
    // 4.4); probabilities of a causal row i: e^(-m (i - j)) / sum_(l = 0..i) e^(-m l).
    const int64_t n = 45;
    const std::vector<float> zero(n * 2 * 4, 0.0f);
    const double slopes[2] = {1.0 / 16, 1.0 / 256};
    for (int32_t t0 : {0, 1 << 24, 1000000, (1 << 30) + 1}) {
        std::vector<int32_t> tok(n);
        for (int64_t t = 0; t < n; ++t) tok[t] = t0 + static_cast<int32_t>(t);
        AttentionRequest r;
        r.q = r.k = zero.data();
        r.n = n;
        r.head_dim = 4;
        r.heads = 2;
        r.positions.token = tok.data();
        r.scheme.type = SchemeType::alibi;
        for (Kernel kernel : {Kernel::fast, Kernel::reference}) {
            INFO("t0 " << t0 << (kernel == Kernel::fast ? " fast" : " reference"));
            std::vector<float> logits(2 * n * n), probs(2 * n * n);
            r.causal = false;
            r.output = Output::logits;
            REQUIRE(attention(r, logits.data(), kernel).ok());
            r.causal = true;
            r.output = Output::probs;
            REQUIRE(attention(r, probs.data(), kernel).ok());
            int wrong_logits = 0, wrong_probs = 0;
            for (int h = 0; h < 2; ++h)
                for (int64_t i = 0; i < n; ++i) {
                    double norm = 0;
                    for (int64_t l = 0; l <= i; ++l) norm += std::exp(-slopes[h] * l);
                    for (int64_t j = 0; j < n; ++j) {
                        const double d = std::fabs(static_cast<double>(i - j));
                        if (logits[(h * n + i) * n + j] != static_cast<float>(-slopes[h] * d))
                            ++wrong_logits;
                        const double p = j <= i ? std::exp(-slopes[h] * d) / norm : 0.0;
                        if (std::fabs(probs[(h * n + i) * n + j] - p) > 2e-6) ++wrong_probs;
                    }
                }
            CHECK(wrong_logits == 0);
            CHECK(wrong_probs == 0);
        }
    }
}

TEST_CASE("ALiBi with positions that span more than 2^24: fast matches the reference",
          "[edges][alibi]") {
    // Two clusters 2^25 + 3 apart: float positions could not hold both exactly.
    const int64_t n = 40;
    std::vector<int32_t> tok(n);
    for (int64_t t = 0; t < n; ++t)
        tok[t] = static_cast<int32_t>(t < 20 ? 5 + t : (1 << 25) + 8 + t);
    const std::vector<float> q = normal_values(n, 8, 3, 0), k = normal_values(n, 8, 3, 1);
    AttentionRequest r;
    r.q = q.data();
    r.k = k.data();
    r.n = n;
    r.head_dim = 8;
    r.positions.token = tok.data();
    r.scheme.type = SchemeType::alibi;
    for (bool causal : {true, false}) {
        r.causal = causal;
        for (Output out : {Output::logits, Output::probs}) {
            r.output = out;
            std::vector<float> want(n * n), got(n * n);
            REQUIRE(attention(r, want.data(), Kernel::reference).ok());
            REQUIRE(attention(r, got.data(), Kernel::fast).ok());
            CHECK(worst_difference(got, want) < 1e-6);
        }
    }
}

TEST_CASE("xPos at position 1e6: keys and queries stay finite and follow the centred formula",
          "[edges][xpos]") {
    // head_dim 2: one pair, theta_0 = 1, zeta_0 = gamma / (1 + gamma) = 0.4 / 1.4. Positions
    // t0 .. t0 + 9 give the centre c = t0 + ceil(10 / 2) = t0 + 5; a key x = (1, 0) at t becomes
    // zeta^(-(t - c) / 512) (cos t, sin t), a query zeta^((t - c) / 512) (cos t, sin t).
    const double zeta = 0.4 / 1.4;
    for (int32_t t0 : {0, 1000000, 1 << 24}) {
        std::vector<int32_t> tok(10);
        std::vector<float> x(20, 0.0f), out(20);
        for (int t = 0; t < 10; ++t) {
            tok[t] = t0 + t;
            x[2 * t] = 1.0f;
        }
        Scheme s;
        s.type = SchemeType::xpos;
        for (Role role : {Role::key, Role::query}) {
            INFO("t0 " << t0 << (role == Role::key ? " key" : " query"));
            REQUIRE(
                rotate(s, 2, 1, 10, Positions{tok.data()}, role, Branch::near, x.data(), out.data())
                    .ok());
            for (int t = 0; t < 10; ++t) {
                const double power = (t - 5) / 512.0;
                const double f = std::pow(zeta, role == Role::query ? power : -power);
                const double angle = static_cast<double>(t0 + t);
                CHECK(std::isfinite(out[2 * t]));
                CHECK(out[2 * t] == Approx(f * std::cos(angle)).margin(1e-6));
                CHECK(out[2 * t + 1] == Approx(f * std::sin(angle)).margin(1e-6));
            }
        }
    }
}

TEST_CASE("The xPos centre is rebased on the smallest position and follows frequency_length",
          "[edges][xpos][rotator]") {
    std::vector<int32_t> tok(19);
    Scheme s;
    s.type = SchemeType::xpos;
    for (int32_t t0 : {0, 1000000, -100}) {
        for (int t = 0; t < 19; ++t) tok[t] = t0 + t;
        Rotator r;
        REQUIRE(r.prepare(s, 8, 1, 19, Positions{tok.data()}).ok());
        CHECK(r.xpos_centre() == t0 + 10.0); // t0 + ceil(19 / 2)
        // frequency_length 64 (a decoder's final length, counted from position 0):
        // t0 + ceil((max(64, t0 + 19) - t0) / 2): 32 from 0, t0 + 10 from 1e6, and from -100
        // -100 + ceil(164 / 2) = -18.
        REQUIRE(r.prepare(s, 8, 1, 19, Positions{tok.data()}, 64).ok());
        CHECK(r.xpos_centre() == (t0 == 0 ? 32.0 : t0 == -100 ? -100 + 82.0 : t0 + 10.0));
    }
    Scheme rope;
    Rotator r;
    REQUIRE(r.prepare(rope, 8, 1, 19, Positions{tok.data()}).ok());
    CHECK(r.xpos_centre() == 0.0);
}

TEST_CASE("xPos scales beyond the float range are errors naming the scheme and the token",
          "[edges][xpos][errors]") {
    // scale_base 1 and positions 0 and 1000: c = 0 + ceil(1001 / 2) = 501. The key at 1000 needs
    // zeta^(-499) = 3.5^499, and the query at 0 zeta^(-501): both beyond the float range.
    const std::vector<int32_t> tok = {0, 1000};
    Scheme s;
    s.type = SchemeType::xpos;
    s.xpos_scale_base = 1;
    const Positions pos{tok.data()};
    std::vector<float> x(16, 0.5f), out(16), a(16), b(16), c(16);
    std::vector<int32_t> partner(8);

    Status st = rotate(s, 8, 1, 2, pos, Role::key, Branch::near, x.data(), out.data());
    INFO(st.message());
    CHECK(mentions(st.message(), "xpos: rotation overflowed at token 1 (xPos scale at position "
                                 "1000 of the key"));
    st = rotate(s, 8, 1, 2, pos, Role::query, Branch::near, x.data(), out.data());
    CHECK(mentions(st.message(), "xpos: rotation overflowed at token 0 (xPos scale at position 0 "
                                 "of the query"));
    st = transform_coefficients(s, 8, 2, pos, Role::key, Branch::near, a.data(), b.data(), c.data(),
                                partner.data());
    CHECK(mentions(st.message(), "rotation overflowed at token 1"));

    Rotator rot;
    REQUIRE(rot.prepare(s, 8, 1, 2, pos).ok());
    CHECK(mentions(rot.rotate_rows(Role::key, Branch::near, 1, 2, x.data(), out.data()).message(),
                   "rotation overflowed at token 1"));
    CHECK(rot.rotate_rows(Role::key, Branch::near, 0, 1, x.data(), out.data()).ok());
    CHECK(out[0] == 0.0f); // zeta^501 underflows: a finite 0, no error

    // The fast kernel factors zeta^(delta / B) per token and reports the overflow; the reference
    // evaluates zeta^(delta / B) per pair and stays finite (causal: delta >= 0).
    AttentionRequest r;
    r.q = x.data();
    r.k = x.data();
    r.n = 2;
    r.head_dim = 8;
    r.positions = pos;
    r.scheme = s;
    std::vector<float> probs(4);
    CHECK(
        mentions(attention(r, probs.data(), Kernel::fast).message(), "xpos: rotation overflowed"));
    REQUIRE(attention(r, probs.data(), Kernel::reference).ok());
    CHECK(probs[0] == 1.0f);
}

TEST_CASE("rotate and the Rotator never return a non-finite value without an error",
          "[edges][errors]") {
    // RoPE at position 1 with x = (3e38, 3e38): 3e38 (sin 1 + cos 1) = 4.1e38 > FLT_MAX.
    const std::vector<int32_t> tok = {0, 1};
    const Positions pos{tok.data()};
    std::vector<float> x(4, 3e38f), out(4);
    Scheme s;
    Status st = rotate(s, 2, 1, 2, pos, Role::key, Branch::near, x.data(), out.data());
    CHECK(st.message() == "rope: rotation overflowed at token 1 (key at position 1: the values "
                          "times the scheme's factors exceed the float range)");
    Rotator rot;
    REQUIRE(rot.prepare(s, 2, 1, 2, pos).ok());
    CHECK(mentions(rot.rotate_rows(Role::query, Branch::near, 0, 2, x.data(), out.data()).message(),
                   "rope: rotation overflowed at token 1 (query at position 1"));
    // Token 0 alone is the identity: fine.
    CHECK(rot.rotate_rows(Role::query, Branch::near, 0, 1, x.data(), out.data()).ok());
    // A NaN input is named as such, by the Rotator as by rotate().
    x[3] = std::numeric_limits<float>::quiet_NaN();
    CHECK(mentions(
        rot.rotate_rows(Role::query, Branch::near, 1, 2, x.data() + 2, out.data()).message(),
        "x contains a non-finite value (NaN) at index 1"));
    CHECK(mentions(rotate(s, 2, 1, 2, pos, Role::key, Branch::near, x.data(), out.data()).message(),
                   "x contains a non-finite value (NaN) at index 3"));
    // The attention factor beyond the float range, in the coefficients.
    Scheme big;
    big.scaling.type = ScalingType::yarn;
    big.scaling.factor = 2;
    big.scaling.original_length = 16;
    big.scaling.attention_factor = 1e39;
    std::vector<float> a(4), b(4), c(4);
    std::vector<int32_t> partner(2);
    CHECK(mentions(transform_coefficients(big, 2, 2, pos, Role::key, Branch::near, a.data(),
                                          b.data(), c.data(), partner.data())
                       .message(),
                   "rope: rotation overflowed at token 0"));
}

TEST_CASE("pool_rows reports a NaN or an infinity with its row and column", "[edges][pool]") {
    const int64_t n = 9;
    std::vector<float> m(n * n, 0.1f);
    PoolGrid g;
    g.n = n;
    g.row_end = g.col_end = n;
    g.rows = g.cols = 3;
    std::vector<float> ratio(9), raw(9), row_max(n);
    m[5 * n + 3] = std::numeric_limits<float>::quiet_NaN();
    CHECK(pool_rows(g, m.data(), 0, n, true, ratio.data(), raw.data(), row_max.data()).message() ==
          "pool: the matrix holds NaN at row 5, column 3 (entries must be finite)");
    // Strips report the matrix row, not the strip row.
    CHECK(mentions(
        pool_rows(g, m.data() + 4 * n, 4, n, false, ratio.data(), raw.data(), nullptr).message(),
        "at row 5, column 3"));
    m[5 * n + 3] = 0.1f;
    m[2 * n + 7] = std::numeric_limits<float>::infinity();
    CHECK(pool_rows(g, m.data(), 0, n, false, ratio.data(), raw.data(), nullptr).message() ==
          "pool: the matrix holds an infinity at row 2, column 7 (entries must be finite)");
    // Masked entries are not read: a causal matrix may hold anything above the diagonal (logits
    // are -infinity there).
    m[2 * n + 7] = -std::numeric_limits<float>::infinity();
    m[0 * n + 8] = std::numeric_limits<float>::quiet_NaN();
    std::fill(ratio.begin(), ratio.end(), 0.0f);
    std::fill(raw.begin(), raw.end(), 0.0f);
    REQUIRE(pool_rows(g, m.data(), 0, n, true, ratio.data(), raw.data(), row_max.data()).ok());
    pool_finish(g, ratio.data(), raw.data());
    // Cell (0, 0): rows 0 - 2, columns 0 - 2, 6 unmasked entries of 0.1 out of 9.
    CHECK(raw[0] == Approx(0.6 / 9));
    CHECK(row_max[8] == Approx(0.1));
}

TEST_CASE("split_fraction's domain: NaN outside it, errors from the checked form",
          "[edges][hirope]") {
    const double inf = std::numeric_limits<double>::infinity();
    const double nan = std::numeric_limits<double>::quiet_NaN();
    // ln(4096 / 2 pi) / ln(10000) = 6.4799 / 9.2103 = 0.70355.
    double split = 0;
    REQUIRE(split_fraction_checked(4096, 10000, &split).ok());
    CHECK(split == Approx(std::log(4096 / (2 * kPi)) / std::log(10000.0)));
    CHECK(split == Approx(0.7035).margin(5e-5));
    CHECK(split_fraction(4096, 10000) == split);
    // Below 2 pi the fraction is negative: finite, not clamped (section 6.5).
    REQUIRE(split_fraction_checked(1, 10000, &split).ok());
    CHECK(split == Approx(-std::log(2 * kPi) / std::log(10000.0)));

    CHECK(std::isnan(split_fraction(inf, inf)));
    CHECK(std::isnan(split_fraction(4096, inf)));
    CHECK(std::isnan(split_fraction(inf, 10000)));
    CHECK(std::isnan(split_fraction(4096, 1)));
    CHECK(std::isnan(split_fraction(0, 10000)));
    CHECK(std::isnan(split_fraction(nan, 10000)));
    split = 7;
    CHECK(split_fraction_checked(inf, inf, &split).message() ==
          "trainingLength must be a positive number, got inf");
    CHECK(split_fraction_checked(-1, 10000, &split).message() ==
          "trainingLength must be a positive number, got -1");
    CHECK(split_fraction_checked(nan, 10000, &split).message() ==
          "trainingLength must be a positive number, got nan");
    CHECK(split_fraction_checked(4096, inf, &split).message() ==
          "base must be a number > 1, got inf");
    CHECK(split_fraction_checked(4096, 1, &split).message() == "base must be a number > 1, got 1");
    CHECK(split == 7); // untouched on error

    // split_bound: a HiRoPE scheme's training_length (checked by validate() only with log_n).
    Scheme s;
    s.type = SchemeType::hirope;
    SplitBound b;
    s.training_length = inf;
    CHECK(split_bound(s, 64, &b).message() ==
          "scheme.trainingLength must be a positive number, got inf");
    s.training_length = nan;
    CHECK(mentions(split_bound(s, 64, &b).message(), "scheme.trainingLength"));
    s.training_length = 4096;
    s.base = inf;
    CHECK(mentions(split_bound(s, 64, &b).message(), "scheme.base"));
}

TEST_CASE("yarn_correction_range checks its arguments", "[edges][scaling]") {
    const double inf = std::numeric_limits<double>::infinity();
    double low = -1, high = -1;
    // c(r) = d ln(L0 / (2 pi r)) / (2 ln b): d = 128, L0 = 4096, b = 10000.
    REQUIRE(yarn_correction_range(32, 1, 128, 10000, 4096, &low, &high).ok());
    CHECK(low == Approx(128 * std::log(4096 / (2 * kPi * 32)) / (2 * std::log(10000.0))));
    CHECK(high == Approx(128 * std::log(4096 / (2 * kPi)) / (2 * std::log(10000.0))));
    low = high = -1;
    CHECK(yarn_correction_range(inf, 1, 128, 10000, 4096, &low, &high).message() ==
          "betaFast must be a positive number, got inf");
    CHECK(yarn_correction_range(32, 0, 128, 10000, 4096, &low, &high).message() ==
          "betaSlow must be a positive number, got 0");
    CHECK(yarn_correction_range(32, 1, 0, 10000, 4096, &low, &high).message() ==
          "dim must be at least 2, got 0");
    CHECK(yarn_correction_range(32, 1, 128, inf, 4096, &low, &high).message() ==
          "base must be a number > 1, got inf");
    CHECK(yarn_correction_range(32, 1, 128, 10000, std::nan(""), &low, &high).message() ==
          "originalLength must be a positive number, got nan");
    CHECK(low == -1);
    CHECK(high == -1);
}

TEST_CASE("Relative distances do not move with the positions", "[edges][shift]") {
    // HiRoPE, W = 3, the paper's Fig. 2 units, with tokens at 1e6 and units at 2^24: the same
    // matrix as at 0 (section 6.3).
    const float expected[6][6] = {{0},          {1, 0},          {2, 1, 0},
                                  {2, 2, 1, 0}, {3, 3, 2, 1, 0}, {3, 3, 3, 2, 1, 0}};
    std::vector<int32_t> tok(6), unit = {0, 0, 0, 0, 1, 1};
    for (int t = 0; t < 6; ++t) tok[t] = 1000000 + t;
    for (int32_t& u : unit) u += 1 << 24;
    Scheme s;
    s.type = SchemeType::hirope;
    s.window = 3;
    std::vector<float> d(36);
    REQUIRE(relative_distances(s, 8, 6, Positions{tok.data(), unit.data()}, 1, d.data()).ok());
    for (int i = 0; i < 6; ++i)
        for (int j = 0; j <= i; ++j) CHECK(d[i * 6 + j] == expected[i][j]);
}

TEST_CASE("A scaling without its factor says the factor is required", "[edges][errors]") {
    // The bindings pass NaN for a required parameter left out; the message names it as missing,
    // not as a bad value ("must be a positive number, got nan").
    for (ScalingType type : {ScalingType::yarn, ScalingType::linear, ScalingType::llama3}) {
        Scheme s;
        s.type = SchemeType::rope;
        s.scaling.type = type;
        s.scaling.original_length = 4096;
        s.scaling.factor = std::nan("");
        const std::string message = validate(s, 64).message();
        CHECK(message.rfind("scheme.scaling.factor is required (", 0) == 0);
    }
}
