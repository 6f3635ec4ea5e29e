// Character classes from generated range tables (tools/gen-unicode.mjs).
#include "tokenizers/unicode.h"

#include <algorithm>
#include <iterator>

namespace hirope {
namespace unicode {

namespace {

#include "unicode_tables.inc"

} // namespace

bool is_letter(uint32_t cp) {
    if (cp < 0x80) return (cp | 32) - 'a' < 26;
    return in_ranges(k_letter_ranges, cp);
}

bool is_number(uint32_t cp) {
    if (cp < 0x80) return cp - '0' < 10;
    return in_ranges(k_number_ranges, cp);
}

bool is_space(uint32_t cp) {
    if (cp < 0x80) return cp == ' ' || (cp >= 9 && cp <= 13);
    return in_ranges(k_space_ranges, cp);
}

} // namespace unicode
} // namespace hirope
