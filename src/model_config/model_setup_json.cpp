// model_setup_json (include/hirope/model_config.h): a ModelSetup as JSON text, the one shape both
// bindings publish (hr.fromConfig parses it with JSON.parse, hirope.from_config with json.loads),
// so the JS and Python setups cannot drift apart. Each layer's scheme is scheme_json's: the scheme
// as users write it, which every other call takes back.
#include "hirope/model_config.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace hirope {
namespace {

std::string text(const std::string& s) {
    std::string out = "\"";
    for (const char c : s) {
        const unsigned char u = static_cast<unsigned char>(c);
        if (u == '"' || u == '\\') {
            out += '\\';
            out += c;
        } else if (u < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", u);
            out += buf;
        } else {
            out += c;
        }
    }
    return out + "\"";
}

// Integers without a fraction, others in the shortest text that reads back as the same double.
std::string number(double x) {
    if (!std::isfinite(x)) return "null";
    char buf[64];
    if (x == std::floor(x) && std::fabs(x) < 9007199254740992.0) {
        std::snprintf(buf, sizeof buf, "%.0f", x);
        return buf;
    }
    for (int digits = 15; digits <= 17; ++digits) {
        std::snprintf(buf, sizeof buf, "%.*g", digits, x);
        if (std::strtod(buf, nullptr) == x) break;
    }
    return buf;
}

const char* boolean(bool b) {
    return b ? "true" : "false";
}

// An object written key by key, in order.
class Object {
  public:
    Object& add(const char* key, const std::string& json) {
        text_ += (text_.size() > 1 ? "," : "") + text(key) + ":" + json;
        return *this;
    }
    std::string str() const { return text_ + "}"; }

  private:
    std::string text_ = "{";
};

std::string layout_name(Layout layout) {
    if (const std::vector<EnumValue>* list = value_list("layouts"))
        for (const EnumValue& e : *list)
            if (e.value == static_cast<int>(layout)) return text(e.name);
    return number(static_cast<int>(layout));
}

// A parameter's value as users write it: booleans, enumerations by name, numbers.
std::string user_value(const ParamInfo& p, double x) {
    if (p.kind == ParamKind::boolean) return boolean(x != 0);
    if (p.kind == ParamKind::enumeration)
        if (const std::vector<EnumValue>* list = value_list(p.values))
            for (const EnumValue& e : *list)
                if (e.value == static_cast<int>(x)) return text(e.name);
    return number(x);
}

// The scheme as users write it, with only the parameters its type (and its scaling's type) takes:
// scheme_json writes every parameter, which the calls' checks refuse as unknown keys for the type;
// this is the object every call takes back.
std::string scheme_taken_json(const Scheme& s) {
    const SchemeCatalogue& v = scheme_catalogue();
    const SchemeInfo* info = scheme_info(s.type);
    const int type = static_cast<int>(s.type);
    Object out;
    out.add("type", info ? text(info->name) : number(type));
    for (const ParamInfo& p : v.scheme_params)
        if (p.kind != ParamKind::scaling && p.get && takes(p, type))
            out.add(p.name, user_value(p, p.get(s)));
    const int scaling_type = static_cast<int>(s.scaling.type);
    Object scaling;
    scaling.add("type", scaling_type >= 0 && scaling_type < static_cast<int>(v.scalings.size())
                            ? text(v.scalings[static_cast<size_t>(scaling_type)].name)
                            : number(scaling_type));
    Scheme copy = s; // list accessors take a mutable scheme
    for (const ParamInfo& p : v.scaling_params) {
        if (!takes(p, scaling_type)) continue;
        if (p.kind == ParamKind::list) {
            std::string items = "[";
            for (const double x : *p.list(copy)) items += (items.size() > 1 ? "," : "") + number(x);
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
    Object attention;
    attention.add("type", text(attention_kind_name(l.attention)));
    if (l.attention == AttentionKind::sliding) attention.add("window", number(l.window));
    if (l.attention == AttentionKind::chunked) attention.add("chunkSize", number(l.chunk_size));
    Object out;
    out.add("type", text(l.type))
        .add("attention", attention.str())
        .add("rope", boolean(l.rope))
        .add("scheme", scheme_taken_json(l.scheme))
        .add("headDim", number(l.head_dim))
        .add("sinks", boolean(l.sinks));
    if (l.temperature.enabled)
        out.add("temperature", Object()
                                   .add("floorScale", number(l.temperature.floor_scale))
                                   .add("scale", number(l.temperature.scale))
                                   .add("offset", number(static_cast<double>(l.temperature.offset)))
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
        warnings += (i ? "," : "") + text(setup.warnings[i]);
    warnings += "]";
    Object out;
    out.add("modelType", text(setup.model_type))
        .add("headDim", number(setup.head_dim))
        .add("rotaryDim", number(setup.rotary_dim))
        .add("layout", layout_name(setup.layout))
        .add("layoutSource", text(setup.layout_source))
        .add("trainedLength", number(static_cast<double>(setup.trained_length)))
        .add("maxLength", number(static_cast<double>(setup.max_length)))
        .add("layerCount", number(static_cast<double>(setup.layers.size())))
        .add("layers", layers);
    if (setup.dual_chunk.enabled)
        out.add("dualChunk",
                Object()
                    .add("chunkSize", number(static_cast<double>(setup.dual_chunk.chunk_size)))
                    .add("localSize", number(static_cast<double>(setup.dual_chunk.local_size)))
                    .add("originalLength",
                         number(static_cast<double>(setup.dual_chunk.original_length)))
                    .str());
    return out.add("warnings", warnings).str();
}

} // namespace hirope
