// Code analysis in C++: tokenizer invariants, bad input (invalid UTF-8, NUL bytes, deep nesting,
// large files), corrupted vocabulary files. Agreement with the reference tokenizers is checked
// id for id in tests/js/tokenizers.test.mjs.
#include "hirope/analysis.h"

#include "test_files.h"
#include "test_vocabularies.h"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <sstream>

using namespace hirope;

namespace {

const Vocabulary& vocabulary(const std::string& name) {
    return test_vocabulary(name);
}

// Byte-level BPE: the tokens' bytes concatenate to the input and their offsets tile it.
void check_cl100k(const std::string& text, const char* name = "cl100k") {
    const Vocabulary& v = vocabulary(name);
    std::vector<Token> tokens;
    v.encode(text, &tokens);
    std::string joined;
    uint32_t pos = 0;
    for (const Token& t : tokens) {
        REQUIRE(t.start == pos);
        REQUIRE(t.end > t.start);
        REQUIRE(v.token_bytes(t.id) == text.substr(t.start, t.end - t.start));
        joined += v.token_bytes(t.id);
        pos = t.end;
    }
    REQUIRE(joined == text);
}

// LLaMA: decoding (U+2581 -> space, <0xXX> -> byte) gives the input with the dummy prefix space.
void check_llama(const std::string& text) {
    const Vocabulary& v = vocabulary("llama2");
    std::vector<Token> tokens;
    v.encode(text, &tokens);
    std::string decoded;
    for (const Token& t : tokens) {
        std::string_view b = v.token_bytes(t.id);
        if (b.size() == 6 && b.substr(0, 3) == "<0x") {
            decoded += static_cast<char>(std::stoi(std::string(b.substr(3, 2)), nullptr, 16));
            continue;
        }
        for (size_t i = 0; i < b.size(); ++i) {
            if (b.substr(i, 3) == "\xE2\x96\x81") {
                decoded += ' ';
                i += 2;
            } else {
                decoded += b[i];
            }
        }
    }
    REQUIRE(decoded == (text.empty() ? "" : " " + text));
}

} // namespace

TEST_CASE("Tokenizers reproduce their input, valid UTF-8 or not", "[tokenizers]") {
    const std::vector<std::string> texts = {
        "def f(x):\n    return x  # comment\n",
        "it's I'LL 12345 3.14 naïve 日本語 🙂",
        std::string("nul\0byte", 8),
        "\xff\xfe invalid \xc3 utf-8 \xe2\x82 \xed\xa0\x80 \xf4\x90\x80\x80",
        std::string(3000, ' ') + "x" + std::string(3000, '\n'),
        "",
        "HTTPServer DON'T Don't \xc7\x85"
        "ungla A\xcc\x81"
        "B \xca\xb0"
        "a\r\n//x \xc2\x85 \xef\xbb\xbf",
    };
    for (const std::string& t : texts) {
        check_cl100k(t);
        check_cl100k(t, "o200k");
        check_llama(t);
    }
}

TEST_CASE("o200k splits on letter case as tiktoken's pattern", "[tokenizers]") {
    const Vocabulary& v = vocabulary("o200k");
    // Tokens never cross a pre-token boundary, so each boundary of the pattern is a token end.
    auto ends_at = [&](const std::string& text, std::vector<uint32_t> cuts) {
        std::vector<Token> tokens;
        v.encode(text, &tokens);
        for (uint32_t c : cuts) {
            INFO(text << " cut at " << c);
            CHECK(std::any_of(tokens.begin(), tokens.end(),
                              [&](const Token& t) { return t.end == c; }));
        }
    };
    ends_at("getHTTPResponse", {3, 15});   // get | HTTPResponse (upper* lower+)
    ends_at("DON'T stop", {5, 10});        // DON'T (upper+ and a contraction) | " stop"
    ends_at(" 12345", {1, 4, 6});          // " " | 123 | 45
    ends_at("a\r\n\r\n  b", {1, 5, 6, 8}); // a | \r\n\r\n | " " | " b"
    ends_at("x = y//z\n", {1, 3, 5, 7, 8, 9});
}

// The time is bench/worst-cases.mjs's to measure (a quadratic merge would take hours here).
TEST_CASE("cl100k tokenizes a megabyte of one character", "[tokenizers]") {
    check_cl100k(std::string(1 << 20, ' '));
    check_cl100k(std::string(1 << 20, 'a'));
}

TEST_CASE("Vocabulary files are checked before use", "[tokenizers][errors]") {
    std::vector<uint8_t> data = read_file(test_data_dir() + "/cl100k.bin");
    REQUIRE(data.size() > 1000);
    std::unique_ptr<Vocabulary> v;
    CHECK(load_vocabulary(data.data(), 100, &v).message().find("corrupted") != std::string::npos);
    CHECK_FALSE(load_vocabulary(nullptr, 0, &v).ok());
    data[1234] ^= 0x40;
    CHECK(load_vocabulary(data.data(), data.size(), &v).message().find("checksum") !=
          std::string::npos);
    const std::string junk = "HRTK but nothing else of substance here";
    CHECK_FALSE(
        load_vocabulary(reinterpret_cast<const uint8_t*>(junk.data()), junk.size(), &v).ok());
    CHECK(v == nullptr);
}

TEST_CASE("Analysis survives bad input", "[analysis][errors]") {
    AnalyzeOptions o;
    Analysis a;
    for (const std::string& lang : languages()) {
        o.language = lang;
        for (const std::string& code :
             {std::string(), std::string("\xff\xfe\x00\x01garbage\xc3", 11),
              std::string(10000, '(') + std::string(10000, ')'), std::string(10000, '{'),
              std::string("class A { def f( { [ ( \"unterminated")}) {
            Status st = analyze(code, o, &a);
            INFO(lang << ": " << st.message());
            REQUIRE(st.ok());
            REQUIRE(a.units.size() >= 1);
            REQUIRE(a.units.back().end == code.size());
        }
    }
    o.language = "fortran";
    CHECK(analyze("x", o, &a).message().find("language 'fortran' is not supported") !=
          std::string::npos);
}

TEST_CASE("A file of megabytes is analyzed (10 MB with HIROPE_LONG_INPUTS=1)", "[analysis]") {
    std::string chunk = "def f(x):\n    y = x * 2\n    return y\n\n\nclass C:\n    pass\n\n";
    // 2 MB shows the unit count (72,000 units) as 10 MB does: the analysis is linear in its input
    // (0.7 s a megabyte natively and in WASM alike), and the 10 MB file took 20 CPU-s of a test
    // run over the three builds. HIROPE_LONG_INPUTS=1 runs it (bench/README.md), and
    // bench/worst-cases.mjs times it.
    const size_t size = std::getenv("HIROPE_LONG_INPUTS") ? size_t{10} << 20 : size_t{2} << 20;
    std::string code;
    while (code.size() < size) code += chunk;
    AnalyzeOptions o;
    o.language = "python";
    o.vocabulary = &vocabulary("cl100k");
    // The size is under test, not the time (bench/worst-cases.mjs measures that): the default
    // budget is wall-clock, and a sanitizer build on a busy machine can run past it.
    o.timeout_ms = 0;
    Analysis a;
    const Status status = analyze(code, o, &a);
    INFO(status.message());
    REQUIRE(status.ok());
    CHECK(a.units.size() == 2 * (code.size() / chunk.size()));
}

TEST_CASE("Language detection by file name", "[analysis]") {
    CHECK(detect_language("a/b/c.py") == "python");
    CHECK(detect_language("X.H") == "c");
    CHECK(detect_language("x.hpp") == "cpp");
    CHECK(detect_language("x.mjs") == "javascript");
    CHECK(detect_language("Makefile").empty());
}

namespace {

// "kind language_kind name" per unit (code units as "code").
std::vector<std::string> unit_kinds(const std::string& language, const std::string& code,
                                    bool descend = false) {
    AnalyzeOptions o;
    o.language = language;
    o.descend_classes = descend;
    Analysis a;
    REQUIRE(analyze(code, o, &a).ok());
    std::vector<std::string> out;
    for (const Unit& u : a.units)
        out.push_back(u.kind == "code" ? "code" : u.kind + " " + u.language_kind + " " + u.name);
    return out;
}

} // namespace

TEST_CASE("Units carry the language's own kind of definition", "[analysis]") {
    using V = std::vector<std::string>;
    CHECK(unit_kinds("rust", "struct Interval { lo: i32 }\nimpl Interval { fn len(&self) -> i32 "
                             "{ 0 } }\ntrait Shape {}\nenum E { A }\ntype T = i32;\n"
                             "fn main() {}\nmacro_rules! m { () => {} }\n") ==
          V{"class struct Interval", "class impl Interval", "class trait Shape", "class enum E",
            "class type T", "function function main", "function macro m"});
    CHECK(unit_kinds("rust", "struct Interval;\nimpl Interval { fn len(&self) {} }\n", true) ==
          V{"class struct Interval", "class impl Interval", "function method len"});
    CHECK(unit_kinds("go", "package p\ntype S struct{ x int }\ntype I interface{ M() }\n"
                           "type N int\ntype A = int\nfunc f() {}\nfunc (s S) M() {}\n") ==
          V{"code", "class struct S", "class interface I", "class type N", "class type A",
            "function function f", "function method M"});
    CHECK(unit_kinds("c", "struct vec { int x; };\ntypedef struct { int y; } vec_t;\n"
                          "int main(void) { return 0; }\n") ==
          V{"class struct vec", "class typedef vec_t", "function function main"});
    CHECK(unit_kinds("cpp", "template <typename T> class Box { T t; };\nunion U { int i; };\n") ==
          V{"class class Box", "class union U"});
    CHECK(unit_kinds("typescript", "interface P { x: number }\ntype Q = P;\nenum C { R }\n"
                                   "abstract class S {}\nconst f = () => 1;\n") ==
          V{"class interface P", "class type Q", "class enum C", "class abstract class S",
            "function function f"});
    CHECK(unit_kinds("java", "@interface A {}\nrecord R(int x) {}\n") ==
          V{"class annotation type A", "class record R"});
    CHECK(unit_kinds("python", "class C:\n    def m(self):\n        pass\n", true) ==
          V{"class class C", "function method m"});
}

TEST_CASE("CommonJS, object-literal and IIFE/UMD shapes give JavaScript units", "[analysis]") {
    using V = std::vector<std::string>;
    // Assignments name their unit by the target; object literals' methods and `key: function`
    // pairs are units; a wrapper's body (IIFE, UMD factory) is scanned as the top level.
    CHECK(unit_kinds("javascript",
                     "'use strict';\nmodule.exports = class Parser {};\n"
                     "exports.f = function () {};\nFoo.prototype.bar = async () => 1;\n"
                     "a.b = c.d = function* g() {};\nexports.x = 1;\n") ==
          V{"code", "class class module.exports", "function function exports.f",
            "function function Foo.prototype.bar", "function function a.b", "code"});
    CHECK(unit_kinds("javascript", "module.exports = {\n  parse(s) {},\n  n: 1,\n"
                                   "  run: function () {},\n  inner: { deep: () => 0 },\n};\n") ==
          V{"code", "function method parse", "code", "function function run", "code",
            "function function deep"});
    CHECK(unit_kinds("javascript",
                     "(function (root, factory) {\n  if (typeof define === 'function') "
                     "define(factory);\n  else root.X = factory();\n})(this, function () {\n"
                     "  function parse() {}\n  class Node {}\n  return { parse };\n});\n") ==
          V{"code", "function function parse", "class class Node", "code"});
    CHECK(unit_kinds("javascript", "!function () { function a() {} }();\n"
                                   "(function () { var b = function () {}; }).call(this);\n"
                                   "var lib = (() => { function c() {} return c; })();\n") ==
          V{"code", "function function a", "code", "function function b", "code",
            "function function c", "code"});
    // Calls that are not wrappers stay code: a callback is not the file's top level.
    CHECK(unit_kinds("javascript", "describe('x', function () { function d() {} });\n") ==
          V{"code"});
    // webpack's UMD bundle: the factory returns the bootstrap called with the module list, each
    // module a function whose body is scanned (source-map.js's dist file has this shape).
    CHECK(unit_kinds("javascript",
                     "(function webpackUniversalModuleDefinition(root, factory) {\n"
                     "  module.exports = factory();\n})(this, function () {\n"
                     "return /******/ (function (modules) {\n"
                     "  function __webpack_require__(id) { return 1; }\n"
                     "  return __webpack_require__(0);\n})\n/******/ ([\n/* 0 */\n"
                     "/***/ (function (module, exports, __webpack_require__) {\n"
                     "  function SourceMapGenerator(aArgs) {}\n"
                     "  SourceMapGenerator.prototype.addMapping = function (a) {};\n"
                     "/***/ }),\n/* 1 */\n/***/ (function (module, exports) {\n"
                     "  exports.encode = function encode(n) {};\n/***/ })\n/******/ ]);\n"
                     "});\n") == V{"code", "function function __webpack_require__", "code",
                                   "function function SourceMapGenerator",
                                   "function function SourceMapGenerator.prototype.addMapping",
                                   "code", "function function exports.encode", "code"});
    CHECK(unit_kinds("javascript", "function make() {}\nreturn (() => {\n  function a() {}\n"
                                   "  return a;\n})();\n") ==
          V{"function function make", "code", "function function a", "code"});
    // browserify: its prelude returns require, called with the modules, each [function, deps].
    CHECK(unit_kinds("javascript",
                     "(function () { function r(e, n, t) {} return r; })()({1: [function "
                     "(require, module, exports) {\n  function one() {}\n}, {}], 2: [function "
                     "(require, module, exports) {\n  module.exports = function two() {};\n}, "
                     "{\"./one\": 1}]}, {}, [2]);\n") == V{"code", "function function r", "code",
                                                           "function function one",
                                                           "function function module.exports"});
    // Quoted keys and method names name their unit without the quotes.
    CHECK(unit_kinds("javascript", "module.exports = {\n  \"parse\": function () {},\n"
                                   "  'run'() {},\n};\n") ==
          V{"code", "function function parse", "function method run"});
    CHECK(unit_kinds("typescript", "exports.f = (x: number) => x;\n") ==
          V{"function function exports.f"});
}

TEST_CASE("Deeply nested wrappers and object literals are scanned without recursion",
          "[analysis]") {
    // 20,000 nested IIFEs and object literals: the scan keeps its levels on the heap.
    std::string iife, object = "x = ";
    for (int i = 0; i < 20000; ++i) iife += "(function () {\n";
    iife += "function f() {}\n";
    for (int i = 0; i < 20000; ++i) iife += "})();\n";
    for (int i = 0; i < 20000; ++i) object += "{ a: ";
    object += "function () {}";
    for (int i = 0; i < 20000; ++i) object += " }";
    for (const std::string& code : {iife, object}) {
        AnalyzeOptions o;
        o.language = "javascript";
        o.timeout_ms = 0;
        Analysis a;
        Status st = analyze(code, o, &a);
        INFO(st.message());
        REQUIRE(st.ok());
        REQUIRE(a.units.back().end == code.size());
    }
}

TEST_CASE("Units carry their token and statement ranges", "[analysis]") {
    const std::string code = "import os\n\ndef f(x):\n    return x\n\n\nclass C:\n    pass\n";
    for (const Vocabulary* v : {static_cast<const Vocabulary*>(nullptr), &vocabulary("cl100k")}) {
        AnalyzeOptions o;
        o.language = "python";
        o.vocabulary = v;
        Analysis a;
        REQUIRE(analyze(code, o, &a).ok());
        REQUIRE(a.units.size() == 3);
        // The ranges tile the tokens and agree with the per-token unit and statement indices.
        uint32_t next = 0;
        for (size_t k = 0; k < a.units.size(); ++k) {
            const Unit& u = a.units[k];
            CHECK(u.token_start == next);
            REQUIRE(u.token_end > u.token_start);
            next = u.token_end;
            for (uint32_t t = u.token_start; t < u.token_end; ++t) {
                CHECK(a.unit[t] == static_cast<int32_t>(k));
                CHECK(a.statement[t] >= static_cast<int32_t>(u.statement_start));
                CHECK(a.statement[t] < static_cast<int32_t>(u.statement_end));
            }
            CHECK(a.statement[u.token_start] == static_cast<int32_t>(u.statement_start));
            CHECK(a.statement[u.token_end - 1] + 1 == static_cast<int32_t>(u.statement_end));
        }
        CHECK(next == a.tokens.size());
    }
    // A unit without tokens has empty ranges at 0.
    AnalyzeOptions o;
    o.language = "python";
    o.hierarchy = Hierarchy::segments;
    o.segment_size = 4;
    Analysis a;
    REQUIRE(analyze("", o, &a).ok());
    REQUIRE(a.units.size() == 1);
    CHECK(a.units[0].token_start == 0);
    CHECK(a.units[0].token_end == 0);
    CHECK(a.units[0].statement_end == 0);
}
