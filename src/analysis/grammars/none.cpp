// No grammar linked in: the program makes a Grammar of each language's tree-sitter grammar when it
// loads it (the WebAssembly module loads them one per language, as side modules).
#include "analysis/languages.h"

namespace hirope {
namespace detail {

const TSLanguage* built_in_language(std::string_view) {
    return nullptr;
}

} // namespace detail
} // namespace hirope
