// Applying a scheme to q or k rows: rotation by branch positions (with attention factor, xPos
// scale, log-n query scale) or sinusoid addition.
#include "rotate.h"
#include "internal.h"

#include <algorithm>

namespace hirope {
namespace detail {

void rotate_rows(const Context& c, const Positions& pos, Role role, Branch branch, const float* x,
                 int heads, float* out) {
    const Scheme& s = c.scheme;
    const int hd = c.head_dim;
    const int64_t width = static_cast<int64_t>(heads) * hd;
    const bool query = role == Role::query;
    std::vector<double> cs(c.pairs), sn(c.pairs), factor(c.pairs, c.attn_factor);
    std::vector<double> band_pos(c.bands.size());
    std::vector<int> pair_band(c.pairs);
    for (int p = 0; p < c.pairs; ++p) pair_band[p] = band_of_pair(c, p);
    std::vector<double> pe(s.type == SchemeType::sinusoidal ? hd : 0);
    // xPos powers are centred as in torchscale: token t gets (t - ceil(L / 2)) / scale_base.
    const double xpos_centre = std::ceil(c.seq_len / 2.0);

    for (int64_t t = 0; t < c.n; ++t) {
        const float* xr = x + t * width;
        float* yr = out + t * width;
        const double qscale = query ? log_n_scale(s, pos.token[t]) : 1.0;
        if (s.type == SchemeType::sinusoidal) {
            sinusoid(s, hd, pos.token[t], pe.data());
            for (int h = 0; h < heads; ++h)
                for (int i = 0; i < hd; ++i)
                    yr[h * hd + i] = static_cast<float>(xr[h * hd + i] + pe[i]);
            continue;
        }
        if (c.pairs == 0) {
            std::copy(xr, xr + width, yr);
            continue;
        }
        for (size_t b = 0; b < c.bands.size(); ++b)
            band_pos[b] = branch_position(c, pos, static_cast<int>(b), role, branch, t);
        for (int p = 0; p < c.pairs; ++p) {
            sincos_fast(band_pos[pair_band[p]] * c.inv_freq[p], &sn[p], &cs[p]);
            if (s.type == SchemeType::xpos) {
                const double power = (pos.token[t] - xpos_centre) / s.xpos_scale_base;
                factor[p] = c.attn_factor * std::pow(c.xpos_zeta[p], query ? power : -power);
            }
        }
        for (int h = 0; h < heads; ++h) {
            const float* xh = xr + h * hd;
            float* yh = yr + h * hd;
            for (int p = 0; p < c.pairs; ++p) {
                int a, b;
                pair_dims(s.layout, c.rdim, p, &a, &b);
                const double f = factor[p] * qscale;
                const double xa = xh[a], xb = xh[b];
                yh[a] = static_cast<float>((xa * cs[p] - xb * sn[p]) * f);
                yh[b] = static_cast<float>((xa * sn[p] + xb * cs[p]) * f);
            }
            for (int i = c.rdim; i < hd; ++i) yh[i] = static_cast<float>(xh[i] * qscale);
        }
    }
}

Status check_finite(const float* x, int64_t count, const char* name) {
    for (int64_t i = 0; i < count; ++i) {
        if (!std::isfinite(x[i]))
            return Status::error(std::string(name) + " contains a non-finite value (" +
                                 (std::isnan(x[i]) ? "NaN" : "Infinity") + ") at index " +
                                 std::to_string(i));
    }
    return {};
}

} // namespace detail

Status rotate(const Scheme& scheme, int head_dim, int heads, int64_t n, const Positions& pos,
              Role role, Branch branch, const float* x, float* out) {
    if (heads < 1 || heads > Limits::max_heads)
        return Status::error("heads must be in [1, " + std::to_string(Limits::max_heads) +
                             "], got " + std::to_string(heads));
    detail::Context c;
    Status st = detail::make_context(scheme, head_dim, n, pos, &c);
    if (!st.ok()) return st;
    if (!x || !out) return Status::error("x is required");
    st = detail::check_finite(x, n * heads * head_dim, "x");
    if (!st.ok()) return st;
    detail::rotate_rows(c, pos, role, branch, x, heads, out);
    return {};
}

} // namespace hirope
