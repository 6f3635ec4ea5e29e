// Embind glue of the code model (hirope_model): loading weights, the forward pass (logits,
// losses, attention), generation, byte and token positions, the model's limits and its part of
// the scheme catalogue (byte hierarchies, context limits), and the evaluation's rules (for
// wasm/recall.js).
#include "hirope/model.h"
#include "common.h"
#include "hirope/analysis.h"
#include "hirope/architectures.h"
#include "hirope/model_config.h"

#include <cmath>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <emscripten/bind.h>
#include <emscripten/val.h>

using emscripten::val;
using namespace hirope;
using namespace hirope::bindings;

namespace {

// hierarchy: { level (0 units, 1 statements, 2 segments), language, grammar (an address), gap,
// descendClasses, segmentSize }, normalised by the JS layer.
model::HierarchyOptions to_hierarchy(const val& o) {
    model::HierarchyOptions h;
    h.hierarchy = static_cast<model::ByteHierarchy>(o["level"].as<int>());
    h.language = o["language"].as<std::string>();
    // The language's grammar (wasm/grammars.js), or none where the caller has not loaded it.
    const val grammar = o["grammar"];
    if (!grammar.isUndefined() && !grammar.isNull())
        h.grammar = ptr<const Grammar>(static_cast<uintptr_t>(grammar.as<double>()));
    h.gap = static_cast<GapPolicy>(o["gap"].as<int>());
    h.descend_classes = o["descendClasses"].as<bool>();
    h.segment_size = static_cast<int64_t>(o["segmentSize"].as<double>());
    return h;
}

// limit: { type (ContextLimitType), length, stride } from the JS layer, or null for none.
model::ContextLimit to_limit(const val& o) {
    model::ContextLimit l;
    if (o.isNull() || o.isUndefined()) return l;
    l.type = static_cast<model::ContextLimitType>(o["type"].as<int>());
    l.length = static_cast<int64_t>(o["length"].as<double>());
    l.stride = static_cast<int64_t>(o["stride"].as<double>());
    return l;
}

val config_object(const model::Config& c) {
    val o = val::object();
    o.set("name", c.name);
    o.set("version", c.version);
    o.set("vocab", c.vocab);
    o.set("dModel", c.d_model);
    o.set("layers", c.layers);
    o.set("heads", c.heads);
    o.set("headDim", c.head_dim());
    o.set("ffnHidden", c.ffn_hidden);
    o.set("trainingContext", c.training_context);
    o.set("ropeBase", c.rope_base);
    o.set("normEps", c.norm_eps);
    o.set("parameters", static_cast<double>(c.parameters()));
    o.set("tokenizer", c.tokenizer.empty() ? val::null() : val(c.tokenizer));
    return o;
}

// A checkpoint folder through the JS layer's file access (wasm/model.js): stat(name) gives a
// file's size or -1 when absent; read(name, offset, size) gives a Uint8Array of exactly those
// bytes, copied into dst in the heap. The vals must outlive the folder.
checkpoint::CheckpointFolder folder_access(const val& stat, const val& read) {
    checkpoint::CheckpointFolder files;
    files.stat = [&stat](const std::string& name, uint64_t* size) {
        const double bytes = stat(name).as<double>();
        if (bytes < 0) return false;
        *size = static_cast<uint64_t>(bytes);
        return true;
    };
    files.read = [&read](const std::string& name, uint64_t offset, uint64_t size, uint8_t* dst) {
        const val bytes = read(name, static_cast<double>(offset), static_cast<double>(size));
        if (bytes["length"].as<double>() != static_cast<double>(size))
            return Status::error("could not read " + std::to_string(size) + " bytes at offset " +
                                 std::to_string(offset) + " of " + name);
        // A view of the heap made after the read (a read may have grown the memory).
        val(emscripten::typed_memory_view(static_cast<size_t>(size), dst)).call<void>("set", bytes);
        return Status{};
    };
    return files;
}

// What loading a checkpoint folder would take, from its config and headers only (no tensor byte
// read): { error } for a folder the core refuses, else { modelType, layers, heads, kvHeads,
// parameters, weightBytes, workingBytes (a forward at the input limit), budgetBytes (the heap's),
// fits, memoryError (check_memory's figures, '' when it fits) }.
val inspectPretrained(val stat, val read) {
    checkpoint::OpenedCheckpoint opened;
    val out = val::object();
    const Status st = checkpoint::open_checkpoint(folder_access(stat, read), &opened);
    if (!st.ok()) {
        out.set("error", st.message());
        return out;
    }
    const checkpoint::CheckpointPlan& plan = opened.plan;
    const uint64_t budget = HeapCeiling::bytes - HeapCeiling::reserve;
    // As from_folder checks it: the input limit's tokens, the loss's block of logits rows.
    const int64_t tokens = model::ModelLimits::max_input_bytes;
    const Status memory = checkpoint::check_memory(plan, budget, tokens, 64);
    out.set("modelType", plan.setup.model_type);
    out.set("layers", static_cast<double>(plan.dims.layers));
    out.set("heads", static_cast<double>(plan.dims.heads));
    out.set("kvHeads", static_cast<double>(plan.dims.kv_heads));
    out.set("parameters", static_cast<double>(plan.parameters));
    out.set("weightBytes", static_cast<double>(plan.weight_bytes));
    out.set("workingBytes",
            static_cast<double>(checkpoint::forward_working_bytes(plan, tokens, 64)));
    out.set("budgetBytes", static_cast<double>(budget));
    out.set("fits", memory.ok());
    out.set("memoryError", memory.message());
    return out;
}

// A loaded code model, owned by the JS side.
class ModelHandle {
  public:
    std::string load(uintptr_t data, double size) {
        return model::Model::load(ptr<const uint8_t>(data), static_cast<size_t>(size), &model_,
                                  wasm_heap())
            .message();
    }
    // A Hugging Face checkpoint folder through the JS layer's file access (wasm/model.js
    // fromPretrained): stat(name) gives a file's size or -1 when absent; read(name, offset, size)
    // gives a Uint8Array of exactly those bytes, copied here into the heap. progress(done, total)
    // after each weight read. The core opens, checks and loads (model::Model::from_folder); an
    // error comes back as its message.
    std::string fromPretrained(val stat, val read, val progress) {
        const checkpoint::CheckpointFolder files = folder_access(stat, read);
        // The stored weights and a forward at the model's input limit must fit the module's
        // heap: refused with the figures before a tensor is read (the loader's own reserve then
        // counts the weights as it lays them out).
        checkpoint::CheckpointPlan plan;
        const Status st = model::Model::from_folder(
            files, &model_, wasm_heap(), HeapCeiling::bytes - HeapCeiling::reserve,
            [&](size_t done, size_t total) {
                if (!progress.isUndefined())
                    progress(static_cast<double>(done), static_cast<double>(total));
            },
            &plan);
        if (!st.ok()) return st.message();
        parameters_ = static_cast<double>(plan.parameters);
        weight_bytes_ = static_cast<double>(plan.weight_bytes);
        warnings_ = plan.warnings;
        return "";
    }
    val config() const {
        if (!model_) return val::null();
        val o = config_object(model_->config());
        if (const ModelSetup* setup = model_->setup()) {
            o.set("parameters", parameters_);
            o.set("kvHeads", model_->config().kv_head_count());
            o.set("weightBytes", weight_bytes_);
            o.set("modelType", setup->model_type);
            o.set("setup", model_setup_json(*setup));
            val warnings = val::array();
            for (const std::string& w : warnings_) warnings.call<void>("push", w);
            o.set("warnings", warnings);
        }
        return o;
    }
    // The model's defaults for a scheme (model::model_scheme_defaults): { error } or { defaults:
    // [{ key, value }] } (value a number or a name). typeShown: the JS layer's describe(type);
    // scalingType: the type of a scaling object without originalLength, else null.
    val schemeDefaults(const std::string& type, const std::string& type_shown,
                       val scaling_type) const {
        std::vector<model::SchemeDefault> defaults;
        std::string scaling;
        const bool has_scaling = scaling_type.isString();
        if (has_scaling) scaling = scaling_type.as<std::string>();
        val out = val::object();
        const Status st = model::model_scheme_defaults(model_->config(), type, type_shown,
                                                       has_scaling ? &scaling : nullptr, &defaults);
        if (!st.ok()) {
            out.set("error", st.message());
            return out;
        }
        val list = val::array();
        for (const model::SchemeDefault& d : defaults) {
            val item = val::object();
            item.set("key", d.key);
            item.set("value", d.name.empty() ? val(d.number) : val(d.name));
            list.call<void>("push", item);
        }
        out.set("defaults", list);
        return out;
    }
    // A baseline's context limit (model::model_baseline): { error } or { length, stride }. size and
    // stride: the user's values (undefined when left out), shown as the JS layer's describe().
    val baseline(int type, double max_input, val size, const std::string& size_shown, val stride,
                 const std::string& stride_shown) const {
        auto user = [](const val& v, const std::string& shown) {
            model::UserNumber u;
            u.present = !v.isUndefined();
            u.number = v.isNumber();
            if (u.number) u.value = v.as<double>();
            u.shown = shown;
            return u;
        };
        model::ContextLimit limit;
        const Status st =
            model::model_baseline(model_->config(), static_cast<int64_t>(max_input),
                                  static_cast<model::ContextLimitType>(type),
                                  user(size, size_shown), user(stride, stride_shown), &limit);
        val out = val::object();
        if (!st.ok()) {
            out.set("error", st.message());
            return out;
        }
        out.set("length", static_cast<double>(limit.length));
        out.set("stride", static_cast<double>(limit.stride));
        return out;
    }
    // bytes (a byte model's input) or ids (a token model's), the other 0.
    std::string forward(val scheme, val limit, uintptr_t bytes, uintptr_t ids, double n,
                        uintptr_t token, uintptr_t unit, uintptr_t statement, uintptr_t logits,
                        uintptr_t losses, uintptr_t attention, uintptr_t attention_all, int layer,
                        int head, bool model_schemes) const {
        if (!model_) return "the model is not loaded";
        return model_
            ->forward(request(scheme, limit, bytes, ids, n, token, unit, statement, logits, losses,
                              attention, attention_all, layer, head, model_schemes))
            .message();
    }
    // forward()'s arguments as a request.
    static model::Model::ForwardRequest
    request(val scheme, val limit, uintptr_t bytes, uintptr_t ids, double n, uintptr_t token,
            uintptr_t unit, uintptr_t statement, uintptr_t logits, uintptr_t losses,
            uintptr_t attention, uintptr_t attention_all, int layer, int head, bool model_schemes) {
        model::Model::ForwardRequest r;
        r.model_schemes = model_schemes;
        r.bytes = bytes ? ptr<const uint8_t>(bytes) : nullptr;
        r.ids = ids ? ptr<const int32_t>(ids) : nullptr;
        r.n = static_cast<int64_t>(n);
        if (!model_schemes) r.scheme = to_scheme(scheme);
        r.limit = to_limit(limit);
        r.positions = to_positions(token, unit, statement);
        r.logits = logits ? ptr<float>(logits) : nullptr;
        r.losses = losses ? ptr<float>(losses) : nullptr;
        r.attention = attention ? ptr<float>(attention) : nullptr;
        r.attention_all = attention_all ? ptr<float>(attention_all) : nullptr;
        r.attention_layer = layer;
        r.attention_head = head;
        return r;
    }
    // A checkpoint's linear layer i as ForwardSteps numbers them (model::Model::linear_view):
    // { out, in, panelWidth, format (0 f32, 1 f16, 2 bf16), data (its address), bytes }, or null.
    val linearView(int index) const {
        if (!model_ || index < 0 || index >= model_->linear_count()) return val::null();
        const model::Model::LinearView v = model_->linear_view(index);
        val o = val::object();
        o.set("out", v.out);
        o.set("in", v.in);
        o.set("panelWidth", v.panel_width);
        o.set("format", v.format);
        o.set("data", static_cast<double>(reinterpret_cast<uintptr_t>(v.data)));
        o.set("bytes", static_cast<double>(v.bytes));
        return o;
    }
    const model::Model* model() const { return model_.get(); }
    // vocab: a token model's tokenizer (TokenizerHandle.address()), 0 for a byte model.
    val generate(val scheme, val limit, uintptr_t prompt, double size, val hierarchy,
                 double max_bytes, double temperature, double seed, uintptr_t vocab,
                 bool model_schemes) const {
        val out = val::object();
        if (!model_) {
            out.set("error", std::string("the model is not loaded"));
            return out;
        }
        model::GenerateOptions o;
        o.model_schemes = model_schemes;
        if (!model_schemes) o.scheme = to_scheme(scheme);
        o.limit = to_limit(limit);
        o.hierarchy = to_hierarchy(hierarchy);
        o.max_bytes = static_cast<int64_t>(max_bytes);
        o.temperature = temperature;
        o.seed = static_cast<uint64_t>(seed);
        o.vocabulary = vocab ? ptr<const Vocabulary>(vocab) : nullptr;
        if (o.vocabulary) {
            Status reserved = wasm_heap().reserve(
                static_cast<double>(o.vocabulary->encode_heap_per_byte()) * size,
                "tokenizing the prompt");
            if (!reserved.ok()) {
                out.set("error", result(reserved));
                return out;
            }
        }
        std::string text;
        Status st = model::generate(
            *model_, std::string_view(ptr<const char>(prompt), static_cast<size_t>(size)), o,
            &text);
        out.set("error", result(st));
        if (st.ok())
            out.set("bytes",
                    typed_copy("Uint8Array", std::vector<uint8_t>(text.begin(), text.end())));
        return out;
    }

  private:
    std::unique_ptr<model::Model> model_;
    double parameters_ = 0, weight_bytes_ = 0; // a checkpoint's
    std::vector<std::string> warnings_;
};

val modelConfig(uintptr_t data, double size) {
    model::Config c;
    Status st = model::read_config(ptr<const uint8_t>(data), static_cast<size_t>(size), &c);
    val out = val::object();
    out.set("error", result(st));
    if (st.ok()) out.set("config", config_object(c));
    return out;
}

val bytePositions(uintptr_t text, double size, val hierarchy) {
    model::BytePositions p;
    Status st =
        model::byte_positions(std::string_view(ptr<const char>(text), static_cast<size_t>(size)),
                              to_hierarchy(hierarchy), &p);
    val out = val::object();
    out.set("error", result(st));
    if (st.ok()) {
        out.set("unit", typed_copy("Int32Array", p.unit));
        out.set("statement", typed_copy("Int32Array", p.statement));
    }
    return out;
}

// A token model's input: the tokens of text and their positions (model::token_positions).
val tokenPositions(uintptr_t text, double size, uintptr_t vocab, val hierarchy) {
    val out = val::object();
    const Vocabulary* v = ptr<const Vocabulary>(vocab);
    Status st =
        wasm_heap().reserve(static_cast<double>(v->encode_heap_per_byte()) * size, "tokenizing");
    model::TokenPositions p;
    if (st.ok())
        st = model::token_positions(
            std::string_view(ptr<const char>(text), static_cast<size_t>(size)), *v,
            to_hierarchy(hierarchy), &p);
    out.set("error", result(st));
    if (st.ok()) {
        out.set("ids", typed_copy("Int32Array", p.ids));
        out.set("start", typed_copy("Uint32Array", p.start));
        out.set("end", typed_copy("Uint32Array", p.end));
        out.set("unit", typed_copy("Int32Array", p.unit));
        out.set("statement", typed_copy("Int32Array", p.statement));
    }
    return out;
}

val modelLimits() {
    val o = val::object();
    o.set("maxInputBytes", static_cast<double>(model::ModelLimits::max_input_bytes));
    o.set("maxFileBytes", static_cast<double>(model::ModelLimits::max_file_bytes));
    o.set("formatVersion", model::kFormatVersion);
    return o;
}

void catalogue_part(val* out) {
    out->set("byteHierarchies", enum_list(model::byte_hierarchies()));
    out->set("contextLimits", enum_list(model::context_limits()));
}

// ---------------------------------------------------------------------------------------------
// The evaluation's rules (model.h, "The evaluation"), for wasm/recall.js: each a thin conversion.
// Arrays arrive as JS arrays or typed arrays; the heap they take is checked first.

// Whether the heap can take `bytes` more for a call of the evaluation; the error otherwise.
Status evaluation_heap(double bytes) {
    return wasm_heap().reserve(bytes, "the evaluation");
}

val classes_result(const Status& st, const std::vector<uint8_t>& classes) {
    val out = val::object();
    out.set("error", result(st));
    if (st.ok()) out.set("classes", typed_copy("Uint8Array", classes));
    return out;
}

val recallClasses(val bytes, double reach) {
    const double n = bytes["length"].as<double>();
    Status st = evaluation_heap(3 * n);
    std::vector<uint8_t> classes;
    if (st.ok()) {
        const std::vector<uint8_t> b = emscripten::convertJSArrayToNumberVector<uint8_t>(bytes);
        st = model::recall_classes(
            std::string_view(reinterpret_cast<const char*>(b.data()), b.size()),
            static_cast<int64_t>(reach), &classes);
    }
    return classes_result(st, classes);
}

val tokenRecallClasses(val bytes, val start, val end, double reach) {
    const double n = bytes["length"].as<double>(), count = start["length"].as<double>();
    Status st = evaluation_heap(10 * n + 40 * count);
    std::vector<uint8_t> classes;
    if (st.ok()) {
        const std::vector<uint8_t> b = emscripten::convertJSArrayToNumberVector<uint8_t>(bytes);
        const std::vector<double> s = emscripten::convertJSArrayToNumberVector<double>(start);
        const std::vector<double> e = emscripten::convertJSArrayToNumberVector<double>(end);
        // Whole numbers as they are (the core reports a span outside the bytes with them); any
        // other number as -1, outside too.
        auto whole = [](const std::vector<double>& x) {
            std::vector<int64_t> out(x.size());
            for (size_t k = 0; k < x.size(); ++k) {
                const bool exact = std::isfinite(x[k]) && x[k] == std::floor(x[k]) &&
                                   std::fabs(x[k]) <= 9007199254740992.0;
                out[k] = exact ? static_cast<int64_t>(x[k]) : -1;
            }
            return out;
        };
        std::vector<int64_t> s64 = whole(s), e64 = whole(e);
        st = model::token_recall_classes(
            std::string_view(reinterpret_cast<const char*>(b.data()), b.size()), s64, e64,
            static_cast<int64_t>(reach), &classes);
    }
    return classes_result(st, classes);
}

val recallClassNames() {
    val out = val::array();
    for (const std::string& name : model::recall_class_names()) out.call<void>("push", name);
    return out;
}

std::string evaluationLanguage(std::string file) {
    return model::evaluation_language(file);
}

val number_list(const std::vector<int64_t>& v) {
    val out = val::array();
    for (int64_t x : v) out.call<void>("push", static_cast<double>(x));
    return out;
}

// per_file < 0: every window.
val windowOffsets(double units, double length, double per_file) {
    std::vector<int64_t> offsets;
    Status st = model::window_offsets(static_cast<int64_t>(units), static_cast<int64_t>(length),
                                      static_cast<int64_t>(per_file), &offsets);
    val out = val::object();
    out.set("error", result(st));
    if (st.ok()) out.set("offsets", number_list(offsets));
    return out;
}

val defaultBuckets(double training_context, double length) {
    std::vector<int64_t> edges;
    Status st = model::default_buckets(static_cast<int64_t>(training_context),
                                       static_cast<int64_t>(length), &edges);
    val out = val::object();
    out.set("error", result(st));
    if (st.ok()) out.set("edges", number_list(edges));
    return out;
}

val windowSums(val losses, val classes, val edges) {
    const double n = losses["length"].as<double>() + classes["length"].as<double>();
    Status st = evaluation_heap(6 * n);
    model::WindowSums sums;
    if (st.ok()) {
        const std::vector<float> l = emscripten::convertJSArrayToNumberVector<float>(losses);
        const std::vector<uint8_t> c = emscripten::convertJSArrayToNumberVector<uint8_t>(classes);
        const std::vector<double> e = emscripten::convertJSArrayToNumberVector<double>(edges);
        st = model::window_sums(l.data(), l.size(), c.data(), c.size(),
                                std::vector<int64_t>(e.begin(), e.end()), &sums);
    }
    val out = val::object();
    out.set("error", result(st));
    if (st.ok()) {
        val bucket_sums = val::array(), class_sums = val::array(), class_counts = val::array();
        for (double x : sums.bucket_sums) bucket_sums.call<void>("push", x);
        for (int c = 0; c < model::kRecallClassCount; ++c) {
            class_sums.call<void>("push", sums.class_sums[c]);
            class_counts.call<void>("push", static_cast<double>(sums.class_counts[c]));
        }
        out.set("sums", bucket_sums);
        out.set("counts", number_list(sums.bucket_counts));
        out.set("classSums", class_sums);
        out.set("classCounts", class_counts);
    }
    return out;
}

// Keyed by the registry's symbol names (evaluation.symbols).
val presetSymbols(double training_context, double length, double stride_divisor) {
    model::PresetSymbols p;
    Status st =
        model::preset_symbols(static_cast<int64_t>(training_context), static_cast<int64_t>(length),
                              static_cast<int64_t>(stride_divisor), &p);
    val out = val::object();
    out.set("error", result(st));
    if (st.ok()) {
        val o = val::object();
        o.set("L", static_cast<double>(p.training_context));
        o.set("L/2", static_cast<double>(p.window));
        o.set("length/L", p.factor);
        o.set("self-extend group", static_cast<double>(p.self_extend_group));
        o.set("truncate stride", static_cast<double>(p.truncate_stride));
        out.set("symbols", o);
    }
    return out;
}

// A checkpoint's forward in steps (model::ForwardSteps) for the WebGPU backend (wasm/model.js):
// start() takes forward()'s arguments (the outputs' buffers must stay allocated until next() says
// it is done); next() runs to the next product and describes it ({ more: true, weight, layer, x,
// k, v, rows, in, out, y }: addresses; weight -1 a layer's attention, whose call
// attentionCall(layer) gives as JSON) or says it is done ({ more: false }) or failed ({ error });
// apply() computes the product it described on the CPU ('' or an error).
class ForwardStepsHandle {
  public:
    std::string start(const ModelHandle& m, val scheme, uintptr_t ids, double n, uintptr_t token,
                      uintptr_t unit, uintptr_t statement, uintptr_t logits, uintptr_t losses,
                      uintptr_t attention, uintptr_t attention_all, int layer, int head,
                      bool model_schemes) {
        if (!m.model()) return "the model is not loaded";
        return model::ForwardSteps::start(*m.model(),
                                          ModelHandle::request(scheme, val::null(), 0, ids, n,
                                                               token, unit, statement, logits,
                                                               losses, attention, attention_all,
                                                               layer, head, model_schemes),
                                          &steps_)
            .message();
    }
    val next() {
        val o = val::object();
        if (!steps_) {
            o.set("error", std::string("the forward has not started"));
            return o;
        }
        bool more = false;
        const Status st = steps_->next(&more, &product_);
        if (!st.ok()) {
            o.set("error", st.message());
            return o;
        }
        o.set("more", more);
        if (!more) return o;
        o.set("weight", product_.weight);
        o.set("layer", product_.layer);
        o.set("x", static_cast<double>(reinterpret_cast<uintptr_t>(product_.x)));
        o.set("k", static_cast<double>(reinterpret_cast<uintptr_t>(product_.k)));
        o.set("v", static_cast<double>(reinterpret_cast<uintptr_t>(product_.v)));
        o.set("rows", static_cast<double>(product_.rows));
        o.set("in", product_.in);
        o.set("out", product_.out);
        o.set("y", static_cast<double>(reinterpret_cast<uintptr_t>(product_.y)));
        return o;
    }
    std::string apply() {
        if (!steps_ || !product_.y) return "no product to compute";
        return steps_->apply(product_).message();
    }
    std::string attentionCall(int layer) const {
        return steps_ ? steps_->attention_call(layer) : "null";
    }

  private:
    std::unique_ptr<model::ForwardSteps> steps_;
    model::ForwardSteps::Product product_;
};

} // namespace

EMSCRIPTEN_BINDINGS(hirope_model) {
    emscripten::class_<ForwardStepsHandle>("ForwardStepsHandle")
        .constructor<>()
        .function("start", &ForwardStepsHandle::start)
        .function("next", &ForwardStepsHandle::next)
        .function("apply", &ForwardStepsHandle::apply)
        .function("attentionCall", &ForwardStepsHandle::attentionCall);
    emscripten::class_<ModelHandle>("ModelHandle")
        .constructor<>()
        .function("load", &ModelHandle::load)
        .function("fromPretrained", &ModelHandle::fromPretrained)
        .function("config", &ModelHandle::config)
        .function("schemeDefaults", &ModelHandle::schemeDefaults)
        .function("baseline", &ModelHandle::baseline)
        .function("forward", &ModelHandle::forward)
        .function("linearView", &ModelHandle::linearView)
        .function("generate", &ModelHandle::generate);
    emscripten::function("modelConfig", &modelConfig);
    emscripten::function("inspectPretrained", &inspectPretrained);
    emscripten::function("bytePositions", &bytePositions);
    emscripten::function("modelLimits", &modelLimits);
    emscripten::function("tokenPositions", &tokenPositions);
    emscripten::function("recallClasses", &recallClasses);
    emscripten::function("tokenRecallClasses", &tokenRecallClasses);
    emscripten::function("recallClassNames", &recallClassNames);
    emscripten::function("evaluationLanguage", &evaluationLanguage);
    emscripten::function("windowOffsets", &windowOffsets);
    emscripten::function("defaultBuckets", &defaultBuckets);
    emscripten::function("windowSums", &windowSums);
    emscripten::function("presetSymbols", &presetSymbols);
    add_catalogue_part(&catalogue_part);
}
