// libFuzzer: both vocabulary tokenizers on arbitrary bytes, with special tokens' markers as text
// and as their ids; cl100k must also tile its input (a special token's bytes are its marker).
// Vocabulary::encode_prefix on every prefix the input's first byte picks: where it says final,
// its tokens are the whole input's first ones.
#include "fuzz_common.h"

namespace {

bool same(const hirope::Token& a, const hirope::Token& b) {
    return a.id == b.id && a.start == b.start && a.end == b.end;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    for (const char* name : {"cl100k", "llama2"}) {
        const hirope::Vocabulary* v = fuzz::vocabulary(name);
        for (const bool special : {false, true}) {
            hirope::EncodeOptions options;
            options.special_tokens = special;
            std::vector<hirope::Token> tokens;
            v->encode(text, &tokens, options);
            fuzz::check_tokens(tokens, size);
            if (name[0] == 'c') {
                std::string joined;
                for (const hirope::Token& t : tokens) joined += v->token_bytes(t.id);
                if (joined != text) std::abort();
            }
            if (size == 0) continue;
            const size_t cut = data[0] % (size + 1);
            for (const size_t limit : {size_t{0}, size_t{2}, SIZE_MAX}) {
                hirope::EncodeOptions limited = options;
                limited.max_tokens = limit;
                std::vector<hirope::Token> some;
                if (!v->encode_prefix(text.substr(0, cut), &some, limited)) continue;
                if (some.size() > tokens.size()) std::abort();
                for (size_t k = 0; k < some.size(); ++k)
                    if (!same(some[k], tokens[k])) std::abort();
            }
        }
    }
    return 0;
}
