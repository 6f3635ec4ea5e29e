// A small strict JSON parser (RFC 8259) for tokenizer.json: the whole document is parsed into a
// flat tape of nodes in document order (no tree of allocations), with strings left in place as
// spans of the input and decoded on demand. Iterative: nesting is tracked on an explicit stack
// and limited (max_depth), as are the input size and the number of nodes, each checked before
// the memory it needs is taken. Rejected: trailing commas, comments, leading zeros, NaN and
// Infinity, control characters in strings, invalid escapes, lone surrogates (\uD800 without its
// pair), bytes that are not UTF-8, and anything after the top-level value.
#pragma once

#include "hirope/status.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace hirope {
namespace json {

enum class Type : uint8_t { null, boolean, number, string, array, object };

const char* type_name(Type t);

struct Node {
    uint32_t start = 0; // strings: first byte after the quote; numbers, literals: first byte
    uint32_t len = 0;   // strings, numbers, literals: bytes; arrays: elements; objects: members
    uint32_t end = 0;   // the index one past this node's subtree
    Type type = Type::null;
    bool escaped = false; // a string holding backslash escapes
};

struct Limits {
    size_t max_bytes = size_t{256} << 20;
    size_t max_depth = 64;
    size_t max_nodes = size_t{1} << 23;
};

// Object members are stored as key (a string node), value, key, value ... in the tape.
class Document {
  public:
    Status parse(std::string_view text, const Limits& limits = Limits());

    const Node& node(uint32_t i) const { return nodes_[i]; }
    Type type(uint32_t i) const { return nodes_[i].type; }
    size_t size() const { return nodes_.size(); }
    static constexpr uint32_t root = 0;
    static constexpr uint32_t none = ~0u;

    // The raw text of a node (a string's bytes without the quotes, still escaped).
    std::string_view raw(uint32_t i) const { return text_.substr(nodes_[i].start, nodes_[i].len); }
    // A string node's value, escapes decoded.
    std::string string(uint32_t i) const;
    bool boolean(uint32_t i) const { return text_[nodes_[i].start] == 't'; }
    // A number node holding a non-negative integer below 2^31 (no fraction, no exponent).
    bool index(uint32_t i, int32_t* out) const;
    // A number node's value as a double.
    double number(uint32_t i) const;

    // Children: for (uint32_t c = first(i); c != end(i); c = next(c)).
    uint32_t first(uint32_t i) const { return i + 1; }
    uint32_t end(uint32_t i) const { return nodes_[i].end; }
    uint32_t next(uint32_t c) const { return nodes_[c].end; }
    // The value of an object's member `key` (none when absent; its last value when repeated).
    uint32_t find(uint32_t object, std::string_view key) const;
    // Whether a string node equals s.
    bool equals(uint32_t i, std::string_view s) const;

  private:
    std::string_view text_;
    std::vector<Node> nodes_;
};

} // namespace json
} // namespace hirope
