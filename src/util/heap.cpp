// HeapBudget: the probe before allocating where the heap has a hard ceiling (see status.h).
#include "hirope/status.h"

#include <cstdio>
#include <cstdlib>

namespace hirope {

namespace {
// Whether malloc can give `bytes` now; what it gave is returned at once.
bool can_allocate(double bytes) {
    if (!(bytes < static_cast<double>(HeapCeiling::bytes))) return false;
    // Through a volatile: a compiler may otherwise drop a malloc whose block is never used.
    void* volatile p = std::malloc(static_cast<size_t>(bytes));
    if (!p) return false;
    std::free(p);
    return true;
}

std::string mib(double bytes) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f MiB", bytes / (1 << 20));
    return buf;
}
} // namespace

Status HeapBudget::reserve(double bytes, const char* what) const {
    if (!enabled || can_allocate(bytes + static_cast<double>(HeapCeiling::reserve))) return {};
    return Status::error(std::string("out of memory: ") + what + " needs about " + mib(bytes) +
                         " more than the heap can give (WebAssembly memory stops at " +
                         mib(static_cast<double>(HeapCeiling::bytes)) + ")");
}

bool HeapBudget::exhausted() const {
    return enabled && !can_allocate(static_cast<double>(HeapCeiling::reserve));
}

} // namespace hirope
