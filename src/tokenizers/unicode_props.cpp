// General categories, White_Space and NFC from generated tables (tools/gen-unicode-props.mjs).
#include "tokenizers/unicode_props.h"

#include "tokenizers/unicode.h"

#include <algorithm>
#include <iterator>

namespace hirope {
namespace unicode {

namespace {

#include "unicode_props.inc"

// Canonical combining class as a rank (0 for starters); only comparisons are meaningful.
uint32_t ccc(uint32_t cp) {
    if (cp < 0x300) return 0;
    const auto* end = k_ccc + std::size(k_ccc);
    const auto* it = std::lower_bound(k_ccc, end, cp,
                                      [](const uint32_t(&r)[2], uint32_t v) { return r[0] < v; });
    return it != end && (*it)[0] == cp ? (*it)[1] : 0;
}

constexpr uint32_t kSBase = 0xAC00, kLBase = 0x1100, kVBase = 0x1161, kTBase = 0x11A7;
constexpr uint32_t kLCount = 19, kVCount = 21, kTCount = 28, kNCount = kVCount * kTCount;
constexpr uint32_t kSCount = kLCount * kNCount;
// Marks a byte that is not UTF-8 (kept as it is): above every code point.
constexpr uint32_t kRawByte = 0x110000;

// Full canonical (or, with compat, compatibility) decomposition of cp, appended to out.
void decompose(uint32_t cp, bool compat, std::vector<uint32_t>* out) {
    if (compat && cp >= 0xA0) {
        const auto* end = k_compat_index + std::size(k_compat_index);
        const auto* it = std::lower_bound(
            k_compat_index, end, cp, [](const uint32_t(&r)[3], uint32_t v) { return r[0] < v; });
        if (it != end && (*it)[0] == cp) {
            out->insert(out->end(), k_compat_data + (*it)[1], k_compat_data + (*it)[1] + (*it)[2]);
            return;
        }
    }
    if (cp >= kSBase && cp < kSBase + kSCount) {
        const uint32_t s = cp - kSBase;
        out->push_back(kLBase + s / kNCount);
        out->push_back(kVBase + (s % kNCount) / kTCount);
        if (s % kTCount) out->push_back(kTBase + s % kTCount);
        return;
    }
    const auto* end = k_decomp_index + std::size(k_decomp_index);
    const auto* it = std::lower_bound(k_decomp_index, end, cp,
                                      [](const uint32_t(&r)[3], uint32_t v) { return r[0] < v; });
    if (it != end && (*it)[0] == cp) {
        out->insert(out->end(), k_decomp_data + (*it)[1], k_decomp_data + (*it)[1] + (*it)[2]);
        return;
    }
    out->push_back(cp);
}

// The primary composite of a and b, or 0.
uint32_t compose(uint32_t a, uint32_t b) {
    if (a >= kLBase && a < kLBase + kLCount && b >= kVBase && b < kVBase + kVCount)
        return kSBase + ((a - kLBase) * kVCount + (b - kVBase)) * kTCount;
    if (a >= kSBase && a < kSBase + kSCount && (a - kSBase) % kTCount == 0 && b > kTBase &&
        b < kTBase + kTCount)
        return a + (b - kTBase);
    const auto* end = k_comp + std::size(k_comp);
    const auto* it = std::lower_bound(k_comp, end, std::make_pair(a, b),
                                      [](const uint32_t(&r)[3], std::pair<uint32_t, uint32_t> v) {
                                          return r[0] != v.first ? r[0] < v.first : r[1] < v.second;
                                      });
    return it != end && (*it)[0] == a && (*it)[1] == b ? (*it)[2] : 0;
}

// Whether cp starts a chunk: nothing before it interacts with it or anything after it under NFC,
// and NFC leaves it as it is (NFC_Quick_Check=Yes and ccc=0).
bool chunk_start(uint32_t cp) {
    if (cp < 0x300) return true;
    return !in_ranges(k_not_chunk_start, cp);
}

// Decodes one code point; invalid bytes become kRawByte + byte.
uint32_t next_cp(std::string_view s, size_t pos, size_t* len) {
    const uint32_t cp = decode(s, pos, len);
    if (cp == 0xFFFD && *len == 1) return kRawByte + static_cast<unsigned char>(s[pos]);
    return cp;
}

// The normalization of one chunk (a chunk start and the code points up to the next one):
// decomposed (canonically, or with compat by compatibility), canonically ordered, and when
// composing canonically composed.
void normalize_chunk(std::string_view chunk, bool compat, bool composing,
                     std::vector<uint32_t>* buf, std::string* out) {
    buf->clear();
    for (size_t i = 0; i < chunk.size();) {
        size_t len;
        const uint32_t cp = next_cp(chunk, i, &len);
        if (cp >= kRawByte)
            buf->push_back(cp);
        else
            decompose(cp, compat, buf);
        i += len;
    }
    auto cc = [](uint32_t cp) { return cp >= kRawByte ? 0u : ccc(cp); };
    // Canonical ordering: a stable sort of each run of nonzero classes.
    for (size_t i = 0; i < buf->size();) {
        if (cc((*buf)[i]) == 0) {
            ++i;
            continue;
        }
        size_t j = i;
        while (j < buf->size() && cc((*buf)[j]) != 0) ++j;
        std::stable_sort(buf->begin() + i, buf->begin() + j,
                         [&](uint32_t a, uint32_t b) { return cc(a) < cc(b); });
        i = j;
    }
    // Canonical composition.
    std::vector<uint32_t>& r = *buf;
    size_t w = 0;
    long starter = -1;
    long last_cc = -1; // class of the last code point kept after the starter (-1: none)
    for (size_t i = 0; i < r.size(); ++i) {
        const uint32_t c = r[i];
        const long k = static_cast<long>(cc(c));
        if (composing && starter >= 0 && c < kRawByte && r[starter] < kRawByte) {
            const bool blocked = last_cc != -1 && (last_cc == 0 || last_cc >= k);
            if (!blocked) {
                const uint32_t composed = compose(r[starter], c);
                if (composed) {
                    r[starter] = composed;
                    continue;
                }
            }
        }
        if (k == 0) {
            starter = static_cast<long>(w);
            last_cc = -1;
        } else {
            last_cc = k;
        }
        r[w++] = c;
    }
    for (size_t i = 0; i < w; ++i) {
        if (r[i] >= kRawByte)
            out->push_back(static_cast<char>(r[i] - kRawByte));
        else
            append_utf8(r[i], out);
    }
}

void nfc_chunk(std::string_view chunk, std::vector<uint32_t>* buf, std::string* out) {
    normalize_chunk(chunk, false, true, buf, out);
}

// Whether cp starts a segment of form f (see next_change).
bool segment_start(Form f, uint32_t cp) {
    if (cp < 0xA0) return true;
    switch (f) {
    case Form::nfc:
        return chunk_start(cp);
    case Form::nfd:
        return !in_ranges(k_nfd_not_start, cp);
    case Form::nfkd:
        return !in_ranges(k_nfkd_not_start, cp);
    case Form::nfkc:
        return !in_ranges(k_nfkc_not_start, cp);
    }
    return true;
}

} // namespace

bool next_change(Form f, std::string_view text, size_t pos, size_t* begin, size_t* end,
                 NormalizeScratch* scratch) {
    const bool compat = f == Form::nfkc || f == Form::nfkd;
    const bool composing = f == Form::nfc || f == Form::nfkc;
    const size_t n = text.size();
    size_t i = pos;
    while (i < n) {
        // ASCII followed by ASCII (or the end) is a segment that no form changes.
        if (static_cast<unsigned char>(text[i]) < 0x80 &&
            (i + 1 == n || static_cast<unsigned char>(text[i + 1]) < 0x80)) {
            ++i;
            continue;
        }
        const size_t start = i;
        size_t len;
        const uint32_t cp = next_cp(text, i, &len);
        i += len;
        if (cp >= kRawByte) continue;
        while (i < n) {
            size_t l;
            const uint32_t c = next_cp(text, i, &l);
            if (c >= kRawByte || segment_start(f, c)) break;
            i += l;
        }
        const std::string_view seg = text.substr(start, i - start);
        scratch->norm.clear();
        normalize_chunk(seg, compat, composing, &scratch->cps, &scratch->norm);
        if (scratch->norm != seg) {
            *begin = start;
            *end = i;
            return true;
        }
    }
    return false;
}

double max_growth(Form f) {
    return f == Form::nfc || f == Form::nfd ? k_growth_nfd : k_growth_nfkd;
}

size_t to_lower(uint32_t cp, uint32_t out[2]) {
    if (cp < 0x80) {
        out[0] = cp >= 'A' && cp <= 'Z' ? cp + 32 : cp;
        return 1;
    }
    const auto* end = k_lower + std::size(k_lower);
    const auto* it = std::lower_bound(k_lower, end, cp,
                                      [](const uint32_t(&r)[2], uint32_t v) { return r[0] < v; });
    if (it == end || (*it)[0] != cp) {
        out[0] = cp;
        return 1;
    }
    const uint32_t v = (*it)[1];
    if (!(v & 0x80000000u)) {
        out[0] = v;
        return 1;
    }
    const uint32_t at = (v >> 8) & 0x7FFFFF, count = v & 0xFF;
    for (uint32_t k = 0; k < count && k < 2; ++k) out[k] = k_lower_data[at + k];
    return count < 2 ? count : 2;
}

bool is_cased(uint32_t cp) {
    if (cp < 0x80) return (cp | 32) >= 'a' && (cp | 32) <= 'z';
    return in_ranges(k_cased, cp);
}

bool is_case_ignorable(uint32_t cp) {
    return in_ranges(k_case_ignorable, cp);
}

double lower_max_growth() {
    return k_growth_lower;
}

void append_utf8(uint32_t cp, std::string* out) {
    if (cp < 0x80) {
        out->push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
        out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
        out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
        out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
        out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
        out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
        out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
        out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
        out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
        out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
}

GeneralCategory general_category(uint32_t cp) {
    const auto* end = k_gc_ranges + std::size(k_gc_ranges);
    const auto* it = std::upper_bound(k_gc_ranges, end, cp,
                                      [](uint32_t v, const uint32_t(&r)[3]) { return v < r[0]; });
    if (it == k_gc_ranges || cp > (*(it - 1))[1]) return Cn;
    return static_cast<GeneralCategory>((*(it - 1))[2]);
}

bool is_white_space(uint32_t cp) {
    if (cp < 0x80) return cp == ' ' || (cp >= 9 && cp <= 13);
    return in_ranges(k_white_space_ranges, cp);
}

bool nfc(std::string_view text, std::string* out, std::vector<NfcChange>* changes) {
    // Chunks: [start, end) from one chunk start to the next. A chunk of one chunk-start code
    // point is already normalized.
    size_t i = 0;
    bool any = false;
    std::string norm;
    std::vector<uint32_t> buf;
    size_t copied = 0; // input bytes before this were handled
    while (i < text.size()) {
        if (static_cast<unsigned char>(text[i]) < 0x80) {
            ++i;
            continue;
        }
        // Find the chunk holding text[i]: back to its start, forward to the next start.
        size_t len;
        const uint32_t cp = next_cp(text, i, &len);
        if (cp >= kRawByte || (chunk_start(cp) && (i + len >= text.size() || [&] {
                                   size_t l2;
                                   const uint32_t n2 = next_cp(text, i + len, &l2);
                                   return n2 >= kRawByte || chunk_start(n2);
                               }()))) {
            i += len;
            continue;
        }
        // The chunk starts at the last chunk start at or before i (ASCII is always one).
        size_t start = i;
        if (!(cp < kRawByte && chunk_start(cp))) {
            while (start > copied) {
                size_t p = start - 1;
                while (p > copied && (static_cast<unsigned char>(text[p]) & 0xC0) == 0x80) --p;
                size_t l;
                const uint32_t c = next_cp(text, p, &l);
                if (p + l != start) { // not a whole code point: a raw byte
                    start = start - 1;
                    break;
                }
                start = p;
                if (c >= kRawByte || chunk_start(c)) break;
            }
        }
        size_t end = i + len;
        while (end < text.size()) {
            size_t l;
            const uint32_t c = next_cp(text, end, &l);
            if (c >= kRawByte || chunk_start(c)) break;
            end += l;
        }
        norm.clear();
        nfc_chunk(text.substr(start, end - start), &buf, &norm);
        if (norm != text.substr(start, end - start)) {
            if (!any) {
                out->clear();
                changes->clear();
                any = true;
            }
            out->append(text.data() + copied, start - copied);
            changes->push_back({static_cast<uint32_t>(out->size()),
                                static_cast<uint32_t>(norm.size()), static_cast<uint32_t>(start),
                                static_cast<uint32_t>(end - start)});
            out->append(norm);
            copied = end;
        }
        i = end;
    }
    if (any) out->append(text.data() + copied, text.size() - copied);
    return any;
}

uint32_t nfc_original_offset(const std::vector<NfcChange>& changes, uint32_t offset) {
    // The last change starting at or before offset.
    auto it = std::upper_bound(changes.begin(), changes.end(), offset,
                               [](uint32_t v, const NfcChange& c) { return v < c.norm_begin; });
    if (it == changes.begin()) return offset;
    const NfcChange& c = *(it - 1);
    if (offset == c.norm_begin) return c.orig_begin;
    if (offset < c.norm_begin + c.norm_len) return c.orig_begin + c.orig_len;
    return offset - (c.norm_begin + c.norm_len) + (c.orig_begin + c.orig_len);
}

} // namespace unicode
} // namespace hirope
