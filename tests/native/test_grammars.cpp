// Grammars as objects: the built-in ones, one made from a tree-sitter language (as the WebAssembly
// module makes each grammar it loads), and analyze() given a grammar. The side modules themselves
// are checked in tests/js/grammars.test.mjs.
#include "hirope/analysis.h"

#include <catch2/catch.hpp>

extern "C" const TSLanguage* tree_sitter_python(void); // linked in (the test binaries' grammars)

using namespace hirope;

namespace {

Analysis analyzed(const std::string& code, const AnalyzeOptions& o) {
    Analysis a;
    const Status st = analyze(code, o, &a);
    INFO(st.message());
    REQUIRE(st.ok());
    return a;
}

} // namespace

TEST_CASE("Every language has a built-in grammar here, and only they", "[analysis][grammars]") {
    for (const std::string& language : languages()) {
        const Grammar* g = built_in_grammar(language);
        REQUIRE(g != nullptr);
        CHECK(grammar_language(*g) == language);
        CHECK(built_in_grammar(language) == g); // made once
    }
    CHECK(built_in_grammar("cobol") == nullptr);
    CHECK(built_in_grammar("") == nullptr);
}

TEST_CASE("A grammar made from a tree-sitter language analyses as the built-in one",
          "[analysis][grammars]") {
    const std::string code =
        "def f(x):\n    return x\n\nclass A:\n    def g(self):\n        pass\n";
    AnalyzeOptions built_in;
    built_in.language = "python";
    const Analysis expected = analyzed(code, built_in);

    GrammarPtr made;
    REQUIRE(make_grammar("python", tree_sitter_python(), &made).ok());
    CHECK(std::string(grammar_language(*made)) == "python");

    AnalyzeOptions given;
    given.grammar = made.get(); // language may be left empty
    const Analysis a = analyzed(code, given);
    CHECK(a.language == "python");
    CHECK(a.unit == expected.unit);
    CHECK(a.statement == expected.statement);
    REQUIRE(a.tokens.size() == expected.tokens.size());
    for (size_t t = 0; t < a.tokens.size(); ++t)
        CHECK(a.tokens[t].start == expected.tokens[t].start);

    bool has_error = true;
    REQUIRE(parse_only(code, "", &has_error, std::nullopt, {}, made.get()).ok());
    CHECK_FALSE(has_error);
}

TEST_CASE("Grammars that cannot be made, or do not fit the language, are errors",
          "[analysis][grammars][errors]") {
    GrammarPtr g;
    Status st = make_grammar("cobol", tree_sitter_python(), &g);
    CHECK(st.message() == "language 'cobol' is not supported");
    CHECK(g == nullptr);
    st = make_grammar("rust", nullptr, &g);
    CHECK(st.message() == "the rust grammar is null");

    REQUIRE(make_grammar("python", tree_sitter_python(), &g).ok());
    AnalyzeOptions o;
    o.language = "rust";
    o.grammar = g.get();
    Analysis a;
    st = analyze("fn main() {}", o, &a);
    CHECK(st.message() == "language 'rust' was given the python grammar");
}
