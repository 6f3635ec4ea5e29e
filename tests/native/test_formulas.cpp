// Expected values computed by hand from the formulas in docs/schemes.md (or quoted from the papers
// where the page quotes them), never taken from the library's own output: HiRoPE's window rule
// (section 6.3, the paper's Fig. 2) and bands (6.2, 6.4); Split% and periods (6.5, the paper's
// Table 7); RoPE and partial rotation (1.3, 2.1); the scalings (3.1 - 3.6); ALiBi slopes (4.4);
// windowed distances (5.2 - 5.4); the long-term decay curve (7.2).
#include "hirope/hirope.h"
#include "test_compare.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

using namespace hirope;
using Catch::Detail::Approx;

namespace {

constexpr double kPi = 3.14159265358979323846;

Scheme hirope_scheme(double ratio, int64_t window) {
    Scheme s;
    s.type = SchemeType::hirope;
    s.ratio = ratio;
    s.window = window;
    return s;
}

} // namespace

TEST_CASE("HiRoPE window matrix of the paper's Fig. 2", "[hirope][spec]") {
    // Six tokens, units [0,0,0,0,1,1], L_window = 3; rows are queries. The matrix is the paper's
    // Fig. 2, computed from the unit band's window rule (docs/schemes.md section 6.3).
    const std::vector<int32_t> tok = {0, 1, 2, 3, 4, 5}, unit = {0, 0, 0, 0, 1, 1};
    const Positions pos{tok.data(), unit.data(), nullptr};
    const float expected[6][6] = {{0},          {1, 0},          {2, 1, 0},
                                  {2, 2, 1, 0}, {3, 3, 2, 1, 0}, {3, 3, 3, 2, 1, 0}};
    Scheme s = hirope_scheme(0.5, 3);
    std::vector<float> d(36);
    REQUIRE(bands(s, 8).size() == 2);
    REQUIRE(bands(s, 8)[1].name == "unit");
    REQUIRE(relative_distances(s, 8, 6, pos, 1, d.data()).ok());
    for (int i = 0; i < 6; ++i)
        for (int j = 0; j <= i; ++j) CHECK(d[i * 6 + j] == expected[i][j]);
    CHECK(std::isnan(d[0 * 6 + 1]));
    // The token band always sees the plain token distance.
    REQUIRE(relative_distances(s, 8, 6, pos, 0, d.data()).ok());
    for (int i = 0; i < 6; ++i)
        for (int j = 0; j <= i; ++j) CHECK(d[i * 6 + j] == i - j);
}

TEST_CASE("HiRoPE splits by frequency index with round_to_even(ratio * d)", "[hirope][spec]") {
    CHECK(band_pairs(hirope_scheme(0.5, 512), 128) == std::vector<int>{32, 32});
    CHECK(band_pairs(hirope_scheme(1.0, 512), 128) == std::vector<int>{64, 0});
    CHECK(band_pairs(hirope_scheme(0.0, 512), 128) == std::vector<int>{0, 64});
    // 1/3 of d = 48 is 16 dims = 8 pairs; of d = 64, 21.33 rounds to 22 dims = 11 pairs.
    CHECK(band_pairs(hirope_scheme(1.0 / 3, 512), 48) == std::vector<int>{8, 16});
    CHECK(band_pairs(hirope_scheme(1.0 / 3, 512), 64) == std::vector<int>{11, 21});
    Scheme three = hirope_scheme(0.5, 512);
    three.levels = 3;
    three.statement_ratio = 0.25;
    CHECK(band_pairs(three, 128) == std::vector<int>{32, 16, 16});
    const std::vector<Band> b = bands(three, 128);
    CHECK(b[0].name == "token");
    CHECK(b[1].name == "statement");
    CHECK(b[2].name == "unit");
    CHECK(b[2].pair_begin == 48);
    Scheme printed = hirope_scheme(0.25, 512);
    printed.token_on_high = true;
    const std::vector<Band> r = bands(printed, 64);
    CHECK(r[0].name == "unit");
    CHECK(r[0].pair_end == 24);
    CHECK(r[1].name == "token");
}

TEST_CASE("Split% and periods (Table 7, docs/schemes.md section 6.5)", "[hirope][spec]") {
    CHECK(split_fraction(4096, 10000) == Approx(0.7035).margin(5e-5));
    CHECK(split_fraction(4096, 10000) * 128 == Approx(90.05).margin(5e-3));
    CHECK(split_fraction(2048, 10000) == Approx(0.6283).margin(5e-5));
    CHECK(split_fraction(2048, 10000) * 64 == Approx(40.21).margin(5e-3));
    CHECK(split_fraction(2048, 10000) * 128 == Approx(80.42).margin(5e-3));
    Scheme s = hirope_scheme(0.5, 512);
    std::vector<double> f;
    REQUIRE(inverse_frequencies(s, 128, 1, &f).ok());
    // Token pairs j < 32: periods up to 2 pi 10000^(62/128) = 544.1; unit pairs 628.3 .. 54410.
    CHECK(2 * kPi / f[31] == Approx(544.1).margin(0.05));
    CHECK(2 * kPi / f[32] == Approx(628.3).margin(0.05));
    CHECK(2 * kPi / f[63] == Approx(54410).margin(1));
}

TEST_CASE("Split% bound of a HiRoPE token band (docs/schemes.md section 6.5)", "[hirope][spec]") {
    // L = 128, b = 10000, d = 48: split = ln(128 / 2 pi) / ln(10000) = 0.32726, so
    // split * 24 = 7.854 pairs: a band of 8 token pairs (pairs 0..7) is within, 9 is over.
    Scheme s = hirope_scheme(8.0 / 24, 16);
    s.training_length = 128;
    SplitBound b;
    REQUIRE(split_bound(s, 48, &b).ok());
    CHECK(b.split == Approx(0.32726).margin(5e-6));
    CHECK(b.pairs == 24);
    CHECK(b.token_pairs == 8);
    CHECK(b.max_token_pairs == 8);
    CHECK_FALSE(b.over);
    s.ratio = 9.0 / 24;
    REQUIRE(split_bound(s, 48, &b).ok());
    CHECK(b.token_pairs == 9);
    CHECK(b.over);
    // At L = 4096, d = 128: split * 64 = 45.03 pairs, so a band of 46 ends below it.
    s.training_length = 4096;
    REQUIRE(split_bound(s, 128, &b).ok());
    CHECK(b.max_token_pairs == 46);
    s.type = SchemeType::rope;
    CHECK_FALSE(split_bound(s, 128, &b).ok());
}

TEST_CASE("RoPE inverse frequencies and partial rotation", "[rope][spec]") {
    Scheme s;
    std::vector<double> f;
    REQUIRE(inverse_frequencies(s, 8, 1, &f).ok());
    REQUIRE(f.size() == 4);
    CHECK(f[0] == 1.0);
    CHECK(f[1] == Approx(std::pow(10000.0, -0.25)));
    CHECK(f[3] == Approx(std::pow(10000.0, -0.75)));
    s.rotary_fraction = 0.5;
    CHECK(rotary_dim(s, 64) == 32);
    REQUIRE(inverse_frequencies(s, 64, 1, &f).ok());
    CHECK(f.size() == 16);
    CHECK(f[1] == Approx(std::pow(10000.0, -2.0 / 32)));
}

TEST_CASE("Linear interpolation and NTK-aware bases", "[scaling][spec]") {
    Scheme s;
    s.scaling.type = ScalingType::linear;
    s.scaling.factor = 4;
    std::vector<double> f;
    REQUIRE(inverse_frequencies(s, 128, 1, &f).ok());
    CHECK(f[0] == Approx(0.25));
    CHECK(f[10] == Approx(std::pow(10000.0, -20.0 / 128) / 4));

    s.scaling.type = ScalingType::ntk;
    s.scaling.factor = 8;
    REQUIRE(inverse_frequencies(s, 128, 1, &f).ok());
    // b' = 10000 * 8^(128/126) = 82684.6; theta_1 = b'^(-2/128).
    CHECK(f[1] == Approx(std::pow(82684.6, -2.0 / 128)).epsilon(1e-6));

    s.scaling.type = ScalingType::dynamic_ntk;
    s.scaling.factor = 2;
    s.scaling.original_length = 4096;
    REQUIRE(inverse_frequencies(s, 128, 16384, &f).ok());
    CHECK(f[1] == Approx(std::pow(72196.0, -2.0 / 128)).epsilon(1e-5));
    // At or below the original length the base is unchanged.
    REQUIRE(inverse_frequencies(s, 128, 4096, &f).ok());
    CHECK(f[1] == Approx(std::pow(10000.0, -2.0 / 128)));
}

TEST_CASE("YaRN correction range, ramp and attention factor", "[scaling][spec]") {
    double low, high;
    yarn_correction_range(32, 1, 128, 10000, 4096, &low, &high);
    CHECK(low == Approx(20.94).margin(0.005));
    CHECK(high == Approx(45.03).margin(0.005));
    Scheme s;
    s.scaling.type = ScalingType::yarn;
    s.scaling.original_length = 4096;
    for (double factor : {4.0, 8.0, 16.0}) {
        s.scaling.factor = factor;
        const double expected = factor == 4 ? 1.1386 : factor == 8 ? 1.2079 : 1.2773;
        CHECK(attention_factor(s, 1) == Approx(expected).margin(5e-5));
    }
    s.scaling.factor = 8;
    std::vector<double> f;
    REQUIRE(inverse_frequencies(s, 128, 1, &f).ok());
    // low = 20, high = 46 after truncation: pure extrapolation below, interpolation above.
    CHECK(f[19] == Approx(std::pow(10000.0, -38.0 / 128)));
    CHECK(f[20] == Approx(std::pow(10000.0, -40.0 / 128)));
    CHECK(f[46] == Approx(std::pow(10000.0, -92.0 / 128) / 8));
    CHECK(f[63] == Approx(std::pow(10000.0, -126.0 / 128) / 8));
    const double ramp = (33 - 20) / 26.0;
    const double orig = std::pow(10000.0, -66.0 / 128);
    CHECK(f[33] == Approx(orig / 8 * ramp + orig * (1 - ramp)));
    // DeepSeek mscale variant.
    s.scaling.mscale = 0.707;
    s.scaling.mscale_all_dim = 0.707;
    CHECK(attention_factor(s, 1) == Approx(1.0));
}

TEST_CASE("LongRoPE short/long switch and attention factor", "[scaling][spec]") {
    Scheme s;
    s.scaling.type = ScalingType::longrope;
    s.scaling.factor = 32;
    s.scaling.original_length = 4096;
    s.scaling.short_factor.assign(4, 1.0);
    s.scaling.long_factor = {1.0, 2.0, 4.0, 8.0};
    CHECK(attention_factor(s, 1) == Approx(1.1902).margin(5e-5));
    std::vector<double> f;
    REQUIRE(inverse_frequencies(s, 8, 4096, &f).ok());
    CHECK(f[3] == Approx(std::pow(10000.0, -0.75)));
    REQUIRE(inverse_frequencies(s, 8, 4097, &f).ok());
    CHECK(f[3] == Approx(std::pow(10000.0, -0.75) / 8));
    s.scaling.long_factor.pop_back();
    CHECK_FALSE(inverse_frequencies(s, 8, 1, &f).ok());
}

TEST_CASE("Llama-3 band boundaries", "[scaling][spec]") {
    Scheme s;
    s.base = 500000;
    s.scaling.type = ScalingType::llama3;
    s.scaling.factor = 8;
    s.scaling.original_length = 8192;
    std::vector<double> f;
    REQUIRE(inverse_frequencies(s, 128, 1, &f).ok());
    int kept = 0, blended = 0, divided = 0;
    for (int j = 0; j < 64; ++j) {
        const double orig = std::pow(500000.0, -2.0 * j / 128);
        if (f[j] == orig) {
            ++kept;
            CHECK(j <= 28);
        } else if (std::fabs(f[j] - orig / 8) < 1e-15 * orig) {
            ++divided;
            CHECK(j >= 35);
        } else {
            ++blended;
            CHECK(j >= 29);
            CHECK(j <= 34);
        }
    }
    CHECK(kept == 29);
    CHECK(blended == 6);
    CHECK(divided == 29);
}

// Llama 4 Scout's llama3 block has low_freq_factor == high_freq_factor == 1 (transformers only
// warns): no band, so pair j keeps b^(-2j/d) while its wavelength 2 pi / theta_j is below 8192
// and is divided by the factor above it. b = 500000, d = 128: 2 pi * 500000^(2j/128) < 8192 for
// j < 128 * ln(8192 / 2 pi) / (2 ln 500000) = 34.97, so 35 pairs keep theta_j and 29 divide it.
TEST_CASE("Llama-3 scaling with equal low and high factors is a step", "[scaling][spec]") {
    Scheme s;
    s.base = 500000;
    s.scaling.type = ScalingType::llama3;
    s.scaling.factor = 16;
    s.scaling.original_length = 8192;
    s.scaling.low_freq_factor = 1;
    s.scaling.high_freq_factor = 1;
    std::vector<double> f;
    REQUIRE(inverse_frequencies(s, 128, 1, &f).ok());
    for (int j = 0; j < 64; ++j) {
        const double orig = std::pow(500000.0, -2.0 * j / 128);
        if (j < 35)
            CHECK(f[j] == orig);
        else
            CHECK(f[j] == Approx(orig / 16).epsilon(1e-15));
    }
    s.scaling.high_freq_factor = 0.5;
    const Status st = inverse_frequencies(s, 128, 1, &f);
    REQUIRE_FALSE(st.ok());
    CHECK(st.message().find("lowFreqFactor <= highFreqFactor") != std::string::npos);
}

// p-RoPE, transformers' "proportional" rope type (Gemma 4's global layers): theta_j = b^(-2j/d)
// for j < floor(p * d / 2), else 0, with d the full head_dim and pairs (j, j + d/2) kept.
TEST_CASE("Proportional (p-RoPE) stops the slowest pairs", "[scaling][spec]") {
    Scheme s;
    s.scaling.type = ScalingType::proportional;
    s.scaling.partial_rotary_factor = 0.5;
    std::vector<double> f;
    // d = 8, b = 10000: floor(0.5 * 8 / 2) = 2 pairs rotate, at 10000^0 = 1 and 10000^(-1/4) = 0.1.
    REQUIRE(inverse_frequencies(s, 8, 1, &f).ok());
    REQUIRE(f.size() == 4);
    CHECK(f[0] == 1.0);
    CHECK(f[1] == Approx(0.1).epsilon(1e-15));
    CHECK(f[2] == 0.0);
    CHECK(f[3] == 0.0);
    CHECK(attention_factor(s, 1) == 1.0);
    // Gemma 4's global layers: p = 0.25, b = 1e6, head_dim 512: 64 of 256 pairs rotate.
    s.base = 1e6;
    s.scaling.partial_rotary_factor = 0.25;
    REQUIRE(inverse_frequencies(s, 512, 1, &f).ok());
    REQUIRE(f.size() == 256);
    CHECK(f[63] == Approx(std::pow(1e6, -126.0 / 512)).epsilon(1e-15));
    CHECK(f[64] == 0.0);
    CHECK(f[255] == 0.0);
    // floor, as int(p * head_dim // 2): p = 0.3 of d = 8 is 1.2 pairs -> 1; p = 0 -> none; 1 ->
    // all.
    s.base = 10000;
    s.scaling.partial_rotary_factor = 0.3;
    REQUIRE(inverse_frequencies(s, 8, 1, &f).ok());
    CHECK((f[0] == 1.0 && f[1] == 0.0));
    s.scaling.partial_rotary_factor = 0;
    REQUIRE(inverse_frequencies(s, 8, 1, &f).ok());
    CHECK(f == std::vector<double>(4, 0.0));
    s.scaling.partial_rotary_factor = 1;
    REQUIRE(inverse_frequencies(s, 8, 1, &f).ok());
    CHECK(f[3] == Approx(std::pow(10000.0, -0.75)).epsilon(1e-15));
    s.scaling.partial_rotary_factor = 1.5;
    CHECK(validate(s, 8).message() ==
          "scheme.scaling.partialRotaryFactor must be in [0, 1], got 1.5");

    // Rotation, half layout, position 3, p = 0.5: pair 0 turns by 3 rad, pair 1 by 0.3 rad, the
    // stopped pairs (dims 2, 3, 6, 7) pass through unchanged.
    s.scaling.partial_rotary_factor = 0.5;
    const std::vector<float> x = {1, 2, 3, 4, 5, 6, 7, 8};
    std::vector<float> out(8);
    const int32_t tok[] = {3};
    REQUIRE(rotate(s, 8, 1, 1, Positions{tok}, Role::key, Branch::near, x.data(), out.data()).ok());
    const double a0 = 3.0, a1 = 0.3;
    CHECK(out[0] == Approx(1 * std::cos(a0) - 5 * std::sin(a0)).margin(1e-6));
    CHECK(out[4] == Approx(5 * std::cos(a0) + 1 * std::sin(a0)).margin(1e-6));
    CHECK(out[1] == Approx(2 * std::cos(a1) - 6 * std::sin(a1)).margin(1e-6));
    CHECK(out[5] == Approx(6 * std::cos(a1) + 2 * std::sin(a1)).margin(1e-6));
    for (int i : {2, 3, 6, 7}) CHECK(out[i] == x[i]);
}

// transformers' _compute_proportional_rope_parameters ends with inv_freq /= factor
// (rope_parameters.get("factor", 1.0)): the rotating pairs divided, the stopped ones still 0.
TEST_CASE("Proportional (p-RoPE) divides its frequencies by the factor", "[scaling][spec]") {
    Scheme s;
    s.scaling.type = ScalingType::proportional;
    s.scaling.partial_rotary_factor = 0.5;
    std::vector<double> f;
    // d = 8, b = 10000: pairs 0 and 1 rotate at 1 and 10000^(-1/4) = 0.1, then / factor.
    for (double factor : {1.0, 4.0, 0.5, 8.0}) {
        INFO("factor " << factor);
        s.scaling.factor = factor;
        REQUIRE(inverse_frequencies(s, 8, 1, &f).ok());
        REQUIRE(f.size() == 4);
        CHECK(f[0] == Approx(1.0 / factor).epsilon(1e-15));
        CHECK(f[1] == Approx(0.1 / factor).epsilon(1e-15));
        CHECK(f[2] == 0.0);
        CHECK(f[3] == 0.0);
        CHECK(attention_factor(s, 1) == 1.0);
    }
    // The factor's range (the catalogue's: > 0).
    s.scaling.factor = 0;
    const Status st = inverse_frequencies(s, 8, 1, &f);
    REQUIRE_FALSE(st.ok());
    CHECK(st.message().find("scheme.scaling.factor") == 0);
}

TEST_CASE("ALiBi slopes for 8 and 12 heads", "[alibi][spec]") {
    const std::vector<double> s8 = alibi_slopes(8);
    REQUIRE(s8.size() == 8);
    for (int h = 0; h < 8; ++h) CHECK(s8[h] == Approx(1.0 / (2 << h)));
    const std::vector<double> s12 = alibi_slopes(12);
    REQUIRE(s12.size() == 12);
    for (int h = 0; h < 8; ++h) CHECK(s12[h] == Approx(s8[h]));
    CHECK(s12[7] == Approx(0.00390625));
    CHECK(s12[8] == Approx(0.70711).margin(5e-6));
    CHECK(s12[9] == Approx(0.35355).margin(5e-6));
    CHECK(s12[10] == Approx(0.17678).margin(5e-6));
    CHECK(s12[11] == Approx(0.08839).margin(5e-6));
}

TEST_CASE("Windowed relative distances follow their papers", "[windowed][spec]") {
    std::vector<int32_t> tok(40);
    for (int i = 0; i < 40; ++i) tok[i] = i;
    const Positions pos{tok.data(), nullptr, nullptr};
    std::vector<float> d(40 * 40);
    Scheme s;
    s.window = 8;
    s.type = SchemeType::rerope;
    REQUIRE(relative_distances(s, 16, 40, pos, 0, d.data()).ok());
    CHECK(d[39 * 40 + 32] == 7);
    CHECK(d[39 * 40 + 31] == 8);
    CHECK(d[39 * 40 + 0] == 8);
    s.type = SchemeType::leaky_rerope;
    s.leaky_factor = 4;
    REQUIRE(relative_distances(s, 16, 40, pos, 0, d.data()).ok());
    CHECK(d[39 * 40 + 31] == 8);
    CHECK(d[39 * 40 + 0] == Approx(8 + 31 / 4.0));
    s.type = SchemeType::self_extend;
    s.group = 4;
    REQUIRE(relative_distances(s, 16, 40, pos, 0, d.data()).ok());
    // floor(39/4) - floor(0/4) + 8 - floor(8/4) = 9 + 6 = 15; delta 9: 9 - 7 + 6 = 8.
    CHECK(d[39 * 40 + 0] == 15);
    CHECK(d[39 * 40 + 30] == 8);
    CHECK(d[39 * 40 + 32] == 7);
}

TEST_CASE("Long-term decay is RoFormer's bound at every distance: (P + 1)/2 at 0, then falling",
          "[decay]") {
    Scheme s;
    std::vector<float> decay(257);
    REQUIRE(long_term_decay(s, 128, 256, decay.data()).ok());
    // At distance 0 every partial sum S_j has modulus j: (1/64) sum_{j=1..64} j = 32.5.
    CHECK(decay[0] == Approx(32.5));
    // Every distance from the definition (docs/schemes.md section 7.2), in double: plain RoPE,
    // theta_l = 10000^(-2l/128), decay(r) = (1/64) sum_j |sum_{l<j} e^(i r theta_l)|.
    std::vector<double> want(257);
    for (int r = 0; r <= 256; ++r) {
        double re = 0, im = 0, sum = 0;
        for (int l = 0; l < 64; ++l) {
            const double angle = r * std::pow(10000.0, -2.0 * l / 128);
            re += std::cos(angle);
            im += std::sin(angle);
            sum += std::hypot(re, im);
        }
        want[r] = sum / 64;
    }
    CHECK(hirope_test::max_relative_error(decay, want) < 1e-5);
    // Falling: below its start everywhere past 0, the mean of each block of 32 distances below the
    // block's before it (the curve ripples within a block), and under a quarter of its start at
    // 256.
    for (int r = 1; r <= 256; ++r) CHECK(decay[r] < decay[0]);
    double before = decay[0];
    for (int b = 0; b < 256; b += 32) {
        double mean = 0;
        for (int r = b + 1; r <= b + 32; ++r) mean += decay[r] / 32;
        INFO("distances " << b + 1 << " to " << b + 32);
        CHECK(mean < before);
        before = mean;
    }
    CHECK(decay[256] < decay[0] / 4);
}
