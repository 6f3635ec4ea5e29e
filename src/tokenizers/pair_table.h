// The merge table of the BPE tokenizers: (left id, right id) -> (rank, result id), open
// addressing with linear probing, flat in memory (the merge loops are dominated by its lookups).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace hirope {
namespace detail {

// A later insert of the same pair replaces the earlier (the references build a hash map from the
// merge list: the last rank wins).
class PairTable {
  public:
    void reserve(size_t count) {
        size_t cap = 16;
        while (cap < count * 2) cap *= 2;
        slots_.assign(cap, Slot{kEmpty, 0, 0});
        mask_ = cap - 1;
    }
    void insert(int32_t a, int32_t b, int32_t rank, int32_t result) {
        const uint64_t k = key(a, b);
        size_t i = hash(k) & mask_;
        while (slots_[i].key != kEmpty && slots_[i].key != k) i = (i + 1) & mask_;
        slots_[i] = Slot{k, rank, result};
    }
    bool find(int32_t a, int32_t b, int32_t* rank, int32_t* result) const {
        const uint64_t k = key(a, b);
        for (size_t i = hash(k) & mask_;; i = (i + 1) & mask_) {
            if (slots_[i].key == k) {
                *rank = slots_[i].rank;
                *result = slots_[i].result;
                return true;
            }
            if (slots_[i].key == kEmpty) return false;
        }
    }
    size_t bytes() const { return slots_.size() * sizeof(Slot); }

  private:
    static constexpr uint64_t kEmpty = ~0ULL;
    struct Slot {
        uint64_t key;
        int32_t rank, result;
    };
    static uint64_t key(int32_t a, int32_t b) {
        return (static_cast<uint64_t>(static_cast<uint32_t>(a)) << 32) | static_cast<uint32_t>(b);
    }
    static size_t hash(uint64_t k) {
        k ^= k >> 33;
        k *= 0xff51afd7ed558ccdULL;
        k ^= k >> 33;
        return static_cast<size_t>(k);
    }
    std::vector<Slot> slots_;
    size_t mask_ = 0;
};

} // namespace detail
} // namespace hirope
