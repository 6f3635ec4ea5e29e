// hirope's error value and heap budget, shared by every library (the hirope_util target:
// src/util/heap.cpp). hirope.h, tokenizers.h and analysis.h include it.
#pragma once

#include <cstddef>
#include <string>

namespace hirope {

// ---------------------------------------------------------------------------------------------
// Status

class Status {
  public:
    Status() = default;
    static Status error(std::string message) {
        Status s;
        s.message_ = std::move(message);
        s.ok_ = false;
        return s;
    }
    bool ok() const { return ok_; }
    const std::string& message() const { return message_; }

  private:
    bool ok_ = true;
    std::string message_;
};

// ---------------------------------------------------------------------------------------------
// The heap budget

// The heap's ceiling where it is hard: WebAssembly's memory stops at 2 GiB (the build's
// MAXIMUM_MEMORY; the bindings check that the two agree), and an allocation past it fails (a C++
// allocation then aborts the module). The documented size limits are derived from it (see
// AnalysisLimits, model::ModelLimits, docs/architecture.md "Memory").
struct HeapCeiling {
    static constexpr size_t bytes = size_t{2048} << 20;
    // Kept free for the bindings' copies in and out and for small allocations after a check.
    static constexpr size_t reserve = size_t{64} << 20;
};

// Work whose memory grows with its input (parsing, analysis, tokenizing, the model) checks a
// HeapBudget before it allocates and, while parsing, as it goes: it asks malloc for what it is
// about to need plus HeapCeiling::reserve and frees it at once. Where the heap has a ceiling
// (WebAssembly) malloc returns null past it, so the work stops with an error instead of aborting
// in an allocation that cannot be checked (a C++ container's); where the heap grows at once
// (WebAssembly's memory never shrinks) the memory is then there for the work. The WebAssembly
// bindings enable it; natively it is off (allocations are lazy there, so a probe proves nothing).
struct HeapBudget {
    bool enabled = false;
    // An error naming `what` when malloc cannot give `bytes` plus the reserve.
    Status reserve(double bytes, const char* what) const;
    // Whether the reserve alone can no longer be allocated (checked while parsing).
    bool exhausted() const;
};

} // namespace hirope
