// Embind glue of the core's unseen_pairs (hirope.h, "Angles unseen in training"): which frequency
// pairs of a layer meet angles that training at its length never showed. The JS layer
// (schemes-api.js unseenPairs) checks the arguments' types and names them in its own words first.
#include "common.h"
#include "hirope/hirope.h"

#include <cstdint>
#include <vector>

#include <emscripten/bind.h>
#include <emscripten/val.h>

using emscripten::val;
using namespace hirope;
using namespace hirope::bindings;

namespace {

val unseenPairs(val scheme, int head_dim, double trained_length, double length, double reach,
                val band_distances, bool scaled_after_training) {
    UnseenRequest r;
    r.scheme = to_scheme(scheme);
    r.head_dim = head_dim;
    r.trained_length = static_cast<int64_t>(trained_length);
    r.length = static_cast<int64_t>(length);
    r.reach = static_cast<int64_t>(reach);
    r.band_distances = emscripten::vecFromJSArray<double>(band_distances);
    r.scaled_after_training = scaled_after_training;
    UnseenPairs u;
    const Status st = unseen_pairs(r, &u);
    val out = val::object();
    out.set("error", result(st));
    if (!st.ok()) return out;
    out.set("count", u.count);
    out.set("pairs", u.pairs);
    out.set("rotated", u.rotated);
    out.set("trainedDistance", static_cast<double>(u.trained_distance));
    out.set("distance", static_cast<double>(u.distance));
    out.set("splitPair", u.split_pair);
    out.set("unseen", typed_copy("Uint8Array", u.unseen));
    out.set("trainedFrequencies", typed_copy("Float64Array", u.trained_frequencies));
    out.set("frequencies", typed_copy("Float64Array", u.frequencies));
    out.set("distances", typed_copy("Float64Array", u.distances));
    out.set("angles", typed_copy("Float64Array", u.angles));
    out.set("seenAngles", typed_copy("Float64Array", u.seen_angles));
    out.set("limits", typed_copy("Float64Array", u.limits));
    return out;
}

} // namespace

EMSCRIPTEN_BINDINGS(hirope_unseen) {
    emscripten::function("unseenPairs", &unseenPairs);
}
