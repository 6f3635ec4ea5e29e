// Angles unseen in training: which frequency pairs of a layer meet, at the positions a code
// reaches, rotation angles that training at its length never showed (hirope.h, "Angles unseen in
// training"; docs/real-models.md).
#include "core/internal.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

namespace hirope {

namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kMaxLength = 9007199254740992.0; // 2^53: every integer up to it is a double
constexpr double kRounding = 1e-12;               // relative slack of the comparisons

Status check_length(int64_t value, int64_t min, const char* name) {
    if (value < min || static_cast<double>(value) > kMaxLength)
        return Status::error(std::string(name) + " must be an integer from " + std::to_string(min) +
                             " to 2^53, got " + std::to_string(value));
    return {};
}

// The largest query-key distance a layer sees in `length` positions (reach 0: no limit).
int64_t largest_distance(int64_t length, int64_t reach) {
    return (reach > 0 ? std::min(length, reach) : length) - 1;
}

// The frequencies training turned at L (hirope.h): the scheme without its scaling where the
// scaling came after training at L, else the scheme as it is at seq_len L.
Status trained_frequencies(const UnseenRequest& r, std::vector<double>* out) {
    Scheme trained = r.scheme;
    const Scaling& sc = r.scheme.scaling;
    const double L = static_cast<double>(r.trained_length);
    bool unscaled = false;
    switch (sc.type) {
    case ScalingType::yarn:
    case ScalingType::llama3:
        unscaled = L <= sc.original_length;
        break;
    case ScalingType::linear:
    case ScalingType::ntk:
        unscaled = r.scaled_after_training;
        break;
    default: // none, proportional (trained with); dynamic NTK and LongRoPE switch at seq_len L
        break;
    }
    if (unscaled) trained.scaling = Scaling{};
    return inverse_frequencies(trained, r.head_dim, r.trained_length, out);
}

// Where theta_j^train * L = 2 pi as a fractional pair index (hirope.h UnseenPairs::split_pair).
double split_pair(const std::vector<double>& trained, double L, double base, int rotary_dims) {
    const int pairs = static_cast<int>(trained.size());
    int rotating = 0;
    while (rotating < pairs && trained[rotating] > 0) ++rotating;
    if (rotating == 0) return 0;
    // g_j = ln(theta_j * L / 2 pi): >= 0 where pair j turns a full period within L.
    auto g = [&](int j) { return std::log(trained[j] * L / (2 * kPi)); };
    // Plain RoPE's step in g per pair, for one rotating pair or frequencies that do not fall.
    const double plain_step = -2 * std::log(base) / rotary_dims;
    auto root = [&](int j, double step) { // g at j, falling by `step` per pair, crosses 0 at
        return j - g(j) / (step < 0 ? step : plain_step);
    };
    int first = 0; // the first pair that does not turn
    while (first < rotating && g(first) >= 0) ++first;
    double split;
    if (first == 0)
        split = root(0, rotating > 1 ? g(1) - g(0) : plain_step);
    else if (first == rotating)
        split = root(rotating - 1, rotating > 1 ? g(rotating - 1) - g(rotating - 2) : plain_step);
    else
        split = root(first - 1, g(first) - g(first - 1));
    // Pairs past the rotating ones (proportional RoPE) never turn.
    return rotating < pairs ? std::min(split, static_cast<double>(rotating)) : split;
}

} // namespace

Status unseen_pairs(const UnseenRequest& r, UnseenPairs* out) {
    if (!is_rotary(r.scheme.type)) {
        const SchemeInfo* info = scheme_info(r.scheme.type);
        return Status::error("scheme '" + std::string(info ? info->name : "?") +
                             "' has no rotary frequencies");
    }
    Status st = validate(r.scheme, r.head_dim);
    if (!st.ok()) return st;
    if (!(st = check_length(r.trained_length, 1, "trained_length")).ok()) return st;
    if (!(st = check_length(r.length, 1, "length")).ok()) return st;
    if (!(st = check_length(r.reach, 0, "reach")).ok()) return st;
    const std::vector<Band> band_list = bands(r.scheme, r.head_dim);
    if (!r.band_distances.empty()) {
        if (r.band_distances.size() != band_list.size())
            return Status::error("band_distances must have one entry per band (" +
                                 std::to_string(band_list.size()) + "), got " +
                                 std::to_string(r.band_distances.size()));
        for (size_t b = 0; b < r.band_distances.size(); ++b)
            if (!std::isfinite(r.band_distances[b]) || r.band_distances[b] < 0)
                return Status::error("band_distances[" + std::to_string(b) +
                                     "] must be a finite number >= 0, got " +
                                     detail::exact_text(r.band_distances[b]));
    }

    UnseenPairs u;
    if (!(st = trained_frequencies(r, &u.trained_frequencies)).ok()) return st;
    if (!(st = inverse_frequencies(r.scheme, r.head_dim, r.length, &u.frequencies)).ok()) return st;
    u.pairs = static_cast<int>(u.frequencies.size());
    u.trained_distance = largest_distance(r.trained_length, r.reach);
    u.distance = largest_distance(r.length, r.reach);
    const double seen = static_cast<double>(u.trained_distance);
    const double inf = std::numeric_limits<double>::infinity();
    u.distances.assign(u.pairs, static_cast<double>(u.distance));
    if (!r.band_distances.empty())
        for (size_t b = 0; b < band_list.size(); ++b)
            for (int j = band_list[b].pair_begin; j < band_list[b].pair_end; ++j)
                u.distances[j] = r.band_distances[b];
    u.angles.resize(u.pairs);
    u.seen_angles.resize(u.pairs);
    u.limits.resize(u.pairs);
    u.unseen.assign(u.pairs, 0);
    for (int j = 0; j < u.pairs; ++j) {
        const double trained = u.trained_frequencies[j], now = u.frequencies[j];
        u.angles[j] = now * u.distances[j];
        u.seen_angles[j] = trained * seen;
        const bool rotates = now > 0;
        const bool turned = u.seen_angles[j] >= 2 * kPi;
        u.limits[j] = rotates && !turned ? trained * (seen + 1) : inf;
        if (rotates) ++u.rotated;
        if (u.angles[j] > u.limits[j] * (1 + kRounding)) {
            u.unseen[j] = 1;
            ++u.count;
        }
    }
    u.split_pair = split_pair(u.trained_frequencies, static_cast<double>(r.trained_length),
                              r.scheme.base, 2 * u.pairs);
    *out = std::move(u);
    return {};
}

} // namespace hirope
