// The scheme catalogue: every scheme and scaling type, their parameters (C++ field, JS option
// name, kind, default, range, description) and the value lists of the enums, in one table.
//
// Everything that knows a scheme by name reads this table: is_rotary(), is_windowed(), validate()
// (each parameter's range, for the types that take it), the WASM bindings (which convert a JS
// scheme object field by field through the accessors here, and export the table), and the JS
// layer (known keys per type, defaults, type checks, enum names, message names). Adding a scheme
// type means one enumerator in hirope.h and its row below, plus its parameters' `takes` bits.
//
// Defaults are the initialisers of Scheme and Scaling in hirope.h, read from a default-constructed
// Scheme through the accessors, so they are written once. Defaults that depend on the type or on
// another parameter are the DefaultRules at the end of the table; checks that involve several
// fields (rotary dims left, the scaling's list lengths, ratio + statement_ratio, llama3's factor
// order) are the explicit rules in validate() (schemes.cpp).
#include "hirope/hirope.h"
#include "util/json_writer.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <type_traits>

namespace hirope {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// The scheme rows, in SchemeType order (scheme_info() indexes them by enumerator).
const SchemeInfo kSchemes[] = {
    {SchemeType::nope, "nope", "NoPE", false, false, false,
     "No position information: attention sees content only"},
    {SchemeType::sinusoidal, "sinusoidal", "Sinusoidal", false, false, false,
     "Absolute sinusoids added to q and k (Vaswani et al.)"},
    {SchemeType::rope, "rope", "RoPE", true, false, false,
     "Rotary position embedding, with an optional frequency scaling"},
    {SchemeType::xpos, "xpos", "xPos", true, false, false,
     "Rotary with an exponential decay of the logits with distance"},
    {SchemeType::alibi, "alibi", "ALiBi", false, false, false,
     "A linear bias on the logits, one slope per head"},
    {SchemeType::rerope, "rerope", "ReRoPE", true, true, false,
     "RoPE within the window; beyond it every distance is the window"},
    {SchemeType::leaky_rerope, "leaky-rerope", "Leaky ReRoPE", true, true, false,
     "RoPE within the window; beyond it distance grows with slope 1 / leakyFactor"},
    {SchemeType::self_extend, "self-extend", "Self-Extend", true, true, false,
     "RoPE within the window; beyond it distances are divided by the group size"},
    {SchemeType::hirope, "hirope", "HiRoPE", true, true, true,
     "Hierarchical positions: fast pairs carry the token index, slow pairs the unit index"},
};

template <typename T> double to_double(T v) {
    if constexpr (std::is_enum_v<T>)
        return static_cast<double>(static_cast<int>(v));
    else
        return static_cast<double>(v);
}

int clamp_int(double v) {
    if (std::isnan(v)) return -1;
    return v < -2147483648.0  ? std::numeric_limits<int>::min()
           : v > 2147483647.0 ? std::numeric_limits<int>::max()
                              : static_cast<int>(v);
}

// Integers arrive from JS as doubles so that out-of-range values reach validate() intact.
template <typename T> void assign(T& field, double v) {
    if constexpr (std::is_enum_v<T>)
        field = static_cast<T>(clamp_int(v));
    else if constexpr (std::is_same_v<T, bool>)
        field = v != 0;
    else if constexpr (std::is_same_v<T, int64_t>)
        field = std::isnan(v) ? -1
                : v < -1e15   ? -1
                : v > 1e15    ? (1LL << 40)
                              : static_cast<int64_t>(v);
    else if constexpr (std::is_integral_v<T>)
        field = clamp_int(v);
    else
        field = v;
}

#define ACCESS(member)                                                                             \
    [](const Scheme& s) { return to_double(s.member); },                                           \
        [](Scheme& s, double x) { assign(s.member, x); }

// A table row, built by name rather than by position.
struct P {
    ParamInfo p;
    P(const char* field, const char* name, ParamKind kind, const char* description) {
        p.field = field;
        p.name = name;
        p.kind = kind;
        p.description = description;
    }
    P& range(double lo, double hi, bool lo_open = false, bool hi_open = false) {
        p.min = lo;
        p.max = hi;
        p.min_open = lo_open;
        p.max_open = hi_open;
        return *this;
    }
    P& above(double lo) { return range(lo, kInf, true); }
    P& at_least(double lo) { return range(lo, kInf); }
    P& allowed(std::vector<double> values) {
        p.allowed = std::move(values);
        return *this;
    }
    P& limit(double x) {
        p.limit = x;
        return *this;
    }
    P& values(const char* list) {
        p.values = list;
        return *this;
    }
    P& step(double x) {
        p.step = x;
        return *this;
    }
    P& takes(uint32_t types) {
        p.takes = types;
        return *this;
    }
    P& required() {
        p.required = true;
        return *this;
    }
    P& optional(uint32_t types) {
        p.optional = types;
        return *this;
    }
    P& only_if(const char* field, double value) {
        p.only_if = field;
        p.only_if_value = value;
        return *this;
    }
    P& access(double (*get)(const Scheme&), void (*set)(Scheme&, double)) {
        p.get = get;
        p.set = set;
        return *this;
    }
    P& list(std::vector<double>* (*accessor)(Scheme&)) {
        p.list = accessor;
        return *this;
    }
    operator ParamInfo() const { return p; }
};

constexpr uint32_t bit(SchemeType t) {
    return 1u << static_cast<int>(t);
}
constexpr uint32_t bit(ScalingType t) {
    return 1u << static_cast<int>(t);
}

uint32_t schemes_where(bool SchemeInfo::*flag) {
    uint32_t mask = 0;
    for (const SchemeInfo& s : kSchemes)
        if (s.*flag) mask |= bit(s.type);
    return mask;
}

SchemeCatalogue make_catalogue() {
    SchemeCatalogue v;
    v.schemes.assign(std::begin(kSchemes), std::end(kSchemes));
    const uint32_t rotary = schemes_where(&SchemeInfo::rotary);
    const uint32_t windowed = schemes_where(&SchemeInfo::windowed);
    const uint32_t hirope = bit(SchemeType::hirope);
    using K = ParamKind;

    v.scalings = {
        {ScalingType::none, "none", "none", {}, "No scaling"},
        {ScalingType::linear,
         "linear",
         "linear (PI)",
         {},
         "Position interpolation: every frequency divided by the factor"},
        {ScalingType::ntk,
         "ntk",
         "NTK-aware",
         {},
         "NTK-aware: the base raised so that the slowest pair stretches by the factor"},
        {ScalingType::dynamic_ntk,
         "dynamic-ntk",
         "dynamic NTK",
         {"dynamic"},
         "NTK-aware with a factor that grows with the sequence beyond originalLength"},
        {ScalingType::yarn,
         "yarn",
         "YaRN",
         {},
         "NTK-by-parts: interpolate the slow pairs, keep the fast ones, scale the logits"},
        {ScalingType::longrope,
         "longrope",
         "LongRoPE",
         {},
         "Per-pair factors, one list for short and one for long sequences"},
        {ScalingType::llama3,
         "llama3",
         "Llama 3",
         {},
         "Llama 3.1: interpolate the low frequencies, keep the high, blend between"},
        {ScalingType::proportional,
         "proportional",
         "proportional (p-RoPE)",
         {},
         "p-RoPE (Gemma 4): the fast pairs keep their frequencies, the slowest ones stop rotating"},
    };

    v.scheme_params = {
        P("base", "base", K::number,
          "RoPE base b: pair j turns by b^(-2j/d) radians per position (sinusoidal: the "
          "wavelength base)")
            .above(1)
            .takes(rotary | bit(SchemeType::sinusoidal))
            .access(ACCESS(base)),
        P("layout", "layout", K::enumeration,
          "Which memory dims form a rotated pair: half-split (rotate_half) or interleaved")
            .values("layouts")
            .takes(rotary)
            .access(ACCESS(layout)),
        P("rotary_fraction", "rotaryFraction", K::number, "Fraction of headDim that is rotated")
            .range(0, 1, true)
            .takes(rotary)
            .access(ACCESS(rotary_fraction)),
        P("rotary_last", "rotaryLast", K::boolean,
          "Rotate the last rotaryFraction of headDim instead of the first (MLA: DeepSeek's "
          "q = cat(q_nope, q_pe))")
            .takes(rotary)
            .access(ACCESS(rotary_last)),
        P("scaling", "scaling", K::scaling,
          "RoPE frequency scaling for longer contexts: its type and parameters")
            .takes(rotary),
        P("window", "window", K::integer,
          "Token distances below the window use plain RoPE; from it on, the scheme's far rule")
            .at_least(1)
            .limit(1LL << 30)
            .takes(windowed)
            .access(ACCESS(window)),
        P("leaky_factor", "leakyFactor", K::number,
          "Leaky ReRoPE: beyond the window, distance grows with slope 1 / leakyFactor")
            .at_least(1)
            .takes(bit(SchemeType::leaky_rerope))
            .access(ACCESS(leaky_factor)),
        P("group", "group", K::integer,
          "Self-Extend: beyond the window, distances are divided by the group size")
            .at_least(1)
            .limit(1LL << 30)
            .takes(bit(SchemeType::self_extend))
            .access(ACCESS(group)),
        P("log_n", "logN", K::boolean,
          "ReRoPE's query scale max(1, ln(t + 1) / ln(trainingLength))")
            .takes(windowed)
            .access(ACCESS(log_n)),
        P("training_length", "trainingLength", K::number,
          "The training context length of the log-n query scale")
            .at_least(2)
            .takes(windowed)
            .only_if("log_n", 1)
            .access(ACCESS(training_length)),
        P("ratio", "ratio", K::number,
          "Fraction of frequency pairs (the fast ones) that carry the token index; the rest carry "
          "the unit index beyond the window. 1 is plain RoPE")
            .range(0, 1)
            .step(0.05)
            .takes(hirope)
            .access(ACCESS(ratio)),
        P("levels", "levels", K::integer,
          "Hierarchy depth: 2 (unit, token) as in the paper, or 3 (unit, statement, token)")
            .allowed({2, 3})
            .takes(hirope)
            .access(ACCESS(levels)),
        P("statement_ratio", "statementRatio", K::number,
          "With 3 levels: fraction of frequency pairs that carry the statement index")
            .range(0, 1)
            .step(0.05)
            .takes(hirope)
            .only_if("levels", 3)
            .access(ACCESS(statement_ratio)),
        P("token_on_high", "tokenOnHigh", K::boolean,
          "Eq. (3) as printed: the token index on the high frequency indices")
            .takes(hirope)
            .access(ACCESS(token_on_high)),
        P("xpos_gamma", "gamma", K::number, "xPos decay: zeta_j = (2j / d + gamma) / (1 + gamma)")
            .above(0)
            .takes(bit(SchemeType::xpos))
            .access(ACCESS(xpos_gamma)),
        P("xpos_scale_base", "scaleBase", K::number,
          "xPos: the decay's exponent is the position over scaleBase")
            .above(0)
            .takes(bit(SchemeType::xpos))
            .access(ACCESS(xpos_scale_base)),
        P("sinusoidal", "variant", K::enumeration,
          "Sinusoid layout: sin/cos interleaved (Vaswani et al.) or sin half, cos half (fairseq)")
            .values("sinusoidal_variants")
            .takes(bit(SchemeType::sinusoidal))
            .access(ACCESS(sinusoidal)),
        // No Scheme field: the JS layer derives positions.unit = floor(token / segmentSize) from
        // it when the positions carry no unit (fixed-size segments for unstructured text).
        P(nullptr, "segmentSize", K::integer,
          "Tokens per fixed segment: positions.unit = floor(token / segmentSize), derived when the "
          "positions carry no unit")
            .at_least(1)
            .takes(hirope),
    };

    const uint32_t scaled = ~bit(ScalingType::none) & ((1u << v.scalings.size()) - 1);
    const uint32_t original = bit(ScalingType::dynamic_ntk) | bit(ScalingType::yarn) |
                              bit(ScalingType::longrope) | bit(ScalingType::llama3);
    const uint32_t yarn = bit(ScalingType::yarn), longrope = bit(ScalingType::longrope),
                   llama3 = bit(ScalingType::llama3), proportional = bit(ScalingType::proportional);
    v.scaling_params = {
        P("factor", "factor", K::number,
          "The scale factor s: the context stretches s times (proportional: its frequencies are "
          "divided by s, 1 when left out)")
            .above(0)
            .takes(scaled)
            .required()
            .optional(proportional)
            .access(ACCESS(scaling.factor)),
        P("original_length", "originalLength", K::number,
          "The original context length L_orig the model was trained at")
            .at_least(1)
            .takes(original)
            .access(ACCESS(scaling.original_length)),
        P("beta_fast", "betaFast", K::number,
          "YaRN: rotations that mark the fast end of the correction range")
            .above(0)
            .takes(yarn)
            .access(ACCESS(scaling.beta_fast)),
        P("beta_slow", "betaSlow", K::number,
          "YaRN: rotations that mark the slow end of the correction range")
            .above(0)
            .takes(yarn)
            .access(ACCESS(scaling.beta_slow)),
        P("truncate", "truncate", K::boolean, "YaRN: floor/ceil the correction range")
            .takes(yarn)
            .access(ACCESS(scaling.truncate)),
        P("mscale", "mscale", K::number,
          "YaRN, DeepSeek variant: mscale (used when it and mscaleAllDim are > 0)")
            .at_least(0)
            .takes(yarn)
            .access(ACCESS(scaling.mscale)),
        P("mscale_all_dim", "mscaleAllDim", K::number, "YaRN, DeepSeek variant: mscale_all_dim")
            .at_least(0)
            .takes(yarn)
            .access(ACCESS(scaling.mscale_all_dim)),
        P("attention_factor", "attentionFactor", K::number,
          "Override of the scaling's own attention factor when >= 0")
            .takes(yarn | longrope)
            .access(ACCESS(scaling.attention_factor)),
        P("low_freq_factor", "lowFreqFactor", K::number,
          "Llama 3: wavelengths above originalLength / lowFreqFactor are interpolated")
            .above(0)
            .takes(llama3)
            .access(ACCESS(scaling.low_freq_factor)),
        P("high_freq_factor", "highFreqFactor", K::number,
          "Llama 3: wavelengths below originalLength / highFreqFactor are kept")
            .above(0)
            .takes(llama3)
            .access(ACCESS(scaling.high_freq_factor)),
        P("short_factor", "shortFactor", K::list,
          "LongRoPE: rotaryDim / 2 positive factors for sequences up to originalLength")
            .takes(longrope)
            .list([](Scheme& s) { return &s.scaling.short_factor; }),
        P("long_factor", "longFactor", K::list,
          "LongRoPE: rotaryDim / 2 positive factors for longer sequences")
            .takes(longrope)
            .list([](Scheme& s) { return &s.scaling.long_factor; }),
        P("partial_rotary_factor", "partialRotaryFactor", K::number,
          "p-RoPE: the share p of frequency pairs that rotate (the fast ones); the others stop")
            .range(0, 1)
            .step(0.05)
            .takes(proportional)
            .access(ACCESS(scaling.partial_rotary_factor)),
    };

    v.layouts = {
        {"interleaved", static_cast<int>(Layout::interleaved), "interleaved (Meta)",
         "Pairs are adjacent dims (2j, 2j + 1): Meta LLaMA, GPT-J"},
        {"half", static_cast<int>(Layout::half), "half-split (HF)",
         "Pairs are dims (j, j + d / 2): rotate_half of Hugging Face, GPT-NeoX"},
    };
    v.sinusoidal_variants = {
        {"vaswani", static_cast<int>(SinusoidalVariant::vaswani), "Vaswani et al.",
         "sin and cos interleaved per frequency"},
        {"fairseq", static_cast<int>(SinusoidalVariant::fairseq), "fairseq",
         "all sines, then all cosines"},
    };
    v.outputs = {
        {"logits", static_cast<int>(Output::logits), "logits", "Scaled q.k logits (masked: -inf)"},
        {"probs", static_cast<int>(Output::probs), "probabilities",
         "Row softmax of the logits (masked: 0)"},
    };
    v.roles = {
        {"query", static_cast<int>(Role::query), "query", "Applied to q"},
        {"key", static_cast<int>(Role::key), "key", "Applied to k"},
    };
    v.branches = {
        {"near", static_cast<int>(Branch::near), "near", "Within the window (plain RoPE)"},
        {"far", static_cast<int>(Branch::far), "far", "Beyond the window (the scheme's far rule)"},
    };

    v.kernels = {
        {"reference", static_cast<int>(Kernel::reference), "reference",
         "Double precision, per element from the relative-distance formula (slow, for tests)"},
        {"fast", static_cast<int>(Kernel::fast), "fast",
         "Packed, tiled, SIMD where the build has it"},
    };

    DefaultRule log_n{"log_n", bit(SchemeType::rerope) | bit(SchemeType::leaky_rerope)};
    log_n.offset = 1;
    log_n.description = "ReRoPE's reference patch scales queries by log n (the HiRoPE paper "
                        "never says: off there)";
    DefaultRule statement{"statement_ratio",
                          hirope,
                          "levels",
                          3,
                          "ratio",
                          1,
                          -1,
                          2,
                          "With 3 levels, the pairs the token index leaves are split evenly: "
                          "(1 - ratio) / 2"};
    v.default_rules = {log_n, statement};

    // Option names of the analysis and the model that their messages use.
    v.arguments = {{"head_dim", "headDim"},
                   {"rotary_dim", "rotaryDim"},
                   {"max_bytes", "maxBytes"},
                   {"segment_size", "segmentSize"},
                   {"timeout_ms", "timeoutMs"}};
    return v;
}

#undef ACCESS

std::string number_text(double x) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%g", x);
    return buf;
}

// ---- The catalogue as JSON text (catalogue_json): the one export both bindings parse.

using util::json_array;
using util::json_bool;
using util::json_number;
using util::json_text;
using util::JsonObject;

// A value of a parameter as users write it: booleans, enum names, numbers.
std::string user_value(const ParamInfo& p, double x) {
    if (p.kind == ParamKind::boolean) return json_bool(x != 0);
    if (p.kind == ParamKind::enumeration)
        for (const EnumValue& e : *value_list(p.values))
            if (e.value == static_cast<int>(x)) return json_text(e.name);
    return json_number(x);
}

const ParamInfo* find_param(const std::vector<ParamInfo>& params, const char* field) {
    for (const ParamInfo& p : params)
        if (p.field && std::string(p.field) == field) return &p;
    return nullptr;
}

// A reference inside the table to another parameter, by its user name, with a value it compares
// to.
std::string condition(const std::vector<ParamInfo>& params, const char* field, double value) {
    const ParamInfo* p = find_param(params, field);
    return JsonObject()
        .add("parameter", json_text(p ? p->name : field))
        .add("equals", p ? user_value(*p, value) : json_number(value))
        .str();
}

template <typename Info> std::string names_taking(const std::vector<Info>& types, uint32_t mask) {
    std::vector<std::string> names;
    for (const Info& t : types)
        if (mask >> static_cast<int>(t.type) & 1u) names.push_back(json_text(t.name));
    return json_array(names);
}

template <typename Info>
std::string parameters_taken(const Info& t, const std::vector<ParamInfo>& params) {
    std::vector<std::string> names;
    for (const ParamInfo& p : params)
        if (takes(p, static_cast<int>(t.type))) names.push_back(json_text(p.name));
    return json_array(names);
}

std::string param_list(const SchemeCatalogue& v, const std::vector<ParamInfo>& params,
                       bool scaling) {
    const Scheme defaults;
    std::vector<std::string> items;
    for (const ParamInfo& p : params) {
        JsonObject o;
        o.add("name", json_text(p.name))
            .add("field",
                 p.field ? json_text(std::string(scaling ? "scaling." : "") + p.field) : "null")
            .add("kind", json_text(param_kind_name(p.kind)))
            .add("description", json_text(p.description));
        if (p.kind == ParamKind::list)
            o.add("default", "[]");
        else if (p.kind == ParamKind::scaling)
            o.add("default", json_text("none"));
        else if (p.get)
            o.add("default", user_value(p, p.get(defaults)));
        else
            o.add("default", json_number(p.option_default));
        const bool numeric = p.kind == ParamKind::number || p.kind == ParamKind::integer;
        std::vector<std::string> allowed;
        for (double x : p.allowed) allowed.push_back(json_number(x));
        // The step of a form control: the table's, 1 for integers, null for any value.
        const std::string step = p.step > 0                     ? json_number(p.step)
                                 : p.kind == ParamKind::integer ? "1"
                                                                : "null";
        o.add("required", json_bool(p.required))
            .add("optionalFor", scaling ? names_taking(v.scalings, p.optional)
                                        : names_taking(v.schemes, p.optional))
            .add("min", json_number(p.min))
            .add("max", json_number(p.max))
            .add("minOpen", json_bool(p.min_open))
            .add("maxOpen", json_bool(p.max_open))
            .add("allowed", json_array(allowed))
            .add("limit", json_number(p.limit))
            .add("step", step)
            .add("range", numeric ? json_text(param_range(p)) : "null")
            .add("values", p.values ? json_text(published_list_name(p.values)) : "null")
            .add(scaling ? "scalings" : "schemes",
                 scaling ? names_taking(v.scalings, p.takes) : names_taking(v.schemes, p.takes))
            .add("onlyIf", p.only_if ? condition(params, p.only_if, p.only_if_value) : "null");
        items.push_back(o.str());
    }
    return json_array(items);
}

} // namespace

std::string enum_list_json(const std::vector<EnumValue>& list) {
    std::vector<std::string> items;
    for (const EnumValue& e : list)
        items.push_back(JsonObject()
                            .add("name", json_text(e.name))
                            .add("value", json_number(e.value))
                            .add("label", json_text(e.label))
                            .add("description", json_text(e.description))
                            .str());
    return json_array(items);
}

std::string catalogue_json() {
    const SchemeCatalogue& v = scheme_catalogue();
    std::vector<std::string> schemes, scalings, rules, names;
    for (const SchemeInfo& s : v.schemes)
        schemes.push_back(JsonObject()
                              .add("name", json_text(s.name))
                              .add("value", json_number(static_cast<int>(s.type)))
                              .add("label", json_text(s.label))
                              .add("rotary", json_bool(s.rotary))
                              .add("windowed", json_bool(s.windowed))
                              .add("needsUnits", json_bool(s.needs_units))
                              .add("description", json_text(s.description))
                              .add("parameters", parameters_taken(s, v.scheme_params))
                              .str());
    for (const ScalingInfo& s : v.scalings) {
        std::vector<std::string> aliases;
        for (const char* a : s.aliases) aliases.push_back(json_text(a));
        scalings.push_back(JsonObject()
                               .add("name", json_text(s.name))
                               .add("value", json_number(static_cast<int>(s.type)))
                               .add("label", json_text(s.label))
                               .add("aliases", json_array(aliases))
                               .add("description", json_text(s.description))
                               .add("parameters", parameters_taken(s, v.scaling_params))
                               .str());
    }
    for (const DefaultRule& r : v.default_rules) {
        const ParamInfo* target = find_param(v.scheme_params, r.field);
        JsonObject o;
        o.add("parameter", json_text(target ? target->name : r.field))
            .add("schemes", names_taking(v.schemes, r.schemes))
            .add("when", r.when ? condition(v.scheme_params, r.when, r.when_value) : "null");
        if (r.from) {
            // value = (offset + scale * from) / divisor
            o.add("from", json_text(find_param(v.scheme_params, r.from)->name))
                .add("offset", json_number(r.offset))
                .add("scale", json_number(r.scale))
                .add("divisor", json_number(r.divisor));
        } else {
            o.add("value", target ? user_value(*target, r.offset / r.divisor)
                                  : json_number(r.offset / r.divisor));
        }
        rules.push_back(o.add("description", json_text(r.description)).str());
    }
    for (const NameInfo& n : v.arguments)
        names.push_back(
            JsonObject().add("field", json_text(n.field)).add("name", json_text(n.name)).str());
    return JsonObject()
        .add("schemes", json_array(schemes))
        .add("scalings", json_array(scalings))
        .add("parameters", param_list(v, v.scheme_params, false))
        .add("scalingParameters", param_list(v, v.scaling_params, true))
        .add("layouts", enum_list_json(v.layouts))
        .add("sinusoidalVariants", enum_list_json(v.sinusoidal_variants))
        .add("outputs", enum_list_json(v.outputs))
        .add("roles", enum_list_json(v.roles))
        .add("branches", enum_list_json(v.branches))
        .add("kernels", enum_list_json(v.kernels))
        .add("defaultRules", json_array(rules))
        .add("arguments", json_array(names))
        .str();
}

std::string scheme_json(const Scheme& s, SchemeKeys keys) {
    const SchemeCatalogue& v = scheme_catalogue();
    const SchemeInfo* info = scheme_info(s.type);
    const int scheme_type = static_cast<int>(s.type);
    const bool all = keys == SchemeKeys::all;
    JsonObject out;
    out.add("type", info ? json_text(info->name) : json_number(scheme_type));
    for (const ParamInfo& p : v.scheme_params)
        if (p.kind != ParamKind::scaling && p.get && (all || takes(p, scheme_type)))
            out.add(p.name, user_value(p, p.get(s)));
    const int type = static_cast<int>(s.scaling.type);
    JsonObject scaling;
    scaling.add("type", type >= 0 && type < static_cast<int>(v.scalings.size())
                            ? json_text(v.scalings[static_cast<size_t>(type)].name)
                            : json_number(type));
    Scheme copy = s; // list accessors take a mutable scheme
    for (const ParamInfo& p : v.scaling_params) {
        if (!takes(p, type)) continue;
        if (p.kind == ParamKind::list) {
            std::vector<std::string> items;
            for (double x : *p.list(copy)) items.push_back(json_number(x));
            scaling.add(p.name, json_array(items));
        } else if (p.get) {
            scaling.add(p.name, user_value(p, p.get(s)));
        }
    }
    for (const ParamInfo& p : v.scheme_params) // the scaling, where asked or the type takes one
        if (p.kind == ParamKind::scaling && (all || takes(p, scheme_type)))
            out.add(p.name, scaling.str());
    return out.str();
}

const SchemeCatalogue& scheme_catalogue() {
    static const SchemeCatalogue v = make_catalogue(); // immutable after first use
    return v;
}

std::string published_list_name(const char* values) {
    std::string out;
    for (const char* c = values; *c; ++c) {
        if (*c == '_' && c[1])
            out += static_cast<char>(std::toupper(static_cast<unsigned char>(*++c)));
        else
            out += *c;
    }
    return out;
}

const char* param_kind_name(ParamKind kind) {
    switch (kind) {
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

const SchemeInfo* scheme_info(SchemeType type) {
    const int i = static_cast<int>(type);
    constexpr int count = static_cast<int>(sizeof kSchemes / sizeof kSchemes[0]);
    return i >= 0 && i < count ? &kSchemes[i] : nullptr;
}

const std::vector<EnumValue>* value_list(const char* name) {
    const SchemeCatalogue& v = scheme_catalogue();
    const std::string n = name ? name : "";
    if (n == "layouts") return &v.layouts;
    if (n == "sinusoidal_variants") return &v.sinusoidal_variants;
    if (n == "outputs") return &v.outputs;
    if (n == "roles") return &v.roles;
    if (n == "branches") return &v.branches;
    if (n == "kernels") return &v.kernels;
    return nullptr;
}

std::string param_range(const ParamInfo& p) {
    if (!p.allowed.empty()) {
        std::string out;
        for (size_t i = 0; i < p.allowed.size(); ++i) {
            if (i) out += i + 1 == p.allowed.size() ? " or " : ", ";
            out += number_text(p.allowed[i]);
        }
        return out;
    }
    const bool lo = std::isfinite(p.min), hi = std::isfinite(p.max);
    const std::string noun = p.kind == ParamKind::integer ? "an integer" : "a number";
    if (lo && hi)
        return std::string("in ") + (p.min_open ? "(" : "[") + number_text(p.min) + ", " +
               number_text(p.max) + (p.max_open ? ")" : "]");
    if (lo && p.min == 0 && p.kind == ParamKind::number)
        return p.min_open ? "a positive number" : "a non-negative number";
    if (lo) return noun + (p.min_open ? " > " : " >= ") + number_text(p.min);
    if (hi) return noun + (p.max_open ? " < " : " <= ") + number_text(p.max);
    return p.kind == ParamKind::integer ? noun : "a finite number";
}

} // namespace hirope
