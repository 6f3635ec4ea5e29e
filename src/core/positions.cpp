// Branch positions, relative distances per band, sinusoids and the long-term decay curve.
#include "core/internal.h"

#include <algorithm>
#include <limits>

namespace hirope {
namespace detail {

Status make_context(const Scheme& scheme, int head_dim, int64_t n, const Positions& pos,
                    Context* c) {
    Status st = validate(scheme, head_dim);
    if (!st.ok()) return st;
    if (n <= 0) return Status::error("n must be at least 1, got " + std::to_string(n));
    if (n > Limits::max_tokens)
        return Status::error("n must be at most " + std::to_string(Limits::max_tokens) + ", got " +
                             std::to_string(n));
    if (!pos.token) return Status::error("positions.token is required");
    if (scheme.type == SchemeType::hirope && !pos.unit)
        return Status::error("positions.unit is required by the hirope scheme (pass "
                             "{ token, unit } or set scheme.segmentSize)");
    if (scheme.type == SchemeType::hirope && scheme.levels == 3 && !pos.statement)
        return Status::error("positions.statement is required by hirope with levels: 3");
    c->scheme = scheme;
    c->head_dim = head_dim;
    c->rdim = rotary_dim(scheme, head_dim);
    c->pairs = c->rdim / 2;
    c->rot_begin = is_rotary(scheme.type) && scheme.rotary_last ? head_dim - c->rdim : 0;
    c->n = n;
    int32_t min_pos = pos.token[0], max_pos = pos.token[0];
    for (int64_t t = 1; t < n; ++t) {
        min_pos = std::min(min_pos, pos.token[t]);
        max_pos = std::max(max_pos, pos.token[t]);
    }
    c->min_token = min_pos;
    c->max_token = max_pos;
    c->seq_len = std::max<int64_t>(1, static_cast<int64_t>(max_pos) + 1);
    c->xpos_centre = xpos_centre(min_pos, max_pos, 0);
    c->bands = bands(scheme, head_dim);
    c->band_level.clear();
    for (const Band& b : c->bands)
        c->band_level.push_back(b.name == "unit" ? 2 : b.name == "statement" ? 1 : 0);
    st = inverse_frequencies(scheme, head_dim, c->seq_len, &c->inv_freq);
    if (!st.ok()) return st;
    c->attn_factor = attention_factor(scheme, c->seq_len);
    c->xpos_zeta.clear();
    if (scheme.type == SchemeType::xpos) {
        for (int p = 0; p < c->pairs; ++p)
            c->xpos_zeta.push_back((2.0 * p / c->rdim + scheme.xpos_gamma) /
                                   (1 + scheme.xpos_gamma));
    }
    return {};
}

double xpos_centre(int32_t min_token, int32_t max_token, int64_t frequency_length) {
    // Rebased on the smallest position: torchscale's ceil(L / 2) when positions start at 0, and
    // the same offset from the smallest position when they do not (docs/schemes.md section 4.3).
    // A frequency_length of 0 means none; one above the positions' end replaces it.
    int64_t end = static_cast<int64_t>(max_token) + 1;
    if (frequency_length > 0 && frequency_length > end) end = frequency_length;
    const int64_t span = end - min_token; // at least 1
    return static_cast<double>(min_token) + static_cast<double>((span + 1) / 2);
}

const char* scheme_name(SchemeType type) {
    const SchemeInfo* info = scheme_info(type);
    return info ? info->name : "scheme";
}

double branch_position(const Context& c, const Positions& pos, int band, Role role, Branch branch,
                       int64_t t) {
    const Scheme& s = c.scheme;
    const double tok = pos.token[t];
    if (branch == Branch::near || !is_windowed(s.type)) return tok;
    const double w = static_cast<double>(s.window);
    const bool q = role == Role::query;
    switch (s.type) {
    case SchemeType::rerope:
        return q ? w : 0.0;
    case SchemeType::leaky_rerope: {
        const double k = s.leaky_factor;
        return q ? tok / k + w - w / k : tok / k;
    }
    case SchemeType::self_extend: {
        const double g = static_cast<double>(s.group);
        const double grouped = floor_div(tok, g);
        return q ? grouped + w - floor_div(w, g) : grouped;
    }
    case SchemeType::hirope: {
        const int lv = c.band_level[band];
        if (lv == 0) return tok;
        const double level = level_index(pos, lv, t);
        return q ? level + w - 1 : level;
    }
    default:
        return tok;
    }
}

double pair_distance(const Context& c, const Positions& pos, int band, int64_t i, int64_t j) {
    const Scheme& s = c.scheme;
    const double dt = static_cast<double>(pos.token[i]) - pos.token[j];
    if (!is_windowed(s.type) || dt < static_cast<double>(s.window)) return dt;
    const double w = static_cast<double>(s.window);
    switch (s.type) {
    case SchemeType::rerope:
        return w;
    case SchemeType::leaky_rerope:
        return w + (dt - w) / s.leaky_factor;
    case SchemeType::self_extend: {
        const double g = static_cast<double>(s.group);
        return floor_div(pos.token[i], g) - floor_div(pos.token[j], g) + w - floor_div(w, g);
    }
    case SchemeType::hirope: {
        const int lv = c.band_level[band];
        if (lv == 0) return dt;
        return static_cast<double>(level_index(pos, lv, i)) - level_index(pos, lv, j) + w - 1;
    }
    default:
        return dt;
    }
}

void sinusoid(const Scheme& s, int head_dim, double p, double* out) {
    const int half = head_dim / 2;
    if (s.sinusoidal == SinusoidalVariant::vaswani) {
        for (int i = 0; i < half; ++i) {
            const double angle = p / std::pow(s.base, 2.0 * i / head_dim);
            out[2 * i] = std::sin(angle);
            out[2 * i + 1] = std::cos(angle);
        }
    } else {
        for (int i = 0; i < half; ++i) {
            const double angle = p * std::exp(-i * std::log(s.base) / (half - 1));
            out[i] = std::sin(angle);
            out[half + i] = std::cos(angle);
        }
    }
}

void sincos_fast(double x, double* s, double* co) {
    constexpr double two_over_pi = 0.63661977236758134308;
    constexpr double pio2_hi = 1.57079632673412561417e+00;
    constexpr double pio2_lo = 6.07710050650619224932e-11;
    const double q = std::nearbyint(x * two_over_pi);
    const double r = (x - q * pio2_hi) - q * pio2_lo;
    const double r2 = r * r;
    const double sp =
        r + r * r2 *
                (-1.0 / 6 +
                 r2 * (1.0 / 120 + r2 * (-1.0 / 5040 + r2 * (1.0 / 362880 - r2 / 39916800))));
    const double cp =
        1 - r2 / 2 +
        r2 * r2 *
            (1.0 / 24 +
             r2 * (-1.0 / 720 + r2 * (1.0 / 40320 + r2 * (-1.0 / 3628800 + r2 / 479001600))));
    switch (static_cast<int64_t>(q) & 3) {
    case 0:
        *s = sp;
        *co = cp;
        break;
    case 1:
        *s = cp;
        *co = -sp;
        break;
    case 2:
        *s = -sp;
        *co = -cp;
        break;
    default:
        *s = -cp;
        *co = sp;
        break;
    }
}

} // namespace detail

Status relative_distances(const Scheme& scheme, int head_dim, int64_t n, const Positions& pos,
                          int band, float* out) {
    detail::Context c;
    Status st = detail::make_context(scheme, head_dim, n, pos, &c);
    if (!st.ok()) return st;
    if (band < 0 || band >= static_cast<int>(c.bands.size()))
        return Status::error("band must be in [0, " + std::to_string(c.bands.size()) + "), got " +
                             std::to_string(band));
    if (static_cast<double>(n) * n > static_cast<double>(Limits::max_output_elements))
        return Status::error("n * n exceeds the output limit of " +
                             std::to_string(Limits::max_output_elements) + " elements");
    const bool causal = is_windowed(scheme.type);
    for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < n; ++j)
            out[i * n + j] = causal && j > i
                                 ? std::numeric_limits<float>::quiet_NaN()
                                 : static_cast<float>(detail::pair_distance(c, pos, band, i, j));
    return {};
}

Status long_term_decay(const Scheme& scheme, int head_dim, int64_t max_distance, float* out) {
    if (max_distance < 0 || max_distance >= Limits::max_tokens)
        return Status::error("maxDistance must be in [0, " + std::to_string(Limits::max_tokens) +
                             "), got " + std::to_string(max_distance));
    const int64_t n = max_distance + 1;
    // Query at position max_distance, keys at every earlier position, all in one unit.
    std::vector<int32_t> tok(n), zero(n, 0);
    for (int64_t t = 0; t < n; ++t) tok[t] = static_cast<int32_t>(t);
    Positions pos{tok.data(), zero.data(), zero.data()};
    detail::Context c;
    Status st = detail::make_context(scheme, head_dim, n, pos, &c);
    if (!st.ok()) return st;
    if (c.pairs == 0) return Status::error("longTermDecay needs a rotary scheme");
    const int64_t q = max_distance;
    for (int64_t r = 0; r <= max_distance; ++r) {
        double re = 0, im = 0, total = 0;
        for (int p = 0; p < c.pairs; ++p) {
            const double dist = detail::pair_distance(c, pos, detail::band_of_pair(c, p), q, q - r);
            re += std::cos(dist * c.inv_freq[p]);
            im += std::sin(dist * c.inv_freq[p]);
            total += std::sqrt(re * re + im * im);
        }
        out[r] = static_cast<float>(total / c.pairs);
    }
    return {};
}

} // namespace hirope
