// The tokenizer.json loader's limits (hirope::load_tokenizer_json in hirope/tokenizers.h uses the
// defaults; tests pass smaller ones).
#pragma once

#include "hirope/tokenizers.h"

namespace hirope {

struct TokenizerJsonLimits {
    size_t max_json_bytes = size_t{128} << 20; // Qwen3's file is 11 MB
    size_t max_json_depth = 64;
    size_t max_json_values = size_t{1} << 23; // 16 bytes each; Llama 3's file has ~0.55 million
    size_t max_vocab = size_t{1} << 21;       // entries of model.vocab, and the largest id + 1
    size_t max_merges = size_t{1} << 21;      // entries of model.merges
    size_t max_added_tokens = size_t{1} << 16;
    size_t max_token_bytes = 4096;   // one vocabulary entry or added token
    size_t max_pre_tokenizers = 16;  // steps of a Sequence
    size_t max_pattern_bytes = 4096; // one Split regex
};

Status load_tokenizer_json(std::string_view json, std::string name,
                           const TokenizerJsonLimits& limits, std::unique_ptr<Vocabulary>* out);

// The heap an encode() of a tokenizer.json vocabulary takes per byte of input (its working
// buffers and the output tokens; docs/tokenizer-json.md "Memory"). A bound of its own, above
// TokenizerLimits::encode_bytes_per_byte (48, the built-in tokenizers'), returned by the
// vocabulary's encode_heap_per_byte(): the bindings reserve this much before encoding with such a
// vocabulary. The BPE part is fixed by construction (16 bytes per symbol, 12 of candidate heap, the
// normalized text and its offset map at most 15 per byte, 12 per output token); the Split regex's
// memo and stack are measured (the "encode stays within its heap bound" test, adversarial
// megabytes, the real files). A normalizer that can lengthen the text (NFD, NFKC, NFKD,
// Lowercase, NFC beside other steps) multiplies it by the most UTF-8 bytes its steps make of one
// byte (NFKC: 11, so 880), which is what such a vocabulary's encode_heap_per_byte() returns.
constexpr size_t kTokenizerJsonEncodeBytesPerByte = 80;

// Encodes text with a vocabulary from load_tokenizer_json and returns the most bytes its
// working buffers and the output held at once (0 for another kind of vocabulary). For tests.
size_t tokenizer_json_encode_peak(const Vocabulary& v, std::string_view text,
                                  std::vector<Token>* out);

// Applies the normalizer of a vocabulary from load_tokenizer_json to text (as one section) and,
// when from is given, the input offset of each output byte (and one more: the text's end), as
// encode maps token offsets. False for another kind of vocabulary. For tests.
bool tokenizer_json_normalize(const Vocabulary& v, std::string_view text, std::string* out,
                              std::vector<uint32_t>* from = nullptr);

} // namespace hirope
