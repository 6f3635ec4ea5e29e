// Embind glue of the analysis (hirope_analysis): the packed analysis result and its layout,
// parsing alone, language detection, the analysis's limits, and its part of the scheme catalogue
// (languages and their file extensions, gap policies, hierarchies, unit kinds).
#include "hirope/analysis.h"
#include "common.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <cwctype>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <emscripten/bind.h>
#include <emscripten/val.h>

using emscripten::val;
using namespace hirope;
using namespace hirope::bindings;

namespace {

// A parse budget from JS: NaN stands for "not given" (the core's default budget); the JS layer
// checks that a given timeoutMs is a number, so NaN never means anything else.
std::optional<double> optional_ms(double ms) {
    if (std::isnan(ms)) return std::nullopt;
    return ms;
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

// Appends f(x) for every item: one resize, then plain stores (no capacity check per word).
template <typename T, typename F> void each(const std::vector<T>& items, Words& d, F f) {
    const size_t at = d.size();
    d.resize(at + items.size());
    uint32_t* out = d.data() + at;
    for (const T& x : items) *out++ = static_cast<uint32_t>(f(x));
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
    {"units.tokenStart", "units", "uint32",
     [](const Analysis& a, Words& d) {
         each(a.units, d, [](const Unit& u) { return u.token_start; });
     }},
    {"units.tokenEnd", "units", "uint32",
     [](const Analysis& a, Words& d) {
         each(a.units, d, [](const Unit& u) { return u.token_end; });
     }},
    {"units.statementStart", "units", "uint32",
     [](const Analysis& a, Words& d) {
         each(a.units, d, [](const Unit& u) { return u.statement_start; });
     }},
    {"units.statementEnd", "units", "uint32",
     [](const Analysis& a, Words& d) {
         each(a.units, d, [](const Unit& u) { return u.statement_end; });
     }},
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
    std::string run(uintptr_t code, double size, std::string language, uintptr_t grammar,
                    uintptr_t vocab, int gap, bool descend, int hierarchy, double segment_size,
                    double timeout_ms) {
        AnalyzeOptions o;
        o.timeout_ms = optional_ms(timeout_ms);
        o.language = language;
        o.grammar = ptr<const Grammar>(grammar);
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

// A language's grammar from the tree-sitter language that its side module made (wasm/grammars.js
// loads the module into this instance and hands over the pointer tree_sitter_<name>() returned).
class GrammarHandle {
  public:
    GrammarHandle(std::string language, uintptr_t ts) {
        error_ = make_grammar(language, ptr<const TSLanguage>(ts), &grammar_).message();
    }
    std::string error() const { return error_; }
    uintptr_t address() const { return reinterpret_cast<uintptr_t>(grammar_.get()); }

  private:
    GrammarPtr grammar_;
    std::string error_;
};

// The C library functions that the grammars' external scanners import, each by its index in the
// function table (a function pointer here): wasm/grammars.js links a side module to them.
// tests/js/grammars.test.mjs checks that every side module imports only these.
val grammarImports() {
    val o = val::object();
    const auto add = [&o](const char* name, auto* function) {
        o.set(name, static_cast<double>(reinterpret_cast<uintptr_t>(function)));
    };
    add("malloc", &std::malloc);
    add("calloc", &std::calloc);
    add("realloc", &std::realloc);
    add("free", &std::free);
    add("memcpy", &std::memcpy);
    add("memmove", &std::memmove);
    add("memset", &std::memset);
    add("memcmp", &std::memcmp);
    add("strlen", &std::strlen);
    add("strncmp", &std::strncmp);
    add("iswspace", &std::iswspace);
    add("iswdigit", &std::iswdigit);
    add("iswalpha", &std::iswalpha);
    add("iswalnum", &std::iswalnum);
    add("iswupper", &std::iswupper);
    add("iswlower", &std::iswlower);
    add("towupper", &std::towupper);
    add("towlower", &std::towlower);
    return o;
}

val analysisLimits() {
    val o = val::object();
    o.set("maxBytes", static_cast<double>(AnalysisLimits::max_bytes));
    return o;
}

val parseCode(uintptr_t code, double size, std::string language, uintptr_t grammar,
              double timeout_ms) {
    bool has_error = false;
    Status st =
        parse_only(std::string_view(ptr<const char>(code), static_cast<size_t>(size)), language,
                   &has_error, optional_ms(timeout_ms), wasm_heap(), ptr<const Grammar>(grammar));
    val out = val::object();
    out.set("error", result(st));
    out.set("hasError", has_error);
    return out;
}

std::string detectLanguage(std::string filename) {
    return detect_language(filename);
}

void catalogue_part(val* out) {
    val languages = val::array();
    for (const LanguageInfo& l : language_info()) {
        val o = val::object();
        o.set("name", l.name);
        o.set("label", l.label);
        val ext = val::array();
        for (const std::string& e : l.extensions) ext.call<void>("push", e);
        o.set("extensions", ext);
        languages.call<void>("push", o);
    }
    out->set("languages", languages);
    const AnalysisCatalogue& a = analysis_catalogue();
    out->set("gaps", enum_list(a.gaps));
    out->set("hierarchies", enum_list(a.hierarchies));
    out->set("unitKinds", enum_list(a.unit_kinds));
}

} // namespace

EMSCRIPTEN_BINDINGS(hirope_analysis) {
    emscripten::class_<AnalysisBuffer>("AnalysisBuffer")
        .constructor<>()
        .function("run", &AnalysisBuffer::run)
        .function("data", &AnalysisBuffer::data)
        .function("strings", &AnalysisBuffer::strings)
        .function("language", &AnalysisBuffer::language)
        .function("tokenizer", &AnalysisBuffer::tokenizer);
    emscripten::class_<GrammarHandle>("GrammarHandle")
        .constructor<std::string, uintptr_t>()
        .function("error", &GrammarHandle::error)
        .function("address", &GrammarHandle::address);
    emscripten::function("grammarImports", &grammarImports);
    emscripten::function("parse", &parseCode);
    emscripten::function("analysisLayout", &analysisLayout);
    emscripten::function("analysisLimits", &analysisLimits);
    emscripten::function("detectLanguage", &detectLanguage);
    add_catalogue_part(&catalogue_part);
}
