// Linear layers on the attention kernels' 4-lane micro-kernel: weights packed once, then
// kernels::gemm_packed.
#include "model/model_internal.h"

namespace hirope {
namespace model {

using kernels::kNR;

Linear::Linear(const std::vector<float>& w, int out, int in)
    : out_(out), in_(in), packed_(static_cast<size_t>(kernels::panel_count(out)) * in * kNR) {
    kernels::pack_panels(w.data(), out, in, in, packed_.data());
}

void Linear::apply(const float* x, int64_t n, float* y) const {
    kernels::gemm_packed(x, n, in_, packed_.data(), out_, y);
}

void Linear::apply_columns(const float* x, int64_t n, int c0, int cols, float* y,
                           int64_t ldy) const {
    kernels::gemm_packed_cols(x, n, in_, packed_.data(), out_, c0, cols, y, ldy);
}

} // namespace model
} // namespace hirope
