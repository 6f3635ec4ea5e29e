// Embind glue of the code model (hirope_model): loading weights, the forward pass (logits,
// losses, attention), generation, byte and token positions, the model's limits and its part of
// the scheme catalogue (byte hierarchies, context limits).
#include "hirope/model.h"
#include "common.h"
#include "hirope/analysis.h"

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

// A loaded code model, owned by the JS side.
class ModelHandle {
  public:
    std::string load(uintptr_t data, double size) {
        return model::Model::load(ptr<const uint8_t>(data), static_cast<size_t>(size), &model_,
                                  wasm_heap())
            .message();
    }
    val config() const { return model_ ? config_object(model_->config()) : val::null(); }
    // bytes (a byte model's input) or ids (a token model's), the other 0.
    std::string forward(val scheme, val limit, uintptr_t bytes, uintptr_t ids, double n,
                        uintptr_t token, uintptr_t unit, uintptr_t statement, uintptr_t logits,
                        uintptr_t losses, uintptr_t attention, int layer, int head) const {
        if (!model_) return "the model is not loaded";
        model::Model::ForwardRequest r;
        r.bytes = bytes ? ptr<const uint8_t>(bytes) : nullptr;
        r.ids = ids ? ptr<const int32_t>(ids) : nullptr;
        r.n = static_cast<int64_t>(n);
        r.scheme = to_scheme(scheme);
        r.limit = to_limit(limit);
        r.positions = to_positions(token, unit, statement);
        r.logits = logits ? ptr<float>(logits) : nullptr;
        r.losses = losses ? ptr<float>(losses) : nullptr;
        r.attention = attention ? ptr<float>(attention) : nullptr;
        r.attention_layer = layer;
        r.attention_head = head;
        return model_->forward(r).message();
    }
    // vocab: a token model's tokenizer (TokenizerHandle.address()), 0 for a byte model.
    val generate(val scheme, val limit, uintptr_t prompt, double size, val hierarchy,
                 double max_bytes, double temperature, double seed, uintptr_t vocab) const {
        val out = val::object();
        if (!model_) {
            out.set("error", std::string("the model is not loaded"));
            return out;
        }
        model::GenerateOptions o;
        o.scheme = to_scheme(scheme);
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

} // namespace

EMSCRIPTEN_BINDINGS(hirope_model) {
    emscripten::class_<ModelHandle>("ModelHandle")
        .constructor<>()
        .function("load", &ModelHandle::load)
        .function("config", &ModelHandle::config)
        .function("forward", &ModelHandle::forward)
        .function("generate", &ModelHandle::generate);
    emscripten::function("modelConfig", &modelConfig);
    emscripten::function("bytePositions", &bytePositions);
    emscripten::function("modelLimits", &modelLimits);
    emscripten::function("tokenPositions", &tokenPositions);
    add_catalogue_part(&catalogue_part);
}
