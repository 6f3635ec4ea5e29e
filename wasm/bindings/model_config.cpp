// Embind glue of the config.json reader (include/hirope/model_config.h): the text goes in, the
// core's model_setup_json comes out as text for wasm/model-config-api.js to parse, or the core's
// message. In the full module only (the core entry's download budget); hr.fromConfig says so there.
#include "hirope/model_config.h"

#include <string>

#include <emscripten/bind.h>
#include <emscripten/val.h>

using emscripten::val;
using namespace hirope;

namespace {

// {error, setup}: error is "" on success, setup the JSON text of the ModelSetup.
val hfConfig(const std::string& text) {
    ModelSetup setup;
    const Status st = read_model_config(text, &setup);
    val out = val::object();
    out.set("error", st.ok() ? std::string() : st.message());
    out.set("setup", st.ok() ? model_setup_json(setup) : std::string());
    return out;
}

// The largest config.json read, in bytes (checked by the JS layer before the text is copied).
double hfConfigMaxBytes() {
    return static_cast<double>(ModelConfigLimits().max_bytes);
}

} // namespace

EMSCRIPTEN_BINDINGS(hirope_model_config) {
    emscripten::function("hfConfig", &hfConfig);
    emscripten::function("hfConfigMaxBytes", &hfConfigMaxBytes);
}
