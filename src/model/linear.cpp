// Linear layers on the attention kernels' 4-lane micro-kernel: weights packed once, at their
// stored width, then kernels::gemm_packed_cols (float panels) or kernels::gemm_packed16_cols (F16
// and BF16 panels, widened exactly a panel at a time by kernels/widen.h).
#include "kernels/widen.h"
#include "model/model_internal.h"
#include "util/bytes.h"

#include <cstring>

namespace hirope {
namespace model {

using kernels::kNR;

namespace {

size_t packed_size(int out, int in) {
    return static_cast<size_t>(kernels::panel_count(out)) * in * kNR;
}

// apply_columns of 16-bit panels: one panel's scratch for the whole call.
template <typename Widen>
void apply16(const std::vector<uint16_t>& packed, int out, int in, const float* x, int64_t n,
             int c0, int cols, float* y, int64_t ldy, const Widen& widen) {
    std::vector<float> scratch(static_cast<size_t>(in) * kNR);
    kernels::gemm_packed16_cols(x, n, in, packed.data(), out, c0, cols, y, ldy, widen,
                                scratch.data());
}

} // namespace

Linear::Linear(const std::vector<float>& w, int out, int in)
    : out_(out), in_(in), packed_(packed_size(out, in)) {
    kernels::pack_panels(w.data(), out, in, in, packed_.data());
}

Linear::Linear(const void* data, Format format, int out, int in)
    : out_(out), in_(in), format_(format) {
    const uint8_t* bytes = static_cast<const uint8_t*>(data);
    const int64_t ld = in;
    if (format == Format::f32) {
        packed_.resize(packed_size(out, in));
        kernels::pack_panels_with(out, in, packed_.data(), [&](int64_t r, int k) {
            const uint32_t u = util::load_u32le(bytes + 4 * (r * ld + k));
            float f;
            std::memcpy(&f, &u, sizeof f);
            return f;
        });
    } else {
        packed16_.resize(packed_size(out, in));
        kernels::pack_panels_with(out, in, packed16_.data(), [&](int64_t r, int k) {
            return util::load_u16le(bytes + 2 * (r * ld + k));
        });
    }
}

void Linear::row(int r, float* out) const {
    // Row r is column r % kNR of panel r / kNR: element k at (panel * in + k) * kNR + r % kNR.
    const size_t base = static_cast<size_t>(r / kNR) * in_ * kNR + r % kNR;
    for (int k = 0; k < in_; ++k) {
        const size_t at = base + static_cast<size_t>(k) * kNR;
        switch (format_) {
        case Format::f32:
            out[k] = packed_[at];
            break;
        case Format::f16:
            out[k] = checkpoint::f16_to_f32(packed16_[at]);
            break;
        case Format::bf16:
            out[k] = checkpoint::bf16_to_f32(packed16_[at]);
            break;
        }
    }
}

void Linear::apply(const float* x, int64_t n, float* y) const {
    apply_columns(x, n, 0, out_, y, out_);
}

void Linear::apply_columns(const float* x, int64_t n, int c0, int cols, float* y,
                           int64_t ldy) const {
    switch (format_) {
    case Format::f32:
        kernels::gemm_packed_cols(x, n, in_, packed_.data(), out_, c0, cols, y, ldy);
        break;
    case Format::f16:
        apply16(packed16_, out_, in_, x, n, c0, cols, y, ldy, kernels::widen_f16);
        break;
    case Format::bf16:
        apply16(packed16_, out_, in_, x, n, c0, cols, y, ldy, kernels::widen_bf16);
        break;
    }
}

} // namespace model
} // namespace hirope
