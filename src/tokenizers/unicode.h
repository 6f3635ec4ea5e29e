// UTF-8 decoding and the character classes of the cl100k pre-tokenizer.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace hirope {
namespace unicode {

// The code point at s[pos] and its length in bytes. Invalid or truncated sequences, overlong
// forms and surrogates decode as U+FFFD with length 1, so every byte is consumed exactly once.
inline uint32_t decode(std::string_view s, size_t pos, size_t* len) {
    const unsigned char c = static_cast<unsigned char>(s[pos]);
    if (c < 0x80) {
        *len = 1;
        return c;
    }
    int need;
    uint32_t cp, min;
    if ((c & 0xE0) == 0xC0) {
        need = 1;
        cp = c & 0x1F;
        min = 0x80;
    } else if ((c & 0xF0) == 0xE0) {
        need = 2;
        cp = c & 0x0F;
        min = 0x800;
    } else if ((c & 0xF8) == 0xF0) {
        need = 3;
        cp = c & 0x07;
        min = 0x10000;
    } else {
        *len = 1;
        return 0xFFFD;
    }
    if (pos + need >= s.size()) {
        *len = 1;
        return 0xFFFD;
    }
    for (int i = 1; i <= need; ++i) {
        const unsigned char d = static_cast<unsigned char>(s[pos + i]);
        if ((d & 0xC0) != 0x80) {
            *len = 1;
            return 0xFFFD;
        }
        cp = (cp << 6) | (d & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
        *len = 1;
        return 0xFFFD;
    }
    *len = static_cast<size_t>(need) + 1;
    return cp;
}

// One past the last byte decode(s, pos, ...) reads: the lead byte's sequence length on (what
// decode checks), so past s.size() when the text's end cut the sequence.
inline size_t decode_reach(std::string_view s, size_t pos) {
    const unsigned char c = static_cast<unsigned char>(s[pos]);
    const size_t need = (c & 0xE0) == 0xC0   ? 1
                        : (c & 0xF0) == 0xE0 ? 2
                        : (c & 0xF8) == 0xF0 ? 3
                                             : 0;
    return pos + 1 + need;
}

bool is_letter(uint32_t cp);
bool is_number(uint32_t cp);
bool is_space(uint32_t cp);

// UTF-16 code units of the code point decoded from a sequence of `len` bytes.
inline uint32_t utf16_units(uint32_t cp) {
    return cp >= 0x10000 ? 2 : 1;
}

// Whether cp lies in one of the sorted, disjoint [first, last] ranges of a generated table.
template <size_t N> bool in_ranges(const uint32_t (&ranges)[N][2], uint32_t cp) {
    const auto* end = ranges + N;
    const auto* it = std::upper_bound(ranges, end, cp,
                                      [](uint32_t v, const uint32_t(&r)[2]) { return v < r[0]; });
    return it != ranges && cp <= (*(it - 1))[1];
}

} // namespace unicode
} // namespace hirope
