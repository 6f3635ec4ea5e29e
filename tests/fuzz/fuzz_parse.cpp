// libFuzzer: the parse under a time budget, in every language. The first byte picks the language
// (byte % 9) and the budget (100 ms, 1 ms or 1 µs; the last two stop most parses at once, in the
// lexer or the parser); the rest is the code. A parse either finishes or stops with the budget's
// message, and stops soon after its deadline: libFuzzer's -timeout catches a parse that hangs,
// and a stop far past the deadline is a failure here.
#include "fuzz_common.h"

#include <chrono>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0) return 0;
    const std::vector<std::string>& langs = hirope::languages();
    const std::string& language = langs[data[0] % langs.size()];
    const double budgets[] = {100, 1, 0.001};
    const double budget = budgets[(data[0] / langs.size()) % 3];
    const std::string_view code(reinterpret_cast<const char*>(data + 1), size - 1);
    bool has_error = false;
    const auto t0 = std::chrono::steady_clock::now();
    const hirope::Status st = hirope::parse_only(code, language, &has_error, budget);
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (!st.ok()) {
        // Only the budget may stop a parse, and with its message.
        if (st.message().rfind("parsing stopped after ", 0) != 0 ||
            st.message().find("raise timeout_ms") == std::string::npos)
            std::abort();
        // Generous for sanitizers on a loaded machine: the parse stops within 100 parse
        // operations or one 64 KiB input chunk of its deadline.
        if (ms > budget + 5000) std::abort();
    }
    return 0;
}
