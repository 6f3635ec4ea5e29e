// A test helper (not part of the library) for the differential checks of tests/js/:
//   tokjson_cli encode TOKENIZER.json [FILE...]   ids of each file (or stdin), one line per
//                                                  file; with HIROPE_ROUNDTRIP=1 each line
//                                                  ends with #rt=1 when the tokens' bytes give
//                                                  the input back (#rt=0 otherwise); with
//                                                  HIROPE_SPECIAL_TOKENS=1 special tokens'
//                                                  markers are their ids (EncodeOptions), as
//                                                  the reference encodes by default
//   tokjson_cli bench TOKENIZER.json [FILE]       load time, memory, vocabulary size (and
//                                                  the encoding speed of FILE)
//   tokjson_cli split PATTERN                      reads NUL-separated strings on stdin and
//                                                  prints the match spans of each (code points)
//   tokjson_cli nfc                                reads NUL-separated strings, writes their
//                                                  NFC, NUL-separated
//   tokjson_cli normalize TOKENIZER.json           reads NUL-separated strings, writes what
//                                                  the file's normalizer makes of each (one
//                                                  section), NUL-separated
#include "hirope/analysis.h"
#include "tokenizers/pretokenize_regex.h"
#include "tokenizers/tokenizer_json.h"
#include "tokenizers/unicode.h"
#include "tokenizers/unicode_props.h"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <malloc.h>
#include <sstream>
#include <string>
#include <sys/resource.h>
#include <vector>

namespace {

std::string read_all(std::istream& in) {
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// All of stdin, in large reads (std::cin's buffer, synced with stdio, goes a byte at a time:
// a third of a run on the normalizer tests' 40 MB inputs).
std::string read_stdin() {
    std::string out;
    char chunk[1 << 16];
    size_t got;
    while ((got = std::fread(chunk, 1, sizeof chunk, stdin)) > 0) out.append(chunk, got);
    return out;
}

bool read_file(const char* path, std::string* out) {
    std::ifstream f(path, std::ios::binary);
    if (!f) return false;
    *out = read_all(f);
    return true;
}

long peak_rss_kb() {
    rusage u;
    getrusage(RUSAGE_SELF, &u);
    return u.ru_maxrss;
}

std::vector<std::string> split_nul(const std::string& s) {
    std::vector<std::string> out;
    size_t start = 0;
    for (size_t i = 0; i <= s.size(); ++i)
        if (i == s.size() || s[i] == '\0') {
            if (i > start || i < s.size()) out.push_back(s.substr(start, i - start));
            start = i + 1;
        }
    return out;
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: tokjson_cli encode|bench|split|nfc|normalize ...\n");
        return 2;
    }
    const std::string mode = argv[1];
    if (mode == "split" && argc == 3) {
        hirope::regex::Regex re;
        hirope::Status s = hirope::regex::Regex::compile(argv[2], &re);
        if (!s.ok()) {
            std::fprintf(stderr, "%s\n", s.message().c_str());
            return 1;
        }
        hirope::regex::Scratch scratch;
        std::string out;
        for (const std::string& text : split_nul(read_stdin())) {
            // Spans in code points, as JS sees them (UTF-16 units would differ for astral).
            std::vector<size_t> cp_index(text.size() + 1, 0);
            size_t k = 0;
            for (size_t i = 0; i < text.size();) {
                size_t len;
                hirope::unicode::decode(text, i, &len);
                for (size_t j = 0; j < len; ++j) cp_index[i + j] = k;
                i += len;
                ++k;
            }
            cp_index[text.size()] = k;
            size_t from = 0, ms, me;
            std::string line;
            while (from < text.size() && re.find(text, from, &ms, &me, &scratch)) {
                line += std::to_string(cp_index[ms]) + "-" + std::to_string(cp_index[me]) + " ";
                from = me;
            }
            out += line + "\n";
        }
        std::fwrite(out.data(), 1, out.size(), stdout);
        return 0;
    }
    if (mode == "nfc") {
        std::string out;
        for (const std::string& text : split_nul(read_stdin())) {
            std::string norm;
            std::vector<hirope::unicode::NfcChange> changes;
            if (hirope::unicode::nfc(text, &norm, &changes))
                out += norm;
            else
                out += text;
            out.push_back('\0');
        }
        std::fwrite(out.data(), 1, out.size(), stdout);
        return 0;
    }
    if (mode == "normalize" && argc == 3) {
        std::string json;
        if (!read_file(argv[2], &json)) {
            std::fprintf(stderr, "cannot read %s\n", argv[2]);
            return 1;
        }
        std::unique_ptr<hirope::Vocabulary> vocab;
        hirope::Status s = hirope::load_tokenizer_json(json, "tokenizer", &vocab);
        if (!s.ok()) {
            std::fprintf(stderr, "%s\n", s.message().c_str());
            return 1;
        }
        std::string out;
        for (const std::string& text : split_nul(read_stdin())) {
            std::string norm;
            hirope::tokenizer_json_normalize(*vocab, text, &norm);
            out += norm;
            out.push_back('\0');
        }
        std::fwrite(out.data(), 1, out.size(), stdout);
        return 0;
    }
    if ((mode == "encode" || mode == "bench") && argc >= 3) {
        std::string json;
        if (!read_file(argv[2], &json)) {
            std::fprintf(stderr, "cannot read %s\n", argv[2]);
            return 1;
        }
        const long rss0 = peak_rss_kb();
        const size_t heap0 = mallinfo2().uordblks;
        const auto t0 = std::chrono::steady_clock::now();
        std::unique_ptr<hirope::Vocabulary> vocab;
        hirope::Status s = hirope::load_tokenizer_json(json, "tokenizer", &vocab);
        const auto t1 = std::chrono::steady_clock::now();
        if (!s.ok()) {
            std::fprintf(stderr, "%s\n", s.message().c_str());
            return 1;
        }
        if (mode == "bench") {
            // Retained: the heap the vocabulary holds once loading is over (glibc's count of
            // allocated bytes); peak: the process's peak RSS growth during the load (the JSON
            // text is read before and is not counted; the parse tape is).
            std::printf("load_ms %.1f size %zu json_bytes %zu retained_mb %.1f peak_rss_growth_mb "
                        "%.1f\n",
                        std::chrono::duration<double, std::milli>(t1 - t0).count(), vocab->size(),
                        json.size(), (mallinfo2().uordblks - heap0) / 1048576.0,
                        (peak_rss_kb() - rss0) / 1024.0);
            json.clear();
            json.shrink_to_fit();
            if (argc >= 4) {
                std::string text;
                read_file(argv[3], &text);
                std::vector<hirope::Token> tokens;
                const auto t2 = std::chrono::steady_clock::now();
                vocab->encode(text, &tokens);
                const auto t3 = std::chrono::steady_clock::now();
                const double ms = std::chrono::duration<double, std::milli>(t3 - t2).count();
                std::printf("encode %zu bytes -> %zu tokens in %.1f ms (%.2f MB/s)\n", text.size(),
                            tokens.size(), ms, text.size() / 1e3 / ms);
            }
            return 0;
        }
        const bool roundtrip = std::getenv("HIROPE_ROUNDTRIP") != nullptr;
        hirope::EncodeOptions options;
        const char* special = std::getenv("HIROPE_SPECIAL_TOKENS");
        options.special_tokens = special && std::strcmp(special, "1") == 0;
        std::vector<std::string> inputs;
        if (argc == 3) inputs.push_back(read_stdin());
        for (int k = 3; k < argc; ++k) {
            std::string text;
            if (!read_file(argv[k], &text)) {
                std::fprintf(stderr, "cannot read %s\n", argv[k]);
                return 1;
            }
            inputs.push_back(std::move(text));
        }
        std::string out;
        for (const std::string& text : inputs) {
            std::vector<hirope::Token> tokens;
            vocab->encode(text, &tokens, options);
            std::string back;
            for (size_t i = 0; i < tokens.size(); ++i) {
                if (i) out.push_back(' ');
                out += std::to_string(tokens[i].id);
                if (roundtrip) back.append(vocab->token_bytes(tokens[i].id));
            }
            if (roundtrip) out += back == text ? " #rt=1" : " #rt=0";
            out.push_back('\n');
        }
        std::fwrite(out.data(), 1, out.size(), stdout);
        return 0;
    }
    std::fprintf(stderr, "bad arguments\n");
    return 2;
}
