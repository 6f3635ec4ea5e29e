// The double-precision reference kernel (see reference.h).
#include "core/reference.h"

#include <Eigen/Core>
#include <algorithm>

namespace hirope {
namespace detail {

void reference_logits(const Context& c, const Positions& pos, const double* q, const double* k,
                      int heads, int h, const KeyRange& keys, const double* query_scales,
                      double scale, double alibi_slope, double softcap, int64_t r0, int64_t r1,
                      float* out) {
    const Scheme& s = c.scheme;
    const int hd = c.head_dim;
    const int64_t width = static_cast<int64_t>(heads) * hd;
    std::vector<double> qv(hd), kv(hd), pe_q(hd), pe_k(hd);
    std::vector<int> pair_band(c.pairs);
    for (int p = 0; p < c.pairs; ++p) pair_band[p] = band_of_pair(c, p);
    const double af2 = c.attn_factor * c.attn_factor;
    for (int64_t i = r0; i < r1; ++i) {
        const int64_t jmax = keys.end(i);
        for (int64_t j = keys.first(i); j < jmax; ++j) {
            for (int d = 0; d < hd; ++d) {
                qv[d] = q[i * width + h * hd + d];
                kv[d] = k[j * width + h * hd + d];
            }
            double score = 0;
            if (s.type == SchemeType::sinusoidal) {
                sinusoid(s, hd, pos.token[i], pe_q.data());
                sinusoid(s, hd, pos.token[j], pe_k.data());
                for (int d = 0; d < hd; ++d) score += (qv[d] + pe_q[d]) * (kv[d] + pe_k[d]);
            } else {
                const double dt = static_cast<double>(pos.token[i]) - pos.token[j];
                for (int p = 0; p < c.pairs; ++p) {
                    int a, b;
                    pair_dims(s.layout, c.rdim, p, &a, &b, c.rot_begin);
                    const double angle = pair_distance(c, pos, pair_band[p], i, j) * c.inv_freq[p];
                    double term = (qv[a] * kv[a] + qv[b] * kv[b]) * std::cos(angle) +
                                  (qv[a] * kv[b] - qv[b] * kv[a]) * std::sin(angle);
                    if (s.type == SchemeType::xpos)
                        term *= std::pow(c.xpos_zeta[p], dt / s.xpos_scale_base);
                    score += term * af2;
                }
                for (int d = 0; d < hd; ++d)
                    if (passes_through(c, d)) score += qv[d] * kv[d];
                score *= log_n_scale(s, pos.token[i]);
            }
            if (query_scales) score *= query_scales[i];
            double logit = score * scale;
            if (s.type == SchemeType::alibi)
                logit -= alibi_slope * std::fabs(static_cast<double>(pos.token[i]) - pos.token[j]);
            if (softcap > 0) logit = softcap * std::tanh(logit / softcap);
            out[(i - r0) * c.n + j] = static_cast<float>(logit);
        }
    }
}

bool reference_softmax(float* x, int64_t len, double sink) {
    double m = sink;
    for (int64_t j = 0; j < len; ++j) {
        if (!std::isfinite(x[j])) return false;
        m = std::max(m, static_cast<double>(x[j]));
    }
    std::vector<double> e(len);
    double sum = std::isfinite(sink) ? std::exp(sink - m) : 0.0;
    for (int64_t j = 0; j < len; ++j) sum += e[j] = std::exp(x[j] - m);
    for (int64_t j = 0; j < len; ++j) x[j] = static_cast<float>(e[j] / sum);
    return true;
}

void reference_output(const float* probs, int64_t ldp, const double* v, int64_t ldv, int64_t rows,
                      int64_t depth, int64_t hd, float* out, int64_t ldo) {
    using Mat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    Mat p(rows, depth), vm(depth, hd);
    for (int64_t r = 0; r < rows; ++r)
        for (int64_t j = 0; j < depth; ++j) p(r, j) = probs[r * ldp + j];
    for (int64_t j = 0; j < depth; ++j)
        for (int64_t d = 0; d < hd; ++d) vm(j, d) = v[j * ldv + d];
    Mat o = p * vm;
    for (int64_t r = 0; r < rows; ++r)
        for (int64_t d = 0; d < hd; ++d) out[r * ldo + d] = static_cast<float>(o(r, d));
}

} // namespace detail
} // namespace hirope
