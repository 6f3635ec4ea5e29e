// Every language's tree-sitter grammar linked into the program (native builds, test binaries).
#include "analysis/languages.h"

extern "C" {
const TSLanguage* tree_sitter_python(void);
const TSLanguage* tree_sitter_javascript(void);
const TSLanguage* tree_sitter_typescript(void);
const TSLanguage* tree_sitter_tsx(void);
const TSLanguage* tree_sitter_c(void);
const TSLanguage* tree_sitter_cpp(void);
const TSLanguage* tree_sitter_java(void);
const TSLanguage* tree_sitter_go(void);
const TSLanguage* tree_sitter_rust(void);
}

namespace hirope {
namespace detail {

const TSLanguage* built_in_language(std::string_view name) {
    static const struct {
        const char* name;
        const TSLanguage* (*language)();
    } grammars[] = {
        {"python", tree_sitter_python},
        {"javascript", tree_sitter_javascript},
        {"typescript", tree_sitter_typescript},
        {"tsx", tree_sitter_tsx},
        {"c", tree_sitter_c},
        {"cpp", tree_sitter_cpp},
        {"java", tree_sitter_java},
        {"go", tree_sitter_go},
        {"rust", tree_sitter_rust},
    };
    for (const auto& g : grammars)
        if (name == g.name) return g.language();
    return nullptr;
}

} // namespace detail
} // namespace hirope
