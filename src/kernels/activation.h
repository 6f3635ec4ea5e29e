// Row-wise nonlinearities on the 4-lane vector type: the attention softmax and SwiGLU's gate.
#pragma once

#include "kernels/simd4.h"

#include <cmath>
#include <cstddef>
#include <limits>

namespace hirope {
namespace kernels {

// In place: a[i] = silu(a[i]) * g[i] (SwiGLU's gate), with silu(u) = u / (1 + e^-u) written as
// u * (u < 0 ? e : 1) / (1 + e), e = e^-|u|, so that exp only sees arguments <= 0.
inline void silu_gate(float* a, const float* g, size_t len) {
    using namespace simd;
    const f4 zero = splat(0), one = splat(1);
    size_t i = 0;
    for (; i + 4 <= len; i += 4) {
        const f4 u = load(a + i);
        const f4 e = exp_nonpositive(sub(zero, abs(u)));
        const f4 silu = div(mul(u, select(lt(u, zero), e, one)), add(one, e));
        store(a + i, mul(silu, load(g + i)));
    }
    for (; i < len; ++i) {
        const float u = a[i], e = std::exp(-std::fabs(u));
        a[i] = u * (u < 0 ? e : 1.0f) / (1.0f + e) * g[i];
    }
}

// In place: x[0..len) = softmax(x[0..len)). Returns false (x unspecified) when the row holds a
// NaN or an infinity, which finite inputs produce only when q.k overflows the float range.
// A finite `sink` is one more column (attention sinks): in the maximum and the sum, then dropped,
// so the row sums to < 1; -infinity: none.
inline bool softmax_row(float* x, size_t len,
                        float sink = -std::numeric_limits<float>::infinity()) {
    using namespace simd;
    size_t j = 0;
    f4 vmax = splat(-3.4e38f);
    f4 nan_check = splat(0);
    for (; j + 4 <= len; j += 4) {
        const f4 v = load(x + j);
        vmax = max(vmax, v);
        nan_check = add(nan_check, sub(v, v)); // NaN once any lane was NaN or infinite
    }
    float m = hmax(vmax);
    float tail_check = hsum(nan_check);
    for (; j < len; ++j) {
        m = x[j] > m ? x[j] : m;
        tail_check += x[j] - x[j];
    }
    if (!std::isfinite(m) || tail_check != 0.0f) return false;
    const bool has_sink = std::isfinite(sink);
    if (has_sink && sink > m) m = sink;
    const f4 vm = splat(m);
    f4 vsum = splat(0);
    for (j = 0; j + 4 <= len; j += 4) {
        const f4 e = exp_nonpositive(sub(load(x + j), vm));
        store(x + j, e);
        vsum = add(vsum, e);
    }
    float sum = hsum(vsum);
    for (; j < len; ++j) {
        alignas(16) float tail[4] = {x[j] - m, 0, 0, 0};
        store(tail, exp_nonpositive(load(tail)));
        x[j] = tail[0];
        sum += tail[0];
    }
    if (has_sink) sum += std::exp(sink - m);
    const float inv = 1.0f / sum;
    const f4 vinv = splat(inv);
    for (j = 0; j + 4 <= len; j += 4) store(x + j, mul(load(x + j), vinv));
    for (; j < len; ++j) x[j] *= inv;
    return true;
}

// The largest of x[0..len) (len >= 1; a NaN anywhere may or may not show).
inline float max_row(const float* x, size_t len) {
    using namespace simd;
    size_t j = 0;
    float m = x[0];
    if (len >= 4) {
        f4 v0 = load(x), v1 = v0;
        for (j = 4; j + 8 <= len; j += 8) {
            v0 = max(v0, load(x + j));
            v1 = max(v1, load(x + j + 4));
        }
        m = hmax(max(v0, v1));
    }
    for (; j < len; ++j) m = x[j] > m ? x[j] : m;
    return m;
}

// sum_i e^(x[i] - m) over x[0..len), for m >= every x[i] (the row's max): the log-sum-exp's sum,
// with the softmax's exp (relative error about 2e-7) and four vector accumulators.
inline double sum_exp_row(const float* x, size_t len, float m) {
    using namespace simd;
    const f4 vm = splat(m);
    f4 s0 = splat(0), s1 = s0, s2 = s0, s3 = s0;
    size_t j = 0;
    for (; j + 16 <= len; j += 16) {
        s0 = add(s0, exp_nonpositive(sub(load(x + j), vm)));
        s1 = add(s1, exp_nonpositive(sub(load(x + j + 4), vm)));
        s2 = add(s2, exp_nonpositive(sub(load(x + j + 8), vm)));
        s3 = add(s3, exp_nonpositive(sub(load(x + j + 12), vm)));
    }
    for (; j + 4 <= len; j += 4) s0 = add(s0, exp_nonpositive(sub(load(x + j), vm)));
    double sum = static_cast<double>(hsum(s0)) + hsum(s1) + hsum(s2) + hsum(s3);
    for (; j < len; ++j) {
        alignas(16) float tail[4] = {x[j] - m, 0, 0, 0};
        store(tail, exp_nonpositive(load(tail)));
        sum += tail[0];
    }
    return sum;
}

} // namespace kernels
} // namespace hirope
