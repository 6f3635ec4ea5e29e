// Tiled float products on the 4-lane vector type: an MR x NR micro-kernel over packed panels of
// the right-hand matrix (q.k^T against key panels, probs.v, the model's linear layers), its
// one-row form, the packing (float panels, or 16-bit ones, which the linear layers widen a panel
// at a time), the loop of a product over packed panels, and the epilogue that turns a q.k tile
// into logits.
#pragma once

#include "kernels/simd4.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

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

// c[0..kNR) = sum_k x[k] * b[k * kNR + 0..kNR-1]: one row against one packed panel, for the rows
// left over by the kMR-row tiles (every decoding step is one such row).
inline void row_tile(const float* x, const float* b, int depth, float* c) {
    using namespace simd;
    f4 acc[kNV];
    for (f4& a : acc) a = splat(0);
    for (int k = 0; k < depth; ++k, b += kNR) {
        const f4 xv = splat_load(x + k);
        for (int v = 0; v < kNV; ++v) acc[v] = madd(xv, load(b + 4 * v), acc[v]);
    }
    for (int v = 0; v < kNV; ++v) store(c + 4 * v, acc[v]);
}

// Number of kNR-row panels that hold `count` rows.
inline int64_t panel_count(int64_t count) {
    return (count + kNR - 1) / kNR;
}

// Packs `count` rows of `depth` values into panel_count(count) panels of [depth][kNR], rows
// transposed and the last panel zero-padded, so that gemm_tile and row_tile stream them
// contiguously (ldb = kNR). Panel p starts at out + p * depth * kNR. get(r, k) gives row r's
// value k (a T: float, or the 16 bits of a half-width float, whose zero is 0 as well).
template <typename T, typename Get>
inline void pack_panels_with(int64_t count, int depth, T* out, const Get& get) {
    const int64_t panels = panel_count(count);
    for (int64_t p = 0; p < panels; ++p) {
        T* dst = out + p * depth * kNR;
        for (int k = 0; k < depth; ++k)
            for (int l = 0; l < kNR; ++l) {
                const int64_t r = p * kNR + l;
                dst[k * kNR + l] = r < count ? get(r, k) : T(0);
            }
    }
}

// pack_panels_with for `count` rows of `depth` floats, row r at rows + r * ld.
inline void pack_panels(const float* rows, int64_t count, int64_t ld, int depth, float* out) {
    pack_panels_with(count, depth, out, [&](int64_t r, int k) { return rows[r * ld + k]; });
}

// Columns [c0, c0 + cols) of y = x (n x in) . W^T, W (out x in) in pack_panels' panels, which
// panel(p) gives as floats ([in][kNR]); c0 a multiple of kNR. Column c0 + j of row i goes to
// y[i * ldy + j]. Rows go through in blocks so that a block of x stays in cache while every panel
// passes over it (panel(p) is asked once per block): MR rows at a time through
// Tile(a, lda, b, kNR, depth, c) (c: MR x kNR), the rows left over one at a time through
// Row(x, b, depth, c). The kernels are gemm_tile and row_tile, or another instruction set's
// (kernels/gemm_avx2.h) over the same panels.
template <int MR, auto Tile, auto Row, typename Panel>
inline void gemm_panels_cols_with(const float* x, int64_t n, int in, int out, int c0, int cols,
                                  float* y, int64_t ldy, const Panel& panel) {
    constexpr int64_t kBlock = 64; // 64 rows x in floats of x
    static_assert(kBlock % MR == 0, "a block is whole tiles");
    const int end = std::min(out, c0 + cols);
    const int p0 = c0 / kNR, p1 = static_cast<int>(panel_count(end));
    alignas(32) float tile[MR * kNR];
    for (int64_t r0 = 0; r0 < n; r0 += kBlock) {
        const int64_t r1 = std::min(n, r0 + kBlock);
        const int64_t full = r0 + (r1 - r0) / MR * MR;
        for (int p = p0; p < p1; ++p) {
            const float* b = panel(p);
            const int col = p * kNR - c0, width = std::min(kNR, end - p * kNR);
            for (int64_t i = r0; i < full; i += MR) {
                Tile(x + i * in, in, b, kNR, in, tile);
                for (int r = 0; r < MR; ++r)
                    std::memcpy(y + (i + r) * ldy + col, tile + r * kNR, sizeof(float) * width);
            }
            for (int64_t i = full; i < r1; ++i) {
                Row(x + i * in, b, in, tile);
                std::memcpy(y + i * ldy + col, tile, sizeof(float) * width);
            }
        }
    }
}

// gemm_panels_cols_with the 4-lane kernels (gemm_tile, row_tile).
template <typename Panel>
inline void gemm_panels_cols(const float* x, int64_t n, int in, int out, int c0, int cols, float* y,
                             int64_t ldy, const Panel& panel) {
    gemm_panels_cols_with<kMR, gemm_tile, row_tile>(x, n, in, out, c0, cols, y, ldy, panel);
}

// c (rows x cols, row stride ldc) = a (rows x depth, stride lda) . b (depth x cols, stride ldb),
// b unpacked: full kNR-column tiles through gemm_tile, the remaining columns in scalar sums.
// rows <= kMR, and a must hold kMR readable rows (the tile computes them all).
inline void gemm_rows(const float* a, size_t lda, const float* b, size_t ldb, int depth, int rows,
                      int64_t cols, float* c, size_t ldc) {
    alignas(16) float tile[kMR * kNR];
    const int64_t full_cols = cols / kNR * kNR;
    for (int64_t c0 = 0; c0 < full_cols; c0 += kNR) {
        gemm_tile(a, lda, b + c0, ldb, depth, tile);
        for (int r = 0; r < rows; ++r)
            for (int l = 0; l < kNR; ++l) c[r * ldc + c0 + l] = tile[r * kNR + l];
    }
    for (int r = 0; r < rows; ++r)
        for (int64_t col = full_cols; col < cols; ++col) {
            float acc = 0;
            for (int j = 0; j < depth; ++j) acc += a[r * lda + j] * b[j * ldb + col];
            c[r * ldc + col] = acc;
        }
}

// The logits of a full kMR x kNR tile of q.k products: out[r][l] = tile[r][l] * scale, minus
// slope * |row_pos[r] - col_pos[l]| (ALiBi) when slope is not 0. Row r goes to out + r * ldo.
inline void logits_tile(const float* tile, float scale, float slope, const float* row_pos,
                        const float* col_pos, float* out, size_t ldo) {
    using namespace simd;
    const f4 vscale = splat(scale);
    const f4 ms = splat(-slope);
    for (int r = 0; r < kMR; ++r) {
        const f4 ti = splat(row_pos[r]);
        float* o = out + r * ldo;
        for (int v = 0; v < kNV; ++v) {
            f4 x = mul(load(tile + r * kNR + 4 * v), vscale);
            if (slope != 0.0f) x = madd(abs(sub(ti, load(col_pos + 4 * v))), ms, x);
            store(o + 4 * v, x);
        }
    }
}

} // namespace kernels
} // namespace hirope
