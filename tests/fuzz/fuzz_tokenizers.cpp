// libFuzzer: both vocabulary tokenizers on arbitrary bytes, with special tokens' markers as text
// and as their ids; cl100k must also tile its input (a special token's bytes are its marker).
#include "fuzz_common.h"

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
        }
    }
    return 0;
}
