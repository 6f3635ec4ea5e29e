// Unicode data of the tokenizer.json loader (tools/gen-unicode-props.mjs): general categories,
// White_Space, the four normalization forms and lowercase, all read from the Node version named in
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

// The normalization forms of String.prototype.normalize (UAX #15).
enum class Form { nfc, nfd, nfkc, nfkd };

// Scratch buffers of next_change (reused between calls).
struct NormalizeScratch {
    std::vector<uint32_t> cps;
    std::string norm;
};

// The first stretch of text at or after pos that form f changes: a segment that normalizes
// independently of its neighbours (from a code point whose decomposition starts with a starter
// that cannot compose with what precedes it, to the next such one). Returns false when the rest
// of the text is already normalized; otherwise sets [*begin, *end) and leaves the stretch's
// normalization in scratch->norm. Bytes that are not UTF-8 are kept as they are.
bool next_change(Form f, std::string_view text, size_t pos, size_t* begin, size_t* end,
                 NormalizeScratch* scratch);

// The most UTF-8 bytes form f makes of one input byte (NFKC: U+FDFA, 3 bytes, becomes 33).
double max_growth(Form f);

// String.prototype.toLowerCase of one code point out of context: writes 1 or 2 code points
// (U+0130 gives "i\u0307") and returns their number. Σ (U+03A3) gives σ here; the caller applies
// Final_Sigma (ς) with is_cased / is_case_ignorable, as ICU does.
size_t to_lower(uint32_t cp, uint32_t out[2]);
bool is_cased(uint32_t cp);          // \p{Cased}
bool is_case_ignorable(uint32_t cp); // \p{Case_Ignorable}
double lower_max_growth();           // UTF-8 bytes out per byte in (1.5: U+0130)

} // namespace unicode
} // namespace hirope
