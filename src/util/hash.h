// FNV-1a, 32 bits: the trailing checksum of the model and tokenizer files and the content id of
// analysis leaves. One definition, so that the files written by the tools and the ids the tests
// pin keep matching.
#pragma once

#include <cstddef>
#include <cstdint>
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

} // namespace util
} // namespace hirope
