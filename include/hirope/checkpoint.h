// hirope checkpoints: the safetensors reader (the hirope_checkpoint library, src/checkpoint/),
// which links only hirope_util (and the tokenizers library's JSON parser, src/tokenizers/json.h).
//
// A safetensors file (huggingface/safetensors, README "Format"):
//   bytes 0..8       N, the header's length in bytes, an unsigned 64-bit little-endian integer
//   bytes 8..8+N     the header: UTF-8 JSON, an object mapping each tensor's name to
//                    {"dtype": "F16", "shape": [2, 3], "data_offsets": [begin, end]}, and an
//                    optional "__metadata__" object of string values ({"format": "pt"})
//   the rest         the data area: a tensor's bytes are [begin, end) of it (the file's bytes
//                    8 + N + begin ...), row-major, little-endian
//
// Reading in steps, so that a caller holding the file as a Blob (JS) or an mmap (Python) checks
// what it will read before it reads or allocates the tensors' bytes:
//   1. safetensors_header_length: N from the file's first 8 bytes and its size.
//   2. read_safetensors_header: the header, from the file's first 8 + N bytes (or more) and its
//      size. Every rule below is checked here, before any tensor byte is read.
//   3. tensor_weights: a view of one tensor's bytes inside a buffer the caller holds (the data
//      area, or part of it): no copy, and F16/BF16 keep their 2 bytes a value (the kernels widen
//      them with f16_to_f32 and bf16_to_f32 below).
// A sharded checkpoint adds model.safetensors.index.json: read_shard_index, then check_shards
// with every shard's header.
//
// What read_safetensors_header refuses (a Status whose message names the tensor and the values;
// the reference is the safetensors crate's SafeTensors::read_metadata and Metadata::validate):
// - a file under 8 bytes; N over Limits::max_header_bytes (100,000,000, the crate's
//   MAX_HEADER_SIZE); 8 + N past the end of the file. A file that does not start like safetensors
//   is named where its first bytes say what it is: GGUF, zip (PyTorch .bin/.pt), pickle, HDF5,
//   NumPy, a Git LFS pointer, JSON, HTML, gzip.
// - a header that is not UTF-8, not JSON, or not an object; more JSON values than
//   Limits::max_header_values.
// - an entry that is not an object of exactly "dtype", "shape" and "data_offsets" (a missing, an
//   unknown or a repeated key); a dtype that is not a string or not one of the format's dtypes
//   (DType); a shape that is not an array of integers in [0, 2^64); data_offsets that are not two
//   such integers, or end before they begin.
// - a shape whose size overflows 64 bits: the product of its dims (a 0 dim taken as 1) times the
//   dtype's bits must fit, so that every stride computed from an accepted shape fits in 64 bits;
//   a bit count that is not whole bytes (F4, F6 ...); end - begin other than the shape's bytes.
// - data_offsets past the end of the data area (a truncated file).
// - a name given twice (the JSON parser keeps repeated keys, so they are found); "__metadata__"
//   given twice, not an object, a value that is not a string, or a key given twice.
// - tensors that overlap, leave a gap between them, or leave bytes after the last one: as the
//   crate does, the tensors must tile the data area exactly (README: "The byte buffer needs to be
//   entirely indexed, and cannot contain holes. This prevents the creation of polyglot files").
//   A zero-size tensor sits at a boundary between tensors. Files written by safetensors, torch,
//   transformers and huggingface_hub all tile; a file that does not is one the reference refuses,
//   and bytes that no tensor accounts for are data nobody checked.
// Accepted as the crate accepts them: JSON whitespace around the header's object (the writer pads
// it with spaces), tensors in any order in the header, shape [] (a scalar, one element), a 0 dim
// (no bytes), an empty name, any dtype of the format (read as weights or not: see tensor_weights).
#pragma once

#include "hirope/status.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hirope {
namespace checkpoint {

// Every dtype of the safetensors format (the crate's enum Dtype), with its size in bits.
enum class DType : uint8_t {
    BOOL,        // 8
    F4,          // 4 (MXF4)
    F6_E2M3,     // 6
    F6_E3M2,     // 6
    U8,          // 8
    I8,          // 8
    F8_E5M2,     // 8
    F8_E4M3,     // 8
    F8_E8M0,     // 8
    F8_E4M3FNUZ, // 8
    F8_E5M2FNUZ, // 8
    I16,         // 16
    U16,         // 16
    F16,         // 16
    BF16,        // 16
    I32,         // 32
    U32,         // 32
    F32,         // 32
    C64,         // 64
    F64,         // 64
    I64,         // 64
    U64,         // 64
};

const char* dtype_name(DType t);                      // "BF16"
uint32_t dtype_bits(DType t);                         // 16
bool dtype_from_name(std::string_view s, DType* out); // false for a name the format lacks
// Whether tensor_weights reads this dtype: F32, F16 and BF16.
bool is_weight_dtype(DType t);

struct Limits {
    // The header's length N (the crate's MAX_HEADER_SIZE).
    uint64_t max_header_bytes = 100000000;
    // JSON values in a header (a tensor takes about 7; the parse tape is 16 bytes a value).
    size_t max_header_values = size_t{1} << 22;
    // model.safetensors.index.json: its size and JSON values (the largest real ones are ~10 MB).
    size_t max_index_bytes = size_t{64} << 20;
    size_t max_index_values = size_t{1} << 22;
};

struct TensorInfo {
    std::string name;
    DType dtype = DType::F32;
    std::vector<uint64_t> shape; // [] for a scalar
    uint64_t elements = 0;       // the product of shape (1 for [])
    uint64_t begin = 0;          // data_offsets: bytes [begin, end) of the data area
    uint64_t end = 0;
    uint64_t bytes() const { return end - begin; }
};

struct Header {
    uint64_t header_bytes = 0; // N
    uint64_t data_offset = 0;  // 8 + N: where the data area starts in the file
    uint64_t data_bytes = 0;   // the data area's size: the file's size - 8 - N
    // In data order (by begin; a zero-size tensor before the one that starts where it does; ties
    // by name). They tile [0, data_bytes).
    std::vector<TensorInfo> tensors;
    bool has_metadata = false;                                 // "__metadata__" was given
    std::vector<std::pair<std::string, std::string>> metadata; // its entries, as written
    // Indices into tensors, sorted by name (find's binary search).
    std::vector<uint32_t> by_name;

    // The tensor named `name`, or null.
    const TensorInfo* find(std::string_view name) const;
};

// Step 1. N from the file's first bytes: `bytes` holds the first `size` bytes of a file of
// `file_size` bytes; at least 8 of them (or all, for a shorter file). Checks N against the limit
// and the file's size (not the header itself); the caller then reads the file's first 8 + N bytes.
Status safetensors_header_length(const uint8_t* bytes, size_t size, uint64_t file_size,
                                 uint64_t* header_bytes, const Limits& limits = Limits());

// Step 2. The header, checked (see above). `bytes` holds the file's first `size` bytes, at least
// 8 + N of them (the whole file will do); `file_size` is the whole file's size. On error *out is
// left empty.
Status read_safetensors_header(const uint8_t* bytes, size_t size, uint64_t file_size, Header* out,
                               const Limits& limits = Limits());

// Bytes of the data area that the caller holds: `size` bytes starting at data-area offset `begin`
// (the whole area: begin 0, size header.data_bytes; for a whole file in memory, bytes is the
// file's start + header.data_offset).
struct DataSpan {
    const uint8_t* bytes = nullptr;
    uint64_t begin = 0;
    size_t size = 0;
};

// One tensor's bytes in the caller's buffer, at their stored width. `data` is not necessarily
// aligned (the format promises no alignment): read it with memcpy, or weight_at.
struct TensorView {
    const TensorInfo* info = nullptr; // into the header, which must outlive the view
    const uint8_t* data = nullptr;
    size_t bytes = 0; // info->bytes()
};

// Step 3. A view of tensor `name` as weights. Errors: a name the header lacks; a dtype other
// than F32, F16 and BF16 (named with the tensor: its values are not weights this reader widens);
// a tensor's bytes not all inside `data`.
Status tensor_weights(const Header& header, std::string_view name, const DataSpan& data,
                      TensorView* out);

// Exact widening of the stored half-width floats (IEEE 754 binary16; bfloat16, the top 16 bits of
// a binary32): every value, subnormals, infinities and NaNs (payload and sign kept) included.
inline float bf16_to_f32(uint16_t b) {
    const uint32_t u = static_cast<uint32_t>(b) << 16;
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
}

inline float f16_to_f32(uint16_t h) {
    const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    const uint32_t exponent = (h >> 10) & 0x1Fu;
    const uint32_t mantissa = h & 0x3FFu;
    uint32_t u;
    if (exponent == 0) {
        // Zero and subnormals: mantissa * 2^-24, exact in binary32 (a normal number there).
        const float magnitude = static_cast<float>(mantissa) * 0x1p-24f;
        std::memcpy(&u, &magnitude, sizeof u);
        u |= sign;
    } else if (exponent == 0x1F) {
        u = sign | 0x7F800000u | (mantissa << 13); // infinity, or a NaN with its payload
    } else {
        u = sign | ((exponent + (127 - 15)) << 23) | (mantissa << 13);
    }
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
}

// Element i (row-major, i < info->elements) of a weight view, widened to f32.
inline float weight_at(const TensorView& v, uint64_t i) {
    const uint8_t* p = v.data;
    switch (v.info->dtype) {
    case DType::F16:
    case DType::BF16: {
        p += i * 2;
        const uint16_t h = static_cast<uint16_t>(p[0] | (p[1] << 8));
        return v.info->dtype == DType::F16 ? f16_to_f32(h) : bf16_to_f32(h);
    }
    default: { // F32 (tensor_weights gives no other)
        p += i * 4;
        const uint32_t u = static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) |
                           (static_cast<uint32_t>(p[2]) << 16) |
                           (static_cast<uint32_t>(p[3]) << 24);
        float f;
        std::memcpy(&f, &u, sizeof f);
        return f;
    }
    }
}

// ---------------------------------------------------------------------------------------------
// Shards: model.safetensors.index.json, {"metadata": {"total_size": ...}, "weight_map":
// {tensor name: shard file name}} (transformers' and huggingface_hub's sharded save).

struct ShardIndex {
    bool has_total_size = false;
    uint64_t total_size = 0; // metadata.total_size as written (not checked against the shards)
    // weight_map, sorted by tensor name.
    std::vector<std::pair<std::string, std::string>> weight_map;
    std::vector<std::string> shards; // the shard files it names, sorted, each once

    // The shard file the index puts tensor `name` in, or null.
    const std::string* shard_of(std::string_view name) const;
};

// Reads an index. Refused: text over Limits::max_index_bytes or max_index_values; not JSON, or
// not an object; no "weight_map", or one that is not an object or is empty; a tensor named twice;
// a shard name that is not a string, or not a plain file name ending in ".safetensors" (empty;
// holding '/', '\\', ':' or a control character; "." or ".."); "metadata" present but not an
// object; metadata.total_size present (and not null) but not a non-negative integer. Other keys
// (of the object or of metadata) are free-form and ignored. On error *out is left empty.
Status read_shard_index(std::string_view text, ShardIndex* out, const Limits& limits = Limits());

struct ShardHeader {
    std::string file;               // its file name, as the index names it
    const Header* header = nullptr; // read_safetensors_header's
};

// Whether the shards given are the index's and agree with it. Refused: a shard given twice or
// without a header; a shard the index names that is not given; a shard given that the index names
// no tensor in; a tensor held by two shards; a tensor in a shard other than the one the index
// puts it in; a tensor the index lists that its shard does not hold; and a tensor a shard holds
// that the index does not list. The last is an error, not ignored: the index is the checkpoint's
// table of contents, and a shard it does not describe is from another save (an index and shards
// of two revisions mixed), so which weights are meant is not known.
Status check_shards(const ShardIndex& index, const std::vector<ShardHeader>& shards);

} // namespace checkpoint
} // namespace hirope
