// Tiled float kernels on the 4-lane vector type: an MR x 8 GEMM micro-kernel (used for q.k^T
// against packed key panels and for probs.v) and a row softmax.
#pragma once

#include "simd4.h"

#include <cstddef>

namespace hirope {
namespace kernels {

constexpr int kMR = 4; // rows per micro-tile
constexpr int kNR = 8; // columns per micro-tile (two 4-lane vectors)

// c[MR][8] = sum_k a[m * lda + k] * b[k * ldb + 0..7], k in [0, depth).
inline void gemm_tile(const float* a, size_t lda, const float* b, size_t ldb, int depth,
                      float* c) {
    using namespace simd;
    f4 c00 = splat(0), c01 = splat(0), c10 = splat(0), c11 = splat(0);
    f4 c20 = splat(0), c21 = splat(0), c30 = splat(0), c31 = splat(0);
    const float* a0 = a;
    const float* a1 = a + lda;
    const float* a2 = a + 2 * lda;
    const float* a3 = a + 3 * lda;
    for (int k = 0; k < depth; ++k) {
        const f4 b0 = load(b);
        const f4 b1 = load(b + 4);
        b += ldb;
        f4 x = splat_load(a0 + k);
        c00 = madd(x, b0, c00);
        c01 = madd(x, b1, c01);
        x = splat_load(a1 + k);
        c10 = madd(x, b0, c10);
        c11 = madd(x, b1, c11);
        x = splat_load(a2 + k);
        c20 = madd(x, b0, c20);
        c21 = madd(x, b1, c21);
        x = splat_load(a3 + k);
        c30 = madd(x, b0, c30);
        c31 = madd(x, b1, c31);
    }
    store(c, c00);
    store(c + 4, c01);
    store(c + 8, c10);
    store(c + 12, c11);
    store(c + 16, c20);
    store(c + 20, c21);
    store(c + 24, c30);
    store(c + 28, c31);
}

// In place: x[0..len) = softmax(x[0..len)).
inline void softmax_row(float* x, size_t len) {
    using namespace simd;
    size_t j = 0;
    f4 vmax = splat(-3.4e38f);
    for (; j + 4 <= len; j += 4) vmax = max(vmax, load(x + j));
    float m = hmax(vmax);
    for (; j < len; ++j) m = x[j] > m ? x[j] : m;
    const f4 vm = splat(m);
    f4 vsum = splat(0);
    for (j = 0; j + 4 <= len; j += 4) {
        const f4 e = exp_nonpositive(sub(load(x + j), vm));
        store(x + j, e);
        vsum = add(vsum, e);
    }
    float sum = hsum(vsum);
    for (; j < len; ++j) {
        float tail[4] = {x[j] - m, 0, 0, 0};
        store(tail, exp_nonpositive(load(tail)));
        x[j] = tail[0];
        sum += tail[0];
    }
    const f4 inv = splat(1.0f / sum);
    for (j = 0; j + 4 <= len; j += 4) store(x + j, mul(load(x + j), inv));
    for (; j < len; ++j) x[j] *= 1.0f / sum;
}

} // namespace kernels
} // namespace hirope
