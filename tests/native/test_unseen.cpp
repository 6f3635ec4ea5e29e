// unseen_pairs (hirope.h, "Angles unseen in training") against values written here from the
// scalings' formulas, transcribed from transformers' modeling_rope_utils.py in double precision
// (_compute_default_rope_parameters, _compute_linear_scaling_rope_parameters,
// _compute_yarn_parameters, _compute_llama3_parameters, _compute_longrope_parameters), and counts
// worked out by hand from them; never from the library's own output.
#include "hirope/hirope.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <vector>

using namespace hirope;
using Catch::Detail::Approx;

namespace {

constexpr double kPi = 3.14159265358979323846;

// base ** -(arange(0, d, 2) / d)
std::vector<double> plain(double base, int d) {
    std::vector<double> f(d / 2);
    for (int j = 0; j < d / 2; ++j) f[j] = 1.0 / std::pow(base, 2.0 * j / d);
    return f;
}

// _compute_yarn_parameters' inv_freq (find_correction_range, linear_ramp_factor).
std::vector<double> yarn(double base, int d, double factor, double original, double beta_fast,
                         double beta_slow, bool truncate) {
    auto dim = [&](double rotations) {
        return d * std::log(original / (rotations * 2 * kPi)) / (2 * std::log(base));
    };
    double low = dim(beta_fast), high = dim(beta_slow);
    if (truncate) {
        low = std::floor(low);
        high = std::ceil(high);
    }
    low = std::max(low, 0.0);
    high = std::min(high, d - 1.0);
    if (low == high) high += 0.001;
    std::vector<double> f = plain(base, d);
    for (int j = 0; j < d / 2; ++j) {
        const double ramp = std::min(1.0, std::max(0.0, (j - low) / (high - low)));
        const double extrapolation_factor = 1 - ramp;
        f[j] = f[j] / factor * (1 - extrapolation_factor) + f[j] * extrapolation_factor;
    }
    return f;
}

// _compute_llama3_parameters' inv_freq_llama.
std::vector<double> llama3(double base, int d, double factor, double low_freq_factor,
                           double high_freq_factor, double old_context) {
    std::vector<double> f = plain(base, d);
    for (double& x : f) {
        const double wavelen = 2 * kPi / x;
        const double scaled = wavelen > old_context / low_freq_factor ? x / factor : x;
        const bool medium = !(wavelen < old_context / high_freq_factor) &&
                            !(wavelen > old_context / low_freq_factor);
        const double smooth =
            (old_context / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor);
        x = medium ? (1 - smooth) * scaled / factor + smooth * scaled : scaled;
    }
    return f;
}

// The rule as hirope.h states it, over frequencies computed above.
int expected_count(const std::vector<double>& trained, const std::vector<double>& now,
                   double seen_distance, double distance) {
    int count = 0;
    for (size_t j = 0; j < trained.size(); ++j)
        if (now[j] * distance > trained[j] * (seen_distance + 1) &&
            trained[j] * seen_distance < 2 * kPi)
            ++count;
    return count;
}

Scheme rope(double base) {
    Scheme s;
    s.base = base;
    return s;
}

UnseenPairs run(const UnseenRequest& r) {
    UnseenPairs u;
    Status st = unseen_pairs(r, &u);
    INFO(st.message());
    REQUIRE(st.ok());
    return u;
}

UnseenRequest request(const Scheme& s, int head_dim, int64_t trained, int64_t length) {
    UnseenRequest r;
    r.scheme = s;
    r.head_dim = head_dim;
    r.trained_length = trained;
    r.length = length;
    return r;
}

} // namespace

TEST_CASE("unseen pairs of plain RoPE past its training length", "[unseen][spec]") {
    // Mistral 7B v0.3 (base 1e6, d 128, L 32768) at 65,536: theta_j * 32767 < 2 pi from
    // j > 64 ln(32767 / 2 pi) / ln(1e6) = 39.65, so pairs 40..63: 24 of 64.
    UnseenPairs u = run(request(rope(1e6), 128, 32768, 65536));
    CHECK(u.pairs == 64);
    CHECK(u.rotated == 64);
    CHECK(u.count == 24);
    CHECK(u.trained_distance == 32767);
    CHECK(u.distance == 65535);
    for (int j = 0; j < 64; ++j) {
        CHECK(u.unseen[j] == (j >= 40 ? 1 : 0));
        CHECK(u.trained_frequencies[j] == Approx(std::pow(1e6, -j / 64.0)).epsilon(1e-14));
        CHECK(u.angles[j] == Approx(std::pow(1e6, -j / 64.0) * 65535).epsilon(1e-14));
        CHECK(u.seen_angles[j] == Approx(std::pow(1e6, -j / 64.0) * 32767).epsilon(1e-14));
        if (j < 40)
            CHECK(std::isinf(u.limits[j]));
        else
            CHECK(u.limits[j] == Approx(std::pow(1e6, -j / 64.0) * 32768).epsilon(1e-14));
    }
    // Split% * pairs: 64 ln(32768 / 2 pi) / ln(1e6) (docs/schemes.md section 6.5).
    CHECK(u.split_pair == Approx(64 * std::log(32768 / (2 * kPi)) / std::log(1e6)).epsilon(1e-12));
    // Within the training length, and one position past it (D(N) = D(L) + 1), nothing.
    CHECK(run(request(rope(1e6), 128, 32768, 32768)).count == 0);
    CHECK(run(request(rope(1e6), 128, 32768, 32769)).count == 0);
    CHECK(run(request(rope(1e6), 128, 32768, 32770)).count == 24);
    CHECK(run(request(rope(1e6), 128, 32768, 1)).count == 0);
}

TEST_CASE("unseen pairs under Position Interpolation, after training or trained with",
          "[unseen][spec]") {
    Scheme pi = rope(1e4);
    pi.scaling.type = ScalingType::linear;
    pi.scaling.factor = 4;
    // Put on RoPE trained at 128 (d 64): theta / 4 * (N - 1) passes theta * 128 from N = 514;
    // the pairs that never turned are theta_j * 127 < 2 pi: j > 32 ln(127 / 2 pi) / ln(1e4)
    // = 10.44, 21 of 32.
    UnseenRequest r = request(pi, 64, 128, 513);
    r.scaled_after_training = true;
    CHECK(run(r).count == 0);
    r.length = 514;
    CHECK(run(r).count == 21);
    CHECK(run(r).count == expected_count(
                              plain(1e4, 64),
                              [] {
                                  std::vector<double> f = plain(1e4, 64);
                                  for (double& x : f) x /= 4;
                                  return f;
                              }(),
                              127, 513));
    CHECK(run(r).split_pair ==
          Approx(32 * std::log(128 / (2 * kPi)) / std::log(1e4)).epsilon(1e-12));
    // Trained with at 128 (a config naming no length before it): theta / 4 was what training
    // turned, so one step past 128 is already unseen for theta_j / 4 * 127 < 2 pi:
    // j > 32 ln(127 / 8 pi) / ln(1e4) = 5.63, 26 of 32; Split% on theta / 4.
    r.scaled_after_training = false;
    r.length = 129;
    CHECK(run(r).count == 0);
    r.length = 130;
    CHECK(run(r).count == 26);
    CHECK(run(r).split_pair ==
          Approx(32 * std::log(128 / (4 * 2 * kPi)) / std::log(1e4)).epsilon(1e-12));
}

TEST_CASE("unseen pairs of Gemma 3 27B's global layer past its maximum", "[unseen][spec]") {
    // Linear x8 trained with at 131,072 (base 1e6, d 128): at 661,900 positions the pairs with
    // theta_j / 8 * 131071 < 2 pi, j > 64 ln(131071 / 16 pi) / ln(1e6) = 36.44: 27 of 64; Split%
    // turns 37 pairs (0..36) within 131,072, where the unscaled base would turn 47.
    Scheme s = rope(1e6);
    s.scaling.type = ScalingType::linear;
    s.scaling.factor = 8;
    UnseenPairs u = run(request(s, 128, 131072, 661900));
    CHECK(u.count == 27);
    CHECK(std::ceil(u.split_pair) == 37);
    CHECK(u.split_pair ==
          Approx(64 * std::log(131072 / (8 * 2 * kPi)) / std::log(1e6)).epsilon(1e-12));
    CHECK(run(request(s, 128, 131072, 131072)).count == 0);
    // Its local layers (base 1e4, window 1,024) see no distance past 1,023 at any length.
    UnseenRequest local = request(rope(1e4), 128, 131072, 661900);
    local.reach = 1024;
    u = run(local);
    CHECK(u.count == 0);
    CHECK(u.trained_distance == 1023);
    CHECK(u.distance == 1023);
    // A window longer than the code: the code's own distance.
    local.reach = 262144;
    local.length = 4000;
    CHECK(run(local).distance == 3999);
}

TEST_CASE("unseen pairs of YaRN against the unscaled frequencies", "[unseen][spec]") {
    // GPT-oss 20B: base 150000, d 64, YaRN x32 over 4,096, beta 32 / 1, truncate false.
    Scheme s = rope(150000);
    s.scaling.type = ScalingType::yarn;
    s.scaling.factor = 32;
    s.scaling.original_length = 4096;
    s.scaling.truncate = false;
    const std::vector<double> now = yarn(150000, 64, 32, 4096, 32, 1, false);
    const std::vector<double> trained = plain(150000, 64);
    for (int64_t n : {4096, 8192, 131072, 131074, 262144, 1 << 20}) {
        UnseenPairs u = run(request(s, 64, 4096, n));
        INFO("N = " << n);
        CHECK(u.count == expected_count(trained, now, 4095, n - 1.0));
        for (int j = 0; j < 32; ++j) {
            CHECK(u.frequencies[j] == Approx(now[j]).epsilon(1e-13));
            CHECK(u.trained_frequencies[j] == Approx(trained[j]).epsilon(1e-13));
        }
    }
    // x32 over 4,096 reaches exactly 131,072: theta / 32 * 131071 < theta * 4096.
    CHECK(run(request(s, 64, 4096, 131072)).count == 0);
    CHECK(run(request(s, 64, 4096, 262144)).count > 0);
    // The default truncation (DeepSeek-V3's YaRN x40 over 4,096, base 1e4, 64 rotated dims).
    Scheme ds = rope(1e4);
    ds.scaling.type = ScalingType::yarn;
    ds.scaling.factor = 40;
    ds.scaling.original_length = 4096;
    const std::vector<double> ds_now = yarn(1e4, 64, 40, 4096, 32, 1, true);
    for (int64_t n : {163840, 163842, 1 << 20})
        CHECK(run(request(ds, 64, 4096, n)).count ==
              expected_count(plain(1e4, 64), ds_now, 4095, n - 1.0));
    CHECK(run(request(ds, 64, 4096, 163840)).count == 0);
    // A training length past originalLength: the model trained with YaRN there.
    UnseenPairs past = run(request(s, 64, 8192, 8192));
    for (int j = 0; j < 32; ++j)
        CHECK(past.trained_frequencies[j] == Approx(now[j]).epsilon(1e-13));
}

TEST_CASE("unseen pairs of llama3 scaling at 16 times its original length", "[unseen][spec]") {
    // Llama 3.1 8B: base 500000, d 128, x8, low 1, high 4, over 8,192. At 131,072 the pairs with
    // wavelength past 8,192 are divided by 8 while the length grows 16-fold: 29 of 64.
    Scheme s = rope(500000);
    s.scaling.type = ScalingType::llama3;
    s.scaling.factor = 8;
    s.scaling.original_length = 8192;
    s.scaling.low_freq_factor = 1;
    s.scaling.high_freq_factor = 4;
    const std::vector<double> now = llama3(500000, 128, 8, 1, 4, 8192);
    const std::vector<double> trained = plain(500000, 128);
    UnseenPairs u = run(request(s, 128, 8192, 131072));
    CHECK(u.count == 29);
    CHECK(u.count == expected_count(trained, now, 8191, 131071));
    // At 65,238 positions (the code's span in the YaRN-vs-Llama-3 preset, 166 apart): theta / 8 *
    // 65237 < theta * 8192, and the smoothed pairs turned within 8,192: none.
    CHECK(run(request(s, 128, 8192, 65238)).count == 0);
    CHECK(expected_count(trained, now, 8191, 65237) == 0);
    // Past 8 * 8,192 + 1 the 29 pairs of wavelength over 8,192 turn too far.
    CHECK(run(request(s, 128, 8192, 65537)).count == 0);
    CHECK(run(request(s, 128, 8192, 65538)).count == expected_count(trained, now, 8191, 65537));
}

TEST_CASE("unseen pairs of LongRoPE against its short factors", "[unseen][spec]") {
    // d 8, base 1e4, over 4,096: short factors at 4,096, long ones past it
    // (_compute_longrope_parameters: 1 / (ext_factors * base ** (arange(0, d, 2) / d))).
    Scheme s = rope(1e4);
    s.scaling.type = ScalingType::longrope;
    s.scaling.factor = 32;
    s.scaling.original_length = 4096;
    s.scaling.short_factor = {1, 1.5, 2, 3};
    s.scaling.long_factor = {1, 4, 40, 64};
    std::vector<double> trained = plain(1e4, 8), now = plain(1e4, 8);
    for (int j = 0; j < 4; ++j) {
        trained[j] /= s.scaling.short_factor[j];
        now[j] /= s.scaling.long_factor[j];
    }
    // Pair 0 turns (1 * 4095 > 2 pi); pair 1 (0.1 / 1.5 * 4095 = 273) too; pair 2 (0.01 / 2 *
    // 4095 = 20.5) too; pair 3: 0.001 / 3 * 4095 = 1.365 < 2 pi, and at 131,072 0.001 / 64 *
    // 131071 = 2.048 > 0.001 / 3 * 4096 = 1.365: 1 of 4.
    UnseenPairs u = run(request(s, 8, 4096, 131072));
    CHECK(u.count == 1);
    CHECK(u.unseen == std::vector<uint8_t>{0, 0, 0, 1});
    CHECK(u.count == expected_count(trained, now, 4095, 131071));
    for (int j = 0; j < 4; ++j) CHECK(u.trained_frequencies[j] == Approx(trained[j]));
    // 0.001 / 64 * (N - 1) > 0.001 / 3 * 4096 from N - 1 > 87381.3.
    CHECK(run(request(s, 8, 4096, 87382)).count == 0);
    CHECK(run(request(s, 8, 4096, 87383)).count == 1);
}

TEST_CASE("unseen pairs over a band's own distances, proportional RoPE", "[unseen][spec]") {
    // HiRoPE (d 16, ratio 0.5): the token band's pairs see the token distance, the unit band's
    // the unit distance the caller gives (relative_distances).
    Scheme h = rope(1e4);
    h.type = SchemeType::hirope;
    h.ratio = 0.5;
    h.window = 64;
    UnseenRequest r = request(h, 16, 256, 2000);
    r.band_distances = {1999, 12};
    UnseenPairs u = run(r);
    const std::vector<double> f = plain(1e4, 16);
    std::vector<double> d = {1999, 1999, 1999, 1999, 12, 12, 12, 12};
    int count = 0;
    for (int j = 0; j < 8; ++j) {
        CHECK(u.distances[j] == d[j]);
        if (f[j] * d[j] > f[j] * 256 && f[j] * 255 < 2 * kPi) ++count;
    }
    CHECK(u.count == count);
    // theta_j * 255 < 2 pi from j > 8 ln(255 / 2 pi) / ln(1e4) = 3.22: token pairs 0..3 all turn
    // but pair 3 (1e-1.5 * 255 = 8.06 > 2 pi) does too, so none there; the unit pairs see 12.
    CHECK(u.count == 0);
    r.band_distances = {1999, 300};
    CHECK(run(r).count == 4);
    // Proportional RoPE (p 0.25, d 16): pairs 2..7 do not rotate and are never unseen.
    Scheme p = rope(1e4);
    p.scaling.type = ScalingType::proportional;
    p.scaling.partial_rotary_factor = 0.25;
    u = run(request(p, 16, 2, 1 << 20));
    CHECK(u.rotated == 2);
    CHECK(u.count == 2); // theta * 1 < 2 pi for both, and far past them at 2^20
    CHECK(u.split_pair <= 2);
}

TEST_CASE("unseen_pairs names what is wrong", "[unseen][errors]") {
    UnseenPairs u;
    u.count = -7;
    Scheme alibi;
    alibi.type = SchemeType::alibi;
    Status st = unseen_pairs(request(alibi, 64, 10, 10), &u);
    CHECK(st.message() == "scheme 'alibi' has no rotary frequencies");
    st = unseen_pairs(request(rope(1e4), 63, 10, 10), &u);
    CHECK(st.message().find("head_dim") != std::string::npos);
    st = unseen_pairs(request(rope(1e4), 64, 0, 10), &u);
    CHECK(st.message() == "trained_length must be an integer from 1 to 2^53, got 0");
    st = unseen_pairs(request(rope(1e4), 64, 10, -1), &u);
    CHECK(st.message() == "length must be an integer from 1 to 2^53, got -1");
    UnseenRequest r = request(rope(1e4), 64, 10, 10);
    r.reach = -3;
    CHECK(unseen_pairs(r, &u).message() == "reach must be an integer from 0 to 2^53, got -3");
    r.reach = 0;
    r.band_distances = {1, 2};
    CHECK(unseen_pairs(r, &u).message() ==
          "band_distances must have one entry per band (1), got 2");
    r.band_distances = {std::numeric_limits<double>::quiet_NaN()};
    CHECK(unseen_pairs(r, &u).message() ==
          "band_distances[0] must be a finite number >= 0, got nan");
    CHECK(u.count == -7); // left unchanged
}
