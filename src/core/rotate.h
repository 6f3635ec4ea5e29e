// Internal: row rotation shared by rotate() and the attention plan.
#pragma once

#include "core/internal.h"

namespace hirope {
namespace detail {

// out (n x heads*head_dim) = the scheme applied to x for one role and branch. An error (from
// rotation_overflow) when a rotated row is not finite: finite inputs times a factor beyond the
// float range (the xPos scale, the attention factor, the log-n scale).
Status rotate_rows(const Context& c, const Positions& pos, Role role, Branch branch, const float* x,
                   int heads, float* out);

// The same for tokens [begin, end) of the context only: x and out hold those rows (row 0 is token
// begin). The context's sequence length still sets the frequencies (dynamic NTK, LongRoPE).
Status rotate_range(const Context& c, const Positions& pos, Role role, Branch branch,
                    const float* x, int heads, int64_t begin, int64_t end, float* out);

// xPos scale of pair p for token t in a role (docs/schemes.md section 4.3).
double xpos_scale(const Context& c, const Positions& pos, Role role, int p, int64_t t);

// The error for a transform of token t that left the float range, naming the scheme, the token,
// its position and (xPos) the scale.
Status rotation_overflow(const Context& c, const Positions& pos, Role role, int64_t t);

// Error naming `name` and the first index whose value is NaN or infinite.
Status check_finite(const float* x, int64_t count, const char* name);

} // namespace detail
} // namespace hirope
