// Element-wise and reduction loops over float rows: dot products and axpy for the cached
// attention, residual sums, RMS normalisation, row maxima and sums for pooling, finiteness
// checks. Reduction orders are part of the contract: results are compared bit for bit across
// builds (the pooled grids, the decoder against its earlier outputs).
#pragma once

#include "kernels/simd4.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>

namespace hirope {
namespace kernels {

// sum_i a[i] * b[i]: four lane sums, then the scalar tail.
inline float dot(const float* a, const float* b, int len) {
    using namespace simd;
    f4 acc = splat(0);
    int i = 0;
    for (; i + 4 <= len; i += 4) acc = madd(load(a + i), load(b + i), acc);
    float sum = hsum(acc);
    for (; i < len; ++i) sum += a[i] * b[i];
    return sum;
}

// y[i] += p * x[i].
inline void axpy(float p, const float* x, float* y, int len) {
    using namespace simd;
    const f4 vp = splat(p);
    int i = 0;
    for (; i + 4 <= len; i += 4) store(y + i, madd(vp, load(x + i), load(y + i)));
    for (; i < len; ++i) y[i] += p * x[i];
}

// y[i] += x[i] (a residual connection).
inline void add_to(float* y, const float* x, size_t len) {
    for (size_t i = 0; i < len; ++i) y[i] += x[i];
}

// Each of n rows of d values: out = x / sqrt(mean(x^2) + eps) * weight, the mean in double.
inline void rms_norm(const float* x, int64_t n, int d, const float* weight, float eps, float* out) {
    for (int64_t t = 0; t < n; ++t) {
        const float* xr = x + t * d;
        double ss = 0;
        for (int i = 0; i < d; ++i) ss += static_cast<double>(xr[i]) * xr[i];
        const float inv = static_cast<float>(1.0 / std::sqrt(ss / d + eps));
        float* yr = out + t * d;
        for (int i = 0; i < d; ++i) yr[i] = xr[i] * inv * weight[i];
    }
}

// max(0, x[0..len)): the maximum of a probability row (never negative).
inline float max_nonnegative(const float* x, int64_t len) {
    using namespace simd;
    f4 best = splat(0.0f);
    int64_t j = 0;
    for (; j + 4 <= len; j += 4) best = max(best, load(x + j));
    float m = hmax(best);
    for (; j < len; ++j) m = std::max(m, x[j]);
    return m;
}

// x[0] + x[1] + ... summed left to right.
inline float sum(const float* x, int64_t len) {
    float s = 0.0f;
    for (int64_t j = 0; j < len; ++j) s += x[j];
    return s;
}

// True when every x[0..len) is finite.
inline bool all_finite(const float* x, size_t len) {
    using namespace simd;
    size_t j = 0;
    f4 check = splat(0);
    for (; j + 4 <= len; j += 4) {
        const f4 v = load(x + j);
        check = add(check, sub(v, v));
    }
    float tail = hsum(check);
    for (; j < len; ++j) tail += x[j] - x[j];
    return tail == 0.0f;
}

} // namespace kernels
} // namespace hirope
