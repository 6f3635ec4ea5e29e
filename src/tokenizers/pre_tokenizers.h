// The pre-tokenizer steps of a tokenizer.json (Split on a regex or a string with its behavior,
// Digits, and ByteLevel's GPT-2 split) as Rust `tokenizers` applies them to a section's pieces.
#pragma once

#include "tokenizers/pretokenize_regex.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hirope {
namespace tokenizer_json {

struct Span {
    uint32_t start, end;
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

// A piece and whether it is a match of the step, as a step finds them.
using Split = std::pair<Span, bool>;

// One Split or Digits step on one piece of text: its matches (splits, scratch), the step's
// behavior applied (Rust tokenizers' SplitDelimiterBehavior; Digits: Isolated for individual
// digits, else Contiguous), and the non-empty pieces appended to out.
void split_piece(const Step& st, std::string_view text, Span piece, regex::Scratch* re,
                 std::vector<Split>* splits, std::vector<Span>* out);

// ByteLevel's split of text[p] (a prefix space if asked, GPT-2's pattern if asked): calls
// emit(ctx, span, prefix) for each piece in order, prefix when a space comes before it.
void byte_level_split(const Step& st, std::string_view text, Span p, regex::Scratch* re,
                      void (*emit)(void* ctx, Span span, bool prefix), void* ctx);

} // namespace tokenizer_json
} // namespace hirope
