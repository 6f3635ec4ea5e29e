// The scheme table (scheme_catalogue() in src/core/catalogue.cpp) for Python: the catalogue as
// plain dicts and lists in the JS API's words (hirope.catalogue, the same object as hr.catalogue:
// keys in camelCase, None for "none"), the scheme dicts read through its rows (read_scheme: what
// wasm/catalogue.js normalizeScheme does on the JS side), and the core's messages with their
// field names mapped (core_message). Nothing about a particular scheme is written here.
#include "common.h"
#include "hirope/hirope.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <regex>
#include <string>
#include <vector>

namespace hirope {
namespace python {

py::list enum_list(const std::vector<EnumValue>& list) {
    py::list out;
    for (const EnumValue& e : list) {
        py::dict o;
        o["name"] = e.name;
        o["value"] = e.value;
        o["label"] = e.label;
        o["description"] = e.description;
        out.append(o);
    }
    return out;
}

namespace {

std::vector<void (*)(py::dict*)>& catalogue_parts() {
    static std::vector<void (*)(py::dict*)> parts;
    return parts;
}

py::object finite_or_none(double x) {
    return std::isfinite(x) ? py::object(py::float_(x)) : py::object(py::none());
}

// Integers in the table as Python ints (JSON writes 1 and 1.0 alike; Python compares them equal).
py::object number(double x) {
    if (std::isfinite(x) && x == std::floor(x) && std::fabs(x) < 9007199254740992.0)
        return py::int_(static_cast<long long>(x));
    return py::float_(x);
}

py::object user_value(const ParamInfo& p, double x) {
    if (p.kind == ParamKind::boolean) return py::bool_(x != 0);
    if (p.kind == ParamKind::enumeration)
        for (const EnumValue& e : *value_list(p.values))
            if (e.value == static_cast<int>(x)) return py::str(e.name);
    return number(x);
}

const ParamInfo* find_param(const std::vector<ParamInfo>& params, const char* field) {
    for (const ParamInfo& p : params)
        if (p.field && std::string(p.field) == field) return &p;
    return nullptr;
}

py::dict condition(const std::vector<ParamInfo>& params, const char* field, double value) {
    const ParamInfo* p = find_param(params, field);
    py::dict o;
    o["parameter"] = p ? std::string(p->name) : std::string(field);
    o["equals"] = p ? user_value(*p, value) : number(value);
    return o;
}

template <typename Info> py::list names_taking(const std::vector<Info>& types, uint32_t mask) {
    py::list out;
    for (const Info& t : types)
        if (mask >> static_cast<int>(t.type) & 1u) out.append(t.name);
    return out;
}

py::list param_list(const std::vector<ParamInfo>& params, bool scaling) {
    const SchemeCatalogue& v = scheme_catalogue();
    const Scheme defaults;
    py::list out;
    for (const ParamInfo& p : params) {
        py::dict o;
        o["name"] = p.name;
        o["field"] = p.field ? py::object(py::str(std::string(scaling ? "scaling." : "") + p.field))
                             : py::object(py::none());
        o["kind"] = param_kind_name(p.kind);
        o["description"] = p.description;
        if (p.kind == ParamKind::list)
            o["default"] = py::list();
        else if (p.kind == ParamKind::scaling)
            o["default"] = "none";
        else if (p.get)
            o["default"] = user_value(p, p.get(defaults));
        else
            o["default"] = number(p.option_default);
        o["required"] = p.required;
        const bool numeric = p.kind == ParamKind::number || p.kind == ParamKind::integer;
        o["min"] = finite_or_none(p.min);
        o["max"] = finite_or_none(p.max);
        o["minOpen"] = p.min_open;
        o["maxOpen"] = p.max_open;
        py::list allowed;
        for (double x : p.allowed) allowed.append(number(x));
        o["allowed"] = allowed;
        o["limit"] = finite_or_none(p.limit);
        o["step"] = p.step > 0                     ? number(p.step)
                    : p.kind == ParamKind::integer ? py::object(py::int_(1))
                                                   : py::object(py::none());
        o["range"] = numeric ? py::object(py::str(param_range(p))) : py::object(py::none());
        o["values"] =
            p.values ? py::object(py::str(published_list_name(p.values))) : py::object(py::none());
        o[scaling ? "scalings" : "schemes"] =
            scaling ? names_taking(v.scalings, p.takes) : names_taking(v.schemes, p.takes);
        o["onlyIf"] = p.only_if ? py::object(condition(params, p.only_if, p.only_if_value))
                                : py::object(py::none());
        out.append(o);
    }
    return out;
}

template <typename Info>
py::list parameters_taken(const Info& t, const std::vector<ParamInfo>& params) {
    py::list out;
    for (const ParamInfo& p : params)
        if (takes(p, static_cast<int>(t.type))) out.append(p.name);
    return out;
}

py::dict catalogue() {
    const SchemeCatalogue& v = scheme_catalogue();
    py::dict out;
    py::list schemes;
    for (const SchemeInfo& s : v.schemes) {
        py::dict o;
        o["name"] = s.name;
        o["value"] = static_cast<int>(s.type);
        o["label"] = s.label;
        o["rotary"] = s.rotary;
        o["windowed"] = s.windowed;
        o["needsUnits"] = s.needs_units;
        o["description"] = s.description;
        o["parameters"] = parameters_taken(s, v.scheme_params);
        schemes.append(o);
    }
    out["schemes"] = schemes;
    py::list scalings;
    for (const ScalingInfo& s : v.scalings) {
        py::dict o;
        o["name"] = s.name;
        o["value"] = static_cast<int>(s.type);
        o["label"] = s.label;
        py::list aliases;
        for (const char* a : s.aliases) aliases.append(a);
        o["aliases"] = aliases;
        o["description"] = s.description;
        o["parameters"] = parameters_taken(s, v.scaling_params);
        scalings.append(o);
    }
    out["scalings"] = scalings;
    out["parameters"] = param_list(v.scheme_params, false);
    out["scalingParameters"] = param_list(v.scaling_params, true);
    out["layouts"] = enum_list(v.layouts);
    out["sinusoidalVariants"] = enum_list(v.sinusoidal_variants);
    out["outputs"] = enum_list(v.outputs);
    out["roles"] = enum_list(v.roles);
    out["branches"] = enum_list(v.branches);
    out["kernels"] = enum_list(v.kernels);
    py::list rules;
    for (const DefaultRule& r : v.default_rules) {
        const ParamInfo* target = find_param(v.scheme_params, r.field);
        py::dict o;
        o["parameter"] = target ? std::string(target->name) : std::string(r.field);
        o["schemes"] = names_taking(v.schemes, r.schemes);
        o["when"] = r.when ? py::object(condition(v.scheme_params, r.when, r.when_value))
                           : py::object(py::none());
        if (r.from) {
            o["from"] = find_param(v.scheme_params, r.from)->name;
            o["offset"] = number(r.offset);
            o["scale"] = number(r.scale);
            o["divisor"] = number(r.divisor);
        } else {
            o["value"] =
                target ? user_value(*target, r.offset / r.divisor) : number(r.offset / r.divisor);
        }
        o["description"] = r.description;
        rules.append(o);
    }
    out["defaultRules"] = rules;
    py::list names;
    for (const NameInfo& n : v.arguments) {
        py::dict o;
        o["field"] = n.field;
        o["name"] = n.name;
        names.append(o);
    }
    out["arguments"] = names;
    const std::vector<EnumValue> none;
    out["languages"] = py::list();
    out["gaps"] = enum_list(none);
    out["hierarchies"] = enum_list(none);
    out["unitKinds"] = enum_list(none);
    out["byteHierarchies"] = enum_list(none);
    out["contextLimits"] = enum_list(none);
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

// A word of the core's messages -> the word Python callers write.
struct NameMaps {
    std::vector<std::pair<std::string, std::string>> paths, words;
    static const std::string* find(const std::vector<std::pair<std::string, std::string>>& m,
                                   const std::string& k) {
        for (const auto& e : m)
            if (e.first == k) return &e.second;
        return nullptr;
    }
};

const NameMaps& name_maps() {
    static const NameMaps maps = [] {
        NameMaps m;
        const SchemeCatalogue& v = scheme_catalogue();
        m.paths.push_back({"type", "type"});
        for (int scaling = 0; scaling < 2; ++scaling) {
            for (const ParamInfo& p : scaling ? v.scaling_params : v.scheme_params) {
                if (!p.field) continue;
                const std::string field = p.field;
                m.paths.push_back({(scaling ? "scaling." : "") + field,
                                   (scaling ? "scaling." : "") + std::string(p.name)});
                if (field.find('_') != std::string::npos) m.words.push_back({field, p.name});
            }
        }
        // Function arguments (head_dim, segment_size, timeout_ms ...) keep the core's words: they
        // are Python's spelling too.
        return m;
    }();
    return maps;
}

std::string replace_all(const std::string& text, const std::regex& re,
                        std::string (*replace)(const std::smatch&)) {
    std::string out;
    auto begin = std::sregex_iterator(text.begin(), text.end(), re);
    size_t last = 0;
    for (auto it = begin; it != std::sregex_iterator(); ++it) {
        out.append(text, last, static_cast<size_t>(it->position()) - last);
        out += replace(*it);
        last = static_cast<size_t>(it->position() + it->length());
    }
    out.append(text, last, std::string::npos);
    return out;
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

std::string core_message(const std::string& message) {
    static const std::regex path(R"(\bscheme\.((?:scaling\.)?[a-z][a-z0-9_]*))");
    static const std::regex word(R"(\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b)");
    std::string out = replace_all(message, path, [](const std::smatch& m) {
        const std::string* to = NameMaps::find(name_maps().paths, m[1].str());
        return to ? "scheme." + *to : m[0].str();
    });
    return replace_all(out, word, [](const std::smatch& m) {
        const std::string* to = NameMaps::find(name_maps().words, m[0].str());
        return to ? *to : m[0].str();
    });
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
            py::dict out;
            out["type"] = s.name;
            const SchemeCatalogue& v = scheme_catalogue();
            for (const ParamInfo& p : v.scheme_params) {
                if (p.kind == ParamKind::scaling || !p.get) continue;
                out[p.name] = user_value(p, p.get(s.scheme));
            }
            if (s.segment_size) out["segmentSize"] = s.segment_size;
            py::dict scaling;
            scaling["type"] = v.scalings[static_cast<size_t>(s.scheme.scaling.type)].name;
            for (const ParamInfo& p : v.scaling_params) {
                if (!takes(p, static_cast<int>(s.scheme.scaling.type))) continue;
                if (p.kind == ParamKind::list) {
                    py::list l;
                    for (double x : *p.list(s.scheme)) l.append(x);
                    scaling[p.name] = l;
                } else if (p.get) {
                    scaling[p.name] = user_value(p, p.get(s.scheme));
                }
            }
            out["scaling"] = scaling;
            return out;
        },
        py::arg("scheme"));
    m.def("core_message", &core_message, py::arg("message"));
}

} // namespace python
} // namespace hirope
