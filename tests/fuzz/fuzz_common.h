// Shared pieces of the libFuzzer targets: vocabulary loading and the invariants every
// tokenization must keep, whatever the input bytes.
#pragma once

#include "hirope/analysis.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace fuzz {

inline const hirope::Vocabulary* vocabulary(const char* name) {
    static std::unique_ptr<hirope::Vocabulary> cl100k, llama2; // loaded once per process
    std::unique_ptr<hirope::Vocabulary>& v = std::string(name) == "cl100k" ? cl100k : llama2;
    if (!v) {
        const char* dir = std::getenv("HIROPE_DATA_DIR");
        std::ifstream f(std::string(dir ? dir : "build/data") + "/" + name + ".bin",
                        std::ios::binary);
        std::stringstream ss;
        ss << f.rdbuf();
        const std::string s = ss.str();
        if (!hirope::load_vocabulary(reinterpret_cast<const uint8_t*>(s.data()), s.size(), &v).ok())
            std::abort(); // the fuzzer needs its data: run from the repository root after a build
    }
    return v.get();
}

// Tokens are in order, inside the text, and non-empty (except LLaMA's dummy prefix).
inline void check_tokens(const std::vector<hirope::Token>& tokens, size_t size) {
    uint32_t last = 0;
    for (const hirope::Token& t : tokens) {
        if (t.start < last || t.end < t.start || t.end > size) std::abort();
        last = t.end;
    }
}

} // namespace fuzz
