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

} // namespace model
} // namespace hirope
