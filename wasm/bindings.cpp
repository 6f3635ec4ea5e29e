// Embind glue: a thin layer between the JS API (wasm/api.js and the modules it uses) and the C++
// core. Arrays travel as heap addresses that the JS layer allocates and frees; schemes arrive as
// plain objects that the JS layer has already normalised (every field present, names mapped to
// enum numbers), and are read field by field through the vocabulary's accessors. Errors come back
// as strings (empty on success) that name fields in C++ terms; the JS layer maps the names through
// the vocabulary (exported by vocabulary()) and throws them as HiRoPEError.
#include "hirope/hirope.h"
#ifdef HIROPE_WITH_ANALYSIS
#include "hirope/analysis.h"
#include "hirope/model.h"
#endif

#include <cctype>
#include <cmath>
#include <optional>

#include <emscripten/bind.h>
#include <emscripten/heap.h>
#include <emscripten/val.h>
#include <malloc.h>

// dlmalloc's peak of bytes taken from the system (emscripten's malloc; no header declares it).
extern "C" size_t malloc_max_footprint(void);

using emscripten::val;
using namespace hirope;

namespace {

template <typename T> T* ptr(uintptr_t address) {
    return reinterpret_cast<T*>(address);
}

// One parameter from the JS object (keyed by its JS name) into the scheme.
void read_param(const ParamInfo& p, const val& o, Scheme* s) {
    if (!p.field) return; // an option of the JS layer only
    switch (p.kind) {
    case ParamKind::scaling:
        return;
    case ParamKind::list:
        *p.list(*s) = emscripten::vecFromJSArray<double>(o[p.name]);
        return;
    case ParamKind::boolean:
        p.set(*s, o[p.name].as<bool>() ? 1 : 0);
        return;
    default:
        // Integers arrive as doubles so that out-of-range values reach validate() intact.
        p.set(*s, o[p.name].as<double>());
    }
}

Scheme to_scheme(const val& o) {
    const SchemeVocabulary& v = scheme_vocabulary();
    Scheme s;
    s.type = static_cast<SchemeType>(o["type"].as<int>());
    for (const ParamInfo& p : v.scheme_params) read_param(p, o, &s);
    const val sc = o["scaling"];
    s.scaling.type = static_cast<ScalingType>(sc["type"].as<int>());
    for (const ParamInfo& p : v.scaling_params) read_param(p, sc, &s);
    return s;
}

// The budget every call whose memory grows with its input is checked against.
[[maybe_unused]] HeapBudget wasm_heap() { // unused in the core build (no analysis)
    HeapBudget b;
    b.enabled = true;
    return b;
}

// The heap: bytes in use now (mallinfo walks the heap: for hr.memory(), never per operation), the
// most malloc has held, the memory's size, the ceiling the core derives its limits from, and the
// memory maximum this module was linked with (the two must agree: tests/js check it).
val heapStats() {
    val o = val::object();
    o.set("inUseBytes", static_cast<double>(mallinfo().uordblks));
    o.set("peakBytes", static_cast<double>(malloc_max_footprint()));
    o.set("memoryBytes", static_cast<double>(emscripten_get_heap_size()));
    o.set("reserveBytes", static_cast<double>(HeapCeiling::reserve));
    o.set("ceilingBytes", static_cast<double>(HeapCeiling::bytes));
    o.set("linkedMaximumBytes", static_cast<double>(emscripten_get_heap_max()));
    return o;
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
                        bool causal, int output, double scale, int kernel) {
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

val splitFraction(double training_length, double base) {
    double f = 0;
    Status st = split_fraction_checked(training_length, base, &f);
    val out = val::object();
    out.set("error", result(st));
    if (st.ok()) out.set("value", f);
    return out;
}

val splitBound(val scheme, int head_dim) {
    SplitBound b;
    Status st = split_bound(to_scheme(scheme), head_dim, &b);
    val out = val::object();
    out.set("error", result(st));
    if (st.ok()) {
        out.set("split", b.split);
        out.set("pairs", b.pairs);
        out.set("tokenPairs", b.token_pairs);
        out.set("maxTokenPairs", b.max_token_pairs);
        out.set("over", b.over);
    }
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

// ---------------------------------------------------------------------------------------------
// The vocabulary as a plain JSON-serialisable object (keys in camelCase, null for "none").

std::string camel(const char* snake) {
    std::string out;
    for (const char* c = snake; *c; ++c) {
        if (*c == '_' && c[1])
            out += static_cast<char>(std::toupper(static_cast<unsigned char>(*++c)));
        else
            out += *c;
    }
    return out;
}

val string_array(const std::vector<const char*>& items) {
    val arr = val::array();
    for (const char* x : items) arr.call<void>("push", std::string(x));
    return arr;
}

val enum_list(const std::vector<EnumValue>& list) {
    val arr = val::array();
    for (const EnumValue& e : list) {
        val o = val::object();
        o.set("name", std::string(e.name));
        o.set("value", e.value);
        o.set("label", std::string(e.label));
        o.set("description", std::string(e.description));
        arr.call<void>("push", o);
    }
    return arr;
}

val finite_or_null(double x) {
    return std::isfinite(x) ? val(x) : val::null();
}

const char* kind_name(ParamKind k) {
    switch (k) {
    case ParamKind::number:
        return "number";
    case ParamKind::integer:
        return "integer";
    case ParamKind::boolean:
        return "boolean";
    case ParamKind::enumeration:
        return "enum";
    case ParamKind::list:
        return "list";
    case ParamKind::scaling:
        return "scaling";
    }
    return "";
}

// A value of a parameter as users write it: booleans, enum names, numbers.
val user_value(const ParamInfo& p, double x) {
    if (p.kind == ParamKind::boolean) return val(x != 0);
    if (p.kind == ParamKind::enumeration)
        for (const EnumValue& e : *value_list(p.values))
            if (e.value == static_cast<int>(x)) return val(std::string(e.name));
    return val(x);
}

const ParamInfo* find_param(const std::vector<ParamInfo>& params, const char* field) {
    for (const ParamInfo& p : params)
        if (p.field && std::string(p.field) == field) return &p;
    return nullptr;
}

// A reference inside the table to another parameter, by its JS name, with a value it compares to.
val condition(const std::vector<ParamInfo>& params, const char* field, double value) {
    const ParamInfo* p = find_param(params, field);
    val o = val::object();
    o.set("parameter", p ? std::string(p->name) : std::string(field));
    o.set("equals", p ? user_value(*p, value) : val(value));
    return o;
}

template <typename Info> val names_taking(const std::vector<Info>& types, uint32_t mask) {
    val arr = val::array();
    for (const Info& t : types)
        if (mask >> static_cast<int>(t.type) & 1u) arr.call<void>("push", std::string(t.name));
    return arr;
}

val param_list(const std::vector<ParamInfo>& params, bool scaling) {
    const SchemeVocabulary& v = scheme_vocabulary();
    const Scheme defaults;
    val arr = val::array();
    for (const ParamInfo& p : params) {
        val o = val::object();
        o.set("name", std::string(p.name));
        o.set("field",
              p.field ? val(std::string(scaling ? "scaling." : "") + p.field) : val::null());
        o.set("kind", std::string(kind_name(p.kind)));
        o.set("description", std::string(p.description));
        if (p.kind == ParamKind::list)
            o.set("default", val::array());
        else if (p.kind == ParamKind::scaling)
            o.set("default", std::string("none"));
        else if (p.get)
            o.set("default", user_value(p, p.get(defaults)));
        else
            o.set("default", p.option_default);
        o.set("required", p.required);
        const bool numeric = p.kind == ParamKind::number || p.kind == ParamKind::integer;
        o.set("min", finite_or_null(p.min));
        o.set("max", finite_or_null(p.max));
        o.set("minOpen", p.min_open);
        o.set("maxOpen", p.max_open);
        val allowed = val::array();
        for (double x : p.allowed) allowed.call<void>("push", x);
        o.set("allowed", allowed);
        o.set("limit", finite_or_null(p.limit));
        // The step of a form control: the table's, 1 for integers, null for any value.
        o.set("step", p.step > 0                     ? val(p.step)
                      : p.kind == ParamKind::integer ? val(1)
                                                     : val::null());
        o.set("range", numeric ? val(param_range(p)) : val::null());
        o.set("values", p.values ? val(camel(p.values)) : val::null());
        o.set(scaling ? "scalings" : "schemes",
              scaling ? names_taking(v.scalings, p.takes) : names_taking(v.schemes, p.takes));
        o.set("onlyIf", p.only_if ? condition(params, p.only_if, p.only_if_value) : val::null());
        arr.call<void>("push", o);
    }
    return arr;
}

template <typename Info> val parameters_taken(const Info& t, const std::vector<ParamInfo>& params) {
    std::vector<const char*> names;
    for (const ParamInfo& p : params)
        if (takes(p, static_cast<int>(t.type))) names.push_back(p.name);
    return string_array(names);
}

val vocabulary() {
    const SchemeVocabulary& v = scheme_vocabulary();
    val out = val::object();
    val schemes = val::array();
    for (const SchemeInfo& s : v.schemes) {
        val o = val::object();
        o.set("name", std::string(s.name));
        o.set("value", static_cast<int>(s.type));
        o.set("label", std::string(s.label));
        o.set("rotary", s.rotary);
        o.set("windowed", s.windowed);
        o.set("needsUnits", s.needs_units);
        o.set("description", std::string(s.description));
        o.set("parameters", parameters_taken(s, v.scheme_params));
        schemes.call<void>("push", o);
    }
    out.set("schemes", schemes);
    val scalings = val::array();
    for (const ScalingInfo& s : v.scalings) {
        val o = val::object();
        o.set("name", std::string(s.name));
        o.set("value", static_cast<int>(s.type));
        o.set("label", std::string(s.label));
        o.set("aliases", string_array(s.aliases));
        o.set("description", std::string(s.description));
        o.set("parameters", parameters_taken(s, v.scaling_params));
        scalings.call<void>("push", o);
    }
    out.set("scalings", scalings);
    out.set("parameters", param_list(v.scheme_params, false));
    out.set("scalingParameters", param_list(v.scaling_params, true));
    out.set("layouts", enum_list(v.layouts));
    out.set("sinusoidalVariants", enum_list(v.sinusoidal_variants));
    out.set("outputs", enum_list(v.outputs));
    out.set("roles", enum_list(v.roles));
    out.set("branches", enum_list(v.branches));
    out.set("kernels", enum_list(v.kernels));
    val rules = val::array();
    for (const DefaultRule& r : v.default_rules) {
        const ParamInfo* target = find_param(v.scheme_params, r.field);
        val o = val::object();
        o.set("parameter", target ? std::string(target->name) : std::string(r.field));
        o.set("schemes", names_taking(v.schemes, r.schemes));
        o.set("when", r.when ? condition(v.scheme_params, r.when, r.when_value) : val::null());
        if (r.from) {
            // value = (offset + scale * from) / divisor
            o.set("from", std::string(find_param(v.scheme_params, r.from)->name));
            o.set("offset", r.offset);
            o.set("scale", r.scale);
            o.set("divisor", r.divisor);
        } else {
            o.set("value",
                  target ? user_value(*target, r.offset / r.divisor) : val(r.offset / r.divisor));
        }
        o.set("description", std::string(r.description));
        rules.call<void>("push", o);
    }
    out.set("defaultRules", rules);
    val names = val::array();
    for (const NameInfo& n : v.arguments) {
        val o = val::object();
        o.set("field", std::string(n.field));
        o.set("name", std::string(n.name));
        names.call<void>("push", o);
    }
    out.set("arguments", names);
    val languages = val::array();
    std::vector<EnumValue> none;
#ifdef HIROPE_WITH_ANALYSIS
    for (const LanguageInfo& l : language_info()) {
        val o = val::object();
        o.set("name", l.name);
        o.set("label", l.label);
        val ext = val::array();
        for (const std::string& e : l.extensions) ext.call<void>("push", e);
        o.set("extensions", ext);
        languages.call<void>("push", o);
    }
    out.set("languages", languages);
    const AnalysisVocabulary& a = analysis_vocabulary();
    out.set("gaps", enum_list(a.gaps));
    out.set("hierarchies", enum_list(a.hierarchies));
    out.set("unitKinds", enum_list(a.unit_kinds));
    out.set("byteHierarchies", enum_list(model::byte_hierarchies()));
    out.set("contextLimits", enum_list(model::context_limits()));
#else
    out.set("languages", languages);
    out.set("gaps", enum_list(none));
    out.set("hierarchies", enum_list(none));
    out.set("unitKinds", enum_list(none));
    out.set("byteHierarchies", enum_list(none));
    out.set("contextLimits", enum_list(none));
#endif
    return out;
}

#ifdef HIROPE_WITH_ANALYSIS
// A parse budget from JS: NaN stands for "not given" (the core's default budget); the JS layer
// checks that a given timeoutMs is a number, so NaN never means anything else.
std::optional<double> optional_ms(double ms) {
    if (std::isnan(ms)) return std::nullopt;
    return ms;
}

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
    // A Hugging Face tokenizer.json (load_tokenizer_json); the JSON text is not kept.
    std::string loadJson(uintptr_t data, double size, std::string name) {
        Status st = wasm_heap().reserve(
            static_cast<double>(AnalysisLimits::tokenizer_json_load_bytes_per_byte) * size,
            "loading a tokenizer.json");
        if (!st.ok()) return st.message();
        return load_tokenizer_json(
                   std::string_view(ptr<const char>(data), static_cast<size_t>(size)),
                   std::move(name), &vocab_)
            .message();
    }
    uintptr_t address() const { return reinterpret_cast<uintptr_t>(vocab_.get()); }
    double size() const { return vocab_ ? static_cast<double>(vocab_->size()) : 0; }

  private:
    std::unique_ptr<Vocabulary> vocab_;
};

// The token ids of a text as an Int32Array, or an error string.
val encodeText(uintptr_t vocab, uintptr_t code, double size) {
    const Vocabulary* v = ptr<const Vocabulary>(vocab);
    Status st =
        wasm_heap().reserve(static_cast<double>(v->encode_heap_per_byte()) * size, "tokenizing");
    if (!st.ok()) return val(st.message());
    std::vector<Token> tokens;
    v->encode(std::string_view(ptr<const char>(code), static_cast<size_t>(size)), &tokens);
    std::vector<int32_t> ids(tokens.size());
    for (size_t i = 0; i < tokens.size(); ++i) ids[i] = tokens[i].id;
    return typed_copy("Int32Array", ids);
}

// The bytes of token ids, concatenated, as a Uint8Array; or an error string naming the first id
// outside the vocabulary.
val decodeIds(uintptr_t vocab, uintptr_t ids, double count) {
    const Vocabulary* v = ptr<const Vocabulary>(vocab);
    const int32_t* p = ptr<const int32_t>(ids);
    size_t n = static_cast<size_t>(count), total = 0;
    for (size_t i = 0; i < n; ++i) {
        if (p[i] < 0 || static_cast<size_t>(p[i]) >= v->size() || v->token_bytes(p[i]).empty())
            return val("ids[" + std::to_string(i) + "] = " + std::to_string(p[i]) +
                       " is not a token of the '" + v->name() + "' tokenizer");
        total += v->token_bytes(p[i]).size();
    }
    Status st = wasm_heap().reserve(total, "decoding");
    if (!st.ok()) return val(st.message());
    std::vector<uint8_t> out;
    out.reserve(total);
    for (size_t i = 0; i < n; ++i) {
        std::string_view b = v->token_bytes(p[i]);
        out.insert(out.end(), b.begin(), b.end());
    }
    if (v->prefix_space() && !out.empty() && out[0] == ' ') out.erase(out.begin());
    return typed_copy("Uint8Array", out);
}

// An analysis packed into one reusable buffer of 32-bit words, so the JS side reads every column
// with a single copy instead of one crossing per value. The layout is this table, written once:
// the header words, then each column (count = the header entry it names), then the strings (one
// NUL-terminated entry per unit). analysisLayout() exports it; the JS decoder
// (wasm/analysis-codec.js) checks at start-up that it reads the same layout.
using Words = std::vector<uint32_t>;

struct HeaderWord {
    const char* name;
    uint32_t (*value)(const Analysis&);
};

const HeaderWord kAnalysisHeader[] = {
    {"tokens", [](const Analysis& a) { return static_cast<uint32_t>(a.tokens.size()); }},
    {"units", [](const Analysis& a) { return static_cast<uint32_t>(a.units.size()); }},
    {"errors", [](const Analysis& a) { return static_cast<uint32_t>(a.errors.size()); }},
    {"statements", [](const Analysis& a) { return static_cast<uint32_t>(a.statements); }},
};

struct Column {
    const char* name;  // the decoded field: "tokens.ids"
    const char* count; // the header word holding its length
    const char* type;  // the typed array it is read as: "int32" or "uint32"
    void (*write)(const Analysis&, Words&);
};

template <typename T, typename F> void each(const std::vector<T>& items, Words& d, F f) {
    for (const T& x : items) d.push_back(static_cast<uint32_t>(f(x)));
}

const Column kAnalysisColumns[] = {
    {"tokens.ids", "tokens", "int32",
     [](const Analysis& a, Words& d) { each(a.tokens, d, [](const Token& t) { return t.id; }); }},
    {"tokens.start", "tokens", "uint32",
     [](const Analysis& a, Words& d) {
         d.insert(d.end(), a.start_utf16.begin(), a.start_utf16.end());
     }},
    {"tokens.end", "tokens", "uint32",
     [](const Analysis& a, Words& d) {
         d.insert(d.end(), a.end_utf16.begin(), a.end_utf16.end());
     }},
    {"tokens.byteStart", "tokens", "uint32",
     [](const Analysis& a, Words& d) {
         each(a.tokens, d, [](const Token& t) { return t.start; });
     }},
    {"tokens.byteEnd", "tokens", "uint32",
     [](const Analysis& a, Words& d) { each(a.tokens, d, [](const Token& t) { return t.end; }); }},
    {"positions.unit", "tokens", "int32",
     [](const Analysis& a, Words& d) { each(a.unit, d, [](int32_t x) { return x; }); }},
    {"positions.statement", "tokens", "int32",
     [](const Analysis& a, Words& d) { each(a.statement, d, [](int32_t x) { return x; }); }},
    {"units.kind", "units", "uint32",
     [](const Analysis& a, Words& d) {
         each(a.units, d, [](const Unit& u) { return unit_kind_value(u.kind); });
     }},
    {"units.start", "units", "uint32",
     [](const Analysis& a, Words& d) {
         each(a.units, d, [](const Unit& u) { return u.start_utf16; });
     }},
    {"units.end", "units", "uint32",
     [](const Analysis& a, Words& d) {
         each(a.units, d, [](const Unit& u) { return u.end_utf16; });
     }},
    {"units.byteStart", "units", "uint32",
     [](const Analysis& a, Words& d) { each(a.units, d, [](const Unit& u) { return u.start; }); }},
    {"units.byteEnd", "units", "uint32",
     [](const Analysis& a, Words& d) { each(a.units, d, [](const Unit& u) { return u.end; }); }},
    {"errors.start", "errors", "uint32",
     [](const Analysis& a, Words& d) {
         each(a.errors, d, [](const ErrorRegion& r) { return r.start_utf16; });
     }},
    {"errors.end", "errors", "uint32",
     [](const Analysis& a, Words& d) {
         each(a.errors, d, [](const ErrorRegion& r) { return r.end_utf16; });
     }},
    {"errors.byteStart", "errors", "uint32",
     [](const Analysis& a, Words& d) {
         each(a.errors, d, [](const ErrorRegion& r) { return r.start; });
     }},
    {"errors.byteEnd", "errors", "uint32",
     [](const Analysis& a, Words& d) {
         each(a.errors, d, [](const ErrorRegion& r) { return r.end; });
     }},
    {"errors.missing", "errors", "uint32",
     [](const Analysis& a, Words& d) {
         each(a.errors, d, [](const ErrorRegion& r) { return r.missing ? 1 : 0; });
     }},
};

struct StringColumn {
    const char* name; // one entry per unit
    const std::string& (*read)(const Unit&);
};

const StringColumn kAnalysisStrings[] = {
    {"units.name", [](const Unit& u) -> const std::string& { return u.name; }},
    {"units.nodeType", [](const Unit& u) -> const std::string& { return u.node_type; }},
    {"units.languageKind", [](const Unit& u) -> const std::string& { return u.language_kind; }},
};

val analysisLayout() {
    val out = val::object();
    val header = val::array();
    for (const HeaderWord& h : kAnalysisHeader) header.call<void>("push", std::string(h.name));
    out.set("header", header);
    val columns = val::array();
    for (const Column& c : kAnalysisColumns) {
        val o = val::object();
        o.set("name", std::string(c.name));
        o.set("count", std::string(c.count));
        o.set("type", std::string(c.type));
        columns.call<void>("push", o);
    }
    out.set("columns", columns);
    val strings = val::array();
    for (const StringColumn& c : kAnalysisStrings) strings.call<void>("push", std::string(c.name));
    out.set("strings", strings);
    return out;
}

class AnalysisBuffer {
  public:
    std::string run(uintptr_t code, double size, std::string language, uintptr_t vocab, int gap,
                    bool descend, int hierarchy, double segment_size, double timeout_ms) {
        AnalyzeOptions o;
        o.timeout_ms = optional_ms(timeout_ms);
        o.language = language;
        o.vocabulary = ptr<const Vocabulary>(vocab);
        o.gap = static_cast<GapPolicy>(gap);
        o.descend_classes = descend;
        o.hierarchy = static_cast<Hierarchy>(hierarchy);
        o.segment_size = static_cast<int64_t>(segment_size);
        o.heap = wasm_heap();
        Analysis a;
        Status st =
            analyze(std::string_view(ptr<const char>(code), static_cast<size_t>(size)), o, &a);
        if (!st.ok()) return st.message();
        data_.clear();
        for (const HeaderWord& h : kAnalysisHeader) data_.push_back(h.value(a));
        for (const Column& c : kAnalysisColumns) c.write(a, data_);
        strings_.clear();
        for (const StringColumn& c : kAnalysisStrings) {
            std::string joined;
            for (const Unit& u : a.units) {
                joined += c.read(u);
                joined += '\0';
            }
            strings_.push_back(std::move(joined));
        }
        language_ = a.language;
        tokenizer_ = a.tokenizer;
        return "";
    }
    uintptr_t data() const { return reinterpret_cast<uintptr_t>(data_.data()); }
    // The string columns in layout order, each one NUL-terminated entry per unit.
    val strings() const {
        val arr = val::array();
        for (const std::string& s : strings_) arr.call<void>("push", s);
        return arr;
    }
    std::string language() const { return language_; }
    std::string tokenizer() const { return tokenizer_; }

  private:
    Words data_;
    std::vector<std::string> strings_;
    std::string language_, tokenizer_;
};

val analysisLimits() {
    val o = val::object();
    o.set("maxBytes", static_cast<double>(AnalysisLimits::max_bytes));
    return o;
}

val parseCode(uintptr_t code, double size, std::string language, double timeout_ms) {
    bool has_error = false;
    Status st = parse_only(std::string_view(ptr<const char>(code), static_cast<size_t>(size)),
                           language, &has_error, optional_ms(timeout_ms), wasm_heap());
    val out = val::object();
    out.set("error", result(st));
    out.set("hasError", has_error);
    return out;
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
    emscripten::function("splitFraction", &splitFraction);
    emscripten::function("splitBound", &splitBound);
    emscripten::function("relativeDistances", &relativeDistances);
    emscripten::function("rotate", &rotateRows);
    emscripten::function("longTermDecay", &longTermDecay);
    emscripten::function("poolRows", &poolRows);
    emscripten::function("poolFinish", &poolFinish);
    emscripten::function("transformCoefficients", &transformCoefficients);
    emscripten::function("seededVectors", &seededVectors);
    emscripten::function("limits", &limits);
    emscripten::function("heapStats", &heapStats);
    emscripten::function("kernelName", &kernelName);
    emscripten::function("vocabulary", &vocabulary);
#ifdef HIROPE_WITH_ANALYSIS
    emscripten::class_<TokenizerHandle>("TokenizerHandle")
        .constructor<>()
        .function("load", &TokenizerHandle::load)
        .function("loadJson", &TokenizerHandle::loadJson)
        .function("address", &TokenizerHandle::address)
        .function("size", &TokenizerHandle::size);
    emscripten::function("encode", &encodeText);
    emscripten::function("decode", &decodeIds);
    emscripten::class_<AnalysisBuffer>("AnalysisBuffer")
        .constructor<>()
        .function("run", &AnalysisBuffer::run)
        .function("data", &AnalysisBuffer::data)
        .function("strings", &AnalysisBuffer::strings)
        .function("language", &AnalysisBuffer::language)
        .function("tokenizer", &AnalysisBuffer::tokenizer);
    emscripten::function("parse", &parseCode);
    emscripten::function("analysisLayout", &analysisLayout);
    emscripten::function("analysisLimits", &analysisLimits);
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
    emscripten::function("tokenPositions", &tokenPositions);
#endif
}
