// What the binding files share (wasm/bindings/: one file per library, each with its own
// EMSCRIPTEN_BINDINGS block): arrays travel as heap addresses that the JS layer allocates and
// frees (ptr); schemes arrive as the plain objects the core's reader made (readScheme in
// catalogue.cpp: every field present, names mapped to enum numbers) and are read back field by
// field through the catalogue's accessors (to_scheme); errors come back as strings, empty on
// success (result), that name fields in C++ terms, which the JS layer maps through the catalogue
// and throws as HiRoPEError. Public headers only (include/hirope/).
#pragma once

#include "hirope/hirope.h"

#include <cstdint>
#include <string>
#include <vector>

#include <emscripten/bind.h>
#include <emscripten/val.h>

namespace hirope {
namespace bindings {

template <typename T> T* ptr(uintptr_t address) {
    return reinterpret_cast<T*>(address);
}

// One parameter from the JS object (keyed by its JS name) into the scheme.
inline void read_param(const ParamInfo& p, const emscripten::val& o, Scheme* s) {
    if (!p.field) return; // an option of the JS layer only
    switch (p.kind) {
    case ParamKind::scaling:
        return;
    case ParamKind::list:
        *p.list(*s) = emscripten::vecFromJSArray<double>(o[p.name]);
        return;
    case ParamKind::boolean:
        p.set(*s, o[p.name].as<bool>() ? 1 : 0);
        return;
    default:
        // Integers arrive as doubles so that out-of-range values reach validate() intact.
        p.set(*s, o[p.name].as<double>());
    }
}

inline Scheme to_scheme(const emscripten::val& o) {
    const SchemeCatalogue& v = scheme_catalogue();
    Scheme s;
    s.type = static_cast<SchemeType>(o["type"].as<int>());
    for (const ParamInfo& p : v.scheme_params) read_param(p, o, &s);
    const emscripten::val sc = o["scaling"];
    s.scaling.type = static_cast<ScalingType>(sc["type"].as<int>());
    for (const ParamInfo& p : v.scaling_params) read_param(p, sc, &s);
    return s;
}

// The budget every call whose memory grows with its input is checked against.
inline HeapBudget wasm_heap() {
    HeapBudget b;
    b.enabled = true;
    return b;
}

inline Positions to_positions(uintptr_t token, uintptr_t unit, uintptr_t statement) {
    return Positions{ptr<const int32_t>(token), ptr<const int32_t>(unit),
                     ptr<const int32_t>(statement)};
}

inline emscripten::val result(const Status& st) {
    return emscripten::val(st.ok() ? std::string() : st.message());
}

// A copy of v as a new typed array of the named constructor ("Int32Array", "Uint8Array").
template <typename T> emscripten::val typed_copy(const char* ctor, const std::vector<T>& v) {
    emscripten::val arr = emscripten::val::global(ctor).new_(v.size());
    if (!v.empty())
        arr.call<void>("set", emscripten::val(emscripten::typed_memory_view(v.size(), v.data())));
    return arr;
}

// JSON text the core wrote, as a JS value (JSON.parse).
emscripten::val parse_json(const std::string& text);

// A value list as a JS array of { name, value, label, description } (the core's
// enum_list_json, parsed).
emscripten::val enum_list(const std::vector<EnumValue>& list);

// A library outside the core adds its part of the catalogue (languages, gap policies, model
// hierarchies ...): catalogue() writes the core's keys, each of its own set to an empty list, then
// calls every part added, which sets its keys (so their order in the object never changes). Called
// from a file's EMSCRIPTEN_BINDINGS block; the core module adds none.
void add_catalogue_part(void (*part)(emscripten::val* out));

} // namespace bindings
} // namespace hirope
