// FNV-1a, 32 bits: the trailing checksum of the model and tokenizer files, the content id of
// analysis leaves, and (two streams) the name of a user's tokenizer.json. One definition, so that
// the files written by the tools, the ids the tests pin and the names both APIs give keep matching.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace hirope {
namespace util {

inline uint32_t fnv1a(const uint8_t* data, size_t size) {
    uint32_t h = 0x811C9DC5u;
    for (size_t i = 0; i < size; ++i) h = (h ^ data[i]) * 0x01000193u;
    return h;
}

inline uint32_t fnv1a(std::string_view s) {
    return fnv1a(reinterpret_cast<const uint8_t*>(s.data()), s.size());
}

// 16 hex digits hashing bytes: two FNV-1a 32 streams, the second from another basis and adding
// each byte's index (64 bits, so that two files a user loads do not share a name).
inline std::string fnv1a_pair_hex(std::string_view s) {
    uint32_t a = 0x811C9DC5u, b = 0x9747B28Cu;
    for (size_t i = 0; i < s.size(); ++i) {
        const uint32_t x = static_cast<uint8_t>(s[i]);
        a = (a ^ x) * 0x01000193u;
        b = (b ^ x) * 0x01000193u + static_cast<uint32_t>(i);
    }
    char buf[17];
    std::snprintf(buf, sizeof buf, "%08x%08x", a, b);
    return buf;
}

} // namespace util
} // namespace hirope
