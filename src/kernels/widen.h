// Half-width weights widened to float for the float kernels: a run of F16 or BF16 values (a
// packed panel, model/linear.cpp) four at a time with the vector back end's
// load_f16 / load_bf16, and one at a time (the scalar build, and any tail) with the checkpoint
// reader's exact conversions, the one scalar form of the rule.
#pragma once

#include "hirope/checkpoint.h"
#include "kernels/simd4.h"

#include <cstddef>
#include <cstdint>

namespace hirope {
namespace kernels {

// dst[i] = the IEEE 754 binary16 src[i] as a float, i < count.
inline void widen_f16(const uint16_t* src, size_t count, float* dst) {
    size_t i = 0;
#if !HIROPE_SIMD_SCALAR
    for (; i + 4 <= count; i += 4) simd::store(dst + i, simd::load_f16(src + i));
#endif
    for (; i < count; ++i) dst[i] = checkpoint::f16_to_f32(src[i]);
}

// dst[i] = the bfloat16 src[i] as a float, i < count.
inline void widen_bf16(const uint16_t* src, size_t count, float* dst) {
    size_t i = 0;
#if !HIROPE_SIMD_SCALAR
    for (; i + 4 <= count; i += 4) simd::store(dst + i, simd::load_bf16(src + i));
#endif
    for (; i < count; ++i) dst[i] = checkpoint::bf16_to_f32(src[i]);
}

} // namespace kernels
} // namespace hirope
