// hr.catalogue: the core's table as the core writes it (catalogue_json() in
// src/core/catalogue.cpp), parsed here, then the other libraries' parts (add_catalogue_part:
// languages from analysis.cpp, the model's hierarchies and context limits from model.cpp); in
// the core module their keys stay empty lists. And readScheme: a scheme handed to the core's
// reader (read_scheme, src/core/scheme_reader.cpp) through a SchemeSource over Embind values,
// which only says what kind a JS value is and how JS spells a few phrases.
#include "common.h"
#include "hirope/hirope.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <emscripten/bind.h>
#include <emscripten/val.h>

using emscripten::val;
using namespace hirope;
using namespace hirope::bindings;

namespace hirope {
namespace bindings {

val parse_json(const std::string& text) {
    return val::global("JSON").call<val>("parse", text);
}

val enum_list(const std::vector<EnumValue>& list) {
    return parse_json(enum_list_json(list));
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

const SchemeDialect kJsDialect{
    "an object such as { type: 'rope' }",
    "an object such as { type: 'yarn', factor: 4, originalLength: 4096 }", "an array of numbers",
    false, // scaling: null is an error (only undefined is no scaling)
};

// A JS value as the core's reader sees it. The JS layer has read the scheme once already
// (Catalogue.readScheme: plain null-prototype objects, lists as plain arrays of at most
// rotaryDim / 2 items or empty arrays of their length), so reading it here runs nothing of the
// caller's. Messages name values with the JS layer's describe().
class ValSource final : public SchemeSource {
  public:
    ValSource(val value, const val& describe) : value_(std::move(value)), describe_(describe) {}
    Kind kind() const override {
        const std::string type = value_.typeOf().as<std::string>();
        if (type == "undefined") return Kind::absent;
        if (value_.isNull()) return Kind::null;
        if (type == "number") return Kind::number;
        if (type == "boolean") return Kind::boolean;
        if (type == "string") return Kind::string;
        if (type != "object") return Kind::other;
        if (val::global("Array").call<bool>("isArray", value_)) return Kind::list;
        if (val::global("ArrayBuffer").call<bool>("isView", value_)) return Kind::other;
        return Kind::object;
    }
    std::string describe() const override { return describe_(value_).as<std::string>(); }
    double number(bool* integer) const override {
        *integer = false; // a JS number is a double
        return value_.as<double>();
    }
    bool boolean() const override { return value_.as<bool>(); }
    std::string text() const override { return value_.as<std::string>(); }
    bool keys(std::vector<std::string>* out, std::string*) const override {
        const val keys = val::global("Object").call<val>("keys", value_);
        const size_t n = keys["length"].as<size_t>();
        for (size_t i = 0; i < n; ++i) out->push_back(keys[i].as<std::string>());
        return true;
    }
    std::unique_ptr<SchemeSource> at(const std::string& key) const override {
        return std::unique_ptr<SchemeSource>(new ValSource(value_[key], describe_));
    }
    size_t length() const override { return value_["length"].as<size_t>(); }
    std::unique_ptr<SchemeSource> item(size_t i) const override {
        return std::unique_ptr<SchemeSource>(
            new ValSource(value_[static_cast<unsigned>(i)], describe_));
    }
    const SchemeDialect& dialect() const override { return kJsDialect; }

  private:
    val value_;
    const val& describe_;
};

// A parameter's value in the normalized object: booleans as booleans, lists as arrays, the rest
// (enumerations by their enumerator) as numbers.
void set_param(val* o, const ParamInfo& p, Scheme* s) {
    if (p.kind == ParamKind::list)
        o->set(p.name, val::array(*p.list(*s)));
    else if (p.kind == ParamKind::boolean)
        o->set(p.name, p.get(*s) != 0);
    else if (p.get)
        o->set(p.name, p.get(*s));
}

// The scheme read by the core, as the JS layer's normalized object (every parameter present,
// names mapped to enum numbers: what to_scheme reads back), or the core's message (a string).
val read_scheme_js(val scheme, val describe) {
    SchemeReading r;
    const Status st = read_scheme(ValSource(std::move(scheme), describe), &r);
    if (!st.ok()) return val(st.message());
    const SchemeCatalogue& v = scheme_catalogue();
    val out = val::object();
    out.set("name", std::string(r.info->name));
    out.set("type", static_cast<int>(r.scheme.type));
    for (const ParamInfo& p : v.scheme_params) {
        if (p.kind == ParamKind::scaling) {
            val scaling = val::object();
            scaling.set("type", static_cast<int>(r.scheme.scaling.type));
            for (const ParamInfo& q : v.scaling_params) set_param(&scaling, q, &r.scheme);
            out.set(p.name, scaling);
        } else if (p.field) {
            set_param(&out, p, &r.scheme);
        }
    }
    for (const auto& option : r.options) out.set(option.first->name, option.second);
    out.set("rotary", r.info->rotary);
    out.set("windowed", r.info->windowed);
    return out;
}

val catalogue() {
    val out = parse_json(catalogue_json());
    out.set("languages", val::array());
    for (const char* key : {"gaps", "hierarchies", "unitKinds", "byteHierarchies", "contextLimits"})
        out.set(key, val::array());
    for (auto part : catalogue_parts()) part(&out);
    return out;
}

} // namespace

EMSCRIPTEN_BINDINGS(hirope_catalogue) {
    emscripten::function("catalogue", &catalogue);
    emscripten::function("readScheme", &read_scheme_js);
}
