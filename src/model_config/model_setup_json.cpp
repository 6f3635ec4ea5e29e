// model_setup_json (include/hirope/model_config.h): a ModelSetup as JSON text, the one shape both
// bindings publish (hr.fromConfig parses it with JSON.parse, hirope.from_config with json.loads),
// so the JS and Python setups cannot drift apart. Each layer's scheme is scheme_json's: the scheme
// as users write it, which every other call takes back.
#include "hirope/model_config.h"
#include "util/json_writer.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace hirope {
namespace {

using util::json_bool;
using util::json_number;
using util::json_text;
using util::JsonObject;

std::string layout_name(Layout layout) {
    if (const std::vector<EnumValue>* list = value_list("layouts"))
        for (const EnumValue& e : *list)
            if (e.value == static_cast<int>(layout)) return json_text(e.name);
    return json_number(static_cast<int>(layout));
}

// A parameter's value as users write it: booleans, enumerations by name, numbers.
std::string user_value(const ParamInfo& p, double x) {
    if (p.kind == ParamKind::boolean) return json_bool(x != 0);
    if (p.kind == ParamKind::enumeration)
        if (const std::vector<EnumValue>* list = value_list(p.values))
            for (const EnumValue& e : *list)
                if (e.value == static_cast<int>(x)) return json_text(e.name);
    return json_number(x);
}

// The scheme as users write it, with only the parameters its type (and its scaling's type) takes:
// scheme_json writes every parameter, which the calls' checks refuse as unknown keys for the type;
// this is the object every call takes back.
std::string scheme_taken_json(const Scheme& s) {
    const SchemeCatalogue& v = scheme_catalogue();
    const SchemeInfo* info = scheme_info(s.type);
    const int type = static_cast<int>(s.type);
    JsonObject out;
    out.add("type", info ? json_text(info->name) : json_number(type));
    for (const ParamInfo& p : v.scheme_params)
        if (p.kind != ParamKind::scaling && p.get && takes(p, type))
            out.add(p.name, user_value(p, p.get(s)));
    const int scaling_type = static_cast<int>(s.scaling.type);
    JsonObject scaling;
    scaling.add("type", scaling_type >= 0 && scaling_type < static_cast<int>(v.scalings.size())
                            ? json_text(v.scalings[static_cast<size_t>(scaling_type)].name)
                            : json_number(scaling_type));
    Scheme copy = s; // list accessors take a mutable scheme
    for (const ParamInfo& p : v.scaling_params) {
        if (!takes(p, scaling_type)) continue;
        if (p.kind == ParamKind::list) {
            std::string items = "[";
            for (const double x : *p.list(copy))
                items += (items.size() > 1 ? "," : "") + json_number(x);
            scaling.add(p.name, items + "]");
        } else if (p.get) {
            scaling.add(p.name, user_value(p, p.get(s)));
        }
    }
    for (const ParamInfo& p : v.scheme_params) // the scaling, where the type takes one
        if (p.kind == ParamKind::scaling && takes(p, type)) out.add(p.name, scaling.str());
    return out.str();
}

std::string layer_json(const LayerSetup& l) {
    JsonObject attention;
    attention.add("type", json_text(attention_kind_name(l.attention)));
    if (l.attention == AttentionKind::sliding) attention.add("window", json_number(l.window));
    if (l.attention == AttentionKind::chunked)
        attention.add("chunkSize", json_number(l.chunk_size));
    JsonObject out;
    out.add("type", json_text(l.type))
        .add("attention", attention.str())
        .add("rope", json_bool(l.rope))
        .add("scheme", scheme_taken_json(l.scheme))
        .add("headDim", json_number(l.head_dim))
        .add("sinks", json_bool(l.sinks));
    if (l.temperature.enabled)
        out.add("temperature",
                JsonObject()
                    .add("floorScale", json_number(l.temperature.floor_scale))
                    .add("scale", json_number(l.temperature.scale))
                    .add("offset", json_number(static_cast<double>(l.temperature.offset)))
                    .str());
    return out.str();
}

} // namespace

std::string model_setup_json(const ModelSetup& setup) {
    std::string layers = "[";
    for (size_t i = 0; i < setup.layers.size(); ++i)
        layers += (i ? "," : "") + layer_json(setup.layers[i]);
    layers += "]";
    std::string warnings = "[";
    for (size_t i = 0; i < setup.warnings.size(); ++i)
        warnings += (i ? "," : "") + json_text(setup.warnings[i]);
    warnings += "]";
    JsonObject out;
    out.add("modelType", json_text(setup.model_type))
        .add("headDim", json_number(setup.head_dim))
        .add("rotaryDim", json_number(setup.rotary_dim))
        .add("layout", layout_name(setup.layout))
        .add("layoutSource", json_text(setup.layout_source))
        .add("trainedLength", json_number(static_cast<double>(setup.trained_length)))
        .add("maxLength", json_number(static_cast<double>(setup.max_length)))
        .add("layerCount", json_number(static_cast<double>(setup.layers.size())))
        .add("layers", layers);
    if (setup.dual_chunk.enabled)
        out.add("dualChunk",
                JsonObject()
                    .add("chunkSize", json_number(static_cast<double>(setup.dual_chunk.chunk_size)))
                    .add("localSize", json_number(static_cast<double>(setup.dual_chunk.local_size)))
                    .add("originalLength",
                         json_number(static_cast<double>(setup.dual_chunk.original_length)))
                    .str());
    return out.add("warnings", warnings).str();
}

} // namespace hirope
