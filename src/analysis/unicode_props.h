// Unicode data of the tokenizer.json loader (tools/gen-unicode-props.mjs): general categories,
// White_Space, and NFC normalization, all read from the Node version named in
// unicode_props.inc so that they agree with the reference tokenizer on the same engine.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace hirope {
namespace unicode {

// General categories, in this order (bit k of a category mask is category k).
enum GeneralCategory : uint8_t {
    Lu,
    Ll,
    Lt,
    Lm,
    Lo,
    Mn,
    Mc,
    Me,
    Nd,
    Nl,
    No,
    Pc,
    Pd,
    Ps,
    Pe,
    Pi,
    Pf,
    Po,
    Sm,
    Sc,
    Sk,
    So,
    Zs,
    Zl,
    Zp,
    Cc,
    Cf,
    Cs,
    Co,
    Cn,
    kCategoryCount
};

GeneralCategory general_category(uint32_t cp);
bool is_white_space(uint32_t cp); // \p{White_Space} (Rust's char::is_whitespace)

// One stretch of the input that NFC changed: [orig_begin, orig_begin + orig_len) became
// [norm_begin, norm_begin + norm_len) of the output. Outside these stretches, the output is the
// input byte for byte (shifted by the length differences of the stretches before).
struct NfcChange {
    uint32_t norm_begin, norm_len, orig_begin, orig_len;
};

// NFC (UAX #15). Returns false, and leaves out and changes untouched, when the text is already
// in NFC; otherwise writes the normalized text and the changed stretches. Bytes that are not
// UTF-8 are kept as they are (they neither compose nor reorder).
bool nfc(std::string_view text, std::string* out, std::vector<NfcChange>* changes);

// Maps an offset of nfc()'s output back to the input: offsets outside changed stretches map
// exactly; an offset inside a changed stretch maps to the stretch's end.
uint32_t nfc_original_offset(const std::vector<NfcChange>& changes, uint32_t offset);

void append_utf8(uint32_t cp, std::string* out);

} // namespace unicode
} // namespace hirope
