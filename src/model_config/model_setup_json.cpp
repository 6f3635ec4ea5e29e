// model_setup_json (include/hirope/model_config.h): a ModelSetup as JSON text, the one shape both
// bindings publish (hr.fromConfig parses it with JSON.parse, hirope.from_config with json.loads),
// so the JS and Python setups cannot drift apart. Each layer's scheme is scheme_json's with the
// keys its type takes: the scheme as users write it, which every other call takes back.
#include "hirope/model_config.h"
#include "util/json_writer.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
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

// Whether two schemes write the same JSON: every parameter of the catalogue equal (NaN never is,
// which only costs a second write).
bool same_scheme(const Scheme& a, const Scheme& b) {
    const SchemeCatalogue& v = scheme_catalogue();
    if (a.type != b.type || a.scaling.type != b.scaling.type) return false;
    for (const ParamInfo& p : v.scheme_params)
        if (p.get && p.get(a) != p.get(b)) return false;
    for (const ParamInfo& p : v.scaling_params) {
        if (p.kind == ParamKind::list) {
            Scheme ca = a, cb = b; // list accessors take a mutable scheme
            if (*p.list(ca) != *p.list(cb)) return false;
        } else if (p.get && p.get(a) != p.get(b)) {
            return false;
        }
    }
    return true;
}

// Each distinct scheme written once: the layers of one type share theirs, and Phi-3.5's 96
// LongRoPE factors on each of 32 layers were 3,072 numbers to print (7.7 ms a read).
class SchemeTexts {
  public:
    const std::string& of(const Scheme& s) {
        for (const auto& [scheme, text] : written_)
            if (same_scheme(*scheme, s)) return text;
        written_.emplace_back(&s, scheme_json(s, SchemeKeys::taken));
        return written_.back().second;
    }

  private:
    std::vector<std::pair<const Scheme*, std::string>> written_;
};

std::string layer_json(const LayerSetup& l, SchemeTexts& schemes) {
    JsonObject attention;
    // A linear-attention layer has no softmax map: "linear" is no mask any attention call takes.
    attention.add("type", json_text(l.linear ? "linear" : attention_kind_name(l.attention)));
    if (l.attention == AttentionKind::sliding) attention.add("window", json_number(l.window));
    if (l.attention == AttentionKind::chunked)
        attention.add("chunkSize", json_number(l.chunk_size));
    JsonObject out;
    out.add("type", json_text(l.type))
        .add("attention", attention.str())
        .add("rope", json_bool(l.rope))
        .add("scheme", schemes.of(l.scheme))
        .add("headDim", json_number(l.head_dim))
        .add("sinks", json_bool(l.sinks));
    if (l.temperature.enabled)
        out.add("temperature",
                JsonObject()
                    .add("floorScale", json_number(l.temperature.floor_scale))
                    .add("scale", json_number(l.temperature.scale))
                    .add("offset", json_number(static_cast<double>(l.temperature.offset)))
                    .str());
    // Only where set: absent means head_dim^-1/2 and no soft-cap (AttentionRequest's defaults).
    if (l.scale != 0) out.add("scale", json_number(l.scale));
    if (l.softcap != 0) out.add("softcap", json_number(l.softcap));
    return out.str();
}

} // namespace

std::string layer_setup_json(const LayerSetup& layer) {
    SchemeTexts schemes;
    return layer_json(layer, schemes);
}

std::string model_setup_json(const ModelSetup& setup) {
    SchemeTexts schemes;
    std::string layers = "[";
    for (size_t i = 0; i < setup.layers.size(); ++i)
        layers += (i ? "," : "") + layer_json(setup.layers[i], schemes);
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
        .add("scaledAfterTraining", setup.scaled_after_training ? "true" : "false")
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
