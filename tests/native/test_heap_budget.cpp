// The heap budget (HeapBudget, hirope.h): off natively by default, and when enabled a check asks
// malloc for the need plus the reserve, so a need malloc cannot meet is an error naming the work,
// never an allocation that aborts. The limits derived from the ceiling stay inside it.
#include "hirope/analysis.h"
#include "hirope/model.h"

#include <catch2/catch.hpp>
#include <string>

using namespace hirope;

TEST_CASE("HeapBudget: off by default, a probe of malloc when enabled", "[heap]") {
    HeapBudget off;
    CHECK(off.reserve(1e18, "anything").ok()); // natively unset: nothing is checked
    CHECK_FALSE(off.exhausted());
    HeapBudget on;
    on.enabled = true;
    CHECK(on.reserve(1 << 20, "a small step").ok());
    CHECK_FALSE(on.exhausted());
    // Past the ceiling no malloc is even tried.
    const Status st = on.reserve(static_cast<double>(HeapCeiling::bytes), "a huge step");
    REQUIRE_FALSE(st.ok());
    CHECK(st.message().find("out of memory: a huge step needs about 2048 MiB more") == 0);
}

TEST_CASE("Analysis and parse run under an enabled budget", "[heap][analysis]") {
    AnalyzeOptions o;
    o.language = "python";
    o.heap.enabled = true;
    Analysis a;
    REQUIRE(analyze("def f():\n    return (1 + 2)\n", o, &a).ok());
    CHECK(a.units.size() == 1);
    bool has_error = true;
    REQUIRE(parse_only("x = [1, 2]\n", "python", &has_error, std::nullopt, o.heap).ok());
    CHECK_FALSE(has_error);
}

TEST_CASE("The documented limits are derived from the heap ceiling", "[heap]") {
    constexpr size_t usable = HeapCeiling::bytes - HeapCeiling::reserve;
    STATIC_REQUIRE(AnalysisLimits::max_bytes * AnalysisLimits::heap_per_byte <= usable);
    STATIC_REQUIRE(AnalysisLimits::max_bytes % (1u << 20) == 0);
    STATIC_REQUIRE(AnalysisLimits::walk_bytes_per_byte < AnalysisLimits::heap_per_byte);
    // The model at its limits: the largest file (its weights about 3x its fp16 bytes as floats
    // while loading) and, with weights the size of the smallest config at max_input_bytes, a step.
    model::Config c;
    c.vocab = 256;
    c.d_model = 256;
    c.layers = 4;
    c.heads = 4;
    c.ffn_hidden = 1024;
    const double step = model::step_heap_bytes(c, model::ModelLimits::max_input_bytes,
                                               model::ModelLimits::max_input_bytes, true, 1);
    CHECK(step > 0);
    CHECK(step < static_cast<double>(usable));
    // More bytes never need less.
    CHECK(model::step_heap_bytes(c, 10, 20, true, 0) < model::step_heap_bytes(c, 20, 20, true, 0));
    CHECK(model::step_heap_bytes(c, 10, 10, false, 0) < model::step_heap_bytes(c, 10, 10, true, 0));
}
