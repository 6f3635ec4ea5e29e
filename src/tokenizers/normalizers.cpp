// The normalizer steps of a tokenizer.json (normalizers.h).
#include "tokenizers/normalizers.h"

#include "tokenizers/unicode.h"

#include <algorithm>

namespace hirope {
namespace tokenizer_json {

namespace {

// The code point before text[pos], with its start (a byte that is not UTF-8: itself, as 0xFFFD).
uint32_t prev_cp(std::string_view text, size_t pos, size_t* start) {
    size_t p = pos - 1;
    while (p > 0 && pos - p < 4 && (static_cast<unsigned char>(text[p]) & 0xC0) == 0x80) --p;
    size_t len;
    uint32_t cp = unicode::decode(text, p, &len);
    if (p + len != pos) {
        p = pos - 1;
        cp = 0xFFFD;
    }
    *start = p;
    return cp;
}

// Final_Sigma as ICU applies it in toLowerCase: a cased letter before Σ and none after it,
// skipping case-ignorable code points (case-ignorable first: one that is both is skipped).
bool final_sigma(std::string_view text, size_t pos, size_t len) {
    bool before = false;
    for (size_t p = pos; p > 0;) {
        const uint32_t cp = prev_cp(text, p, &p);
        if (unicode::is_case_ignorable(cp)) continue;
        before = unicode::is_cased(cp);
        break;
    }
    if (!before) return false;
    for (size_t p = pos + len; p < text.size();) {
        size_t l;
        const uint32_t cp = unicode::decode(text, p, &l);
        p += l;
        if (l == 1 && cp == 0xFFFD) return true; // a raw byte: neither
        if (unicode::is_case_ignorable(cp)) continue;
        return !unicode::is_cased(cp);
    }
    return true;
}

// The lowercase of the code point at text[i] (len bytes) as UTF-8 into buf; false when unchanged.
bool lower_at(std::string_view text, size_t i, size_t len, uint32_t cp, std::string* buf) {
    uint32_t lo[2];
    size_t n = unicode::to_lower(cp, lo);
    if (cp == 0x3A3 && final_sigma(text, i, len)) lo[0] = 0x3C2;
    if (n == 1 && lo[0] == cp) return false;
    buf->clear();
    for (size_t k = 0; k < n; ++k) unicode::append_utf8(lo[k], buf);
    return true;
}

} // namespace

void apply_op(const TextOp& op, Mapped* m, Mapped* tmp, OpScratch* sc) {
    tmp->text.clear();
    tmp->from.clear();
    tmp->end = m->end;
    const std::string_view text(m->text);
    const size_t n = text.size();
    auto copy = [&](size_t a, size_t b) {
        tmp->text.append(m->text, a, b - a);
        tmp->from.insert(tmp->from.end(), m->from.begin() + static_cast<ptrdiff_t>(a),
                         m->from.begin() + static_cast<ptrdiff_t>(b));
    };
    auto stretch = [&](std::string_view with, size_t a, size_t b) {
        if (with.empty()) return;
        tmp->text.append(with);
        tmp->from.push_back(m->at(static_cast<uint32_t>(a)));
        tmp->from.insert(tmp->from.end(), with.size() - 1, m->at(static_cast<uint32_t>(b)));
    };
    auto reserve = [&](size_t size) {
        tmp->text.reserve(size);
        tmp->from.reserve(size);
    };
    switch (op.kind) {
    case TextOp::prepend: {
        if (m->text.empty()) return; // the reference prepends to non-empty text only
        const uint32_t o = m->at(0);
        reserve(op.content.size() + n);
        tmp->text = op.content;
        tmp->from.assign(op.content.size(), o);
        copy(0, n);
        break;
    }
    case TextOp::replace:
    case TextOp::replace_regex: {
        // Exact sizes first: the result is allocated once (no growth by doubling).
        auto find = [&](size_t from, size_t* ms, size_t* me) {
            if (op.kind == TextOp::replace_regex) return op.re.find(text, from, ms, me, &sc->re);
            *ms = text.find(op.pattern, from);
            *me = *ms + op.pattern.size();
            return *ms != std::string_view::npos;
        };
        size_t size = n, ms, me;
        bool any = false;
        for (size_t k = 0; k < n && find(k, &ms, &me); k = me) { // matches are never empty
            size = size + op.content.size() - (me - ms);
            any = true;
        }
        if (!any) return;
        reserve(size);
        size_t i = 0;
        while (i < n && find(i, &ms, &me)) {
            copy(i, ms);
            tmp->text.append(op.content);
            tmp->from.insert(tmp->from.end(), op.content.size(), m->from[ms]);
            i = me;
        }
        copy(i, n);
        break;
    }
    case TextOp::nfc:
    case TextOp::nfd:
    case TextOp::nfkc:
    case TextOp::nfkd: {
        const unicode::Form f = op.kind == TextOp::nfc    ? unicode::Form::nfc
                                : op.kind == TextOp::nfd  ? unicode::Form::nfd
                                : op.kind == TextOp::nfkc ? unicode::Form::nfkc
                                                          : unicode::Form::nfkd;
        size_t size = n, b, e;
        bool any = false;
        for (size_t i = 0; unicode::next_change(f, text, i, &b, &e, &sc->norm); i = e) {
            size = size + sc->norm.norm.size() - (e - b);
            any = true;
        }
        if (!any) return; // already normalized: nothing copied
        reserve(size);
        size_t i = 0;
        while (unicode::next_change(f, text, i, &b, &e, &sc->norm)) {
            copy(i, b);
            stretch(sc->norm.norm, b, e);
            i = e;
        }
        copy(i, n);
        break;
    }
    case TextOp::lowercase: {
        std::string& buf = sc->norm.norm;
        size_t size = 0;
        bool any = false;
        for (size_t i = 0; i < n;) {
            size_t len;
            const uint32_t cp = unicode::decode(text, i, &len);
            const bool raw = cp == 0xFFFD && len == 1;
            if (!raw && cp >= 0x80 && lower_at(text, i, len, cp, &buf)) {
                size += buf.size();
                any = true;
            } else {
                any = any || (cp >= 'A' && cp <= 'Z');
                size += len;
            }
            i += len;
        }
        if (!any) return;
        reserve(size);
        for (size_t i = 0; i < n;) {
            size_t len;
            const uint32_t cp = unicode::decode(text, i, &len);
            const bool raw = cp == 0xFFFD && len == 1;
            if (cp < 0x80) {
                tmp->text.push_back(cp >= 'A' && cp <= 'Z' ? static_cast<char>(cp + 32) : text[i]);
                tmp->from.push_back(m->from[i]);
            } else if (!raw && lower_at(text, i, len, cp, &buf)) {
                if (buf.size() == len) { // same length: byte for byte
                    tmp->text.append(buf);
                    tmp->from.insert(tmp->from.end(), m->from.begin() + static_cast<ptrdiff_t>(i),
                                     m->from.begin() + static_cast<ptrdiff_t>(i + len));
                } else {
                    stretch(buf, i, i + len);
                }
            } else {
                copy(i, i + len);
            }
            i += len;
        }
        break;
    }
    case TextOp::strip_accents: {
        auto mark = [](uint32_t cp) {
            const auto gc = unicode::general_category(cp);
            return gc == unicode::Mn || gc == unicode::Mc || gc == unicode::Me;
        };
        size_t size = 0;
        for (size_t i = 0; i < n;) {
            size_t len;
            const uint32_t cp = unicode::decode(text, i, &len);
            if (!mark(cp)) size += len;
            i += len;
        }
        if (size == n) return;
        reserve(size);
        for (size_t i = 0; i < n;) {
            size_t len;
            const uint32_t cp = unicode::decode(text, i, &len);
            if (!mark(cp)) copy(i, i + len);
            i += len;
        }
        break;
    }
    case TextOp::strip: {
        // String.prototype.trim's white space (WhiteSpace and LineTerminator: U+FEFF yes, U+0085
        // no; Rust's char::is_whitespace says the opposite for both) is JavaScript's \s, which
        // unicode::is_space is.
        size_t a = 0, b = n;
        while (op.left && a < b) {
            size_t len;
            const uint32_t cp = unicode::decode(text, a, &len);
            if (!unicode::is_space(cp)) break;
            a += len;
        }
        while (op.right && b > a) {
            size_t p;
            const uint32_t cp = prev_cp(text, b, &p);
            if (p < a || !unicode::is_space(cp)) break;
            b = p;
        }
        if (a == 0 && b == n) return;
        reserve(b - a);
        copy(a, b);
        tmp->end = m->at(static_cast<uint32_t>(b));
        break;
    }
    }
    std::swap(*m, *tmp);
}

} // namespace tokenizer_json
} // namespace hirope
