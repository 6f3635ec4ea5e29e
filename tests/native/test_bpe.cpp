// The one BPE merge loop (src/tokenizers/bpe.h) against a naive one: repeatedly merge the adjacent
// pair of lowest rank, leftmost among equal ranks, by scanning the whole sequence each time.
#include "hirope/tokenizers.h"
#include "tokenizers/bpe.h"
#include "tokenizers/pair_table.h"
#include "util/random.h"

#include <catch2/catch.hpp>
#include <map>
#include <string>
#include <utility>
#include <vector>

using namespace hirope;

namespace {

using Merges = std::map<std::pair<int32_t, int32_t>, std::pair<int32_t, int32_t>>; // -> rank, id

// The merged ids and their start offsets, by the naive loop.
std::vector<std::pair<int32_t, uint32_t>> naive(std::vector<std::pair<int32_t, uint32_t>> s,
                                                const Merges& merges) {
    for (;;) {
        size_t best = s.size();
        int32_t best_rank = 0, best_id = 0;
        for (size_t i = 0; i + 1 < s.size(); ++i) {
            if (s[i].first < 0 || s[i + 1].first < 0) continue;
            auto it = merges.find({s[i].first, s[i + 1].first});
            if (it == merges.end()) continue;
            if (best == s.size() || it->second.first < best_rank) {
                best = i;
                best_rank = it->second.first;
                best_id = it->second.second;
            }
        }
        if (best == s.size()) return s;
        s[best].first = best_id;
        s.erase(s.begin() + static_cast<ptrdiff_t>(best) + 1);
    }
}

std::vector<std::pair<int32_t, uint32_t>> merged(const std::vector<int32_t>& ids,
                                                 const detail::PairTable& table) {
    std::vector<bpe::Symbol> symbols;
    for (size_t i = 0; i < ids.size(); ++i)
        symbols.push_back({ids[i], static_cast<uint32_t>(i), static_cast<int32_t>(i) - 1,
                           static_cast<int32_t>(i) + 1});
    std::vector<bpe::Candidate> heap;
    bpe::merge(&symbols, static_cast<uint32_t>(ids.size()), &heap, bpe::MergeList{table});
    std::vector<std::pair<int32_t, uint32_t>> out;
    for (int32_t i = 0; i < static_cast<int32_t>(symbols.size()); i = symbols[i].next)
        out.push_back({symbols[i].id, symbols[i].start});
    return out;
}

} // namespace

TEST_CASE("BPE: the merge loop is the naive lowest-rank, leftmost-first loop", "[tokenizers]") {
    util::SplitMix64 rng{41};
    for (int round = 0; round < 300; ++round) {
        // A few symbols (ids 0-3), merges between them and their results (ids from 4 up, which
        // merge further); -2: a symbol outside the vocabulary, which never merges.
        const int32_t alphabet = 4;
        Merges merges;
        detail::PairTable table;
        const int32_t count = 3 + static_cast<int32_t>(rng.next() % 12);
        table.reserve(static_cast<size_t>(count));
        int32_t next_id = alphabet;
        for (int32_t rank = 0; rank < count; ++rank) {
            const int32_t a = static_cast<int32_t>(rng.next() % static_cast<uint64_t>(next_id));
            const int32_t b = static_cast<int32_t>(rng.next() % static_cast<uint64_t>(next_id));
            if (merges.count({a, b})) continue; // one rank per pair, as the loaders keep it
            merges[{a, b}] = {rank, next_id};
            table.insert(a, b, rank, next_id);
            ++next_id;
        }
        // Long runs of one symbol too: many stale candidates, so the heap fills and compacts.
        const size_t n = round % 10 == 0 ? 2000 : 1 + rng.next() % 60;
        std::vector<int32_t> ids(n);
        for (auto& id : ids) {
            const uint64_t r = rng.next() % 100;
            id = round % 10 == 0 ? (r < 97 ? 0 : 1)
                                 : (r < 3 ? -2 : static_cast<int32_t>(r % alphabet));
        }
        std::vector<std::pair<int32_t, uint32_t>> start;
        for (size_t i = 0; i < n; ++i) start.push_back({ids[i], static_cast<uint32_t>(i)});
        INFO("round " << round << ", " << n << " symbols");
        REQUIRE(merged(ids, table) == naive(start, merges));
    }
}

TEST_CASE("BPE: a user's tokenizer.json is named by one hash in every binding", "[tokenizers]") {
    // Pinned: two FNV-1a 32 streams, the second from 0x9747b28c adding each byte's index.
    CHECK(tokenizer_json_hash("") == "811c9dc59747b28c");
    CHECK(tokenizer_json_hash("a") == "e40c292c12deab17");
    CHECK(tokenizer_json_hash("{\"model\":{}}") == "8b887b804fcfd3b7");
    std::string bytes;
    for (int k = 0; k < 3; ++k)
        for (int b = 0; b < 256; ++b) bytes.push_back(static_cast<char>(b));
    CHECK(tokenizer_json_hash(bytes) == "6217cec5b4e5108c");
}
