// Hugging Face tokenizer.json: the reader. Parses the file (json.h, under TokenizerJsonLimits),
// walks its schema (added_tokens, normalizer, pre_tokenizer, model; truncation, padding,
// post_processor and decoder checked and ignored) and fills in the tokenizer it describes
// (tokenizer_json_bpe.h: the byte-level BPE family, GPT-2, Llama 3, Qwen 2/3, DeepSeek V3 ..., and
// the SentencePiece-style BPE of Gemma 3 and Llama 2 exports). Every field the format defines is
// either implemented or refused with an error naming it.
#include "tokenizers/tokenizer_json.h"

#include "tokenizers/json.h"
#include "tokenizers/tokenizer_json_bpe.h"
#include "tokenizers/unicode.h"
#include "tokenizers/unicode_props.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <unordered_map>

namespace hirope {

namespace {

using tokenizer_json::AddedToken;
using tokenizer_json::apply_op;
using tokenizer_json::Behavior;
using tokenizer_json::JsonBpe;
using tokenizer_json::Mapped;
using tokenizer_json::OpScratch;
using tokenizer_json::Step;
using tokenizer_json::TextOp;

const std::string kPrefix = "tokenizer.json: ";

Status fail(const std::string& message) {
    return Status::error(kPrefix + message);
}

// GPT-2's byte-to-unicode table: byte b is shown as code point byte_char[b].
struct ByteLevelTable {
    uint32_t byte_char[256];
    int16_t char_byte[324]; // the byte shown as code point cp (< 324), or -1
    ByteLevelTable() {
        int n = 0;
        for (int16_t& b : char_byte) b = -1;
        for (int b = 0; b < 256; ++b) {
            const bool printable =
                (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
            byte_char[b] = printable ? static_cast<uint32_t>(b) : static_cast<uint32_t>(256 + n++);
            char_byte[byte_char[b]] = static_cast<int16_t>(b);
        }
    }
    int byte_of(uint32_t cp) const { return cp < 324 ? char_byte[cp] : -1; }
};

// Decodes a byte-level string to raw bytes; false if it holds a character outside the table.
bool byte_level_decode(const ByteLevelTable& t, std::string_view s, std::string* out) {
    out->clear();
    for (size_t i = 0; i < s.size();) {
        size_t len;
        const uint32_t cp = unicode::decode(s, i, &len);
        if (cp == 0xFFFD && len == 1) return false;
        const int b = t.byte_of(cp);
        if (b < 0) return false;
        out->push_back(static_cast<char>(b));
        i += len;
    }
    return true;
}

// GPT-2's pattern, which ByteLevel applies when use_regex is true.
const char* const kGpt2Pattern =
    "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+";

// Field checking: each object may hold only the named keys.
Status only_keys(const json::Document& d, uint32_t obj, const std::string& where,
                 std::initializer_list<const char*> keys) {
    for (uint32_t k = d.first(obj); k != d.end(obj); k = d.next(d.next(k))) {
        bool known = false;
        for (const char* key : keys)
            if (d.equals(k, key)) known = true;
        if (!known) return fail(where + ": the field '" + d.string(k) + "' is not supported");
    }
    return {};
}

Status expect_type(const json::Document& d, uint32_t v, json::Type t, const std::string& where) {
    if (v == json::Document::none) return fail(where + " is missing");
    if (d.type(v) != t)
        return fail(where + " must be " + json::type_name(t) + ", not " +
                    json::type_name(d.type(v)));
    return {};
}

// An optional boolean field (absent or null: def).
Status get_bool(const json::Document& d, uint32_t obj, const char* key, const std::string& where,
                bool def, bool* out) {
    const uint32_t v = d.find(obj, key);
    *out = def;
    if (v == json::Document::none || d.type(v) == json::Type::null) return {};
    if (d.type(v) != json::Type::boolean)
        return fail(where + "." + key + " must be a boolean, not " + json::type_name(d.type(v)));
    *out = d.boolean(v);
    return {};
}

std::string type_of(const json::Document& d, uint32_t obj) {
    const uint32_t t = d.find(obj, "type");
    return t != json::Document::none && d.type(t) == json::Type::string ? d.string(t) : "";
}

Status parse_step(const json::Document& d, uint32_t v, const std::string& where,
                  const TokenizerJsonLimits& limits, Step* st) {
    Status s = expect_type(d, v, json::Type::object, where);
    if (!s.ok()) return s;
    const std::string type = type_of(d, v);
    if (type == "ByteLevel") {
        s = only_keys(d, v, where, {"type", "add_prefix_space", "trim_offsets", "use_regex"});
        if (!s.ok()) return s;
        st->kind = Step::byte_level;
        bool trim;
        if (!(s = get_bool(d, v, "add_prefix_space", where, true, &st->add_prefix_space)).ok() ||
            !(s = get_bool(d, v, "trim_offsets", where, true, &trim)).ok() ||
            !(s = get_bool(d, v, "use_regex", where, true, &st->use_regex)).ok())
            return s;
        if (st->use_regex) {
            s = regex::Regex::compile(kGpt2Pattern, &st->re);
            if (!s.ok()) return fail(s.message());
        }
        return {};
    }
    if (type == "Split") {
        s = only_keys(d, v, where, {"type", "pattern", "behavior", "invert"});
        if (!s.ok()) return s;
        const uint32_t pat = d.find(v, "pattern");
        if (!(s = expect_type(d, pat, json::Type::object, where + ".pattern")).ok()) return s;
        if (d.node(pat).len != 1) return fail(where + ".pattern must hold one of Regex or String");
        const uint32_t key = d.first(pat), val = d.next(key);
        if (!(s = expect_type(d, val, json::Type::string, where + ".pattern." + d.string(key)))
                 .ok())
            return s;
        const std::string text = d.string(val);
        if (text.size() > limits.max_pattern_bytes)
            return fail(where + ".pattern is longer than " +
                        std::to_string(limits.max_pattern_bytes) + " bytes");
        if (d.equals(key, "Regex")) {
            st->kind = Step::split_regex;
            s = regex::Regex::compile(text, &st->re);
            if (!s.ok()) return fail(where + ".pattern: " + s.message());
        } else if (d.equals(key, "String")) {
            if (text.empty()) return fail(where + ".pattern.String is empty");
            st->kind = Step::split_string;
            st->literal = text;
        } else {
            return fail(where + ".pattern type '" + d.string(key) + "' is not supported");
        }
        const uint32_t b = d.find(v, "behavior");
        if (!(s = expect_type(d, b, json::Type::string, where + ".behavior")).ok()) return s;
        const std::string bs = d.string(b);
        if (bs == "Removed")
            st->behavior = Behavior::removed;
        else if (bs == "Isolated")
            st->behavior = Behavior::isolated;
        else if (bs == "MergedWithPrevious")
            st->behavior = Behavior::merged_with_previous;
        else if (bs == "MergedWithNext")
            st->behavior = Behavior::merged_with_next;
        else if (bs == "Contiguous")
            st->behavior = Behavior::contiguous;
        else
            return fail(where + ".behavior '" + bs + "' is not supported");
        return get_bool(d, v, "invert", where, false, &st->invert);
    }
    if (type == "Digits") {
        s = only_keys(d, v, where, {"type", "individual_digits"});
        if (!s.ok()) return s;
        st->kind = Step::digits;
        return get_bool(d, v, "individual_digits", where, false, &st->individual_digits);
    }
    if (type.empty()) return fail(where + " has no type");
    return fail("pre_tokenizer type '" + type + "' is not supported");
}

// One normalizer step (not a Sequence), appended to ops; anything else is an error naming it.
Status parse_one_normalizer(const json::Document& d, uint32_t v, const std::string& where,
                            const TokenizerJsonLimits& limits, std::vector<TextOp>* ops) {
    const std::string type = type_of(d, v);
    static const std::pair<const char*, TextOp::Kind> plain[] = {
        {"NFC", TextOp::nfc},
        {"NFD", TextOp::nfd},
        {"NFKC", TextOp::nfkc},
        {"NFKD", TextOp::nfkd},
        {"Lowercase", TextOp::lowercase},
        {"StripAccents", TextOp::strip_accents}};
    for (const auto& [name, kind] : plain)
        if (type == name) {
            TextOp op;
            op.kind = kind;
            ops->push_back(std::move(op));
            return only_keys(d, v, where, {"type"});
        }
    Status s;
    if (type == "Strip") {
        if (!(s = only_keys(d, v, where, {"type", "strip_left", "strip_right"})).ok()) return s;
        TextOp op;
        op.kind = TextOp::strip;
        if (!(s = get_bool(d, v, "strip_left", where, false, &op.left)).ok() ||
            !(s = get_bool(d, v, "strip_right", where, false, &op.right)).ok())
            return s;
        ops->push_back(std::move(op));
        return {};
    }
    if (type == "Prepend") {
        if (!(s = only_keys(d, v, where, {"type", "prepend"})).ok()) return s;
        const uint32_t p = d.find(v, "prepend");
        if (!(s = expect_type(d, p, json::Type::string, where + ".prepend")).ok()) return s;
        TextOp op = TextOp::make_prepend(d.string(p));
        // One character at most (U+2581 in the real files): each section gets it, so a longer
        // one would let a small input take many tokens (the encode heap bound counts on it).
        size_t len = 0;
        if (!op.content.empty() && (unicode::decode(op.content, 0, &len), len) != op.content.size())
            return fail(where + ".prepend must be one character");
        ops->push_back(std::move(op));
        return {};
    }
    if (type == "Replace") {
        if (!(s = only_keys(d, v, where, {"type", "pattern", "content"})).ok()) return s;
        const uint32_t pat = d.find(v, "pattern"), content = d.find(v, "content");
        if (!(s = expect_type(d, pat, json::Type::object, where + ".pattern")).ok()) return s;
        if (d.node(pat).len != 1) return fail(where + ".pattern must hold one of String or Regex");
        const uint32_t key = d.first(pat), str = d.next(key);
        const bool is_regex = d.equals(key, "Regex");
        if (!is_regex && !d.equals(key, "String"))
            return fail(where + ".pattern type '" + d.string(key) + "' is not supported");
        if (!(s = expect_type(d, str, json::Type::string, where + ".pattern." + d.string(key)))
                 .ok())
            return s;
        if (!(s = expect_type(d, content, json::Type::string, where + ".content")).ok()) return s;
        TextOp op = TextOp::make_replace(d.string(str), d.string(content));
        if (op.pattern.empty()) return fail(where + ".pattern." + d.string(key) + " is empty");
        if (op.pattern.size() > (is_regex ? limits.max_pattern_bytes : limits.max_token_bytes) ||
            op.content.size() > limits.max_token_bytes)
            return fail(where + " is longer than " + std::to_string(limits.max_token_bytes) +
                        " bytes");
        // JavaScript's replaceAll reads $$, $&, $`, $', $1 and $<name> in the content; Rust's
        // tokenizers does not: the two references disagree, so refuse.
        for (size_t k = op.content.find('$'); k != std::string::npos && k + 1 < op.content.size();
             k = op.content.find('$', k + 1))
            if (std::strchr("$&`'<0123456789", op.content[k + 1]))
                return fail(where + ".content holds '" + op.content.substr(k, 2) +
                            "', which the references read differently");
        if (is_regex) {
            op.kind = TextOp::replace_regex;
            s = regex::Regex::compile(op.pattern, &op.re);
            if (!s.ok()) return fail(where + ".pattern: " + s.message());
            // The content must not grow the text by more than 4 per byte of a match; a regex
            // match is at least one character, so content is bounded by 4 bytes.
            if (op.content.size() > 4)
                return fail(where + ".content is longer than 4 bytes (with a Regex pattern)");
        } else if (op.content.size() > 4 * op.pattern.size()) {
            // Offsets stay exact only if the content grows the text by a bounded factor.
            return fail(where + ".content is more than 4 times longer than its pattern");
        }
        ops->push_back(std::move(op));
        return {};
    }
    if (type.empty()) return fail(where + " has no type");
    return fail("normalizer type '" + type + "' is not supported");
}

// The normalizer: null, one step, or a Sequence of steps and Sequences. Nested Sequences are
// walked with an explicit stack (never recursion): at most max_pre_tokenizers steps in all and
// Sequences nested at most that deep.
Status parse_normalizer(const json::Document& d, uint32_t v, const TokenizerJsonLimits& limits,
                        std::vector<TextOp>* ops) {
    ops->clear();
    if (v == json::Document::none || d.type(v) == json::Type::null) return {};
    struct Frame {
        uint32_t list, next;
        size_t index;
        std::string where;
    };
    std::vector<Frame> stack;
    auto visit = [&](uint32_t node, const std::string& where) -> Status {
        Status s = expect_type(d, node, json::Type::object, where);
        if (!s.ok()) return s;
        if (type_of(d, node) != "Sequence") {
            if (ops->size() >= limits.max_pre_tokenizers)
                return fail("normalizer has more than " +
                            std::to_string(limits.max_pre_tokenizers) + " steps");
            return parse_one_normalizer(d, node, where, limits, ops);
        }
        if (!(s = only_keys(d, node, where, {"type", "normalizers"})).ok()) return s;
        const uint32_t list = d.find(node, "normalizers");
        if (!(s = expect_type(d, list, json::Type::array, where + ".normalizers")).ok()) return s;
        if (d.node(list).len > limits.max_pre_tokenizers)
            return fail(where + ".normalizers has more than " +
                        std::to_string(limits.max_pre_tokenizers) + " steps");
        if (stack.size() >= limits.max_pre_tokenizers)
            return fail(where + ": Sequences nested more than " +
                        std::to_string(limits.max_pre_tokenizers) + " deep");
        stack.push_back({list, d.first(list), 0, where + ".normalizers"});
        return {};
    };
    Status s = visit(v, "normalizer");
    while (s.ok() && !stack.empty()) {
        Frame& f = stack.back();
        if (f.next == d.end(f.list)) {
            stack.pop_back();
            continue;
        }
        const uint32_t c = f.next;
        f.next = d.next(c);
        const std::string where = f.where + "[" + std::to_string(f.index++) + "]";
        s = visit(c, where); // may push: f is not used after this
    }
    return s;
}

// post_processor and decoder: ignored for encoding (hirope adds no special tokens), but they
// must be null or of a type the format defines.
Status check_known(const json::Document& d, uint32_t v, const char* field,
                   std::initializer_list<const char*> types) {
    if (v == json::Document::none || d.type(v) == json::Type::null) return {};
    Status s = expect_type(d, v, json::Type::object, field);
    if (!s.ok()) return s;
    const std::string type = type_of(d, v);
    for (const char* t : types)
        if (type == t) return {};
    return fail(std::string(field) + " type '" + type + "' is not supported");
}

} // namespace

Status load_tokenizer_json(std::string_view text, std::string name,
                           const TokenizerJsonLimits& limits, std::unique_ptr<Vocabulary>* out) {
    out->reset();
    json::Document d;
    json::Limits jl;
    jl.max_bytes = limits.max_json_bytes;
    jl.max_depth = limits.max_json_depth;
    jl.max_nodes = limits.max_json_values;
    Status s = d.parse(text, jl);
    if (!s.ok()) return s;
    const uint32_t root = json::Document::root;
    if (!(s = expect_type(d, root, json::Type::object, "the top level")).ok()) return s;
    if (!(s = only_keys(d, root, "the top level",
                        {"version", "truncation", "padding", "added_tokens", "normalizer",
                         "pre_tokenizer", "model", "post_processor", "decoder"}))
             .ok())
        return s;
    for (const char* field : {"truncation", "padding"}) {
        const uint32_t v = d.find(root, field);
        if (v != json::Document::none && d.type(v) != json::Type::null)
            return fail(std::string(field) + " is not supported (it must be null)");
    }
    auto bpe = std::make_unique<JsonBpe>();
    bpe->name_ = std::move(name);
    // The family: byte-level BPE when the pre-tokenizer has a ByteLevel step, else the
    // SentencePiece family (BPE over characters, byte fallback, Metaspace or Replace/Prepend).
    {
        const uint32_t pt = d.find(root, "pre_tokenizer");
        bool byte_level = false;
        if (pt != json::Document::none && d.type(pt) == json::Type::object) {
            if (type_of(d, pt) == "ByteLevel") byte_level = true;
            const uint32_t list = d.find(pt, "pretokenizers");
            if (type_of(d, pt) == "Sequence" && list != json::Document::none &&
                d.type(list) == json::Type::array)
                for (uint32_t c = d.first(list); c != d.end(list); c = d.next(c))
                    if (d.type(c) == json::Type::object && type_of(d, c) == "ByteLevel")
                        byte_level = true;
        }
        bpe->spm_ = !byte_level;
    }

    // model
    const uint32_t model = d.find(root, "model");
    if (!(s = expect_type(d, model, json::Type::object, "model")).ok()) return s;
    const std::string model_type = type_of(d, model);
    if (model_type != "BPE")
        return fail("model type '" + (model_type.empty() ? std::string("?") : model_type) +
                    "' is not supported (only BPE)");
    if (!(s = only_keys(d, model, "model",
                        {"type", "dropout", "unk_token", "continuing_subword_prefix",
                         "end_of_word_suffix", "fuse_unk", "byte_fallback", "ignore_merges",
                         "vocab", "merges"}))
             .ok())
        return s;
    {
        const uint32_t v = d.find(model, "dropout");
        if (v != json::Document::none && d.type(v) != json::Type::null &&
            !(d.type(v) == json::Type::number && d.number(v) == 0))
            return fail("model.dropout is not supported (it must be null)");
        for (const char* field : {"continuing_subword_prefix", "end_of_word_suffix"}) {
            const uint32_t f = d.find(model, field);
            if (f != json::Document::none && d.type(f) != json::Type::null &&
                !(d.type(f) == json::Type::string && d.node(f).len == 0))
                return fail(std::string("model.") + field +
                            " is not supported (it must be null or empty)");
        }
        bool byte_fallback, fuse_unk;
        if (!(s = get_bool(d, model, "byte_fallback", "model", false, &byte_fallback)).ok() ||
            !(s = get_bool(d, model, "fuse_unk", "model", false, &fuse_unk)).ok() ||
            !(s = get_bool(d, model, "ignore_merges", "model", false, &bpe->ignore_merges_)).ok())
            return s;
        if (byte_fallback && !bpe->spm_)
            return fail("model.byte_fallback true is not supported with a ByteLevel pre-tokenizer");
        bpe->byte_fallback_ = byte_fallback;
        bpe->fuse_unk_ = fuse_unk;
    }
    const uint32_t vocab = d.find(model, "vocab");
    if (!(s = expect_type(d, vocab, json::Type::object, "model.vocab")).ok()) return s;
    if (d.node(vocab).len > limits.max_vocab)
        return fail("model.vocab has " + std::to_string(d.node(vocab).len) +
                    " entries, more than the limit of " + std::to_string(limits.max_vocab));
    const uint32_t merges = d.find(model, "merges");
    if (!(s = expect_type(d, merges, json::Type::array, "model.merges")).ok()) return s;
    if (d.node(merges).len > limits.max_merges)
        return fail("model.merges has " + std::to_string(d.node(merges).len) +
                    " entries, more than the limit of " + std::to_string(limits.max_merges));
    const uint32_t added = d.find(root, "added_tokens");
    size_t added_count = 0;
    if (added != json::Document::none && d.type(added) != json::Type::null) {
        if (!(s = expect_type(d, added, json::Type::array, "added_tokens")).ok()) return s;
        added_count = d.node(added).len;
        if (added_count > limits.max_added_tokens)
            return fail("added_tokens has " + std::to_string(added_count) +
                        " entries, more than the limit of " +
                        std::to_string(limits.max_added_tokens));
    }

    // Ids: the model vocabulary and the added tokens share one id space.
    const ByteLevelTable blt;
    int32_t max_id = -1;
    for (uint32_t k = d.first(vocab); k != d.end(vocab); k = d.next(d.next(k))) {
        int32_t id;
        if (!d.index(d.next(k), &id))
            return fail("model.vocab['" + d.string(k) + "'] must be a non-negative integer id");
        if (static_cast<size_t>(id) >= limits.max_vocab)
            return fail("model.vocab['" + d.string(k) + "'] has the id " + std::to_string(id) +
                        ", above the limit of " + std::to_string(limits.max_vocab - 1));
        if (d.node(k).len > limits.max_token_bytes)
            return fail("model.vocab has an entry longer than " +
                        std::to_string(limits.max_token_bytes) + " bytes");
        max_id = std::max(max_id, id);
    }
    std::vector<std::string> contents(added_count);
    std::vector<int32_t> added_ids(added_count);
    {
        size_t k = 0;
        for (uint32_t t = added_count ? d.first(added) : 0; k < added_count; t = d.next(t), ++k) {
            const std::string where = "added_tokens[" + std::to_string(k) + "]";
            if (!(s = expect_type(d, t, json::Type::object, where)).ok()) return s;
            if (!(s = only_keys(d, t, where,
                                {"id", "content", "single_word", "lstrip", "rstrip", "normalized",
                                 "special"}))
                     .ok())
                return s;
            const uint32_t id = d.find(t, "id"), content = d.find(t, "content");
            if (id == json::Document::none || !d.index(id, &added_ids[k]))
                return fail(where + ".id must be a non-negative integer");
            if (static_cast<size_t>(added_ids[k]) >= limits.max_vocab)
                return fail(where + ".id is above the limit of " +
                            std::to_string(limits.max_vocab - 1));
            if (!(s = expect_type(d, content, json::Type::string, where + ".content")).ok())
                return s;
            contents[k] = d.string(content);
            if (contents[k].empty()) return fail(where + ".content is empty");
            if (contents[k].size() > limits.max_token_bytes)
                return fail(where + ".content is longer than " +
                            std::to_string(limits.max_token_bytes) + " bytes");
            max_id = std::max(max_id, added_ids[k]);
        }
    }
    if (max_id < 0) return fail("model.vocab is empty");

    // Token bytes by id: vocabulary entries decoded from the byte-level alphabet (entries
    // outside it, such as special tokens kept in the vocabulary, as their text: BPE never
    // produces them), added tokens as their content.
    std::vector<std::string> by_id(static_cast<size_t>(max_id) + 1);
    std::vector<char> has_id(by_id.size(), 0), decodable(by_id.size(), 0);
    std::string bytes;
    for (uint32_t k = d.first(vocab); k != d.end(vocab); k = d.next(d.next(k))) {
        int32_t id;
        d.index(d.next(k), &id);
        if (has_id[id])
            return fail("model.vocab gives the id " + std::to_string(id) + " to two entries");
        has_id[id] = 1;
        const std::string str = d.string(k);
        if (bpe->spm_) {
            by_id[id] = str;
            decodable[id] = 1;
        } else if (byte_level_decode(blt, str, &bytes)) {
            by_id[id] = bytes;
            decodable[id] = 1;
        } else {
            by_id[id] = str;
        }
    }
    {
        std::unordered_map<std::string, int32_t> seen;
        std::unordered_map<int32_t, size_t> seen_ids;
        for (size_t k = 0; k < added_count; ++k) {
            const int32_t id = added_ids[k];
            auto it = seen.find(contents[k]);
            if (it != seen.end() && it->second != id)
                return fail("added_tokens: '" + contents[k] + "' has two ids (" +
                            std::to_string(it->second) + " and " + std::to_string(id) + ")");
            auto jt = seen_ids.find(id);
            if (jt != seen_ids.end() && contents[jt->second] != contents[k])
                return fail("added_tokens: the id " + std::to_string(id) +
                            " is given to two contents");
            seen.emplace(contents[k], id);
            seen_ids.emplace(id, k);
            by_id[id] = contents[k];
            has_id[id] = 1;
            // An added token is matched as text, never produced by byte-level BPE; in the
            // SentencePiece family it is in the model's table, as the reference has it.
            decodable[id] = bpe->spm_ ? 1 : 0;
        }
    }
    bpe->offset_.reserve(by_id.size() + 1);
    bpe->offset_.push_back(0);
    size_t total = 0;
    for (const std::string& b : by_id) total += b.size();
    bpe->arena_.reserve(total);
    for (const std::string& b : by_id) {
        bpe->arena_.append(b);
        bpe->offset_.push_back(static_cast<uint32_t>(bpe->arena_.size()));
    }
    by_id.clear();
    by_id.shrink_to_fit();
    bpe->by_bytes_.bind(&bpe->arena_, &bpe->offset_);
    bpe->by_bytes_.reserve(bpe->offset_.size());
    for (size_t id = 0; id + 1 < bpe->offset_.size(); ++id)
        if (decodable[id]) bpe->by_bytes_.insert(static_cast<int32_t>(id), false);
    if (bpe->spm_) // the reference's tokens_to_ids: an added token's content maps to its id
        for (size_t k = 0; k < added_count; ++k) bpe->by_bytes_.insert(added_ids[k], true);
    for (int b = 0; b < 256 && bpe->spm_; ++b) {
        static const char hex[] = "0123456789ABCDEF";
        const char token[] = {'<', '0', 'x', hex[b >> 4], hex[b & 15], '>'};
        auto it = bpe->by_bytes_.find(std::string_view(token, sizeof token));
        bpe->byte_token_[b] = it == bpe->by_bytes_.end() ? -1 : it->second;
    }
    for (int b = 0; b < 256 && !bpe->spm_; ++b) {
        const char c = static_cast<char>(b);
        auto it = bpe->by_bytes_.find(std::string_view(&c, 1));
        if (it == bpe->by_bytes_.end())
            return fail("model.vocab lacks the byte-level token of byte " + std::to_string(b) +
                        " (this loader reads byte-level BPE only)");
        bpe->byte_id_[b] = it->second;
    }
    {
        const uint32_t unk = d.find(model, "unk_token");
        if (unk != json::Document::none && d.type(unk) != json::Type::null) {
            if (d.type(unk) != json::Type::string)
                return fail("model.unk_token must be a string or null");
            if (bpe->spm_) {
                auto it = bpe->by_bytes_.find(d.string(unk));
                if (it == bpe->by_bytes_.end())
                    return fail("model.unk_token '" + d.string(unk) + "' is not in the vocabulary");
                bpe->unk_id_ = it->second;
            }
            // Every byte has a token, so the unknown token is never used.
        }
    }

    // Merges: "a b" or ["a", "b"], ranked by position; both parts and the result must be
    // in the vocabulary (as the reference requires).
    bpe->merges_.reserve(d.node(merges).len);
    {
        int32_t rank = 0;
        std::string a, b, joined;
        for (uint32_t m = d.first(merges); m != d.end(merges); m = d.next(m), ++rank) {
            const std::string where = "model.merges[" + std::to_string(rank) + "]";
            std::string left, right;
            if (d.type(m) == json::Type::string) {
                const std::string line = d.string(m);
                const size_t sp = line.find(' ');
                if (sp == std::string::npos || line.find(' ', sp + 1) != std::string::npos)
                    return fail(where + " must be two tokens separated by one space");
                left = line.substr(0, sp);
                right = line.substr(sp + 1);
            } else if (d.type(m) == json::Type::array && d.node(m).len == 2 &&
                       d.type(d.first(m)) == json::Type::string &&
                       d.type(d.next(d.first(m))) == json::Type::string) {
                left = d.string(d.first(m));
                right = d.string(d.next(d.first(m)));
            } else {
                return fail(where + " must be a string or an array of two strings");
            }
            int32_t ids[3];
            const std::string* parts[2] = {&left, &right};
            for (int k = 0; k < 2; ++k) {
                if (bpe->spm_)
                    bytes = *parts[k];
                else if (!byte_level_decode(blt, *parts[k], &bytes))
                    return fail(where + ": '" + *parts[k] + "' is not in the vocabulary");
                auto it = bpe->by_bytes_.find(bytes);
                if (it == bpe->by_bytes_.end())
                    return fail(where + ": '" + *parts[k] + "' is not in the vocabulary");
                ids[k] = it->second;
                (k == 0 ? a : b) = bytes;
            }
            joined = a + b;
            auto it = bpe->by_bytes_.find(joined);
            if (it == bpe->by_bytes_.end())
                return fail(where + ": the merge result '" + left + right +
                            "' is not in the vocabulary");
            ids[2] = it->second;
            bpe->merges_.insert(ids[0], ids[1], rank, ids[2]);
        }
    }

    // normalizer, pre_tokenizer, post_processor, decoder
    if (!(s = parse_normalizer(d, d.find(root, "normalizer"), limits, &bpe->norm_ops_)).ok())
        return s;
    if (!bpe->spm_ && bpe->norm_ops_.size() == 1 && bpe->norm_ops_[0].kind == TextOp::nfc) {
        bpe->nfc_ = true; // NFC alone: its own path, no offset map (Qwen 2/3)
        bpe->norm_ops_.clear();
    }
    {
        // The encode heap bound grows with the most bytes the normalizer can make of one byte
        // (Replace and Prepend are within the base bound).
        double growth = 1;
        for (const TextOp& op : bpe->norm_ops_) {
            if (op.kind == TextOp::nfc || op.kind == TextOp::nfd)
                growth *= unicode::max_growth(unicode::Form::nfd);
            else if (op.kind == TextOp::nfkc || op.kind == TextOp::nfkd)
                growth *= unicode::max_growth(unicode::Form::nfkd);
            else if (op.kind == TextOp::lowercase)
                growth *= unicode::lower_max_growth();
        }
        bpe->heap_per_byte_ = static_cast<size_t>(
            std::ceil(static_cast<double>(kTokenizerJsonEncodeBytesPerByte) * growth));
    }
    {
        const uint32_t pt = d.find(root, "pre_tokenizer");
        const bool none = pt == json::Document::none || d.type(pt) == json::Type::null;
        if (!none && !(s = expect_type(d, pt, json::Type::object, "pre_tokenizer")).ok()) return s;
        if (none) {
            // SentencePiece family: the whole section is one piece.
        } else if (bpe->spm_ && type_of(d, pt) == "Metaspace") {
            if (!(s = only_keys(d, pt, "pre_tokenizer",
                                {"type", "replacement", "prepend_scheme", "split"}))
                     .ok())
                return s;
            const uint32_t r = d.find(pt, "replacement");
            bpe->ms_replacement_ = "\xE2\x96\x81"; // U+2581, the reference's default
            if (r != json::Document::none) {
                if (!(s = expect_type(d, r, json::Type::string, "pre_tokenizer.replacement")).ok())
                    return s;
                bpe->ms_replacement_ = d.string(r);
                size_t len = 0;
                if (bpe->ms_replacement_.empty() || (unicode::decode(bpe->ms_replacement_, 0, &len),
                                                     len) != bpe->ms_replacement_.size())
                    return fail("pre_tokenizer.replacement must be one character");
            }
            const uint32_t ps = d.find(pt, "prepend_scheme");
            if (ps != json::Document::none) {
                if (!(s = expect_type(d, ps, json::Type::string, "pre_tokenizer.prepend_scheme"))
                         .ok())
                    return s;
                const std::string v = d.string(ps);
                if (v == "never")
                    bpe->ms_prepend_ = 0;
                else if (v == "first")
                    bpe->ms_prepend_ = 1;
                else if (v == "always")
                    bpe->ms_prepend_ = 2;
                else
                    return fail("pre_tokenizer.prepend_scheme '" + v + "' is not supported");
            }
            if (!(s = get_bool(d, pt, "split", "pre_tokenizer", true, &bpe->ms_split_)).ok())
                return s;
            bpe->metaspace_ = true;
        } else if (type_of(d, pt) == "Sequence") {
            if (!(s = only_keys(d, pt, "pre_tokenizer", {"type", "pretokenizers"})).ok()) return s;
            const uint32_t list = d.find(pt, "pretokenizers");
            if (!(s = expect_type(d, list, json::Type::array, "pre_tokenizer.pretokenizers")).ok())
                return s;
            if (d.node(list).len > limits.max_pre_tokenizers)
                return fail("pre_tokenizer.pretokenizers has more than " +
                            std::to_string(limits.max_pre_tokenizers) + " steps");
            size_t k = 0;
            for (uint32_t c = d.first(list); c != d.end(list); c = d.next(c), ++k) {
                Step st;
                s = parse_step(d, c, "pre_tokenizer.pretokenizers[" + std::to_string(k) + "]",
                               limits, &st);
                if (!s.ok()) return s;
                bpe->steps_.push_back(std::move(st));
            }
        } else {
            Step st;
            if (!(s = parse_step(d, pt, "pre_tokenizer", limits, &st)).ok()) return s;
            bpe->steps_.push_back(std::move(st));
        }
        size_t byte_levels = 0;
        for (const Step& st : bpe->steps_) byte_levels += st.kind == Step::byte_level;
        if (!bpe->spm_ && (byte_levels != 1 || bpe->steps_.back().kind != Step::byte_level))
            return fail("pre_tokenizer must end with one ByteLevel step (and hold no other)");
    }
    if (!(s = check_known(d, d.find(root, "post_processor"), "post_processor",
                          {"ByteLevel", "TemplateProcessing", "RobertaProcessing", "BertProcessing",
                           "Sequence"}))
             .ok())
        return s;
    if (!(s = check_known(d, d.find(root, "decoder"), "decoder",
                          {"ByteLevel", "Sequence", "Replace", "Fuse", "Strip", "ByteFallback",
                           "Metaspace", "BPEDecoder", "WordPiece", "CTC"}))
             .ok())
        return s;

    // Added tokens: those with normalized false are matched before normalization, the others
    // after it (in their normalized form). Without a normalizer, one stage, as the reference.
    {
        size_t k = 0;
        for (uint32_t t = added_count ? d.first(added) : 0; k < added_count; t = d.next(t), ++k) {
            const std::string where = "added_tokens[" + std::to_string(k) + "]";
            bool special, single_word, normalized;
            AddedToken tok{added_ids[k], contents[k], false, false, false};
            if (!(s = get_bool(d, t, "special", where, false, &special)).ok() ||
                !(s = get_bool(d, t, "single_word", where, false, &single_word)).ok() ||
                !(s = get_bool(d, t, "lstrip", where, false, &tok.lstrip)).ok() ||
                !(s = get_bool(d, t, "rstrip", where, false, &tok.rstrip)).ok() ||
                !(s = get_bool(d, t, "normalized", where, !special, &normalized)).ok())
                return s;
            tok.special = special;
            if (single_word) return fail(where + ".single_word true is not supported");
            const bool second_stage = normalized &&
                                      d.find(root, "normalizer") != json::Document::none &&
                                      d.type(d.find(root, "normalizer")) != json::Type::null;
            if (second_stage && bpe->nfc_) {
                std::string norm;
                std::vector<unicode::NfcChange> changes;
                if (unicode::nfc(tok.content, &norm, &changes)) tok.content = norm;
            }
            if (second_stage && !bpe->norm_ops_.empty()) {
                Mapped m, tmp;
                OpScratch sc;
                m.text = tok.content;
                m.from.assign(m.text.size(), 0);
                for (const TextOp& op : bpe->norm_ops_) apply_op(op, &m, &tmp, &sc);
                tok.content = m.text;
            }
            bpe->added_.push_back(tok);
            const int32_t index = static_cast<int32_t>(bpe->added_.size() - 1);
            (second_stage ? bpe->stage2_ : bpe->stage1_).insert(tok.content, index);
        }
    }
    if (bpe->spm_) {
        // Decoded token bytes: the replacement character (Metaspace's, or what a Replace
        // normalizer puts for a space) as a space, <0xNN> as the byte.
        std::string space_char = bpe->ms_replacement_;
        for (const TextOp& op : bpe->norm_ops_)
            if (op.kind == TextOp::replace && op.pattern == " ") space_char = op.content;
        std::vector<char> is_byte(bpe->size(), 0);
        for (int b = 0; b < 256; ++b)
            if (bpe->byte_token_[b] >= 0) is_byte[bpe->byte_token_[b]] = 1;
        bpe->dec_arena_.reserve(bpe->arena_.size());
        bpe->dec_offset_.reserve(bpe->offset_.size());
        bpe->dec_offset_.push_back(0);
        for (size_t id = 0; id < bpe->size(); ++id) {
            const std::string_view t(bpe->arena_.data() + bpe->offset_[id],
                                     bpe->offset_[id + 1] - bpe->offset_[id]);
            if (is_byte[id]) {
                static const std::string hex = "0123456789ABCDEF";
                bpe->dec_arena_.push_back(static_cast<char>(hex.find(t[3]) * 16 + hex.find(t[4])));
            } else if (!space_char.empty()) {
                for (size_t i = 0; i < t.size();) {
                    if (t.compare(i, space_char.size(), space_char) == 0) {
                        bpe->dec_arena_.push_back(' ');
                        i += space_char.size();
                    } else {
                        bpe->dec_arena_.push_back(t[i++]);
                    }
                }
            } else {
                bpe->dec_arena_.append(t);
            }
            bpe->dec_offset_.push_back(static_cast<uint32_t>(bpe->dec_arena_.size()));
        }
        bpe->small_char_id_.assign(JsonBpe::kSmallChars, JsonBpe::kUnknown);
        for (uint32_t cp = 0; cp < JsonBpe::kSmallChars; ++cp) {
            char buf[2];
            size_t n = 1;
            if (cp < 0x80) {
                buf[0] = static_cast<char>(cp);
            } else {
                buf[0] = static_cast<char>(0xC0 | (cp >> 6));
                buf[1] = static_cast<char>(0x80 | (cp & 0x3F));
                n = 2;
            }
            auto it = bpe->by_bytes_.find(std::string_view(buf, n));
            if (it != bpe->by_bytes_.end()) bpe->small_char_id_[cp] = it->second;
        }
    }
    *out = std::move(bpe);
    return {};
}

Status load_tokenizer_json(std::string_view json, std::string name,
                           std::unique_ptr<Vocabulary>* out) {
    return load_tokenizer_json(json, std::move(name), TokenizerJsonLimits(), out);
}

} // namespace hirope
