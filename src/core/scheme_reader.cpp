// read_scheme: a scheme read from a binding's values (a SchemeSource) through the catalogue, once
// for every language. The depth is fixed (scheme -> scaling -> a list's items), so nothing here
// recurses on the caller's data; a list's length is checked before its items are read.
#include "hirope/hirope.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace hirope {

namespace {

using Kind = SchemeSource::Kind;

constexpr double kInt32Max = 2147483647.0;

// A failed read: the message, kept until read_scheme returns it as a Status.
// Messages are joined from parts by one function (not by std::string's operator+ at each call,
// which the WebAssembly core entry would pay for in size).
struct Reader {
    std::string error;
    bool fail(std::initializer_list<std::string_view> parts) {
        if (error.empty())
            for (std::string_view part : parts) error.append(part.data(), part.size());
        return false;
    }
    // "<path> must be <requirement>, got <value>".
    bool must(std::string_view path, std::string_view requirement, const SchemeSource& value) {
        return fail({path, " must be ", requirement, ", got ", value.describe()});
    }
};

// "'a', 'b', 'c'": a list of names as messages quote them.
void add_quoted(std::string* out, const char* name) {
    out->append(out->empty() ? "'" : ", '").append(name).append("'");
}

char lower(char c) {
    return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
}

// Case-insensitive: whether `a` starts with `b`.
bool starts_with(std::string_view a, std::string_view b) {
    if (a.size() < b.size()) return false;
    for (size_t i = 0; i < b.size(); ++i)
        if (lower(a[i]) != lower(b[i])) return false;
    return true;
}

size_t edit_distance(std::string_view a, std::string_view b) {
    std::vector<size_t> previous(b.size() + 1), row(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j) previous[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
        row[0] = i;
        for (size_t j = 1; j <= b.size(); ++j)
            row[j] = std::min(std::min(previous[j], row[j - 1]) + 1,
                              previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1));
        std::swap(previous, row);
    }
    return previous[b.size()];
}

// The parameter a type takes whose name is closest to a misspelt key, or "" when none is close (a
// third of it edited): the rule of the JS layer's closestName (wasm/marshal.js), which every other
// options object uses.
std::string_view closest_name(std::string_view key, const std::vector<ParamInfo>& params,
                              int type) {
    std::string_view best;
    size_t best_distance = std::numeric_limits<size_t>::max();
    for (const ParamInfo& p : params) {
        if (!takes(p, type)) continue;
        const std::string_view candidate = p.name;
        const size_t shorter = std::min(key.size(), candidate.size());
        // A key cut short or run on is as close as one edit.
        const bool prefix =
            shorter >= 3 && (starts_with(candidate, key) || starts_with(key, candidate));
        const size_t d = prefix ? 1 : edit_distance(key, candidate);
        if (d >= shorter) continue; // as many edits as the shorter name's letters: no typo
        if (d < best_distance) {
            best = candidate;
            best_distance = d;
        }
    }
    return !best.empty() && best_distance <= std::max<size_t>(2, best.size() / 3)
               ? best
               : std::string_view();
}

bool in_range(const ParamInfo& p, double x) {
    if (!std::isfinite(x)) return false;
    if (!p.allowed.empty())
        return std::find(p.allowed.begin(), p.allowed.end(), x) != p.allowed.end();
    if (std::isfinite(p.min) && (p.min_open ? !(x > p.min) : !(x >= p.min))) return false;
    if (std::isfinite(p.max) && (p.max_open ? !(x < p.max) : !(x <= p.max))) return false;
    return true;
}

// The keys of a scheme or scaling object: each a string, 'type' or a parameter the type takes.
bool check_keys(Reader* r, const SchemeSource& object, const std::vector<ParamInfo>& params,
                int type, const std::string& where) {
    std::vector<std::string> keys;
    std::string bad;
    if (!object.keys(&keys, &bad))
        return r->fail({where, " has a key that is not a string: ", bad});
    for (const std::string& key : keys) {
        bool known = key == "type";
        for (const ParamInfo& p : params) known = known || (takes(p, type) && key == p.name);
        if (known) continue;
        const std::string_view guess = closest_name(key, params, type);
        std::string list;
        for (const ParamInfo& p : params)
            if (takes(p, type)) list.append(list.empty() ? "" : ", ").append(p.name);
        return r->fail({where, " has an unknown key '", key, "' (",
                        guess.empty() ? "" : "did you mean '", guess, guess.empty() ? "" : "'? ",
                        list.empty() ? "it takes no parameters" : "known keys: ", list, ")"});
    }
    return true;
}

bool read_enum(Reader* r, const std::vector<EnumValue>& list, const SchemeSource& value,
               const std::string& path, int* out) {
    if (value.kind() == Kind::string) {
        const std::string name = value.text();
        for (const EnumValue& e : list)
            if (name == e.name) return *out = e.value, true;
    }
    std::string names;
    for (const EnumValue& e : list) add_quoted(&names, e.name);
    return r->must(path, "one of " + names, value);
}

bool read_list(Reader* r, const SchemeSource& value, const std::string& path,
               std::vector<double>* out) {
    const size_t cap = static_cast<size_t>(Limits::max_head_dim / 2);
    if (value.kind() != Kind::list) return r->must(path, value.dialect().list_shape, value);
    const size_t length = value.length();
    if (length > cap)
        return r->fail({path, " has ", std::to_string(length),
                        " entries, more than rotaryDim/2 can be (at most ", std::to_string(cap),
                        ")"});
    out->clear();
    out->reserve(length);
    for (size_t i = 0; i < length; ++i) {
        const std::unique_ptr<SchemeSource> x = value.item(i);
        bool integer = false;
        if (x->kind() != Kind::number)
            return r->must(path + "[" + std::to_string(i) + "]", "a number", *x);
        out->push_back(x->number(&integer));
    }
    return true;
}

// One given value of a parameter, checked for its kind (its range is validate()'s, except for an
// option that is no field), into the scheme; *x is its value as a number.
bool read_value(Reader* r, const ParamInfo& p, const SchemeSource& value, const std::string& where,
                Scheme* s, double* x) {
    const std::string path = where + "." + p.name;
    switch (p.kind) {
    case ParamKind::enumeration: {
        int e = 0;
        if (!read_enum(r, *value_list(p.values), value, path, &e)) return false;
        if (p.set) p.set(*s, e);
        *x = e;
        return true;
    }
    case ParamKind::list: {
        std::vector<double> items;
        if (!read_list(r, value, path, &items)) return false;
        if (p.list) *p.list(*s) = std::move(items);
        *x = 0;
        return true;
    }
    case ParamKind::boolean: {
        if (value.kind() != Kind::boolean) return r->must(path, "a boolean", value);
        *x = value.boolean() ? 1 : 0;
        if (p.set) p.set(*s, *x);
        return true;
    }
    case ParamKind::scaling:
        return true; // read by read_scaling
    default: {
        if (value.kind() != Kind::number) return r->must(path, "a number", value);
        bool integer = false;
        const double v = value.number(&integer);
        const bool integral = integer || (std::isfinite(v) && v == std::floor(v));
        if (p.kind == ParamKind::integer && !integral) return r->must(path, "an integer", value);
        if (!std::isfinite(v) && integer) // an exact integer past a double's range
            return r->fail({path, v > 0 ? " is too large: " : " is too small: ", value.describe()});
        if (!p.field && !in_range(p, v)) return r->must(path, param_range(p), value);
        // The core's integer fields hold 32 bits: larger values are named here, as given.
        if (p.kind == ParamKind::integer && p.field && std::fabs(v) > kInt32Max)
            return in_range(p, v) ? r->fail({path, " is too large: ", value.describe()})
                                  : r->must(path, param_range(p), value);
        if (p.set) p.set(*s, v);
        *x = v;
        return true;
    }
    }
    return true;
}

// The scaling at scheme.scaling (nullptr: none given).
bool read_scaling(Reader* r, const SchemeSource* at, Scheme* s) {
    const SchemeCatalogue& v = scheme_catalogue();
    if (!at) return true;
    const SchemeSource& given = *at;
    const Kind kind = given.kind();
    if (kind == Kind::absent || (kind == Kind::null && given.dialect().null_scaling_is_none))
        return true; // the default: no scaling
    if (kind != Kind::object)
        return r->must("scheme.scaling", given.dialect().scaling_shape, given);
    const std::unique_ptr<SchemeSource> type = given.at("type");
    std::string name = "none";
    const ScalingInfo* info = nullptr;
    if (type->kind() == Kind::string) name = type->text();
    if (type->kind() == Kind::string || type->kind() == Kind::absent) {
        for (const ScalingInfo& x : v.scalings) {
            if (name == x.name) info = &x;
            for (const char* a : x.aliases)
                if (name == a) info = &x;
        }
    }
    if (!info) {
        std::string names;
        for (const ScalingInfo& x : v.scalings) {
            add_quoted(&names, x.name);
            for (const char* a : x.aliases) add_quoted(&names, a);
        }
        return r->must("scheme.scaling.type", "one of " + names, *type);
    }
    const int t = static_cast<int>(info->type);
    if (!check_keys(r, given, v.scaling_params, t, "scheme.scaling (type '" + name + "')"))
        return false;
    s->scaling.type = info->type;
    for (const ParamInfo& p : v.scaling_params) {
        const std::unique_ptr<SchemeSource> value = given.at(p.name);
        double x = 0;
        if (value->kind() != Kind::absent) {
            if (!read_value(r, p, *value, "scheme.scaling", s, &x)) return false;
        } else if (required_for(p, t) && p.set) {
            p.set(*s, std::numeric_limits<double>::quiet_NaN()); // validate() names it
        }
    }
    return true;
}

const ParamInfo* param_by_field(const std::vector<ParamInfo>& params, const char* field) {
    for (const ParamInfo& p : params)
        if (p.field && std::string(p.field) == field) return &p;
    return nullptr;
}

bool read(Reader* r, const SchemeSource& given, SchemeReading* out) {
    const SchemeCatalogue& v = scheme_catalogue();
    // A scheme given as a name stands for {type: name}: the name, and no parameters.
    const bool is_name = given.kind() == Kind::string;
    if (!is_name && given.kind() != Kind::object)
        return r->must("scheme", given.dialect().scheme_shape, given);
    const std::unique_ptr<SchemeSource> type_at = is_name ? nullptr : given.at("type");
    const SchemeSource* type = is_name ? &given : type_at.get();
    const SchemeInfo* info = nullptr;
    const std::string type_name = type->kind() == Kind::string ? type->text() : "";
    for (const SchemeInfo& s : v.schemes)
        if (type->kind() == Kind::string && type_name == s.name) info = &s;
    if (!info) {
        std::string names;
        for (const SchemeInfo& s : v.schemes) add_quoted(&names, s.name);
        return r->must("scheme.type", "one of " + names, *type);
    }
    const int t = static_cast<int>(info->type);
    if (!is_name && !check_keys(r, given, v.scheme_params, t,
                                "scheme (type '" + std::string(info->name) + "')"))
        return false;
    *out = SchemeReading();
    out->info = info;
    out->scheme.type = info->type;
    std::vector<const ParamInfo*> given_params;
    for (const ParamInfo& p : v.scheme_params) {
        const std::unique_ptr<SchemeSource> value = is_name ? nullptr : given.at(p.name);
        if (p.kind == ParamKind::scaling) {
            if (!read_scaling(r, value.get(), &out->scheme)) return false;
            continue;
        }
        double x = p.option_default;
        if (value && value->kind() != Kind::absent) {
            if (!read_value(r, p, *value, "scheme", &out->scheme, &x)) return false;
            given_params.push_back(&p);
        } else if (required_for(p, t) && p.set) {
            p.set(out->scheme, std::numeric_limits<double>::quiet_NaN()); // validate() names it
        }
        if (!p.field) out->options.emplace_back(&p, x);
    }
    // Defaults that depend on the type or on another parameter (the table's rules).
    for (const DefaultRule& rule : v.default_rules) {
        const ParamInfo* target = param_by_field(v.scheme_params, rule.field);
        if (!target || !target->set ||
            std::find(given_params.begin(), given_params.end(), target) != given_params.end())
            continue;
        if (!(rule.schemes >> t & 1u)) continue;
        if (rule.when) {
            const ParamInfo* when = param_by_field(v.scheme_params, rule.when);
            if (!when || !when->get || when->get(out->scheme) != rule.when_value) continue;
        }
        const ParamInfo* from = rule.from ? param_by_field(v.scheme_params, rule.from) : nullptr;
        const double x = from && from->get ? from->get(out->scheme) : 0;
        target->set(out->scheme, (rule.offset + rule.scale * x) / rule.divisor);
    }
    return true;
}

} // namespace

double SchemeReading::option(const char* name) const {
    for (const auto& o : options)
        if (std::string(o.first->name) == name) return o.second;
    return 0;
}

Status read_scheme(const SchemeSource& source, SchemeReading* out) {
    Reader r;
    SchemeReading reading;
    if (!read(&r, source, &reading)) return Status::error(r.error);
    *out = std::move(reading);
    return Status();
}

} // namespace hirope
