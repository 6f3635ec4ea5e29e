// Embind glue: a thin layer between the JS API (wasm/index.js) and the C++ core. Arrays travel
// as heap addresses that the JS layer allocates and frees; schemes arrive as plain objects that
// the JS layer has already normalised (every field present, names mapped to enum numbers).
// Errors come back as strings (empty on success) for the JS layer to throw as HiRoPEError.
#include "hirope/hirope.h"
#ifdef HIROPE_WITH_ANALYSIS
#include "hirope/analysis.h"
#include "hirope/model.h"
#endif

#include <emscripten/bind.h>
#include <emscripten/val.h>

using emscripten::val;
using namespace hirope;

namespace {

template <typename T> T* ptr(uintptr_t address) {
    return reinterpret_cast<T*>(address);
}

Scheme to_scheme(const val& o) {
    Scheme s;
    s.type = static_cast<SchemeType>(o["type"].as<int>());
    s.base = o["base"].as<double>();
    s.layout = static_cast<Layout>(o["layout"].as<int>());
    s.rotary_fraction = o["rotaryFraction"].as<double>();
    const val sc = o["scaling"];
    s.scaling.type = static_cast<ScalingType>(sc["type"].as<int>());
    s.scaling.factor = sc["factor"].as<double>();
    s.scaling.original_length = sc["originalLength"].as<double>();
    s.scaling.beta_fast = sc["betaFast"].as<double>();
    s.scaling.beta_slow = sc["betaSlow"].as<double>();
    s.scaling.truncate = sc["truncate"].as<bool>();
    s.scaling.mscale = sc["mscale"].as<double>();
    s.scaling.mscale_all_dim = sc["mscaleAllDim"].as<double>();
    s.scaling.attention_factor = sc["attentionFactor"].as<double>();
    s.scaling.low_freq_factor = sc["lowFreqFactor"].as<double>();
    s.scaling.high_freq_factor = sc["highFreqFactor"].as<double>();
    s.scaling.short_factor = emscripten::vecFromJSArray<double>(sc["shortFactor"]);
    s.scaling.long_factor = emscripten::vecFromJSArray<double>(sc["longFactor"]);
    // Integers arrive as doubles so that out-of-range values reach validate() intact.
    const double window = o["window"].as<double>();
    s.window = window < -1e15 ? -1 : window > 1e15 ? (1LL << 40) : static_cast<int64_t>(window);
    s.leaky_factor = o["leakyFactor"].as<double>();
    const double group = o["group"].as<double>();
    s.group = group < -1e15 ? -1 : group > 1e15 ? (1LL << 40) : static_cast<int64_t>(group);
    s.log_n = o["logN"].as<bool>();
    s.training_length = o["trainingLength"].as<double>();
    s.ratio = o["ratio"].as<double>();
    s.levels = o["levels"].as<int>();
    s.statement_ratio = o["statementRatio"].as<double>();
    s.token_on_high = o["tokenOnHigh"].as<bool>();
    s.xpos_gamma = o["gamma"].as<double>();
    s.xpos_scale_base = o["scaleBase"].as<double>();
    s.sinusoidal = static_cast<SinusoidalVariant>(o["variant"].as<int>());
    return s;
}

Positions to_positions(uintptr_t token, uintptr_t unit, uintptr_t statement) {
    return Positions{ptr<const int32_t>(token), ptr<const int32_t>(unit),
                     ptr<const int32_t>(statement)};
}

val result(const Status& st) {
    return val(st.ok() ? std::string() : st.message());
}

// A prepared attention held by the JS side between strip calls.
class Plan {
  public:
    std::string prepare(val scheme, uintptr_t q, uintptr_t k, uintptr_t v, double n, int head_dim,
                        int heads, uintptr_t token, uintptr_t unit, uintptr_t statement,
                        bool causal, int output, double scale,
                        // kept for the JS caller; removed with the JS 'eigen' kernel
                        bool /*use_eigen*/, int kernel) {
        AttentionRequest r;
        r.q = ptr<const float>(q);
        r.k = ptr<const float>(k);
        r.v = ptr<const float>(v);
        r.n = static_cast<int64_t>(n);
        r.head_dim = head_dim;
        r.heads = heads;
        r.positions = to_positions(token, unit, statement);
        r.scheme = to_scheme(scheme);
        r.causal = causal;
        r.output = static_cast<Output>(output);
        r.scale = scale;
        return plan_.prepare(r, static_cast<Kernel>(kernel)).message();
    }
    std::string rows(int head, double r0, double r1, uintptr_t out) const {
        return plan_.rows(head, static_cast<int64_t>(r0), static_cast<int64_t>(r1), ptr<float>(out))
            .message();
    }
    std::string outputRows(double r0, double r1, uintptr_t out) const {
        return plan_
            .output_rows(static_cast<int64_t>(r0), static_cast<int64_t>(r1), ptr<float>(out))
            .message();
    }

  private:
    AttentionPlan plan_;
};

val inverseFrequencies(val scheme, int head_dim, double seq_len) {
    std::vector<double> f;
    Status st = inverse_frequencies(to_scheme(scheme), head_dim, static_cast<int64_t>(seq_len), &f);
    val out = val::object();
    out.set("error", result(st));
    if (st.ok()) {
        val arr = val::global("Float64Array").new_(f.size());
        arr.call<void>("set", val(emscripten::typed_memory_view(f.size(), f.data())));
        out.set("values", arr);
        out.set("attentionFactor",
                attention_factor(to_scheme(scheme), static_cast<int64_t>(seq_len)));
    }
    return out;
}

val bandList(val scheme, int head_dim) {
    const Scheme s = to_scheme(scheme);
    val out = val::object();
    Status st = validate(s, head_dim);
    out.set("error", result(st));
    val list = val::array();
    if (st.ok()) {
        for (const Band& b : bands(s, head_dim)) {
            val item = val::object();
            item.set("name", b.name);
            item.set("pairBegin", b.pair_begin);
            item.set("pairEnd", b.pair_end);
            list.call<void>("push", item);
        }
    }
    out.set("bands", list);
    return out;
}

val alibiSlopes(int heads) {
    std::vector<double> s = alibi_slopes(heads);
    val arr = val::global("Float64Array").new_(s.size());
    arr.call<void>("set", val(emscripten::typed_memory_view(s.size(), s.data())));
    return arr;
}

std::string relativeDistances(val scheme, int head_dim, double n, uintptr_t token, uintptr_t unit,
                              uintptr_t statement, int band, uintptr_t out) {
    return relative_distances(to_scheme(scheme), head_dim, static_cast<int64_t>(n),
                              to_positions(token, unit, statement), band, ptr<float>(out))
        .message();
}

std::string rotateRows(val scheme, int head_dim, int heads, double n, uintptr_t token,
                       uintptr_t unit, uintptr_t statement, int role, int branch, uintptr_t x,
                       uintptr_t out) {
    return rotate(to_scheme(scheme), head_dim, heads, static_cast<int64_t>(n),
                  to_positions(token, unit, statement), static_cast<Role>(role),
                  static_cast<Branch>(branch), ptr<const float>(x), ptr<float>(out))
        .message();
}

std::string transformCoefficients(val scheme, int head_dim, double n, uintptr_t token,
                                  uintptr_t unit, uintptr_t statement, int role, int branch,
                                  uintptr_t a, uintptr_t b, uintptr_t c, uintptr_t partner) {
    return transform_coefficients(to_scheme(scheme), head_dim, static_cast<int64_t>(n),
                                  to_positions(token, unit, statement), static_cast<Role>(role),
                                  static_cast<Branch>(branch), ptr<float>(a), ptr<float>(b),
                                  ptr<float>(c), ptr<int32_t>(partner))
        .message();
}

// grid: [n, r0, r1, c0, c1, rows, cols] as a JS array.
PoolGrid to_grid(const val& grid) {
    PoolGrid g;
    g.n = static_cast<int64_t>(grid[0].as<double>());
    g.row_begin = static_cast<int64_t>(grid[1].as<double>());
    g.row_end = static_cast<int64_t>(grid[2].as<double>());
    g.col_begin = static_cast<int64_t>(grid[3].as<double>());
    g.col_end = static_cast<int64_t>(grid[4].as<double>());
    g.rows = static_cast<int64_t>(grid[5].as<double>());
    g.cols = static_cast<int64_t>(grid[6].as<double>());
    return g;
}

std::string poolRows(val grid, uintptr_t data, double first, double last, bool causal,
                     uintptr_t ratio, uintptr_t raw, uintptr_t row_max) {
    const PoolGrid g = to_grid(grid);
    return pool_rows(g, ptr<const float>(data), static_cast<int64_t>(first),
                     static_cast<int64_t>(last), causal, ptr<float>(ratio), ptr<float>(raw),
                     row_max ? ptr<float>(row_max) : nullptr)
        .message();
}

void poolFinish(val grid, uintptr_t ratio, uintptr_t raw) {
    const PoolGrid g = to_grid(grid);
    pool_finish(g, ptr<float>(ratio), ptr<float>(raw));
}

std::string longTermDecay(val scheme, int head_dim, double max_distance, uintptr_t out) {
    return long_term_decay(to_scheme(scheme), head_dim, static_cast<int64_t>(max_distance),
                           ptr<float>(out))
        .message();
}

void seededVectors(double seed, uintptr_t ids, double n, double row_width, int role,
                   uintptr_t out) {
    seeded_vectors(static_cast<uint64_t>(seed), ptr<const int32_t>(ids), static_cast<int64_t>(n),
                   static_cast<int64_t>(row_width), role, ptr<float>(out));
}

val limits() {
    val o = val::object();
    o.set("maxTokens", static_cast<double>(Limits::max_tokens));
    o.set("maxHeadDim", static_cast<double>(Limits::max_head_dim));
    o.set("maxHeads", static_cast<double>(Limits::max_heads));
    o.set("maxOutputElements", static_cast<double>(Limits::max_output_elements));
    return o;
}

std::string kernelName() {
    return kernel_name();
}

#ifdef HIROPE_WITH_ANALYSIS
template <typename T> val typed_copy(const char* ctor, const std::vector<T>& v) {
    val arr = val::global(ctor).new_(v.size());
    if (!v.empty()) arr.call<void>("set", val(emscripten::typed_memory_view(v.size(), v.data())));
    return arr;
}

// A loaded vocabulary, owned by the JS side.
class TokenizerHandle {
  public:
    std::string load(uintptr_t data, double size) {
        return load_vocabulary(ptr<const uint8_t>(data), static_cast<size_t>(size), &vocab_)
            .message();
    }
    uintptr_t address() const { return reinterpret_cast<uintptr_t>(vocab_.get()); }
    double size() const { return vocab_ ? static_cast<double>(vocab_->size()) : 0; }

  private:
    std::unique_ptr<Vocabulary> vocab_;
};

val encodeText(uintptr_t vocab, uintptr_t code, double size) {
    std::vector<Token> tokens;
    ptr<const Vocabulary>(vocab)->encode(
        std::string_view(ptr<const char>(code), static_cast<size_t>(size)), &tokens);
    std::vector<int32_t> ids(tokens.size());
    for (size_t i = 0; i < tokens.size(); ++i) ids[i] = tokens[i].id;
    return typed_copy("Int32Array", ids);
}

// An analysis packed into one reusable buffer of 32-bit words, so the JS side reads every column
// with a single copy instead of one crossing per value:
// [tokens, units, errors, statements], ids, start, end, byteStart, byteEnd, unit, statement
// (tokens each), unit kind, start, end, byteStart, byteEnd (units each), errors (5 words each).
class AnalysisBuffer {
  public:
    std::string run(uintptr_t code, double size, std::string language, uintptr_t vocab, int gap,
                    bool descend, int hierarchy, double segment_size) {
        AnalyzeOptions o;
        o.language = language;
        o.vocabulary = ptr<const Vocabulary>(vocab);
        o.gap = static_cast<GapPolicy>(gap);
        o.descend_classes = descend;
        o.hierarchy = static_cast<Hierarchy>(hierarchy);
        o.segment_size = static_cast<int64_t>(segment_size);
        Analysis a;
        Status st =
            analyze(std::string_view(ptr<const char>(code), static_cast<size_t>(size)), o, &a);
        if (!st.ok()) return st.message();
        const size_t n = a.tokens.size(), u = a.units.size(), e = a.errors.size();
        data_.clear();
        data_.reserve(4 + 7 * n + 5 * u + 5 * e);
        data_.insert(data_.end(), {static_cast<uint32_t>(n), static_cast<uint32_t>(u),
                                   static_cast<uint32_t>(e), static_cast<uint32_t>(a.statements)});
        for (const Token& t : a.tokens) data_.push_back(static_cast<uint32_t>(t.id));
        data_.insert(data_.end(), a.start_utf16.begin(), a.start_utf16.end());
        data_.insert(data_.end(), a.end_utf16.begin(), a.end_utf16.end());
        for (const Token& t : a.tokens) data_.push_back(t.start);
        for (const Token& t : a.tokens) data_.push_back(t.end);
        for (int32_t x : a.unit) data_.push_back(static_cast<uint32_t>(x));
        for (int32_t x : a.statement) data_.push_back(static_cast<uint32_t>(x));
        names_.clear();
        types_.clear();
        for (const Unit& x : a.units)
            data_.push_back(x.kind == "function"  ? 1
                            : x.kind == "class"   ? 2
                            : x.kind == "segment" ? 3
                                                  : 0);
        for (const Unit& x : a.units) data_.push_back(x.start_utf16);
        for (const Unit& x : a.units) data_.push_back(x.end_utf16);
        for (const Unit& x : a.units) data_.push_back(x.start);
        for (const Unit& x : a.units) data_.push_back(x.end);
        for (const Unit& x : a.units) {
            names_ += x.name;
            names_ += '\0';
            types_ += x.node_type;
            types_ += '\0';
        }
        for (const ErrorRegion& r : a.errors)
            data_.insert(data_.end(),
                         {r.start_utf16, r.end_utf16, r.start, r.end, r.missing ? 1u : 0u});
        language_ = a.language;
        tokenizer_ = a.tokenizer;
        return "";
    }
    uintptr_t data() const { return reinterpret_cast<uintptr_t>(data_.data()); }
    std::string names() const { return names_; }
    std::string types() const { return types_; }
    std::string language() const { return language_; }
    std::string tokenizer() const { return tokenizer_; }

  private:
    std::vector<uint32_t> data_;
    std::string names_, types_, language_, tokenizer_;
};

val parseCode(uintptr_t code, double size, std::string language) {
    bool has_error = false;
    Status st = parse_only(std::string_view(ptr<const char>(code), static_cast<size_t>(size)),
                           language, &has_error);
    val out = val::object();
    out.set("error", result(st));
    out.set("hasError", has_error);
    return out;
}

val languageList() {
    val arr = val::array();
    for (const std::string& l : languages()) arr.call<void>("push", l);
    return arr;
}

std::string detectLanguage(std::string filename) {
    return detect_language(filename);
}

// hierarchy: { level (0 units, 1 statements, 2 segments), language, gap, descendClasses,
// segmentSize }, normalised by the JS layer.
model::HierarchyOptions to_hierarchy(const val& o) {
    model::HierarchyOptions h;
    h.hierarchy = static_cast<model::ByteHierarchy>(o["level"].as<int>());
    h.language = o["language"].as<std::string>();
    h.gap = static_cast<GapPolicy>(o["gap"].as<int>());
    h.descend_classes = o["descendClasses"].as<bool>();
    h.segment_size = static_cast<int64_t>(o["segmentSize"].as<double>());
    return h;
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
    return o;
}

// A loaded code model, owned by the JS side.
class ModelHandle {
  public:
    std::string load(uintptr_t data, double size) {
        return model::Model::load(ptr<const uint8_t>(data), static_cast<size_t>(size), &model_)
            .message();
    }
    val config() const { return model_ ? config_object(model_->config()) : val::null(); }
    std::string forward(val scheme, uintptr_t bytes, double n, uintptr_t token, uintptr_t unit,
                        uintptr_t statement, uintptr_t logits, uintptr_t losses,
                        uintptr_t attention, int layer, int head) const {
        if (!model_) return "the model is not loaded";
        model::Model::ForwardRequest r;
        r.bytes = ptr<const uint8_t>(bytes);
        r.n = static_cast<int64_t>(n);
        r.scheme = to_scheme(scheme);
        r.positions = to_positions(token, unit, statement);
        r.logits = logits ? ptr<float>(logits) : nullptr;
        r.losses = losses ? ptr<float>(losses) : nullptr;
        r.attention = attention ? ptr<float>(attention) : nullptr;
        r.attention_layer = layer;
        r.attention_head = head;
        return model_->forward(r).message();
    }
    val generate(val scheme, uintptr_t prompt, double size, val hierarchy, double max_bytes,
                 double temperature, double seed) const {
        val out = val::object();
        if (!model_) {
            out.set("error", std::string("the model is not loaded"));
            return out;
        }
        model::GenerateOptions o;
        o.scheme = to_scheme(scheme);
        o.hierarchy = to_hierarchy(hierarchy);
        o.max_bytes = static_cast<int64_t>(max_bytes);
        o.temperature = temperature;
        o.seed = static_cast<uint64_t>(seed);
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

val modelLimits() {
    val o = val::object();
    o.set("maxInputBytes", static_cast<double>(model::ModelLimits::max_input_bytes));
    o.set("maxFileBytes", static_cast<double>(model::ModelLimits::max_file_bytes));
    o.set("formatVersion", model::kFormatVersion);
    return o;
}
#endif

} // namespace

EMSCRIPTEN_BINDINGS(hirope) {
    emscripten::class_<Plan>("Plan")
        .constructor<>()
        .function("prepare", &Plan::prepare)
        .function("rows", &Plan::rows)
        .function("outputRows", &Plan::outputRows);
    emscripten::function("inverseFrequencies", &inverseFrequencies);
    emscripten::function("bands", &bandList);
    emscripten::function("alibiSlopes", &alibiSlopes);
    emscripten::function("splitFraction", &split_fraction);
    emscripten::function("relativeDistances", &relativeDistances);
    emscripten::function("rotate", &rotateRows);
    emscripten::function("longTermDecay", &longTermDecay);
    emscripten::function("poolRows", &poolRows);
    emscripten::function("poolFinish", &poolFinish);
    emscripten::function("transformCoefficients", &transformCoefficients);
    emscripten::function("seededVectors", &seededVectors);
    emscripten::function("limits", &limits);
    emscripten::function("kernelName", &kernelName);
#ifdef HIROPE_WITH_ANALYSIS
    emscripten::class_<TokenizerHandle>("TokenizerHandle")
        .constructor<>()
        .function("load", &TokenizerHandle::load)
        .function("address", &TokenizerHandle::address)
        .function("size", &TokenizerHandle::size);
    emscripten::function("encode", &encodeText);
    emscripten::class_<AnalysisBuffer>("AnalysisBuffer")
        .constructor<>()
        .function("run", &AnalysisBuffer::run)
        .function("data", &AnalysisBuffer::data)
        .function("names", &AnalysisBuffer::names)
        .function("types", &AnalysisBuffer::types)
        .function("language", &AnalysisBuffer::language)
        .function("tokenizer", &AnalysisBuffer::tokenizer);
    emscripten::function("parse", &parseCode);
    emscripten::function("languages", &languageList);
    emscripten::function("detectLanguage", &detectLanguage);
    emscripten::class_<ModelHandle>("ModelHandle")
        .constructor<>()
        .function("load", &ModelHandle::load)
        .function("config", &ModelHandle::config)
        .function("forward", &ModelHandle::forward)
        .function("generate", &ModelHandle::generate);
    emscripten::function("modelConfig", &modelConfig);
    emscripten::function("bytePositions", &bytePositions);
    emscripten::function("modelLimits", &modelLimits);
#endif
}
