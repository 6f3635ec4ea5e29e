// Vocabulary files and the BPE tokenizers: byte-level BPE ranked by id with the cl100k or o200k
// pre-tokenizer (as tiktoken and gpt-tokenizer), and LLaMA's character BPE with byte fallback
// and ranked merges (as Meta's SentencePiece model, reproduced by llama-tokenizer-js).
#include "hirope/tokenizers.h"
#include "tokenizers/bpe.h"
#include "tokenizers/pair_table.h"
#include "tokenizers/unicode.h"
#include "tokenizers/unicode_props.h"
#include "util/bytes.h"
#include "util/hash.h"

#include <algorithm>
#include <cstring>
#include <unordered_map>

namespace hirope {

namespace {

// Token strings stored in one arena; lookups by string_view. The index's keys are views into
// the arena, so it is rebuilt whenever the arena's bytes move: a token appended past the index
// (a special token, which BPE must never produce) can reallocate it, and so can a move (a short
// string's bytes live inside the object).
struct TokenTable {
    std::string arena;
    std::vector<uint32_t> offset; // size() + 1 entries

    TokenTable() = default;
    TokenTable(TokenTable&& o) noexcept { *this = std::move(o); }
    TokenTable& operator=(TokenTable&& o) noexcept {
        const char* before = o.arena.data();
        arena = std::move(o.arena);
        offset = std::move(o.offset);
        indexed_ = o.indexed_;
        by_bytes_ = std::move(o.by_bytes_);
        if (arena.data() != before) rebuild();
        return *this;
    }
    TokenTable(const TokenTable&) = delete;
    TokenTable& operator=(const TokenTable&) = delete;

    std::string_view at(int32_t id) const {
        if (id < 0 || static_cast<size_t>(id) + 1 >= offset.size()) return {};
        return std::string_view(arena.data() + offset[id], offset[id + 1] - offset[id]);
    }
    int32_t find(std::string_view s) const {
        auto it = by_bytes_.find(s);
        return it == by_bytes_.end() ? -1 : it->second;
    }
    // Indexes every token so far; later appends stay outside the index.
    void index() {
        indexed_ = offset.size() - 1;
        rebuild();
    }
    // Sets token `id` (ids between the last token and it have no bytes), outside the index.
    void append_unindexed(size_t id, std::string_view bytes) {
        const char* before = arena.data();
        offset.resize(id + 1, offset.back());
        arena.append(bytes.data(), bytes.size());
        offset.push_back(static_cast<uint32_t>(arena.size()));
        if (arena.data() != before) rebuild();
    }

  private:
    void rebuild() {
        by_bytes_.clear();
        by_bytes_.reserve(indexed_);
        for (size_t i = 0; i < indexed_; ++i) {
            std::string_view s = at(static_cast<int32_t>(i));
            if (!s.empty()) by_bytes_.emplace(s, static_cast<int32_t>(i)); // first id wins
        }
    }
    size_t indexed_ = 0;
    std::unordered_map<std::string_view, int32_t> by_bytes_;
};

// The special tokens a vocabulary file lists (cl100k's <|endoftext|>, llama2's <s>, ...): with
// EncodeOptions::special_tokens the input is split on their markers (leftmost, then longest), each
// marker becoming its id and each stretch between them encoded as text on its own, as Hugging Face
// splits on added tokens; without it (the default) the whole input is text.
class SpecialTokens {
  public:
    void add(std::string marker, int32_t id) {
        first_byte_[static_cast<unsigned char>(marker[0])] = true;
        longest_ = std::max(longest_, marker.size());
        tokens_.emplace_back(std::move(marker), id);
    }
    // The longest marker's bytes: how far past a position the search for markers reads.
    size_t longest() const { return longest_; }
    const std::vector<std::pair<std::string, int32_t>>& tokens() const { return tokens_; }

    // encode_text(section, start, out) appends the tokens of one stretch of text (starting at
    // byte `start` of text), offsets relative to it.
    template <class EncodeText>
    void encode(std::string_view text, const EncodeOptions& options, std::vector<Token>* out,
                EncodeText encode_text) const {
        if (!options.special_tokens || tokens_.empty()) {
            encode_text(text, size_t{0}, out);
            return;
        }
        const auto full = [&] { return out->size() > options.max_tokens; };
        auto section = [&](size_t start, size_t end) {
            const size_t first = out->size();
            encode_text(text.substr(start, end - start), start, out);
            for (size_t k = first; k < out->size(); ++k) {
                (*out)[k].start += static_cast<uint32_t>(start);
                (*out)[k].end += static_cast<uint32_t>(start);
            }
        };
        size_t start = 0;
        for (size_t i = 0; i < text.size();) {
            int32_t id = -1;
            size_t len = 0;
            if (first_byte_[static_cast<unsigned char>(text[i])])
                for (const auto& t : tokens_)
                    if (t.first.size() > len && text.compare(i, t.first.size(), t.first) == 0) {
                        id = t.second;
                        len = t.first.size();
                    }
            if (id < 0) {
                ++i;
                continue;
            }
            if (i > start) section(start, i);
            if (full()) return; // the section stopped early: the marker is not next
            out->push_back({id, static_cast<uint32_t>(i), static_cast<uint32_t>(i + len)});
            if (full()) return;
            i += len;
            start = i;
        }
        if (text.size() > start) section(start, text.size());
    }

  private:
    std::vector<std::pair<std::string, int32_t>> tokens_;
    bool first_byte_[256] = {};
    size_t longest_ = 0;
};

// The built-in formats: the input split on the special tokens (SpecialTokens), each stretch
// between them encoded on its own by ordinary().
class BuiltIn : public Vocabulary {
  public:
    using Vocabulary::encode;
    void encode(std::string_view text, std::vector<Token>* out,
                const EncodeOptions& options) const override {
        specials_.encode(text, options, out,
                         [this, &options](std::string_view section, size_t, std::vector<Token>* o) {
                             ordinary(section, o, options.max_tokens, nullptr);
                         });
    }

    bool encode_prefix(std::string_view prefix, std::vector<Token>* out,
                       const EncodeOptions& options) const override {
        // reach: one past the last byte of the prefix that the tokens depend on, prefix.size() + 1
        // where they depend on where the prefix ends. A section that a marker ends depends on no
        // byte past the marker, which lies whole in the prefix (it was found there).
        size_t reach = 0;
        specials_.encode(prefix, options, out,
                         [&](std::string_view section, size_t start, std::vector<Token>* o) {
                             size_t r = 0;
                             ordinary(section, o, options.max_tokens, &r);
                             if (start + section.size() < prefix.size())
                                 r = std::min(r, section.size());
                             reach = std::max(reach, start + r);
                         });
        // A marker that starts before `reach` and is cut by the prefix's end would be found in the
        // whole text and split it there: the search reads up to the longest marker's length on.
        if (options.special_tokens) reach += specials_.longest();
        return reach <= prefix.size();
    }
    bool encodes_prefixes() const override { return true; }

  protected:
    explicit BuiltIn(SpecialTokens specials) : specials_(std::move(specials)) {}
    // Appends the tokens of text; may stop once out holds more than max_tokens (EncodeOptions).
    // reach (when not null): raised to one past the last byte the tokens appended depend on,
    // text.size() + 1 where they depend on the text's ending there.
    virtual void ordinary(std::string_view text, std::vector<Token>* out, size_t max_tokens,
                          size_t* reach) const = 0;

    // The merge loop's buffers, reused by every piece of one encode() call.
    struct Scratch {
        std::vector<bpe::Symbol> symbols;
        std::vector<bpe::Candidate> heap;
    };

  private:
    SpecialTokens specials_;
};

// ---------------------------------------------------------------------------------------------
// cl100k

// Length in bytes of the pre-token starting at pos, following gpt-tokenizer's cl100k pattern:
//   '(?:[sS]|[dD]|[mM]|[tT]|[lL][lL]|[vV][eE]|[rR][eE])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}
//   | ?[^\s\p{L}\p{N}]+[\r\n]*|\s+$|\s*[\r\n]|\s+(?!\S)|\s
// Each alternative is tried in order, with the backtracking the regex engine would do.
template <bool kReach> size_t cl100k_piece(std::string_view s, size_t pos, size_t* reach) {
    using namespace unicode;
    const size_t n = s.size();
    // Every read goes through has() (is there a byte at i?) and at(), so that with kReach the
    // piece's reach is one past the last byte it read, or n + 1 when it found the text's end.
    auto has = [&](size_t i) {
        if (kReach) *reach = std::max(*reach, i + 1);
        return i < n;
    };
    auto at = [&](size_t i, size_t* len) {
        if (kReach) *reach = std::max(*reach, decode_reach(s, i));
        return decode(s, i, len);
    };
    size_t l0;
    const uint32_t c0 = at(pos, &l0);
    auto lower = [](uint32_t c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; };
    // 1. contractions
    if (c0 == '\'' && has(pos + 1)) {
        const uint32_t a = lower(static_cast<unsigned char>(s[pos + 1]));
        if (a == 's' || a == 'd' || a == 'm' || a == 't') return 2;
        if (has(pos + 2)) {
            const uint32_t b = lower(static_cast<unsigned char>(s[pos + 2]));
            if ((a == 'l' && b == 'l') || (a == 'v' && b == 'e') || (a == 'r' && b == 'e'))
                return 3;
        }
    }
    auto letters_from = [&](size_t i) {
        size_t len;
        while (has(i) && is_letter(at(i, &len))) i += len;
        return i;
    };
    // 2. [^\r\n\p{L}\p{N}]?\p{L}+
    if (is_letter(c0)) return letters_from(pos) - pos;
    if (c0 != '\r' && c0 != '\n' && !is_number(c0) && has(pos + l0)) {
        size_t l1;
        if (is_letter(at(pos + l0, &l1))) return letters_from(pos + l0) - pos;
    }
    // 3. \p{N}{1,3}
    if (is_number(c0)) {
        size_t i = pos + l0, len;
        for (int k = 1; k < 3 && has(i) && is_number(at(i, &len)); ++k) i += len;
        return i - pos;
    }
    // 4. ' '?[^\s\p{L}\p{N}]+[\r\n]*
    auto punct = [&](uint32_t c) { return !is_space(c) && !is_letter(c) && !is_number(c); };
    size_t p = pos;
    if (c0 == ' ' && has(pos + 1)) {
        size_t l1;
        if (punct(at(pos + 1, &l1))) p = pos + 1;
    }
    {
        size_t len;
        if (has(p) && punct(at(p, &len))) {
            size_t i = p;
            while (has(i) && punct(at(i, &len))) i += len;
            while (has(i) && (s[i] == '\r' || s[i] == '\n')) ++i;
            return i - pos;
        }
    }
    // Whitespace alternatives: the maximal whitespace run [pos, e).
    size_t e = pos, last_newline = std::string_view::npos, prev_start = pos;
    {
        size_t len;
        while (has(e)) {
            const uint32_t c = at(e, &len);
            if (!is_space(c)) break;
            if (c == '\r' || c == '\n') last_newline = e;
            prev_start = e;
            e += len;
        }
    }
    if (e > pos) {
        if (e == n) return n - pos;                                                // 5. \s+$
        if (last_newline != std::string_view::npos) return last_newline + 1 - pos; // 6.
        if (prev_start > pos) return prev_start - pos; // 7. \s+(?!\S): all but the last
        return l0;                                     // 8. \s
    }
    return l0; // not reachable for well-formed classes; one code point keeps progress
}

// ---------------------------------------------------------------------------------------------
// o200k

// o200k's character classes by general category (ASCII without the table lookup).
enum : uint8_t { kUpper = 1, kLower = 2, kLetter = 4, kNumber = 8, kSpace = 16 };
inline uint8_t o200k_class(uint32_t c) {
    using namespace unicode;
    if (c < 0x80) {
        if (c >= 'a' && c <= 'z') return kLower | kLetter;
        if (c >= 'A' && c <= 'Z') return kUpper | kLetter;
        if (c >= '0' && c <= '9') return kNumber;
        return c == ' ' || (c >= 9 && c <= 13) ? kSpace : 0;
    }
    uint8_t k = is_white_space(c) ? kSpace : 0;
    switch (general_category(c)) {
    case Lu:
    case Lt:
        return k | kUpper | kLetter;
    case Ll:
        return k | kLower | kLetter;
    case Lm:
    case Lo:
        return k | kUpper | kLower | kLetter;
    case Mn:
    case Mc:
    case Me:
        return k | kUpper | kLower; // \p{M}: in both letter classes, not \p{L}
    case Nd:
    case Nl:
    case No:
        return k | kNumber;
    default:
        return k;
    }
}

// Length in bytes of the pre-token starting at pos, following tiktoken's o200k pattern
//   [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//   |[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//   |\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+
// (upper = [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}], lower = [\p{Ll}\p{Lm}\p{Lo}\p{M}]; \s = White_Space as
// Rust's regex; the case-insensitive contractions fold ASCII only, as gpt-tokenizer spells them),
// each alternative tried in order with the backtracking the regex engine would do.
template <bool kReach> size_t o200k_piece(std::string_view s, size_t pos, size_t* reach) {
    const size_t n = s.size();
    // Reads go through has() and at(), as in cl100k_piece.
    auto has = [&](size_t i) {
        if (kReach) *reach = std::max(*reach, i + 1);
        return i < n;
    };
    auto at = [&](size_t i, size_t* len) {
        if (kReach) *reach = std::max(*reach, unicode::decode_reach(s, i));
        return unicode::decode(s, i, len);
    };
    auto cls = [&](size_t i, size_t* len) { return o200k_class(at(i, len)); };
    auto lower = [](unsigned char c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; };
    // (?i:'s|'t|'re|'ve|'m|'ll|'d)? at i: the end of the match.
    auto contraction = [&](size_t i) {
        if (!has(i + 1) || s[i] != '\'') return i;
        const unsigned char a = lower(static_cast<unsigned char>(s[i + 1]));
        if (a == 's' || a == 't') return i + 2;
        if (has(i + 2)) {
            const unsigned char b = lower(static_cast<unsigned char>(s[i + 2]));
            if ((a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l'))
                return i + 3;
        }
        if (a == 'm' || a == 'd') return i + 2;
        return i;
    };
    // upper* lower+ from i (alternative 1 without its prefix): the end, or npos.
    auto upper_lower = [&](size_t i) -> size_t {
        size_t len, j = i, last_both = std::string_view::npos;
        while (has(j)) {
            const uint8_t k = cls(j, &len);
            if (!(k & kUpper)) break;
            if (k & kLower) last_both = j + len;
            j += len;
        }
        // lower+ right after the upper run (greedy)
        size_t e = j;
        while (has(e)) {
            const uint8_t k = cls(e, &len);
            if (!(k & kLower)) break;
            e += len;
        }
        if (e > j) return e;
        // Backtracking: the last character of the upper run that is also lower ends the match
        // (the one after it is upper only, or the run's end, which is not lower).
        return last_both;
    };
    size_t l0;
    const uint8_t k0 = cls(pos, &l0);
    const uint32_t c0 = at(pos, &l0);
    const bool prefix = c0 != '\r' && c0 != '\n' && !(k0 & (kLetter | kNumber));
    // 1.
    if (prefix && has(pos + l0)) {
        const size_t e = upper_lower(pos + l0);
        if (e != std::string_view::npos) return contraction(e) - pos;
    }
    {
        const size_t e = upper_lower(pos);
        if (e != std::string_view::npos) return contraction(e) - pos;
    }
    // 2. prefix? upper+ lower*
    auto upper_plus = [&](size_t i) -> size_t {
        size_t len, j = i;
        while (has(j) && (cls(j, &len) & kUpper)) j += len;
        if (j == i) return std::string_view::npos;
        while (has(j) && (cls(j, &len) & kLower)) j += len;
        return j;
    };
    if (prefix && has(pos + l0)) {
        const size_t e = upper_plus(pos + l0);
        if (e != std::string_view::npos) return contraction(e) - pos;
    }
    {
        const size_t e = upper_plus(pos);
        if (e != std::string_view::npos) return contraction(e) - pos;
    }
    // 3. \p{N}{1,3}
    if (k0 & kNumber) {
        size_t i = pos + l0, len;
        for (int k = 1; k < 3 && has(i) && (cls(i, &len) & kNumber); ++k) i += len;
        return i - pos;
    }
    // 4. ' '?[^\s\p{L}\p{N}]+[\r\n/]*
    auto punct = [](uint8_t k) { return !(k & (kSpace | kLetter | kNumber)); };
    size_t p = pos;
    if (c0 == ' ' && has(pos + 1)) {
        size_t l1;
        if (punct(cls(pos + 1, &l1))) p = pos + 1;
    }
    {
        size_t len;
        if (has(p) && punct(cls(p, &len))) {
            size_t i = p;
            while (has(i) && punct(cls(i, &len))) i += len;
            while (has(i) && (s[i] == '\r' || s[i] == '\n' || s[i] == '/')) ++i;
            return i - pos;
        }
    }
    // Whitespace alternatives over the maximal whitespace run [pos, e).
    size_t e = pos, last_newline = std::string_view::npos, prev_start = pos;
    {
        size_t len;
        while (has(e)) {
            const uint32_t c = at(e, &len);
            if (!(o200k_class(c) & kSpace)) break;
            if (c == '\r' || c == '\n') last_newline = e;
            prev_start = e;
            e += len;
        }
    }
    if (e > pos) {
        if (last_newline != std::string_view::npos) return last_newline + 1 - pos; // 5.
        if (e == n) return n - pos;                    // 6. \s+(?!\S) at the end
        if (prev_start > pos) return prev_start - pos; // 6. all but the last
        return e - pos;                                // 7. \s+ (one character)
    }
    return l0; // not reachable: every character is in some class; one keeps progress
}

class Cl100k final : public BuiltIn {
  public:
    // The pre-tokenizer: the length of the piece at a position, and whether to track its reach.
    using Piece = size_t (*)(std::string_view, size_t, size_t*);
    Cl100k(TokenTable table, std::string name, Piece piece, Piece piece_reach,
           SpecialTokens specials)
        : BuiltIn(std::move(specials)), table_(std::move(table)), name_(std::move(name)),
          piece_(piece), piece_reach_(piece_reach) {
        for (int b = 0; b < 256; ++b) {
            const char c = static_cast<char>(b);
            byte_rank_[b] = table_.find(std::string_view(&c, 1)); // every byte has one (load)
        }
    }
    const std::string& name() const override { return name_; }
    size_t size() const override { return table_.offset.size() - 1; }
    std::string_view token_bytes(int32_t id) const override { return table_.at(id); }

  private:
    // tiktoken's encode_ordinary: the pre-tokenizer's pieces, each by ranked merges.
    void ordinary(std::string_view text, std::vector<Token>* out, size_t max_tokens,
                  size_t* reach) const override {
        Scratch scratch;
        size_t pos = 0;
        // A piece's tokens depend on the bytes its pre-tokenizer read (its reach), no others.
        const Piece piece = reach ? piece_reach_ : piece_;
        while (pos < text.size() && out->size() <= max_tokens) {
            const size_t len = piece(text, pos, reach);
            encode_piece(text.substr(pos, len), static_cast<uint32_t>(pos), &scratch, out);
            pos += len;
        }
    }

    int32_t rank(std::string_view s) const { return table_.find(s); }

    // tiktoken's byte_pair_merge: a pair ranks as the token of the bytes it spans (the id is the
    // rank), so every symbol is a token and the merged one is the token of the pair's bytes.
    void encode_piece(std::string_view piece, uint32_t base, Scratch* scratch,
                      std::vector<Token>* out) const {
        const int32_t whole = rank(piece);
        if (whole >= 0) {
            out->push_back({whole, base, base + static_cast<uint32_t>(piece.size())});
            return;
        }
        std::vector<bpe::Symbol>& symbols = scratch->symbols;
        const int32_t n = static_cast<int32_t>(piece.size());
        bpe::reserve_exact(&symbols, piece.size());
        for (int32_t i = 0; i < n; ++i)
            symbols.push_back({byte_rank_[static_cast<unsigned char>(piece[i])],
                               static_cast<uint32_t>(i), i - 1, i + 1});
        const uint32_t end = static_cast<uint32_t>(n);
        bpe::merge(&symbols, end, &scratch->heap,
                   [&](const bpe::Symbol& a, const bpe::Symbol&, uint32_t right_end,
                       int32_t* pair_rank, int32_t* result) {
                       *pair_rank = rank(piece.substr(a.start, right_end - a.start));
                       *result = *pair_rank;
                       return *pair_rank >= 0;
                   });
        for (int32_t i = 0; i < n; i = symbols[i].next)
            out->push_back(
                {symbols[i].id, base + symbols[i].start, base + bpe::symbol_end(symbols, i, end)});
    }

    TokenTable table_; // the ranks, then the special tokens (not in its index: never merged)
    std::string name_;
    Piece piece_, piece_reach_;
    int32_t byte_rank_[256];
};

// ---------------------------------------------------------------------------------------------
// llama2

class Llama final : public BuiltIn {
  public:
    Llama(TokenTable table, std::string name,
          std::unordered_map<uint64_t, std::pair<int32_t, int32_t>> merges, int32_t space_id,
          int32_t byte_base, SpecialTokens specials)
        : BuiltIn(std::move(specials)), table_(std::move(table)), name_(std::move(name)),
          space_id_(space_id), byte_base_(byte_base) {
        merges_.reserve(merges.size());
        for (const auto& m : merges)
            merges_.insert(static_cast<int32_t>(m.first >> 32),
                           static_cast<int32_t>(m.first & 0xFFFFFFFFu), m.second.first,
                           m.second.second);
        for (int c = 0; c < 128; ++c) {
            const char ch = static_cast<char>(c);
            ascii_[c] = c == ' ' ? space_id_ : table_.find(std::string_view(&ch, 1));
        }
        // Each token's bytes: byte-fallback tokens their byte, U+2581 a space, the control
        // tokens before the byte tokens (<unk>, <s>, </s>) none.
        decoded_.offset.push_back(0);
        for (size_t id = 0; id + 1 < table_.offset.size(); ++id) {
            const int32_t i = static_cast<int32_t>(id);
            if (i >= byte_base_ && i < byte_base_ + 256) {
                decoded_.arena.push_back(static_cast<char>(i - byte_base_));
            } else if (i >= byte_base_) {
                const std::string_view piece = table_.at(i);
                for (size_t k = 0; k < piece.size(); ++k) {
                    if (piece.compare(k, 3, "\xE2\x96\x81") == 0) {
                        decoded_.arena.push_back(' ');
                        k += 2;
                    } else {
                        decoded_.arena.push_back(piece[k]);
                    }
                }
            }
            decoded_.offset.push_back(static_cast<uint32_t>(decoded_.arena.size()));
        }
        for (const auto& m : merges) {
            const int32_t a = static_cast<int32_t>(m.first >> 32);
            const int32_t b = static_cast<int32_t>(m.first & 0xffffffffu);
            if ((a >= byte_base_ && a < byte_base_ + 256) ||
                (b >= byte_base_ && b < byte_base_ + 256))
                split_at_bytes_ = false;
        }
    }
    const std::string& name() const override { return name_; }
    size_t size() const override { return table_.offset.size() - 1; }
    std::string_view token_bytes(int32_t id) const override { return decoded_.at(id); }
    bool prefix_space() const override { return true; }

  private:
    // Meta's LLaMA tokenizer: a dummy prefix space, spaces as U+2581, one symbol per character
    // (byte-fallback tokens <0xXX> for characters outside the vocabulary), then merges by rank,
    // leftmost first. No merge involves a byte token (checked at load), so the runs between
    // byte tokens (newlines, mostly) merge independently: small heaps, same result. With special
    // tokens each stretch between markers gets its own dummy prefix, as the Hugging Face export
    // of this vocabulary (a Prepend normalizer, run per section) does.
    // One run at a time, merged as soon as a byte token ends it, so that a limit on the tokens
    // (EncodeOptions::max_tokens) stops the scan there too.
    void ordinary(std::string_view text, std::vector<Token>* out, size_t max_tokens,
                  size_t* reach) const override {
        // Runs merge on their own: tokens that stop at a byte token that splits depend on no byte
        // after it (its character read whole), the last run's merges on where the text ends.
        if (reach) *reach = std::max(*reach, text.size() + 1);
        if (text.empty()) return;
        std::vector<Sym> syms; // the run since the last byte token that splits
        syms.push_back({space_id_, 0, 0, false});
        Scratch scratch;
        size_t pos = 0;
        while (pos < text.size()) {
            const unsigned char c = static_cast<unsigned char>(text[pos]);
            size_t len = 1;
            int32_t id;
            if (c < 0x80) {
                id = ascii_[c];
            } else {
                unicode::decode(text, pos, &len);
                id = table_.find(text.substr(pos, len));
            }
            if (id >= 0) {
                syms.push_back(
                    {id, static_cast<uint32_t>(pos), static_cast<uint32_t>(pos + len), false});
            } else {
                for (size_t b = pos; b < pos + len; ++b) {
                    const Sym byte{byte_base_ + static_cast<unsigned char>(text[b]),
                                   static_cast<uint32_t>(b), static_cast<uint32_t>(b + 1), true};
                    if (!split_at_bytes_) {
                        syms.push_back(byte);
                        continue;
                    }
                    merge_run(syms, 0, syms.size(), &scratch, out);
                    out->push_back({byte.id, byte.start, byte.end});
                    syms.clear();
                }
                if (out->size() > max_tokens) {
                    if (reach) *reach = unicode::decode_reach(text, pos);
                    return;
                }
            }
            pos += len;
        }
        merge_run(syms, 0, syms.size(), &scratch, out);
    }

    struct Sym {
        int32_t id;
        uint32_t start, end;
        bool byte; // a byte-fallback token
    };

    // Merges syms[begin, end) by rank, leftmost first, and appends the result.
    void merge_run(const std::vector<Sym>& syms, size_t begin, size_t end, Scratch* scratch,
                   std::vector<Token>* out) const {
        if (begin >= end) return;
        const int32_t count = static_cast<int32_t>(end - begin);
        std::vector<bpe::Symbol>& symbols = scratch->symbols;
        bpe::reserve_exact(&symbols, end - begin);
        for (int32_t k = 0; k < count; ++k)
            symbols.push_back({syms[begin + k].id, syms[begin + k].start, k - 1, k + 1});
        const uint32_t run_end = syms[end - 1].end; // symbols are contiguous
        bpe::merge(&symbols, run_end, &scratch->heap, bpe::MergeList{merges_});
        for (int32_t i = 0; i < count; i = symbols[i].next)
            out->push_back({symbols[i].id, symbols[i].start, bpe::symbol_end(symbols, i, run_end)});
    }

    TokenTable table_;
    std::string name_;
    detail::PairTable merges_;
    int32_t space_id_;
    int32_t byte_base_;
    TokenTable decoded_; // token_bytes: the pieces as the text they stand for
    bool split_at_bytes_ = true;
    int32_t ascii_[128];
};

} // namespace

std::string tokenizer_json_hash(std::string_view json) {
    return util::fnv1a_pair_hex(json);
}

Status load_vocabulary(const uint8_t* data, size_t size, std::unique_ptr<Vocabulary>* out) {
    const Status truncated = Status::error("tokenizer data is truncated or corrupted");
    if (!data || size < 24) return truncated;
    if (std::memcmp(data, "HRTK", 4) != 0)
        return Status::error("tokenizer data has the wrong format (no HRTK header)");
    const uint32_t stored = util::load_u32le(data + size - 4);
#ifndef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION // let the fuzzer past the checksum
    if (util::fnv1a(data, size - 4) != stored)
        return Status::error("tokenizer data is corrupted (checksum mismatch)");
#else
    (void)stored;
#endif
    util::ByteReader r(data + 4, size - 8);
    uint32_t version, kind, name_len, count;
    std::string_view name;
    if (!r.u32(&version)) return truncated;
    if (version != 1 && version != 2)
        return Status::error("tokenizer data version " + std::to_string(version) +
                             " is not supported (this build reads versions 1 and 2)");
    if (!r.u32(&kind) || !r.u32(&name_len) || name_len > 64 || !r.bytes(name_len, &name) ||
        !r.u32(&count))
        return truncated;
    if (kind != 1 && kind != 2 && kind != 3)
        return Status::error("tokenizer data kind " + std::to_string(kind) + " is not supported");
    if (count == 0 || count > (1u << 22) || count > r.remaining() / 2) return truncated;
    TokenTable table;
    table.offset.reserve(count + 1);
    table.offset.push_back(0);
    for (uint32_t i = 0; i < count; ++i) {
        uint16_t len;
        std::string_view bytes;
        if (!r.u16(&len) || !r.bytes(len, &bytes)) return truncated;
        table.arena.append(bytes.data(), bytes.size());
        table.offset.push_back(static_cast<uint32_t>(table.arena.size()));
    }
    table.index();
    // Version 2 ends with the special tokens: u32 count, then per token u32 id, u16 length and
    // its marker. An id inside the table must be the token of that text (llama2's <s>); one past
    // it (tiktoken's <|endoftext|>) extends the table, outside its index, so that BPE never
    // produces it.
    auto read_specials = [&](SpecialTokens* specials) -> Status {
        if (version < 2) return {};
        uint32_t special_count;
        if (!r.u32(&special_count) || special_count > 1024 || special_count > r.remaining() / 6)
            return truncated;
        for (uint32_t i = 0; i < special_count; ++i) {
            uint32_t id;
            uint16_t len;
            std::string_view marker;
            if (!r.u32(&id) || !r.u16(&len) || !r.bytes(len, &marker)) return truncated;
            const size_t table_size = table.offset.size() - 1;
            if (len == 0 || id >= (1u << 22))
                return Status::error("tokenizer data has a bad special token");
            if (id < table_size) {
                if (table.at(static_cast<int32_t>(id)) != marker)
                    return Status::error("tokenizer data has a special token whose id is "
                                         "another token");
            } else {
                table.append_unindexed(id, marker);
            }
            specials->add(std::string(marker), static_cast<int32_t>(id));
        }
        return {};
    };
    SpecialTokens specials;
    if (kind == 1 || kind == 3) {
        const Status st = read_specials(&specials);
        if (!st.ok()) return st;
        if (r.remaining() != 0) return truncated;
        for (int b = 0; b < 256; ++b) {
            const char c = static_cast<char>(b);
            if (table.find(std::string_view(&c, 1)) < 0)
                return Status::error("tokenizer data lacks a token for byte " + std::to_string(b));
        }
        out->reset(new Cl100k(std::move(table), std::string(name),
                              kind == 1 ? cl100k_piece<false> : o200k_piece<false>,
                              kind == 1 ? cl100k_piece<true> : o200k_piece<true>,
                              std::move(specials)));
        return {};
    }
    uint32_t merge_count;
    if (!r.u32(&merge_count) || merge_count > r.remaining() / 8) return truncated;
    std::unordered_map<uint64_t, std::pair<int32_t, int32_t>> merges;
    merges.reserve(merge_count);
    std::string joined;
    for (uint32_t i = 0; i < merge_count; ++i) {
        uint32_t a, b;
        if (!r.u32(&a) || !r.u32(&b)) return truncated;
        if (a >= count || b >= count)
            return Status::error("tokenizer data has a merge of unknown ids");
        joined.assign(table.at(static_cast<int32_t>(a)));
        joined.append(table.at(static_cast<int32_t>(b)));
        const int32_t result = table.find(joined);
        if (result < 0) return Status::error("tokenizer data has a merge with no result token");
        const uint64_t k = (static_cast<uint64_t>(a) << 32) | b;
        merges.emplace(k, std::make_pair(static_cast<int32_t>(i), result));
    }
    {
        const Status st = read_specials(&specials);
        if (!st.ok()) return st;
    }
    if (r.remaining() != 0) return truncated;
    const int32_t space = table.find("\xE2\x96\x81"); // U+2581
    const int32_t byte_base = table.find("<0x00>");
    if (space < 0 || byte_base < 0) return Status::error("tokenizer data lacks U+2581 or <0x00>");
    for (int b = 0; b < 256; ++b) {
        char hex[8];
        std::snprintf(hex, sizeof hex, "<0x%02X>", b);
        if (table.find(hex) != byte_base + b)
            return Status::error("tokenizer data has byte-fallback tokens out of order");
    }
    out->reset(new Llama(std::move(table), std::string(name), std::move(merges), space, byte_base,
                         std::move(specials)));
    return {};
}

} // namespace hirope
