// A 4-lane float vector with the few operations the kernels need, over three back ends:
// wasm_simd128.h (emscripten with -msimd128), SSE2 (native x86), and plain scalar lanes (the
// scalar WASM build and any other target). The kernels are written once against this type, so
// every build runs the same tiled code and the scalar build is as thoroughly tested as the SIMD
// one.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#if defined(__wasm_simd128__) && !defined(HIROPE_NO_SIMD)
#include <wasm_simd128.h>
#define HIROPE_SIMD_WASM 1
#elif (defined(__SSE2__) || defined(_M_X64)) && !defined(HIROPE_NO_SIMD) && !defined(__wasm__)
#include <emmintrin.h>
#define HIROPE_SIMD_SSE 1
#else
#define HIROPE_SIMD_SCALAR 1
#endif

namespace hirope {
namespace simd {

#if HIROPE_SIMD_WASM
constexpr const char* kName = "wasm-simd128";
struct f4 {
    v128_t v;
};
inline f4 load(const float* p) {
    return {wasm_v128_load(p)};
}
inline void store(float* p, f4 a) {
    wasm_v128_store(p, a.v);
}
inline f4 splat(float x) {
    return {wasm_f32x4_splat(x)};
}
inline f4 splat_load(const float* p) {
    return {wasm_v128_load32_splat(p)};
}
inline f4 add(f4 a, f4 b) {
    return {wasm_f32x4_add(a.v, b.v)};
}
inline f4 sub(f4 a, f4 b) {
    return {wasm_f32x4_sub(a.v, b.v)};
}
inline f4 mul(f4 a, f4 b) {
    return {wasm_f32x4_mul(a.v, b.v)};
}
inline f4 div(f4 a, f4 b) {
    return {wasm_f32x4_div(a.v, b.v)};
}
inline f4 madd(f4 a, f4 b, f4 c) {
    return {wasm_f32x4_add(wasm_f32x4_mul(a.v, b.v), c.v)};
}
inline f4 max(f4 a, f4 b) {
    return {wasm_f32x4_max(a.v, b.v)};
}
inline f4 min(f4 a, f4 b) {
    return {wasm_f32x4_min(a.v, b.v)};
}
inline f4 abs(f4 a) {
    return {wasm_f32x4_abs(a.v)};
}
inline f4 lt(f4 a, f4 b) {
    return {wasm_f32x4_lt(a.v, b.v)};
}
// mask ? a : b (mask lanes all-ones or all-zeros)
inline f4 select(f4 mask, f4 a, f4 b) {
    return {wasm_v128_bitselect(a.v, b.v, mask.v)};
}
inline f4 round_nearest(f4 a) {
    return {wasm_f32x4_nearest(a.v)};
}
// 2^n for integral-valued lanes n in [-126, 127]
inline f4 exp2_int(f4 n) {
    v128_t i = wasm_i32x4_trunc_sat_f32x4(n.v);
    return {wasm_i32x4_shl(wasm_i32x4_add(i, wasm_i32x4_splat(127)), 23)};
}
inline float hmax(f4 a) {
    float x[4];
    wasm_v128_store(x, a.v);
    return std::fmax(std::fmax(x[0], x[1]), std::fmax(x[2], x[3]));
}
inline float hsum(f4 a) {
    float x[4];
    wasm_v128_store(x, a.v);
    return (x[0] + x[1]) + (x[2] + x[3]);
}
// Four 16-bit floats at p (any alignment), widened exactly as checkpoint::bf16_to_f32 and
// f16_to_f32 (include/hirope/checkpoint.h) widen one: bfloat16 is a binary32's top half; an IEEE
// binary16 with exponent field 0 is fraction * 2^-24, with 31 an infinity or a NaN (payload kept),
// else its exponent rebiased from 15 to 127. The scalar back end has neither: its callers use
// those two functions (kernels/widen.h).
inline f4 load_bf16(const uint16_t* p) {
    return {wasm_i32x4_shl(wasm_u32x4_load16x4(p), 16)};
}
inline f4 load_f16(const uint16_t* p) {
    const v128_t u = wasm_u32x4_load16x4(p);
    const v128_t sign = wasm_i32x4_shl(wasm_v128_and(u, wasm_i32x4_splat(0x8000)), 16);
    const v128_t em = wasm_v128_and(u, wasm_i32x4_splat(0x7FFF)); // exponent and fraction
    const v128_t shifted = wasm_i32x4_shl(em, 13);
    const v128_t normal = wasm_i32x4_add(shifted, wasm_i32x4_splat((127 - 15) << 23));
    const v128_t special = wasm_v128_or(shifted, wasm_i32x4_splat(0x7F800000));
    const v128_t subnormal =
        wasm_f32x4_mul(wasm_f32x4_convert_i32x4(em), wasm_f32x4_splat(0x1p-24f));
    v128_t r = wasm_v128_bitselect(special, normal, wasm_i32x4_gt(em, wasm_i32x4_splat(0x7BFF)));
    r = wasm_v128_bitselect(subnormal, r, wasm_i32x4_lt(em, wasm_i32x4_splat(0x400)));
    return {wasm_v128_or(r, sign)};
}
#elif HIROPE_SIMD_SSE
constexpr const char* kName = "sse2";
struct f4 {
    __m128 v;
};
inline f4 load(const float* p) {
    return {_mm_loadu_ps(p)};
}
inline void store(float* p, f4 a) {
    _mm_storeu_ps(p, a.v);
}
inline f4 splat(float x) {
    return {_mm_set1_ps(x)};
}
inline f4 splat_load(const float* p) {
    return {_mm_set1_ps(*p)};
}
inline f4 add(f4 a, f4 b) {
    return {_mm_add_ps(a.v, b.v)};
}
inline f4 sub(f4 a, f4 b) {
    return {_mm_sub_ps(a.v, b.v)};
}
inline f4 mul(f4 a, f4 b) {
    return {_mm_mul_ps(a.v, b.v)};
}
inline f4 div(f4 a, f4 b) {
    return {_mm_div_ps(a.v, b.v)};
}
inline f4 madd(f4 a, f4 b, f4 c) {
    return {_mm_add_ps(_mm_mul_ps(a.v, b.v), c.v)};
}
inline f4 max(f4 a, f4 b) {
    return {_mm_max_ps(a.v, b.v)};
}
inline f4 min(f4 a, f4 b) {
    return {_mm_min_ps(a.v, b.v)};
}
inline f4 abs(f4 a) {
    return {_mm_andnot_ps(_mm_set1_ps(-0.0f), a.v)};
}
inline f4 lt(f4 a, f4 b) {
    return {_mm_cmplt_ps(a.v, b.v)};
}
inline f4 select(f4 mask, f4 a, f4 b) {
    return {_mm_or_ps(_mm_and_ps(mask.v, a.v), _mm_andnot_ps(mask.v, b.v))};
}
inline f4 round_nearest(f4 a) {
    return {_mm_cvtepi32_ps(_mm_cvtps_epi32(a.v))};
}
inline f4 exp2_int(f4 n) {
    __m128i i = _mm_cvttps_epi32(n.v);
    return {_mm_castsi128_ps(_mm_slli_epi32(_mm_add_epi32(i, _mm_set1_epi32(127)), 23))};
}
inline float hmax(f4 a) {
    alignas(16) float x[4];
    _mm_store_ps(x, a.v);
    return std::fmax(std::fmax(x[0], x[1]), std::fmax(x[2], x[3]));
}
inline float hsum(f4 a) {
    alignas(16) float x[4];
    _mm_store_ps(x, a.v);
    return (x[0] + x[1]) + (x[2] + x[3]);
}
// As the WebAssembly back end's load_bf16 and load_f16.
inline f4 load_bf16(const uint16_t* p) {
    const __m128i h = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p));
    return {_mm_castsi128_ps(_mm_unpacklo_epi16(_mm_setzero_si128(), h))};
}
inline f4 load_f16(const uint16_t* p) {
    const __m128i u = _mm_unpacklo_epi16(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)),
                                         _mm_setzero_si128());
    const __m128i sign = _mm_slli_epi32(_mm_and_si128(u, _mm_set1_epi32(0x8000)), 16);
    const __m128i em = _mm_and_si128(u, _mm_set1_epi32(0x7FFF)); // exponent and fraction
    const __m128i shifted = _mm_slli_epi32(em, 13);
    const __m128i normal = _mm_add_epi32(shifted, _mm_set1_epi32((127 - 15) << 23));
    const __m128i special = _mm_or_si128(shifted, _mm_set1_epi32(0x7F800000));
    const __m128i subnormal =
        _mm_castps_si128(_mm_mul_ps(_mm_cvtepi32_ps(em), _mm_set1_ps(0x1p-24f)));
    const __m128i is_special = _mm_cmpgt_epi32(em, _mm_set1_epi32(0x7BFF));
    const __m128i is_subnormal = _mm_cmplt_epi32(em, _mm_set1_epi32(0x400));
    __m128i r =
        _mm_or_si128(_mm_and_si128(is_special, special), _mm_andnot_si128(is_special, normal));
    r = _mm_or_si128(_mm_and_si128(is_subnormal, subnormal), _mm_andnot_si128(is_subnormal, r));
    return {_mm_castsi128_ps(_mm_or_si128(r, sign))};
}
#else
constexpr const char* kName = "scalar";
struct f4 {
    float v[4];
};
#define HIROPE_F4_MAP(expr)                                                                        \
    f4 r;                                                                                          \
    for (int l = 0; l < 4; ++l) r.v[l] = (expr);                                                   \
    return r
inline f4 load(const float* p) {
    HIROPE_F4_MAP(p[l]);
}
inline void store(float* p, f4 a) {
    for (int l = 0; l < 4; ++l) p[l] = a.v[l];
}
inline f4 splat(float x) {
    HIROPE_F4_MAP(x);
}
inline f4 splat_load(const float* p) {
    HIROPE_F4_MAP(*p);
}
inline f4 add(f4 a, f4 b) {
    HIROPE_F4_MAP(a.v[l] + b.v[l]);
}
inline f4 sub(f4 a, f4 b) {
    HIROPE_F4_MAP(a.v[l] - b.v[l]);
}
inline f4 mul(f4 a, f4 b) {
    HIROPE_F4_MAP(a.v[l] * b.v[l]);
}
inline f4 div(f4 a, f4 b) {
    HIROPE_F4_MAP(a.v[l] / b.v[l]);
}
inline f4 madd(f4 a, f4 b, f4 c) {
    HIROPE_F4_MAP(a.v[l] * b.v[l] + c.v[l]);
}
inline f4 max(f4 a, f4 b) {
    HIROPE_F4_MAP(a.v[l] > b.v[l] ? a.v[l] : b.v[l]);
}
inline f4 min(f4 a, f4 b) {
    HIROPE_F4_MAP(a.v[l] < b.v[l] ? a.v[l] : b.v[l]);
}
inline f4 abs(f4 a) {
    HIROPE_F4_MAP(std::fabs(a.v[l]));
}
inline f4 lt(f4 a, f4 b) {
    f4 r;
    for (int l = 0; l < 4; ++l) {
        uint32_t m = a.v[l] < b.v[l] ? 0xffffffffu : 0u;
        std::memcpy(&r.v[l], &m, 4);
    }
    return r;
}
inline f4 select(f4 mask, f4 a, f4 b) {
    f4 r;
    for (int l = 0; l < 4; ++l) {
        uint32_t m;
        std::memcpy(&m, &mask.v[l], 4);
        r.v[l] = m ? a.v[l] : b.v[l];
    }
    return r;
}
inline f4 round_nearest(f4 a) {
    HIROPE_F4_MAP(std::nearbyint(a.v[l]));
}
inline f4 exp2_int(f4 n) {
    f4 r;
    for (int l = 0; l < 4; ++l) {
        uint32_t bits = static_cast<uint32_t>(static_cast<int32_t>(n.v[l]) + 127) << 23;
        std::memcpy(&r.v[l], &bits, 4);
    }
    return r;
}
inline float hmax(f4 a) {
    return std::fmax(std::fmax(a.v[0], a.v[1]), std::fmax(a.v[2], a.v[3]));
}
inline float hsum(f4 a) {
    return (a.v[0] + a.v[1]) + (a.v[2] + a.v[3]);
}
#undef HIROPE_F4_MAP
#endif

// exp(x) for x <= 0 (softmax after subtracting the row max); lanes below -87 give exp(-87),
// about 1.6e-38, which no softmax sum can notice. Cody-Waite range reduction and a degree-6
// polynomial: relative error about 2e-7.
inline f4 exp_nonpositive(f4 x) {
    x = max(x, splat(-87.0f));
    f4 n = round_nearest(mul(x, splat(1.44269504088896341f)));
    f4 r = sub(x, mul(n, splat(0.693359375f)));
    r = sub(r, mul(n, splat(-2.12194440e-4f)));
    f4 p = splat(1.9875691500e-4f);
    p = madd(p, r, splat(1.3981999507e-3f));
    p = madd(p, r, splat(8.3334519073e-3f));
    p = madd(p, r, splat(4.1665795894e-2f));
    p = madd(p, r, splat(1.6666665459e-1f));
    p = madd(p, r, splat(5.0000001201e-1f));
    p = madd(mul(p, r), r, add(r, splat(1.0f)));
    return mul(p, exp2_int(n));
}

} // namespace simd
} // namespace hirope
