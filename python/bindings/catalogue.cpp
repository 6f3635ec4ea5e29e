// The scheme table (scheme_catalogue() in src/core/catalogue.cpp) for Python: the catalogue as
// the core writes it (catalogue_json, parsed by json.loads: hirope.catalogue, the same object as
// hr.catalogue), and scheme dicts handed to the core's reader (read_scheme in
// src/core/scheme_reader.cpp) through a SchemeSource over pybind11 handles: this file only says
// what kind a Python value is and how Python spells a few phrases. Nothing about a particular
// scheme is written here.
#include "common.h"
#include "hirope/hirope.h"

#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace hirope {
namespace python {

py::object parse_json(const std::string& text) {
    return py::module_::import("json").attr("loads")(py::str(text));
}

py::list enum_list(const std::vector<EnumValue>& list) {
    return parse_json(enum_list_json(list));
}

namespace {

std::vector<void (*)(py::dict*)>& catalogue_parts() {
    static std::vector<void (*)(py::dict*)> parts;
    return parts;
}

// The core's table as the core writes it (catalogue_json), then the other libraries' parts.
py::dict catalogue() {
    py::dict out = parse_json(catalogue_json());
    out["languages"] = py::list();
    for (const char* key : {"gaps", "hierarchies", "unitKinds", "byteHierarchies", "contextLimits"})
        out[key] = py::list();
    for (auto part : catalogue_parts()) part(&out);
    return out;
}

std::string quoted_names(const std::vector<std::string>& names) {
    std::string out;
    for (size_t i = 0; i < names.size(); ++i) out += (i ? ", '" : "'") + names[i] + "'";
    return out;
}

const SchemeDialect kPythonDialect{
    "a dict such as {'type': 'rope'} or a scheme name",
    "a dict such as {'type': 'yarn', 'factor': 4, 'originalLength': 4096}", "a list of numbers",
    true, // scaling=None: no scaling
};

// A Python value as the core's reader sees it: dicts are objects, lists, tuples and numpy arrays
// lists, bools booleans (never numbers), ints, floats and numpy numbers numbers.
class PySource final : public SchemeSource {
  public:
    explicit PySource(py::object value, bool present = true)
        : value_(std::move(value)), present_(present) {}
    Kind kind() const override {
        if (!present_) return Kind::absent;
        if (value_.is_none()) return Kind::null;
        if (is_boolean(value_)) return Kind::boolean;
        if (is_number(value_)) return Kind::number;
        if (py::isinstance<py::str>(value_)) return Kind::string;
        if (py::isinstance<py::dict>(value_)) return Kind::object;
        if (py::isinstance<py::list>(value_) || py::isinstance<py::tuple>(value_) ||
            py::isinstance<py::array>(value_))
            return Kind::list;
        return Kind::other;
    }
    std::string describe() const override {
        return present_ ? python::describe(value_) : std::string("None");
    }
    double number(bool* integer) const override {
        *integer = is_integer(value_);
        return number_value(value_);
    }
    bool boolean() const override { return PyObject_IsTrue(value_.ptr()) == 1; }
    std::string text() const override { return value_.cast<std::string>(); }
    bool keys(std::vector<std::string>* out, std::string* bad_key) const override {
        for (auto item : py::reinterpret_borrow<py::dict>(value_)) {
            if (!py::isinstance<py::str>(item.first)) {
                *bad_key = python::describe(item.first);
                return false;
            }
            out->push_back(item.first.cast<std::string>());
        }
        return true;
    }
    std::unique_ptr<SchemeSource> at(const std::string& key) const override {
        py::dict d = py::reinterpret_borrow<py::dict>(value_);
        if (!d.contains(key)) return std::unique_ptr<SchemeSource>(new PySource(py::none(), false));
        return std::unique_ptr<SchemeSource>(new PySource(d[py::str(key)]));
    }
    size_t length() const override { return py::len(value_); }
    std::unique_ptr<SchemeSource> item(size_t i) const override {
        return std::unique_ptr<SchemeSource>(
            new PySource(value_[py::int_(static_cast<py::ssize_t>(i))]));
    }
    const SchemeDialect& dialect() const override { return kPythonDialect; }

  private:
    py::object value_;
    bool present_;
};

} // namespace

void add_catalogue_part(void (*part)(py::dict* out)) {
    catalogue_parts().push_back(part);
}

int enum_value(const std::vector<EnumValue>& list, py::handle name, const std::string& where) {
    if (py::isinstance<py::str>(name)) {
        const std::string n = name.cast<std::string>();
        for (const EnumValue& e : list)
            if (n == e.name) return e.value;
    }
    std::vector<std::string> names;
    for (const EnumValue& e : list) names.push_back(e.name);
    fail(where + " must be one of " + quoted_names(names) + ", got " + describe(name));
}

SchemeSpec read_scheme(py::handle value) {
    SchemeReading reading;
    check(hirope::read_scheme(PySource(py::reinterpret_borrow<py::object>(value)), &reading));
    SchemeSpec out;
    out.scheme = std::move(reading.scheme);
    out.name = reading.info->name;
    out.rotary = reading.info->rotary;
    out.windowed = reading.info->windowed;
    // Past max_tokens every token is in segment 0 (10**30 too, as in the JS API).
    out.segment_size = static_cast<int64_t>(
        std::min(reading.option("segmentSize"), static_cast<double>(Limits::max_tokens) + 1));
    return out;
}

void register_catalogue(py::module_& m) {
    m.def("catalogue", &catalogue,
          "The scheme table: schemes, scalings, their parameters (name, kind, default, range), "
          "value lists, default rules, languages, in the JS API's words (hr.catalogue).");
    m.def(
        "normalize_scheme",
        [](py::handle scheme) {
            SchemeSpec s = read_scheme(scheme);
            // The scheme as the core holds it, in the JS API's words (checked by validate() later).
            py::dict out = parse_json(scheme_json(s.scheme));
            if (s.segment_size) out["segmentSize"] = s.segment_size;
            return out;
        },
        py::arg("scheme"));
}

} // namespace python
} // namespace hirope
