// The parse time budget (AnalyzeOptions::timeout_ms, parse_only's timeout_ms): inputs on which
// tree-sitter's error recovery is quadratic stop at the budget with an error naming timeout_ms,
// 0 means no limit, the default lets real code through, and nothing is kept between calls.
#include "hirope/analysis.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <cmath>
#include <limits>
#include <string>

using namespace hirope;

namespace {

std::string repeat(const std::string& unit, size_t times) {
    std::string s;
    s.reserve(unit.size() * times);
    for (size_t i = 0; i < times; ++i) s += unit;
    return s;
}

bool contains(const std::string& s, const std::string& part) {
    return s.find(part) != std::string::npos;
}

double ms_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// The budget the tests set, tight; the behaviour checked is the stop and its error. kOuterLimitMs
// is no speed check (bench/worst-cases.mjs measures how soon a parse stops): it only tells a parse
// that stopped from one that ran on, which on these inputs takes 20 s or more (200 times the
// budget, for a loaded two-core machine and sanitizer builds).
constexpr double kBudgetMs = 50;
constexpr double kOuterLimitMs = 10000;

} // namespace

TEST_CASE("A pathological input stops at the budget with an error naming timeout_ms",
          "[analysis][budget]") {
    // 60,000 `"` as JavaScript: about 20 s without a limit.
    const std::string quotes = repeat("\"", 60000);
    AnalyzeOptions o;
    o.language = "javascript";
    o.timeout_ms = kBudgetMs;
    Analysis a;
    auto t0 = std::chrono::steady_clock::now();
    Status st = analyze(quotes, o, &a);
    double ms = ms_since(t0);
    INFO(st.message());
    REQUIRE_FALSE(st.ok());
    CHECK(ms < kOuterLimitMs);
    CHECK(contains(st.message(), "parsing stopped after 50 ms at byte "));
    CHECK(contains(st.message(), " of 60000: the input is pathological for the tree-sitter "
                                 "javascript grammar (its error recovery is slow on it); raise "
                                 "timeout_ms to wait longer (0: no limit)"));

    bool has_error = false;
    t0 = std::chrono::steady_clock::now();
    st = parse_only(quotes, "javascript", &has_error, kBudgetMs);
    ms = ms_since(t0);
    REQUIRE_FALSE(st.ok());
    CHECK(ms < kOuterLimitMs);
    CHECK(contains(st.message(), "pathological for the tree-sitter javascript grammar"));
}

TEST_CASE("One lexing operation cannot run far past the budget", "[analysis][budget]") {
    // Rust's scanner looks for the end of a raw string from every `r#"`, reading the rest of the
    // input each time: 15 MB of them read megabytes per parse operation (seconds between the
    // parser's own progress checks). The input reads as ended once the deadline has passed.
    const std::string raw = repeat("r#\"", 5000000);
    bool has_error = false;
    const auto t0 = std::chrono::steady_clock::now();
    Status st = parse_only(raw, "rust", &has_error, kBudgetMs);
    const double ms = ms_since(t0);
    INFO(st.message());
    REQUIRE_FALSE(st.ok());
    CHECK(ms < kOuterLimitMs);
    CHECK(contains(st.message(), "pathological for the tree-sitter rust grammar"));
}

TEST_CASE("Without a limit the same kind of input parses", "[analysis][budget]") {
    // Small enough to take well under a second without a limit.
    const std::string quotes = repeat("\"", 3000);
    AnalyzeOptions o;
    o.language = "javascript";
    o.timeout_ms = 0.0;
    Analysis a;
    Status st = analyze(quotes, o, &a);
    INFO(st.message());
    REQUIRE(st.ok());
    CHECK(a.tokens.size() == 3000);
    CHECK_FALSE(a.errors.empty());
    o.timeout_ms = std::numeric_limits<double>::infinity(); // also no limit
    REQUIRE(analyze(quotes, o, &a).ok());
    o.timeout_ms = 1e12; // beyond 10^9 ms: no limit
    REQUIRE(analyze(quotes, o, &a).ok());
    bool has_error = false;
    REQUIRE(parse_only(quotes, "javascript", &has_error, 0.0).ok());
    CHECK(has_error);
}

TEST_CASE("Real code parses under the default budget", "[analysis][budget]") {
    CHECK(default_timeout_ms(0) == 10000);
    CHECK(default_timeout_ms(1000000) == 11000);
    CHECK(std::abs(default_timeout_ms(AnalysisLimits::max_bytes) -
                   (10000 + AnalysisLimits::max_bytes / 1000.0)) < 1e-6);

    const std::string python = "import os\n\n\nclass C:\n    def f(self, x):\n        return x\n";
    const std::string js = "const a = 1, f = () => a;\nclass K { m() { return f(); } }\n";
    const std::string rust = "fn main() { let s = r#\"raw \"string\"#; println!(\"{}\", s); }\n";
    AnalyzeOptions o; // timeout_ms unset: default_timeout_ms(code.size())
    Analysis a;
    o.language = "python";
    REQUIRE(analyze(repeat(python, 20000), o, &a).ok()); // 1.3 MB
    CHECK(a.units.size() == 2 * 20000);
    o.language = "javascript";
    REQUIRE(analyze(js, o, &a).ok());
    REQUIRE(a.units.size() == 2);
    CHECK(a.units[0].kind == "function"); // a binding of an arrow function among others
    CHECK(a.units[0].name == "f");
    o.language = "rust";
    REQUIRE(analyze(rust, o, &a).ok());
    CHECK(a.errors.empty());
    bool has_error = true;
    REQUIRE(parse_only(rust, "rust", &has_error).ok()); // the old signature: default budget
    CHECK_FALSE(has_error);
}

TEST_CASE("The budget is per call", "[analysis][budget]") {
    const std::string slow = repeat("\"", 60000);
    const std::string quick = repeat("\"", 2000);
    AnalyzeOptions o;
    o.language = "javascript";
    Analysis a;
    for (int round = 0; round < 2; ++round) { // a stopped parse leaves nothing behind
        o.timeout_ms = kBudgetMs;
        const auto t0 = std::chrono::steady_clock::now();
        REQUIRE_FALSE(analyze(slow, o, &a).ok());
        CHECK(ms_since(t0) < kOuterLimitMs);
        o.timeout_ms = 0.0; // no limit: a slow build may take long on it, and must not fail
        Status st = analyze(quick, o, &a);
        INFO(st.message());
        REQUIRE(st.ok());
        CHECK(a.tokens.size() == 2000);
    }
    // Calls that together take longer than one budget each get their own: none fails, however
    // many it takes to pass one and a half budgets (at least two). The budget is ten times one
    // call as timed here (at least 400 ms): a sanitizer build or a loaded machine changes how many
    // calls that is, not the outcome.
    o.timeout_ms = 0.0;
    const auto c0 = std::chrono::steady_clock::now();
    REQUIRE(analyze(quick, o, &a).ok());
    const double budget = std::max(400.0, 10.0 * ms_since(c0));
    o.timeout_ms = budget;
    const auto t0 = std::chrono::steady_clock::now();
    int calls = 0;
    while (calls < 2 || ms_since(t0) < 1.5 * budget) {
        Status st = analyze(quick, o, &a);
        INFO(st.message() << " after " << calls << " calls");
        REQUIRE(st.ok());
        ++calls;
    }
}

TEST_CASE("A budget must be a number of milliseconds >= 0", "[analysis][budget][errors]") {
    AnalyzeOptions o;
    o.language = "python";
    Analysis a;
    o.timeout_ms = -1.0;
    Status st = analyze("x = 1\n", o, &a);
    CHECK(st.message() == "timeout_ms must be a number of milliseconds >= 0 (0: no limit), got -1");
    o.timeout_ms = std::nan("");
    CHECK(contains(analyze("x = 1\n", o, &a).message(), "timeout_ms must be a number"));
    bool has_error = false;
    CHECK(contains(parse_only("x = 1\n", "python", &has_error, -0.5).message(),
                   "timeout_ms must be a number of milliseconds >= 0 (0: no limit), got -0.5"));
    // Real code under a budget too small for its size: stopped, with the same advice.
    o.timeout_ms = 20.0;
    st = analyze(repeat("def f(x):\n    return x * 2\n\n", 300000), o, &a); // 8 MB
    INFO(st.message());
    REQUIRE_FALSE(st.ok());
    CHECK(contains(st.message(), "parsing stopped after 20 ms at byte "));
    CHECK(contains(st.message(), "raise timeout_ms to wait longer (0: no limit)"));
}

TEST_CASE("A budget may run out at any moment of a parse", "[analysis][budget]") {
    // Budgets from 1 µs to 5 ms run out in the parser, in the lexer, and between a chunk's last
    // bytes and the next read. Inputs ending in a cut UTF-8 character make the lexer re-read
    // inside its chunk (tree-sitter dereferenced a null chunk there when told the input ended).
    std::string js;
    for (int i = 0; i < 20; ++i) js += "const x = [1, 2, 3].map((v) => v * 2);\n";
    const std::vector<std::pair<std::string, std::string>> inputs = {
        {"javascript", js + "\xe2\x82"},
        {"rust", repeat("r#\"", 200) + "\xf0\x9f"},
        {"python", repeat("def f(x):\n    return 'é'\n", 20) + "\xc3"},
    };
    int calls = 0, stopped = 0;
    for (const auto& [language, code] : inputs) {
        for (double budget = 0.001; budget < 5; budget *= 1.05) {
            bool has_error = false;
            Status st = parse_only(code, language, &has_error, budget);
            ++calls;
            if (st.ok()) continue;
            ++stopped;
            INFO(st.message());
            REQUIRE(contains(st.message(), "parsing stopped after "));
        }
    }
    CHECK(stopped > 0);
    CHECK(stopped < calls);
}

TEST_CASE("A character cut by the 64 KiB chunk boundary is read whole", "[analysis][budget]") {
    // The input reaches tree-sitter in 64 KiB chunks: "é" (2 bytes) and "🙂" (4) straddle the
    // first boundary.
    for (const std::string ch : {"\xc3\xa9", "\xf0\x9f\x99\x82"}) {
        const std::string code = "x = '" + std::string(65536 - 5 - 1, 'a') + ch + "'\n";
        AnalyzeOptions o;
        o.language = "python";
        Analysis a;
        REQUIRE(analyze(code, o, &a).ok());
        CHECK(a.errors.empty());
        bool found = false;
        for (const Token& t : a.tokens)
            if (t.start < 65536 && t.end > 65536) found = true;
        CHECK(found);
    }
}
