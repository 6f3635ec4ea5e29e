// The scheme table (scheme_catalogue() in src/core/catalogue.cpp) for Python: the catalogue as
// the core writes it (catalogue_json, parsed by json.loads: hirope.catalogue, the same object as
// hr.catalogue), the scheme dicts read through its rows (read_scheme: what wasm/catalogue.js
// normalizeScheme does on the JS side). The core writes its messages in the users' words
// already. Nothing about a particular scheme is written here.
#include "common.h"
#include "hirope/hirope.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <string>
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

const ParamInfo* find_param(const std::vector<ParamInfo>& params, const char* field) {
    for (const ParamInfo& p : params)
        if (p.field && std::string(p.field) == field) return &p;
    return nullptr;
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

bool in_range(const ParamInfo& p, double x) {
    if (!std::isfinite(x)) return false;
    if (!p.allowed.empty()) {
        for (double a : p.allowed)
            if (a == x) return true;
        return false;
    }
    if (std::isfinite(p.min) && (p.min_open ? !(x > p.min) : !(x >= p.min))) return false;
    if (std::isfinite(p.max) && (p.max_open ? !(x < p.max) : !(x <= p.max))) return false;
    return true;
}

// One given value of a parameter, checked for its kind (its range is validate()'s, except for an
// option that is no field), into the scheme. Returns the value as a double.
double read_value(const ParamInfo& p, py::handle value, const std::string& where, Scheme* s) {
    const std::string path = where + "." + p.name;
    switch (p.kind) {
    case ParamKind::enumeration: {
        int e = enum_value(*value_list(p.values), value, path);
        if (p.set) p.set(*s, e);
        return e;
    }
    case ParamKind::list: {
        const size_t cap = static_cast<size_t>(Limits::max_head_dim / 2);
        py::module_ np = py::module_::import("numpy");
        if (!(py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value) ||
              py::isinstance(value, np.attr("ndarray"))))
            fail(path + " must be a list of numbers, got " + describe(value));
        const size_t length = py::len(value);
        if (length > cap)
            fail(path + " has " + std::to_string(length) +
                 " entries, more than rotaryDim/2 can be (at most " + std::to_string(cap) + ")");
        std::vector<double> items;
        py::sequence seq = py::reinterpret_borrow<py::sequence>(
            py::isinstance(value, np.attr("ndarray")) ? value.attr("tolist")() : value);
        size_t i = 0;
        for (py::handle x : seq) {
            if (!is_number(x))
                fail(path + "[" + std::to_string(i) + "] must be a number, got " + describe(x));
            items.push_back(number_value(x));
            ++i;
        }
        if (p.list) *p.list(*s) = items;
        return 0;
    }
    case ParamKind::boolean: {
        const bool b = boolean_arg(value, path);
        if (p.set) p.set(*s, b ? 1 : 0);
        return b ? 1 : 0;
    }
    default: {
        if (!is_number(value)) fail(path + " must be a number, got " + describe(value));
        const double x = number_value(value);
        const bool integral = is_integer(value) || (std::isfinite(x) && x == std::floor(x));
        if (p.kind == ParamKind::integer && !integral)
            fail(path + " must be an integer, got " + describe(value));
        if (!std::isfinite(x) && is_integer(value)) // an int past a double's range
            fail(path + (x > 0 ? " is too large: " : " is too small: ") + describe(value));
        if (!p.field && !in_range(p, x))
            fail(path + " must be " + param_range(p) + ", got " + describe(value));
        if (p.kind == ParamKind::integer && p.field && std::fabs(x) > 2147483647.0)
            fail(!in_range(p, x) ? path + " must be " + param_range(p) + ", got " + describe(value)
                                 : path + " is too large: " + describe(value));
        if (p.set) p.set(*s, x);
        return x;
    }
    }
}

// The keys of a scheme (or scaling) dict, each a string the type takes ('type' always).
py::dict read_dict(py::handle value, const std::vector<ParamInfo>& params, int type,
                   const std::string& where) {
    py::dict d = py::reinterpret_borrow<py::dict>(value);
    std::vector<std::string> allowed;
    for (const ParamInfo& p : params)
        if (takes(p, type)) allowed.push_back(p.name);
    for (auto item : d) {
        if (!py::isinstance<py::str>(item.first))
            fail(where + " has a key that is not a string: " + describe(item.first));
        const std::string key = item.first.cast<std::string>();
        if (key == "type") continue;
        bool known = false;
        for (const std::string& a : allowed) known = known || a == key;
        if (!known) {
            std::string list;
            for (size_t i = 0; i < allowed.size(); ++i) list += (i ? ", " : "") + allowed[i];
            fail(where + " has an unknown key '" + key + "'" +
                 (allowed.empty() ? std::string(" (it takes no parameters)")
                                  : " (known keys: " + list + ")"));
        }
    }
    return d;
}

void read_scaling(py::handle given, Scheme* s) {
    const SchemeCatalogue& v = scheme_catalogue();
    if (given.is_none()) return; // the default: no scaling
    if (!py::isinstance<py::dict>(given))
        fail("scheme.scaling must be a dict such as {'type': 'yarn', 'factor': 4, "
             "'originalLength': 4096}, got " +
             describe(given));
    py::dict d = py::reinterpret_borrow<py::dict>(given);
    py::object name = d.contains("type") ? py::object(d["type"]) : py::object(py::str("none"));
    const ScalingInfo* info = nullptr;
    std::vector<std::string> names;
    for (const ScalingInfo& x : v.scalings) {
        names.push_back(x.name);
        for (const char* a : x.aliases) names.push_back(a);
    }
    if (py::isinstance<py::str>(name)) {
        const std::string n = name.cast<std::string>();
        for (const ScalingInfo& x : v.scalings) {
            if (n == x.name) info = &x;
            for (const char* a : x.aliases)
                if (n == a) info = &x;
        }
    }
    if (!info)
        fail("scheme.scaling.type must be one of " + quoted_names(names) + ", got " +
             describe(name));
    read_dict(d, v.scaling_params, static_cast<int>(info->type),
              "scheme.scaling (type '" + name.cast<std::string>() + "')");
    s->scaling.type = info->type;
    for (const ParamInfo& p : v.scaling_params) {
        if (d.contains(p.name))
            read_value(p, d[p.name], "scheme.scaling", s);
        else if (p.required && takes(p, static_cast<int>(info->type)) && p.set)
            p.set(*s, std::numeric_limits<double>::quiet_NaN()); // the core names it
    }
}

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
    const SchemeCatalogue& v = scheme_catalogue();
    py::object given = py::reinterpret_borrow<py::object>(value);
    if (py::isinstance<py::str>(given)) {
        py::dict d;
        d["type"] = given;
        given = d;
    }
    if (!py::isinstance<py::dict>(given))
        fail("scheme must be a dict such as {'type': 'rope'} or a scheme name, got " +
             describe(given));
    py::dict d = py::reinterpret_borrow<py::dict>(given);
    py::object type = d.contains("type") ? py::object(d["type"]) : py::object(py::none());
    const SchemeInfo* info = nullptr;
    std::vector<std::string> names;
    for (const SchemeInfo& s : v.schemes) {
        names.push_back(s.name);
        if (py::isinstance<py::str>(type) && type.cast<std::string>() == s.name) info = &s;
    }
    if (!info)
        fail("scheme.type must be one of " + quoted_names(names) + ", got " + describe(type));
    read_dict(d, v.scheme_params, static_cast<int>(info->type),
              "scheme (type '" + std::string(info->name) + "')");
    SchemeSpec out;
    out.name = info->name;
    out.rotary = info->rotary;
    out.windowed = info->windowed;
    out.scheme.type = info->type;
    for (const ParamInfo& p : v.scheme_params) {
        if (p.kind == ParamKind::scaling) {
            read_scaling(d.contains(p.name) ? py::object(d[p.name]) : py::object(py::none()),
                         &out.scheme);
            continue;
        }
        double x = p.option_default;
        if (d.contains(p.name))
            x = read_value(p, d[p.name], "scheme", &out.scheme);
        else if (p.required && takes(p, static_cast<int>(info->type)) && p.set)
            p.set(out.scheme, std::numeric_limits<double>::quiet_NaN());
        // Past max_tokens every token is in segment 0 (10**30 too, as in the JS API).
        if (!p.field && std::string(p.name) == "segmentSize")
            out.segment_size =
                static_cast<int64_t>(std::min(x, static_cast<double>(Limits::max_tokens) + 1));
    }
    // Defaults that depend on the type or on another parameter (the table's rules).
    for (const DefaultRule& r : v.default_rules) {
        const ParamInfo* target = find_param(v.scheme_params, r.field);
        if (!target || d.contains(target->name)) continue;
        if (!(r.schemes >> static_cast<int>(info->type) & 1u)) continue;
        if (r.when) {
            const ParamInfo* when = find_param(v.scheme_params, r.when);
            if (!when || when->get(out.scheme) != r.when_value) continue;
        }
        const double from = r.from ? find_param(v.scheme_params, r.from)->get(out.scheme) : 0;
        target->set(out.scheme, (r.offset + r.scale * from) / r.divisor);
    }
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
