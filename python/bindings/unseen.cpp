// The core's unseen_pairs (hirope.h, "Angles unseen in training") for the Python layer
// (hirope.unseen_pairs): which frequency pairs of a layer meet angles that training at its length
// never showed. Arguments are read here as Python callers pass them; ranges are the core's.
#include "common.h"

#include <cstdint>
#include <string>
#include <vector>

namespace hirope {
namespace python {

namespace {

constexpr int64_t kMaxLength = int64_t{1} << 53;

int64_t length_arg(py::handle value, const char* name, int64_t min) {
    return integer_arg(value, name, min, kMaxLength,
                       "an integer from " + std::to_string(min) + " to 2^53");
}

py::dict unseen(py::handle scheme_value, py::handle head_dim, py::handle trained_length,
                py::handle length, py::handle reach, py::handle band_distances,
                py::handle scaled_after_training) {
    const SchemeSpec spec = read_scheme(scheme_value);
    if (!spec.rotary) fail("scheme '" + spec.name + "' has no rotary frequencies");
    UnseenRequest r;
    r.scheme = spec.scheme;
    r.head_dim = static_cast<int>(
        integer_arg(head_dim, "head_dim", 1, Limits::max_head_dim, "a positive even integer"));
    r.trained_length = length_arg(trained_length, "trained_length", 1);
    r.length = length_arg(length, "length", 1);
    r.reach = reach.is_none() ? 0 : length_arg(reach, "reach", 0);
    if (!band_distances.is_none()) {
        if (!py::isinstance<py::sequence>(band_distances) ||
            py::isinstance<py::str>(band_distances))
            fail("band_distances must be a sequence of numbers or None, got " +
                 describe(band_distances));
        const py::sequence seq = py::reinterpret_borrow<py::sequence>(band_distances);
        for (size_t i = 0; i < seq.size(); ++i)
            r.band_distances.push_back(number_arg(
                seq[i], "band_distances[" + std::to_string(i) + "]", "a finite number >= 0"));
    }
    r.scaled_after_training = boolean_arg(scaled_after_training, "scaled_after_training");
    UnseenPairs u;
    check(unseen_pairs(r, &u));
    py::dict out;
    out["count"] = u.count;
    out["pairs"] = u.pairs;
    out["rotated"] = u.rotated;
    out["trained_distance"] = u.trained_distance;
    out["distance"] = u.distance;
    out["split_pair"] = u.split_pair;
    py::array_t<bool> flags(static_cast<py::ssize_t>(u.unseen.size()));
    for (size_t j = 0; j < u.unseen.size(); ++j) flags.mutable_data()[j] = u.unseen[j] != 0;
    out["unseen"] = flags;
    out["trained_frequencies"] = numpy_copy(u.trained_frequencies);
    out["frequencies"] = numpy_copy(u.frequencies);
    out["distances"] = numpy_copy(u.distances);
    out["angles"] = numpy_copy(u.angles);
    out["seen_angles"] = numpy_copy(u.seen_angles);
    out["limits"] = numpy_copy(u.limits);
    return out;
}

} // namespace

void register_unseen(py::module_& m) {
    m.def("unseen_pairs", &unseen, py::arg("scheme"), py::arg("head_dim"),
          py::arg("trained_length"), py::arg("length"), py::arg("reach") = py::none(),
          py::arg("band_distances") = py::none(), py::arg("scaled_after_training") = false);
}

} // namespace python
} // namespace hirope
