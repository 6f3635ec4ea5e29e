// Shared internals: a scheme resolved for one request, and the two formulations of positions:
// per-token branch positions (what the fast kernels rotate by) and per-pair relative distances
// (what the reference kernel and the distance views use). Tests check that they agree.
#pragma once

#include "hirope/hirope.h"

#include <cmath>
#include <cstdio>
#include <string>

namespace hirope {
namespace detail {

struct Context {
    Scheme scheme;
    int head_dim = 0;
    int rdim = 0;
    int rot_begin = 0; // the first rotated dim: 0, or head_dim - rdim with scheme.rotary_last
    int pairs = 0;
    int64_t n = 0;
    int64_t seq_len = 0; // max token position + 1 (at least 1): L of dynamic NTK and LongRoPE
    int32_t min_token = 0, max_token = 0; // the smallest and largest token position
    // xPos centre c (docs/schemes.md section 4.3): rebased on the smallest position,
    // min_token + ceil((max(frequency_length, max_token + 1) - min_token) / 2), so t - c depends
    // only on relative positions and the per-token scales stay within the float range.
    double xpos_centre = 0;
    std::vector<Band> bands;
    std::vector<int> band_level; // per band: 0 token, 1 statement, 2 unit
    std::vector<double> inv_freq;
    double attn_factor = 1.0;
    std::vector<double> xpos_zeta; // per pair, xPos only
};

// The keys query row i sees under a request's mask form one run [first(i), end(i)): the causal
// end (or n) and the mask's start, found from the token positions (attention_key_starts): the
// first row whose position is within the window, or in the query's chunk. Positions are
// non-decreasing under a sliding or chunked mask, so first is non-decreasing in i and a tile of
// rows starts at its first row's.
struct KeyRange {
    std::vector<int64_t> starts; // per query row; empty: 0 for every row (full attention)
    bool causal = true;
    int64_t n = 0;
    int64_t first(int64_t i) const { return starts.empty() ? 0 : starts[i]; }
    int64_t end(int64_t i) const { return causal ? i + 1 : n; }
};

// Validates scheme, sizes and the position arrays the scheme needs, then resolves frequencies.
Status make_context(const Scheme& scheme, int head_dim, int64_t n, const Positions& pos,
                    Context* ctx);

// The xPos centre for positions [min_token, max_token] and a Rotator's frequency_length (0: none)
// (docs/schemes.md section 4.3).
double xpos_centre(int32_t min_token, int32_t max_token, int64_t frequency_length);

// The scheme's name as users write it ("xpos"), for messages.
const char* scheme_name(SchemeType type);

inline int32_t level_index(const Positions& pos, int level, int64_t t) {
    if (level == 2) return pos.unit[t];
    if (level == 1) return pos.statement[t];
    return pos.token[t];
}

// A number in messages as it is, to the last digit ("%.17g": 1e-300, 0.10000000000000001).
inline std::string exact_text(double x) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.17g", x);
    return buf;
}

inline double floor_div(double a, double b) {
    return std::floor(a / b);
}

// Per-token position the rotation of one band uses, for q or k, in the near or far branch.
double branch_position(const Context& c, const Positions& pos, int band, Role role, Branch branch,
                       int64_t t);

// Relative distance of band `band` for query i, key j, written directly from the scheme's
// formula (not from branch positions).
double pair_distance(const Context& c, const Positions& pos, int band, int64_t i, int64_t j);

// ReRoPE's query scale max(1, ln(t + 1) / ln(L_train)), or 1 when log_n is off.
inline double log_n_scale(const Scheme& s, int32_t t) {
    if (!s.log_n || t + 1.0 <= 1.0) return 1.0;
    return std::fmax(1.0, std::log(t + 1.0) / std::log(s.training_length));
}

// Sinusoidal absolute position vector of head_dim values (docs/schemes.md section 4.2).
void sinusoid(const Scheme& s, int head_dim, double pos, double* out);

// Memory dims of pair p in the rotated part, which starts at dim `begin` (Context::rot_begin).
inline void pair_dims(Layout layout, int rdim, int p, int* a, int* b, int begin = 0) {
    if (layout == Layout::interleaved) {
        *a = begin + 2 * p;
        *b = begin + 2 * p + 1;
    } else {
        *a = begin + p;
        *b = begin + p + rdim / 2;
    }
}

// Whether memory dim i is outside the rotated part (passed through, times the scheme's factor).
inline bool passes_through(const Context& c, int i) {
    return i < c.rot_begin || i >= c.rot_begin + c.rdim;
}

// Which band a pair belongs to.
inline int band_of_pair(const Context& c, int p) {
    for (size_t b = 0; b < c.bands.size(); ++b)
        if (p >= c.bands[b].pair_begin && p < c.bands[b].pair_end) return static_cast<int>(b);
    return 0;
}

// cos and sin of x (double) through a quadrant reduction and short polynomials: |error| < 1e-9
// for |x| < 1e9, and several times faster than std::sin + std::cos.
void sincos_fast(double x, double* s, double* co);

} // namespace detail
} // namespace hirope
