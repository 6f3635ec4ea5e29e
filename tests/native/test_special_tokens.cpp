// Special-token markers in the input (EncodeOptions, hirope/analysis.h), on every built-in
// tokenizer: by default text is text (the marker encodes as the same vocabulary without its
// special tokens encodes it), and with special_tokens the marker is the one id the vocabulary
// gives it, the text around it encoded on its own. The expected ids come from a twin of each
// vocabulary that has no special tokens: the .bin file rewritten without its special-token
// section (version 1), the tokenizer.json without the marker's added token. Hand-made
// tokenizer.json files (the skip rule, lstrip/rstrip, the SentencePiece family) are in
// test_tokenizer_json.cpp; the references (tiktoken, @huggingface/tokenizers) in
// tests/js/tokenizer-builtins.test.mjs.
#include "hirope/analysis.h"
#include "test_files.h"
#include "test_vocabularies.h"
#include "util/hash.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

using namespace hirope;

namespace {

struct Marker {
    std::string text;
    int32_t id;
};

// The special tokens each built-in lists, with the ids their vocabularies give them (tiktoken's
// encoders; the tokenizer.json files' added_tokens with "special": true; llama2's control tokens).
struct Builtin {
    std::string name;
    bool json;
    std::vector<Marker> markers; // .bin: every special token of the file, in id order
};

const std::vector<Builtin>& builtins() {
    static const std::vector<Builtin> list = {
        {"cl100k",
         false,
         {{"<|endoftext|>", 100257},
          {"<|fim_prefix|>", 100258},
          {"<|fim_middle|>", 100259},
          {"<|fim_suffix|>", 100260},
          {"<|endofprompt|>", 100276}}},
        {"o200k", false, {{"<|endoftext|>", 199999}, {"<|endofprompt|>", 200018}}},
        {"llama2", false, {{"<unk>", 0}, {"<s>", 1}, {"</s>", 2}}},
        {"llama3", true, {{"<|begin_of_text|>", 128000}, {"<|eot_id|>", 128009}}},
        {"qwen3", true, {{"<|endoftext|>", 151643}, {"<|im_end|>", 151645}}},
        {"deepseek-v3",
         true,
         {{"<\xEF\xBD\x9C"
           "begin\xE2\x96\x81of\xE2\x96\x81sentence\xEF\xBD\x9C>",
           0},
          {"<\xEF\xBD\x9C"
           "end\xE2\x96\x81of\xE2\x96\x81sentence\xEF\xBD\x9C>",
           1}}},
        {"gemma3", true, {{"<eos>", 1}, {"<start_of_turn>", 105}}},
    };
    return list;
}

std::string file_text(const std::string& path) {
    const std::vector<uint8_t> data = read_file(path);
    INFO(path << ": run from the repository root after the build, or set HIROPE_DATA_DIR");
    REQUIRE(!data.empty());
    return std::string(data.begin(), data.end());
}

std::unique_ptr<Vocabulary> load_bin(const std::string& data) {
    std::unique_ptr<Vocabulary> v;
    const Status st =
        load_vocabulary(reinterpret_cast<const uint8_t*>(data.data()), data.size(), &v);
    INFO(st.message());
    REQUIRE(st.ok());
    return v;
}

std::unique_ptr<Vocabulary> load_json(const std::string& json, const std::string& name) {
    std::unique_ptr<Vocabulary> v;
    const Status st = load_tokenizer_json(json, name, &v);
    INFO(st.message());
    REQUIRE(st.ok());
    return v;
}

// A version 2 .bin file without its special-token section, as version 1 (the checksum redone).
// The section's length is computed from the markers the test expects, so the twin loads only
// when the file lists exactly those (a version 1 file must end right after its tokens/merges).
std::string without_specials(const std::string& data, const std::vector<Marker>& markers) {
    size_t section = 4;
    for (const Marker& m : markers) section += 4 + 2 + m.text.size();
    REQUIRE(data.size() > section + 12);
    uint32_t version;
    std::memcpy(&version, data.data() + 4, 4);
    REQUIRE(version == 2);
    std::string twin = data.substr(0, data.size() - 4 - section);
    const uint32_t one = 1;
    std::memcpy(&twin[4], &one, 4);
    const uint32_t hash = util::fnv1a(twin);
    twin.append(reinterpret_cast<const char*>(&hash), 4);
    return twin;
}

// The tokenizer.json without the added token of `marker` (the minified file lists each added
// token as {"id":N,"content":"...",...} with no braces inside).
std::string without_added_token(const std::string& json, const Marker& marker) {
    const std::string key = "{\"id\":" + std::to_string(marker.id) + ",\"content\":";
    const size_t at = json.find(key);
    REQUIRE(at != std::string::npos);
    const size_t end = json.find('}', at);
    REQUIRE(end != std::string::npos);
    size_t from = at, to = end + 1;
    if (json[to] == ',')
        ++to; // the comma after it, or the one before it when it is the last
    else if (json[from - 1] == ',')
        --from;
    return json.substr(0, from) + json.substr(to);
}

std::vector<Token> encode(const Vocabulary& v, const std::string& text, bool special) {
    std::vector<Token> tokens;
    EncodeOptions options;
    options.special_tokens = special;
    v.encode(text, &tokens, options);
    return tokens;
}

std::vector<int32_t> ids_of(const std::vector<Token>& tokens) {
    std::vector<int32_t> out;
    for (const Token& t : tokens) out.push_back(t.id);
    return out;
}

} // namespace

TEST_CASE("Special tokens: text is text by default, their ids with special_tokens, on every "
          "built-in",
          "[tokenizers][special_tokens]") {
    const std::string prefix = "x = \"", suffix = "\"  # end\n";
    for (const Builtin& b : builtins()) {
        const std::string path = test_data_dir() + "/" + b.name + (b.json ? ".json" : ".bin");
        const std::string data = file_text(path);
        std::unique_ptr<Vocabulary> v = b.json ? load_json(data, b.name) : load_bin(data);
        // The twin: the same vocabulary without its special tokens (a tokenizer.json without
        // their added tokens), loaded once per built-in.
        std::string plain_json = b.json ? data : std::string();
        if (b.json)
            for (const Marker& m : b.markers) plain_json = without_added_token(plain_json, m);
        const std::unique_ptr<Vocabulary> twin_vocabulary =
            b.json ? load_json(plain_json, b.name) : load_bin(without_specials(data, b.markers));
        const Vocabulary& twin = *twin_vocabulary;
        for (const Marker& m : b.markers) {
            INFO(b.name << " " << m.text);
            const std::string text = prefix + m.text + suffix;

            // Default: the ids of the vocabulary without special tokens, no special id among
            // them, the offsets tiling the input, the bytes giving it back.
            const std::vector<Token> plain = encode(*v, text, false);
            std::vector<Token> implicit;
            v->encode(text, &implicit);
            CHECK(ids_of(implicit) == ids_of(plain));
            CHECK(ids_of(plain) == ids_of(encode(twin, text, false)));
            const std::vector<int32_t> plain_ids = ids_of(plain);
            for (const Marker& other : b.markers)
                CHECK(std::find(plain_ids.begin(), plain_ids.end(), other.id) == plain_ids.end());
            uint32_t pos = 0;
            std::string back;
            for (const Token& t : plain) {
                CHECK(t.start == pos);
                pos = t.end;
                back += v->token_bytes(t.id);
            }
            CHECK(pos == text.size());
            CHECK(back == (v->prefix_space() ? " " + text : text));
            CHECK(encode(twin, m.text, false).size() > 1); // the marker alone: several tokens

            // special_tokens: the marker is its one id, the text on each side encoded alone.
            const std::vector<Token> special = encode(*v, text, true);
            std::vector<int32_t> expected = ids_of(encode(*v, prefix, false));
            expected.push_back(m.id);
            for (int32_t id : ids_of(encode(*v, suffix, false))) expected.push_back(id);
            CHECK(ids_of(special) == expected);
            const auto at = std::find_if(special.begin(), special.end(),
                                         [&](const Token& t) { return t.id == m.id; });
            REQUIRE(at != special.end());
            CHECK(at->start == prefix.size());
            CHECK(at->end == prefix.size() + m.text.size());
            CHECK(ids_of(encode(*v, m.text, true)) == std::vector<int32_t>{m.id});
            // Its bytes: the marker (llama2's control tokens stand for no text).
            CHECK(v->token_bytes(m.id) == (b.name == "llama2" ? "" : m.text));
        }
    }
}

TEST_CASE("Special tokens: cl100k and o200k count their special ids, outside the ranks",
          "[tokenizers][special_tokens]") {
    const Vocabulary& cl100k = test_vocabulary("cl100k");
    CHECK(cl100k.size() == 100277); // tiktoken's n_vocab: ranks 0-100255, <|endofprompt|> last
    CHECK(cl100k.token_bytes(100256).empty()); // no token between the ranks and <|endoftext|>
    CHECK(cl100k.token_bytes(100261).empty());
    const Vocabulary& o200k = test_vocabulary("o200k");
    CHECK(o200k.size() == 200019);
    CHECK(o200k.token_bytes(199998).empty());
    // A marker next to other text: the longest marker wins, the text around stays text.
    std::vector<Token> tokens;
    EncodeOptions options;
    options.special_tokens = true;
    cl100k.encode("<|endoftext|><|endoftext|>a<|endoftext", &tokens, options);
    REQUIRE(tokens.size() >= 4);
    CHECK(tokens[0].id == 100257);
    CHECK(tokens[1].id == 100257);
    CHECK(tokens[1].start == 13);
    std::vector<Token> rest;
    cl100k.encode("a<|endoftext", &rest);
    REQUIRE(tokens.size() == 2 + rest.size());
    for (size_t k = 0; k < rest.size(); ++k) {
        CHECK(tokens[2 + k].id == rest[k].id);
        CHECK(tokens[2 + k].start == rest[k].start + 26);
    }
}

TEST_CASE("Special tokens: a vocabulary file's special-token section is checked",
          "[tokenizers][special_tokens][errors]") {
    const std::string data = file_text(test_data_dir() + "/llama2.bin");
    // llama2's <s> is id 1 in its table; a section that gives the marker another id is refused.
    std::string body = data.substr(0, data.size() - 4);
    const std::string s_entry = std::string("\x01\x00\x00\x00\x03\x00", 6) + "<s>";
    const size_t at = body.rfind(s_entry);
    REQUIRE(at != std::string::npos);
    body[at] = 2; // id 2 is </s>
    const uint32_t hash = util::fnv1a(body);
    body.append(reinterpret_cast<const char*>(&hash), 4);
    std::unique_ptr<Vocabulary> v;
    const Status st =
        load_vocabulary(reinterpret_cast<const uint8_t*>(body.data()), body.size(), &v);
    CHECK(st.message().find("special token") != std::string::npos);
    CHECK(v == nullptr);
}

TEST_CASE("Special tokens: a long marker past the table leaves its lookups intact",
          "[tokenizers][special_tokens]") {
    // A byte-level vocabulary (kind 1): the 256 bytes, then "ab" as rank 256; one special token
    // past the table whose marker is long enough to move the table's bytes when it is appended.
    // The lookups made after that (the byte ranks, "ab") must read the moved bytes (the fuzzer
    // found them reading freed memory).
    std::string body("HRTK", 4);
    auto u32 = [&](uint32_t x) { body.append(reinterpret_cast<const char*>(&x), 4); };
    auto u16 = [&](uint16_t x) { body.append(reinterpret_cast<const char*>(&x), 2); };
    u32(2); // version
    u32(1); // kind: cl100k's pre-tokenizer
    u32(4);
    body += "tiny";
    u32(257);
    for (int b = 0; b < 256; ++b) {
        u16(1);
        body.push_back(static_cast<char>(b));
    }
    u16(2);
    body += "ab";
    const std::string marker = "<|" + std::string(4000, 'x') + "|>";
    u32(1); // special tokens
    u32(300);
    u16(static_cast<uint16_t>(marker.size()));
    body += marker;
    u32(util::fnv1a(body));
    const std::unique_ptr<Vocabulary> v = load_bin(body);
    CHECK(v->size() == 301);
    CHECK(v->token_bytes(300) == marker);
    CHECK(v->token_bytes(299).empty());
    std::vector<Token> tokens;
    EncodeOptions options;
    options.special_tokens = true;
    v->encode("ab" + marker + "ba", &tokens, options);
    REQUIRE(tokens.size() == 4);
    CHECK(tokens[0].id == 256);
    CHECK(tokens[1].id == 300);
    CHECK(tokens[2].id == 'b');
    CHECK(tokens[3].id == 'a');
    // Without special tokens the marker is text: its bytes, merged where the table says.
    tokens.clear();
    v->encode(marker, &tokens);
    CHECK(tokens.size() > 1);
    for (const Token& t : tokens) CHECK(t.id < 300);
}
