// Scheme validation, inverse frequencies for every RoPE scaling, attention factors, ALiBi slopes.
#include "hirope/hirope.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace hirope {

namespace {

constexpr double kPi = 3.14159265358979323846;

bool finite(double x) {
    return std::isfinite(x);
}

std::string num(double x) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%g", x);
    return buf;
}

std::string integer_text(double x) {
    return std::isfinite(x) ? std::to_string(static_cast<int64_t>(x)) : num(x);
}

// A parameter's value against its range in the catalogue; the message names it as users write it
// (ParamInfo::name).
Status check_param(const ParamInfo& p, const Scheme& s, const std::string& prefix) {
    if (!p.field) return {}; // an option of the bindings, no field
    const std::string name = prefix + p.name;
    if (p.kind == ParamKind::enumeration) {
        const std::vector<EnumValue>* list = value_list(p.values);
        const int x = static_cast<int>(p.get(s));
        std::string names;
        for (const EnumValue& e : *list) {
            if (e.value == x) return {};
            names += (names.empty() ? "'" : ", '") + std::string(e.name) + "'";
        }
        return Status::error(name + " must be one of " + names + ", got " + std::to_string(x));
    }
    if (p.kind != ParamKind::number && p.kind != ParamKind::integer) return {};
    const double x = p.get(s);
    // The bindings pass NaN for a required parameter left out (the scaling factor).
    if (p.required && std::isnan(x))
        return Status::error(name + " is required (" + param_range(p) + ")");
    bool ok = finite(x);
    if (ok && !p.allowed.empty())
        ok = std::find(p.allowed.begin(), p.allowed.end(), x) != p.allowed.end();
    if (ok) ok = p.min_open ? x > p.min : x >= p.min;
    if (ok) ok = p.max_open ? x < p.max : x <= p.max;
    const std::string got = p.kind == ParamKind::integer ? integer_text(x) : num(x);
    if (!ok) return Status::error(name + " must be " + param_range(p) + ", got " + got);
    if (std::fabs(x) > p.limit) return Status::error(name + " is too large: " + got);
    return {};
}

// Whether validate() checks a parameter for this type: the type takes it and its only_if holds.
bool applies(const ParamInfo& p, int type, const std::vector<ParamInfo>& params, const Scheme& s) {
    if (!takes(p, type)) return false;
    if (!p.only_if) return true;
    for (const ParamInfo& q : params)
        if (q.field && std::string(q.field) == p.only_if) return q.get(s) == p.only_if_value;
    return true;
}

// The scaling's parameters by the catalogue, then its rules that involve several values.
Status validate_scaling(const Scheme& scheme, int rdim) {
    const Scaling& s = scheme.scaling;
    const std::string p = "scheme.scaling.";
    if (s.type == ScalingType::none) return {};
    const SchemeCatalogue& v = scheme_catalogue();
    const int type = static_cast<int>(s.type);
    if (type < 0 || type >= static_cast<int>(v.scalings.size())) {
        std::string names;
        for (const ScalingInfo& info : v.scalings)
            names += (names.empty() ? "'" : ", '") + std::string(info.name) + "'";
        return Status::error("scheme.scaling.type must be one of " + names + ", got " +
                             std::to_string(type));
    }
    for (const ParamInfo& param : v.scaling_params) {
        if (!applies(param, type, v.scaling_params, scheme)) continue;
        Status st = check_param(param, scheme, p);
        if (!st.ok()) return st;
    }
    switch (s.type) {
    case ScalingType::linear:
    case ScalingType::dynamic_ntk:
        if (s.factor < 1) return Status::error(p + "factor must be >= 1, got " + num(s.factor));
        break;
    case ScalingType::ntk:
        if (rdim <= 2) return Status::error(p + "ntk needs a rotary dimension above 2");
        break;
    case ScalingType::longrope: {
        const size_t want = static_cast<size_t>(rdim / 2);
        if (s.short_factor.size() != want || s.long_factor.size() != want)
            return Status::error(p + "shortFactor and longFactor must each have rotary_dim/2 = " +
                                 std::to_string(want) + " entries, got " +
                                 std::to_string(s.short_factor.size()) + " and " +
                                 std::to_string(s.long_factor.size()));
        for (size_t i = 0; i < want; ++i) {
            if (!finite(s.short_factor[i]) || s.short_factor[i] <= 0 || !finite(s.long_factor[i]) ||
                s.long_factor[i] <= 0)
                return Status::error(p +
                                     "shortFactor and longFactor entries must be positive "
                                     "numbers (entry " +
                                     std::to_string(i) + ")");
        }
        break;
    }
    case ScalingType::llama3:
        // Equal factors are Llama 4 Scout's (transformers only warns): the band is a step.
        if (s.high_freq_factor < s.low_freq_factor)
            return Status::error(p + "llama3 needs 0 < lowFreqFactor <= highFreqFactor, got " +
                                 num(s.low_freq_factor) + " and " + num(s.high_freq_factor));
        break;
    default:
        break;
    }
    return {};
}

double yarn_mscale(double s, double m) {
    return s <= 1 ? 1.0 : 0.1 * m * std::log(s) + 1.0;
}

} // namespace

bool is_windowed(SchemeType t) {
    const SchemeInfo* info = scheme_info(t);
    return info && info->windowed;
}

std::string scheme_names(bool SchemeInfo::*flag) {
    std::string out;
    for (const SchemeInfo& s : scheme_catalogue().schemes) {
        if (!(s.*flag)) continue;
        if (!out.empty()) out += ", ";
        out += s.name;
    }
    return out;
}

Status check_causal(SchemeType type, bool causal) {
    if (causal || !is_windowed(type)) return {};
    return Status::error("scheme '" + std::string(scheme_info(type)->name) +
                         "' is a windowed scheme, defined for causal attention: leave causal on");
}

bool is_rotary(SchemeType t) {
    const SchemeInfo* info = scheme_info(t);
    return info && info->rotary;
}

int rotary_dim(const Scheme& scheme, int head_dim) {
    if (!is_rotary(scheme.type)) return 0;
    int d = static_cast<int>(std::floor(scheme.rotary_fraction * head_dim + 1e-9));
    return d - (d % 2);
}

// Every parameter the scheme's type takes, by its range in the catalogue (catalogue.cpp), in
// the table's order; then the rules that involve several fields.
Status validate(const Scheme& s, int head_dim) {
    if (head_dim <= 0 || head_dim % 2 != 0)
        return Status::error("head_dim must be a positive even integer, got " +
                             std::to_string(head_dim));
    if (head_dim > Limits::max_head_dim)
        return Status::error("head_dim must be at most " + std::to_string(Limits::max_head_dim) +
                             ", got " + std::to_string(head_dim));
    const SchemeCatalogue& v = scheme_catalogue();
    if (!scheme_info(s.type)) {
        std::string names;
        for (const SchemeInfo& info : v.schemes)
            names += (names.empty() ? "'" : ", '") + std::string(info.name) + "'";
        return Status::error("scheme.type must be one of " + names + ", got " +
                             std::to_string(static_cast<int>(s.type)));
    }
    const int type = static_cast<int>(s.type);
    for (const ParamInfo& p : v.scheme_params) {
        if (p.kind == ParamKind::scaling) {
            if (!takes(p, type)) {
                if (s.scaling.type != ScalingType::none)
                    return Status::error("scheme.scaling applies to rotary schemes only");
                continue;
            }
            // After rotary_fraction (its range is checked): the dims it leaves, then the scaling.
            if (rotary_dim(s, head_dim) < 2)
                return Status::error("scheme.rotaryFraction * head_dim must leave at least 2 "
                                     "rotated dims, got " +
                                     num(s.rotary_fraction) + " * " + std::to_string(head_dim));
            Status st = validate_scaling(s, rotary_dim(s, head_dim));
            if (!st.ok()) return st;
            continue;
        }
        if (!applies(p, type, v.scheme_params, s)) continue;
        Status st = check_param(p, s, "scheme.");
        if (!st.ok()) return st;
    }
    if (s.type == SchemeType::hirope && s.levels == 3 && s.ratio + s.statement_ratio > 1 + 1e-12)
        return Status::error("scheme.ratio + scheme.statementRatio must be at most 1, got " +
                             num(s.ratio + s.statement_ratio));
    if (s.type == SchemeType::sinusoidal && s.sinusoidal == SinusoidalVariant::fairseq &&
        head_dim < 4)
        return Status::error("the fairseq sinusoidal variant needs head_dim >= 4");
    return {};
}

std::vector<int> band_pairs(const Scheme& s, int head_dim) {
    const int pairs = rotary_dim(s, head_dim) / 2;
    if (pairs == 0) return {};
    if (s.type != SchemeType::hirope) return {pairs};
    // d_s = round_to_even(ratio * d): the token level gets d_s / 2 pairs
    // (docs/schemes.md section 6.2).
    auto round_pairs = [&](double r) {
        return std::min(pairs, static_cast<int>(std::floor(r * pairs + 0.5)));
    };
    const int tok = round_pairs(s.ratio);
    if (s.levels == 2) return {tok, pairs - tok};
    const int stmt = std::min(pairs - tok, round_pairs(s.statement_ratio));
    return {tok, stmt, pairs - tok - stmt};
}

std::vector<Band> bands(const Scheme& s, int head_dim) {
    std::vector<int> counts = band_pairs(s, head_dim);
    std::vector<Band> out;
    if (counts.empty()) return out;
    if (s.type != SchemeType::hirope) {
        out.push_back({"all", 0, counts[0]});
        return out;
    }
    static const char* names2[] = {"token", "unit"};
    static const char* names3[] = {"token", "statement", "unit"};
    const char** names = s.levels == 2 ? names2 : names3;
    // Lowest level first on the low frequency indices (prose and Fig. 2); token_on_high reverses
    // the order (Eq. 3 as printed).
    const int levels = static_cast<int>(counts.size());
    int begin = 0;
    for (int step = 0; step < levels; ++step) {
        int level = s.token_on_high ? levels - 1 - step : step;
        out.push_back({names[level], begin, begin + counts[level]});
        begin += counts[level];
    }
    return out;
}

Status yarn_correction_range(double beta_fast, double beta_slow, int dim, double base,
                             double original_length, double* low, double* high) {
    if (!finite(beta_fast) || beta_fast <= 0)
        return Status::error("betaFast must be a positive number, got " + num(beta_fast));
    if (!finite(beta_slow) || beta_slow <= 0)
        return Status::error("betaSlow must be a positive number, got " + num(beta_slow));
    if (dim < 2) return Status::error("dim must be at least 2, got " + std::to_string(dim));
    if (!finite(base) || base <= 1)
        return Status::error("base must be a number > 1, got " + num(base));
    if (!finite(original_length) || original_length <= 0)
        return Status::error("originalLength must be a positive number, got " +
                             num(original_length));
    auto correction_dim = [&](double rotations) {
        return dim * std::log(original_length / (rotations * 2 * kPi)) / (2 * std::log(base));
    };
    const double lo = correction_dim(beta_fast), hi = correction_dim(beta_slow);
    if (!finite(lo) || !finite(hi))
        return Status::error("the YaRN correction range overflows for originalLength " +
                             num(original_length) + " and betas " + num(beta_fast) + ", " +
                             num(beta_slow));
    *low = lo;
    *high = hi;
    return {};
}

Status inverse_frequencies(const Scheme& s, int head_dim, int64_t seq_len,
                           std::vector<double>* out) {
    Status st = validate(s, head_dim);
    if (!st.ok()) return st;
    const int d = rotary_dim(s, head_dim);
    const int pairs = d / 2;
    out->assign(pairs, 0.0);
    if (pairs == 0) return {};
    const Scaling& sc = s.scaling;
    double base = s.base;
    if (sc.type == ScalingType::ntk) {
        base = s.base * std::pow(sc.factor, static_cast<double>(d) / (d - 2));
    } else if (sc.type == ScalingType::dynamic_ntk) {
        const double len = std::max(static_cast<double>(seq_len), sc.original_length);
        base = s.base * std::pow(sc.factor * len / sc.original_length - (sc.factor - 1),
                                 static_cast<double>(d) / (d - 2));
    }
    for (int j = 0; j < pairs; ++j) out->at(j) = std::pow(base, -2.0 * j / d);

    switch (sc.type) {
    case ScalingType::linear:
        for (double& f : *out) f /= sc.factor;
        break;
    case ScalingType::yarn: {
        double low = 0, high = 0;
        st = yarn_correction_range(sc.beta_fast, sc.beta_slow, d, s.base, sc.original_length, &low,
                                   &high);
        if (!st.ok()) return Status::error("scheme.scaling: " + st.message());
        if (sc.truncate) {
            low = std::floor(low);
            high = std::ceil(high);
        }
        low = std::max(low, 0.0);
        high = std::min(high, static_cast<double>(d - 1));
        if (low == high) high += 0.001;
        for (int j = 0; j < pairs; ++j) {
            const double ramp = std::min(1.0, std::max(0.0, (j - low) / (high - low)));
            const double orig = out->at(j);
            out->at(j) = orig / sc.factor * ramp + orig * (1 - ramp);
        }
        break;
    }
    case ScalingType::longrope: {
        const std::vector<double>& ext =
            static_cast<double>(seq_len) > sc.original_length ? sc.long_factor : sc.short_factor;
        for (int j = 0; j < pairs; ++j) out->at(j) /= ext[j];
        break;
    }
    case ScalingType::llama3: {
        const double low_wavelen = sc.original_length / sc.low_freq_factor;
        const double high_wavelen = sc.original_length / sc.high_freq_factor;
        for (int j = 0; j < pairs; ++j) {
            const double f = out->at(j);
            const double wavelen = 2 * kPi / f;
            if (wavelen < high_wavelen) continue;
            if (wavelen > low_wavelen) {
                out->at(j) = f / sc.factor;
                continue;
            }
            // low == high leaves no band: a wavelength exactly at the step keeps f (transformers'
            // 0/0 there would be NaN).
            if (sc.high_freq_factor == sc.low_freq_factor) continue;
            const double smooth = (sc.original_length / wavelen - sc.low_freq_factor) /
                                  (sc.high_freq_factor - sc.low_freq_factor);
            out->at(j) = (1 - smooth) * f / sc.factor + smooth * f;
        }
        break;
    }
    case ScalingType::proportional: {
        // p-RoPE as transformers' _compute_proportional_rope_parameters: pairs from
        // floor(p * d / 2) on stop rotating; the others keep base^(-2j/d), d the full rotary dim;
        // then inv_freq /= factor.
        const double rotating = std::floor(sc.partial_rotary_factor * d / 2);
        for (int j = 0; j < pairs; ++j) out->at(j) = j >= rotating ? 0 : out->at(j) / sc.factor;
        break;
    }
    default:
        break;
    }
    return {};
}

double attention_factor(const Scheme& s, int64_t /*seq_len*/) {
    const Scaling& sc = s.scaling;
    if (!is_rotary(s.type)) return 1.0;
    if (sc.type != ScalingType::none && sc.attention_factor >= 0) return sc.attention_factor;
    if (sc.type == ScalingType::yarn) {
        if (sc.mscale > 0 && sc.mscale_all_dim > 0)
            return yarn_mscale(sc.factor, sc.mscale) / yarn_mscale(sc.factor, sc.mscale_all_dim);
        return yarn_mscale(sc.factor, 1.0);
    }
    if (sc.type == ScalingType::longrope) {
        if (sc.factor <= 1) return 1.0;
        return std::sqrt(1 + std::log(sc.factor) / std::log(sc.original_length));
    }
    return 1.0;
}

std::vector<double> alibi_slopes(int heads) {
    std::vector<double> out;
    if (heads <= 0) return out;
    auto power_of_two = [](int n) {
        std::vector<double> s(n);
        const double start = std::pow(2.0, -8.0 / n);
        for (int i = 0; i < n; ++i) s[i] = std::pow(start, i + 1);
        return s;
    };
    int p = 1;
    while (p * 2 <= heads) p *= 2;
    out = power_of_two(p);
    if (p == heads) return out;
    std::vector<double> extra = power_of_two(2 * p);
    for (int i = 0; i < heads - p; ++i) out.push_back(extra[2 * i]);
    return out;
}

double split_fraction(double training_length, double base) {
    if (!finite(training_length) || !(training_length > 0) || !finite(base) || !(base > 1))
        return std::numeric_limits<double>::quiet_NaN();
    return std::log(training_length / (2 * kPi)) / std::log(base);
}

Status split_fraction_checked(double training_length, double base, double* out) {
    if (!finite(training_length) || !(training_length > 0))
        return Status::error("trainingLength must be a positive number, got " +
                             num(training_length));
    if (!finite(base) || !(base > 1))
        return Status::error("base must be a number > 1, got " + num(base));
    const double split = split_fraction(training_length, base);
    if (!finite(split)) return Status::error("Split% is not finite for these arguments");
    *out = split;
    return {};
}

Status split_bound(const Scheme& scheme, int head_dim, SplitBound* out) {
    if (scheme.type != SchemeType::hirope)
        return Status::error("scheme.type must be hirope: the Split% bound is HiRoPE's");
    Status st = validate(scheme, head_dim);
    if (!st.ok()) return st;
    if (!finite(scheme.training_length) || !(scheme.training_length > 0))
        return Status::error("scheme.trainingLength must be a positive number, got " +
                             num(scheme.training_length));
    SplitBound b;
    st = split_fraction_checked(scheme.training_length, scheme.base, &b.split);
    if (!st.ok()) return Status::error("scheme." + st.message());
    b.pairs = rotary_dim(scheme, head_dim) / 2;
    b.token_pairs = band_pairs(scheme, head_dim)[0];
    const double split_pair = b.split * b.pairs;
    // The largest k with k - 1 < split_pair, within [0, pairs].
    b.max_token_pairs =
        static_cast<int>(std::min<double>(b.pairs, std::max(0.0, std::ceil(split_pair))));
    b.over = b.token_pairs > b.max_token_pairs;
    *out = b;
    return {};
}

} // namespace hirope
