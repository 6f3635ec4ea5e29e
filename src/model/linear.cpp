// Linear layers: weights packed once, at their stored width, into kernels/gemm.h's panels; a
// product runs over them with the attention kernels' 4-lane micro-kernel, or with the AVX2 + FMA
// one where the CPU has it (kernels/gemm_avx2.h), F16 and BF16 panels widened exactly a panel at a
// time (kernels/widen.h).
#include "kernels/gemm_avx2.h"
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

// apply_columns through gemm(x, n, in, out, c0, cols, y, ldy, panel) (a gemm_panels_cols), its
// panel(p) giving float panel p: 16-bit panels widened into one panel's scratch for the call.
template <typename Gemm>
void apply_panels(Linear::Format format, const std::vector<float>& packed,
                  const std::vector<uint16_t>& packed16, int out, int in, const float* x, int64_t n,
                  int c0, int cols, float* y, int64_t ldy, const Gemm& gemm) {
    const size_t size = static_cast<size_t>(in) * kNR;
    if (format == Linear::Format::f32) {
        gemm(x, n, in, out, c0, cols, y, ldy, [&](int p) { return packed.data() + p * size; });
        return;
    }
    std::vector<float> scratch(size);
    const auto widen = format == Linear::Format::f16 ? kernels::widen_f16 : kernels::widen_bf16;
    gemm(x, n, in, out, c0, cols, y, ldy, [&](int p) {
        widen(packed16.data() + p * size, size, scratch.data());
        return static_cast<const float*>(scratch.data());
    });
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
    apply_columns_with(use_avx2(), x, n, c0, cols, y, ldy);
}

bool Linear::use_avx2() {
#if HIROPE_AVX2_KERNELS
    return kernels::avx2::avx2_fma();
#else
    return false;
#endif
}

void Linear::apply_columns_with(bool avx2, const float* x, int64_t n, int c0, int cols, float* y,
                                int64_t ldy) const {
#if HIROPE_AVX2_KERNELS
    if (avx2)
        return apply_panels(format_, packed_, packed16_, out_, in_, x, n, c0, cols, y, ldy,
                            [](auto&&... args) { kernels::avx2::gemm_panels_cols(args...); });
#endif
    (void)avx2;
    apply_panels(format_, packed_, packed16_, out_, in_, x, n, c0, cols, y, ldy,
                 [](auto&&... args) { kernels::gemm_panels_cols(args...); });
}

} // namespace model
} // namespace hirope
