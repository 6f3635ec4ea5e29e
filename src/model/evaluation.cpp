// The code models' evaluation rules (model.h, "The evaluation"): recall classes, windows, bucket
// edges, per-window sums and the preset symbols. The one implementation: the JS package
// (wasm/model.js, wasm/recall.js) and the Python package (hirope.eval) call these through their
// bindings.
#include "hirope/model.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <unordered_map>
#include <unordered_set>

namespace hirope {
namespace model {

namespace {

bool identifier_start(uint8_t b) {
    return (b >= 'A' && b <= 'Z') || (b >= 'a' && b <= 'z') || b == '_';
}
bool identifier_part(uint8_t b) {
    return identifier_start(b) || (b >= '0' && b <= '9');
}

// Words that occur in every file: Python's and JavaScript's keywords and the commonest names.
const std::unordered_set<std::string_view>& common_words() {
    static const std::unordered_set<std::string_view> words = {
        "False",   "None",      "True",     "and",      "as",     "assert",  "async",  "await",
        "break",   "class",     "continue", "def",      "del",    "elif",    "else",   "except",
        "finally", "for",       "from",     "global",   "if",     "import",  "in",     "is",
        "lambda",  "nonlocal",  "not",      "or",       "pass",   "raise",   "return", "try",
        "while",   "with",      "yield",    "self",     "cls",    "print",   "len",    "range",
        "str",     "int",       "dict",     "list",     "set",    "tuple",   "match",  "case",
        "const",   "let",       "var",      "function", "new",    "this",    "typeof", "instanceof",
        "void",    "delete",    "switch",   "default",  "throw",  "catch",   "do",     "of",
        "null",    "undefined", "true",     "false",    "export", "extends", "super",  "static",
        "get"};
    return words;
}

Status check_reach(int64_t reach) {
    if (reach < 1)
        return Status::error("reach must be an integer >= 1, got " + std::to_string(reach));
    return Status();
}

// The classes of `count` units of text: unit_of[b] is the unit holding byte b (-1 for none);
// distances count units, and a unit takes the highest class of the identifiers it overlaps.
template <typename UnitOf>
void classify(std::string_view text, size_t count, UnitOf unit_of, int64_t reach,
              std::vector<uint8_t>* out) {
    out->assign(count, static_cast<uint8_t>(RecallClass::other));
    std::vector<Identifier> ids;
    identifiers(text, &ids);
    std::unordered_map<std::string_view, int64_t> last; // name -> unit of its latest occurrence
    for (const Identifier& id : ids) {
        const int64_t first = unit_of(id.start), last_unit = unit_of(id.end - 1);
        if (first < 0 || last_unit < 0) continue; // bytes no unit covers
        const std::string_view name =
            text.substr(static_cast<size_t>(id.start), static_cast<size_t>(id.end - id.start));
        auto prev = last.find(name);
        const RecallClass cls = prev == last.end()             ? RecallClass::first
                                : first - prev->second > reach ? RecallClass::far
                                                               : RecallClass::near;
        for (int64_t k = first; k <= last_unit; ++k)
            (*out)[k] = std::max((*out)[k], static_cast<uint8_t>(cls));
        last[name] = first;
    }
}

} // namespace

const std::vector<std::string>& recall_class_names() {
    static const std::vector<std::string> names = {"other", "first", "near", "far"};
    return names;
}

void identifiers(std::string_view text, std::vector<Identifier>* out) {
    out->clear();
    const auto* b = reinterpret_cast<const uint8_t*>(text.data());
    const size_t n = text.size();
    size_t i = 0;
    while (i < n) {
        if (!identifier_start(b[i]) || (i > 0 && identifier_part(b[i - 1]))) {
            ++i;
            continue;
        }
        size_t j = i + 1;
        while (j < n && identifier_part(b[j])) ++j;
        if (j - i > 1 && !common_words().count(text.substr(i, j - i)))
            out->push_back({static_cast<int64_t>(i), static_cast<int64_t>(j)});
        i = j;
    }
}

Status recall_classes(std::string_view text, int64_t reach, std::vector<uint8_t>* out) {
    Status s = check_reach(reach);
    if (!s.ok()) return s;
    classify(
        text, text.size(), [](int64_t b) { return b; }, reach, out);
    return Status();
}

Status token_recall_classes(std::string_view text, const std::vector<int64_t>& start,
                            const std::vector<int64_t>& end, int64_t reach,
                            std::vector<uint8_t>* out) {
    if (start.size() != end.size())
        return Status::error("start and end must have one entry per token");
    Status s = check_reach(reach);
    if (!s.ok()) return s;
    const int64_t n = static_cast<int64_t>(text.size());
    for (size_t k = 0; k < start.size(); ++k)
        if (!(start[k] >= 0 && start[k] <= end[k] && end[k] <= n))
            return Status::error("token " + std::to_string(k) + " spans [" +
                                 std::to_string(start[k]) + ", " + std::to_string(end[k]) +
                                 ") outside the " + std::to_string(n) + " bytes");
    std::vector<int64_t> token_of(text.size(), -1);
    for (size_t k = 0; k < start.size(); ++k)
        std::fill(token_of.begin() + start[k], token_of.begin() + end[k], static_cast<int64_t>(k));
    classify(
        text, start.size(), [&](int64_t b) { return token_of[b]; }, reach, out);
    return Status();
}

const char* evaluation_language(std::string_view name) {
    for (const char* ext : {".js", ".mjs", ".cjs"}) {
        const std::string_view e(ext);
        if (name.size() >= e.size() && name.substr(name.size() - e.size()) == e)
            return "javascript";
    }
    return "python";
}

Status window_offsets(int64_t units, int64_t length, int64_t per_file, std::vector<int64_t>* out) {
    if (units < 0) return Status::error("units must be >= 0, got " + std::to_string(units));
    if (length < 1)
        return Status::error("the window length must be >= 1, got " + std::to_string(length));
    const int64_t count = units / length;
    // w * count below stays exact in int64 (and the windows' list fits in memory).
    if (count > (int64_t{1} << 31))
        return Status::error("a file of " + std::to_string(units) + " units has more than 2^31 " +
                             "windows of " + std::to_string(length));
    const int64_t take = per_file < 0 ? count : std::min(count, per_file);
    out->clear();
    out->reserve(static_cast<size_t>(take));
    for (int64_t w = 0; w < take; ++w)
        out->push_back((take == count ? w : w * count / take) * length);
    return Status();
}

Status default_buckets(int64_t training_context, int64_t length, std::vector<int64_t>* edges) {
    if (training_context < 1)
        return Status::error("the training context must be >= 1, got " +
                             std::to_string(training_context));
    edges->assign({0, training_context});
    while (edges->back() < length) edges->push_back(std::min(length, edges->back() * 2));
    return Status();
}

Status window_sums(const float* losses, size_t count, const uint8_t* classes, size_t class_count,
                   const std::vector<int64_t>& edges, WindowSums* out) {
    if (edges.size() < 2) return Status::error("the bucket edges need at least two entries");
    for (size_t b = 1; b < edges.size(); ++b)
        if (edges[b] <= edges[b - 1]) return Status::error("the bucket edges must increase");
    if (class_count < count + 1)
        return Status::error("classes must have one entry per unit (" + std::to_string(count + 1) +
                             "), got " + std::to_string(class_count));
    if (count > 0 && static_cast<int64_t>(count) >= edges.back())
        return Status::error("position " + std::to_string(count) +
                             " is past the last bucket edge " + std::to_string(edges.back()));
    const size_t buckets = edges.size() - 1;
    out->bucket_sums.assign(buckets, 0.0);
    out->bucket_counts.assign(buckets, 0);
    std::fill(std::begin(out->class_sums), std::end(out->class_sums), 0.0);
    std::fill(std::begin(out->class_counts), std::end(out->class_counts), 0);
    size_t b = 0;
    for (size_t p = 1; p <= count; ++p) {
        while (static_cast<int64_t>(p) >= edges[b + 1]) ++b;
        const uint8_t cls = classes[p];
        if (cls >= kRecallClassCount)
            return Status::error("class " + std::to_string(cls) + " of unit " + std::to_string(p) +
                                 " is not a recall class");
        const double loss = losses[p - 1];
        out->bucket_sums[b] += loss;
        out->bucket_counts[b] += 1;
        out->class_sums[cls] += loss;
        out->class_counts[cls] += 1;
    }
    return Status();
}

Status preset_symbols(int64_t training_context, int64_t length, int64_t stride_divisor,
                      PresetSymbols* out) {
    const int64_t L = training_context;
    if (L < 1) return Status::error("the training context must be >= 1, got " + std::to_string(L));
    if (length < 1)
        return Status::error("the window length must be >= 1, got " + std::to_string(length));
    if (stride_divisor < 1)
        return Status::error("the truncate stride divisor must be >= 1, got " +
                             std::to_string(stride_divisor));
    out->training_context = L;
    out->window = L / 2;
    out->factor = static_cast<double>(length) / static_cast<double>(L);
    // ceil((length - W) / (L - W)) in integers; a window shorter than W still takes group 2.
    const int64_t usable = L - out->window, rest = length - out->window;
    const int64_t group = rest <= 0 ? 0 : (rest + usable - 1) / usable;
    out->self_extend_group = std::max<int64_t>(2, group);
    out->truncate_stride = truncate_stride(L, stride_divisor);
    return Status();
}

} // namespace model
} // namespace hirope
