// libFuzzer: the tokenizer.json loader (load_tokenizer_json) on arbitrary bytes. The input is
// the JSON, optionally followed by a NUL byte and a text to encode (else a fixed snippet of
// code). A file must either load or fail with a Status; if it loads, encoding keeps the token
// invariants (in order, inside the text, ids in the vocabulary), is deterministic, and for the
// configurations that cannot change the text (no normalizer, no unknown token, no stripping
// added tokens, no prefix space, no Metaspace) every token's bytes are the text it covers and
// the tokens cover the text exactly. Limits are smaller than the defaults so that a tiny input
// cannot ask for the defaults' (legitimate) 2^21 ids; they are still checked before allocating.
#include "fuzz_common.h"
#include "tokenizers/json.h"
#include "tokenizers/tokenizer_json.h"

#include <cstring>
#include <string>
#include <string_view>

namespace {

bool is_null(const hirope::json::Document& d, uint32_t v) {
    return v == hirope::json::Document::none || d.type(v) == hirope::json::Type::null;
}

bool is_false(const hirope::json::Document& d, uint32_t obj, const char* key) {
    const uint32_t v = d.find(obj, key);
    return v != hirope::json::Document::none && d.type(v) == hirope::json::Type::boolean &&
           !d.boolean(v);
}

// Whether the loaded tokenizer must reproduce its input byte for byte, token by token.
bool exact(std::string_view json) {
    using namespace hirope::json;
    Document d;
    if (!d.parse(json).ok() || d.type(Document::root) != Type::object) return false;
    const uint32_t root = Document::root;
    if (!is_null(d, d.find(root, "normalizer"))) return false;
    const uint32_t model = d.find(root, "model");
    if (model == Document::none || !is_null(d, d.find(model, "unk_token"))) return false;
    const uint32_t added = d.find(root, "added_tokens");
    if (!is_null(d, added) && d.type(added) == Type::array)
        for (uint32_t t = d.first(added); t != d.end(added); t = d.next(t))
            if (d.type(t) != Type::object ||
                !is_null(d, d.find(t, "lstrip")) && !is_false(d, t, "lstrip") ||
                !is_null(d, d.find(t, "rstrip")) && !is_false(d, t, "rstrip"))
                return false;
    // Byte-level only (the SentencePiece family drops what neither a byte token nor the unknown
    // token covers); every ByteLevel step with add_prefix_space false; no Split that removes.
    const uint32_t pt = d.find(root, "pre_tokenizer");
    if (is_null(d, pt) || d.type(pt) != Type::object) return false;
    bool byte_level = false;
    auto step_ok = [&](uint32_t s) {
        if (d.type(s) != Type::object) return false;
        const uint32_t type = d.find(s, "type");
        if (type == Document::none || d.type(type) != Type::string) return false;
        if (d.equals(type, "ByteLevel")) {
            byte_level = true;
            return is_false(d, s, "add_prefix_space");
        }
        const uint32_t b = d.find(s, "behavior");
        return b == Document::none || d.type(b) != Type::string || !d.equals(b, "Removed");
    };
    const uint32_t list = d.find(pt, "pretokenizers");
    if (list != Document::none && d.type(list) == Type::array) {
        for (uint32_t s = d.first(list); s != d.end(list); s = d.next(s))
            if (!step_ok(s)) return false;
    } else if (!step_ok(pt)) {
        return false;
    }
    return byte_level;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    const size_t nul = input.find('\0');
    const std::string_view json = input.substr(0, nul);
    const std::string_view text =
        nul == std::string_view::npos
            ? std::string_view("def f(x):\n    return x  + 1 # caf\xC3\xA9 \xE4\xB8\xAD <s>\n")
            : input.substr(nul + 1);

    hirope::TokenizerJsonLimits limits;
    limits.max_json_bytes = 1 << 20;
    limits.max_json_values = 1 << 16;
    limits.max_vocab = 1 << 16;
    limits.max_merges = 1 << 16;
    limits.max_added_tokens = 1 << 10;
    std::unique_ptr<hirope::Vocabulary> v;
    const hirope::Status s = hirope::load_tokenizer_json(json, "fuzz", limits, &v);
    if (!s.ok()) {
        if (v || s.message().empty()) std::abort();
        return 0;
    }
    if (!v) std::abort();

    std::vector<hirope::Token> tokens, again;
    v->encode(text, &tokens);
    fuzz::check_tokens(tokens, text.size());
    for (const hirope::Token& t : tokens)
        if (t.id < 0 || static_cast<size_t>(t.id) >= v->size()) std::abort();
    {
        // With special tokens' markers as their ids: the same checks of the tokens.
        std::vector<hirope::Token> special;
        hirope::EncodeOptions options;
        options.special_tokens = true;
        v->encode(text, &special, options);
        fuzz::check_tokens(special, text.size());
        for (const hirope::Token& t : special)
            if (t.id < 0 || static_cast<size_t>(t.id) >= v->size()) std::abort();
    }
    v->encode(text, &again);
    if (again.size() != tokens.size()) std::abort();
    for (size_t k = 0; k < tokens.size(); ++k)
        if (again[k].id != tokens[k].id || again[k].start != tokens[k].start ||
            again[k].end != tokens[k].end)
            std::abort();
    if (exact(json)) {
        uint32_t pos = 0;
        for (const hirope::Token& t : tokens) {
            if (t.start != pos) std::abort();
            if (v->token_bytes(t.id) != text.substr(t.start, t.end - t.start)) std::abort();
            pos = t.end;
        }
        if (pos != text.size()) std::abort();
    }
    return 0;
}
