// hr.catalogue: the core's table as the core writes it (catalogue_json() in
// src/core/catalogue.cpp), parsed here, then the other libraries' parts (add_catalogue_part:
// languages from analysis.cpp, the model's hierarchies and context limits from model.cpp); in
// the core module their keys stay empty lists.
#include "common.h"
#include "hirope/hirope.h"

#include <string>
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
}
