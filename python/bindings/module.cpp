// hirope._hirope: the native Python module (pybind11), the second binding beside wasm/. Each
// library's glue registers its functions (one file per library, as wasm/bindings/); the package
// python/hirope/ is the idiomatic layer on top.
#include "common.h"

namespace py = pybind11;
using namespace hirope::python;

PYBIND11_MODULE(_hirope, m) {
    m.doc() = "hirope's C++ core (position schemes, attention, tokenizers, code analysis, code "
              "models): the glue under the hirope package";
    static py::exception<Failure> error(m, "HiRoPEError", PyExc_ValueError);
    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p) std::rethrow_exception(p);
        } catch (const Failure& e) {
            error(e.what());
        }
    });
    error.doc() = "An invalid argument or input, with the core's message naming it.";
    register_catalogue(m);
    register_core(m);
    register_tokenizers(m);
    register_analysis(m);
    register_model(m);
    register_model_config(m);
    register_unseen(m);
}
