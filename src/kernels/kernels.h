// Tiled float kernels on the 4-lane vector type: an MR x 8 GEMM micro-kernel (used for q.k^T
// against packed key panels and for probs.v) and a row softmax.
#pragma once

#include "kernels/simd4.h"

#include <cstddef>

namespace hirope {
namespace kernels {

#ifndef HIROPE_TILE_MR
#define HIROPE_TILE_MR 4
#endif
#ifndef HIROPE_TILE_NV
#define HIROPE_TILE_NV 2
#endif
constexpr int kMR = HIROPE_TILE_MR;     // rows per micro-tile (4 x 2 accumulators: fastest in V8)
constexpr int kNV = HIROPE_TILE_NV;     // 4-lane vectors per micro-tile row
constexpr int kNR = 4 * HIROPE_TILE_NV; // columns per micro-tile

// c[kMR][kNR] = sum_k a[m * lda + k] * b[k * ldb + 0..kNR-1], k in [0, depth).
inline void gemm_tile(const float* a, size_t lda, const float* b, size_t ldb, int depth, float* c) {
    using namespace simd;
    f4 acc[kMR][kNV];
    for (int m = 0; m < kMR; ++m)
        for (int v = 0; v < kNV; ++v) acc[m][v] = splat(0);
    for (int k = 0; k < depth; ++k) {
        f4 bv[kNV];
        for (int v = 0; v < kNV; ++v) bv[v] = load(b + 4 * v);
        b += ldb;
        for (int m = 0; m < kMR; ++m) {
            const f4 x = splat_load(a + m * lda + k);
            for (int v = 0; v < kNV; ++v) acc[m][v] = madd(x, bv[v], acc[m][v]);
        }
    }
    for (int m = 0; m < kMR; ++m)
        for (int v = 0; v < kNV; ++v) store(c + m * kNR + 4 * v, acc[m][v]);
}

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
inline bool softmax_row(float* x, size_t len) {
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
    const float inv = 1.0f / sum;
    const f4 vinv = splat(inv);
    for (j = 0; j + 4 <= len; j += 4) store(x + j, mul(load(x + j), vinv));
    for (; j < len; ++j) x[j] *= inv;
    return true;
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
