// The tokenizer of a tokenizer.json (tokenizer_json_bpe.h): the normalizer steps, the
// pre-tokenizer steps, added tokens and ranked BPE merges, with each token's input offsets.
#include "tokenizers/tokenizer_json_bpe.h"

#include "tokenizers/unicode.h"

#include <algorithm>
#include <functional>

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

void JsonBpe::encode(std::string_view text, std::vector<Token>* out,
                     const EncodeOptions& options) const {
    Work w;
    encode_with(text, options, out, &w);
}

void JsonBpe::normalize(std::string_view text, std::string* out,
                        std::vector<uint32_t>* from) const {
    Mapped m, tmp;
    OpScratch sc;
    m.text.assign(text);
    m.from.resize(text.size());
    for (uint32_t i = 0; i < m.from.size(); ++i) m.from[i] = i;
    m.end = static_cast<uint32_t>(text.size());
    if (nfc_) {
        std::string norm;
        std::vector<unicode::NfcChange> changes;
        if (unicode::nfc(text, &norm, &changes)) {
            m.text = norm;
            m.from.resize(norm.size());
            for (uint32_t i = 0; i < norm.size(); ++i)
                m.from[i] = unicode::nfc_original_offset(changes, i);
        }
    }
    for (const TextOp& op : norm_ops_) apply_op(op, &m, &tmp, &sc);
    *out = std::move(m.text);
    if (from) {
        *from = std::move(m.from);
        from->push_back(m.end);
    }
}

size_t JsonBpe::encode_peak(std::string_view text, std::vector<Token>* out) const {
    Work w;
    encode_with(text, EncodeOptions(), out, &w);
    w.note(*out);
    return w.peak;
}

void JsonBpe::encode_with(std::string_view text, const EncodeOptions& options,
                          std::vector<Token>* out, Work* work) const {
    if (spm_ || !norm_ops_.empty()) {
        encode_spm(text, options, out, work);
        return;
    }
    Work& w = *work;
    std::vector<Section>& sections = w.sections;
    split_added(text, stage1_, 0, options.special_tokens, &sections);
    std::string norm;
    std::vector<unicode::NfcChange> changes;
    for (const Section& s : sections) {
        if (s.token >= 0) {
            out->push_back({added_[s.token].id, s.start, s.end});
            continue;
        }
        std::string_view part = text.substr(s.start, s.end - s.start);
        bool changed = false;
        if (nfc_) changed = unicode::nfc(part, &norm, &changes);
        std::string_view normalized = changed ? std::string_view(norm) : part;
        auto map = [&](uint32_t off) {
            return s.start + (changed ? unicode::nfc_original_offset(changes, off) : off);
        };
        std::vector<Section>& subs = w.subs;
        split_added(normalized, stage2_, 0, options.special_tokens, &subs);
        for (const Section& u : subs) {
            if (u.token >= 0) {
                out->push_back({added_[u.token].id, map(u.start), map(u.end)});
                continue;
            }
            const size_t first = out->size();
            encode_section(normalized, u.start, u.end, &w, out);
            for (size_t k = first; k < out->size(); ++k) {
                (*out)[k].start = map((*out)[k].start);
                (*out)[k].end = map((*out)[k].end);
            }
        }
    }
}

void JsonBpe::encode_spm(std::string_view text, const EncodeOptions& options,
                         std::vector<Token>* out, Work* work) const {
    Work& w = *work;
    std::vector<Section>&sections = w.sections, &subs = w.subs;
    split_added(text, stage1_, 0, options.special_tokens, &sections);
    for (const Section& s : sections) {
        if (s.token >= 0) {
            out->push_back({added_[s.token].id, s.start, s.end});
            continue;
        }
        const bool first = s.start == 0; // the reference's section_index 0
        Mapped& m = w.norm;
        m.text.assign(text.substr(s.start, s.end - s.start));
        m.from.resize(m.text.size());
        for (uint32_t i = 0; i < m.from.size(); ++i) m.from[i] = s.start + i;
        m.end = s.end;
        for (const TextOp& op : norm_ops_) {
            apply_op(op, &m, &w.tmp, &w.ops);
            w.note(*out);
        }
        w.note(*out);
        Mapped().from.swap(w.tmp.from); // the copy is not needed past this point
        std::string().swap(w.tmp.text);
        split_added(m.text, stage2_, 0, options.special_tokens, &subs);
        for (const Section& u : subs) {
            if (u.token >= 0) {
                out->push_back({added_[u.token].id, m.at(u.start), m.at(u.end)});
                continue;
            }
            const size_t section_first = out->size();
            if (metaspace_) {
                Mapped& p = w.piece;
                p.text.assign(m.text, u.start, u.end - u.start);
                p.from.assign(m.from.begin() + u.start, m.from.begin() + u.end);
                p.end = m.at(u.end);
                apply_op(TextOp::make_replace(" ", ms_replacement_), &p, &w.tmp, &w.ops);
                const bool starts = p.text.compare(0, ms_replacement_.size(), ms_replacement_) == 0;
                if (!starts && (ms_prepend_ == 2 || (ms_prepend_ == 1 && first)))
                    apply_op(TextOp::make_prepend(ms_replacement_), &p, &w.tmp, &w.ops);
                const uint32_t n = static_cast<uint32_t>(p.text.size());
                if (!ms_split_) {
                    spm_bpe(p, Span{0, n}, &w, out);
                } else {
                    // Split on the replacement, each merged with what follows it.
                    uint32_t begin = 0;
                    for (size_t k = p.text.find(ms_replacement_, 1); k != std::string::npos;
                         k = p.text.find(ms_replacement_, k + ms_replacement_.size())) {
                        if (k > begin) spm_bpe(p, Span{begin, static_cast<uint32_t>(k)}, &w, out);
                        begin = static_cast<uint32_t>(k);
                    }
                    if (n > begin) spm_bpe(p, Span{begin, n}, &w, out);
                }
            } else {
                w.mapped = &m;
                encode_section(m.text, u.start, u.end, &w, out);
                if (!spm_) // byte-level tokens are spans of m.text
                    for (size_t k = section_first; k < out->size(); ++k) {
                        (*out)[k].start = m.at((*out)[k].start);
                        (*out)[k].end = m.at((*out)[k].end);
                    }
            }
            if (fuse_unk_ && unk_id_ >= 0) {
                size_t keep = section_first;
                for (size_t k = section_first; k < out->size(); ++k) {
                    if (keep > section_first && (*out)[k].id == unk_id_ &&
                        (*out)[keep - 1].id == unk_id_) {
                        (*out)[keep - 1].end = (*out)[k].end;
                        continue;
                    }
                    (*out)[keep++] = (*out)[k];
                }
                out->resize(keep);
            }
        }
    }
}

int32_t JsonBpe::char_id(std::string_view c, uint32_t cp) const {
    if (cp < kSmallChars) return small_char_id_[cp]; // decode rejects overlong forms
    auto it = by_bytes_.find(c);
    return it == by_bytes_.end() ? kUnknown : it->second;
}

void JsonBpe::spm_bpe(const Mapped& m, Span p, Work* w, std::vector<Token>* out) const {
    const std::string_view text(m.text);
    if (ignore_merges_) {
        auto it = by_bytes_.find(text.substr(p.start, p.end - p.start));
        if (it != by_bytes_.end()) {
            out->push_back({it->second, m.at(p.start), m.at(p.end)});
            return;
        }
    }
    auto& nodes = w->nodes;
    size_t chars = 0;
    for (uint32_t i = p.start; i < p.end; ++chars) {
        size_t len;
        unicode::decode(text, i, &len);
        i += static_cast<uint32_t>(len);
    }
    reserve_exact(&nodes, chars);
    for (uint32_t i = p.start; i < p.end;) {
        size_t len;
        const uint32_t cp = unicode::decode(text, i, &len);
        const int32_t k = static_cast<int32_t>(nodes.size());
        nodes.push_back({char_id(text.substr(i, len), cp), i, k - 1, k + 1});
        i += static_cast<uint32_t>(len);
    }
    const int32_t count = static_cast<int32_t>(nodes.size());
    run_merges(w);
    w->note(*out);
    for (int32_t i = 0; i < count; i = nodes[i].next) {
        const Node& nd = nodes[i];
        const uint32_t end = nd.next < count ? nodes[nd.next].start : p.end;
        if (nd.id >= 0) {
            out->push_back({nd.id, m.at(nd.start), m.at(end)});
            continue;
        }
        bool all = byte_fallback_;
        for (uint32_t b = nd.start; all && b < end; ++b)
            all = byte_token_[static_cast<unsigned char>(text[b])] >= 0;
        if (all) {
            for (uint32_t b = nd.start; b < end; ++b)
                out->push_back(
                    {byte_token_[static_cast<unsigned char>(text[b])], m.at(b), m.at(b + 1)});
        } else if (unk_id_ >= 0) {
            out->push_back({unk_id_, m.at(nd.start), m.at(end)});
        }
    }
    w->note(*out);
}

void JsonBpe::run_merges(Work* w) const {
    auto& nodes = w->nodes;
    auto& heap = w->heap;
    const int32_t count = static_cast<int32_t>(nodes.size());
    const size_t cap = static_cast<size_t>(count) + static_cast<size_t>(count) / 2 + 16;
    reserve_exact(&heap, cap);
    const std::greater<Cand> later;
    auto rank_of = [&](int32_t i, int32_t* rank) {
        const int32_t j = nodes[i].next;
        int32_t result;
        return j < count && nodes[i].id >= 0 && nodes[j].id >= 0 &&
               merges_.find(nodes[i].id, nodes[j].id, rank, &result);
    };
    auto live = [&](const Cand& c) {
        int32_t rank;
        return rank_of(c.left, &rank) && rank == c.rank;
    };
    for (int32_t i = 0; i + 1 < count; ++i) {
        int32_t rank;
        if (rank_of(i, &rank)) heap.push_back({rank, i});
    }
    std::make_heap(heap.begin(), heap.end(), later);
    auto push = [&](int32_t i) {
        int32_t rank;
        if (i < 0 || !rank_of(i, &rank)) return;
        if (heap.size() == cap) {
            heap.erase(
                std::remove_if(heap.begin(), heap.end(), [&](const Cand& c) { return !live(c); }),
                heap.end());
            std::make_heap(heap.begin(), heap.end(), later);
        }
        heap.push_back({rank, i});
        std::push_heap(heap.begin(), heap.end(), later);
    };
    while (!heap.empty()) {
        std::pop_heap(heap.begin(), heap.end(), later);
        const Cand c = heap.back();
        heap.pop_back();
        if (!live(c)) continue;
        Node& a = nodes[c.left];
        Node& b = nodes[a.next];
        int32_t rank = 0, result = 0;
        merges_.find(a.id, b.id, &rank, &result);
        a.id = result;
        b.id = kDead;
        a.next = b.next;
        if (b.next < count) nodes[b.next].prev = c.left;
        push(a.prev);
        push(c.left);
    }
}

void JsonBpe::split_added(std::string_view text, const AddedTrie& trie, uint32_t base,
                          bool special_tokens, std::vector<Section>* out) const {
    out->clear();
    uint32_t text_start = 0;
    const uint32_t n = static_cast<uint32_t>(text.size());
    if (!trie.empty()) {
        for (uint32_t i = 0; i < n;) {
            size_t len = 0;
            const int32_t t = trie.longest(text, i, &len);
            if (t < 0) {
                ++i;
                continue;
            }
            if (added_[t].special && !special_tokens) { // text is text: the marker stays text
                i += static_cast<uint32_t>(len);
                continue;
            }
            if (i > text_start) out->push_back({base + text_start, base + i, -1});
            out->push_back({base + i, base + i + static_cast<uint32_t>(len), t});
            i += static_cast<uint32_t>(len);
            text_start = i;
        }
    }
    if (n > text_start) out->push_back({base + text_start, base + n, -1});
    for (size_t k = 0; k < out->size(); ++k) {
        const Section& s = (*out)[k];
        if (s.token < 0) continue;
        if (added_[s.token].lstrip && k > 0 && (*out)[k - 1].token < 0) {
            Section& p = (*out)[k - 1];
            p.end = trim_end(text, base, p.start, p.end);
        }
        if (added_[s.token].rstrip && k + 1 < out->size() && (*out)[k + 1].token < 0) {
            Section& q = (*out)[k + 1];
            q.start = trim_start(text, base, q.start, q.end);
        }
    }
    out->erase(
        std::remove_if(out->begin(), out->end(), [](const Section& s) { return s.start == s.end; }),
        out->end());
}

uint32_t JsonBpe::trim_end(std::string_view text, uint32_t base, uint32_t start, uint32_t end) {
    // Walk forward remembering the end of the last non-space code point.
    uint32_t last = start;
    for (uint32_t i = start; i < end;) {
        size_t len;
        const uint32_t cp = unicode::decode(text, i - base, &len);
        i += static_cast<uint32_t>(len);
        if (!unicode::is_white_space(cp)) last = i;
    }
    return last;
}

uint32_t JsonBpe::trim_start(std::string_view text, uint32_t base, uint32_t start, uint32_t end) {
    uint32_t i = start;
    while (i < end) {
        size_t len;
        const uint32_t cp = unicode::decode(text, i - base, &len);
        if (!unicode::is_white_space(cp)) break;
        i += static_cast<uint32_t>(len);
    }
    return i;
}

void JsonBpe::find_matches(const Step& st, std::string_view text, Span piece, Work* w) const {
    w->splits.clear();
    const std::string_view s = text.substr(piece.start, piece.end - piece.start);
    size_t prev = 0, from = 0;
    for (;;) {
        size_t ms, me;
        bool found;
        if (st.kind == Step::split_regex) {
            found = st.re.find(s, from, &ms, &me, &w->re);
        } else {
            ms = s.find(st.literal, from);
            found = ms != std::string_view::npos;
            me = found ? ms + st.literal.size() : 0;
        }
        if (!found) break;
        if (ms > prev)
            w->splits.push_back({{piece.start + static_cast<uint32_t>(prev),
                                  piece.start + static_cast<uint32_t>(ms)},
                                 false});
        w->splits.push_back(
            {{piece.start + static_cast<uint32_t>(ms), piece.start + static_cast<uint32_t>(me)},
             true});
        prev = me;
        from = me; // patterns never match empty (checked when compiled)
        if (from >= s.size()) break;
    }
    if (prev < s.size())
        w->splits.push_back({{piece.start + static_cast<uint32_t>(prev), piece.end}, false});
}

void JsonBpe::digit_matches(std::string_view text, Span piece, Work* w) const {
    w->splits.clear();
    for (uint32_t i = piece.start; i < piece.end;) {
        size_t len;
        const uint32_t cp = unicode::decode(text, i, &len);
        const auto gc = unicode::general_category(cp);
        const bool numeric = gc == unicode::Nd || gc == unicode::Nl || gc == unicode::No;
        const uint32_t e = i + static_cast<uint32_t>(len);
        if (!numeric && !w->splits.empty() && !w->splits.back().second)
            w->splits.back().first.end = e;
        else
            w->splits.push_back({{i, e}, numeric});
        i = e;
    }
}

void JsonBpe::apply_behavior(Behavior b, bool invert, Work* w) {
    auto& m = w->splits;
    if (invert)
        for (auto& x : m) x.second = !x.second;
    std::vector<std::pair<Span, bool>> acc;
    switch (b) {
    case Behavior::isolated:
        acc = m;
        break;
    case Behavior::removed:
        for (auto& x : m)
            if (!x.second) acc.push_back(x);
        break;
    case Behavior::merged_with_previous: {
        bool previous_match = false;
        for (auto& x : m) {
            if (x.second && !previous_match) {
                if (!acc.empty())
                    acc.back().first.end = x.first.end;
                else
                    acc.push_back({x.first, true});
            } else {
                acc.push_back({x.first, false});
            }
            previous_match = x.second;
        }
        break;
    }
    case Behavior::merged_with_next: {
        bool previous_match = false;
        for (size_t k = m.size(); k-- > 0;) {
            auto& x = m[k];
            if (x.second && !previous_match) {
                if (!acc.empty())
                    acc.back().first.start = x.first.start;
                else
                    acc.push_back({x.first, true});
            } else {
                acc.push_back({x.first, false});
            }
            previous_match = x.second;
        }
        std::reverse(acc.begin(), acc.end());
        break;
    }
    case Behavior::contiguous: {
        bool previous_match = false;
        for (auto& x : m) {
            if (x.second == previous_match) {
                if (!acc.empty())
                    acc.back().first.end = x.first.end;
                else
                    acc.push_back({x.first, false});
            } else {
                acc.push_back({x.first, false});
            }
            previous_match = x.second;
        }
        break;
    }
    }
    for (auto& x : acc)
        if (x.first.end > x.first.start) w->next.push_back(x.first);
}

void JsonBpe::encode_section(std::string_view text, uint32_t start, uint32_t end, Work* w,
                             std::vector<Token>* out) const {
    w->pieces.assign(1, Span{start, end});
    for (const Step& st : steps_) {
        if (st.kind == Step::byte_level) {
            for (const Span& p : w->pieces) byte_level(st, text, p, w, out);
            return;
        }
        w->next.clear();
        for (const Span& p : w->pieces) {
            if (st.kind == Step::digits)
                digit_matches(text, p, w);
            else
                find_matches(st, text, p, w);
            // Digits: Isolated for individual digits, else Contiguous (as Rust).
            const Behavior b =
                st.kind == Step::digits
                    ? (st.individual_digits ? Behavior::isolated : Behavior::contiguous)
                    : st.behavior;
            apply_behavior(b, st.kind == Step::digits ? false : st.invert, w);
        }
        std::swap(w->pieces, w->next);
    }
    for (const Span& p : w->pieces) spm_bpe(*w->mapped, p, w, out);
}

void JsonBpe::byte_level(const Step& st, std::string_view text, Span p, Work* w,
                         std::vector<Token>* out) const {
    const bool prefix = st.add_prefix_space && text[p.start] != ' ';
    if (!st.use_regex) {
        bpe(text, p, prefix, w, out);
        return;
    }
    if (prefix) {
        // The regex sees " " + piece: split a copy and map offsets back.
        std::string s = " ";
        s.append(text.substr(p.start, p.end - p.start));
        size_t from = 0, ms, me;
        while (from < s.size() && st.re.find(s, from, &ms, &me, &w->re)) {
            // Gaps cannot occur: the GPT-2 pattern matches every code point.
            const bool has_prefix = ms == 0;
            const uint32_t a = p.start + static_cast<uint32_t>(has_prefix ? 0 : ms - 1);
            const uint32_t b = p.start + static_cast<uint32_t>(me - 1);
            bpe(text, Span{a, b}, has_prefix, w, out);
            from = me;
        }
        return;
    }
    const std::string_view s = text.substr(p.start, p.end - p.start);
    size_t from = 0, ms, me;
    while (from < s.size() && st.re.find(s, from, &ms, &me, &w->re)) {
        bpe(text, Span{p.start + static_cast<uint32_t>(ms), p.start + static_cast<uint32_t>(me)},
            false, w, out);
        from = me;
    }
}

void JsonBpe::bpe(std::string_view text, Span p, bool prefix, Work* w,
                  std::vector<Token>* out) const {
    std::string_view piece = text.substr(p.start, p.end - p.start);
    if (ignore_merges_ && !prefix) {
        auto it = by_bytes_.find(piece);
        if (it != by_bytes_.end()) {
            out->push_back({it->second, p.start, p.end});
            return;
        }
    }
    if (ignore_merges_ && prefix) {
        std::string s = " ";
        s.append(piece);
        auto it = by_bytes_.find(s);
        if (it != by_bytes_.end()) {
            out->push_back({it->second, p.start, p.end});
            return;
        }
    }
    auto& nodes = w->nodes;
    reserve_exact(&nodes, p.end - p.start + (prefix ? 1 : 0));
    if (prefix) nodes.push_back({byte_id_[0x20], p.start, -1, 1});
    for (uint32_t i = p.start; i < p.end; ++i) {
        const int32_t k = static_cast<int32_t>(nodes.size());
        nodes.push_back({byte_id_[static_cast<unsigned char>(text[i])], i, k - 1, k + 1});
    }
    const int32_t count = static_cast<int32_t>(nodes.size());
    run_merges(w);
    for (int32_t i = 0; i < count; i = nodes[i].next)
        out->push_back({nodes[i].id, nodes[i].start,
                        nodes[i].next < count ? nodes[nodes[i].next].start : p.end});
    w->note(*out);
}

} // namespace tokenizer_json

bool tokenizer_json_normalize(const Vocabulary& v, std::string_view text, std::string* out,
                              std::vector<uint32_t>* from) {
    const tokenizer_json::JsonBpe* bpe = dynamic_cast<const tokenizer_json::JsonBpe*>(&v);
    if (!bpe) return false;
    bpe->normalize(text, out, from);
    return true;
}

size_t tokenizer_json_encode_peak(const Vocabulary& v, std::string_view text,
                                  std::vector<Token>* out) {
    const tokenizer_json::JsonBpe* bpe = dynamic_cast<const tokenizer_json::JsonBpe*>(&v);
    if (!bpe) return 0;
    return bpe->encode_peak(text, out);
}

} // namespace hirope
