// The normalizer steps of a tokenizer.json (Unicode forms, Lowercase, StripAccents, Strip,
// Replace, Prepend) as @huggingface/tokenizers applies them, each byte of the result mapped to the
// input offset it came from.
#pragma once

#include "tokenizers/pretokenize_regex.h"
#include "tokenizers/unicode_props.h"

#include <cstdint>
#include <string>
#include <vector>

namespace hirope {
namespace tokenizer_json {

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

// Applies one step to m (tmp is scratch); offsets: a byte the step keeps keeps its input offset;
// what replaces a stretch (a Replace match, a changed normalization segment or lowercase code
// point of another length) maps its first byte to the stretch's start and the others to its end,
// as NFC alone does (a Replace content: all to the match's start).
void apply_op(const TextOp& op, Mapped* m, Mapped* tmp, OpScratch* sc);

} // namespace tokenizer_json
} // namespace hirope
