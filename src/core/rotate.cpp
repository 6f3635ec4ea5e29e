// Applying a scheme to q or k rows: rotation by branch positions (with attention factor, xPos
// scale, log-n query scale) or sinusoid addition.
#include "core/rotate.h"
#include "core/internal.h"
#include "kernels/vector.h"

#include <algorithm>
#include <cstdio>
#include <utility>

namespace hirope {
namespace detail {

// xPos scale of pair p for token t: zeta_p^((t - c) / B) for a query, its inverse for a key. The
// centre c is rebased on the smallest position (Context::xpos_centre), so t - c is a relative
// position and the scale is the same at any shift of all positions (docs/schemes.md section 4.3).
double xpos_scale(const Context& c, const Positions& pos, Role role, int p, int64_t t) {
    const double power =
        (static_cast<double>(pos.token[t]) - c.xpos_centre) / c.scheme.xpos_scale_base;
    return std::pow(c.xpos_zeta[p], role == Role::query ? power : -power);
}

namespace {

std::string number(double x) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", x);
    return buf;
}

} // namespace

Status rotation_overflow(const Context& c, const Positions& pos, Role role, int64_t t) {
    std::string msg = std::string(scheme_name(c.scheme.type)) + ": rotation overflowed at token " +
                      std::to_string(t) + " (";
    const std::string who = role == Role::query ? "query" : "key";
    if (c.scheme.type == SchemeType::xpos && c.pairs > 0) {
        double largest = 0;
        for (int p = 0; p < c.pairs; ++p)
            largest = std::max(largest, xpos_scale(c, pos, role, p, t));
        msg += "xPos scale at position " + std::to_string(pos.token[t]) + " of the " + who +
               " is up to " + number(largest) + ", centre " +
               std::to_string(static_cast<int64_t>(c.xpos_centre)) + ", scheme.scaleBase " +
               number(c.scheme.xpos_scale_base) +
               ": the positions span too far for the float range, or the values are too large)";
    } else {
        msg += who + " at position " + std::to_string(pos.token[t]) +
               ": the values times the scheme's factors exceed the float range)";
    }
    return Status::error(msg);
}

// The transform of one token: for rotary schemes the scaled cos and sin of every pair (factor
// = attention factor, xPos scale, log-n query scale) and the pass-through scale; for sinusoidal
// schemes the added position vector.
class TokenTransform {
  public:
    TokenTransform(const Context& c, const Positions& pos, Role role, Branch branch)
        : c_(c), pos_(pos), role_(role), branch_(branch), cos_(c.pairs), sin_(c.pairs),
          band_pos_(c.bands.size()), pair_band_(c.pairs),
          pe_(c.scheme.type == SchemeType::sinusoidal ? c.head_dim : 0) {
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
            if (s.type == SchemeType::xpos) f *= xpos_scale(c_, pos_, role_, p, t);
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
    double pass_ = 1.0;
};

Status rotate_rows(const Context& c, const Positions& pos, Role role, Branch branch, const float* x,
                   int heads, float* out) {
    return rotate_range(c, pos, role, branch, x, heads, 0, c.n, out);
}

Status rotate_range(const Context& c, const Positions& pos, Role role, Branch branch,
                    const float* x, int heads, int64_t begin, int64_t end, float* out) {
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
        } else {
            for (int h = 0; h < heads; ++h) {
                const float* xh = xr + h * hd;
                float* yh = yr + h * hd;
                for (int p = 0; p < c.pairs; ++p) {
                    int a, b;
                    pair_dims(s.layout, c.rdim, p, &a, &b, c.rot_begin);
                    const double xa = xh[a], xb = xh[b];
                    yh[a] = static_cast<float>(xa * tr.cos()[p] - xb * tr.sin()[p]);
                    yh[b] = static_cast<float>(xa * tr.sin()[p] + xb * tr.cos()[p]);
                }
                for (int i = 0; i < hd; ++i)
                    if (passes_through(c, i)) yh[i] = static_cast<float>(xh[i] * tr.pass());
            }
        }
        // Finite inputs give a non-finite row only when a factor (xPos scale, attention factor,
        // log-n scale) times the values leaves the float range.
        if (!kernels::all_finite(yr, static_cast<size_t>(width)))
            return rotation_overflow(c, pos, role, t);
    }
    return {};
}

Status check_finite(const float* x, int64_t count, const char* name) {
    if (kernels::all_finite(x, static_cast<size_t>(count))) return {};
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
            detail::pair_dims(scheme.layout, ctx.rdim, p, &da, &db, ctx.rot_begin);
            partner[da] = db;
            partner[db] = da;
            at[da] = at[db] = static_cast<float>(tr.cos()[p]);
            bt[da] = static_cast<float>(-tr.sin()[p]);
            bt[db] = static_cast<float>(tr.sin()[p]);
        }
        const size_t len = static_cast<size_t>(head_dim);
        if (!kernels::all_finite(at, len) || !kernels::all_finite(bt, len) ||
            !kernels::all_finite(ct, len))
            return detail::rotation_overflow(ctx, pos, role, t);
    }
    return {};
}

namespace {

Status check_heads(int heads) {
    if (heads < 1 || heads > Limits::max_heads)
        return Status::error("heads must be in [1, " + std::to_string(Limits::max_heads) +
                             "], got " + std::to_string(heads));
    return {};
}

} // namespace

Status rotate(const Scheme& scheme, int head_dim, int heads, int64_t n, const Positions& pos,
              Role role, Branch branch, const float* x, float* out) {
    Status st = check_heads(heads);
    if (!st.ok()) return st;
    detail::Context c;
    st = detail::make_context(scheme, head_dim, n, pos, &c);
    if (!st.ok()) return st;
    if (!x || !out) return Status::error("x is required");
    st = detail::check_finite(x, n * heads * head_dim, "x");
    if (!st.ok()) return st;
    return detail::rotate_rows(c, pos, role, branch, x, heads, out);
}

// ---------------------------------------------------------------------------------------------
// Rotator

struct Rotator::Impl {
    detail::Context ctx;
    int heads = 0;
    std::vector<int32_t> token, unit, statement; // copies: the caller's arrays may change
    Positions pos;
    bool prepared = false;
};

Rotator::Rotator() : impl_(new Impl) {}
Rotator::~Rotator() {
    delete impl_;
}
// A moved-from rotator holds no state (impl_ null) and is unprepared; prepare() renews it.
Rotator::Rotator(Rotator&& other) noexcept : impl_(other.impl_) {
    other.impl_ = nullptr;
}
Rotator& Rotator::operator=(Rotator&& other) noexcept {
    std::swap(impl_, other.impl_);
    return *this;
}

Status Rotator::prepare(const Scheme& scheme, int head_dim, int heads, int64_t n,
                        const Positions& positions, int64_t frequency_length) {
    if (!impl_) impl_ = new Impl;
    Impl& m = *impl_;
    m.prepared = false;
    m.ctx = detail::Context();
    Status st = check_heads(heads);
    if (!st.ok()) return st;
    if (frequency_length < 0)
        return Status::error("frequency_length must be >= 0, got " +
                             std::to_string(frequency_length));
    st = detail::make_context(scheme, head_dim, n, positions, &m.ctx);
    if (!st.ok()) return st;
    if (frequency_length > m.ctx.seq_len) {
        m.ctx.seq_len = frequency_length;
        st = hirope::inverse_frequencies(scheme, head_dim, m.ctx.seq_len, &m.ctx.inv_freq);
        if (!st.ok()) return st;
        m.ctx.attn_factor = hirope::attention_factor(scheme, m.ctx.seq_len);
    }
    m.ctx.xpos_centre = detail::xpos_centre(m.ctx.min_token, m.ctx.max_token, frequency_length);
    m.heads = heads;
    m.token.assign(positions.token, positions.token + n);
    if (positions.unit) m.unit.assign(positions.unit, positions.unit + n);
    if (positions.statement) m.statement.assign(positions.statement, positions.statement + n);
    m.pos = Positions{m.token.data(), positions.unit ? m.unit.data() : nullptr,
                      positions.statement ? m.statement.data() : nullptr};
    m.prepared = true;
    return {};
}

Status Rotator::rotate_rows(Role role, Branch branch, int64_t begin, int64_t end, const float* x,
                            float* out) const {
    if (!prepared()) return Status::error("the rotator is not prepared");
    const Impl& m = *impl_;
    if (begin < 0 || end > m.ctx.n || begin > end)
        return Status::error("row range [" + std::to_string(begin) + ", " + std::to_string(end) +
                             ") is not inside [0, " + std::to_string(m.ctx.n) + ")");
    if (begin == end) return {};
    if (!x || !out) return Status::error("x and out are required");
    Status st = detail::check_finite(x, (end - begin) * m.heads * m.ctx.head_dim, "x");
    if (!st.ok()) return st;
    return detail::rotate_range(m.ctx, m.pos, role, branch, x, m.heads, begin, end, out);
}

bool Rotator::prepared() const {
    return impl_ && impl_->prepared;
}

int64_t Rotator::n() const {
    return prepared() ? impl_->ctx.n : 0;
}

int64_t Rotator::frequency_length() const {
    return prepared() ? impl_->ctx.seq_len : 0;
}

const std::vector<double>& Rotator::inverse_frequencies() const {
    static const std::vector<double> kNone; // immutable: no shared mutable state
    return prepared() ? impl_->ctx.inv_freq : kNone;
}

double Rotator::attention_factor() const {
    return prepared() ? impl_->ctx.attn_factor : 1.0;
}

double Rotator::xpos_centre() const {
    return prepared() && impl_->ctx.scheme.type == SchemeType::xpos ? impl_->ctx.xpos_centre : 0.0;
}

} // namespace hirope
