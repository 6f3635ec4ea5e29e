// The scheme table (scheme_catalogue() in src/core/catalogue.cpp) as a
// plain JSON-serialisable object, keys in camelCase and null for "none": hr.catalogue. The other
// libraries' files add their parts (add_catalogue_part: languages from analysis.cpp, the model's
// hierarchies and context limits from model.cpp); in the core module their keys stay empty lists.
#include "common.h"
#include "hirope/hirope.h"

#include <cctype>
#include <cmath>
#include <string>
#include <vector>

#include <emscripten/bind.h>
#include <emscripten/val.h>

using emscripten::val;
using namespace hirope;
using namespace hirope::bindings;

namespace hirope {
namespace bindings {

val enum_list(const std::vector<EnumValue>& list) {
    val arr = val::array();
    for (const EnumValue& e : list) {
        val o = val::object();
        o.set("name", std::string(e.name));
        o.set("value", e.value);
        o.set("label", std::string(e.label));
        o.set("description", std::string(e.description));
        arr.call<void>("push", o);
    }
    return arr;
}

namespace {

std::vector<void (*)(val*)>& catalogue_parts() {
    static std::vector<void (*)(val*)> parts;
    return parts;
}

} // namespace

void add_catalogue_part(void (*part)(val* out)) {
    catalogue_parts().push_back(part);
}

} // namespace bindings
} // namespace hirope

namespace {

val string_array(const std::vector<const char*>& items) {
    val arr = val::array();
    for (const char* x : items) arr.call<void>("push", std::string(x));
    return arr;
}

val finite_or_null(double x) {
    return std::isfinite(x) ? val(x) : val::null();
}

// A value of a parameter as users write it: booleans, enum names, numbers.
val user_value(const ParamInfo& p, double x) {
    if (p.kind == ParamKind::boolean) return val(x != 0);
    if (p.kind == ParamKind::enumeration)
        for (const EnumValue& e : *value_list(p.values))
            if (e.value == static_cast<int>(x)) return val(std::string(e.name));
    return val(x);
}

const ParamInfo* find_param(const std::vector<ParamInfo>& params, const char* field) {
    for (const ParamInfo& p : params)
        if (p.field && std::string(p.field) == field) return &p;
    return nullptr;
}

// A reference inside the table to another parameter, by its JS name, with a value it compares to.
val condition(const std::vector<ParamInfo>& params, const char* field, double value) {
    const ParamInfo* p = find_param(params, field);
    val o = val::object();
    o.set("parameter", p ? std::string(p->name) : std::string(field));
    o.set("equals", p ? user_value(*p, value) : val(value));
    return o;
}

template <typename Info> val names_taking(const std::vector<Info>& types, uint32_t mask) {
    val arr = val::array();
    for (const Info& t : types)
        if (mask >> static_cast<int>(t.type) & 1u) arr.call<void>("push", std::string(t.name));
    return arr;
}

val param_list(const std::vector<ParamInfo>& params, bool scaling) {
    const SchemeCatalogue& v = scheme_catalogue();
    const Scheme defaults;
    val arr = val::array();
    for (const ParamInfo& p : params) {
        val o = val::object();
        o.set("name", std::string(p.name));
        o.set("field",
              p.field ? val(std::string(scaling ? "scaling." : "") + p.field) : val::null());
        o.set("kind", std::string(param_kind_name(p.kind)));
        o.set("description", std::string(p.description));
        if (p.kind == ParamKind::list)
            o.set("default", val::array());
        else if (p.kind == ParamKind::scaling)
            o.set("default", std::string("none"));
        else if (p.get)
            o.set("default", user_value(p, p.get(defaults)));
        else
            o.set("default", p.option_default);
        o.set("required", p.required);
        const bool numeric = p.kind == ParamKind::number || p.kind == ParamKind::integer;
        o.set("min", finite_or_null(p.min));
        o.set("max", finite_or_null(p.max));
        o.set("minOpen", p.min_open);
        o.set("maxOpen", p.max_open);
        val allowed = val::array();
        for (double x : p.allowed) allowed.call<void>("push", x);
        o.set("allowed", allowed);
        o.set("limit", finite_or_null(p.limit));
        // The step of a form control: the table's, 1 for integers, null for any value.
        o.set("step", p.step > 0                     ? val(p.step)
                      : p.kind == ParamKind::integer ? val(1)
                                                     : val::null());
        o.set("range", numeric ? val(param_range(p)) : val::null());
        o.set("values", p.values ? val(published_list_name(p.values)) : val::null());
        o.set(scaling ? "scalings" : "schemes",
              scaling ? names_taking(v.scalings, p.takes) : names_taking(v.schemes, p.takes));
        o.set("onlyIf", p.only_if ? condition(params, p.only_if, p.only_if_value) : val::null());
        arr.call<void>("push", o);
    }
    return arr;
}

template <typename Info> val parameters_taken(const Info& t, const std::vector<ParamInfo>& params) {
    std::vector<const char*> names;
    for (const ParamInfo& p : params)
        if (takes(p, static_cast<int>(t.type))) names.push_back(p.name);
    return string_array(names);
}

val catalogue() {
    const SchemeCatalogue& v = scheme_catalogue();
    val out = val::object();
    val schemes = val::array();
    for (const SchemeInfo& s : v.schemes) {
        val o = val::object();
        o.set("name", std::string(s.name));
        o.set("value", static_cast<int>(s.type));
        o.set("label", std::string(s.label));
        o.set("rotary", s.rotary);
        o.set("windowed", s.windowed);
        o.set("needsUnits", s.needs_units);
        o.set("description", std::string(s.description));
        o.set("parameters", parameters_taken(s, v.scheme_params));
        schemes.call<void>("push", o);
    }
    out.set("schemes", schemes);
    val scalings = val::array();
    for (const ScalingInfo& s : v.scalings) {
        val o = val::object();
        o.set("name", std::string(s.name));
        o.set("value", static_cast<int>(s.type));
        o.set("label", std::string(s.label));
        o.set("aliases", string_array(s.aliases));
        o.set("description", std::string(s.description));
        o.set("parameters", parameters_taken(s, v.scaling_params));
        scalings.call<void>("push", o);
    }
    out.set("scalings", scalings);
    out.set("parameters", param_list(v.scheme_params, false));
    out.set("scalingParameters", param_list(v.scaling_params, true));
    out.set("layouts", enum_list(v.layouts));
    out.set("sinusoidalVariants", enum_list(v.sinusoidal_variants));
    out.set("outputs", enum_list(v.outputs));
    out.set("roles", enum_list(v.roles));
    out.set("branches", enum_list(v.branches));
    out.set("kernels", enum_list(v.kernels));
    val rules = val::array();
    for (const DefaultRule& r : v.default_rules) {
        const ParamInfo* target = find_param(v.scheme_params, r.field);
        val o = val::object();
        o.set("parameter", target ? std::string(target->name) : std::string(r.field));
        o.set("schemes", names_taking(v.schemes, r.schemes));
        o.set("when", r.when ? condition(v.scheme_params, r.when, r.when_value) : val::null());
        if (r.from) {
            // value = (offset + scale * from) / divisor
            o.set("from", std::string(find_param(v.scheme_params, r.from)->name));
            o.set("offset", r.offset);
            o.set("scale", r.scale);
            o.set("divisor", r.divisor);
        } else {
            o.set("value",
                  target ? user_value(*target, r.offset / r.divisor) : val(r.offset / r.divisor));
        }
        o.set("description", std::string(r.description));
        rules.call<void>("push", o);
    }
    out.set("defaultRules", rules);
    val names = val::array();
    for (const NameInfo& n : v.arguments) {
        val o = val::object();
        o.set("field", std::string(n.field));
        o.set("name", std::string(n.name));
        names.call<void>("push", o);
    }
    out.set("arguments", names);
    val languages = val::array();
    std::vector<EnumValue> none;
    out.set("languages", languages);
    out.set("gaps", enum_list(none));
    out.set("hierarchies", enum_list(none));
    out.set("unitKinds", enum_list(none));
    out.set("byteHierarchies", enum_list(none));
    out.set("contextLimits", enum_list(none));
    for (auto part : catalogue_parts()) part(&out);
    return out;
}

} // namespace

EMSCRIPTEN_BINDINGS(hirope_catalogue) {
    emscripten::function("catalogue", &catalogue);
}
