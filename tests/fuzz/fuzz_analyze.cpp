// libFuzzer: analyze() in every language with every tokenizer. The first byte picks the language
// and tokenizer; the rest is the code. The parse has a 1 s budget: an input on which
// tree-sitter's error recovery is slow stops with the budget's message (fuzz_parse checks the
// budget itself).
#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0) return 0;
    const std::vector<std::string>& langs = hirope::languages();
    hirope::AnalyzeOptions o;
    o.language = langs[data[0] % langs.size()];
    const int tk = (data[0] / langs.size()) % 3;
    o.vocabulary = tk == 0 ? nullptr : fuzz::vocabulary(tk == 1 ? "cl100k" : "llama2");
    o.gap = static_cast<hirope::GapPolicy>((data[0] >> 5) % 3);
    o.descend_classes = (data[0] & 0x80) != 0;
    const std::string_view code(reinterpret_cast<const char*>(data + 1), size - 1);
    o.timeout_ms = 1000.0;
    hirope::Analysis a;
    const hirope::Status st = hirope::analyze(code, o, &a);
    if (!st.ok()) {
        if (st.message().rfind("parsing stopped after ", 0) == 0) return 0;
        std::abort();
    }
    fuzz::check_tokens(a.tokens, code.size());
    if (a.units.empty() || a.units.front().start != 0 || a.units.back().end != code.size())
        std::abort();
    for (size_t i = 0; i < a.tokens.size(); ++i) {
        const hirope::Unit& u = a.units.at(static_cast<size_t>(a.unit[i]));
        if (a.tokens[i].start < u.start || (a.tokens[i].start >= u.end && u.end > u.start))
            std::abort();
    }
    // Each unit's token range is exactly its run of tokens; together they cover every token.
    size_t covered = 0;
    for (size_t k = 0; k < a.units.size(); ++k) {
        const hirope::Unit& u = a.units[k];
        if (u.token_end < u.token_start || u.token_end > a.tokens.size()) std::abort();
        if (u.token_end > u.token_start && u.statement_end <= u.statement_start) std::abort();
        for (uint32_t t = u.token_start; t < u.token_end; ++t)
            if (a.unit[t] != static_cast<int32_t>(k)) std::abort();
        covered += u.token_end - u.token_start;
    }
    if (covered != a.tokens.size()) std::abort();
    return 0;
}
