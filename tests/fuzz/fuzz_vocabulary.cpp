// libFuzzer: the vocabulary file parser on arbitrary bytes (a file must either load or fail).
#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::unique_ptr<hirope::Vocabulary> v;
    if (hirope::load_vocabulary(data, size, &v).ok()) {
        std::vector<hirope::Token> tokens;
        v->encode("def f(x): return x\n", &tokens);
    }
    return 0;
}
