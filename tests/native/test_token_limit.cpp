// EncodeOptions::max_tokens (hirope/tokenizers.h): on the built-in vocabularies, an encode with a
// limit gives the whole text's tokens when they are no more than the limit, and otherwise more
// than the limit, each of them the whole text's token at that place (ids and offsets). Expected
// values are the same vocabulary's encode without a limit. The byte-level ones stop early: on
// real code, a limit of 100 tokens leaves most of the text untokenized.
#include "hirope/analysis.h"
#include "test_files.h"
#include "test_vocabularies.h"

#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

using namespace hirope;

namespace {

std::vector<Token> encode(const Vocabulary& v, const std::string& text, bool special,
                          size_t max_tokens = SIZE_MAX) {
    std::vector<Token> tokens;
    EncodeOptions options;
    options.special_tokens = special;
    options.max_tokens = max_tokens;
    v.encode(text, &tokens, options);
    return tokens;
}

std::unique_ptr<Vocabulary> load(const std::string& name, bool json) {
    const std::vector<uint8_t> data =
        read_file(test_data_dir() + "/" + name + (json ? ".json" : ".bin"));
    INFO(name << ": run from the repository root after the build, or set HIROPE_DATA_DIR");
    REQUIRE(!data.empty());
    std::unique_ptr<Vocabulary> v;
    const Status st =
        json ? load_tokenizer_json(
                   std::string_view(reinterpret_cast<const char*>(data.data()), data.size()), name,
                   &v)
             : load_vocabulary(data.data(), data.size(), &v);
    INFO(st.message());
    REQUIRE(st.ok());
    return v;
}

} // namespace

TEST_CASE("A token limit keeps the text's first tokens and stops past it",
          "[tokenizers][token_limit]") {
    const std::vector<uint8_t> source = read_file("src/tokenizers/tokenizers.cpp");
    REQUIRE(source.size() > 8000);
    // Real code, with characters outside ASCII (llama2's byte tokens) and special-token markers.
    const std::string code(source.begin(), source.begin() + 8000);
    const std::string text = code +
                             "\n# \xF0\x9F\x99\x82 na\xC3\xAFve \xE6\x97\xA5\xE6\x9C\xAC "
                             "<|endoftext|> <s> <eos> <|eot_id|>\n" +
                             code;
    // gemma3's SentencePiece pipeline takes no limit (it fuses unknown tokens after a section):
    // tests/js/tokenizer-conveniences.test.mjs checks its answers; loading its 14 MB file here
    // cost each WASM build of this suite some 15 s.
    const std::pair<const char*, bool> vocabularies[] = {{"cl100k", false}, {"o200k", false},
                                                         {"llama2", false}, {"llama3", true},
                                                         {"qwen3", true},   {"deepseek-v3", true}};
    for (const auto& [name, json] : vocabularies) {
        const std::unique_ptr<Vocabulary> v = load(name, json);
        for (const bool special : {false, true}) {
            const std::vector<Token> all = encode(*v, text, special);
            REQUIRE(all.size() > 1000);
            for (const size_t limit : {size_t{0}, size_t{1}, size_t{2}, size_t{7}, size_t{100},
                                       size_t{999}, all.size() - 1, all.size(), all.size() + 5}) {
                INFO(name << " special " << special << " limit " << limit << " of " << all.size());
                const std::vector<Token> some = encode(*v, text, special, limit);
                if (all.size() <= limit) {
                    REQUIRE(some.size() == all.size());
                } else {
                    REQUIRE(some.size() > limit);
                    REQUIRE(some.size() <= all.size());
                }
                size_t same = 0; // tokens equal to the whole text's, ids and offsets
                while (same < some.size() && some[same].id == all[same].id &&
                       some[same].start == all[same].start && some[same].end == all[same].end)
                    ++same;
                REQUIRE(same == some.size());
                // Stopped near the limit, not at the end.
                if (limit == 100) CHECK(some.size() < 200);
            }
        }
    }
}

// Vocabulary::encode_prefix: a prefix's tokens, stopped past a limit as encode() stops, and
// whether they are the whole text's first ones whatever follows. Checked at every cut of texts
// made to sit on the pre-tokenizers' edges (whitespace runs that end in a newline past the cut,
// upper-case runs that decide o200k's match, contractions, digits, special-token markers, UTF-8
// sequences and bytes outside llama2's vocabulary, cut in the middle): wherever the rule says
// final, the tokens equal the whole text's (ids and offsets), and on real code a prefix of a few
// times the limit's bytes is final.
TEST_CASE("A prefix's tokens are final only where no later byte can change them",
          "[tokenizers][token_limit]") {
    const std::string edges[] = {
        "x = 1\n    \n\n        y = 2  \t \n\nz",
        "def f():\n    return don't + I'LL + we're  \n   \n",
        "ABCdef GHI\xE4\xB8\xAD\xE4\xB8\xAD\xE4\xB8\xAD"
        "ABCD abc'S'sTHE'Re 12345678 9",
        "a<|endoftext|>b <|endoftext|><|endoftext|> <s></s> <|eot_id|>\n<|endo",
        "\xF0\x9F\x99\x82\xF0\x9F\x99\x82 na\xC3\xAFve \xE6\x97\xA5\xE6\x9C\xAC\n\t\r\n x\xC3",
        "\xFF\xFE bad \xE6\x97 bytes\n\n\n",
        "                                                                      \n  x",
        "!!!///\n\n...//\r\n\r\n::=>  ''' \"\"\" ```",
    };
    std::string code;
    {
        const std::vector<uint8_t> source = read_file("src/tokenizers/tokenizers.cpp");
        REQUIRE(source.size() > 20000);
        code.assign(source.begin(), source.begin() + 20000);
    }
    for (const char* name : {"cl100k", "o200k", "llama2"}) {
        const std::unique_ptr<Vocabulary> v = load(name, false);
        REQUIRE(v->encodes_prefixes());
        for (const bool special : {false, true}) {
            for (const std::string& text : edges) {
                const std::vector<Token> all = encode(*v, text, special);
                for (size_t cut = 0; cut <= text.size(); ++cut) {
                    for (const size_t limit : {size_t{0}, size_t{1}, size_t{3}, SIZE_MAX}) {
                        std::vector<Token> some;
                        EncodeOptions options;
                        options.special_tokens = special;
                        options.max_tokens = limit;
                        const bool final =
                            v->encode_prefix(std::string_view(text).substr(0, cut), &some, options);
                        if (!final) continue;
                        INFO(name << " special " << special << " cut " << cut << " limit " << limit
                                  << " text " << text);
                        REQUIRE(some.size() <= all.size());
                        for (size_t k = 0; k < some.size(); ++k) {
                            INFO("token " << k);
                            REQUIRE(some[k].id == all[k].id);
                            REQUIRE(some[k].start == all[k].start);
                            REQUIRE(some[k].end == all[k].end);
                        }
                    }
                }
            }
            // Real code: a prefix of 8 bytes a token past a limit of 1,000 tells (the rule is not
            // so cautious that isWithinTokenLimit always reads the whole text).
            std::vector<Token> some;
            EncodeOptions options;
            options.special_tokens = special;
            options.max_tokens = 1000;
            INFO(name << " special " << special);
            CHECK(v->encode_prefix(std::string_view(code).substr(0, 8 * 1008), &some, options));
            CHECK(some.size() > 1000);
            // The whole text, as a prefix, does not tell: its end decides its last tokens.
            some.clear();
            options.max_tokens = SIZE_MAX;
            CHECK_FALSE(v->encode_prefix(code, &some, options));
        }
    }
}
