// The pieces of Hugging Face decoders that hirope's own models lack (src/model, checkpoints):
// LayerNorm with bias, GELU in its two forms, a bias on every row, the logits' soft-cap. Scalar
// loops: they run once per row and layer, beside the GEMMs and attention that dominate.
#pragma once

#include "kernels/activation.h"

#include <cmath>
#include <cstddef>
#include <cstdint>

namespace hirope {
namespace kernels {

// Each of n rows of d values: (x - mean) / sqrt(var + eps) * w + b (torch.nn.LayerNorm, biased
// variance), the moments in double.
inline void layer_norm(const float* x, int64_t n, int d, const float* w, const float* b, float eps,
                       float* out) {
    for (int64_t t = 0; t < n; ++t) {
        const float* xr = x + t * d;
        double sum = 0;
        for (int i = 0; i < d; ++i) sum += xr[i];
        const double mean = sum / d;
        double ss = 0;
        for (int i = 0; i < d; ++i) ss += (xr[i] - mean) * (xr[i] - mean);
        const double inv = 1.0 / std::sqrt(ss / d + eps);
        float* yr = out + t * d;
        for (int i = 0; i < d; ++i)
            yr[i] = static_cast<float>((xr[i] - mean) * inv) * w[i] + (b ? b[i] : 0.0f);
    }
}

// GELU, tanh approximation (gelu_pytorch_tanh, gelu_new): 0.5 u (1 + tanh(sqrt(2/pi) (u +
// 0.044715 u^3))).
inline float gelu_tanh(float u) {
    const double x = u;
    return static_cast<float>(0.5 * x *
                              (1.0 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x))));
}

// GELU, exact (gelu): u Phi(u) = 0.5 u (1 + erf(u / sqrt(2))).
inline float gelu_erf(float u) {
    const double x = u;
    return static_cast<float>(0.5 * x * (1.0 + std::erf(x * 0.7071067811865476)));
}

inline float silu(float u) {
    const float e = std::exp(-std::fabs(u));
    return u * (u < 0 ? e : 1.0f) / (1.0f + e);
}

// In place, a[i] = act(a[i]) (times g[i] when g is not null: a gated MLP). act: 0 SiLU, 1 GELU
// (tanh), 2 GELU (erf), as checkpoint::Activation numbers them.
inline void activate(int act, float* a, const float* g, size_t len) {
    if (act == 0 && g) return silu_gate(a, g, len);
    for (size_t i = 0; i < len; ++i) {
        const float u = a[i];
        const float y = act == 1 ? gelu_tanh(u) : act == 2 ? gelu_erf(u) : silu(u);
        a[i] = g ? y * g[i] : y;
    }
}

// Each of n rows of d values gets bias[0..d) added.
inline void add_bias(float* x, int64_t n, int d, const float* bias) {
    for (int64_t t = 0; t < n; ++t)
        for (int i = 0; i < d; ++i) x[t * d + i] += bias[i];
}

// In place: x = cap * tanh(x / cap) (Gemma's final_logit_softcapping).
inline void softcap(float* x, size_t len, double cap) {
    for (size_t i = 0; i < len; ++i) x[i] = static_cast<float>(cap * std::tanh(x[i] / cap));
}

} // namespace kernels
} // namespace hirope
