// Hugging Face tokenizer.json, byte-level BPE family (GPT-2, Llama 3, Qwen 2/3, DeepSeek V3 ...):
// the loader and the tokenizer it builds. The pipeline is the reference's (Rust `tokenizers`,
// reproduced by @huggingface/tokenizers): split the input on added tokens that are matched
// before normalization (leftmost, longest), normalize the rest (the normalizer steps: Unicode
// forms, Lowercase, StripAccents, Strip, Replace, Prepend; or nothing), split that on
// the normalized added tokens, pre-tokenize each remaining section (Split / Digits steps, then
// ByteLevel), and run ranked BPE merges on the bytes of each piece. Every field the format
// defines is either implemented or refused with an error naming it.
#include "analysis/tokenizer_json.h"

#include "analysis/json.h"
#include "analysis/pair_table.h"
#include "analysis/pretokenize_regex.h"
#include "analysis/unicode.h"
#include "analysis/unicode_props.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <unordered_map>

namespace hirope {

namespace {

const std::string kPrefix = "tokenizer.json: ";

Status fail(const std::string& message) {
    return Status::error(kPrefix + message);
}

// GPT-2's byte-to-unicode table: byte b is shown as code point byte_char[b].
struct ByteLevelTable {
    uint32_t byte_char[256];
    int16_t char_byte[324]; // the byte shown as code point cp (< 324), or -1
    ByteLevelTable() {
        int n = 0;
        for (int16_t& b : char_byte) b = -1;
        for (int b = 0; b < 256; ++b) {
            const bool printable =
                (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
            byte_char[b] = printable ? static_cast<uint32_t>(b) : static_cast<uint32_t>(256 + n++);
            char_byte[byte_char[b]] = static_cast<int16_t>(b);
        }
    }
    int byte_of(uint32_t cp) const { return cp < 324 ? char_byte[cp] : -1; }
};

// Decodes a byte-level string to raw bytes; false if it holds a character outside the table.
bool byte_level_decode(const ByteLevelTable& t, std::string_view s, std::string* out) {
    out->clear();
    for (size_t i = 0; i < s.size();) {
        size_t len;
        const uint32_t cp = unicode::decode(s, i, &len);
        if (cp == 0xFFFD && len == 1) return false;
        const int b = t.byte_of(cp);
        if (b < 0) return false;
        out->push_back(static_cast<char>(b));
        i += len;
    }
    return true;
}

// Token string -> id, open addressing over 4-byte ids: the key of a slot is the string of its id
// in the vocabulary's arena (a quarter of what a hash map of string views takes). find() reads
// like a map's: `it == end()` when absent, else `it->second`.
class IdTable {
  public:
    struct Found {
        int32_t second;
        const Found* operator->() const { return this; }
        bool operator==(const Found& o) const { return second == o.second; }
        bool operator!=(const Found& o) const { return second != o.second; }
    };
    void bind(const std::string* arena, const std::vector<uint32_t>* offset) {
        arena_ = arena;
        offset_ = offset;
    }
    void reserve(size_t count) {
        size_t cap = 16;
        while (cap < count * 2) cap *= 2;
        slots_.assign(cap, -1);
        mask_ = cap - 1;
    }
    Found end() const { return Found{-1}; }
    Found find(std::string_view key) const {
        if (slots_.empty()) return end();
        for (size_t i = std::hash<std::string_view>()(key) & mask_;; i = (i + 1) & mask_) {
            if (slots_[i] < 0) return end();
            if (key_of(slots_[i]) == key) return Found{slots_[i]};
        }
    }
    // Adds id under its own string; an existing entry for that string is kept, or replaced.
    void insert(int32_t id, bool replace) {
        const std::string_view key = key_of(id);
        for (size_t i = std::hash<std::string_view>()(key) & mask_;; i = (i + 1) & mask_) {
            if (slots_[i] < 0) {
                slots_[i] = id;
                return;
            }
            if (key_of(slots_[i]) == key) {
                if (replace) slots_[i] = id;
                return;
            }
        }
    }

  private:
    std::string_view key_of(int32_t id) const {
        const size_t i = static_cast<size_t>(id);
        return std::string_view(arena_->data() + (*offset_)[i], (*offset_)[i + 1] - (*offset_)[i]);
    }
    const std::string* arena_ = nullptr;
    const std::vector<uint32_t>* offset_ = nullptr;
    std::vector<int32_t> slots_;
    size_t mask_ = 0;
};

// Added tokens of one stage, matched leftmost and then longest, as a byte trie.
class AddedTrie {
  public:
    AddedTrie() : token_(1, -1) {}
    void insert(std::string_view s, int32_t index) {
        uint32_t node = 0;
        for (char c : s) {
            const uint64_t k = (static_cast<uint64_t>(node) << 8) | static_cast<unsigned char>(c);
            auto it = edges_.find(k);
            if (it == edges_.end()) {
                token_.push_back(-1);
                it = edges_.emplace(k, static_cast<uint32_t>(token_.size() - 1)).first;
            }
            node = it->second;
        }
        token_[node] = index;
        empty_ = false;
    }
    bool empty() const { return empty_; }
    // The longest token starting at text[pos]: its index and length, or -1.
    int32_t longest(std::string_view text, size_t pos, size_t* len) const {
        uint32_t node = 0;
        int32_t best = -1;
        for (size_t i = pos; i < text.size(); ++i) {
            const uint64_t k =
                (static_cast<uint64_t>(node) << 8) | static_cast<unsigned char>(text[i]);
            auto it = edges_.find(k);
            if (it == edges_.end()) break;
            node = it->second;
            if (token_[node] >= 0) {
                best = token_[node];
                *len = i + 1 - pos;
            }
        }
        return best;
    }

  private:
    std::vector<int32_t> token_; // per node: the added token ending there, or -1
    std::unordered_map<uint64_t, uint32_t> edges_;
    bool empty_ = true;
};

struct AddedToken {
    int32_t id;
    std::string content; // as matched (normalized tokens: after NFC when the normalizer is NFC)
    bool lstrip, rstrip;
};

enum class Behavior { removed, isolated, merged_with_previous, merged_with_next, contiguous };

struct Step {
    enum Kind { split_regex, split_string, digits, byte_level } kind;
    regex::Regex re;     // split_regex, and byte_level with use_regex
    std::string literal; // split_string
    Behavior behavior = Behavior::isolated;
    bool invert = false;
    bool individual_digits = false;
    bool add_prefix_space = false, use_regex = false; // byte_level
};

// GPT-2's pattern, which ByteLevel applies when use_regex is true.
const char* const kGpt2Pattern =
    "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+";

struct Span {
    uint32_t start, end;
};

// A text with, for each of its bytes, the offset in the original input it came from (the
// normalizers and Metaspace of the SentencePiece family rewrite the text: Replace, Prepend).
struct Mapped {
    std::string text;
    std::vector<uint32_t> from; // per byte of text
    uint32_t end = 0;           // the original offset of text.size()
    uint32_t at(uint32_t pos) const { return pos < from.size() ? from[pos] : end; }
};

// One normalizer step (as @huggingface/tokenizers applies it to a section's text): Prepend(content)
// (to non-empty text), Replace(pattern -> content) with a String pattern (non-overlapping,
// leftmost, as String.replaceAll) or a Regex one (as replaceAll with the pattern's RegExp), the
// four Unicode normalization forms (String.prototype.normalize), Lowercase (toLowerCase, with
// Final_Sigma), StripAccents (removes every \p{M}), Strip (trimStart / trimEnd).
struct TextOp {
    enum Kind {
        prepend,
        replace,
        replace_regex,
        nfc,
        nfd,
        nfkc,
        nfkd,
        lowercase,
        strip_accents,
        strip
    };
    Kind kind = replace;
    std::string pattern, content;     // replace: pattern; prepend, replace, replace_regex: content
    regex::Regex re;                  // replace_regex
    bool left = false, right = false; // strip
    static TextOp make_prepend(std::string content) {
        TextOp op;
        op.kind = prepend;
        op.content = std::move(content);
        return op;
    }
    static TextOp make_replace(std::string pattern, std::string content) {
        TextOp op;
        op.pattern = std::move(pattern);
        op.content = std::move(content);
        return op;
    }
};

// Buffers the normalizer steps reuse.
struct OpScratch {
    regex::Scratch re;
    unicode::NormalizeScratch norm;
};

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

// Applies one step to m (tmp is scratch); offsets: a byte the step keeps keeps its input offset;
// what replaces a stretch (a Replace match, a changed normalization segment or lowercase code
// point of another length) maps its first byte to the stretch's start and the others to its end,
// as NFC alone does (a Replace content: all to the match's start).
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

class JsonBpe final : public Vocabulary {
    struct Work;

  public:
    size_t encode_heap_per_byte() const override { return heap_per_byte_; }
    const std::string& name() const override { return name_; }
    size_t size() const override { return offset_.size() - 1; }
    std::string_view token_bytes(int32_t id) const override {
        if (id < 0 || static_cast<size_t>(id) + 1 >= offset_.size()) return {};
        if (spm_)
            return std::string_view(dec_arena_.data() + dec_offset_[id],
                                    dec_offset_[id + 1] - dec_offset_[id]);
        return std::string_view(arena_.data() + offset_[id], offset_[id + 1] - offset_[id]);
    }

    void encode(std::string_view text, std::vector<Token>* out) const override {
        Work w;
        encode_with(text, out, &w);
    }

    // The normalizer applied to text (one section), with each output byte's input offset.
    void normalize(std::string_view text, std::string* out, std::vector<uint32_t>* from) const {
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

    size_t encode_peak(std::string_view text, std::vector<Token>* out) const {
        Work w;
        encode_with(text, out, &w);
        w.note(*out);
        return w.peak;
    }

  private:
    void encode_with(std::string_view text, std::vector<Token>* out, Work* work) const {
        if (spm_ || !norm_ops_.empty()) {
            encode_spm(text, out, work);
            return;
        }
        Work& w = *work;
        std::vector<Section>& sections = w.sections;
        split_added(text, stage1_, 0, &sections);
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
            split_added(normalized, stage2_, 0, &subs);
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

  private:
    friend Status hirope::load_tokenizer_json(std::string_view, std::string,
                                              const TokenizerJsonLimits&,
                                              std::unique_ptr<Vocabulary>*);
    struct Section {
        uint32_t start, end;
        int32_t token; // index into added_, or -1 for text
    };
    // BPE symbols: 16 bytes each; a symbol ends where the next live one starts (or the piece).
    struct Node {
        int32_t id; // vocabulary id, kDead once merged into its left neighbour, kUnknown
        uint32_t start;
        int32_t prev, next;
    };
    // A candidate merge of node `left` with its right neighbour: the rank identifies the pair
    // (each rank is one line of merges), so a stale candidate is one whose node no longer forms
    // that pair.
    struct Cand {
        int32_t rank, left;
        bool operator>(const Cand& o) const {
            return rank != o.rank ? rank > o.rank : left > o.left;
        }
    };
    struct Work {
        regex::Scratch re;
        std::vector<Span> pieces, next;
        std::vector<std::pair<Span, bool>> splits;
        std::vector<Node> nodes;
        std::vector<Cand> heap;
        const Mapped* mapped = nullptr; // SentencePiece family: the text pieces are spans of
        Mapped norm, piece, tmp;
        OpScratch ops;
        std::vector<Section> sections, subs;
        size_t peak = 0; // the most bytes these buffers and the output held at once
        template <class T> static size_t cap(const std::vector<T>& v) {
            return v.capacity() * sizeof(T);
        }
        static size_t cap(const Mapped& m) { return m.text.capacity() + cap(m.from); }
        void note(const std::vector<Token>& out) {
            const size_t now = cap(re.seen) + cap(re.look_seen) + cap(re.stack) +
                               cap(re.look_stack) + cap(pieces) + cap(next) + cap(splits) +
                               cap(nodes) + cap(heap) + cap(norm) + cap(piece) + cap(tmp) +
                               cap(sections) + cap(subs) + cap(out) + cap(ops.re.seen) +
                               cap(ops.re.look_seen) + cap(ops.re.stack) + cap(ops.re.look_stack) +
                               cap(ops.norm.cps) + ops.norm.norm.capacity();
            peak = std::max(peak, now);
        }
    };

    // The SentencePiece family, and the byte-level one with normalizer steps other than NFC
    // alone: normalizer steps, added tokens, Split steps (and ByteLevel) or Metaspace, BPE over
    // characters with byte fallback (or over bytes); offsets mapped back to the input.
    void encode_spm(std::string_view text, std::vector<Token>* out, Work* work) const {
        Work& w = *work;
        std::vector<Section>&sections = w.sections, &subs = w.subs;
        split_added(text, stage1_, 0, &sections);
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
            split_added(m.text, stage2_, 0, &subs);
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
                    const bool starts =
                        p.text.compare(0, ms_replacement_.size(), ms_replacement_) == 0;
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
                            if (k > begin)
                                spm_bpe(p, Span{begin, static_cast<uint32_t>(k)}, &w, out);
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

    int32_t char_id(std::string_view c, uint32_t cp) const {
        if (cp < kSmallChars) return small_char_id_[cp]; // decode rejects overlong forms
        auto it = by_bytes_.find(c);
        return it == by_bytes_.end() ? kUnknown : it->second;
    }

    // BPE over the characters of m.text[p], ranked, leftmost first among equal ranks; a
    // character outside the vocabulary becomes its byte tokens (byte_fallback) or the unknown
    // token, as @huggingface/tokenizers does it after the merges.
    void spm_bpe(const Mapped& m, Span p, Work* w, std::vector<Token>* out) const {
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

    // Empties v and gives it room for n elements, allocated once at that size when it has less
    // (push_back's doubling would take up to twice the memory).
    template <class T> static void reserve_exact(std::vector<T>* v, size_t n) {
        v->clear();
        if (v->capacity() < n) {
            std::vector<T>().swap(*v);
            v->reserve(n);
        }
    }

    // Ranked merges over w->nodes, the lowest rank first, leftmost among equals. The heap holds
    // at most 1.5 candidates per symbol: when full it drops its stale candidates (there is at
    // most one live candidate per live symbol), so its memory is fixed before the merges start.
    void run_merges(Work* w) const {
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
                heap.erase(std::remove_if(heap.begin(), heap.end(),
                                          [&](const Cand& c) { return !live(c); }),
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

    // Splits text[start, end) on the added tokens of one stage; lstrip/rstrip remove the white
    // space next to a token from the neighbouring text sections.
    void split_added(std::string_view text, const AddedTrie& trie, uint32_t base,
                     std::vector<Section>* out) const {
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
        out->erase(std::remove_if(out->begin(), out->end(),
                                  [](const Section& s) { return s.start == s.end; }),
                   out->end());
    }
    static uint32_t trim_end(std::string_view text, uint32_t base, uint32_t start, uint32_t end) {
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
    static uint32_t trim_start(std::string_view text, uint32_t base, uint32_t start, uint32_t end) {
        uint32_t i = start;
        while (i < end) {
            size_t len;
            const uint32_t cp = unicode::decode(text, i - base, &len);
            if (!unicode::is_white_space(cp)) break;
            i += static_cast<uint32_t>(len);
        }
        return i;
    }

    // Finds the matches of a Split step in piece, as (span, is_match) covering it.
    void find_matches(const Step& st, std::string_view text, Span piece, Work* w) const {
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

    // The digit splits of a Digits step: each code point of category N is a match.
    void digit_matches(std::string_view text, Span piece, Work* w) const {
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

    // Applies a behavior (Rust tokenizers' SplitDelimiterBehavior) to w->splits, appending the
    // non-empty pieces to w->next.
    static void apply_behavior(Behavior b, bool invert, Work* w) {
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

    void encode_section(std::string_view text, uint32_t start, uint32_t end, Work* w,
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

    // ByteLevel: a prefix space if asked (a zero-width token start), GPT-2's split if asked,
    // then BPE on the bytes.
    void byte_level(const Step& st, std::string_view text, Span p, Work* w,
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
            bpe(text,
                Span{p.start + static_cast<uint32_t>(ms), p.start + static_cast<uint32_t>(me)},
                false, w, out);
            from = me;
        }
    }

    // Ranked BPE on the bytes of text[p] (preceded by a space when prefix), leftmost first
    // among equal ranks.
    void bpe(std::string_view text, Span p, bool prefix, Work* w, std::vector<Token>* out) const {
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

    std::string name_;
    std::string arena_;
    std::vector<uint32_t> offset_; // size() + 1 entries
    IdTable by_bytes_; // model vocabulary (and, SentencePiece family, added tokens) -> id
    int32_t byte_id_[256];
    detail::PairTable merges_;
    bool ignore_merges_ = false;
    bool nfc_ = false; // the normalizer is NFC alone, in the byte-level family (norm_ops_ empty)
    size_t heap_per_byte_ = kTokenizerJsonEncodeBytesPerByte;
    // The SentencePiece family (no ByteLevel step): vocabulary strings in arena_ are the
    // model's own (with U+2581 and <0xNN>); token_bytes gives them decoded from dec_arena_.
    static constexpr int32_t kUnknown = -2, kDead = -1;
    static constexpr uint32_t kSmallChars = 0x800;
    bool spm_ = false, byte_fallback_ = false, fuse_unk_ = false;
    int32_t unk_id_ = -1;
    int32_t byte_token_[256];
    std::vector<int32_t> small_char_id_; // by code point below kSmallChars
    std::vector<TextOp> norm_ops_;
    bool metaspace_ = false, ms_split_ = true;
    int ms_prepend_ = 2; // 0 never, 1 first, 2 always
    std::string ms_replacement_;
    std::string dec_arena_;
    std::vector<uint32_t> dec_offset_;
    std::vector<Step> steps_;
    std::vector<AddedToken> added_;
    AddedTrie stage1_, stage2_;
};

// Field checking: each object may hold only the named keys.
Status only_keys(const json::Document& d, uint32_t obj, const std::string& where,
                 std::initializer_list<const char*> keys) {
    for (uint32_t k = d.first(obj); k != d.end(obj); k = d.next(d.next(k))) {
        bool known = false;
        for (const char* key : keys)
            if (d.equals(k, key)) known = true;
        if (!known) return fail(where + ": the field '" + d.string(k) + "' is not supported");
    }
    return {};
}

Status expect_type(const json::Document& d, uint32_t v, json::Type t, const std::string& where) {
    if (v == json::Document::none) return fail(where + " is missing");
    if (d.type(v) != t)
        return fail(where + " must be " + json::type_name(t) + ", not " +
                    json::type_name(d.type(v)));
    return {};
}

// An optional boolean field (absent or null: def).
Status get_bool(const json::Document& d, uint32_t obj, const char* key, const std::string& where,
                bool def, bool* out) {
    const uint32_t v = d.find(obj, key);
    *out = def;
    if (v == json::Document::none || d.type(v) == json::Type::null) return {};
    if (d.type(v) != json::Type::boolean)
        return fail(where + "." + key + " must be a boolean, not " + json::type_name(d.type(v)));
    *out = d.boolean(v);
    return {};
}

std::string type_of(const json::Document& d, uint32_t obj) {
    const uint32_t t = d.find(obj, "type");
    return t != json::Document::none && d.type(t) == json::Type::string ? d.string(t) : "";
}

Status parse_step(const json::Document& d, uint32_t v, const std::string& where,
                  const TokenizerJsonLimits& limits, Step* st) {
    Status s = expect_type(d, v, json::Type::object, where);
    if (!s.ok()) return s;
    const std::string type = type_of(d, v);
    if (type == "ByteLevel") {
        s = only_keys(d, v, where, {"type", "add_prefix_space", "trim_offsets", "use_regex"});
        if (!s.ok()) return s;
        st->kind = Step::byte_level;
        bool trim;
        if (!(s = get_bool(d, v, "add_prefix_space", where, true, &st->add_prefix_space)).ok() ||
            !(s = get_bool(d, v, "trim_offsets", where, true, &trim)).ok() ||
            !(s = get_bool(d, v, "use_regex", where, true, &st->use_regex)).ok())
            return s;
        if (st->use_regex) {
            s = regex::Regex::compile(kGpt2Pattern, &st->re);
            if (!s.ok()) return fail(s.message());
        }
        return {};
    }
    if (type == "Split") {
        s = only_keys(d, v, where, {"type", "pattern", "behavior", "invert"});
        if (!s.ok()) return s;
        const uint32_t pat = d.find(v, "pattern");
        if (!(s = expect_type(d, pat, json::Type::object, where + ".pattern")).ok()) return s;
        if (d.node(pat).len != 1) return fail(where + ".pattern must hold one of Regex or String");
        const uint32_t key = d.first(pat), val = d.next(key);
        if (!(s = expect_type(d, val, json::Type::string, where + ".pattern." + d.string(key)))
                 .ok())
            return s;
        const std::string text = d.string(val);
        if (text.size() > limits.max_pattern_bytes)
            return fail(where + ".pattern is longer than " +
                        std::to_string(limits.max_pattern_bytes) + " bytes");
        if (d.equals(key, "Regex")) {
            st->kind = Step::split_regex;
            s = regex::Regex::compile(text, &st->re);
            if (!s.ok()) return fail(where + ".pattern: " + s.message());
        } else if (d.equals(key, "String")) {
            if (text.empty()) return fail(where + ".pattern.String is empty");
            st->kind = Step::split_string;
            st->literal = text;
        } else {
            return fail(where + ".pattern type '" + d.string(key) + "' is not supported");
        }
        const uint32_t b = d.find(v, "behavior");
        if (!(s = expect_type(d, b, json::Type::string, where + ".behavior")).ok()) return s;
        const std::string bs = d.string(b);
        if (bs == "Removed")
            st->behavior = Behavior::removed;
        else if (bs == "Isolated")
            st->behavior = Behavior::isolated;
        else if (bs == "MergedWithPrevious")
            st->behavior = Behavior::merged_with_previous;
        else if (bs == "MergedWithNext")
            st->behavior = Behavior::merged_with_next;
        else if (bs == "Contiguous")
            st->behavior = Behavior::contiguous;
        else
            return fail(where + ".behavior '" + bs + "' is not supported");
        return get_bool(d, v, "invert", where, false, &st->invert);
    }
    if (type == "Digits") {
        s = only_keys(d, v, where, {"type", "individual_digits"});
        if (!s.ok()) return s;
        st->kind = Step::digits;
        return get_bool(d, v, "individual_digits", where, false, &st->individual_digits);
    }
    if (type.empty()) return fail(where + " has no type");
    return fail("pre_tokenizer type '" + type + "' is not supported");
}

// One normalizer step (not a Sequence), appended to ops; anything else is an error naming it.
Status parse_one_normalizer(const json::Document& d, uint32_t v, const std::string& where,
                            const TokenizerJsonLimits& limits, std::vector<TextOp>* ops) {
    const std::string type = type_of(d, v);
    static const std::pair<const char*, TextOp::Kind> plain[] = {
        {"NFC", TextOp::nfc},
        {"NFD", TextOp::nfd},
        {"NFKC", TextOp::nfkc},
        {"NFKD", TextOp::nfkd},
        {"Lowercase", TextOp::lowercase},
        {"StripAccents", TextOp::strip_accents}};
    for (const auto& [name, kind] : plain)
        if (type == name) {
            TextOp op;
            op.kind = kind;
            ops->push_back(std::move(op));
            return only_keys(d, v, where, {"type"});
        }
    Status s;
    if (type == "Strip") {
        if (!(s = only_keys(d, v, where, {"type", "strip_left", "strip_right"})).ok()) return s;
        TextOp op;
        op.kind = TextOp::strip;
        if (!(s = get_bool(d, v, "strip_left", where, false, &op.left)).ok() ||
            !(s = get_bool(d, v, "strip_right", where, false, &op.right)).ok())
            return s;
        ops->push_back(std::move(op));
        return {};
    }
    if (type == "Prepend") {
        if (!(s = only_keys(d, v, where, {"type", "prepend"})).ok()) return s;
        const uint32_t p = d.find(v, "prepend");
        if (!(s = expect_type(d, p, json::Type::string, where + ".prepend")).ok()) return s;
        TextOp op = TextOp::make_prepend(d.string(p));
        // One character at most (U+2581 in the real files): each section gets it, so a longer
        // one would let a small input take many tokens (the encode heap bound counts on it).
        size_t len = 0;
        if (!op.content.empty() && (unicode::decode(op.content, 0, &len), len) != op.content.size())
            return fail(where + ".prepend must be one character");
        ops->push_back(std::move(op));
        return {};
    }
    if (type == "Replace") {
        if (!(s = only_keys(d, v, where, {"type", "pattern", "content"})).ok()) return s;
        const uint32_t pat = d.find(v, "pattern"), content = d.find(v, "content");
        if (!(s = expect_type(d, pat, json::Type::object, where + ".pattern")).ok()) return s;
        if (d.node(pat).len != 1) return fail(where + ".pattern must hold one of String or Regex");
        const uint32_t key = d.first(pat), str = d.next(key);
        const bool is_regex = d.equals(key, "Regex");
        if (!is_regex && !d.equals(key, "String"))
            return fail(where + ".pattern type '" + d.string(key) + "' is not supported");
        if (!(s = expect_type(d, str, json::Type::string, where + ".pattern." + d.string(key)))
                 .ok())
            return s;
        if (!(s = expect_type(d, content, json::Type::string, where + ".content")).ok()) return s;
        TextOp op = TextOp::make_replace(d.string(str), d.string(content));
        if (op.pattern.empty()) return fail(where + ".pattern." + d.string(key) + " is empty");
        if (op.pattern.size() > (is_regex ? limits.max_pattern_bytes : limits.max_token_bytes) ||
            op.content.size() > limits.max_token_bytes)
            return fail(where + " is longer than " + std::to_string(limits.max_token_bytes) +
                        " bytes");
        // JavaScript's replaceAll reads $$, $&, $`, $', $1 and $<name> in the content; Rust's
        // tokenizers does not: the two references disagree, so refuse.
        for (size_t k = op.content.find('$'); k != std::string::npos && k + 1 < op.content.size();
             k = op.content.find('$', k + 1))
            if (std::strchr("$&`'<0123456789", op.content[k + 1]))
                return fail(where + ".content holds '" + op.content.substr(k, 2) +
                            "', which the references read differently");
        if (is_regex) {
            op.kind = TextOp::replace_regex;
            s = regex::Regex::compile(op.pattern, &op.re);
            if (!s.ok()) return fail(where + ".pattern: " + s.message());
            // The content must not grow the text by more than 4 per byte of a match; a regex
            // match is at least one character, so content is bounded by 4 bytes.
            if (op.content.size() > 4)
                return fail(where + ".content is longer than 4 bytes (with a Regex pattern)");
        } else if (op.content.size() > 4 * op.pattern.size()) {
            // Offsets stay exact only if the content grows the text by a bounded factor.
            return fail(where + ".content is more than 4 times longer than its pattern");
        }
        ops->push_back(std::move(op));
        return {};
    }
    if (type.empty()) return fail(where + " has no type");
    return fail("normalizer type '" + type + "' is not supported");
}

// The normalizer: null, one step, or a Sequence of steps and Sequences. Nested Sequences are
// walked with an explicit stack (never recursion): at most max_pre_tokenizers steps in all and
// Sequences nested at most that deep.
Status parse_normalizer(const json::Document& d, uint32_t v, const TokenizerJsonLimits& limits,
                        std::vector<TextOp>* ops) {
    ops->clear();
    if (v == json::Document::none || d.type(v) == json::Type::null) return {};
    struct Frame {
        uint32_t list, next;
        size_t index;
        std::string where;
    };
    std::vector<Frame> stack;
    auto visit = [&](uint32_t node, const std::string& where) -> Status {
        Status s = expect_type(d, node, json::Type::object, where);
        if (!s.ok()) return s;
        if (type_of(d, node) != "Sequence") {
            if (ops->size() >= limits.max_pre_tokenizers)
                return fail("normalizer has more than " +
                            std::to_string(limits.max_pre_tokenizers) + " steps");
            return parse_one_normalizer(d, node, where, limits, ops);
        }
        if (!(s = only_keys(d, node, where, {"type", "normalizers"})).ok()) return s;
        const uint32_t list = d.find(node, "normalizers");
        if (!(s = expect_type(d, list, json::Type::array, where + ".normalizers")).ok()) return s;
        if (d.node(list).len > limits.max_pre_tokenizers)
            return fail(where + ".normalizers has more than " +
                        std::to_string(limits.max_pre_tokenizers) + " steps");
        if (stack.size() >= limits.max_pre_tokenizers)
            return fail(where + ": Sequences nested more than " +
                        std::to_string(limits.max_pre_tokenizers) + " deep");
        stack.push_back({list, d.first(list), 0, where + ".normalizers"});
        return {};
    };
    Status s = visit(v, "normalizer");
    while (s.ok() && !stack.empty()) {
        Frame& f = stack.back();
        if (f.next == d.end(f.list)) {
            stack.pop_back();
            continue;
        }
        const uint32_t c = f.next;
        f.next = d.next(c);
        const std::string where = f.where + "[" + std::to_string(f.index++) + "]";
        s = visit(c, where); // may push: f is not used after this
    }
    return s;
}

// post_processor and decoder: ignored for encoding (hirope adds no special tokens), but they
// must be null or of a type the format defines.
Status check_known(const json::Document& d, uint32_t v, const char* field,
                   std::initializer_list<const char*> types) {
    if (v == json::Document::none || d.type(v) == json::Type::null) return {};
    Status s = expect_type(d, v, json::Type::object, field);
    if (!s.ok()) return s;
    const std::string type = type_of(d, v);
    for (const char* t : types)
        if (type == t) return {};
    return fail(std::string(field) + " type '" + type + "' is not supported");
}

} // namespace

Status load_tokenizer_json(std::string_view text, std::string name,
                           const TokenizerJsonLimits& limits, std::unique_ptr<Vocabulary>* out) {
    out->reset();
    json::Document d;
    json::Limits jl;
    jl.max_bytes = limits.max_json_bytes;
    jl.max_depth = limits.max_json_depth;
    jl.max_nodes = limits.max_json_values;
    Status s = d.parse(text, jl);
    if (!s.ok()) return s;
    const uint32_t root = json::Document::root;
    if (!(s = expect_type(d, root, json::Type::object, "the top level")).ok()) return s;
    if (!(s = only_keys(d, root, "the top level",
                        {"version", "truncation", "padding", "added_tokens", "normalizer",
                         "pre_tokenizer", "model", "post_processor", "decoder"}))
             .ok())
        return s;
    for (const char* field : {"truncation", "padding"}) {
        const uint32_t v = d.find(root, field);
        if (v != json::Document::none && d.type(v) != json::Type::null)
            return fail(std::string(field) + " is not supported (it must be null)");
    }
    auto bpe = std::make_unique<JsonBpe>();
    bpe->name_ = std::move(name);
    // The family: byte-level BPE when the pre-tokenizer has a ByteLevel step, else the
    // SentencePiece family (BPE over characters, byte fallback, Metaspace or Replace/Prepend).
    {
        const uint32_t pt = d.find(root, "pre_tokenizer");
        bool byte_level = false;
        if (pt != json::Document::none && d.type(pt) == json::Type::object) {
            if (type_of(d, pt) == "ByteLevel") byte_level = true;
            const uint32_t list = d.find(pt, "pretokenizers");
            if (type_of(d, pt) == "Sequence" && list != json::Document::none &&
                d.type(list) == json::Type::array)
                for (uint32_t c = d.first(list); c != d.end(list); c = d.next(c))
                    if (d.type(c) == json::Type::object && type_of(d, c) == "ByteLevel")
                        byte_level = true;
        }
        bpe->spm_ = !byte_level;
    }

    // model
    const uint32_t model = d.find(root, "model");
    if (!(s = expect_type(d, model, json::Type::object, "model")).ok()) return s;
    const std::string model_type = type_of(d, model);
    if (model_type != "BPE")
        return fail("model type '" + (model_type.empty() ? std::string("?") : model_type) +
                    "' is not supported (only BPE)");
    if (!(s = only_keys(d, model, "model",
                        {"type", "dropout", "unk_token", "continuing_subword_prefix",
                         "end_of_word_suffix", "fuse_unk", "byte_fallback", "ignore_merges",
                         "vocab", "merges"}))
             .ok())
        return s;
    {
        const uint32_t v = d.find(model, "dropout");
        if (v != json::Document::none && d.type(v) != json::Type::null &&
            !(d.type(v) == json::Type::number && d.number(v) == 0))
            return fail("model.dropout is not supported (it must be null)");
        for (const char* field : {"continuing_subword_prefix", "end_of_word_suffix"}) {
            const uint32_t f = d.find(model, field);
            if (f != json::Document::none && d.type(f) != json::Type::null &&
                !(d.type(f) == json::Type::string && d.node(f).len == 0))
                return fail(std::string("model.") + field +
                            " is not supported (it must be null or empty)");
        }
        bool byte_fallback, fuse_unk;
        if (!(s = get_bool(d, model, "byte_fallback", "model", false, &byte_fallback)).ok() ||
            !(s = get_bool(d, model, "fuse_unk", "model", false, &fuse_unk)).ok() ||
            !(s = get_bool(d, model, "ignore_merges", "model", false, &bpe->ignore_merges_)).ok())
            return s;
        if (byte_fallback && !bpe->spm_)
            return fail("model.byte_fallback true is not supported with a ByteLevel pre-tokenizer");
        bpe->byte_fallback_ = byte_fallback;
        bpe->fuse_unk_ = fuse_unk;
    }
    const uint32_t vocab = d.find(model, "vocab");
    if (!(s = expect_type(d, vocab, json::Type::object, "model.vocab")).ok()) return s;
    if (d.node(vocab).len > limits.max_vocab)
        return fail("model.vocab has " + std::to_string(d.node(vocab).len) +
                    " entries, more than the limit of " + std::to_string(limits.max_vocab));
    const uint32_t merges = d.find(model, "merges");
    if (!(s = expect_type(d, merges, json::Type::array, "model.merges")).ok()) return s;
    if (d.node(merges).len > limits.max_merges)
        return fail("model.merges has " + std::to_string(d.node(merges).len) +
                    " entries, more than the limit of " + std::to_string(limits.max_merges));
    const uint32_t added = d.find(root, "added_tokens");
    size_t added_count = 0;
    if (added != json::Document::none && d.type(added) != json::Type::null) {
        if (!(s = expect_type(d, added, json::Type::array, "added_tokens")).ok()) return s;
        added_count = d.node(added).len;
        if (added_count > limits.max_added_tokens)
            return fail("added_tokens has " + std::to_string(added_count) +
                        " entries, more than the limit of " +
                        std::to_string(limits.max_added_tokens));
    }

    // Ids: the model vocabulary and the added tokens share one id space.
    const ByteLevelTable blt;
    int32_t max_id = -1;
    for (uint32_t k = d.first(vocab); k != d.end(vocab); k = d.next(d.next(k))) {
        int32_t id;
        if (!d.index(d.next(k), &id))
            return fail("model.vocab['" + d.string(k) + "'] must be a non-negative integer id");
        if (static_cast<size_t>(id) >= limits.max_vocab)
            return fail("model.vocab['" + d.string(k) + "'] has the id " + std::to_string(id) +
                        ", above the limit of " + std::to_string(limits.max_vocab - 1));
        if (d.node(k).len > limits.max_token_bytes)
            return fail("model.vocab has an entry longer than " +
                        std::to_string(limits.max_token_bytes) + " bytes");
        max_id = std::max(max_id, id);
    }
    std::vector<std::string> contents(added_count);
    std::vector<int32_t> added_ids(added_count);
    {
        size_t k = 0;
        for (uint32_t t = added_count ? d.first(added) : 0; k < added_count; t = d.next(t), ++k) {
            const std::string where = "added_tokens[" + std::to_string(k) + "]";
            if (!(s = expect_type(d, t, json::Type::object, where)).ok()) return s;
            if (!(s = only_keys(d, t, where,
                                {"id", "content", "single_word", "lstrip", "rstrip", "normalized",
                                 "special"}))
                     .ok())
                return s;
            const uint32_t id = d.find(t, "id"), content = d.find(t, "content");
            if (id == json::Document::none || !d.index(id, &added_ids[k]))
                return fail(where + ".id must be a non-negative integer");
            if (static_cast<size_t>(added_ids[k]) >= limits.max_vocab)
                return fail(where + ".id is above the limit of " +
                            std::to_string(limits.max_vocab - 1));
            if (!(s = expect_type(d, content, json::Type::string, where + ".content")).ok())
                return s;
            contents[k] = d.string(content);
            if (contents[k].empty()) return fail(where + ".content is empty");
            if (contents[k].size() > limits.max_token_bytes)
                return fail(where + ".content is longer than " +
                            std::to_string(limits.max_token_bytes) + " bytes");
            max_id = std::max(max_id, added_ids[k]);
        }
    }
    if (max_id < 0) return fail("model.vocab is empty");

    // Token bytes by id: vocabulary entries decoded from the byte-level alphabet (entries
    // outside it, such as special tokens kept in the vocabulary, as their text: BPE never
    // produces them), added tokens as their content.
    std::vector<std::string> by_id(static_cast<size_t>(max_id) + 1);
    std::vector<char> has_id(by_id.size(), 0), decodable(by_id.size(), 0);
    std::string bytes;
    for (uint32_t k = d.first(vocab); k != d.end(vocab); k = d.next(d.next(k))) {
        int32_t id;
        d.index(d.next(k), &id);
        if (has_id[id])
            return fail("model.vocab gives the id " + std::to_string(id) + " to two entries");
        has_id[id] = 1;
        const std::string str = d.string(k);
        if (bpe->spm_) {
            by_id[id] = str;
            decodable[id] = 1;
        } else if (byte_level_decode(blt, str, &bytes)) {
            by_id[id] = bytes;
            decodable[id] = 1;
        } else {
            by_id[id] = str;
        }
    }
    {
        std::unordered_map<std::string, int32_t> seen;
        std::unordered_map<int32_t, size_t> seen_ids;
        for (size_t k = 0; k < added_count; ++k) {
            const int32_t id = added_ids[k];
            auto it = seen.find(contents[k]);
            if (it != seen.end() && it->second != id)
                return fail("added_tokens: '" + contents[k] + "' has two ids (" +
                            std::to_string(it->second) + " and " + std::to_string(id) + ")");
            auto jt = seen_ids.find(id);
            if (jt != seen_ids.end() && contents[jt->second] != contents[k])
                return fail("added_tokens: the id " + std::to_string(id) +
                            " is given to two contents");
            seen.emplace(contents[k], id);
            seen_ids.emplace(id, k);
            by_id[id] = contents[k];
            has_id[id] = 1;
            // An added token is matched as text, never produced by byte-level BPE; in the
            // SentencePiece family it is in the model's table, as the reference has it.
            decodable[id] = bpe->spm_ ? 1 : 0;
        }
    }
    bpe->offset_.reserve(by_id.size() + 1);
    bpe->offset_.push_back(0);
    size_t total = 0;
    for (const std::string& b : by_id) total += b.size();
    bpe->arena_.reserve(total);
    for (const std::string& b : by_id) {
        bpe->arena_.append(b);
        bpe->offset_.push_back(static_cast<uint32_t>(bpe->arena_.size()));
    }
    by_id.clear();
    by_id.shrink_to_fit();
    bpe->by_bytes_.bind(&bpe->arena_, &bpe->offset_);
    bpe->by_bytes_.reserve(bpe->offset_.size());
    for (size_t id = 0; id + 1 < bpe->offset_.size(); ++id)
        if (decodable[id]) bpe->by_bytes_.insert(static_cast<int32_t>(id), false);
    if (bpe->spm_) // the reference's tokens_to_ids: an added token's content maps to its id
        for (size_t k = 0; k < added_count; ++k) bpe->by_bytes_.insert(added_ids[k], true);
    for (int b = 0; b < 256 && bpe->spm_; ++b) {
        static const char hex[] = "0123456789ABCDEF";
        const char token[] = {'<', '0', 'x', hex[b >> 4], hex[b & 15], '>'};
        auto it = bpe->by_bytes_.find(std::string_view(token, sizeof token));
        bpe->byte_token_[b] = it == bpe->by_bytes_.end() ? -1 : it->second;
    }
    for (int b = 0; b < 256 && !bpe->spm_; ++b) {
        const char c = static_cast<char>(b);
        auto it = bpe->by_bytes_.find(std::string_view(&c, 1));
        if (it == bpe->by_bytes_.end())
            return fail("model.vocab lacks the byte-level token of byte " + std::to_string(b) +
                        " (this loader reads byte-level BPE only)");
        bpe->byte_id_[b] = it->second;
    }
    {
        const uint32_t unk = d.find(model, "unk_token");
        if (unk != json::Document::none && d.type(unk) != json::Type::null) {
            if (d.type(unk) != json::Type::string)
                return fail("model.unk_token must be a string or null");
            if (bpe->spm_) {
                auto it = bpe->by_bytes_.find(d.string(unk));
                if (it == bpe->by_bytes_.end())
                    return fail("model.unk_token '" + d.string(unk) + "' is not in the vocabulary");
                bpe->unk_id_ = it->second;
            }
            // Every byte has a token, so the unknown token is never used.
        }
    }

    // Merges: "a b" or ["a", "b"], ranked by position; both parts and the result must be
    // in the vocabulary (as the reference requires).
    bpe->merges_.reserve(d.node(merges).len);
    {
        int32_t rank = 0;
        std::string a, b, joined;
        for (uint32_t m = d.first(merges); m != d.end(merges); m = d.next(m), ++rank) {
            const std::string where = "model.merges[" + std::to_string(rank) + "]";
            std::string left, right;
            if (d.type(m) == json::Type::string) {
                const std::string line = d.string(m);
                const size_t sp = line.find(' ');
                if (sp == std::string::npos || line.find(' ', sp + 1) != std::string::npos)
                    return fail(where + " must be two tokens separated by one space");
                left = line.substr(0, sp);
                right = line.substr(sp + 1);
            } else if (d.type(m) == json::Type::array && d.node(m).len == 2 &&
                       d.type(d.first(m)) == json::Type::string &&
                       d.type(d.next(d.first(m))) == json::Type::string) {
                left = d.string(d.first(m));
                right = d.string(d.next(d.first(m)));
            } else {
                return fail(where + " must be a string or an array of two strings");
            }
            int32_t ids[3];
            const std::string* parts[2] = {&left, &right};
            for (int k = 0; k < 2; ++k) {
                if (bpe->spm_)
                    bytes = *parts[k];
                else if (!byte_level_decode(blt, *parts[k], &bytes))
                    return fail(where + ": '" + *parts[k] + "' is not in the vocabulary");
                auto it = bpe->by_bytes_.find(bytes);
                if (it == bpe->by_bytes_.end())
                    return fail(where + ": '" + *parts[k] + "' is not in the vocabulary");
                ids[k] = it->second;
                (k == 0 ? a : b) = bytes;
            }
            joined = a + b;
            auto it = bpe->by_bytes_.find(joined);
            if (it == bpe->by_bytes_.end())
                return fail(where + ": the merge result '" + left + right +
                            "' is not in the vocabulary");
            ids[2] = it->second;
            bpe->merges_.insert(ids[0], ids[1], rank, ids[2]);
        }
    }

    // normalizer, pre_tokenizer, post_processor, decoder
    if (!(s = parse_normalizer(d, d.find(root, "normalizer"), limits, &bpe->norm_ops_)).ok())
        return s;
    if (!bpe->spm_ && bpe->norm_ops_.size() == 1 && bpe->norm_ops_[0].kind == TextOp::nfc) {
        bpe->nfc_ = true; // NFC alone: its own path, no offset map (Qwen 2/3)
        bpe->norm_ops_.clear();
    }
    {
        // The encode heap bound grows with the most bytes the normalizer can make of one byte
        // (Replace and Prepend are within the base bound).
        double growth = 1;
        for (const TextOp& op : bpe->norm_ops_) {
            if (op.kind == TextOp::nfc || op.kind == TextOp::nfd)
                growth *= unicode::max_growth(unicode::Form::nfd);
            else if (op.kind == TextOp::nfkc || op.kind == TextOp::nfkd)
                growth *= unicode::max_growth(unicode::Form::nfkd);
            else if (op.kind == TextOp::lowercase)
                growth *= unicode::lower_max_growth();
        }
        bpe->heap_per_byte_ = static_cast<size_t>(
            std::ceil(static_cast<double>(kTokenizerJsonEncodeBytesPerByte) * growth));
    }
    {
        const uint32_t pt = d.find(root, "pre_tokenizer");
        const bool none = pt == json::Document::none || d.type(pt) == json::Type::null;
        if (!none && !(s = expect_type(d, pt, json::Type::object, "pre_tokenizer")).ok()) return s;
        if (none) {
            // SentencePiece family: the whole section is one piece.
        } else if (bpe->spm_ && type_of(d, pt) == "Metaspace") {
            if (!(s = only_keys(d, pt, "pre_tokenizer",
                                {"type", "replacement", "prepend_scheme", "split"}))
                     .ok())
                return s;
            const uint32_t r = d.find(pt, "replacement");
            bpe->ms_replacement_ = "\xE2\x96\x81"; // U+2581, the reference's default
            if (r != json::Document::none) {
                if (!(s = expect_type(d, r, json::Type::string, "pre_tokenizer.replacement")).ok())
                    return s;
                bpe->ms_replacement_ = d.string(r);
                size_t len = 0;
                if (bpe->ms_replacement_.empty() || (unicode::decode(bpe->ms_replacement_, 0, &len),
                                                     len) != bpe->ms_replacement_.size())
                    return fail("pre_tokenizer.replacement must be one character");
            }
            const uint32_t ps = d.find(pt, "prepend_scheme");
            if (ps != json::Document::none) {
                if (!(s = expect_type(d, ps, json::Type::string, "pre_tokenizer.prepend_scheme"))
                         .ok())
                    return s;
                const std::string v = d.string(ps);
                if (v == "never")
                    bpe->ms_prepend_ = 0;
                else if (v == "first")
                    bpe->ms_prepend_ = 1;
                else if (v == "always")
                    bpe->ms_prepend_ = 2;
                else
                    return fail("pre_tokenizer.prepend_scheme '" + v + "' is not supported");
            }
            if (!(s = get_bool(d, pt, "split", "pre_tokenizer", true, &bpe->ms_split_)).ok())
                return s;
            bpe->metaspace_ = true;
        } else if (type_of(d, pt) == "Sequence") {
            if (!(s = only_keys(d, pt, "pre_tokenizer", {"type", "pretokenizers"})).ok()) return s;
            const uint32_t list = d.find(pt, "pretokenizers");
            if (!(s = expect_type(d, list, json::Type::array, "pre_tokenizer.pretokenizers")).ok())
                return s;
            if (d.node(list).len > limits.max_pre_tokenizers)
                return fail("pre_tokenizer.pretokenizers has more than " +
                            std::to_string(limits.max_pre_tokenizers) + " steps");
            size_t k = 0;
            for (uint32_t c = d.first(list); c != d.end(list); c = d.next(c), ++k) {
                Step st;
                s = parse_step(d, c, "pre_tokenizer.pretokenizers[" + std::to_string(k) + "]",
                               limits, &st);
                if (!s.ok()) return s;
                bpe->steps_.push_back(std::move(st));
            }
        } else {
            Step st;
            if (!(s = parse_step(d, pt, "pre_tokenizer", limits, &st)).ok()) return s;
            bpe->steps_.push_back(std::move(st));
        }
        size_t byte_levels = 0;
        for (const Step& st : bpe->steps_) byte_levels += st.kind == Step::byte_level;
        if (!bpe->spm_ && (byte_levels != 1 || bpe->steps_.back().kind != Step::byte_level))
            return fail("pre_tokenizer must end with one ByteLevel step (and hold no other)");
    }
    if (!(s = check_known(d, d.find(root, "post_processor"), "post_processor",
                          {"ByteLevel", "TemplateProcessing", "RobertaProcessing", "BertProcessing",
                           "Sequence"}))
             .ok())
        return s;
    if (!(s = check_known(d, d.find(root, "decoder"), "decoder",
                          {"ByteLevel", "Sequence", "Replace", "Fuse", "Strip", "ByteFallback",
                           "Metaspace", "BPEDecoder", "WordPiece", "CTC"}))
             .ok())
        return s;

    // Added tokens: those with normalized false are matched before normalization, the others
    // after it (in their normalized form). Without a normalizer, one stage, as the reference.
    {
        size_t k = 0;
        for (uint32_t t = added_count ? d.first(added) : 0; k < added_count; t = d.next(t), ++k) {
            const std::string where = "added_tokens[" + std::to_string(k) + "]";
            bool special, single_word, normalized;
            AddedToken tok{added_ids[k], contents[k], false, false};
            if (!(s = get_bool(d, t, "special", where, false, &special)).ok() ||
                !(s = get_bool(d, t, "single_word", where, false, &single_word)).ok() ||
                !(s = get_bool(d, t, "lstrip", where, false, &tok.lstrip)).ok() ||
                !(s = get_bool(d, t, "rstrip", where, false, &tok.rstrip)).ok() ||
                !(s = get_bool(d, t, "normalized", where, !special, &normalized)).ok())
                return s;
            if (single_word) return fail(where + ".single_word true is not supported");
            const bool second_stage = normalized &&
                                      d.find(root, "normalizer") != json::Document::none &&
                                      d.type(d.find(root, "normalizer")) != json::Type::null;
            if (second_stage && bpe->nfc_) {
                std::string norm;
                std::vector<unicode::NfcChange> changes;
                if (unicode::nfc(tok.content, &norm, &changes)) tok.content = norm;
            }
            if (second_stage && !bpe->norm_ops_.empty()) {
                Mapped m, tmp;
                OpScratch sc;
                m.text = tok.content;
                m.from.assign(m.text.size(), 0);
                for (const TextOp& op : bpe->norm_ops_) apply_op(op, &m, &tmp, &sc);
                tok.content = m.text;
            }
            bpe->added_.push_back(tok);
            const int32_t index = static_cast<int32_t>(bpe->added_.size() - 1);
            (second_stage ? bpe->stage2_ : bpe->stage1_).insert(tok.content, index);
        }
    }
    if (bpe->spm_) {
        // Decoded token bytes: the replacement character (Metaspace's, or what a Replace
        // normalizer puts for a space) as a space, <0xNN> as the byte.
        std::string space_char = bpe->ms_replacement_;
        for (const TextOp& op : bpe->norm_ops_)
            if (op.kind == TextOp::replace && op.pattern == " ") space_char = op.content;
        std::vector<char> is_byte(bpe->size(), 0);
        for (int b = 0; b < 256; ++b)
            if (bpe->byte_token_[b] >= 0) is_byte[bpe->byte_token_[b]] = 1;
        bpe->dec_arena_.reserve(bpe->arena_.size());
        bpe->dec_offset_.reserve(bpe->offset_.size());
        bpe->dec_offset_.push_back(0);
        for (size_t id = 0; id < bpe->size(); ++id) {
            const std::string_view t(bpe->arena_.data() + bpe->offset_[id],
                                     bpe->offset_[id + 1] - bpe->offset_[id]);
            if (is_byte[id]) {
                static const std::string hex = "0123456789ABCDEF";
                bpe->dec_arena_.push_back(static_cast<char>(hex.find(t[3]) * 16 + hex.find(t[4])));
            } else if (!space_char.empty()) {
                for (size_t i = 0; i < t.size();) {
                    if (t.compare(i, space_char.size(), space_char) == 0) {
                        bpe->dec_arena_.push_back(' ');
                        i += space_char.size();
                    } else {
                        bpe->dec_arena_.push_back(t[i++]);
                    }
                }
            } else {
                bpe->dec_arena_.append(t);
            }
            bpe->dec_offset_.push_back(static_cast<uint32_t>(bpe->dec_arena_.size()));
        }
        bpe->small_char_id_.assign(JsonBpe::kSmallChars, JsonBpe::kUnknown);
        for (uint32_t cp = 0; cp < JsonBpe::kSmallChars; ++cp) {
            char buf[2];
            size_t n = 1;
            if (cp < 0x80) {
                buf[0] = static_cast<char>(cp);
            } else {
                buf[0] = static_cast<char>(0xC0 | (cp >> 6));
                buf[1] = static_cast<char>(0x80 | (cp & 0x3F));
                n = 2;
            }
            auto it = bpe->by_bytes_.find(std::string_view(buf, n));
            if (it != bpe->by_bytes_.end()) bpe->small_char_id_[cp] = it->second;
        }
    }
    *out = std::move(bpe);
    return {};
}

bool tokenizer_json_normalize(const Vocabulary& v, std::string_view text, std::string* out,
                              std::vector<uint32_t>* from) {
    const JsonBpe* bpe = dynamic_cast<const JsonBpe*>(&v);
    if (!bpe) return false;
    bpe->normalize(text, out, from);
    return true;
}

size_t tokenizer_json_encode_peak(const Vocabulary& v, std::string_view text,
                                  std::vector<Token>* out) {
    const JsonBpe* bpe = dynamic_cast<const JsonBpe*>(&v);
    if (!bpe) return 0;
    return bpe->encode_peak(text, out);
}

Status load_tokenizer_json(std::string_view json, std::string name,
                           std::unique_ptr<Vocabulary>* out) {
    return load_tokenizer_json(json, std::move(name), TokenizerJsonLimits(), out);
}

} // namespace hirope
