// pybind11 glue of the code model (hirope_model): loading weights, the forward pass (per-token
// losses), generation, byte and token positions, the model's limits, its part of the catalogue
// (byte hierarchies, context limits) and the evaluation's rules (for hirope.eval). The Python
// layer (hirope/model.py) fills in the model's scheme defaults as wasm/model.js does; the work
// runs here with the GIL released.
#include "hirope/model.h"
#include "common.h"
#include "hirope/analysis.h"
#include "hirope/architectures.h"
#include "hirope/model_config.h"

#include <pybind11/stl.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

namespace hirope {
namespace python {

namespace {

model::HierarchyOptions to_hierarchy(py::handle level, py::handle language, py::handle gap,
                                     py::handle descend_classes, py::handle segment_size) {
    model::HierarchyOptions h;
    h.hierarchy = static_cast<model::ByteHierarchy>(
        enum_value(model::byte_hierarchies(), level, "hierarchy"));
    const std::vector<std::string>& names = languages();
    bool known = false;
    if (py::isinstance<py::str>(language))
        for (const std::string& l : names) known = known || l == language.cast<std::string>();
    if (!known) {
        std::string list;
        for (size_t i = 0; i < names.size(); ++i) list += (i ? ", '" : "'") + names[i] + "'";
        fail("language must be one of " + list + ", got " + describe(language));
    }
    h.language = language.cast<std::string>();
    h.gap = static_cast<GapPolicy>(enum_value(analysis_catalogue().gaps, gap, "gap"));
    h.descend_classes = boolean_arg(descend_classes, "descend_classes");
    h.segment_size =
        integer_arg(segment_size, "segment_size", 1, 1 << 30, "an integer in [1, 1073741824]");
    return h;
}

model::ContextLimit to_limit(py::handle type, int64_t length, int64_t stride) {
    model::ContextLimit l;
    l.type = static_cast<model::ContextLimitType>(
        enum_value(model::context_limits(), type, "scheme.type"));
    l.length = length;
    l.stride = stride;
    check(model::validate(l));
    return l;
}

// A name from a model file's header as a str: bytes that are not UTF-8 (a corrupted header,
// read before any checksum by read_config) are a HiRoPEError, not a UnicodeDecodeError.
py::str header_text(const std::string& bytes, const char* what) {
    PyObject* text =
        PyUnicode_DecodeUTF8(bytes.data(), static_cast<Py_ssize_t>(bytes.size()), "strict");
    if (!text) {
        PyErr_Clear();
        fail(std::string("the model file's ") + what +
             " is not UTF-8 text: the file is corrupted or not a hirope model");
    }
    return py::reinterpret_steal<py::str>(text);
}

py::dict config_dict(const model::Config& c) {
    py::dict o;
    o["name"] = header_text(c.name, "name");
    o["version"] = c.version;
    o["vocab"] = c.vocab;
    o["d_model"] = c.d_model;
    o["layers"] = c.layers;
    o["heads"] = c.heads;
    o["head_dim"] = c.head_dim();
    o["ffn_hidden"] = c.ffn_hidden;
    o["training_context"] = c.training_context;
    o["rope_base"] = c.rope_base;
    o["norm_eps"] = c.norm_eps;
    o["parameters"] = c.parameters();
    o["tokenizer"] = c.tokenizer.empty() ? py::object(py::none())
                                         : py::object(header_text(c.tokenizer, "tokenizer name"));
    return o;
}

class ModelHandle {
  public:
    static std::shared_ptr<ModelHandle> load(const py::bytes& data) {
        std::string_view bytes = data;
        if (bytes.size() > model::ModelLimits::max_file_bytes)
            fail("model file of " + std::to_string(bytes.size()) + " bytes exceeds the limit of " +
                 std::to_string(model::ModelLimits::max_file_bytes));
        auto h = std::make_shared<ModelHandle>();
        Status st;
        {
            py::gil_scoped_release release;
            st = model::Model::load(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(),
                                    &h->model_);
        }
        check(st);
        return h;
    }

    // A Hugging Face checkpoint folder (config.json, model.safetensors or its shards and index),
    // opened, checked and loaded by the core (model::Model::from_folder);
    // this only gives it the files.
    static std::shared_ptr<ModelHandle> from_pretrained(const std::string& folder) {
        namespace fs = std::filesystem;
        auto h = std::make_shared<ModelHandle>();
        Status st;
        {
            py::gil_scoped_release release;
            checkpoint::CheckpointFolder files;
            files.stat = [&](const std::string& name, uint64_t* size) {
                std::error_code ec;
                const fs::path path = fs::path(folder) / name;
                if (!fs::is_regular_file(path, ec)) return false;
                *size = fs::file_size(path, ec);
                return !ec;
            };
            files.read = [&](const std::string& name, uint64_t offset, uint64_t size,
                             uint8_t* dst) {
                std::ifstream in(fs::path(folder) / name, std::ios::binary);
                in.seekg(static_cast<std::streamoff>(offset));
                in.read(reinterpret_cast<char*>(dst), static_cast<std::streamsize>(size));
                if (!in || static_cast<uint64_t>(in.gcount()) != size)
                    return Status::error("could not read " + std::to_string(size) +
                                         " bytes at offset " + std::to_string(offset) + " of " +
                                         name);
                return Status{};
            };
            checkpoint::CheckpointPlan plan;
            st = model::Model::from_folder(files, &h->model_, {}, 0, {}, &plan);
            h->parameters_ = static_cast<int64_t>(plan.parameters);
            h->weight_bytes_ = static_cast<int64_t>(plan.weight_bytes);
            h->warnings_ = plan.warnings;
        }
        check(st);
        return h;
    }

    py::dict config() const {
        py::dict o = config_dict(model_->config());
        if (const ModelSetup* setup = model_->setup()) {
            o["parameters"] = parameters_;
            o["kv_heads"] = model_->config().kv_head_count();
            o["weight_bytes"] = weight_bytes_;
            o["model_type"] = setup->model_type;
            o["setup"] = py::str(model_setup_json(*setup));
            o["warnings"] = warnings_;
        }
        return o;
    }

    // The model's defaults for a scheme (model::model_scheme_defaults): [(key, value)] with value
    // a number or a name. scaling_type: the type of a scaling dict without originalLength, else
    // None.
    py::list scheme_defaults(py::handle type, py::handle scaling_type) const {
        const std::string name = py::isinstance<py::str>(type) ? type.cast<std::string>() : "";
        std::string scaling;
        const bool has_scaling = py::isinstance<py::str>(scaling_type);
        if (has_scaling) scaling = scaling_type.cast<std::string>();
        std::vector<model::SchemeDefault> defaults;
        check(model::model_scheme_defaults(model_->config(), name, describe(type),
                                           has_scaling ? &scaling : nullptr, &defaults));
        py::list out;
        for (const model::SchemeDefault& d : defaults) {
            // Integral numbers as ints (a training context, a window), the base as a float.
            py::object value = !d.name.empty() ? py::object(py::str(d.name))
                               : d.key == "base"
                                   ? py::object(py::float_(d.number))
                                   : py::object(py::int_(static_cast<int64_t>(d.number)));
            out.append(py::make_tuple(d.key, value));
        }
        return out;
    }

    // A baseline's context limit (model::model_baseline): (length, stride). size and stride: the
    // user's values, Ellipsis when left out.
    py::tuple baseline(const std::string& type, int64_t max_input, py::handle size,
                       py::handle stride) const {
        auto user = [](py::handle v) {
            model::UserNumber u;
            u.present = !v.is(py::ellipsis());
            u.number = u.present && is_integer(v);
            if (u.number) u.value = number_value(v);
            u.shown = u.present ? describe(v) : "";
            return u;
        };
        const model::ContextLimitType t = type == "truncate"
                                              ? model::ContextLimitType::truncate
                                              : model::ContextLimitType::sliding_window;
        model::ContextLimit limit;
        check(model::model_baseline(model_->config(), max_input, t, user(size), user(stride),
                                    &limit));
        return py::make_tuple(limit.length, limit.stride);
    }

    // Byte positions of a text (a byte model), or a token model's tokens and positions.
    py::dict positions(py::handle text, py::handle tokenizer, py::handle level, py::handle language,
                       py::handle gap, py::handle descend, py::handle segment_size) {
        const model::HierarchyOptions h = to_hierarchy(level, language, gap, descend, segment_size);
        const std::string bytes = text_bytes(text, "code", AnalysisLimits::max_bytes);
        const Vocabulary* v = vocabulary_of(tokenizer);
        py::dict out;
        if (!v) {
            model::BytePositions p;
            Status st;
            {
                py::gil_scoped_release release;
                st = model::byte_positions(bytes, h, &p);
            }
            check(st);
            add_positions(&out, p.token, p.unit, p.statement);
            return out;
        }
        model::TokenPositions p;
        Status st;
        {
            py::gil_scoped_release release;
            st = model::token_positions(bytes, *v, h, &p);
        }
        check(st);
        out["ids"] = numpy_copy(p.ids);
        out["starts"] = numpy_copy(p.start);
        out["ends"] = numpy_copy(p.end);
        add_positions(&out, p.token, p.unit, p.statement);
        return out;
    }

    // The forward pass over ids (a token model's, or bytes as ids), one output: 'losses' (per-token
    // losses in bits, n - 1 values), 'logits' (n x vocab) or 'attention' (the probabilities of
    // one layer and head, n x n).
    py::array_t<float> forward(py::handle scheme, py::handle limit_type, int64_t limit_length,
                               int64_t limit_stride, py::handle ids_value, py::handle unit,
                               py::handle statement, const std::string& output, int layer, int head,
                               bool model_schemes) const {
        if (output != "losses" && output != "logits" && output != "attention" &&
            output != "attention_all")
            fail("output must be 'losses', 'logits', 'attention' or 'attention_all', got '" +
                 output + "'");
        const SchemeSpec spec = model_schemes ? SchemeSpec() : read_scheme(scheme);
        const model::ContextLimit limit = to_limit(limit_type, limit_length, limit_stride);
        py::array ids_array = py::reinterpret_borrow<py::array>(ids_value);
        const int64_t n = ids_array.size();
        if (n > model::ModelLimits::max_input_bytes)
            fail("code is " + std::to_string(n) + " " + unit_word() + "s; the model's limit is " +
                 std::to_string(model::ModelLimits::max_input_bytes));
        PositionArrays pos = read_positions(py::none(), unit, statement, n, 0);
        if (pos.unit.empty()) pos.unit.assign(static_cast<size_t>(n), 0);
        if (pos.statement.empty()) pos.statement.assign(static_cast<size_t>(n), 0);
        auto ids =
            py::array_t<int32_t, py::array::c_style | py::array::forcecast>::ensure(ids_array);
        const int64_t vocab = model_->config().vocab;
        std::vector<py::ssize_t> shape{std::max<py::ssize_t>(0, n - 1)};
        if (output == "logits") shape = {n, vocab};
        if (output == "attention") shape = {n, n};
        if (output == "attention_all")
            shape = {model_->config().layers, model_->config().heads, n, n};
        py::array_t<float> out(shape);
        model::Model::ForwardRequest r;
        r.ids = ids.data();
        r.n = n;
        r.scheme = spec.scheme;
        r.positions = pos.view();
        float* dst = out.mutable_data();
        if (output == "losses") r.losses = dst;
        if (output == "logits") r.logits = dst;
        if (output == "attention") r.attention = dst;
        if (output == "attention_all") r.attention_all = dst;
        r.attention_layer = layer;
        r.attention_head = head;
        r.limit = limit;
        r.model_schemes = model_schemes;
        Status st;
        {
            py::gil_scoped_release release;
            st = model_->forward(r);
        }
        check(st);
        return out;
    }

    py::bytes generate(py::handle scheme, py::handle limit_type, int64_t limit_length,
                       int64_t limit_stride, py::handle prompt, py::handle tokenizer,
                       py::handle level, py::handle language, py::handle gap, py::handle descend,
                       py::handle segment_size, int64_t max_bytes, double temperature,
                       uint64_t seed, bool model_schemes) const {
        model::GenerateOptions o;
        o.model_schemes = model_schemes;
        if (!model_schemes) o.scheme = read_scheme(scheme).scheme;
        o.limit = to_limit(limit_type, limit_length, limit_stride);
        o.hierarchy = to_hierarchy(level, language, gap, descend, segment_size);
        o.max_bytes = max_bytes;
        o.temperature = temperature;
        o.seed = seed;
        o.vocabulary = vocabulary_of(tokenizer);
        const std::string text =
            text_bytes(prompt, "prompt", static_cast<size_t>(model::ModelLimits::max_input_bytes));
        std::string generated;
        Status st;
        {
            py::gil_scoped_release release;
            st = model::generate(*model_, text, o, &generated);
        }
        check(st);
        return py::bytes(generated);
    }

  private:
    std::string unit_word() const { return model_->config().tokenizer.empty() ? "byte" : "token"; }
    std::unique_ptr<model::Model> model_;
    int64_t parameters_ = 0, weight_bytes_ = 0; // a checkpoint's
    std::vector<std::string> warnings_;
};

py::dict model_limits() {
    py::dict o;
    o["max_input_bytes"] = model::ModelLimits::max_input_bytes;
    o["max_file_bytes"] = model::ModelLimits::max_file_bytes;
    o["format_version"] = model::kFormatVersion;
    return o;
}

py::dict read_model_config(const py::bytes& data) {
    std::string_view bytes = data;
    model::Config c;
    check(model::read_config(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), &c));
    return config_dict(c);
}

void catalogue_part(py::dict* out) {
    (*out)["byteHierarchies"] = enum_list(model::byte_hierarchies());
    (*out)["contextLimits"] = enum_list(model::context_limits());
}

// ---------------------------------------------------------------------------------------------
// The evaluation's rules (model.h, "The evaluation"), for hirope.eval: each a thin conversion.

// reach as the evaluation functions take it, named in their messages.
int64_t reach_arg(py::handle reach, const std::string& who) {
    return integer_arg(reach, who + ": reach", 1, INT64_MAX, "an integer >= 1");
}

void check_as(const Status& st, const std::string& who) {
    if (!st.ok()) fail(who + ": " + st.message());
}

py::array_t<uint8_t> recall_classes_of(const py::bytes& data, py::handle reach) {
    const int64_t r = reach_arg(reach, "recall_classes");
    std::vector<uint8_t> out;
    check_as(model::recall_classes(std::string_view(data), r, &out), "recall_classes");
    return numpy_copy(out);
}

using Spans = py::array_t<int64_t, py::array::c_style | py::array::forcecast>;

py::array_t<uint8_t> token_recall_classes_of(const py::bytes& data, const Spans& start,
                                             const Spans& end, py::handle reach) {
    const int64_t r = reach_arg(reach, "token_recall_classes");
    const std::vector<int64_t> s(start.data(), start.data() + start.size());
    const std::vector<int64_t> e(end.data(), end.data() + end.size());
    std::vector<uint8_t> out;
    check_as(model::token_recall_classes(std::string_view(data), s, e, r, &out),
             "token_recall_classes");
    return numpy_copy(out);
}

std::vector<int64_t> window_offsets_of(int64_t units, int64_t length, int64_t per_file) {
    std::vector<int64_t> out;
    check_as(model::window_offsets(units, length, per_file, &out), "window_offsets");
    return out;
}

std::vector<int64_t> default_buckets_of(int64_t training_context, int64_t length) {
    std::vector<int64_t> out;
    check_as(model::default_buckets(training_context, length, &out), "default_buckets");
    return out;
}

py::tuple
window_sums_of(const py::array_t<float, py::array::c_style | py::array::forcecast>& losses,
               const py::array_t<uint8_t, py::array::c_style | py::array::forcecast>& classes,
               const std::vector<int64_t>& edges) {
    model::WindowSums s;
    check_as(model::window_sums(losses.data(), static_cast<size_t>(losses.size()), classes.data(),
                                static_cast<size_t>(classes.size()), edges, &s),
             "window_sums");
    py::list class_sums, class_counts;
    for (int c = 0; c < model::kRecallClassCount; ++c) {
        class_sums.append(s.class_sums[c]);
        class_counts.append(s.class_counts[c]);
    }
    return py::make_tuple(py::cast(s.bucket_sums), class_sums, class_counts);
}

py::dict preset_symbols_of(int64_t training_context, int64_t length, int64_t stride_divisor) {
    model::PresetSymbols p;
    check_as(model::preset_symbols(training_context, length, stride_divisor, &p), "preset_symbols");
    py::dict o; // keyed by the registry's symbol names (evaluation.symbols)
    o["L"] = p.training_context;
    o["L/2"] = p.window;
    o["length/L"] = p.factor;
    o["self-extend group"] = p.self_extend_group;
    o["truncate stride"] = p.truncate_stride;
    return o;
}

} // namespace

void register_model(py::module_& m) {
    py::class_<ModelHandle, std::shared_ptr<ModelHandle>>(m, "ModelHandle")
        .def_static("load", &ModelHandle::load, py::arg("data"))
        .def_static("from_pretrained", &ModelHandle::from_pretrained, py::arg("folder"))
        .def_property_readonly("config", &ModelHandle::config)
        .def("scheme_defaults", &ModelHandle::scheme_defaults, py::arg("type"),
             py::arg("scaling_type"))
        .def("baseline", &ModelHandle::baseline, py::arg("type"), py::arg("max_input"),
             py::arg("size"), py::arg("stride"))
        .def("positions", &ModelHandle::positions, py::arg("text"), py::arg("tokenizer"),
             py::arg("level"), py::arg("language"), py::arg("gap"), py::arg("descend"),
             py::arg("segment_size"))
        .def("forward", &ModelHandle::forward, py::arg("scheme"), py::arg("limit_type"),
             py::arg("limit_length"), py::arg("limit_stride"), py::arg("ids"), py::arg("unit"),
             py::arg("statement"), py::arg("output"), py::arg("layer"), py::arg("head"),
             py::arg("model_schemes") = false)
        .def("generate", &ModelHandle::generate, py::arg("scheme"), py::arg("limit_type"),
             py::arg("limit_length"), py::arg("limit_stride"), py::arg("prompt"),
             py::arg("tokenizer"), py::arg("level"), py::arg("language"), py::arg("gap"),
             py::arg("descend"), py::arg("segment_size"), py::arg("max_bytes"),
             py::arg("temperature"), py::arg("seed"), py::arg("model_schemes") = false);
    m.def("model_config", &read_model_config, py::arg("data"));
    m.def("model_limits", &model_limits);
    m.def("recall_class_names", &model::recall_class_names);
    m.def("recall_classes", &recall_classes_of, py::arg("data"), py::arg("reach"));
    m.def("token_recall_classes", &token_recall_classes_of, py::arg("data"), py::arg("start"),
          py::arg("end"), py::arg("reach"));
    m.def("evaluation_language", &model::evaluation_language, py::arg("file_name"));
    m.def("window_offsets", &window_offsets_of, py::arg("units"), py::arg("length"),
          py::arg("per_file"));
    m.def("default_buckets", &default_buckets_of, py::arg("training_context"), py::arg("length"));
    m.def("window_sums", &window_sums_of, py::arg("losses"), py::arg("classes"), py::arg("edges"));
    m.def("preset_symbols", &preset_symbols_of, py::arg("training_context"), py::arg("length"),
          py::arg("stride_divisor"));
    add_catalogue_part(&catalogue_part);
}

} // namespace python
} // namespace hirope
