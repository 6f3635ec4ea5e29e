// The ranked BPE merge loop that every vocabulary format runs (cl100k and o200k as tiktoken's
// byte_pair_merge, llama2 as SentencePiece's BPE, tokenizer.json's byte-level and SentencePiece
// families as Hugging Face's): repeatedly merge the adjacent pair of lowest rank, leftmost first
// among equal ranks. A heap of candidates keeps long pieces (a megabyte of spaces) O(n log n).
// What differs between the formats is only how a pair ranks (the Pairs parameter of merge()).
#pragma once

#include "tokenizers/pair_table.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace hirope {
namespace bpe {

// One symbol of a piece, 16 bytes: it ends where the next live one starts (or the piece ends).
struct Symbol {
    int32_t id; // token id; negative never merges (kDead once merged into its left neighbour)
    uint32_t start;
    int32_t prev, next; // -1 before the first, count after the last
};
constexpr int32_t kDead = -1;

// A candidate merge of symbol `left` with its right neighbour. A pair's rank identifies it (each
// rank is one merge, or one token whose bytes the pair spans, and spans only grow), so a stale
// candidate is one whose symbol no longer forms a pair of that rank.
struct Candidate {
    int32_t rank, left;
    bool operator>(const Candidate& o) const {
        return rank != o.rank ? rank > o.rank : left > o.left;
    }
};

// Empties v and gives it room for n elements, allocated once at that size when it has less
// (push_back's doubling would take up to twice the memory).
template <class T> void reserve_exact(std::vector<T>* v, size_t n) {
    v->clear();
    if (v->capacity() < n) {
        std::vector<T>().swap(*v);
        v->reserve(n);
    }
}

// The end of symbol i of a piece that ends at `end`.
inline uint32_t symbol_end(const std::vector<Symbol>& symbols, int32_t i, uint32_t end) {
    const int32_t next = symbols[i].next;
    return next < static_cast<int32_t>(symbols.size()) ? symbols[next].start : end;
}

// Merges the linked symbols of one piece (symbols[k] = {id, start, k - 1, k + 1}) that ends at
// `end`, in place: afterwards the live ones are reached from symbols[0] through next.
// pairs(left, right, right_end, &rank, &result) says whether two adjacent symbols merge, with the
// pair's rank and the merged token's id. The heap holds at most 1.5 candidates per symbol: when
// full it drops its stale candidates (there is at most one live candidate per live symbol), so
// its memory is fixed before the merges start.
template <class Pairs>
void merge(std::vector<Symbol>* symbols, uint32_t end, std::vector<Candidate>* heap,
           const Pairs& pairs) {
    std::vector<Symbol>& s = *symbols;
    const int32_t count = static_cast<int32_t>(s.size());
    const size_t cap = static_cast<size_t>(count) + static_cast<size_t>(count) / 2 + 16;
    reserve_exact(heap, cap);
    const std::greater<Candidate> later;
    auto pair_at = [&](int32_t i, int32_t* rank, int32_t* result) {
        const int32_t j = s[i].next;
        if (j >= count || s[i].id < 0 || s[j].id < 0) return false;
        const uint32_t right_end = s[j].next < count ? s[s[j].next].start : end;
        return pairs(s[i], s[j], right_end, rank, result);
    };
    auto live = [&](const Candidate& c, int32_t* result) {
        int32_t rank;
        return pair_at(c.left, &rank, result) && rank == c.rank;
    };
    for (int32_t i = 0; i + 1 < count; ++i) {
        int32_t rank, result;
        if (pair_at(i, &rank, &result)) heap->push_back({rank, i});
    }
    std::make_heap(heap->begin(), heap->end(), later);
    auto push = [&](int32_t i) {
        int32_t rank, result;
        if (i < 0 || !pair_at(i, &rank, &result)) return;
        if (heap->size() == cap) {
            heap->erase(std::remove_if(heap->begin(), heap->end(),
                                       [&](const Candidate& c) {
                                           int32_t r;
                                           return !live(c, &r);
                                       }),
                        heap->end());
            std::make_heap(heap->begin(), heap->end(), later);
        }
        heap->push_back({rank, i});
        std::push_heap(heap->begin(), heap->end(), later);
    };
    while (!heap->empty()) {
        std::pop_heap(heap->begin(), heap->end(), later);
        const Candidate c = heap->back();
        heap->pop_back();
        int32_t result;
        if (!live(c, &result)) continue;
        Symbol& a = s[c.left];
        Symbol& b = s[a.next];
        a.id = result;
        b.id = kDead;
        a.next = b.next;
        if (b.next < count) s[b.next].prev = c.left;
        push(a.prev);
        push(c.left);
    }
}

// The pairs of the formats that list their merges (llama2, tokenizer.json): by the two ids.
struct MergeList {
    const detail::PairTable& merges;
    bool operator()(const Symbol& a, const Symbol& b, uint32_t, int32_t* rank,
                    int32_t* result) const {
        return merges.find(a.id, b.id, rank, result);
    }
};

} // namespace bpe
} // namespace hirope
