// Internal: per-language rules for units and statements (documented in docs/analysis.md).
#pragma once

#include <string>
#include <string_view>
#include <vector>

struct TSLanguage;

namespace hirope {
namespace detail {

struct LanguageRules {
    const char* name;
    const char* label; // display name: "C++"
    std::vector<const char*> extensions;
    std::vector<const char*> functions;  // definitions that make a "function" unit
    std::vector<const char*> classes;    // definitions that make a "class" unit
    std::vector<const char*> wrappers;   // wrap a definition (decorators, export, template)
    std::vector<const char*> bindings;   // `const f = () => ...`: a function bound to a name
    std::vector<const char*> containers; // transparent: their members are scanned (namespaces)
    std::vector<const char*> statement_suffixes;
    std::vector<const char*> statements; // statement node types beyond the suffix rule
    // JavaScript's CommonJS and bundle shapes: expression statements that bind a function or class
    // (`exports.f = function`, `Foo.prototype.bar = ...`), hold an object literal whose members
    // are scanned, or run a wrapper (IIFE, UMD) whose body is scanned as the top level.
    std::vector<const char*> expressions;
    std::vector<const char*> pairs; // `key: function () {}` in a scanned object literal
};

// Blocks are not statements, whatever their grammar calls them.
inline bool excluded_statement(const char* type) {
    return std::string_view(type) == "compound_statement";
}

const std::vector<LanguageRules>& language_rules();

// The tree-sitter grammar compiled into this program for a language, or nullptr. Defined by one of
// analysis/grammars/built-in.cpp (every grammar linked in: native builds, the test binaries) or
// analysis/grammars/none.cpp (the WebAssembly module, which loads each grammar when first needed).
const TSLanguage* built_in_language(std::string_view name);

// The language's own word for a definition of this node type: the type less its suffix
// (_declaration, _definition, _specifier, _item) with spaces for underscores ("struct_item" ->
// "struct", "interface_declaration" -> "interface"), except where the language says otherwise
// ("type_definition" -> "typedef"). Go's type_declaration is refined from its type spec by the
// analysis, which sees the tree.
std::string language_kind(std::string_view node_type);
const LanguageRules* find_language(std::string_view name);

} // namespace detail
} // namespace hirope
