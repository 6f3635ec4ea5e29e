// Linear layers on the attention kernels' 4-lane micro-kernel (kernels::gemm_tile).
#include "model_internal.h"

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

void Linear::apply(const float* x, int64_t n, float* y) const {
    // 64 rows x in floats of x stay in cache while every panel passes over them.
    constexpr int64_t kBlock = 64;
    alignas(16) float tile[kMR * kNR];
    std::vector<float> tail(static_cast<size_t>(kMR) * in_);
    for (int64_t r0 = 0; r0 < n; r0 += kBlock) {
        const int64_t r1 = std::min(n, r0 + kBlock);
        const int64_t full = r0 + (r1 - r0) / kMR * kMR;
        if (full < r1) { // the last rows, zero-padded so the micro-kernel can read kMR of them
            std::fill(tail.begin(), tail.end(), 0.0f);
            std::memcpy(tail.data(), x + full * in_, sizeof(float) * (r1 - full) * in_);
        }
        for (int p = 0; p < panels_; ++p) {
            const float* b = packed_.data() + static_cast<size_t>(p) * in_ * kNR;
            const int c0 = p * kNR, cols = std::min(kNR, out_ - c0);
            for (int64_t i = r0; i < r1; i += kMR) {
                const int rows = static_cast<int>(std::min<int64_t>(kMR, r1 - i));
                const float* a = i < full ? x + i * in_ : tail.data();
                kernels::gemm_tile(a, in_, b, kNR, in_, tile);
                for (int r = 0; r < rows; ++r)
                    std::memcpy(y + (i + r) * out_ + c0, tile + r * kNR, sizeof(float) * cols);
            }
        }
    }
}

} // namespace model
} // namespace hirope
