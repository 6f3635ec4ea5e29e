// The regular expressions of Hugging Face pre-tokenizers (Split with {"Regex": ...}).
//
// A small backtracking engine, chosen over hand-written matchers for known patterns so that
// the Split patterns of any byte-level BPE tokenizer.json (Llama 3, Qwen, DeepSeek, GPT-2 ...)
// run as written, with the semantics of the reference: leftmost-first alternation and greedy or
// lazy quantifiers, as Oniguruma and fancy-regex (Rust tokenizers) and JavaScript RegExp with the
// `u` flag (@huggingface/tokenizers) all define them. Matching is by code point over UTF-8 (a
// byte that is not UTF-8 reads as U+FFFD). The engine is iterative (an explicit stack) and
// memoizes the (instruction, position) pairs it has failed from, so a match costs at most
// O(program size x input length) steps whatever the pattern: no exponential backtracking.
//
// Supported syntax (the subset tokenizer.json files use; anything else is refused at compile
// time with an error naming it): literals and escaped punctuation; \r \n \t \f \v \a \e \0
// \xHH \x{H...} \uHHHH; classes [...] and [^...] with ranges and the escapes below (no nesting,
// no &&); . (anything but \n); \s \S (White_Space), \d \D (\p{Nd}), \p{..} \P{..} with a
// general category (L, Lu, Ll, Lt, Lm, Lo, LC, M, Mn, Mc, Me, N, Nd, Nl, No, P, Pc, Pd, Ps, Pe,
// Pi, Pf, Po, S, Sm, Sc, Sk, So, Z, Zs, Zl, Zp, C, Cc, Cf, Cs, Co, Cn, or the long names such
// as Letter) or White_Space; groups (...) (?:...) (?i:...) (ASCII case folding, as
// @huggingface/tokenizers rewrites it; Oniguruma also folds U+017F and U+212A); lookahead (?=...)
// (?!...) (not nested); ^ $ (line anchors, as Oniguruma), \A \z; quantifiers ? * + {n} {n,}
// {n,m} {,m}, greedy or lazy (a trailing ?). Refused: lookbehind, backreferences, atomic groups,
// possessive quantifiers, \b \B \w \W \G \Z, scripts and other properties, nested classes,
// quantified assertions, a loop whose body can match the empty string, and a pattern that can
// match the empty string.
#pragma once

#include "hirope/status.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace hirope {
namespace regex {

struct CharClass {
    uint64_t ascii[2] = {0, 0}; // code points below 128
    uint32_t categories = 0;    // bit k: general category k; bit 31: White_Space
    std::vector<std::pair<uint32_t, uint32_t>> ranges; // sorted, for code points >= 128
    bool negated = false;
    bool matches(uint32_t cp) const;
};

struct Inst {
    enum Op : uint8_t {
        kClass,
        kSplit,
        kJump,
        kMatch,
        kLineStart,
        kLineEnd,
        kTextStart,
        kTextEnd,
        kLook
    };
    Op op;
    bool flag = false; // kLook: negative
    uint32_t x = 0;    // kClass: class index; kSplit: first choice; kJump, kLook: target
    uint32_t y = 0;    // kSplit: second choice
};

// Reusable buffers of find() (one per thread of use).
struct Scratch {
    std::vector<uint64_t> seen, look_seen;
    std::vector<std::pair<uint32_t, uint32_t>> stack, look_stack;
};

class Regex {
  public:
    // Compiles pattern; errors name the unsupported construct and its position.
    static Status compile(std::string_view pattern, Regex* out);
    // The leftmost match starting at or after `from`: true with [*start, *end), or false.
    bool find(std::string_view text, size_t from, size_t* start, size_t* end,
              Scratch* scratch) const;
    size_t program_size() const { return prog_.size(); }

  private:
    bool run(uint32_t pc0, std::string_view text, size_t start, size_t base, size_t* end,
             std::vector<uint64_t>* seen, std::vector<std::pair<uint32_t, uint32_t>>* stack,
             Scratch* scratch, size_t* touched) const;

    std::vector<Inst> prog_;
    std::vector<CharClass> classes_;
    uint32_t main_size_ = 0; // instructions of the main program (lookahead bodies follow)
    friend class Compiler;
};

} // namespace regex
} // namespace hirope
