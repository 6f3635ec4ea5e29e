// hirope code analysis: from source text to tokens and hierarchical positions.
//
// Tokenizers: `lexical` (tree-sitter leaves; needs no data), and the vocabularies of
// hirope/tokenizers.h (which this header includes).
// Parsing: tree-sitter grammars for Python, JavaScript, TypeScript, TSX, C, C++, Java, Go, Rust.
// Positions (docs/schemes.md section 6.1): global token index; top-level function/class unit;
// statement index; or fixed-size segments floor(t / S).
//
// Offsets are bytes of the UTF-8 input, plus UTF-16 code units for JavaScript callers. Errors are
// returned as Status; invalid UTF-8, NUL bytes and syntax errors are input, not errors. Parsing
// runs under a time budget (timeout_ms): tree-sitter's error recovery is quadratic on some inputs
// (160,000 `"` as JavaScript take 2.5 minutes), and a parse that runs past its budget is an
// error.
#pragma once

#include "hirope/hirope.h" // EnumValue (the catalogue's value lists); header only
#include "hirope/status.h"
#include "hirope/tokenizers.h" // Token, Vocabulary and the loaders (hirope_tokenizers)

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

struct TSLanguage; // tree-sitter's

namespace hirope {

// Limits, checked before parsing, derived from the heap ceiling (hirope.h) and the heap that
// analysis takes per byte of source, measured by bench/memory.mjs (docs/architecture.md "Memory").
struct AnalysisLimits {
    // Peak heap per source byte of parse + analysis, the walk's reservation included: real code
    // measures 50-63 (nine languages), dense code (one arithmetic expression per line, 14 MB of
    // Python) 126. Pathological input takes more (deep nesting up to ~360) and stops at the heap
    // budget with an error instead.
    static constexpr size_t heap_per_byte = 128;
    // Of that, what the walk after the parse allocates (tokens, positions, units), reserved
    // before it starts.
    static constexpr size_t walk_bytes_per_byte = 40;
    // The tokenizers' own (tokenizers.h), under their old names.
    static constexpr size_t encode_bytes_per_byte = TokenizerLimits::encode_bytes_per_byte;
    static constexpr size_t tokenizer_json_load_bytes_per_byte =
        TokenizerLimits::tokenizer_json_load_bytes_per_byte;
    // The largest source whose analysis fits the budget at heap_per_byte, in whole MiB.
    static constexpr size_t max_bytes =
        (HeapCeiling::bytes - HeapCeiling::reserve) / heap_per_byte >> 20 << 20;
};

// ---------------------------------------------------------------------------------------------
// Languages

// Names of the compiled-in languages, in a fixed order.
const std::vector<std::string>& languages();

struct LanguageInfo {
    std::string name;                    // "cpp"
    std::string label;                   // display name: "C++"
    std::vector<std::string> extensions; // lower case, with the dot: ".cpp", ".cc", ...
};

// The compiled-in languages with their file extensions (detect_language reads the same table),
// in the order of languages().
const std::vector<LanguageInfo>& language_info();

// The language of a file name by its extension ("" when unknown).
std::string detect_language(std::string_view filename);

// A language's tree-sitter grammar, with what the analysis reads from it (which node types make
// units and statements). Native builds have every grammar built in; the WebAssembly module has
// none and makes a Grammar of each one it loads (wasm/grammars.js), so that a page downloads only
// the grammars of the languages it shows.
struct Grammar;
struct GrammarDeleter {
    void operator()(Grammar* g) const;
};
using GrammarPtr = std::unique_ptr<Grammar, GrammarDeleter>;

// The grammar built into this program for a language, or nullptr (an unknown language, or a
// build that loads its grammars at run time). Made once, immutable.
const Grammar* built_in_grammar(std::string_view language);

// A grammar for `language` from a tree-sitter language loaded at run time. Errors: an unknown
// language, a null grammar, an ABI version this tree-sitter cannot read.
Status make_grammar(std::string_view language, const TSLanguage* ts, GrammarPtr* out);

// The language a grammar parses ("python").
const char* grammar_language(const Grammar& grammar);

// ---------------------------------------------------------------------------------------------
// Analysis

enum class GapPolicy {
    own,      // each maximal run of non-definition top-level code is its own unit (default)
    next,     // such code joins the following unit
    previous, // such code joins the preceding unit
};

enum class Hierarchy {
    units,    // top-level function/class units from the syntax tree
    segments, // fixed-size segments: unit = floor(token index / segment_size)
};

// The default parse time budget: floor_ms, plus ms_per_mb per million bytes of input. Real code
// parses at 5-16 MB/s natively and 3.7-17 MB/s in WebAssembly (docs/analysis.md), so the budget
// is 50x what a 1 MB file needs and 4x what the largest one (AnalysisLimits::max_bytes) needs;
// inputs that defeat tree-sitter's error recovery reach 10 s at a few tens of kilobytes.
struct ParseBudget {
    static constexpr double floor_ms = 10000;
    static constexpr double ms_per_mb = 1000;
};

// The default budget for an input of `bytes` bytes, in milliseconds: 10 s + 1 s per MB.
double default_timeout_ms(size_t bytes);

struct AnalyzeOptions {
    std::string language; // one of languages()
    // The language's grammar; nullptr: the one built in (an error where none is).
    const Grammar* grammar = nullptr;
    const Vocabulary* vocabulary = nullptr; // nullptr: the lexical tokenizer
    GapPolicy gap = GapPolicy::own;
    bool descend_classes = false; // methods become their own units
    Hierarchy hierarchy = Hierarchy::units;
    int64_t segment_size = 128;
    // The parse's wall-clock budget in milliseconds, counted per call from its start: unset means
    // default_timeout_ms(code.size()); 0 (or anything above 10^9, infinity included) means no
    // limit; negative or NaN is an error. A parse that runs past it stops and analyze() returns
    // an error naming timeout_ms. The walk after the parse is linear and not counted.
    std::optional<double> timeout_ms;
    // The heap budget (hirope.h): checked while parsing and before the walk's allocations.
    HeapBudget heap;
};

struct Unit {
    std::string kind;      // "function", "class", "code" (gap code) or "segment"
    std::string name;      // the definition's name ("" for code and segments)
    std::string node_type; // the tree-sitter node type that made it ("" for code, segments)
    // The language's own word for the definition: "struct", "impl", "trait", "interface", "type",
    // "enum", "typedef", "method", "function", "class"... ("" for code and segments).
    std::string language_kind;
    uint32_t start = 0, end = 0;             // bytes; units partition the input
    uint32_t start_utf16 = 0, end_utf16 = 0; // the same in UTF-16 code units
    // The unit's tokens [token_start, token_end) and the statement indices they carry
    // [statement_start, statement_end) (Analysis::statement); both 0, 0 for a unit without tokens.
    uint32_t token_start = 0, token_end = 0;
    uint32_t statement_start = 0, statement_end = 0;
};

struct ErrorRegion {
    uint32_t start = 0, end = 0;
    uint32_t start_utf16 = 0, end_utf16 = 0;
    bool missing = false; // a MISSING node (zero width) rather than an ERROR node
};

struct Analysis {
    std::string language;
    std::string tokenizer;
    std::vector<Token> tokens;
    std::vector<uint32_t> start_utf16, end_utf16; // per token
    std::vector<int32_t> unit;                    // per token
    std::vector<int32_t> statement;               // per token
    std::vector<Unit> units;
    std::vector<ErrorRegion> errors;
    int32_t statements = 0; // statement nodes in the tree
};

Status analyze(std::string_view code, const AnalyzeOptions& options, Analysis* out);

// The analysis part of the vocabulary (see hirope.h): the value lists of the options above, and
// the numbers of Unit::kind values (for packed results).
struct AnalysisCatalogue {
    std::vector<EnumValue> gaps;        // GapPolicy
    std::vector<EnumValue> hierarchies; // Hierarchy
    std::vector<EnumValue> unit_kinds;  // "code", "function", "class", "segment"
};

const AnalysisCatalogue& analysis_catalogue();

// The number of a Unit::kind in analysis_catalogue().unit_kinds (-1 for an unknown kind).
int unit_kind_value(const std::string& kind);

// Parses code and nothing else: whether the tree has syntax errors (for validation, and the
// benchmark's bare-parse baseline). timeout_ms: the parse's budget, as AnalyzeOptions::timeout_ms;
// grammar: as AnalyzeOptions::grammar.
Status parse_only(std::string_view code, const std::string& language, bool* has_error,
                  std::optional<double> timeout_ms = std::nullopt, const HeapBudget& heap = {},
                  const Grammar* grammar = nullptr);

} // namespace hirope
