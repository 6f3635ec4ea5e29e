// hirope tokenizers: the hirope_tokenizers library (src/tokenizers/), which links only hirope_util.
//
// Vocabularies loaded from hirope's compact binary files: `cl100k` and `o200k` (GPT-4 family,
// byte-level BPE with their pre-tokenizers) and `llama2` (LLaMA-1/2 / CodeLlama SentencePiece BPE
// with byte fallback); and from a Hugging Face tokenizer.json. Offsets are bytes of the UTF-8
// input. Errors are returned as Status. analysis.h includes this header.
#pragma once

#include "hirope/status.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace hirope {

// Heap per byte of input, reserved before the work starts (docs/architecture.md "Memory").
struct TokenizerLimits {
    // What tokenizing alone (hr.encode) takes per byte.
    static constexpr size_t encode_bytes_per_byte = 48;
    // What loading a tokenizer.json takes per byte of the file at its peak (the parse tape, the
    // vocabulary and its tables while the file is still held). In WebAssembly the real files
    // measure 4.9 (DeepSeek-V3) to 10.3 (Gemma 3).
    static constexpr size_t tokenizer_json_load_bytes_per_byte = 12;
};

struct Token {
    int32_t id = 0;
    uint32_t start = 0; // byte offsets into the input
    uint32_t end = 0;
};

// What encode() makes of a special token's marker in the input ("<|endoftext|>", "<|eot_id|>",
// "<|im_end|>", "<eos>", llama2's "<s>"): one rule for every tokenizer (docs/tokenizer-json.md
// "Special tokens").
struct EncodeOptions {
    // false (the default): text is text. A special token's marker is encoded as ordinary text, as
    // tiktoken's encode_ordinary and Hugging Face's encode_special_tokens / split_special_tokens,
    // so that code which mentions a marker never gets a control token in the middle.
    // true: a marker is its special token's id, as Hugging Face tokenizers and tiktoken's
    // encode(allowed_special="all") encode. The special tokens: a tokenizer.json's added tokens
    // with "special": true; cl100k's and o200k's tiktoken special tokens; llama2's <unk>, <s>
    // and </s>. A tokenizer.json's added tokens that are not special are matched either way, as
    // Hugging Face does (they are part of the vocabulary's text, e.g. Qwen 3's <think>).
    bool special_tokens = false;
    // encode() may stop once its output holds more than max_tokens tokens (counting any it held
    // before): the tokens it holds are then the text's first ones, so a count above max_tokens
    // means the whole text's is too (isWithinTokenLimit stops there instead of tokenizing all).
    size_t max_tokens = SIZE_MAX;
};

class Vocabulary {
  public:
    virtual ~Vocabulary() = default;
    virtual const std::string& name() const = 0;
    virtual size_t size() const = 0;
    // Appends the tokens of text to out; offsets are relative to text.
    virtual void encode(std::string_view text, std::vector<Token>* out,
                        const EncodeOptions& options) const = 0;
    // encode() of `prefix`, the first bytes of a longer text whose rest it has not seen (it may
    // stop once past options.max_tokens as encode() does). Returns true when the tokens it
    // appended are the longer text's first ones whatever follows the prefix (every byte they
    // depend on lies in it), so that a count above max_tokens holds for the whole text:
    // isWithinTokenLimit reads a long text's prefix only. False when they may depend on what
    // follows; that is all a vocabulary without its own rule can say.
    virtual bool encode_prefix(std::string_view prefix, std::vector<Token>* out,
                               const EncodeOptions& options) const {
        encode(prefix, out, options);
        return false;
    }
    // True when encode_prefix() has a rule of its own (the built-in vocabularies), so that a
    // longer prefix may tell what a shorter one could not.
    virtual bool encodes_prefixes() const { return false; }
    // encode() with the default options: text is text.
    void encode(std::string_view text, std::vector<Token>* out) const {
        encode(text, out, EncodeOptions());
    }
    // The bytes of one token id: the text it stands for (a special token's marker for the
    // tokenizer.json ones and cl100k's/o200k's; empty for an unknown id or a control token
    // such as llama2's <s>).
    virtual std::string_view token_bytes(int32_t id) const = 0;
    // True when encode() puts a space before the text (SentencePiece's dummy prefix: llama2's
    // first token "▁def" stands for " def"); decoding a whole sequence drops that space.
    virtual bool prefix_space() const { return false; }
    // The heap encode() takes per byte of input at most (working buffers and the output tokens),
    // reserved before it runs: TokenizerLimits::encode_bytes_per_byte for the built-in formats;
    // tokenizer.json vocabularies state their own, larger bound.
    virtual size_t encode_heap_per_byte() const { return TokenizerLimits::encode_bytes_per_byte; }
};

// Parses a vocabulary file (tools/gen-tokenizer-data.mjs writes them). Every length and index is
// checked and a trailing FNV-1a hash must match, so a truncated or corrupted file is an error.
// Version 2 files list their special tokens (EncodeOptions); version 1 files have none.
Status load_vocabulary(const uint8_t* data, size_t size, std::unique_ptr<Vocabulary>* out);

// Parses a Hugging Face tokenizer.json (byte-level BPE: model.type "BPE" with a ByteLevel
// pre-tokenizer, optionally inside a Sequence with Split(Regex) pre-tokenizers, ranked merges,
// added/special tokens; or the SentencePiece-style BPE of Gemma 3 and Llama 2 exports: merges
// over characters, byte fallback to <0xNN> tokens, Metaspace or Prepend/Replace normalizers).
// Anything the format can say that this loader does not support is an error naming the component
// (e.g. "tokenizer.json: normalizer type 'NFKC' is not supported"), never tokenized differently.
// Size limits are checked before allocating. The tokenizer adds no special tokens (no
// post-processor), matches added tokens in the input (the special ones only with
// EncodeOptions::special_tokens), and gives each token the byte offsets of its
// input: with an NFC normalizer, a token inside a stretch that NFC changed reports that stretch's
// end (docs/tokenizer-json.md).
Status load_tokenizer_json(std::string_view json, std::string name,
                           std::unique_ptr<Vocabulary>* out);

// The 16 hex digits that name a user's tokenizer.json in both APIs ("json-" + these): a hash of
// its bytes, so that the same file always gets the same name.
std::string tokenizer_json_hash(std::string_view json);

} // namespace hirope
