// The tokenizer that a Hugging Face tokenizer.json describes, byte-level BPE family (GPT-2,
// Llama 3, Qwen 2/3, DeepSeek V3 ...) and SentencePiece-style BPE (Gemma 3, Llama 2 exports):
// JsonBpe and its added tokens; the normalizer steps (TextOp) are normalizers.h, the pre-tokenizer
// steps (Step) pre_tokenizers.h and the merge loop bpe.h. The
// pipeline is the reference's (Rust `tokenizers`, reproduced by @huggingface/tokenizers): split
// the input on added tokens that are matched before normalization (leftmost, longest), normalize
// the rest (the normalizer steps: Unicode forms, Lowercase, StripAccents, Strip, Replace, Prepend;
// or nothing), split that on the normalized added tokens, pre-tokenize each remaining section
// (Split / Digits steps, then ByteLevel), and run ranked BPE merges on the bytes of each piece.
// tokenizer_json.cpp reads the file, checks every field and fills a JsonBpe in.
#pragma once

#include "tokenizers/bpe.h"
#include "tokenizers/normalizers.h"
#include "tokenizers/pair_table.h"
#include "tokenizers/pre_tokenizers.h"
#include "tokenizers/pretokenize_regex.h"
#include "tokenizers/tokenizer_json.h"
#include "tokenizers/unicode_props.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace hirope {
namespace tokenizer_json {

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
    bool special; // "special": true; matched only with EncodeOptions::special_tokens
};

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

    using Vocabulary::encode;
    void encode(std::string_view text, std::vector<Token>* out,
                const EncodeOptions& options) const override;

    // The normalizer applied to text (one section), with each output byte's input offset.
    void normalize(std::string_view text, std::string* out, std::vector<uint32_t>* from) const;

    size_t encode_peak(std::string_view text, std::vector<Token>* out) const;

  private:
    void encode_with(std::string_view text, const EncodeOptions& options, std::vector<Token>* out,
                     Work* work) const;

  private:
    friend Status hirope::load_tokenizer_json(std::string_view, std::string,
                                              const TokenizerJsonLimits&,
                                              std::unique_ptr<Vocabulary>*);
    struct Section {
        uint32_t start, end;
        int32_t token; // index into added_, or -1 for text
    };
    struct Work {
        regex::Scratch re;
        std::vector<Span> pieces, next;
        std::vector<Split> splits;
        std::vector<bpe::Symbol> nodes;
        std::vector<bpe::Candidate> heap;
        const Mapped* mapped = nullptr; // SentencePiece family: the text pieces are spans of
        Mapped norm, piece, tmp;
        OpScratch ops;
        std::vector<Section> sections, subs;
        size_t peak = 0; // the most bytes these buffers and the output held at once
        // EncodeOptions::max_tokens where stopping early is exact (the byte-level pipeline; the
        // SentencePiece one fuses unknown tokens after a section, which can lower the count).
        size_t max_tokens = SIZE_MAX;
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
    void encode_spm(std::string_view text, const EncodeOptions& options, std::vector<Token>* out,
                    Work* work) const;

    int32_t char_id(std::string_view c, uint32_t cp) const;

    // BPE over the characters of m.text[p], ranked, leftmost first among equal ranks; a
    // character outside the vocabulary becomes its byte tokens (byte_fallback) or the unknown
    // token, as @huggingface/tokenizers does it after the merges.
    void spm_bpe(const Mapped& m, Span p, Work* w, std::vector<Token>* out) const;

    // Splits text[start, end) on the added tokens of one stage; lstrip/rstrip remove the white
    // space next to a token from the neighbouring text sections. Without special_tokens a
    // special token's match stays text, as the reference's encode_special_tokens: the matches
    // are found among all added tokens (leftmost, longest) and the special ones skipped.
    void split_added(std::string_view text, const AddedTrie& trie, uint32_t base,
                     bool special_tokens, std::vector<Section>* out) const;
    static uint32_t trim_end(std::string_view text, uint32_t base, uint32_t start, uint32_t end);
    static uint32_t trim_start(std::string_view text, uint32_t base, uint32_t start, uint32_t end);

    void encode_section(std::string_view text, uint32_t start, uint32_t end, Work* w,
                        std::vector<Token>* out) const;

    // ByteLevel: a prefix space if asked (a zero-width token start), GPT-2's split if asked,
    // then BPE on the bytes.
    void byte_level(const Step& st, std::string_view text, Span p, Work* w,
                    std::vector<Token>* out) const;

    // Ranked BPE on the bytes of text[p] (preceded by a space when prefix), leftmost first
    // among equal ranks.
    void bpe(std::string_view text, Span p, bool prefix, Work* w, std::vector<Token>* out) const;

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
    static constexpr int32_t kUnknown = -2; // a character outside the vocabulary (bpe::kDead: -1)
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

} // namespace tokenizer_json
} // namespace hirope
