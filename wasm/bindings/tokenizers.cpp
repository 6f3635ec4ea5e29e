// Embind glue of the tokenizers (hirope_tokenizers): loading a vocabulary file or a
// tokenizer.json, encoding text to ids and decoding ids to bytes.
#include "hirope/tokenizers.h"
#include "common.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <emscripten/bind.h>
#include <emscripten/val.h>

using emscripten::val;
using namespace hirope;
using namespace hirope::bindings;

namespace {

// A loaded vocabulary, owned by the JS side.
class TokenizerHandle {
  public:
    std::string load(uintptr_t data, double size) {
        return load_vocabulary(ptr<const uint8_t>(data), static_cast<size_t>(size), &vocab_)
            .message();
    }
    // A Hugging Face tokenizer.json (load_tokenizer_json); the JSON text is not kept.
    std::string loadJson(uintptr_t data, double size, std::string name) {
        Status st = wasm_heap().reserve(
            static_cast<double>(TokenizerLimits::tokenizer_json_load_bytes_per_byte) * size,
            "loading a tokenizer.json");
        if (!st.ok()) return st.message();
        return load_tokenizer_json(
                   std::string_view(ptr<const char>(data), static_cast<size_t>(size)),
                   std::move(name), &vocab_)
            .message();
    }
    uintptr_t address() const { return reinterpret_cast<uintptr_t>(vocab_.get()); }
    double size() const { return vocab_ ? static_cast<double>(vocab_->size()) : 0; }

  private:
    std::unique_ptr<Vocabulary> vocab_;
};

// What encodeText and countPrefix share: the heap a tokenization of `size` bytes may take,
// reserved before it runs (an error message, or '' when reserved), and EncodeOptions from the JS
// arguments (max_tokens Infinity: none).
std::string reserveEncode(const Vocabulary* v, double size) {
    const Status st =
        wasm_heap().reserve(static_cast<double>(v->encode_heap_per_byte()) * size, "tokenizing");
    return st.ok() ? std::string() : st.message();
}
EncodeOptions encodeOptions(bool special_tokens, double max_tokens) {
    EncodeOptions options;
    options.special_tokens = special_tokens;
    if (max_tokens < 9007199254740992.0) options.max_tokens = static_cast<size_t>(max_tokens);
    return options;
}

// The token ids of a text as an Int32Array, or an error string; special_tokens and max_tokens
// (Infinity: none): EncodeOptions.
val encodeText(uintptr_t vocab, uintptr_t code, double size, bool special_tokens,
               double max_tokens) {
    const Vocabulary* v = ptr<const Vocabulary>(vocab);
    const std::string refused = reserveEncode(v, size);
    if (!refused.empty()) return val(refused);
    std::vector<Token> tokens;
    v->encode(std::string_view(ptr<const char>(code), static_cast<size_t>(size)), &tokens,
              encodeOptions(special_tokens, max_tokens));
    std::vector<int32_t> ids(tokens.size());
    for (size_t i = 0; i < tokens.size(); ++i) ids[i] = tokens[i].id;
    return typed_copy("Int32Array", ids);
}

// A prefix of a longer text for isWithinTokenLimit: { count, final } of Vocabulary::encode_prefix
// with max_tokens (final: the tokens are the whole text's first ones), null for a vocabulary
// without a rule for prefixes, or an error string.
val countPrefix(uintptr_t vocab, uintptr_t code, double size, bool special_tokens,
                double max_tokens) {
    const Vocabulary* v = ptr<const Vocabulary>(vocab);
    if (!v->encodes_prefixes()) return val::null();
    const std::string refused = reserveEncode(v, size);
    if (!refused.empty()) return val(refused);
    std::vector<Token> tokens;
    const bool final =
        v->encode_prefix(std::string_view(ptr<const char>(code), static_cast<size_t>(size)),
                         &tokens, encodeOptions(special_tokens, max_tokens));
    val out = val::object();
    out.set("count", static_cast<double>(tokens.size()));
    out.set("final", final);
    return out;
}

// The bytes `n` ids stand for in all (*total), or the error naming the first id that is not a
// token of the vocabulary ('' when every one is).
std::string idBytes(const Vocabulary* v, const int32_t* p, size_t n, size_t* total) {
    *total = 0;
    for (size_t i = 0; i < n; ++i) {
        if (p[i] < 0 || static_cast<size_t>(p[i]) >= v->size() || v->token_bytes(p[i]).empty())
            return "ids[" + std::to_string(i) + "] = " + std::to_string(p[i]) +
                   " is not a token of the '" + v->name() + "' tokenizer";
        *total += v->token_bytes(p[i]).size();
    }
    return "";
}

// The bytes of token ids, concatenated, as a Uint8Array; or an error string naming the first id
// outside the vocabulary.
val decodeIds(uintptr_t vocab, uintptr_t ids, double count) {
    const Vocabulary* v = ptr<const Vocabulary>(vocab);
    const int32_t* p = ptr<const int32_t>(ids);
    const size_t n = static_cast<size_t>(count);
    size_t total = 0;
    const std::string bad = idBytes(v, p, n, &total);
    if (!bad.empty()) return val(bad);
    Status st = wasm_heap().reserve(total, "decoding");
    if (!st.ok()) return val(st.message());
    std::vector<uint8_t> out;
    out.reserve(total);
    for (size_t i = 0; i < n; ++i) {
        std::string_view b = v->token_bytes(p[i]);
        out.insert(out.end(), b.begin(), b.end());
    }
    if (v->prefix_space() && !out.empty() && out[0] == ' ') out.erase(out.begin());
    return typed_copy("Uint8Array", out);
}

// Each token's bytes, as the text it stands for (llama2's "\u2581def" is " def", a byte token its
// one byte; no dummy-prefix space dropped): { bytes: Uint8Array (concatenated), ends: Int32Array
// (where each token's bytes end), prefixSpace (decode drops a sequence's first space) }; or an
// error string naming the first id outside the vocabulary.
val tokenBytes(uintptr_t vocab, uintptr_t ids, double count) {
    const Vocabulary* v = ptr<const Vocabulary>(vocab);
    const int32_t* p = ptr<const int32_t>(ids);
    const size_t n = static_cast<size_t>(count);
    size_t total = 0;
    const std::string bad = idBytes(v, p, n, &total);
    if (!bad.empty()) return val(bad);
    Status st = wasm_heap().reserve(static_cast<double>(total) + 4.0 * n, "token bytes");
    if (!st.ok()) return val(st.message());
    std::vector<uint8_t> bytes;
    bytes.reserve(total);
    std::vector<int32_t> ends(n);
    for (size_t i = 0; i < n; ++i) {
        std::string_view b = v->token_bytes(p[i]);
        bytes.insert(bytes.end(), b.begin(), b.end());
        ends[i] = static_cast<int32_t>(bytes.size());
    }
    val out = val::object();
    out.set("bytes", typed_copy("Uint8Array", bytes));
    out.set("ends", typed_copy("Int32Array", ends));
    out.set("prefixSpace", v->prefix_space());
    return out;
}

// The 16 hex digits that name a user's tokenizer.json (the core's tokenizer_json_hash, as
// Python's).
std::string tokenizerJsonHash(uintptr_t data, double size) {
    return tokenizer_json_hash(std::string_view(ptr<const char>(data), static_cast<size_t>(size)));
}

} // namespace

EMSCRIPTEN_BINDINGS(hirope_tokenizers) {
    emscripten::class_<TokenizerHandle>("TokenizerHandle")
        .constructor<>()
        .function("load", &TokenizerHandle::load)
        .function("loadJson", &TokenizerHandle::loadJson)
        .function("address", &TokenizerHandle::address)
        .function("size", &TokenizerHandle::size);
    emscripten::function("encode", &encodeText);
    emscripten::function("countPrefix", &countPrefix);
    emscripten::function("decode", &decodeIds);
    emscripten::function("tokenBytes", &tokenBytes);
    emscripten::function("tokenizerJsonHash", &tokenizerJsonHash);
}
