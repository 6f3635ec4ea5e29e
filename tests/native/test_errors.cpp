// Bad input gives a Status naming the argument, never an abort.
#include "hirope/hirope.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <vector>

using namespace hirope;

namespace {

struct Fixture {
    std::vector<float> q = std::vector<float>(64, 0.5f), k = std::vector<float>(64, 0.25f);
    std::vector<int32_t> tok = {0, 1, 2, 3, 4, 5, 6, 7};
    std::vector<int32_t> unit = {0, 0, 0, 1, 1, 1, 2, 2};
    std::vector<float> out = std::vector<float>(64);
    AttentionRequest req() {
        AttentionRequest r;
        r.q = q.data();
        r.k = k.data();
        r.n = 8;
        r.head_dim = 8;
        r.positions = Positions{tok.data(), unit.data()};
        return r;
    }
    std::string error(const AttentionRequest& r) {
        Status st = attention(r, out.data());
        return st.ok() ? std::string() : st.message();
    }
};

bool mentions(const std::string& msg, const std::string& what) {
    return msg.find(what) != std::string::npos;
}

} // namespace

TEST_CASE("Invalid requests are reported with the argument's name", "[errors]") {
    Fixture f;
    REQUIRE(f.error(f.req()).empty());
    AttentionRequest r = f.req();
    r.head_dim = 7;
    CHECK(mentions(f.error(r), "head_dim"));
    r.head_dim = 0;
    CHECK(mentions(f.error(r), "head_dim"));
    r = f.req();
    r.n = 0;
    CHECK(mentions(f.error(r), "n must be"));
    r = f.req();
    f.q[5] = std::numeric_limits<float>::quiet_NaN();
    CHECK(mentions(f.error(r), "q contains a non-finite value (NaN) at index 5"));
    f.q[5] = 0.5f;
    f.k[9] = std::numeric_limits<float>::infinity();
    CHECK(mentions(f.error(r), "k contains a non-finite value (Infinity)"));
    f.k[9] = 0.25f;
    r.scheme.type = SchemeType::hirope;
    r.scheme.window = 0;
    CHECK(mentions(f.error(r), "scheme.window"));
    r.scheme.window = 4;
    r.scheme.ratio = 1.5;
    CHECK(mentions(f.error(r), "scheme.ratio"));
    r.scheme.ratio = -0.1;
    CHECK(mentions(f.error(r), "scheme.ratio"));
    r.scheme.ratio = std::nan("");
    CHECK(mentions(f.error(r), "scheme.ratio"));
    r.scheme.ratio = 0.5;
    r.positions.unit = nullptr;
    CHECK(mentions(f.error(r), "positions.unit"));
    r.positions.unit = f.unit.data();
    r.causal = false;
    CHECK(mentions(f.error(r), "causal"));
    // The one home of the rule, which the bindings call too (the WebGPU path skips prepare).
    CHECK(check_causal(SchemeType::hirope, false).message() ==
          "scheme 'hirope' is a windowed scheme, defined for causal attention: leave causal on");
    CHECK(
        check_causal(SchemeType::leaky_rerope, false).message().rfind("scheme 'leaky-rerope'", 0) ==
        0);
    CHECK(check_causal(SchemeType::hirope, true).ok());
    CHECK(check_causal(SchemeType::rope, false).ok());
    r = f.req();
    r.scheme.base = 1;
    CHECK(mentions(f.error(r), "scheme.base"));
    r = f.req();
    r.scheme.scaling.type = ScalingType::yarn;
    r.scheme.scaling.factor = 4;
    CHECK(mentions(f.error(r), "scheme.scaling.originalLength"));
    r = f.req();
    r.heads = 0;
    CHECK(mentions(f.error(r), "heads"));
    r = f.req();
    r.scheme.rotary_fraction = 0.1;
    CHECK(mentions(f.error(r), "scheme.rotaryFraction"));
}

TEST_CASE("Sizes beyond the limits fail before allocating", "[errors]") {
    Fixture f;
    AttentionRequest r = f.req();
    r.n = Limits::max_tokens + 1; // q and k are far too short; nothing may be read or allocated
    AttentionPlan plan;
    CHECK(mentions(plan.prepare(r).message(), "n must be at most"));
    r.n = 1 << 15;
    r.heads = 1;
    // The whole matrix is held to the output limit, checked before q and k are read...
    CHECK(mentions(f.error(r), "exceeds the output limit"));
    // ...a plan, which computes strips of rows, is not: a pooled map of 32,768 tokens.
    std::vector<float> qk(static_cast<size_t>(r.n) * 2, 0.5f);
    std::vector<int32_t> tok(static_cast<size_t>(r.n));
    for (int32_t t = 0; t < r.n; ++t) tok[t] = t;
    r.q = r.k = qk.data();
    r.head_dim = 2;
    r.positions = Positions{tok.data()};
    REQUIRE(plan.prepare(r).ok());
    std::vector<float> strip(static_cast<size_t>(r.n) * 2);
    REQUIRE(plan.rows(0, r.n - 2, r.n, strip.data()).ok());
    float sum = 0;
    for (int64_t j = 0; j < r.n; ++j) sum += strip[r.n + j];
    CHECK(sum == Approx(1.0).epsilon(1e-3));
}

TEST_CASE("Plans reject bad row ranges and missing v", "[errors]") {
    Fixture f;
    AttentionPlan plan;
    std::vector<float> out(64);
    CHECK_FALSE(plan.rows(0, 0, 1, out.data()).ok());
    REQUIRE(plan.prepare(f.req()).ok());
    CHECK(mentions(plan.rows(1, 0, 1, out.data()).message(), "head"));
    CHECK(mentions(plan.rows(0, 3, 3, out.data()).message(), "row range"));
    CHECK(mentions(plan.rows(0, 0, 9, out.data()).message(), "row range"));
    CHECK(mentions(plan.output_rows(0, 1, out.data()).message(), "v is required"));
}

TEST_CASE("Huge finite values that overflow the logits are reported", "[errors]") {
    Fixture f;
    for (float& x : f.q) x = 3e38f;
    for (float& x : f.k) x = 3e38f;
    CHECK(mentions(f.error(f.req()), "overflow"));
}
