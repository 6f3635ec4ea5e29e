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
