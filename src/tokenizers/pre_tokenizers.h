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
// emit(span, prefix) for each piece in order, prefix when a space comes before it. A template:
// its caller, the byte-level BPE, is the encoder's inner loop.
template <class Emit>
void byte_level_split(const Step& st, std::string_view text, Span p, regex::Scratch* re,
                      const Emit& emit) {
    const bool prefix = st.add_prefix_space && text[p.start] != ' ';
    if (!st.use_regex) {
        emit(p, prefix);
        return;
    }
    if (prefix) {
        // The regex sees " " + piece: split a copy and map offsets back.
        std::string s = " ";
        s.append(text.substr(p.start, p.end - p.start));
        size_t from = 0, ms, me;
        while (from < s.size() && st.re.find(s, from, &ms, &me, re)) {
            // Gaps cannot occur: the GPT-2 pattern matches every code point.
            const bool has_prefix = ms == 0;
            const uint32_t a = p.start + static_cast<uint32_t>(has_prefix ? 0 : ms - 1);
            const uint32_t b = p.start + static_cast<uint32_t>(me - 1);
            emit(Span{a, b}, has_prefix);
            from = me;
        }
        return;
    }
    const std::string_view s = text.substr(p.start, p.end - p.start);
    size_t from = 0, ms, me;
    while (from < s.size() && st.re.find(s, from, &ms, &me, re)) {
        emit(Span{p.start + static_cast<uint32_t>(ms), p.start + static_cast<uint32_t>(me)}, false);
        from = me;
    }
}

} // namespace tokenizer_json
} // namespace hirope
