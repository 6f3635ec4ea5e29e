// Little-endian loads and a bounds-checked reader for the binary files (model weights, tokenizer
// vocabularies). Every read checks the bytes left first, so a truncated or hostile file can only
// make a read fail, never read past its end.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace hirope {
namespace util {

inline uint16_t load_u16le(const uint8_t* p) {
    return static_cast<uint16_t>(p[0] | p[1] << 8);
}

inline uint32_t load_u32le(const uint8_t* p) {
    return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
           static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24;
}

// Reads little-endian values from [data, data + size). A failed read returns false and leaves
// the position where it was.
class ByteReader {
  public:
    ByteReader(const uint8_t* data, size_t size) : data_(data), size_(size) {}

    bool u16(uint16_t* v) {
        if (remaining() < 2) return false;
        *v = load_u16le(data_ + pos_);
        pos_ += 2;
        return true;
    }
    bool u32(uint32_t* v) {
        if (remaining() < 4) return false;
        *v = load_u32le(data_ + pos_);
        pos_ += 4;
        return true;
    }
    // An IEEE binary32 stored as its little-endian bit pattern.
    bool f32(float* v) {
        uint32_t u;
        if (!u32(&u)) return false;
        std::memcpy(v, &u, 4);
        return true;
    }
    // The next `count` bytes, in place.
    bool bytes(size_t count, const uint8_t** out) {
        if (remaining() < count) return false;
        *out = data_ + pos_;
        pos_ += count;
        return true;
    }
    bool bytes(size_t count, std::string_view* out) {
        const uint8_t* p;
        if (!bytes(count, &p)) return false;
        *out = std::string_view(reinterpret_cast<const char*>(p), count);
        return true;
    }

    size_t pos() const { return pos_; }
    size_t remaining() const { return size_ - pos_; }

  private:
    const uint8_t* data_;
    size_t size_;
    size_t pos_ = 0;
};

} // namespace util
} // namespace hirope
