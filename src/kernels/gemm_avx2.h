// The linear layers' micro-kernels for x86-64 CPUs with AVX2 and FMA: 8 rows x 8 columns of
// 256-bit fused multiply-adds over the same packed panels as gemm.h's 4-lane kernels (kNR = 8
// columns a panel, so one 256-bit vector a row), and their one-row form. Each function carries
// its instruction set in a target attribute rather than the file's flags, so that every
// translation unit compiles it the same way and the rest of the library keeps the baseline
// instruction set: one binary runs on every x86-64 CPU, and the caller picks these where
// avx2_fma() says the CPU has them (model/linear.cpp).
//
// Both kernels add the products of each output in k order with one fused multiply-add each, so a
// row gives the same bits through either (a decoding step's one row equals the full forward's).
#pragma once

#if defined(__x86_64__) && !defined(HIROPE_NO_SIMD) && (defined(__GNUC__) || defined(__clang__))
#define HIROPE_AVX2_KERNELS 1

#include "kernels/gemm.h"

#include <immintrin.h>

namespace hirope {
namespace kernels {
namespace avx2 {

static_assert(kNR == 8, "a packed panel row is one 256-bit vector");
constexpr int kRows = 8; // rows per tile: 8 accumulators hide the fused multiply-add's latency

// Whether the CPU runs these kernels (asked once).
inline bool avx2_fma() {
    static const bool yes = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    return yes;
}

// c[kRows][8] = sum_k a[m * lda + k] * b[k * ldb + 0..7], k in [0, depth).
__attribute__((target("avx2,fma"))) inline void tile(const float* a, size_t lda, const float* b,
                                                     size_t ldb, int depth, float* c) {
    __m256 acc[kRows];
    for (__m256& v : acc) v = _mm256_setzero_ps();
    for (int k = 0; k < depth; ++k, b += ldb) {
        const __m256 bv = _mm256_loadu_ps(b);
        for (int m = 0; m < kRows; ++m)
            acc[m] = _mm256_fmadd_ps(_mm256_broadcast_ss(a + m * lda + k), bv, acc[m]);
    }
    for (int m = 0; m < kRows; ++m) _mm256_storeu_ps(c + m * kNR, acc[m]);
}

// c[0..8) = sum_k x[k] * b[k * 8 + 0..7]: one row against one packed panel.
__attribute__((target("avx2,fma"))) inline void row(const float* x, const float* b, int depth,
                                                    float* c) {
    __m256 acc = _mm256_setzero_ps();
    for (int k = 0; k < depth; ++k, b += kNR)
        acc = _mm256_fmadd_ps(_mm256_broadcast_ss(x + k), _mm256_loadu_ps(b), acc);
    _mm256_storeu_ps(c, acc);
}

// gemm_panels_cols with these kernels.
template <typename Panel>
inline void gemm_panels_cols(const float* x, int64_t n, int in, int out, int c0, int cols, float* y,
                             int64_t ldy, const Panel& panel) {
    gemm_panels_cols_with<kRows, tile, row>(x, n, in, out, c0, cols, y, ldy, panel);
}

} // namespace avx2
} // namespace kernels
} // namespace hirope

#endif
