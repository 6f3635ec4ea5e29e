// Internal: row rotation shared by rotate() and the attention plan.
#pragma once

#include "core/internal.h"

namespace hirope {
namespace detail {

// out (n x heads*head_dim) = the scheme applied to x for one role and branch.
void rotate_rows(const Context& c, const Positions& pos, Role role, Branch branch, const float* x,
                 int heads, float* out);

// The same for tokens [begin, end) of the context only: x and out hold those rows (row 0 is token
// begin). The context's sequence length still sets the frequencies (dynamic NTK, LongRoPE).
void rotate_range(const Context& c, const Positions& pos, Role role, Branch branch, const float* x,
                  int heads, int64_t begin, int64_t end, float* out);

// Error naming `name` and the first index whose value is NaN or infinite.
Status check_finite(const float* x, int64_t count, const char* name);

} // namespace detail
} // namespace hirope
