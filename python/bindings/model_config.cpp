// hirope._hirope.hf_config: the config.json reader (include/hirope/model_config.h). The text
// goes in, the core's model_setup_json comes out as dicts (json.loads): the shape and names
// hr.fromConfig returns, so the two bindings give the same setups.
#include "hirope/model_config.h"
#include "common.h"

namespace py = pybind11;

namespace hirope {
namespace python {

void register_model_config(py::module_& m) {
    m.def(
        "hf_config",
        [](py::handle config) {
            // The size is checked before the text is copied; the core checks it again.
            const std::string text = text_bytes(config, "config", ModelConfigLimits().max_bytes);
            ModelSetup setup;
            check(read_model_config(text, &setup));
            return py::module_::import("json").attr("loads")(model_setup_json(setup));
        },
        py::arg("config"),
        "A Hugging Face config.json (str or bytes) as a model setup: model-wide dims and lengths, "
        "and per layer its attention kind, scheme, sinks and query temperature "
        "(hirope.from_config is the public door).");
    m.def(
        "hf_config_max_bytes", [] { return ModelConfigLimits().max_bytes; },
        "The largest config.json read, in bytes.");
}

} // namespace python
} // namespace hirope
