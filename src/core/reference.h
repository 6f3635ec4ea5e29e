// Internal: the double-precision reference kernel. It never rotates vectors: every logit is
// written from the relative-distance form of the score (Eq. 2 of the HiRoPE paper) with the
// scheme's per-band distance, so it checks the fast path by an independent formulation.
#pragma once

#include "core/internal.h"

namespace hirope {
namespace detail {

// out rows [r0, r1) x n of head h: scaled logits for the entries of keys (the others are left
// as they are), query row i's score multiplied by query_scales[i] (nullptr: 1), soft-capped to
// softcap * tanh(logit / softcap) when softcap > 0.
void reference_logits(const Context& c, const Positions& pos, const double* q, const double* k,
                      int heads, int h, const KeyRange& keys, const double* query_scales,
                      double scale, double alibi_slope, double softcap, int64_t r0, int64_t r1,
                      float* out);

// In place softmax over x[0..len) and one more column `sink` (-infinity: none) that is dropped,
// computed in double; false when a value is not finite.
bool reference_softmax(float* x, int64_t len, double sink);

// out (rows x hd, row stride ldo) = probs (rows x depth, row stride ldp) . v (depth x hd, ldv).
void reference_output(const float* probs, int64_t ldp, const double* v, int64_t ldv, int64_t rows,
                      int64_t depth, int64_t hd, float* out, int64_t ldo);

} // namespace detail
} // namespace hirope
