// Q/K sources for people without a model.
#include "hirope/hirope.h"
#include "util/random.h"

#include <cmath>

namespace hirope {

namespace {

// Uniform in (0, 1), never 0, from the top 53 bits.
double unit_interval(uint64_t bits) {
    return ((bits >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

} // namespace

void ones(int64_t count, float* out) {
    for (int64_t i = 0; i < count; ++i) out[i] = 1.0f;
}

void seeded_vectors(uint64_t seed, const int32_t* token_ids, int64_t n, int64_t row_width, int role,
                    float* out) {
    constexpr double kTwoPi = 6.28318530717958647692;
    for (int64_t t = 0; t < n; ++t) {
        // One stream per (seed, token id, role); Box-Muller turns pairs of uniforms into normals.
        uint64_t state =
            util::splitmix64(seed ^ util::splitmix64(static_cast<uint32_t>(token_ids[t]) +
                                                     (static_cast<uint64_t>(role) << 32)));
        for (int64_t d = 0; d < row_width; d += 2) {
            const double u1 = unit_interval(state = util::splitmix64(state));
            const double u2 = unit_interval(state = util::splitmix64(state));
            const double r = std::sqrt(-2.0 * std::log(u1));
            out[t * row_width + d] = static_cast<float>(r * std::cos(kTwoPi * u2));
            if (d + 1 < row_width)
                out[t * row_width + d + 1] = static_cast<float>(r * std::sin(kTwoPi * u2));
        }
    }
}

} // namespace hirope
