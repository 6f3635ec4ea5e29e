// Applying a scheme to q or k rows: rotation by branch positions (with attention factor, xPos
// scale, log-n query scale) or sinusoid addition.
#include "core/rotate.h"
#include "core/internal.h"

#include <algorithm>

namespace hirope {
namespace detail {

// The transform of one token: for rotary schemes the scaled cos and sin of every pair (factor
// = attention factor, xPos scale, log-n query scale) and the pass-through scale; for sinusoidal
// schemes the added position vector.
class TokenTransform {
  public:
    TokenTransform(const Context& c, const Positions& pos, Role role, Branch branch)
        : c_(c), pos_(pos), role_(role), branch_(branch), cos_(c.pairs), sin_(c.pairs),
          band_pos_(c.bands.size()), pair_band_(c.pairs),
          pe_(c.scheme.type == SchemeType::sinusoidal ? c.head_dim : 0),
          // xPos powers are centred as in torchscale: token t gets (t - ceil(L / 2)) / base.
          xpos_centre_(std::ceil(c.seq_len / 2.0)) {
        for (int p = 0; p < c.pairs; ++p) pair_band_[p] = band_of_pair(c, p);
    }

    void compute(int64_t t) {
        const Scheme& s = c_.scheme;
        const bool query = role_ == Role::query;
        pass_ = query ? log_n_scale(s, pos_.token[t]) : 1.0;
        if (s.type == SchemeType::sinusoidal) {
            sinusoid(s, c_.head_dim, pos_.token[t], pe_.data());
            return;
        }
        for (size_t b = 0; b < c_.bands.size(); ++b)
            band_pos_[b] = branch_position(c_, pos_, static_cast<int>(b), role_, branch_, t);
        for (int p = 0; p < c_.pairs; ++p) {
            double sn, cs;
            sincos_fast(band_pos_[pair_band_[p]] * c_.inv_freq[p], &sn, &cs);
            double f = c_.attn_factor * pass_;
            if (s.type == SchemeType::xpos) {
                const double power = (pos_.token[t] - xpos_centre_) / s.xpos_scale_base;
                f *= std::pow(c_.xpos_zeta[p], query ? power : -power);
            }
            cos_[p] = cs * f;
            sin_[p] = sn * f;
        }
    }

    const std::vector<double>& cos() const { return cos_; }
    const std::vector<double>& sin() const { return sin_; }
    const std::vector<double>& added() const { return pe_; }
    double pass() const { return pass_; }

  private:
    const Context& c_;
    const Positions& pos_;
    Role role_;
    Branch branch_;
    std::vector<double> cos_, sin_, band_pos_;
    std::vector<int> pair_band_;
    std::vector<double> pe_;
    double xpos_centre_;
    double pass_ = 1.0;
};

void rotate_rows(const Context& c, const Positions& pos, Role role, Branch branch, const float* x,
                 int heads, float* out) {
    rotate_range(c, pos, role, branch, x, heads, 0, c.n, out);
}

void rotate_range(const Context& c, const Positions& pos, Role role, Branch branch, const float* x,
                  int heads, int64_t begin, int64_t end, float* out) {
    const Scheme& s = c.scheme;
    const int hd = c.head_dim;
    const int64_t width = static_cast<int64_t>(heads) * hd;
    TokenTransform tr(c, pos, role, branch);
    for (int64_t t = begin; t < end; ++t) {
        const float* xr = x + (t - begin) * width;
        float* yr = out + (t - begin) * width;
        tr.compute(t);
        if (s.type == SchemeType::sinusoidal) {
            for (int h = 0; h < heads; ++h)
                for (int i = 0; i < hd; ++i)
                    yr[h * hd + i] = static_cast<float>(xr[h * hd + i] + tr.added()[i]);
            continue;
        }
        for (int h = 0; h < heads; ++h) {
            const float* xh = xr + h * hd;
            float* yh = yr + h * hd;
            for (int p = 0; p < c.pairs; ++p) {
                int a, b;
                pair_dims(s.layout, c.rdim, p, &a, &b);
                const double xa = xh[a], xb = xh[b];
                yh[a] = static_cast<float>(xa * tr.cos()[p] - xb * tr.sin()[p]);
                yh[b] = static_cast<float>(xa * tr.sin()[p] + xb * tr.cos()[p]);
            }
            for (int i = c.rdim; i < hd; ++i) yh[i] = static_cast<float>(xh[i] * tr.pass());
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

Status transform_coefficients(const Scheme& scheme, int head_dim, int64_t n, const Positions& pos,
                              Role role, Branch branch, float* a, float* b, float* c,
                              int32_t* partner) {
    detail::Context ctx;
    Status st = detail::make_context(scheme, head_dim, n, pos, &ctx);
    if (!st.ok()) return st;
    for (int i = 0; i < head_dim; ++i) partner[i] = i;
    detail::TokenTransform tr(ctx, pos, role, branch);
    for (int64_t t = 0; t < n; ++t) {
        tr.compute(t);
        float* at = a + t * head_dim;
        float* bt = b + t * head_dim;
        float* ct = c + t * head_dim;
        for (int i = 0; i < head_dim; ++i) {
            at[i] = scheme.type == SchemeType::sinusoidal ? 1.0f : static_cast<float>(tr.pass());
            bt[i] = 0.0f;
            ct[i] =
                scheme.type == SchemeType::sinusoidal ? static_cast<float>(tr.added()[i]) : 0.0f;
        }
        for (int p = 0; p < ctx.pairs; ++p) {
            int da, db;
            detail::pair_dims(scheme.layout, ctx.rdim, p, &da, &db);
            partner[da] = db;
            partner[db] = da;
            at[da] = at[db] = static_cast<float>(tr.cos()[p]);
            bt[da] = static_cast<float>(-tr.sin()[p]);
            bt[db] = static_cast<float>(tr.sin()[p]);
        }
    }
    return {};
}

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
