// The pre-tokenizer steps of a tokenizer.json (pre_tokenizers.h).
#include "tokenizers/pre_tokenizers.h"

#include "tokenizers/unicode.h"
#include "tokenizers/unicode_props.h"

#include <algorithm>

namespace hirope {
namespace tokenizer_json {

namespace {

// The matches of a Split step in piece, as (span, is_match) covering it.
void find_matches(const Step& st, std::string_view text, Span piece, regex::Scratch* re,
                  std::vector<Split>* splits) {
    splits->clear();
    const std::string_view s = text.substr(piece.start, piece.end - piece.start);
    size_t prev = 0, from = 0;
    for (;;) {
        size_t ms, me;
        bool found;
        if (st.kind == Step::split_regex) {
            found = st.re.find(s, from, &ms, &me, re);
        } else {
            ms = s.find(st.literal, from);
            found = ms != std::string_view::npos;
            me = found ? ms + st.literal.size() : 0;
        }
        if (!found) break;
        if (ms > prev)
            splits->push_back({{piece.start + static_cast<uint32_t>(prev),
                                piece.start + static_cast<uint32_t>(ms)},
                               false});
        splits->push_back(
            {{piece.start + static_cast<uint32_t>(ms), piece.start + static_cast<uint32_t>(me)},
             true});
        prev = me;
        from = me; // patterns never match empty (checked when compiled)
        if (from >= s.size()) break;
    }
    if (prev < s.size())
        splits->push_back({{piece.start + static_cast<uint32_t>(prev), piece.end}, false});
}

// The digit splits of a Digits step: each code point of category N is a match.
void digit_matches(std::string_view text, Span piece, std::vector<Split>* splits) {
    splits->clear();
    for (uint32_t i = piece.start; i < piece.end;) {
        size_t len;
        const uint32_t cp = unicode::decode(text, i, &len);
        const auto gc = unicode::general_category(cp);
        const bool numeric = gc == unicode::Nd || gc == unicode::Nl || gc == unicode::No;
        const uint32_t e = i + static_cast<uint32_t>(len);
        if (!numeric && !splits->empty() && !splits->back().second)
            splits->back().first.end = e;
        else
            splits->push_back({{i, e}, numeric});
        i = e;
    }
}

// Applies a behavior (Rust tokenizers' SplitDelimiterBehavior) to splits, appending the
// non-empty pieces to out.
void apply_behavior(Behavior b, bool invert, std::vector<Split>* splits, std::vector<Span>* out) {
    auto& m = *splits;
    if (invert)
        for (auto& x : m) x.second = !x.second;
    std::vector<Split> acc;
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
        if (x.first.end > x.first.start) out->push_back(x.first);
}

} // namespace

void split_piece(const Step& st, std::string_view text, Span piece, regex::Scratch* re,
                 std::vector<Split>* splits, std::vector<Span>* out) {
    if (st.kind == Step::digits) {
        digit_matches(text, piece, splits);
        // Digits: Isolated for individual digits, else Contiguous (as Rust).
        apply_behavior(st.individual_digits ? Behavior::isolated : Behavior::contiguous, false,
                       splits, out);
        return;
    }
    find_matches(st, text, piece, re, splits);
    apply_behavior(st.behavior, st.invert, splits, out);
}

} // namespace tokenizer_json
} // namespace hirope
