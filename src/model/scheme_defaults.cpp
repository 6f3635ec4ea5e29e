// A model's scheme defaults and baselines (model.h): what model.scheme() fills in where the user
// left a key out, once for both bindings.
#include "hirope/model.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

namespace hirope {
namespace model {

namespace {

// 'a', 'b' or 'c'
std::string or_list(const std::vector<std::string>& names) {
    std::string out;
    for (size_t i = 0; i < names.size(); ++i) {
        if (i) out += i + 1 == names.size() ? " or " : ", ";
        out += "'" + names[i] + "'";
    }
    return out;
}

bool takes_param(const ParamInfo& p, int type) {
    return (p.takes >> type) & 1u;
}

} // namespace

int64_t truncate_stride(int64_t length, int64_t divisor) {
    return std::max<int64_t>(1, length / std::max<int64_t>(1, divisor));
}

Status model_scheme_defaults(const Config& config, const std::string& type,
                             const std::string& type_shown, const std::string* scaling_type,
                             std::vector<SchemeDefault>* out) {
    out->clear();
    const SchemeCatalogue& cat = scheme_catalogue();
    // The model was trained with RoPE: it runs the rotary schemes and NoPE (check_scheme).
    const SchemeInfo* info = nullptr;
    std::vector<std::string> usable;
    for (const SchemeInfo& s : cat.schemes) {
        if (s.rotary) usable.push_back(s.name);
        if ((s.rotary || s.type == SchemeType::nope) && type == s.name) info = &s;
    }
    usable.push_back("nope");
    if (!info) {
        std::vector<std::string> names = usable;
        for (const EnumValue& limit : context_limits())
            if (limit.value != static_cast<int>(ContextLimitType::none))
                names.push_back(limit.name);
        return Status::error("the code model was trained with RoPE: scheme.type must be one of " +
                             or_list(names) + ", got " + type_shown);
    }
    const int t = static_cast<int>(info->type);
    const double L = config.training_context;
    auto param = [&](const char* name) {
        for (const ParamInfo& p : cat.scheme_params)
            if (std::strcmp(p.name, name) == 0) return takes_param(p, t);
        return false;
    };
    if (param("base")) out->push_back({"base", config.rope_base, ""});
    if (param("layout")) out->push_back({"layout", 0, "half"});
    if (param("scaling") && scaling_type) {
        for (const ScalingInfo& s : cat.scalings) {
            bool named = *scaling_type == s.name;
            for (const char* alias : s.aliases) named = named || *scaling_type == alias;
            if (!named) continue;
            for (const ParamInfo& p : cat.scaling_params)
                if (std::strcmp(p.name, "originalLength") == 0 &&
                    takes_param(p, static_cast<int>(s.type)))
                    out->push_back({"scaling.originalLength", L, ""});
        }
    }
    if (param("window")) out->push_back({"window", std::max(1.0, std::floor(L / 2)), ""});
    if (param("trainingLength")) out->push_back({"trainingLength", L, ""});
    return Status();
}

Status model_baseline(const Config& config, int64_t max_input, ContextLimitType type,
                      const UserNumber& size, const UserNumber& stride, ContextLimit* out) {
    if (type == ContextLimitType::none) return Status::error("a baseline limits the context");
    const bool truncate = type == ContextLimitType::truncate;
    auto read = [](const UserNumber& v, int64_t fallback, const char* key, int64_t max,
                   int64_t* x) {
        if (!v.present) {
            *x = fallback;
            return Status();
        }
        if (!v.number || !std::isfinite(v.value) || std::floor(v.value) != v.value || v.value < 1 ||
            v.value > static_cast<double>(max))
            return Status::error(std::string("scheme.") + key + " must be an integer in [1, " +
                                 std::to_string(max) + "], got " + v.shown);
        *x = static_cast<int64_t>(v.value);
        return Status();
    };
    ContextLimit limit;
    limit.type = type;
    Status st = read(size, config.training_context, truncate ? "length" : "window", max_input,
                     &limit.length);
    if (!st.ok()) return st;
    if (truncate) {
        st = read(stride, truncate_stride(limit.length), "stride", limit.length, &limit.stride);
        if (!st.ok()) return st;
    }
    *out = limit;
    return Status();
}

} // namespace model
} // namespace hirope
