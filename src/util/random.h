// splitmix64 (Steele, Lea and Flood, 2014): seeded streams with no shared state, for the seeded
// q/k sources and for sampling during generation. Both must stay bit-identical across builds,
// since tests and users pin outputs by seed.
#pragma once

#include <cstdint>

namespace hirope {
namespace util {

constexpr uint64_t kGoldenGamma = 0x9E3779B97F4A7C15ull;

// splitmix64's output function applied to x + gamma: one step of the generator from state x, and
// a good 64-bit mix of x on its own.
inline uint64_t splitmix64(uint64_t x) {
    uint64_t z = x + kGoldenGamma;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

// The generator: the state advances by gamma per draw.
struct SplitMix64 {
    uint64_t state;
    uint64_t next() {
        const uint64_t z = splitmix64(state);
        state += kGoldenGamma;
        return z;
    }
    // Uniform in [0, 1) from the top 53 bits.
    double uniform() { return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0); }
};

} // namespace util
} // namespace hirope
