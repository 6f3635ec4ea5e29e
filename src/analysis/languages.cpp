// The languages and their unit and statement rules (their grammars: analysis/grammars/).
#include "analysis/languages.h"
#include "hirope/analysis.h"

#include <algorithm>

namespace hirope {
namespace detail {

namespace {

std::vector<LanguageRules> make_rules() {
    const std::vector<const char*> js_functions = {
        "function_declaration", "generator_function_declaration", "method_definition"};
    const std::vector<const char*> js_statements = {"_statement", "_declaration"};
    const std::vector<const char*> c_statements = {
        "declaration",     "function_definition", "type_definition",      "field_declaration",
        "preproc_include", "preproc_def",         "preproc_function_def", "preproc_call"};
    const std::vector<const char*> c_containers = {"preproc_ifdef", "preproc_if", "preproc_else",
                                                   "preproc_elif", "ERROR"};
    std::vector<LanguageRules> r;
    r.push_back({"python",
                 "Python",
                 {".py", ".pyi", ".pyw"},
                 {"function_definition"},
                 {"class_definition"},
                 {"decorated_definition"},
                 {},
                 {"ERROR"},
                 {"_statement"},
                 {"function_definition", "class_definition", "decorated_definition"},
                 {},
                 {}});
    LanguageRules js{"javascript",
                     "JavaScript",
                     {".js", ".mjs", ".cjs", ".jsx"},
                     js_functions,
                     {"class_declaration"},
                     {"export_statement"},
                     {"lexical_declaration", "variable_declaration"},
                     {"ERROR"},
                     js_statements,
                     {},
                     // a bundle's factory returns its module table: `return (function (modules)
                     // {...})([...])` (webpack), `return (() => {...})()`
                     {"expression_statement", "return_statement"},
                     {"pair"}};
    r.push_back(js);
    LanguageRules ts = js;
    ts.name = "typescript";
    ts.label = "TypeScript";
    ts.extensions = {".ts", ".mts", ".cts"};
    ts.functions.push_back("function_signature");
    ts.classes = {"class_declaration", "abstract_class_declaration", "interface_declaration",
                  "enum_declaration", "type_alias_declaration"};
    ts.wrappers.push_back("ambient_declaration");
    ts.containers = {"internal_module", "module", "ERROR"};
    r.push_back(ts);
    LanguageRules tsx = ts;
    tsx.name = "tsx";
    tsx.label = "TSX";
    tsx.extensions = {".tsx"};
    r.push_back(tsx);
    r.push_back({"c",
                 "C",
                 {".c", ".h"},
                 {"function_definition"},
                 {"struct_specifier", "union_specifier", "enum_specifier", "type_definition"},
                 {},
                 {},
                 c_containers,
                 {"_statement"},
                 c_statements,
                 {},
                 {}});
    LanguageRules cpp{"cpp",
                      "C++",
                      {".cpp", ".cc", ".cxx", ".c++", ".hpp", ".hh", ".hxx", ".h++", ".ipp"},
                      {"function_definition"},
                      {"class_specifier", "struct_specifier", "union_specifier", "enum_specifier",
                       "type_definition", "concept_definition"},
                      {"template_declaration"},
                      {},
                      c_containers,
                      {"_statement"},
                      c_statements,
                      {},
                      {}};
    cpp.containers.push_back("namespace_definition");
    cpp.containers.push_back("linkage_specification");
    for (const char* s :
         {"alias_declaration", "using_declaration", "template_declaration", "namespace_definition"})
        cpp.statements.push_back(s);
    r.push_back(cpp);
    r.push_back({"java",
                 "Java",
                 {".java"},
                 {"method_declaration", "constructor_declaration"},
                 {"class_declaration", "interface_declaration", "enum_declaration",
                  "record_declaration", "annotation_type_declaration"},
                 {},
                 {},
                 {"ERROR"},
                 {"_statement", "_declaration"},
                 {},
                 {},
                 {}});
    r.push_back({"go",
                 "Go",
                 {".go"},
                 {"function_declaration", "method_declaration"},
                 {"type_declaration"},
                 {},
                 {},
                 {"ERROR"},
                 {"_statement"},
                 {"package_clause", "import_declaration", "const_declaration", "var_declaration",
                  "type_declaration", "function_declaration", "method_declaration",
                  "short_var_declaration", "field_declaration"},
                 {},
                 {}});
    r.push_back({"rust",
                 "Rust",
                 {".rs"},
                 {"function_item", "function_signature_item", "macro_definition"},
                 {"struct_item", "enum_item", "union_item", "trait_item", "impl_item", "type_item"},
                 {},
                 {},
                 {"mod_item", "foreign_mod_item", "ERROR"},
                 {"_statement", "_item"},
                 {"let_declaration", "use_declaration", "field_declaration"},
                 {},
                 {}});
    return r;
}

} // namespace

const std::vector<LanguageRules>& language_rules() {
    static const std::vector<LanguageRules> rules = make_rules(); // immutable after first use
    return rules;
}

const LanguageRules* find_language(std::string_view name) {
    for (const LanguageRules& l : language_rules())
        if (name == l.name) return &l;
    return nullptr;
}

std::string language_kind(std::string_view node_type) {
    // Where the generic rule below would not give the language's own word.
    static const struct {
        const char* type;
        const char* word;
    } words[] = {
        {"type_definition", "typedef"},     // C, C++
        {"type_alias_declaration", "type"}, // TypeScript
    };
    for (const auto& w : words)
        if (node_type == w.type) return w.word;
    std::string_view t = node_type;
    for (std::string_view suffix : {"_declaration", "_definition", "_specifier", "_item"}) {
        if (t.size() > suffix.size() && t.substr(t.size() - suffix.size()) == suffix) {
            t.remove_suffix(suffix.size());
            break;
        }
    }
    std::string out(t);
    std::replace(out.begin(), out.end(), '_', ' ');
    return out;
}

} // namespace detail

const std::vector<std::string>& languages() {
    static const std::vector<std::string> names = [] {
        std::vector<std::string> out;
        for (const LanguageInfo& l : language_info()) out.push_back(l.name);
        return out;
    }();
    return names;
}

const std::vector<LanguageInfo>& language_info() {
    static const std::vector<LanguageInfo> info = [] {
        std::vector<LanguageInfo> out;
        for (const detail::LanguageRules& l : detail::language_rules())
            out.push_back({l.name, l.label,
                           std::vector<std::string>(l.extensions.begin(), l.extensions.end())});
        return out;
    }();
    return info;
}

const AnalysisCatalogue& analysis_catalogue() {
    static const AnalysisCatalogue v = [] {
        AnalysisCatalogue out;
        out.gaps = {
            {"own", static_cast<int>(GapPolicy::own), "own unit",
             "Each run of code between definitions is its own unit"},
            {"next", static_cast<int>(GapPolicy::next), "join next",
             "Code between definitions joins the following unit"},
            {"previous", static_cast<int>(GapPolicy::previous), "join previous",
             "Code between definitions joins the preceding unit"},
        };
        out.hierarchies = {
            {"units", static_cast<int>(Hierarchy::units), "functions and classes",
             "Top-level function and class units from the syntax tree"},
            {"segments", static_cast<int>(Hierarchy::segments), "fixed segments",
             "unit = floor(token index / segmentSize)"},
        };
        // Unit::kind as a number (the WASM bindings pack units this way).
        out.unit_kinds = {
            {"code", 0, "code", "Top-level code between definitions"},
            {"function", 1, "function", "A function or method definition"},
            {"class", 2, "class", "A class, struct, interface or type definition"},
            {"segment", 3, "segment", "A fixed-size segment of tokens"},
        };
        return out;
    }();
    return v;
}

int unit_kind_value(const std::string& kind) {
    for (const EnumValue& k : analysis_catalogue().unit_kinds)
        if (kind == k.name) return k.value;
    return -1;
}

std::string detect_language(std::string_view filename) {
    const size_t slash = filename.find_last_of("/\\");
    const std::string_view base =
        slash == std::string_view::npos ? filename : filename.substr(slash + 1);
    const size_t dot = base.find_last_of('.');
    if (dot == std::string_view::npos) return "";
    std::string ext(base.substr(dot));
    std::transform(ext.begin(), ext.end(), ext.begin(),
                   [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; });
    for (const detail::LanguageRules& l : detail::language_rules())
        for (const char* e : l.extensions)
            if (ext == e) return l.name;
    return "";
}

} // namespace hirope
