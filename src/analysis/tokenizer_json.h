// The tokenizer.json loader's limits (hirope::load_tokenizer_json in hirope/analysis.h uses the
// defaults; tests pass smaller ones).
#pragma once

#include "hirope/analysis.h"

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

} // namespace hirope
