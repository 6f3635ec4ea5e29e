// The comparison helpers of test_compare.h fail on NaN and on a length mismatch (issue 35).
#include "test_compare.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <vector>

using hirope_test::max_abs_error;
using hirope_test::max_relative_error;
using hirope_test::worse;

TEST_CASE("compare: a running worst keeps a NaN that std::max would drop", "[compare]") {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    CHECK(std::max(0.0, nan) == 0.0); // the trap the helper exists for
    CHECK(std::isnan(worse(0.0, nan)));
    CHECK(std::isnan(worse(nan, 5.0))); // once NaN, always NaN
    CHECK(worse(1.0, 2.0) == 2.0);
    CHECK(worse(2.0, 1.0) == 2.0);
    double worst = 0;
    for (double err : {0.1, nan, 0.2, 0.0}) worst = worse(worst, err);
    CHECK_FALSE(worst <= 1.0);
}

TEST_CASE("compare: max errors fail on NaN, on unmatched infinities and on a length mismatch",
          "[compare]") {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const float inf = std::numeric_limits<float>::infinity();
    const std::vector<float> want{1, 2, 3};
    size_t where = 99;
    CHECK(max_abs_error(want, want, &where) == 0);
    CHECK(where == 0);
    CHECK(max_abs_error(std::vector<float>{1, 2.5f, 3}, want, &where) == Approx(0.5));
    CHECK(where == 1);
    CHECK(max_relative_error(std::vector<float>{1, 2, 4}, want) == Approx(0.25));

    // NaN in what is checked, or in the reference: never within any tolerance.
    for (const std::vector<float>& got :
         {std::vector<float>{nan, 2, 3}, std::vector<float>{1, 2, nan}}) {
        CHECK_FALSE(max_abs_error(got, want) <= 1e9);
        CHECK_FALSE(max_relative_error(got, want) <= 1e9);
        CHECK_FALSE(max_abs_error(want, got) <= 1e9);
    }
    CHECK(max_abs_error(std::vector<float>{1, nan, 3}, want, &where) != 0);
    CHECK(where == 1);

    // Shorter, longer, empty: a length mismatch is an infinite error.
    CHECK_FALSE(max_abs_error(std::vector<float>{1, 2}, want) <= 1e9);
    CHECK_FALSE(max_abs_error(std::vector<float>{1, 2, 3, 4}, want) <= 1e9);
    CHECK_FALSE(max_relative_error(std::vector<float>{}, want) <= 1e9);

    // Infinities must match exactly (masked logits are -inf).
    CHECK(max_abs_error(std::vector<float>{-inf, 2, 3}, std::vector<float>{-inf, 2, 3}) == 0);
    CHECK_FALSE(max_abs_error(std::vector<float>{-inf, 2, 3}, want) <= 1e9);
    CHECK_FALSE(max_abs_error(want, std::vector<float>{inf, 2, 3}) <= 1e9);

    // Raw arrays through span().
    const float a[] = {1, 2, nan};
    CHECK_FALSE(max_abs_error(hirope_test::span(a, 3), want) <= 1e9);
    CHECK_FALSE(max_abs_error(hirope_test::span(a, 2), want) <= 1e9);
}
