// The scheme catalogue (src/core/catalogue.cpp): one row per enumerator in enum order, accessors
// that reach the fields they name, defaults inside their ranges, and validate() rejecting each
// out-of-range parameter with a message that names it as users write it (ParamInfo::name) and
// states the table's range.
#include "hirope/analysis.h"
#include "hirope/hirope.h"
#include "hirope/model.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <set>
#include <string>
#include <vector>

using namespace hirope;

namespace {

const ParamInfo* find_param(const std::vector<ParamInfo>& params, const std::string& field) {
    for (const ParamInfo& p : params)
        if (p.field && field == p.field) return &p;
    return nullptr;
}

// A scheme of `type` that validates, with a scaling of `scaling` whose required values are set.
Scheme valid_scheme(int type, int scaling) {
    Scheme s;
    s.type = static_cast<SchemeType>(type);
    if (is_rotary(s.type)) {
        s.scaling.type = static_cast<ScalingType>(scaling);
        s.scaling.factor = 2;
        s.scaling.original_length = 64;
        s.scaling.short_factor.assign(4, 1.0);
        s.scaling.long_factor.assign(4, 2.0);
    }
    return s;
}

void check_enum(const std::vector<EnumValue>& list, size_t count) {
    REQUIRE(list.size() == count);
    std::set<std::string> names;
    for (size_t i = 0; i < list.size(); ++i) {
        CHECK(list[i].value == static_cast<int>(i));
        CHECK(names.insert(list[i].name).second);
        CHECK(std::string(list[i].label) != "");
        CHECK(std::string(list[i].description) != "");
    }
}

} // namespace

TEST_CASE("Every scheme and scaling type has one row, in enum order", "[catalogue]") {
    const SchemeCatalogue& v = scheme_catalogue();
    REQUIRE(v.schemes.size() == static_cast<size_t>(SchemeType::hirope) + 1);
    std::set<std::string> names;
    for (size_t i = 0; i < v.schemes.size(); ++i) {
        const SchemeInfo& s = v.schemes[i];
        CHECK(static_cast<size_t>(s.type) == i);
        CHECK(scheme_info(s.type) == &*scheme_info(s.type));
        CHECK(scheme_info(s.type)->type == s.type);
        CHECK(names.insert(s.name).second);
        CHECK(is_rotary(s.type) == s.rotary);
        CHECK(is_windowed(s.type) == s.windowed);
        if (s.windowed) CHECK(s.rotary);
    }
    CHECK(scheme_info(static_cast<SchemeType>(-1)) == nullptr);
    CHECK(scheme_info(static_cast<SchemeType>(v.schemes.size())) == nullptr);
    CHECK_FALSE(is_rotary(static_cast<SchemeType>(99)));
    CHECK(std::string(scheme_info(SchemeType::leaky_rerope)->name) == "leaky-rerope");
    CHECK(scheme_info(SchemeType::hirope)->needs_units);

    REQUIRE(v.scalings.size() == static_cast<size_t>(ScalingType::proportional) + 1);
    for (size_t i = 0; i < v.scalings.size(); ++i) {
        CHECK(static_cast<size_t>(v.scalings[i].type) == i);
        CHECK(names.insert(v.scalings[i].name).second);
        for (const char* alias : v.scalings[i].aliases) CHECK(names.insert(alias).second);
    }
    check_enum(v.layouts, 2);
    CHECK(v.layouts[static_cast<int>(Layout::half)].name == std::string("half"));
    check_enum(v.sinusoidal_variants, 2);
    check_enum(v.outputs, 2);
    check_enum(v.roles, 2);
    check_enum(v.branches, 2);
    check_enum(v.kernels, 2);
    check_enum(analysis_catalogue().gaps, 3);
    check_enum(analysis_catalogue().hierarchies, 2);
    check_enum(analysis_catalogue().unit_kinds, 4);
    check_enum(model::byte_hierarchies(), 3);
    CHECK(unit_kind_value("segment") == 3);
    CHECK(unit_kind_value("nonsense") == -1);
}

TEST_CASE("Parameter kinds have the names the bindings publish", "[catalogue]") {
    // wasm/index.d.ts CatalogueParameter.kind and the Python catalogue use these words.
    CHECK(std::string(param_kind_name(ParamKind::number)) == "number");
    CHECK(std::string(param_kind_name(ParamKind::integer)) == "integer");
    CHECK(std::string(param_kind_name(ParamKind::boolean)) == "boolean");
    CHECK(std::string(param_kind_name(ParamKind::enumeration)) == "enum");
    CHECK(std::string(param_kind_name(ParamKind::list)) == "list");
    CHECK(std::string(param_kind_name(ParamKind::scaling)) == "scaling");
    CHECK(published_list_name("sinusoidal_variants") == "sinusoidalVariants");
    CHECK(published_list_name("layouts") == "layouts");
}

TEST_CASE("Parameters: unique names, working accessors, defaults in range", "[catalogue]") {
    const SchemeCatalogue& v = scheme_catalogue();
    for (const std::vector<ParamInfo>* params : {&v.scheme_params, &v.scaling_params}) {
        std::set<std::string> fields, names;
        for (const ParamInfo& p : *params) {
            INFO(p.name);
            CHECK(names.insert(p.name).second);
            if (p.field) CHECK(fields.insert(p.field).second);
            CHECK(p.takes != 0);
            CHECK(std::string(p.description) != "");
            if (!p.field || p.kind == ParamKind::scaling) continue;
            if (p.kind == ParamKind::list) {
                Scheme s;
                REQUIRE(p.list);
                p.list(s)->assign(3, 1.5);
                CHECK(p.list(s)->size() == 3);
                continue;
            }
            REQUIRE(p.get);
            REQUIRE(p.set);
            if (p.kind == ParamKind::enumeration) REQUIRE(value_list(p.values));
            // Round trip through the field.
            Scheme s;
            const double x = p.kind == ParamKind::boolean       ? 1
                             : p.kind == ParamKind::enumeration ? 1
                                                                : 3;
            p.set(s, x);
            CHECK(p.get(s) == x);
        }
    }
    // Each type's defaults validate (with its scaling's required values given).
    for (const SchemeInfo& info : v.schemes)
        for (const ScalingInfo& sc : v.scalings) {
            if (!info.rotary && sc.type != ScalingType::none) continue;
            INFO(info.name << " " << sc.name);
            CHECK(validate(valid_scheme(static_cast<int>(info.type), static_cast<int>(sc.type)), 8)
                      .ok());
        }
    for (const DefaultRule& r : v.default_rules) {
        CHECK(find_param(v.scheme_params, r.field));
        if (r.when) CHECK(find_param(v.scheme_params, r.when));
        if (r.from) CHECK(find_param(v.scheme_params, r.from));
    }
    CHECK(param_range(*find_param(v.scheme_params, "window")) == "an integer >= 1");
    CHECK(param_range(*find_param(v.scheme_params, "rotary_fraction")) == "in (0, 1]");
    CHECK(param_range(*find_param(v.scheme_params, "base")) == "a number > 1");
    CHECK(param_range(*find_param(v.scheme_params, "levels")) == "2 or 3");
    CHECK(param_range(*find_param(v.scaling_params, "factor")) == "a positive number");
    CHECK(param_range(*find_param(v.scaling_params, "mscale")) == "a non-negative number");
    CHECK(param_range(*find_param(v.scaling_params, "attention_factor")) == "a finite number");
}

TEST_CASE("validate() checks each parameter's range and names it as users write it",
          "[catalogue]") {
    const SchemeCatalogue& v = scheme_catalogue();
    int checked = 0;
    for (const SchemeInfo& info : v.schemes)
        for (const ScalingInfo& sc : v.scalings) {
            if (!info.rotary && sc.type != ScalingType::none) continue;
            const int type = static_cast<int>(info.type), scaling = static_cast<int>(sc.type);
            auto try_bad = [&](const ParamInfo& p, const std::vector<ParamInfo>& params,
                               const std::string& prefix, int owner) {
                if (!p.field || !takes(p, owner)) return;
                if (p.kind != ParamKind::number && p.kind != ParamKind::integer) return;
                std::vector<double> bads;
                if (p.kind == ParamKind::number) bads.push_back(std::nan(""));
                if (std::isfinite(p.min)) bads.push_back(p.min - 1);
                if (std::isfinite(p.max)) bads.push_back(p.max + 1);
                if (!p.allowed.empty()) bads.push_back(99);
                for (double bad : bads) {
                    Scheme s = valid_scheme(type, scaling);
                    if (p.only_if) find_param(params, p.only_if)->set(s, p.only_if_value);
                    p.set(s, bad);
                    const Status st = validate(s, 8);
                    INFO(info.name << " " << sc.name << " " << p.field << " = " << bad << ": "
                                   << st.message());
                    REQUIRE_FALSE(st.ok());
                    // NaN is how the bindings pass a required parameter left out.
                    const std::string want =
                        p.required && std::isnan(bad)
                            ? prefix + p.name + " is required (" + param_range(p) + ")"
                            : prefix + p.name + " must be " + param_range(p);
                    CHECK(st.message().rfind(want, 0) == 0);
                    ++checked;
                }
            };
            for (const ParamInfo& p : v.scheme_params) try_bad(p, v.scheme_params, "scheme.", type);
            if (info.rotary)
                for (const ParamInfo& p : v.scaling_params)
                    try_bad(p, v.scaling_params, "scheme.scaling.", scaling);
        }
    CHECK(checked > 50);
    Scheme s;
    s.type = SchemeType::hirope;
    s.window = (1LL << 30) + 1;
    CHECK(validate(s, 8).message() == "scheme.window is too large: 1073741825");
    s = Scheme();
    s.layout = static_cast<Layout>(7);
    CHECK(validate(s, 8).message() == "scheme.layout must be one of 'interleaved', 'half', got 7");
    s = Scheme();
    s.type = static_cast<SchemeType>(42);
    CHECK(validate(s, 8).message().rfind("scheme.type must be one of 'nope', ", 0) == 0);
}

TEST_CASE("Languages: each extension detects its language", "[catalogue]") {
    const std::vector<LanguageInfo>& info = language_info();
    REQUIRE(info.size() == languages().size());
    for (size_t i = 0; i < info.size(); ++i) {
        CHECK(info[i].name == languages()[i]);
        CHECK(!info[i].label.empty());
        CHECK(!info[i].extensions.empty());
        for (const std::string& ext : info[i].extensions)
            CHECK(detect_language("a/b" + ext) == info[i].name);
    }
}

TEST_CASE("catalogue_json: the one export, as JSON text both bindings parse", "[catalogue]") {
    const std::string json = catalogue_json();
    REQUIRE(json.front() == '{');
    REQUIRE(json.back() == '}');
    for (const char* key :
         {"\"schemes\":[", "\"scalings\":[", "\"parameters\":[", "\"scalingParameters\":[",
          "\"layouts\":[", "\"defaultRules\":[", "\"arguments\":["})
        CHECK(json.find(key) != std::string::npos);
    // Integers without a fraction (Python reads ints), unbounded ends as null, user names.
    CHECK(json.find(
              "\"name\":\"rotaryFraction\",\"field\":\"rotary_fraction\",\"kind\":\"number\"") !=
          std::string::npos);
    CHECK(json.find("\"default\":10000,") != std::string::npos);
    CHECK(json.find("\"step\":0.05,") != std::string::npos);
    CHECK(json.find("\"max\":null,") != std::string::npos);
    CHECK(json.find("\"limit\":1073741824,") != std::string::npos);
    CHECK(enum_list_json(scheme_catalogue().layouts) ==
          "[{\"name\":\"interleaved\",\"value\":0,\"label\":\"interleaved (Meta)\","
          "\"description\":\"Pairs are adjacent dims (2j, 2j + 1): Meta LLaMA, GPT-J\"},"
          "{\"name\":\"half\",\"value\":1,\"label\":\"half-split (HF)\","
          "\"description\":\"Pairs are dims (j, j + d / 2): rotate_half of Hugging Face, "
          "GPT-NeoX\"}]");
    // Every bracket closes: a quick structural check (strings hold no brackets' escapes here).
    int depth = 0;
    bool in_string = false;
    for (size_t i = 0; i < json.size(); ++i) {
        const char c = json[i];
        if (in_string) {
            if (c == '\\')
                ++i;
            else if (c == '"')
                in_string = false;
            continue;
        }
        if (c == '"') in_string = true;
        if (c == '{' || c == '[') ++depth;
        if (c == '}' || c == ']') REQUIRE(--depth >= 0);
    }
    CHECK(depth == 0);
    Scheme s;
    s.type = SchemeType::xpos;
    const std::string scheme = scheme_json(s);
    CHECK(scheme.rfind("{\"type\":\"xpos\",\"base\":10000,\"layout\":\"half\",", 0) == 0);
    CHECK(scheme.find("\"gamma\":0.4,") != std::string::npos);
    CHECK(scheme.find("\"scaling\":{\"type\":\"none\"}}") != std::string::npos);
}
