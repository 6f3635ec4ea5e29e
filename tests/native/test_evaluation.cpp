// The evaluation's rules (src/model/evaluation.cpp): recall classes, windows, bucket edges,
// per-window sums and the preset symbols, against values worked out by hand.
#include "hirope/model.h"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace hirope;
using namespace hirope::model;

namespace {

// The class names of out[from, to).
std::vector<std::string> names(const std::vector<uint8_t>& cls, size_t from, size_t to) {
    std::vector<std::string> out;
    for (size_t i = from; i < to; ++i) out.push_back(recall_class_names()[cls[i]]);
    return out;
}
std::vector<std::string> all(const std::vector<uint8_t>& cls) {
    return names(cls, 0, cls.size());
}
std::vector<std::string> repeat(const char* name, size_t n) {
    return {n, std::string(name)};
}

} // namespace

TEST_CASE("recall classes of bytes: first, near and far by byte distance", "[evaluation]") {
    //                       0         1         2         3
    //                       0123456789012345678901234567890123
    const std::string text = "alpha = beta(x)\nalpha += 1\nbeta()\n";
    std::vector<uint8_t> cls;
    REQUIRE(recall_classes(text, 12, &cls).ok());
    REQUIRE(cls.size() == text.size());
    CHECK(names(cls, 0, 5) == repeat("first", 5));   // alpha
    CHECK(names(cls, 5, 8) == repeat("other", 3));   // ' = '
    CHECK(names(cls, 8, 12) == repeat("first", 4));  // beta
    CHECK(names(cls, 13, 14) == repeat("other", 1)); // x: one letter
    CHECK(names(cls, 16, 21) == repeat("far", 5));   // alpha, 16 back > 12
    CHECK(names(cls, 27, 31) == repeat("far", 4));   // beta, 19 back
    REQUIRE(recall_classes(text, 16, &cls).ok());
    CHECK(names(cls, 16, 21) == repeat("near", 5)); // exactly 16 back
    CHECK(names(cls, 27, 31) == repeat("far", 4));  // 19 > 16
    REQUIRE(recall_classes(text, 19, &cls).ok());
    CHECK(names(cls, 27, 31) == repeat("near", 4));
}

TEST_CASE("recall classes skip keywords, one-letter names and runs after a digit", "[evaluation]") {
    // name at 0, 35 (35 back), 40 (5 back); return is a keyword; 9abc is no identifier.
    const std::string text = "name " + std::string(30, '#') + " name name return 9abc abc";
    std::vector<uint8_t> cls;
    REQUIRE(recall_classes(text, 20, &cls).ok());
    CHECK(names(cls, 36, 37) == repeat("far", 1));
    CHECK(names(cls, 41, 42) == repeat("near", 1));
    CHECK(names(cls, 46, 52) == repeat("other", 6)); // return
    CHECK(names(cls, 53, 57) == repeat("other", 4)); // 9abc
    CHECK(names(cls, 58, 61) == repeat("first", 3)); // abc
    std::vector<Identifier> ids;
    identifiers("a1 _b c", &ids);
    REQUIRE(ids.size() == 2);
    CHECK((ids[0].start == 0 && ids[0].end == 2)); // a1
    CHECK((ids[1].start == 3 && ids[1].end == 5)); // _b; c is one letter
    CHECK(recall_class_names() == std::vector<std::string>{"other", "first", "near", "far"});
}

TEST_CASE("recall classes of tokens count tokens and take the highest class", "[evaluation]") {
    //                       0         1         2
    //                       01234567890123456789012
    const std::string text = "alpha = beta\nalpha beta";
    // Tokens 'alpha' ' =' ' beta' '\n' 'alpha' ' beta': alpha is 4 tokens back, beta 3.
    const std::vector<int64_t> start = {0, 5, 7, 12, 13, 18}, end = {5, 7, 12, 13, 18, 23};
    std::vector<uint8_t> cls;
    REQUIRE(token_recall_classes(text, start, end, 3, &cls).ok());
    CHECK(all(cls) == std::vector<std::string>{"first", "other", "first", "other", "far", "near"});
    REQUIRE(token_recall_classes(text, start, end, 4, &cls).ok());
    CHECK(all(cls) == std::vector<std::string>{"first", "other", "first", "other", "near", "near"});
    REQUIRE(token_recall_classes(text, start, end, 2, &cls).ok());
    CHECK(all(cls) == std::vector<std::string>{"first", "other", "first", "other", "far", "far"});

    // One token 'ab.cd' (bytes 25..30): ab is far (2 tokens back > 1), cd first: far wins.
    const std::string t2 = "ab ab" + std::string(20, ' ') + "ab.cd cd";
    const std::vector<int64_t> s2 = {0, 2, 5, 25, 30}, e2 = {2, 5, 25, 30, 33};
    REQUIRE(token_recall_classes(t2, s2, e2, 1, &cls).ok());
    CHECK(all(cls) == std::vector<std::string>{"first", "near", "other", "far", "near"});
}

TEST_CASE("recall classes reject what they cannot classify", "[evaluation]") {
    std::vector<uint8_t> cls;
    Status s = recall_classes("x", 0, &cls);
    CHECK(s.message() == "reach must be an integer >= 1, got 0");
    s = token_recall_classes("abc", {0}, {99}, 1, &cls);
    CHECK(s.message() == "token 0 spans [0, 99) outside the 3 bytes");
    s = token_recall_classes("abc", {2}, {1}, 1, &cls);
    CHECK(s.message() == "token 0 spans [2, 1) outside the 3 bytes");
    s = token_recall_classes("abc", {0, 1}, {1}, 1, &cls);
    CHECK(s.message() == "start and end must have one entry per token");
}

TEST_CASE("windows, buckets and the file's language", "[evaluation]") {
    std::vector<int64_t> w;
    // 10 windows of 100 in 1,050 units: all, or 4 spread: floor(w * 10 / 4) = 0, 2, 5, 7.
    REQUIRE(window_offsets(1050, 100, -1, &w).ok());
    CHECK(w == std::vector<int64_t>{0, 100, 200, 300, 400, 500, 600, 700, 800, 900});
    REQUIRE(window_offsets(1050, 100, 4, &w).ok());
    CHECK(w == std::vector<int64_t>{0, 200, 500, 700});
    REQUIRE(window_offsets(1050, 100, 20, &w).ok());
    CHECK(w.size() == 10);
    REQUIRE(window_offsets(99, 100, 4, &w).ok());
    CHECK(w.empty());
    CHECK(!window_offsets(100, 0, 4, &w).ok());

    std::vector<int64_t> edges;
    REQUIRE(default_buckets(256, 1024, &edges).ok());
    CHECK(edges == std::vector<int64_t>{0, 256, 512, 1024});
    REQUIRE(default_buckets(256, 1500, &edges).ok());
    CHECK(edges == std::vector<int64_t>{0, 256, 512, 1024, 1500});
    REQUIRE(default_buckets(256, 100, &edges).ok());
    CHECK(edges == std::vector<int64_t>{0, 256});
    CHECK(default_buckets(0, 100, &edges).message() == "the training context must be >= 1, got 0");

    CHECK(std::string(evaluation_language("a/b.py")) == "python");
    CHECK(std::string(evaluation_language("x.mjs")) == "javascript");
    CHECK(std::string(evaluation_language("x.cjs")) == "javascript");
    CHECK(std::string(evaluation_language("x.js")) == "javascript");
    CHECK(std::string(evaluation_language("x.json")) == "python");
}

TEST_CASE("window sums by bucket and by class", "[evaluation]") {
    // Units 1, 2, 3 with losses 1, 2, 4; edges [0, 2, 4]: unit 1 in bucket 0, units 2 and 3 in
    // bucket 1. Classes of units 0..3: other, far, far, first (unit 0 has no loss).
    const float losses[] = {1, 2, 4};
    const uint8_t classes[] = {0, 3, 3, 1};
    WindowSums s;
    REQUIRE(window_sums(losses, 3, classes, 4, {0, 2, 4}, &s).ok());
    CHECK(s.bucket_sums == std::vector<double>{1, 6});
    CHECK(s.bucket_counts == std::vector<int64_t>{1, 2});
    CHECK(s.class_sums[0] == 0);
    CHECK(s.class_sums[1] == 4);
    CHECK(s.class_sums[2] == 0);
    CHECK(s.class_sums[3] == 3);
    CHECK(s.class_counts[1] == 1);
    CHECK(s.class_counts[3] == 2);
    CHECK(window_sums(losses, 3, classes, 3, {0, 2, 4}, &s).message() ==
          "classes must have one entry per unit (4), got 3");
    CHECK(window_sums(losses, 3, classes, 4, {0, 2, 3}, &s).message() ==
          "position 3 is past the last bucket edge 3");
    const uint8_t bad[] = {0, 3, 7, 1};
    CHECK(window_sums(losses, 3, bad, 4, {0, 2, 4}, &s).message() ==
          "class 7 of unit 2 is not a recall class");
    CHECK(!window_sums(losses, 3, classes, 4, {0, 4, 4}, &s).ok());
}

TEST_CASE("preset symbols", "[evaluation]") {
    PresetSymbols p;
    // L 256, windows of 1,024: W 128, factor 4, group ceil(896 / 128) = 7, stride 256 / 8 = 32.
    REQUIRE(preset_symbols(256, 1024, 8, &p).ok());
    CHECK(p.training_context == 256);
    CHECK(p.window == 128);
    CHECK(p.factor == 4.0);
    CHECK(p.self_extend_group == 7);
    CHECK(p.truncate_stride == 32);
    // L 512, windows of 2,100: W 256, factor 4.1015625, group ceil(1844 / 256) = 8 (7.2).
    REQUIRE(preset_symbols(512, 2100, 8, &p).ok());
    CHECK(p.factor == 4.1015625);
    CHECK(p.self_extend_group == 8);
    // Windows within L: group 2 at least; L 5: W 2, stride max(1, 5 / 8) = 1.
    REQUIRE(preset_symbols(5, 3, 8, &p).ok());
    CHECK(p.window == 2);
    CHECK(p.self_extend_group == 2);
    CHECK(p.truncate_stride == 1);
    CHECK(!preset_symbols(0, 3, 8, &p).ok());
    CHECK(!preset_symbols(256, 1024, 0, &p).ok());
}
