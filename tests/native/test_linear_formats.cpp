// The model's Linear layer from weights at their stored width (F32, F16, BF16 as safetensors
// stores them: little-endian, at any alignment). Expected values come from the formats'
// definitions written here (IEEE 754 binary16: 1 sign, 5 exponent bits biased by 15, 10 fraction
// bits; bfloat16: 1 sign, 8 exponent bits biased by 127, 7 fraction bits) and from float64 sums,
// never from the library's own conversions.
#include "model/model_internal.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

using hirope::model::Linear;
using Format = Linear::Format;

namespace {

constexpr int kNR = hirope::kernels::kNR;

// A half-width float's value from its fields: (-1)^s * 2^(e - bias) * (1 + f / 2^bits) for a
// normal number, (-1)^s * 2^(1 - bias) * f / 2^bits for e = 0, infinity or NaN for e all ones.
double decode(uint32_t bits, int exponent_bits, int fraction_bits) {
    const uint32_t fraction = bits & ((1u << fraction_bits) - 1);
    const uint32_t exponent = (bits >> fraction_bits) & ((1u << exponent_bits) - 1);
    const bool negative = (bits >> (fraction_bits + exponent_bits)) & 1u;
    const int bias = (1 << (exponent_bits - 1)) - 1;
    const uint32_t all_ones = (1u << exponent_bits) - 1;
    double magnitude;
    if (exponent == all_ones)
        magnitude = fraction ? std::nan("") : HUGE_VAL;
    else if (exponent == 0)
        magnitude = std::ldexp(static_cast<double>(fraction), 1 - bias - fraction_bits);
    else
        magnitude = std::ldexp(1.0 + std::ldexp(static_cast<double>(fraction), -fraction_bits),
                               static_cast<int>(exponent) - bias);
    return negative ? -magnitude : magnitude;
}

double reference_value(Format format, uint16_t bits) {
    return format == Format::f16 ? decode(bits, 5, 10) : decode(bits, 8, 7);
}

uint64_t next(uint64_t& state) { // splitmix64
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

// Random finite weights' bit patterns: F16 over its whole finite range (subnormals included),
// BF16 with exponents within 2^+-8, F32 likewise.
uint32_t random_bits(Format format, uint64_t& state) {
    const uint64_t r = next(state);
    if (format == Format::f16) {
        uint32_t h = static_cast<uint32_t>(r & 0xFFFFu);
        if (((h >> 10) & 0x1Fu) == 0x1Fu) h &= ~0x4000u; // no infinities or NaNs
        return h;
    }
    const uint32_t sign = static_cast<uint32_t>(r >> 63);
    const uint32_t exponent = 119 + static_cast<uint32_t>((r >> 32) % 17);
    if (format == Format::bf16)
        return sign << 15 | exponent << 7 | static_cast<uint32_t>(r & 0x7Fu);
    return sign << 31 | exponent << 23 | static_cast<uint32_t>(r & 0x7FFFFFu);
}

double bits_value(Format format, uint32_t bits) {
    if (format != Format::f32) return reference_value(format, static_cast<uint16_t>(bits));
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}

// out x in weights in `format`, as little-endian bytes starting one byte into `storage` (so
// misaligned for every width), and their values.
struct Weights {
    Format format;
    int out, in;
    std::vector<uint8_t> storage;
    std::vector<double> values; // row-major out x in
    const void* data() const { return storage.data() + 1; }
};

Weights random_weights(Format format, int out, int in, uint64_t seed) {
    Weights w{format, out, in, {}, {}};
    const int width = format == Format::f32 ? 4 : 2;
    w.storage.assign(1 + static_cast<size_t>(out) * in * width, 0xAB);
    for (int64_t i = 0; i < static_cast<int64_t>(out) * in; ++i) {
        const uint32_t bits = random_bits(format, seed);
        for (int b = 0; b < width; ++b)
            w.storage[1 + i * width + b] = static_cast<uint8_t>(bits >> (8 * b));
        w.values.push_back(bits_value(format, bits));
    }
    return w;
}

std::vector<float> random_inputs(int64_t count, uint64_t seed) {
    std::vector<float> x(count);
    for (float& v : x) v = static_cast<float>((next(seed) >> 40) * 0x1p-23 - 1.0); // [-1, 1)
    return x;
}

// Row i of x times row o of W in float64, and the sum of the products' magnitudes (the scale of
// float rounding), the products in k order.
struct Exact {
    double sum = 0, magnitude = 0;
};
Exact exact(const std::vector<float>& x, const Weights& w, int64_t i, int o) {
    Exact e;
    for (int k = 0; k < w.in; ++k) {
        const double t = x[i * w.in + k] * w.values[o * w.in + k];
        e.sum += t;
        e.magnitude += std::fabs(t);
    }
    return e;
}

const char* name(Format format) {
    return format == Format::f32 ? "f32" : format == Format::f16 ? "f16" : "bf16";
}

} // namespace

TEST_CASE("linear: F32, F16 and BF16 weights give float64's products to float rounding",
          "[linear]") {
    const int outs[] = {1, kNR, 13, 3 * kNR + 5};
    const int64_t ns[] = {1, 3, 4, 5, 64, 65, 130};
    const int ins[] = {1, 7, 128};
    uint64_t seed = 1;
    for (Format format : {Format::f32, Format::f16, Format::bf16})
        for (int out : outs)
            for (int in : ins) {
                const Weights w = random_weights(format, out, in, ++seed);
                const Linear linear(w.data(), format, out, in);
                REQUIRE(linear.format() == format);
                REQUIRE(linear.out() == out);
                REQUIRE(linear.in() == in);
                // The same weights widened (exactly: every value is a float) through the float
                // constructor: the same kernel on the same values, so the same bits.
                std::vector<float> widened(w.values.begin(), w.values.end());
                const Linear as_float(widened, out, in);
                for (int64_t n : ns) {
                    INFO(name(format) << " out " << out << " in " << in << " n " << n);
                    const std::vector<float> x = random_inputs(n * in, ++seed);
                    std::vector<float> y(n * out, NAN), y_float(n * out, NAN);
                    linear.apply(x.data(), n, y.data());
                    as_float.apply(x.data(), n, y_float.data());
                    int wrong = 0, differs = 0;
                    for (int64_t i = 0; i < n; ++i)
                        for (int o = 0; o < out; ++o) {
                            const Exact e = exact(x, w, i, o);
                            const float got = y[i * out + o];
                            if (!(std::fabs(got - e.sum) <= 1e-5 * e.magnitude)) ++wrong;
                            if (std::memcmp(&got, &y_float[i * out + o], sizeof got) != 0)
                                ++differs;
                        }
                    CHECK(wrong == 0);
                    CHECK(differs == 0);
                }
            }
}

TEST_CASE("linear: apply_columns gives apply's columns for every format", "[linear]") {
    const int out = 5 * kNR + 3, in = 7;
    const int64_t n = 65;
    uint64_t seed = 100;
    for (Format format : {Format::f32, Format::f16, Format::bf16}) {
        const Weights w = random_weights(format, out, in, ++seed);
        const Linear linear(w.data(), format, out, in);
        const std::vector<float> x = random_inputs(n * in, ++seed);
        std::vector<float> y(n * out);
        linear.apply(x.data(), n, y.data());
        for (int c0 = 0; c0 < out; c0 += kNR)
            for (int cols : {1, kNR - 1, kNR, 2 * kNR + 1, out - c0, out}) {
                INFO(name(format) << " c0 " << c0 << " cols " << cols);
                const int end = std::min(out, c0 + cols), width = end - c0;
                const int64_t ldy = width + 3;
                std::vector<float> part(n * ldy, -7.0f);
                linear.apply_columns(x.data(), n, c0, cols, part.data(), ldy);
                int differs = 0, touched = 0;
                for (int64_t i = 0; i < n; ++i) {
                    for (int j = 0; j < width; ++j)
                        if (std::memcmp(&part[i * ldy + j], &y[i * out + c0 + j], 4) != 0)
                            ++differs;
                    for (int64_t j = width; j < ldy; ++j)
                        if (part[i * ldy + j] != -7.0f) ++touched;
                }
                CHECK(differs == 0);
                CHECK(touched == 0);
            }
    }
}

TEST_CASE("linear: every F16 and BF16 bit pattern widens to its value", "[linear]") {
    // One input of 1 against 65,536 one-weight rows: each output is 1 * w + 0, which is w for
    // every w but -0 (the sum's +0 start makes it +0, equal to -0) and NaN (any NaN).
    std::vector<uint8_t> bytes(1 + 2 * 65536);
    for (uint32_t h = 0; h < 65536; ++h) {
        bytes[1 + 2 * h] = static_cast<uint8_t>(h & 0xFF);
        bytes[2 + 2 * h] = static_cast<uint8_t>(h >> 8);
    }
    for (Format format : {Format::f16, Format::bf16}) {
        INFO(name(format));
        const Linear linear(bytes.data() + 1, format, 65536, 1);
        const int64_t n = 9; // whole tiles (4 or 8 rows) and a single row, with either kernel
        const std::vector<float> x(n, 1.0f);
        std::vector<float> y(n * 65536);
        linear.apply(x.data(), n, y.data());
        int wrong = 0, nans = 0, subnormals = 0;
        for (int64_t i = 0; i < n; ++i)
            for (uint32_t h = 0; h < 65536; ++h) {
                const double want = reference_value(format, static_cast<uint16_t>(h));
                const float got = y[i * 65536 + h];
                if (std::isnan(want)) {
                    nans += i == 0;
                    if (!std::isnan(got)) ++wrong;
                } else if (static_cast<double>(got) != want) {
                    ++wrong;
                }
                subnormals += i == 0 && want != 0 &&
                              std::fabs(want) < (format == Format::f16 ? 0x1p-14 : 0x1p-126);
            }
        CHECK(wrong == 0);
        CHECK(nans == 2 * (format == Format::f16 ? 1023 : 127)); // the definition's own count
        CHECK(subnormals == 2 * (format == Format::f16 ? 1023 : 127));
    }
    CHECK(reference_value(Format::f16, 0x3C00) == 1.0);
    CHECK(reference_value(Format::f16, 0x7BFF) == 65504.0);
    CHECK(reference_value(Format::f16, 0x0001) == std::ldexp(1.0, -24));
    CHECK(reference_value(Format::bf16, 0x3F80) == 1.0);
    CHECK(reference_value(Format::bf16, 0xC040) == -3.0);
}

TEST_CASE("linear: the AVX2 + FMA kernels give float64's products, and a row the same bits alone "
          "or in a tile",
          "[linear]") {
    const int outs[] = {1, kNR, 3 * kNR + 5};
    const int64_t ns[] = {1, 7, 8, 9, 17, 130};
    const int ins[] = {1, 7, 128};
    uint64_t seed = 500;
    for (Format format : {Format::f32, Format::f16, Format::bf16})
        for (int out : outs)
            for (int in : ins) {
                const Weights w = random_weights(format, out, in, ++seed);
                const Linear linear(w.data(), format, out, in);
                for (int64_t n : ns) {
                    INFO(name(format) << " out " << out << " in " << in << " n " << n);
                    const std::vector<float> x = random_inputs(n * in, ++seed);
                    for (bool avx2 : {false, true}) {
                        if (avx2 && !Linear::use_avx2()) continue;
                        INFO((avx2 ? "AVX2 + FMA" : "4-lane"));
                        std::vector<float> y(n * out, NAN), alone(out, NAN);
                        linear.apply_columns_with(avx2, x.data(), n, 0, out, y.data(), out);
                        int wrong = 0, differs = 0;
                        for (int64_t i = 0; i < n; ++i) {
                            linear.apply_columns_with(avx2, x.data() + i * in, 1, 0, out,
                                                      alone.data(), out);
                            for (int o = 0; o < out; ++o) {
                                const Exact e = exact(x, w, i, o);
                                const float got = y[i * out + o];
                                if (!(std::fabs(got - e.sum) <= 1e-5 * e.magnitude)) ++wrong;
                                if (std::memcmp(&got, &alone[o], sizeof got) != 0) ++differs;
                            }
                        }
                        CHECK(wrong == 0);
                        CHECK(differs == 0);
                    }
                }
            }
    // Which one apply runs: the AVX2 kernels wherever the CPU has them.
    const Weights w = random_weights(Format::bf16, 2 * kNR, 16, 1);
    const Linear linear(w.data(), Format::bf16, 2 * kNR, 16);
    const std::vector<float> x = random_inputs(9 * 16, 2);
    std::vector<float> y(9 * 2 * kNR), chosen(9 * 2 * kNR);
    linear.apply(x.data(), 9, y.data());
    linear.apply_columns_with(Linear::use_avx2(), x.data(), 9, 0, 2 * kNR, chosen.data(), 2 * kNR);
    CHECK(std::memcmp(y.data(), chosen.data(), y.size() * sizeof(float)) == 0);
    if (!Linear::use_avx2())
        WARN("no AVX2 + FMA here (another CPU, or not x86-64): only the 4-lane kernels ran");
}

TEST_CASE("linear: F16 and BF16 weights hold half the bytes of F32", "[linear]") {
    for (int out : {1, 13, 3 * kNR}) {
        const int in = 7;
        const size_t padded = static_cast<size_t>((out + kNR - 1) / kNR) * kNR * in;
        const Weights w32 = random_weights(Format::f32, out, in, 7);
        const Linear f32(w32.data(), Format::f32, out, in);
        const Linear from_vector(std::vector<float>(w32.values.begin(), w32.values.end()), out, in);
        CHECK(f32.bytes() == padded * 4);
        CHECK(from_vector.bytes() == padded * 4);
        for (Format format : {Format::f16, Format::bf16}) {
            const Weights w = random_weights(format, out, in, 8);
            const Linear half(w.data(), format, out, in);
            CHECK(half.bytes() == padded * 2);
            CHECK(half.bytes() * 2 == f32.bytes());
        }
    }
    CHECK(Linear().bytes() == 0);
}
