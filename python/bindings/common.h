// What the Python binding's files share (python/bindings/: one file per library, as
// wasm/bindings/, each with a register_* function that module.cpp calls): arrays travel as numpy
// arrays whose dtype and length are checked here before anything is read (float32 matrices,
// int32 positions); schemes arrive as dicts in the JS API's words ({'type': 'hirope',
// 'segmentSize': 64}) and are read by the core's read_scheme through a SchemeSource over
// pybind11 handles (catalogue.cpp), never a second copy of its rules; a core Status that is not ok
// is raised as hirope.HiRoPEError (a ValueError) with the core's message, written in the words
// Python callers write. Public headers only (include/hirope/).
#pragma once

#include "hirope/analysis.h"
#include "hirope/hirope.h"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

namespace hirope {
namespace python {

namespace py = pybind11;

// Raised as hirope.HiRoPEError (module.cpp registers the translation).
class Failure : public std::runtime_error {
  public:
    explicit Failure(const std::string& message) : std::runtime_error(message) {}
};

[[noreturn]] inline void fail(const std::string& message) {
    throw Failure(message);
}

// A core Status as a HiRoPEError: the core names scheme parameters as users write them
// (scheme.scaling.originalLength) and function arguments as Python does (head_dim).
inline void check(const Status& st) {
    if (!st.ok()) fail(st.message());
}

// repr() of a value, for messages ("got 'foo'"); an integer of more than 40 digits by its size.
std::string describe(py::handle value);

// A count with thousands separators, as every size message writes it (as the JS package's):
// 1,048,576.
inline std::string grouped(size_t n) {
    std::string digits = std::to_string(n), out;
    for (size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

// Arguments as Python callers pass them, read one way for every function (and for the package's
// Python layer, through _hirope.as_integer, as_number and as_boolean): an integer is an int or a
// numpy integer, a number also a float or a numpy floating, a boolean a bool or a numpy.bool_.
// A boolean is never a number, as in the JS API.
bool is_boolean(py::handle value);
bool is_integer(py::handle value);
bool is_number(py::handle value);

// An integer argument in [min, max]; any other value (a float, a bool, an int past 64 bits) is a
// HiRoPEError naming the argument: "must be an integer", "must be at least <min>" or "must be at
// most <max>" (each "must be <requirement>" when it is given; past 64 bits always "at most"),
// then ", got <value>".
int64_t integer_arg(py::handle value, const std::string& name, int64_t min, int64_t max,
                    const std::string& requirement = "");
// A number argument as a double; anything else (an int too large for a double too) is a
// HiRoPEError "<name> must be <requirement>, got <value>". Ranges are the caller's.
double number_arg(py::handle value, const std::string& name, const std::string& requirement);
// The value of an is_number() value as a double; an int past a double's range gives +-infinity
// (for a range check that names the value).
double number_value(py::handle value);
// A boolean argument; anything else is "<name> must be a boolean, got <value>".
bool boolean_arg(py::handle value, const std::string& name);

// A scheme read from its dict (or a name for {'type': name}) by the core (hirope::read_scheme):
// the table's defaults and default rules filled in, names mapped to enumerators, kinds checked
// (ranges: validate()).
struct SchemeSpec {
    Scheme scheme;
    std::string name;
    int64_t segment_size = 0; // the option that derives positions.unit (0: none)
    bool rotary = false, windowed = false;
};
SchemeSpec read_scheme(py::handle value);

// The enumerator of `name` in one of the table's value lists, or a HiRoPEError naming `where`
// and the list's names.
int enum_value(const std::vector<EnumValue>& list, py::handle name, const std::string& where);

// A float32 array of `count` elements in C order (a copy only when it is not C-contiguous).
py::array_t<float, py::array::c_style> float32_array(py::handle value, const char* name,
                                                     int64_t count, const char* shape);

// Positions of n tokens: token required, unit and statement optional (None). With a scheme's
// segmentSize and no unit, unit = floor(token / segmentSize).
struct PositionArrays {
    std::vector<int32_t> token, unit, statement;
    Positions view() const {
        return {token.data(), unit.empty() ? nullptr : unit.data(),
                statement.empty() ? nullptr : statement.data()};
    }
};
PositionArrays read_positions(py::handle token, py::handle unit, py::handle statement, int64_t n,
                              int64_t segment_size);

// The UTF-8 bytes of a str (or the bytes of a bytes object) of at most `limit` bytes, checked
// before they are copied (a str's length first: each character is at least one byte).
std::string text_bytes(py::handle value, const char* name, size_t limit);

// A new numpy array holding a copy of v, in the given shape (default: 1-D).
template <typename T>
py::array_t<T> numpy_copy(const std::vector<T>& v, std::vector<py::ssize_t> shape = {}) {
    if (shape.empty()) shape.push_back(static_cast<py::ssize_t>(v.size()));
    py::array_t<T> out(shape);
    if (!v.empty()) std::copy(v.begin(), v.end(), out.mutable_data());
    return out;
}

// Positions of n tokens under the keys the API's results share ({'token', 'unit', 'statement'}:
// analyze()'s and Model.positions()'s), each a numpy copy.
inline void add_positions(py::dict* out, const std::vector<int32_t>& token,
                          const std::vector<int32_t>& unit, const std::vector<int32_t>& statement) {
    (*out)["token"] = numpy_copy(token);
    (*out)["unit"] = numpy_copy(unit);
    (*out)["statement"] = numpy_copy(statement);
}

// The scheme table's value lists as lists of {name, value, label, description}.
py::list enum_list(const std::vector<EnumValue>& list);

// A library outside the core adds its part of the catalogue (languages, gap policies, model
// hierarchies ...), as wasm/bindings/ does: catalogue() writes the core's keys, then calls every
// part added.
void add_catalogue_part(void (*part)(py::dict* out));

// The vocabulary of a _hirope.Tokenizer (tokenizers.cpp), or nullptr for None (lexical).
const Vocabulary* vocabulary_of(py::handle tokenizer);

void register_core(py::module_& m);
void register_catalogue(py::module_& m);
void register_tokenizers(py::module_& m);
void register_analysis(py::module_& m);
void register_model(py::module_& m);
void register_model_config(py::module_& m);
void register_unseen(py::module_& m);

} // namespace python
} // namespace hirope
