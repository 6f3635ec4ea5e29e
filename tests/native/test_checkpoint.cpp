// The safetensors reader and the shard index (include/hirope/checkpoint.h). Every file here is
// written byte by byte from the format's description (huggingface/safetensors README "Format": an
// 8-byte little-endian N, N bytes of JSON, the data area), and every expected value from IEEE 754's
// definitions of binary32, binary16 and bfloat16, not from the reader. One test per rule the
// header states, each with its whole message.
#include "hirope/checkpoint.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

using namespace hirope;
using namespace hirope::checkpoint;

namespace {

std::string le64(uint64_t n) {
    std::string s(8, '\0');
    for (int i = 0; i < 8; ++i) s[i] = static_cast<char>((n >> (8 * i)) & 0xFF);
    return s;
}

// A safetensors file: N, the header, the data area.
std::string st_file(const std::string& header, const std::string& data = "") {
    return le64(header.size()) + header + data;
}

const uint8_t* u8(const std::string& s) {
    return reinterpret_cast<const uint8_t*>(s.data());
}

Status read(const std::string& file, Header* h, const Limits& limits = Limits()) {
    return read_safetensors_header(u8(file), file.size(), file.size(), h, limits);
}

// The error reading `file` gives (or "ok").
std::string error_of(const std::string& file, const Limits& limits = Limits()) {
    Header h;
    const Status st = read(file, &h, limits);
    if (st.ok()) return "ok";
    // A refused header leaves nothing behind.
    CHECK(h.tensors.empty());
    CHECK(h.metadata.empty());
    CHECK(h.header_bytes == 0);
    return st.message();
}

// A header of one entry {"t": ENTRY} over `data`.
std::string one(const std::string& entry, const std::string& data = "") {
    return st_file("{\"t\":" + entry + "}", data);
}

// Bytes of a binary32 value, little-endian, from its bit pattern.
std::string f32_bytes(uint32_t bits) {
    return le64(bits).substr(0, 4);
}
std::string u16_bytes(uint16_t bits) {
    return le64(bits).substr(0, 2);
}

uint32_t bits_of(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}

DataSpan whole(const std::string& file, const Header& h) {
    DataSpan s;
    s.bytes = u8(file) + h.data_offset;
    s.size = static_cast<size_t>(h.data_bytes);
    return s;
}

} // namespace

// ---------------------------------------------------------------------------------------------
// Valid files

TEST_CASE("safetensors: an F32 file with metadata, viewed in place", "[checkpoint]") {
    // 1.0 = 0x3F800000, -2.5 = 0xC0200000, 0.5 = 0x3F000000, 3.0 = 0x40400000.
    const std::string data = f32_bytes(0x3F800000) + f32_bytes(0xC0200000) + f32_bytes(0x3F000000) +
                             f32_bytes(0x40400000);
    const std::string header = "{\"__metadata__\":{\"format\":\"pt\",\"note\":\"a\\u00e9\"},"
                               "\"w\":{\"dtype\":\"F32\",\"shape\":[2,2],\"data_offsets\":[0,16]}}";
    const std::string file = st_file(header, data);
    Header h;
    REQUIRE(read(file, &h).ok());
    CHECK(h.header_bytes == header.size());
    CHECK(h.data_offset == 8 + header.size());
    CHECK(h.data_bytes == 16);
    REQUIRE(h.has_metadata);
    REQUIRE(h.metadata.size() == 2);
    CHECK(h.metadata[0] == std::make_pair(std::string("format"), std::string("pt")));
    CHECK(h.metadata[1] == std::make_pair(std::string("note"), std::string("a\xC3\xA9")));
    REQUIRE(h.tensors.size() == 1);
    const TensorInfo& t = h.tensors[0];
    CHECK(t.name == "w");
    CHECK(t.dtype == DType::F32);
    CHECK(t.shape == std::vector<uint64_t>{2, 2});
    CHECK(t.elements == 4);
    CHECK(t.begin == 0);
    CHECK(t.end == 16);
    CHECK(h.find("w") == &t);
    CHECK(h.find("x") == nullptr);

    TensorView v;
    REQUIRE(tensor_weights(h, "w", whole(file, h), &v).ok());
    CHECK(v.info == &t);
    CHECK(v.data == u8(file) + 8 + header.size()); // no copy: the caller's bytes
    CHECK(v.bytes == 16);
    CHECK(weight_at(v, 0) == 1.0f);
    CHECK(weight_at(v, 1) == -2.5f);
    CHECK(weight_at(v, 2) == 0.5f);
    CHECK(weight_at(v, 3) == 3.0f);
}

TEST_CASE("safetensors: F16 and BF16 keep their width; header order is not data order",
          "[checkpoint]") {
    // F16: 1.0 = 0x3C00, -2.0 = 0xC000, 65504 = 0x7BFF. BF16: 1.0 = 0x3F80, -2.5 = 0xC020.
    const std::string data = u16_bytes(0x3C00) + u16_bytes(0xC000) + u16_bytes(0x7BFF) +
                             u16_bytes(0x3F80) + u16_bytes(0xC020);
    // The writer pads the header with spaces (to a multiple of 8); "b" is listed first but is
    // stored second.
    const std::string header =
        "{\"b\":{\"dtype\":\"BF16\",\"shape\":[2],\"data_offsets\":[6,10]},"
        "\"a\":{\"dtype\":\"F16\",\"shape\":[1,3],\"data_offsets\":[0,6]}}     ";
    const std::string file = st_file(header, data);
    Header h;
    REQUIRE(read(file, &h).ok());
    CHECK_FALSE(h.has_metadata);
    REQUIRE(h.tensors.size() == 2);
    CHECK(h.tensors[0].name == "a"); // data order
    CHECK(h.tensors[1].name == "b");
    CHECK(h.by_name == std::vector<uint32_t>{0, 1});

    TensorView a, b;
    REQUIRE(tensor_weights(h, "a", whole(file, h), &a).ok());
    REQUIRE(tensor_weights(h, "b", whole(file, h), &b).ok());
    CHECK(a.bytes == 6); // 2 bytes a value, as stored
    CHECK(b.bytes == 4);
    CHECK(a.data == u8(file) + h.data_offset);
    CHECK(b.data == u8(file) + h.data_offset + 6);
    CHECK(weight_at(a, 0) == 1.0f);
    CHECK(weight_at(a, 1) == -2.0f);
    CHECK(weight_at(a, 2) == 65504.0f);
    CHECK(weight_at(b, 0) == 1.0f);
    CHECK(weight_at(b, 1) == -2.5f);
}

TEST_CASE("safetensors: zero-size tensors, scalars, and files with no tensors", "[checkpoint]") {
    // [0, 4] stores nothing; [] is one element; a 0 dim beside a huge one has no elements.
    const std::string header =
        "{\"s\":{\"dtype\":\"F32\",\"shape\":[],\"data_offsets\":[0,4]},"
        "\"e\":{\"dtype\":\"F16\",\"shape\":[0,4],\"data_offsets\":[4,4]},"
        "\"z\":{\"dtype\":\"BF16\",\"shape\":[1099511627776,0],\"data_offsets\":[4,4]},"
        "\"f\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,8]},"
        "\"last\":{\"dtype\":\"F32\",\"shape\":[3,0],\"data_offsets\":[8,8]}}";
    const std::string file = st_file(header, f32_bytes(0x40490FDB) + f32_bytes(0xBF800000));
    Header h;
    REQUIRE(read(file, &h).ok());
    REQUIRE(h.tensors.size() == 5);
    // By begin, then end, then name: s [0,4], e [4,4], z [4,4], f [4,8], last [8,8].
    CHECK(h.tensors[0].name == "s");
    CHECK(h.tensors[1].name == "e");
    CHECK(h.tensors[2].name == "z");
    CHECK(h.tensors[3].name == "f");
    CHECK(h.tensors[4].name == "last");
    CHECK(h.find("s")->elements == 1);
    CHECK(h.find("s")->shape.empty());
    CHECK(h.find("e")->elements == 0);
    CHECK(h.find("z")->elements == 0);
    CHECK(h.find("last")->elements == 0);
    TensorView v;
    REQUIRE(tensor_weights(h, "s", whole(file, h), &v).ok());
    CHECK(weight_at(v, 0) == 3.14159274101257324f); // 0x40490FDB
    REQUIRE(tensor_weights(h, "e", whole(file, h), &v).ok());
    CHECK(v.bytes == 0);
    REQUIRE(tensor_weights(h, "f", whole(file, h), &v).ok());
    CHECK(weight_at(v, 0) == -1.0f);

    // No tensors at all: {} and metadata alone, with no data.
    REQUIRE(read(st_file("{}"), &h).ok());
    CHECK(h.tensors.empty());
    CHECK(h.data_bytes == 0);
    REQUIRE(read(st_file(" {\"__metadata__\":{}} "), &h).ok());
    CHECK(h.has_metadata);
    CHECK(h.metadata.empty());
}

TEST_CASE("safetensors: every dtype of the format is read; weights only as F32, F16, BF16",
          "[checkpoint]") {
    struct D {
        const char* name;
        int bits;
    };
    // Bits per element from the format (the crate's Dtype::bitsize).
    const D dtypes[] = {{"BOOL", 8},    {"F4", 4},          {"F6_E2M3", 6},     {"F6_E3M2", 6},
                        {"U8", 8},      {"I8", 8},          {"F8_E5M2", 8},     {"F8_E4M3", 8},
                        {"F8_E8M0", 8}, {"F8_E4M3FNUZ", 8}, {"F8_E5M2FNUZ", 8}, {"I16", 16},
                        {"U16", 16},    {"F16", 16},        {"BF16", 16},       {"I32", 32},
                        {"U32", 32},    {"F32", 32},        {"C64", 64},        {"F64", 64},
                        {"I64", 64},    {"U64", 64}};
    // Each as a [4, 2] tensor (8 elements: whole bytes for every dtype), one after the other.
    std::string header = "{";
    uint64_t at = 0;
    for (const D& d : dtypes) {
        const uint64_t bytes = 8 * static_cast<uint64_t>(d.bits) / 8;
        if (at) header += ",";
        header += "\"t_" + std::string(d.name) + "\":{\"dtype\":\"" + d.name +
                  "\",\"shape\":[4,2],\"data_offsets\":[" + std::to_string(at) + "," +
                  std::to_string(at + bytes) + "]}";
        at += bytes;
    }
    header += "}";
    const std::string file = st_file(header, std::string(at, '\x01'));
    Header h;
    REQUIRE(read(file, &h).ok());
    REQUIRE(h.tensors.size() == 22);
    for (const D& d : dtypes) {
        const TensorInfo* t = h.find(std::string("t_") + d.name);
        REQUIRE(t != nullptr);
        CHECK(dtype_name(t->dtype) == std::string(d.name));
        CHECK(dtype_bits(t->dtype) == static_cast<uint32_t>(d.bits));
        CHECK(t->bytes() == static_cast<uint64_t>(d.bits));
        TensorView v;
        const Status st = tensor_weights(h, t->name, whole(file, h), &v);
        const std::string n = d.name;
        if (n == "F32" || n == "F16" || n == "BF16") {
            CHECK(st.ok());
        } else {
            CHECK(st.message() == "safetensors: tensor \"t_" + n + "\" is " + n +
                                      "; weights are read as F32, F16 or BF16 only");
            CHECK(v.data == nullptr);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Reading in steps: N from 8 bytes, the header from 8 + N, the tensors from the caller's buffer.

TEST_CASE("safetensors: the header is read from the file's first 8 + N bytes", "[checkpoint]") {
    const std::string header = "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
                               "\"b\":{\"dtype\":\"F16\",\"shape\":[2],\"data_offsets\":[8,12]}}";
    const std::string file =
        st_file(header, f32_bytes(0x3F800000) + f32_bytes(0x40000000) + u16_bytes(0x4200) +
                            u16_bytes(0x3800)); // F16 3.0, 0.5
    uint64_t n = 0;
    REQUIRE(safetensors_header_length(u8(file), 8, file.size(), &n).ok());
    CHECK(n == header.size());
    Header h;
    REQUIRE(read_safetensors_header(u8(file), 8 + n, file.size(), &h).ok());
    CHECK(h.data_bytes == 12);
    CHECK(h.tensors.size() == 2);
    CHECK(read_safetensors_header(u8(file), 8 + n - 1, file.size(), &h).message() ==
          "safetensors: the header is the file's first 8 + " + std::to_string(n) +
              " bytes, but only " + std::to_string(7 + n) + " were given");
    CHECK(h.tensors.empty());
    uint64_t refused = 1;
    CHECK(safetensors_header_length(u8(file), 7, file.size(), &refused).message() ==
          "safetensors: the header length is the file's first 8 bytes, but only 7 were given");
    CHECK(refused == 0);
    CHECK(safetensors_header_length(u8(file), 20, 10, &refused).message() ==
          "safetensors: 20 bytes were given of a file of 10");
    CHECK(error_of(std::string("\x01", 1)) ==
          "safetensors: the file is 1 byte, shorter than the 8-byte header length");

    // A buffer holding only tensor b's bytes (data-area offsets [8, 12)).
    REQUIRE(read_safetensors_header(u8(file), 8 + n, file.size(), &h).ok());
    const std::string b_bytes = file.substr(h.data_offset + 8, 4);
    DataSpan span;
    span.bytes = u8(b_bytes);
    span.begin = 8;
    span.size = 4;
    TensorView v;
    REQUIRE(tensor_weights(h, "b", span, &v).ok());
    CHECK(v.data == u8(b_bytes));
    CHECK(weight_at(v, 0) == 3.0f);
    CHECK(weight_at(v, 1) == 0.5f);
    CHECK(tensor_weights(h, "a", span, &v).message() ==
          "safetensors: tensor \"a\" is bytes [0, 8) of the data area, not all inside the buffer "
          "given, [8, 12)");
    span.size = 3;
    CHECK(tensor_weights(h, "b", span, &v).message() ==
          "safetensors: tensor \"b\" is bytes [8, 12) of the data area, not all inside the buffer "
          "given, [8, 11)");
    CHECK(v.info == nullptr);
    CHECK(tensor_weights(h, "c", whole(file, h), &v).message() ==
          "safetensors: no tensor \"c\" in the file (it has 2)");
}

// ---------------------------------------------------------------------------------------------
// The header length

TEST_CASE("safetensors: file size and header length are checked first", "[checkpoint]") {
    CHECK(error_of("") == "safetensors: the file is empty");
    CHECK(error_of(std::string("\x01\x00\x00", 3)) ==
          "safetensors: the file is 3 bytes, shorter than the 8-byte header length");
    // The crate's MAX_HEADER_SIZE: 100,000,000 (the length alone is checked; no header follows).
    CHECK(error_of(le64(100000001) + "{}") ==
          "safetensors: the header length is 100000001 bytes, over the limit of 100000000");
    Limits small;
    small.max_header_bytes = 4;
    CHECK(error_of(st_file("{}     "), small) ==
          "safetensors: the header length is 7 bytes, over the limit of 4");
    CHECK(error_of(le64(10) + "{}") ==
          "safetensors: the header length is 10 bytes, but the file has only 2 after its 8-byte "
          "length");
    CHECK(error_of(le64(~uint64_t{0})) ==
          "safetensors: the header length is 18446744073709551615 bytes, over the limit of "
          "100000000");
    // The limit is checked on N itself: exactly 100,000,000 passes the length check.
    uint64_t n = 0;
    const std::string at_limit = le64(100000000);
    CHECK(safetensors_header_length(u8(at_limit), 8, 100000008, &n).ok());
    CHECK(n == 100000000);
}

TEST_CASE("safetensors: a file of another kind is named", "[checkpoint]") {
    // Each from its format's magic number or text start.
    CHECK(error_of(std::string("GGUF\x03\x00\x00\x00", 8) + std::string(32, '\0')) ==
          "safetensors: the header length is 14064895815 bytes, over the limit of 100000000; "
          "the file looks like a GGUF file (llama.cpp's format), not safetensors");
    CHECK(error_of(std::string("PK\x03\x04\x00\x00\x08\x08", 8) + "archive/data.pkl") ==
          "safetensors: the header length is 578712552184433488 bytes, over the limit of "
          "100000000; the file looks like a zip archive (a PyTorch .bin or .pt checkpoint is "
          "one), not safetensors");
    // torch.save before 1.6: pickle protocol 2, then LONG1 with the magic number.
    CHECK(error_of(std::string("\x80\x02\x8a\x0a\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8", 12)) ==
          "safetensors: the header length is 5088219219985302144 bytes, over the limit of "
          "100000000; the file looks like a Python pickle (a PyTorch checkpoint saved before "
          "torch 1.6, or a .pkl file), not safetensors");
    CHECK(error_of("version https://git-lfs.github.com/spec/v1\noid sha256:ab\nsize 12\n") ==
          "safetensors: the header length is 2336927755350992246 bytes, over the limit of "
          "100000000; the file looks like a Git LFS pointer: the file itself was not downloaded "
          "(git lfs pull), not safetensors");
    CHECK(error_of("{\n  \"metadata\": {\"total_size\": 8},\n  \"weight_map\": {}\n}\n") ==
          "safetensors: the header length is 8387229874382703227 bytes, over the limit of "
          "100000000; the file looks like a JSON text (config.json, tokenizer.json or "
          "model.safetensors.index.json?), not safetensors");
    CHECK(error_of("<!DOCTYPE html><html><body>Not found</body></html>") ==
          "safetensors: the header length is 5789751444030890300 bytes, over the limit of "
          "100000000; the file looks like an HTML page (a download that returned a web page?), "
          "not safetensors");
    CHECK(error_of(std::string("\x89HDF\r\n\x1a\n", 8) + std::string(16, '\0')) ==
          "safetensors: the header length is 727905341903489161 bytes, over the limit of "
          "100000000; the file looks like an HDF5 file (Keras or TensorFlow .h5), not "
          "safetensors");
    CHECK(error_of("{}") == "safetensors: the file is 2 bytes, shorter than the 8-byte header "
                            "length; the file looks like a JSON text (config.json, tokenizer.json "
                            "or model.safetensors.index.json?), not safetensors");
}

// ---------------------------------------------------------------------------------------------
// The header's text

TEST_CASE("safetensors: the header must be UTF-8 JSON holding an object", "[checkpoint]") {
    // 0xFF is never UTF-8; 0xC0 0xAF is an overlong '/'; 0xED 0xA0 0x80 a surrogate.
    CHECK(error_of(st_file("{\"a\xFF\":1}")) ==
          "safetensors header: not UTF-8: byte 0xFF at offset 3 of the header");
    CHECK(error_of(st_file("{\"\xC0\xAF\":1}")) ==
          "safetensors header: not UTF-8: byte 0xC0 at offset 2 of the header");
    CHECK(error_of(st_file("{\"\xED\xA0\x80\":1}")) ==
          "safetensors header: not UTF-8: byte 0xED at offset 2 of the header");
    CHECK(error_of(st_file("{\"a\":")) ==
          "safetensors header: invalid JSON at line 1, column 6: unexpected end of input");
    CHECK(error_of(st_file("{\"a\":{},}")) ==
          "safetensors header: invalid JSON at line 1, column 9: expected a key string");
    CHECK(error_of(st_file("")) ==
          "safetensors header: invalid JSON at line 1, column 1: unexpected end of input");
    CHECK(error_of(st_file("[]")) == "safetensors header: must be a JSON object, got an array");
    CHECK(error_of(st_file("{} x")) ==
          "safetensors header: invalid JSON at line 1, column 4: text after the top-level value");
    Limits few;
    few.max_header_values = 5;
    CHECK(error_of(one("{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}", "abcd"), few) ==
          "safetensors header: invalid JSON at line 1, column 27: more values than the limit "
          "of 5 JSON values");
}

// ---------------------------------------------------------------------------------------------
// Entries

TEST_CASE("safetensors: an entry is exactly dtype, shape and data_offsets", "[checkpoint]") {
    CHECK(error_of(one("[1]")) == "safetensors header: tensor \"t\" must be an object "
                                  "{\"dtype\", \"shape\", \"data_offsets\"}, got an array");
    CHECK(error_of(one("{\"shape\":[],\"data_offsets\":[0,4]}", "abcd")) ==
          "safetensors header: tensor \"t\" has no \"dtype\"");
    CHECK(error_of(one("{\"dtype\":\"F32\",\"data_offsets\":[0,4]}", "abcd")) ==
          "safetensors header: tensor \"t\" has no \"shape\"");
    CHECK(error_of(one("{\"dtype\":\"F32\",\"shape\":[]}", "abcd")) ==
          "safetensors header: tensor \"t\" has no \"data_offsets\"");
    CHECK(
        error_of(one("{\"dtype\":\"F32\",\"shape\":[],\"data_offsets\":[0,4],\"x\":1}", "abcd")) ==
        "safetensors header: tensor \"t\" has an unknown key \"x\" (an entry has exactly "
        "\"dtype\", \"shape\" and \"data_offsets\")");
    CHECK(error_of(one("{\"dtype\":\"F32\",\"dtype\":\"F16\",\"shape\":[],\"data_offsets\":[0,4]}",
                       "abcd")) == "safetensors header: tensor \"t\" gives \"dtype\" twice");
    // Names in messages are quoted as JSON and cut at 120 bytes.
    const std::string longname(300, 'n');
    CHECK(error_of(st_file("{\"a\\nb\":1,\"" + longname + "\":1}")) ==
          "safetensors header: tensor \"a\\u000ab\" must be an object {\"dtype\", \"shape\", "
          "\"data_offsets\"}, got a number");
    CHECK(error_of(st_file("{\"" + longname + "\":1}")) ==
          "safetensors header: tensor \"" + std::string(120, 'n') +
              "\"... must be an object {\"dtype\", \"shape\", \"data_offsets\"}, got a number");
}

TEST_CASE("safetensors: dtype is a string naming one of the format's dtypes", "[checkpoint]") {
    CHECK(error_of(one("{\"dtype\":32,\"shape\":[],\"data_offsets\":[0,4]}", "abcd")) ==
          "safetensors header: tensor \"t\": dtype must be a string, got 32");
    CHECK(error_of(one("{\"dtype\":\"F128\",\"shape\":[],\"data_offsets\":[0,16]}",
                       std::string(16, 'x'))) ==
          "safetensors header: tensor \"t\" has an unknown dtype \"F128\"");
    CHECK(error_of(one("{\"dtype\":\"f32\",\"shape\":[],\"data_offsets\":[0,4]}", "abcd")) ==
          "safetensors header: tensor \"t\" has an unknown dtype \"f32\""); // names are exact
}

TEST_CASE("safetensors: shape is an array of integers in [0, 2^64)", "[checkpoint]") {
    auto with_shape = [](const std::string& shape) {
        return one("{\"dtype\":\"F32\",\"shape\":" + shape + ",\"data_offsets\":[0,4]}", "abcd");
    };
    CHECK(error_of(with_shape("4")) ==
          "safetensors header: tensor \"t\": shape must be an array of non-negative integers, "
          "got 4");
    CHECK(error_of(with_shape("[1,-1]")) ==
          "safetensors header: tensor \"t\": shape[1] must be an integer in [0, 2^64), got -1");
    CHECK(error_of(with_shape("[1.0]")) ==
          "safetensors header: tensor \"t\": shape[0] must be an integer in [0, 2^64), got 1.0");
    CHECK(error_of(with_shape("[1e0]")) ==
          "safetensors header: tensor \"t\": shape[0] must be an integer in [0, 2^64), got 1e0");
    CHECK(error_of(with_shape("[\"1\"]")) ==
          "safetensors header: tensor \"t\": shape[0] must be an integer in [0, 2^64), got \"1\"");
    CHECK(error_of(with_shape("[[1]]")) ==
          "safetensors header: tensor \"t\": shape[0] must be an integer in [0, 2^64), got an "
          "array");
    CHECK(error_of(with_shape("[18446744073709551616]")) ==
          "safetensors header: tensor \"t\": shape[0] must be an integer in [0, 2^64), got "
          "18446744073709551616");
}

TEST_CASE("safetensors: data_offsets are two integers, begin <= end", "[checkpoint]") {
    auto with_offsets = [](const std::string& offsets) {
        return one("{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":" + offsets + "}", "abcd");
    };
    CHECK(error_of(with_offsets("{}")) ==
          "safetensors header: tensor \"t\": data_offsets must be an array of two integers "
          "[begin, end], got an object");
    CHECK(error_of(with_offsets("[0,4,8]")) ==
          "safetensors header: tensor \"t\": data_offsets must be an array of two integers "
          "[begin, end], got an array of 3");
    CHECK(error_of(with_offsets("[-1,4]")) ==
          "safetensors header: tensor \"t\": data_offsets[0] must be an integer in [0, 2^64), got "
          "-1");
    CHECK(error_of(with_offsets("[0,null]")) ==
          "safetensors header: tensor \"t\": data_offsets[1] must be an integer in [0, 2^64), got "
          "null");
    CHECK(error_of(with_offsets("[4,0]")) ==
          "safetensors header: tensor \"t\": data_offsets [4, 0] end before they begin");
}

TEST_CASE("safetensors: sizes are computed without overflow and match the offsets",
          "[checkpoint]") {
    // 2^32 * 2^32 elements overflow 64 bits; so do 2^62 * 8 F32 (2^70 bits), the 0 dim taken as 1.
    CHECK(error_of(one("{\"dtype\":\"U8\",\"shape\":[4294967296,4294967296],\"data_offsets\":[0,"
                       "4]}",
                       "abcd")) == "safetensors header: tensor \"t\": shape [4294967296, "
                                   "4294967296] of U8 is more than 2^64 bits");
    CHECK(error_of(one("{\"dtype\":\"F32\",\"shape\":[0,4611686018427387904,8],\"data_offsets\":["
                       "0,0]}")) ==
          "safetensors header: tensor \"t\": shape [0, 4611686018427387904, 8] of F32 is more than "
          "2^64 bits");
    // Just below: 2^58 U8 elements are 2^61 bits; then the byte count differs.
    CHECK(error_of(one("{\"dtype\":\"U8\",\"shape\":[288230376151711744],\"data_offsets\":[0,4]}",
                       "abcd")) ==
          "safetensors header: tensor \"t\": shape [288230376151711744] of U8 is "
          "288230376151711744 bytes, but data_offsets [0, 4] hold 4");
    CHECK(error_of(one("{\"dtype\":\"F32\",\"shape\":[2,2],\"data_offsets\":[0,12]}",
                       std::string(12, 'x'))) ==
          "safetensors header: tensor \"t\": shape [2, 2] of F32 is 16 bytes, but data_offsets "
          "[0, 12] hold 12");
    CHECK(error_of(one("{\"dtype\":\"BF16\",\"shape\":[],\"data_offsets\":[0,4]}", "abcd")) ==
          "safetensors header: tensor \"t\": shape [] of BF16 is 2 bytes, but data_offsets [0, "
          "4] hold 4");
    // Sub-byte dtypes must fill whole bytes.
    CHECK(error_of(one("{\"dtype\":\"F4\",\"shape\":[3],\"data_offsets\":[0,2]}", "ab")) ==
          "safetensors header: tensor \"t\": 3 elements of F4 are 12 bits, not a whole number of "
          "bytes");
    CHECK(error_of(one("{\"dtype\":\"F6_E2M3\",\"shape\":[4],\"data_offsets\":[0,3]}", "abc")) ==
          "ok");
}

TEST_CASE("safetensors: offsets stay inside the data area", "[checkpoint]") {
    // A truncated file: the tensor needs 16 bytes, 12 are there.
    CHECK(error_of(one("{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,16]}",
                       std::string(12, 'x'))) ==
          "safetensors header: tensor \"t\": data_offsets [0, 16] end past the data area, which "
          "is 12 bytes (a truncated file?)");
    CHECK(error_of(one("{\"dtype\":\"F32\",\"shape\":[0],\"data_offsets\":[18446744073709551615,"
                       "18446744073709551615]}")) ==
          "safetensors header: tensor \"t\": data_offsets [18446744073709551615, "
          "18446744073709551615] end past the data area, which is 0 bytes (a truncated file?)");
}

TEST_CASE("safetensors: names are unique (a repeated JSON key is found)", "[checkpoint]") {
    const std::string e0 = "{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]}";
    const std::string e1 = "{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[1,2]}";
    CHECK(error_of(st_file("{\"a\":" + e0 + ",\"a\":" + e1 + "}", "xy")) ==
          "safetensors header: tensor \"a\" is given twice");
    // The same name written with an escape is the same name.
    CHECK(error_of(st_file("{\"a\":" + e0 + ",\"\\u0061\":" + e1 + "}", "xy")) ==
          "safetensors header: tensor \"a\" is given twice");
}

TEST_CASE("safetensors: __metadata__ is one object of strings, each key once", "[checkpoint]") {
    CHECK(error_of(st_file("{\"__metadata__\":[\"pt\"]}")) ==
          "safetensors header: __metadata__ must be an object of strings, got an array");
    CHECK(error_of(st_file("{\"__metadata__\":{\"format\":\"pt\",\"step\":3}}")) ==
          "safetensors header: __metadata__ \"step\" must be a string, got 3");
    CHECK(error_of(st_file("{\"__metadata__\":{\"a\":\"1\",\"b\":\"2\",\"a\":\"3\"}}")) ==
          "safetensors header: __metadata__ gives the key \"a\" twice");
    CHECK(error_of(st_file("{\"__metadata__\":{},\"__metadata__\":{}}")) ==
          "safetensors header: \"__metadata__\" is given twice");
}

TEST_CASE("safetensors: tensors tile the data area: no overlap, no gap, nothing after",
          "[checkpoint]") {
    auto entry = [](uint64_t b, uint64_t e) {
        return "{\"dtype\":\"U8\",\"shape\":[" + std::to_string(e - b) + "],\"data_offsets\":[" +
               std::to_string(b) + "," + std::to_string(e) + "]}";
    };
    CHECK(error_of(st_file("{\"a\":" + entry(0, 4) + ",\"b\":" + entry(2, 6) + "}",
                           std::string(6, 'x'))) ==
          "safetensors header: tensor \"b\" (data_offsets [2, 6]) begins inside tensor \"a\" "
          "([0, 4]): tensors must not overlap");
    // The same bytes twice (two names for one storage) overlap too.
    CHECK(error_of(st_file("{\"b\":" + entry(0, 4) + ",\"a\":" + entry(0, 4) + "}",
                           std::string(4, 'x'))) ==
          "safetensors header: tensor \"b\" (data_offsets [0, 4]) begins inside tensor \"a\" "
          "([0, 4]): tensors must not overlap");
    // A zero-size tensor inside another one does not sit at a boundary.
    CHECK(error_of(st_file("{\"a\":" + entry(0, 4) + ",\"z\":" + entry(2, 2) + "}",
                           std::string(4, 'x'))) ==
          "safetensors header: tensor \"z\" (data_offsets [2, 2]) begins inside tensor \"a\" "
          "([0, 4]): tensors must not overlap");
    CHECK(error_of(st_file("{\"a\":" + entry(0, 4) + ",\"b\":" + entry(6, 8) + "}",
                           std::string(8, 'x'))) ==
          "safetensors header: bytes [4, 6) of the data area belong to no tensor (between tensor "
          "\"a\" and tensor \"b\"): the tensors must fill the data area without gaps");
    CHECK(error_of(st_file("{\"a\":" + entry(2, 4) + "}", std::string(4, 'x'))) ==
          "safetensors header: bytes [0, 2) of the data area belong to no tensor (before tensor "
          "\"a\"): the tensors must fill the data area without gaps");
    CHECK(error_of(st_file("{\"a\":" + entry(0, 4) + "}", std::string(5, 'x'))) ==
          "safetensors header: bytes [4, 5) of the data area belong to no tensor (after the last, "
          "tensor \"a\"): the tensors must fill the data area, up to the end of the file");
    CHECK(error_of(st_file("{\"__metadata__\":{}}", "x")) ==
          "safetensors header: bytes [0, 1) of the data area belong to no tensor (the header has "
          "none): the tensors must fill the data area, up to the end of the file");
}

// ---------------------------------------------------------------------------------------------
// Half-width floats, against IEEE 754's definitions

namespace {

// binary16: sign, 5 exponent bits (bias 15), 10 fraction bits.
double f16_value(uint16_t h) {
    const int s = h >> 15, e = (h >> 10) & 0x1F, m = h & 0x3FF;
    double v;
    if (e == 0)
        v = std::ldexp(static_cast<double>(m), -14 - 10); // subnormal: 0.m * 2^-14
    else if (e == 31)
        v = m == 0 ? std::numeric_limits<double>::infinity()
                   : std::numeric_limits<double>::quiet_NaN();
    else
        v = std::ldexp(static_cast<double>(1024 + m), e - 15 - 10); // 1.m * 2^(e - 15)
    return s ? -v : v;
}

// bfloat16: sign, 8 exponent bits (bias 127), 7 fraction bits.
double bf16_value(uint16_t b) {
    const int s = b >> 15, e = (b >> 7) & 0xFF, m = b & 0x7F;
    double v;
    if (e == 0)
        v = std::ldexp(static_cast<double>(m), -126 - 7);
    else if (e == 255)
        v = m == 0 ? std::numeric_limits<double>::infinity()
                   : std::numeric_limits<double>::quiet_NaN();
    else
        v = std::ldexp(static_cast<double>(128 + m), e - 127 - 7);
    return s ? -v : v;
}

} // namespace

TEST_CASE("checkpoint: f16_to_f32 and bf16_to_f32 are exact for every bit pattern",
          "[checkpoint]") {
    int checked = 0;
    for (uint32_t i = 0; i < 65536; ++i) {
        const uint16_t x = static_cast<uint16_t>(i);
        const float f = f16_to_f32(x), b = bf16_to_f32(x);
        const double ef = f16_value(x), eb = bf16_value(x);
        if (std::isnan(ef)) {
            REQUIRE(std::isnan(f));
        } else {
            REQUIRE(static_cast<double>(f) == ef);
        }
        if (std::isnan(eb)) {
            REQUIRE(std::isnan(b));
        } else {
            REQUIRE(static_cast<double>(b) == eb);
        }
        REQUIRE(std::signbit(f) == ((x >> 15) != 0)); // zeros and NaNs keep their sign
        REQUIRE(std::signbit(b) == ((x >> 15) != 0));
        ++checked;
    }
    CHECK(checked == 65536);
    // Named patterns.
    CHECK(f16_to_f32(0x3C00) == 1.0f);
    CHECK(f16_to_f32(0xC000) == -2.0f);
    CHECK(f16_to_f32(0x7BFF) == 65504.0f);                 // the largest finite
    CHECK(f16_to_f32(0x0400) == std::ldexp(1.0f, -14));    // the smallest normal
    CHECK(f16_to_f32(0x0001) == std::ldexp(1.0f, -24));    // the smallest subnormal
    CHECK(f16_to_f32(0x03FF) == std::ldexp(1023.0f, -24)); // the largest subnormal
    CHECK(f16_to_f32(0x3555) == 0.333251953125f);
    CHECK(f16_to_f32(0x7C00) == std::numeric_limits<float>::infinity());
    CHECK(f16_to_f32(0xFC00) == -std::numeric_limits<float>::infinity());
    CHECK(bits_of(f16_to_f32(0x8000)) == 0x80000000u); // -0
    CHECK(bf16_to_f32(0x3F80) == 1.0f);
    CHECK(bf16_to_f32(0xC020) == -2.5f);
    CHECK(bf16_to_f32(0x0001) == std::ldexp(1.0f, -133)); // the smallest subnormal
    CHECK(bf16_to_f32(0x7F80) == std::numeric_limits<float>::infinity());
    CHECK(bf16_to_f32(0x7F7F) == std::ldexp(255.0f, 120)); // the largest finite, 0x7F7F0000
    // NaN payloads, left-aligned in binary32's fraction (IEEE 754 conversion of a NaN): quiet
    // 0x7E00 -> 0x7FC00000, signalling 0xFC01 -> 0xFF802000; bfloat16's are the top half.
    CHECK(bits_of(f16_to_f32(0x7E00)) == 0x7FC00000u);
    CHECK(bits_of(f16_to_f32(0xFC01)) == 0xFF802000u);
    CHECK(bits_of(bf16_to_f32(0x7FC1)) == 0x7FC10000u);
}

// ---------------------------------------------------------------------------------------------
// Shards

namespace {

const char* kIndex = R"({
  "metadata": {"total_size": 28},
  "weight_map": {
    "lm_head.weight": "model-00002-of-00002.safetensors",
    "model.embed_tokens.weight": "model-00001-of-00002.safetensors",
    "model.norm.weight": "model-00002-of-00002.safetensors"
  }
})";

std::string index_error(const std::string& text) {
    ShardIndex idx;
    const Status st = read_shard_index(text, &idx);
    if (st.ok()) return "ok";
    CHECK(idx.weight_map.empty());
    CHECK(idx.shards.empty());
    return st.message();
}

// A shard holding F32 tensors of the given names and element counts, one after another.
std::string shard_file(const std::vector<std::pair<std::string, int>>& tensors) {
    std::string header = "{\"__metadata__\":{\"format\":\"pt\"}";
    int at = 0;
    for (const auto& t : tensors) {
        header += ",\"" + t.first + "\":{\"dtype\":\"F32\",\"shape\":[" + std::to_string(t.second) +
                  "],\"data_offsets\":[" + std::to_string(at) + "," +
                  std::to_string(at + 4 * t.second) + "]}";
        at += 4 * t.second;
    }
    return st_file(header + "}", std::string(at, '\0'));
}

} // namespace

TEST_CASE("safetensors index: the weight map, its shards and total size", "[checkpoint]") {
    ShardIndex idx;
    REQUIRE(read_shard_index(kIndex, &idx).ok());
    CHECK(idx.has_total_size);
    CHECK(idx.total_size == 28);
    REQUIRE(idx.weight_map.size() == 3);
    CHECK(idx.weight_map[0].first == "lm_head.weight");
    CHECK(idx.shards == std::vector<std::string>{"model-00001-of-00002.safetensors",
                                                 "model-00002-of-00002.safetensors"});
    REQUIRE(idx.shard_of("model.norm.weight") != nullptr);
    CHECK(*idx.shard_of("model.norm.weight") == "model-00002-of-00002.safetensors");
    CHECK(idx.shard_of("model.layers.0.weight") == nullptr);
    // total_size written as a float, or absent; other keys are free-form.
    REQUIRE(read_shard_index(R"({"metadata":{"total_size":16.0,"total_parameters":4},
        "weight_map":{"a":"x.safetensors"},"extra":[1]})",
                             &idx)
                .ok());
    CHECK(idx.total_size == 16);
    REQUIRE(read_shard_index(R"({"weight_map":{"a":"x.safetensors"}})", &idx).ok());
    CHECK_FALSE(idx.has_total_size);
}

TEST_CASE("safetensors index: refusals", "[checkpoint]") {
    const std::string f = "model.safetensors.index.json: ";
    CHECK(index_error("{") ==
          "model.safetensors.index.json: invalid JSON at line 1, column 2: expected a key string");
    CHECK(index_error("[]") == f + "must be a JSON object, got an array");
    CHECK(index_error(R"({"metadata":{}})") == f + "has no \"weight_map\"");
    CHECK(index_error(R"({"weight_map":[]})") ==
          f + "weight_map must be an object {tensor name: shard file}, got an array");
    CHECK(index_error(R"({"weight_map":{}})") == f + "weight_map is empty");
    CHECK(
        index_error(R"({"weight_map":{"a":"x.safetensors"},"weight_map":{"b":"x.safetensors"}})") ==
        f + "\"weight_map\" is given twice");
    CHECK(index_error(R"({"weight_map":{"a":1}})") ==
          f + "weight_map[\"a\"] must be a shard file name, got 1");
    CHECK(index_error(R"({"weight_map":{"a":"x.safetensors","a":"y.safetensors"}})") ==
          f + "weight_map names tensor \"a\" twice");
    CHECK(index_error(R"({"metadata":[],"weight_map":{"a":"x.safetensors"}})") ==
          f + "metadata must be an object, got an array");
    CHECK(index_error(R"({"metadata":{"total_size":-1},"weight_map":{"a":"x.safetensors"}})") ==
          f + "metadata.total_size must be a non-negative integer, got -1");
    CHECK(index_error(R"({"metadata":{"total_size":"8"},"weight_map":{"a":"x.safetensors"}})") ==
          f + "metadata.total_size must be a non-negative integer, got \"8\"");
    CHECK(index_error(R"({"metadata":{"total_size":1.5},"weight_map":{"a":"x.safetensors"}})") ==
          f + "metadata.total_size must be a non-negative integer, got 1.5");
    // Shard names: plain .safetensors file names beside the index.
    const std::string tail = " (a shard is a .safetensors file beside the index)";
    CHECK(index_error(R"({"weight_map":{"a":"../x.safetensors"}})") ==
          f +
              "weight_map[\"a\"] names the shard \"../x.safetensors\", not a plain file name (it "
              "holds '/')" +
              tail);
    CHECK(index_error(R"({"weight_map":{"a":"dir\\x.safetensors"}})") ==
          f +
              "weight_map[\"a\"] names the shard \"dir\\\\x.safetensors\", not a plain file name "
              "(it holds '\\')" +
              tail);
    CHECK(index_error(R"({"weight_map":{"a":"C:x.safetensors"}})") ==
          f +
              "weight_map[\"a\"] names the shard \"C:x.safetensors\", not a plain file name (it "
              "holds ':')" +
              tail);
    CHECK(index_error(R"({"weight_map":{"a":".."}})") ==
          f + "weight_map[\"a\"] names the shard \"..\", not a file name" + tail);
    CHECK(index_error(R"({"weight_map":{"a":""}})") ==
          f + "weight_map[\"a\"] names the shard \"\", an empty name" + tail);
    CHECK(index_error(R"({"weight_map":{"a":"x\n.safetensors"}})") ==
          f +
              "weight_map[\"a\"] names the shard \"x\\u000a.safetensors\", not a plain file name "
              "(it holds a control character)" +
              tail);
    CHECK(index_error(R"({"weight_map":{"a":"pytorch_model-00001-of-00002.bin"}})") ==
          f +
              "weight_map[\"a\"] names the shard \"pytorch_model-00001-of-00002.bin\", not a "
              ".safetensors file" +
              tail);
    CHECK(index_error(R"({"weight_map":{"a":".safetensors"}})") ==
          f + "weight_map[\"a\"] names the shard \".safetensors\", not a .safetensors file" + tail);
    Limits small;
    small.max_index_bytes = 10;
    ShardIndex idx;
    CHECK(read_shard_index(kIndex, &idx, small).message() ==
          f + std::to_string(std::string(kIndex).size()) + " bytes, over the limit of 10");
}

TEST_CASE("safetensors shards: each tensor in the shard the index names, once", "[checkpoint]") {
    ShardIndex idx;
    REQUIRE(read_shard_index(kIndex, &idx).ok());
    const std::string s1 = "model-00001-of-00002.safetensors",
                      s2 = "model-00002-of-00002.safetensors";
    const std::string f1 = shard_file({{"model.embed_tokens.weight", 4}});
    const std::string f2 = shard_file({{"lm_head.weight", 2}, {"model.norm.weight", 1}});
    Header h1, h2;
    REQUIRE(read(f1, &h1).ok());
    REQUIRE(read(f2, &h2).ok());
    CHECK(check_shards(idx, {{s1, &h1}, {s2, &h2}}).ok());
    CHECK(check_shards(idx, {{s2, &h2}, {s1, &h1}}).ok());

    const std::string p = "safetensors shards: ";
    CHECK(check_shards(idx, {{s1, &h1}}).message() ==
          p + "model.safetensors.index.json names the shard \"" + s2 + "\", which was not given");
    CHECK(check_shards(idx, {{s1, &h1}, {s2, &h2}, {"extra.safetensors", &h1}}).message() ==
          p + "\"extra.safetensors\" was given, but model.safetensors.index.json puts no tensor "
              "in it");
    CHECK(check_shards(idx, {{s1, &h1}, {s2, &h2}, {s1, &h1}}).message() ==
          p + "\"" + s1 + "\" is given twice");
    CHECK(check_shards(idx, {{s1, &h1}, {s2, nullptr}}).message() ==
          p + "\"" + s2 + "\" has no header");

    // A tensor in two shards.
    Header both;
    REQUIRE(read(shard_file({{"lm_head.weight", 2},
                             {"model.embed_tokens.weight", 4},
                             {"model.norm.weight", 1}}),
                 &both)
                .ok());
    CHECK(check_shards(idx, {{s1, &h1}, {s2, &both}}).message() ==
          p + "tensor \"model.embed_tokens.weight\" is in both \"" + s1 + "\" and \"" + s2 + "\"");
    // A tensor in the other shard than the index says.
    Header moved1, moved2;
    REQUIRE(read(shard_file({{"model.embed_tokens.weight", 4}, {"model.norm.weight", 1}}), &moved1)
                .ok());
    REQUIRE(read(shard_file({{"lm_head.weight", 2}}), &moved2).ok());
    CHECK(check_shards(idx, {{s1, &moved1}, {s2, &moved2}}).message() ==
          p + "tensor \"model.norm.weight\" is in \"" + s1 +
              "\", but model.safetensors.index.json puts it in \"" + s2 + "\"");
    // A tensor the index does not list (decided: an error).
    Header extra;
    REQUIRE(
        read(shard_file({{"lm_head.weight", 2}, {"model.norm.weight", 1}, {"rotary.inv_freq", 2}}),
             &extra)
            .ok());
    CHECK(check_shards(idx, {{s1, &h1}, {s2, &extra}}).message() ==
          p + "\"" + s2 +
              "\" holds tensor \"rotary.inv_freq\", which model.safetensors.index.json does not "
              "list (an index and shards of different saves?)");
    // A tensor the index lists that its shard lacks.
    Header missing;
    REQUIRE(read(shard_file({{"lm_head.weight", 2}}), &missing).ok());
    CHECK(check_shards(idx, {{s1, &h1}, {s2, &missing}}).message() ==
          p + "model.safetensors.index.json puts tensor \"model.norm.weight\" in \"" + s2 +
              "\", which does not hold it");
}
