// The model's part of the scheme catalogue (hirope.h): where HiRoPE's higher indices of bytes
// come from.
#include "hirope/model.h"

namespace hirope {
namespace model {

const std::vector<EnumValue>& byte_hierarchies() {
    static const std::vector<EnumValue> v = {
        {"units", static_cast<int>(ByteHierarchy::units), "top-level units",
         "Top-level functions and classes of the tree-sitter parse"},
        {"statements", static_cast<int>(ByteHierarchy::statements), "statements",
         "Statements of the tree-sitter parse"},
        {"segments", static_cast<int>(ByteHierarchy::segments), "fixed segments",
         "Fixed-size runs of bytes"},
    };
    return v;
}

const std::vector<EnumValue>& context_limits() {
    static const std::vector<EnumValue> v = {
        {"none", static_cast<int>(ContextLimitType::none), "none",
         "Every prediction sees every byte before it"},
        {"sliding-window", static_cast<int>(ContextLimitType::sliding_window), "sliding window",
         "Attention in every layer reaches only the last `window` bytes"},
        {"truncate", static_cast<int>(ContextLimitType::truncate), "truncate",
         "Each prediction sees only the last `length` bytes, as if the file began there"},
    };
    return v;
}

} // namespace model
} // namespace hirope
