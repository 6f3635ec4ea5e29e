// pybind11 glue of the analysis (hirope_analysis): analyze() as dicts of numpy columns, parsing
// alone, language detection, the analysis's limits, and its part of the catalogue (languages and
// their file extensions, gap policies, hierarchies, unit kinds).
#include "hirope/analysis.h"
#include "common.h"

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include <pybind11/stl.h>

namespace hirope {
namespace python {

namespace {

std::string language_of(py::handle value) {
    std::vector<std::string> names = languages();
    if (py::isinstance<py::str>(value)) {
        const std::string name = value.cast<std::string>();
        for (const std::string& l : names)
            if (l == name) return name;
    }
    std::string list;
    for (size_t i = 0; i < names.size(); ++i) list += (i ? ", '" : "'") + names[i] + "'";
    fail("language must be one of " + list + ", got " + describe(value));
}

// None: the core's default budget; else a number of milliseconds (0: no limit).
std::optional<double> timeout_of(py::handle value) {
    if (value.is_none()) return std::nullopt;
    const char* requirement = "a number of milliseconds >= 0 (0: no limit)";
    const double ms = number_arg(value, "timeout_ms", requirement);
    if (std::isnan(ms)) fail(std::string("timeout_ms must be ") + requirement + ", got nan");
    return ms;
}

// A byte span and its UTF-16 one, under the keys units and error regions share.
template <typename Span> void add_span(py::dict* d, const Span& s) {
    (*d)["start"] = s.start;
    (*d)["end"] = s.end;
    (*d)["start_utf16"] = s.start_utf16;
    (*d)["end_utf16"] = s.end_utf16;
}

py::dict analyze_code(py::handle code, py::handle language, py::handle tokenizer, py::handle gap,
                      py::handle descend_classes, py::handle hierarchy, py::handle segment_size,
                      py::handle timeout_ms) {
    const AnalysisCatalogue& av = analysis_catalogue();
    AnalyzeOptions o;
    o.language = language_of(language);
    o.vocabulary = vocabulary_of(tokenizer);
    o.gap = static_cast<GapPolicy>(enum_value(av.gaps, gap, "gap"));
    o.descend_classes = boolean_arg(descend_classes, "descend_classes");
    o.hierarchy = static_cast<Hierarchy>(enum_value(av.hierarchies, hierarchy, "hierarchy"));
    o.segment_size = integer_arg(segment_size, "segment_size", 1, INT64_MAX, "an integer >= 1");
    o.timeout_ms = timeout_of(timeout_ms);
    const std::string text = text_bytes(code, "code", AnalysisLimits::max_bytes);
    Analysis a;
    Status st;
    {
        py::gil_scoped_release release;
        st = analyze(text, o, &a);
    }
    check(st);
    const size_t n = a.tokens.size();
    std::vector<int32_t> ids(n), token(n);
    std::vector<uint32_t> starts(n), ends(n);
    for (size_t i = 0; i < n; ++i) {
        ids[i] = a.tokens[i].id;
        starts[i] = a.tokens[i].start;
        ends[i] = a.tokens[i].end;
        token[i] = static_cast<int32_t>(i);
    }
    py::dict out;
    out["language"] = a.language;
    out["tokenizer"] = a.tokenizer;
    out["ids"] = numpy_copy(ids);
    out["starts"] = numpy_copy(starts);
    out["ends"] = numpy_copy(ends);
    out["starts_utf16"] = numpy_copy(a.start_utf16);
    out["ends_utf16"] = numpy_copy(a.end_utf16);
    add_positions(&out, token, a.unit, a.statement);
    py::list units;
    const py::object range = py::module_::import("builtins").attr("range"); // the core's ranges
    for (const Unit& u : a.units) {
        py::dict d;
        d["kind"] = u.kind;
        d["name"] = u.name;
        d["node_type"] = u.node_type;
        d["language_kind"] = u.language_kind;
        add_span(&d, u);
        d["tokens"] = range(u.token_start, u.token_end);
        d["statements"] = range(u.statement_start, u.statement_end);
        units.append(d);
    }
    out["units"] = units;
    py::list errors;
    for (const ErrorRegion& r : a.errors) {
        py::dict d;
        add_span(&d, r);
        d["missing"] = r.missing;
        errors.append(d);
    }
    out["errors"] = errors;
    out["statements"] = a.statements;
    return out;
}

bool parse_code(py::handle code, py::handle language, py::handle timeout_ms) {
    const std::string lang = language_of(language);
    const std::optional<double> timeout = timeout_of(timeout_ms);
    const std::string text = text_bytes(code, "code", AnalysisLimits::max_bytes);
    bool has_error = false;
    Status st;
    {
        py::gil_scoped_release release;
        st = parse_only(text, lang, &has_error, timeout);
    }
    check(st);
    return has_error;
}

void catalogue_part(py::dict* out) {
    py::list list;
    for (const LanguageInfo& l : language_info()) {
        py::dict o;
        o["name"] = l.name;
        o["label"] = l.label;
        py::list ext;
        for (const std::string& e : l.extensions) ext.append(e);
        o["extensions"] = ext;
        list.append(o);
    }
    (*out)["languages"] = list;
    const AnalysisCatalogue& a = analysis_catalogue();
    (*out)["gaps"] = enum_list(a.gaps);
    (*out)["hierarchies"] = enum_list(a.hierarchies);
    (*out)["unitKinds"] = enum_list(a.unit_kinds);
}

} // namespace

void register_analysis(py::module_& m) {
    m.def("analyze", &analyze_code, py::arg("code"), py::arg("language"), py::arg("tokenizer"),
          py::arg("gap"), py::arg("descend_classes"), py::arg("hierarchy"), py::arg("segment_size"),
          py::arg("timeout_ms"));
    m.def("parse", &parse_code, py::arg("code"), py::arg("language"), py::arg("timeout_ms"));
    m.def(
        "detect_language", [](const std::string& filename) { return detect_language(filename); },
        py::arg("filename"));
    m.def("languages", [] { return languages(); });
    m.def("analysis_limits", [] {
        py::dict o;
        o["max_bytes"] = AnalysisLimits::max_bytes;
        return o;
    });
    add_catalogue_part(&catalogue_part);
}

} // namespace python
} // namespace hirope
