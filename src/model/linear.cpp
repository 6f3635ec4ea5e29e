// Linear layers on the attention kernels' 4-lane micro-kernel (kernels::gemm_tile).
#include "model/model_internal.h"

#include <algorithm>
#include <cstring>

namespace hirope {
namespace model {

using kernels::kMR;
using kernels::kNR;

Linear::Linear(const std::vector<float>& w, int out, int in)
    : out_(out), in_(in), panels_((out + kNR - 1) / kNR),
      packed_(static_cast<size_t>(panels_) * in * kNR, 0.0f) {
    for (int p = 0; p < panels_; ++p)
        for (int k = 0; k < in; ++k)
            for (int l = 0; l < kNR; ++l) {
                const int col = p * kNR + l;
                if (col < out)
                    packed_[(static_cast<size_t>(p) * in + k) * kNR + l] =
                        w[static_cast<size_t>(col) * in + k];
            }
}

namespace {

// c[0..kNR) = sum_k x[k] * b[k * kNR + 0..kNR-1]: one row against one panel, for the rows left
// over by the kMR-row tiles (every decoding step is one such row).
inline void row_tile(const float* x, const float* b, int depth, float* c) {
    using namespace simd;
    f4 acc[kernels::kNV];
    for (f4& a : acc) a = splat(0);
    for (int k = 0; k < depth; ++k, b += kNR) {
        const f4 xv = splat_load(x + k);
        for (int v = 0; v < kernels::kNV; ++v) acc[v] = madd(xv, load(b + 4 * v), acc[v]);
    }
    for (int v = 0; v < kernels::kNV; ++v) store(c + 4 * v, acc[v]);
}

} // namespace

void Linear::apply(const float* x, int64_t n, float* y) const {
    // 64 rows x in floats of x stay in cache while every panel passes over them.
    constexpr int64_t kBlock = 64;
    alignas(16) float tile[kMR * kNR];
    for (int64_t r0 = 0; r0 < n; r0 += kBlock) {
        const int64_t r1 = std::min(n, r0 + kBlock);
        const int64_t full = r0 + (r1 - r0) / kMR * kMR;
        for (int p = 0; p < panels_; ++p) {
            const float* b = packed_.data() + static_cast<size_t>(p) * in_ * kNR;
            const int c0 = p * kNR, cols = std::min(kNR, out_ - c0);
            for (int64_t i = r0; i < full; i += kMR) {
                kernels::gemm_tile(x + i * in_, in_, b, kNR, in_, tile);
                for (int r = 0; r < kMR; ++r)
                    std::memcpy(y + (i + r) * out_ + c0, tile + r * kNR, sizeof(float) * cols);
            }
            for (int64_t i = full; i < r1; ++i) {
                row_tile(x + i * in_, b, in_, tile);
                std::memcpy(y + i * out_ + c0, tile, sizeof(float) * cols);
            }
        }
    }
}

} // namespace model
} // namespace hirope
