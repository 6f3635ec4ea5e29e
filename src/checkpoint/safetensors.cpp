// The safetensors reader and the shard index (include/hirope/checkpoint.h). The format and the
// rules are the safetensors crate's (README "Format"; safetensors/src/tensor.rs
// SafeTensors::read_metadata, Metadata::validate), written here from their description.
//
// The JSON parser is the tokenizers library's (src/tokenizers/json.h: iterative, with limits on
// size, depth and values), reached across the folder boundary as the config reader does; its
// messages name "tokenizer.json", which this reader rewrites. It keeps a key given twice as two
// members (find returns the last), so repeated names are found here by sorting.
#include "hirope/checkpoint.h"

#include "tokenizers/json.h"
#include "tokenizers/unicode.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <limits>

namespace hirope {
namespace checkpoint {

namespace {

using json::Document;
using json::Type;

struct DTypeEntry {
    DType type;
    const char* name;
    uint32_t bits;
};

constexpr DTypeEntry kDTypes[] = {
    {DType::BOOL, "BOOL", 8},
    {DType::F4, "F4", 4},
    {DType::F6_E2M3, "F6_E2M3", 6},
    {DType::F6_E3M2, "F6_E3M2", 6},
    {DType::U8, "U8", 8},
    {DType::I8, "I8", 8},
    {DType::F8_E5M2, "F8_E5M2", 8},
    {DType::F8_E4M3, "F8_E4M3", 8},
    {DType::F8_E8M0, "F8_E8M0", 8},
    {DType::F8_E4M3FNUZ, "F8_E4M3FNUZ", 8},
    {DType::F8_E5M2FNUZ, "F8_E5M2FNUZ", 8},
    {DType::I16, "I16", 16},
    {DType::U16, "U16", 16},
    {DType::F16, "F16", 16},
    {DType::BF16, "BF16", 16},
    {DType::I32, "I32", 32},
    {DType::U32, "U32", 32},
    {DType::F32, "F32", 32},
    {DType::C64, "C64", 64},
    {DType::F64, "F64", 64},
    {DType::I64, "I64", 64},
    {DType::U64, "U64", 64},
};

constexpr uint64_t kLengthBytes = 8; // N's own bytes

std::string str(uint64_t v) {
    return std::to_string(v);
}

// A name or a value in a message: JSON-quoted (control characters escaped), and cut at 120 bytes
// (on a UTF-8 boundary) so that a hostile name does not make a message of megabytes.
std::string quoted(std::string_view s) {
    constexpr size_t kMax = 120;
    std::string out = "\"";
    size_t n = s.size();
    bool cut = false;
    if (n > kMax) {
        n = kMax;
        while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
        cut = true;
    }
    for (size_t i = 0; i < n; ++i) {
        const unsigned char c = static_cast<unsigned char>(s[i]);
        if (c == '"' || c == '\\') {
            out += '\\';
            out += static_cast<char>(c);
        } else if (c < 0x20 || c == 0x7F) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            out += buf;
        } else {
            out += static_cast<char>(c);
        }
    }
    out += cut ? "\"..." : "\"";
    return out;
}

// A JSON value as it is written, for messages (cut at 40 bytes).
std::string raw_value(const Document& d, uint32_t v) {
    switch (d.type(v)) {
    case Type::number:
    case Type::boolean:
    case Type::null: {
        std::string_view r = d.raw(v);
        if (r.size() > 40) return std::string(r.substr(0, 40)) + "...";
        return std::string(r);
    }
    case Type::string:
        return quoted(d.string(v));
    default:
        return json::type_name(d.type(v));
    }
}

// A JSON number written as a non-negative integer below 2^64 (digits only: no sign, fraction or
// exponent, as the crate's usize fields take it).
bool parse_u64(const Document& d, uint32_t v, uint64_t* out) {
    if (d.type(v) != Type::number) return false;
    const std::string_view r = d.raw(v);
    if (r.empty()) return false;
    uint64_t x = 0;
    for (char c : r) {
        if (c < '0' || c > '9') return false;
        const uint64_t digit = static_cast<uint64_t>(c - '0');
        if (x > (std::numeric_limits<uint64_t>::max() - digit) / 10) return false;
        x = x * 10 + digit;
    }
    *out = x;
    return true;
}

bool mul_overflows(uint64_t a, uint64_t b, uint64_t* out) {
    if (a != 0 && b > std::numeric_limits<uint64_t>::max() / a) return true;
    *out = a * b;
    return false;
}

std::string shape_text(const std::vector<uint64_t>& shape) {
    std::string s = "[";
    for (size_t i = 0; i < shape.size(); ++i) {
        if (i) s += ", ";
        if (i == 8 && shape.size() > 10) {
            s += "... (" + str(shape.size()) + " dims)";
            break;
        }
        s += str(shape[i]);
    }
    return s + "]";
}

bool starts_with(const uint8_t* b, size_t n, std::string_view s) {
    return n >= s.size() && std::memcmp(b, s.data(), s.size()) == 0;
}

// What a file that is not safetensors looks like, from its first bytes ("" when nothing is
// recognised). Each is a magic number or a text's start.
std::string file_kind(const uint8_t* b, size_t n) {
    if (starts_with(b, n, "GGUF")) return "a GGUF file (llama.cpp's format)";
    if (starts_with(b, n, "PK\x03\x04"))
        return "a zip archive (a PyTorch .bin or .pt checkpoint is one)";
    // A pickle: PROTO 2..5, then an opcode that starts one (torch's legacy magic number LONG1,
    // FRAME, EMPTY_DICT, EMPTY_LIST, GLOBAL, MARK, SHORT_BINUNICODE).
    if (n >= 3 && b[0] == 0x80 && b[1] >= 2 && b[1] <= 5 &&
        std::string_view("\x8a\x95}]c(\x8c").find(static_cast<char>(b[2])) !=
            std::string_view::npos)
        return "a Python pickle (a PyTorch checkpoint saved before torch 1.6, or a .pkl file)";
    if (starts_with(b, n, "\x89HDF\r\n\x1a\n")) return "an HDF5 file (Keras or TensorFlow .h5)";
    if (starts_with(b, n, "\x93NUMPY")) return "a NumPy .npy file";
    if (starts_with(b, n, "\x1f\x8b")) return "a gzip file";
    if (starts_with(b, n, "version https://git-lfs"))
        return "a Git LFS pointer: the file itself was not downloaded (git lfs pull)";
    size_t i = 0;
    while (i < n && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r')) ++i;
    if (i < n && (b[i] == '{' || b[i] == '['))
        return "a JSON text (config.json, tokenizer.json or model.safetensors.index.json?)";
    if (i < n && b[i] == '<') {
        std::string start;
        for (size_t k = i + 1; k < n && start.size() < 9; ++k)
            start += static_cast<char>(std::tolower(b[k]));
        if (start.compare(0, 9, "!doctype ") == 0 || start.compare(0, 4, "html") == 0)
            return "an HTML page (a download that returned a web page?)";
    }
    return "";
}

// A message, with what the file looks like where its first bytes say.
Status with_kind(const std::string& message, const uint8_t* bytes, size_t size) {
    const std::string kind = file_kind(bytes, size);
    if (kind.empty()) return Status::error(message);
    return Status::error(message + "; the file looks like " + kind + ", not safetensors");
}

Status file_error(const std::string& what, const uint8_t* bytes, size_t size) {
    return with_kind("safetensors: " + what, bytes, size);
}

// The JSON parser's messages name "tokenizer.json": this file's name for them instead.
Status json_error(const Status& st, const std::string& file, size_t max_values) {
    std::string m = st.message();
    const std::string from = "tokenizer.json";
    if (m.compare(0, from.size(), from) == 0) m = file + m.substr(from.size());
    if (m.find("more values than the limit") != std::string::npos)
        m += " of " + str(max_values) + " JSON values";
    return Status::error(m);
}

Status header_error(const std::string& what) {
    return Status::error("safetensors header: " + what);
}

std::string tensor_label(const std::string& name) {
    return "tensor " + quoted(name);
}

// One entry of the header: {"dtype", "shape", "data_offsets"}, each once.
Status read_entry(const Document& d, uint32_t v, TensorInfo* t, uint64_t data_bytes) {
    const std::string who = tensor_label(t->name);
    if (d.type(v) != Type::object)
        return header_error(who +
                            " must be an object {\"dtype\", \"shape\", \"data_offsets\"}, got " +
                            std::string(json::type_name(d.type(v))));
    const char* keys[3] = {"dtype", "shape", "data_offsets"};
    uint32_t found[3] = {Document::none, Document::none, Document::none};
    for (uint32_t k = d.first(v); k != d.end(v); k = d.next(d.next(k))) {
        int which = -1;
        for (int i = 0; i < 3; ++i)
            if (d.equals(k, keys[i])) which = i;
        if (which < 0)
            return header_error(who + " has an unknown key " + quoted(d.string(k)) +
                                " (an entry has exactly \"dtype\", \"shape\" and "
                                "\"data_offsets\")");
        if (found[which] != Document::none)
            return header_error(who + " gives \"" + keys[which] + "\" twice");
        found[which] = d.next(k);
    }
    for (int i = 0; i < 3; ++i)
        if (found[i] == Document::none) return header_error(who + " has no \"" + keys[i] + "\"");

    const uint32_t dt = found[0];
    if (d.type(dt) != Type::string)
        return header_error(who + ": dtype must be a string, got " + raw_value(d, dt));
    if (!dtype_from_name(d.string(dt), &t->dtype))
        return header_error(who + " has an unknown dtype " + quoted(d.string(dt)));

    const uint32_t sh = found[1];
    if (d.type(sh) != Type::array)
        return header_error(who + ": shape must be an array of non-negative integers, got " +
                            raw_value(d, sh));
    t->shape.reserve(d.node(sh).len);
    for (uint32_t c = d.first(sh); c != d.end(sh); c = d.next(c)) {
        uint64_t dim;
        if (!parse_u64(d, c, &dim))
            return header_error(who + ": shape[" + str(t->shape.size()) +
                                "] must be an integer in [0, 2^64), got " + raw_value(d, c));
        t->shape.push_back(dim);
    }

    const uint32_t off = found[2];
    uint64_t offsets[2];
    if (d.type(off) != Type::array || d.node(off).len != 2)
        return header_error(who +
                            ": data_offsets must be an array of two integers [begin, end], got " +
                            (d.type(off) == Type::array ? "an array of " + str(d.node(off).len)
                                                        : raw_value(d, off)));
    {
        int i = 0;
        for (uint32_t c = d.first(off); c != d.end(off); c = d.next(c), ++i)
            if (!parse_u64(d, c, &offsets[i]))
                return header_error(who + ": data_offsets[" + str(static_cast<uint64_t>(i)) +
                                    "] must be an integer in [0, 2^64), got " + raw_value(d, c));
    }
    t->begin = offsets[0];
    t->end = offsets[1];
    const std::string where = "data_offsets [" + str(t->begin) + ", " + str(t->end) + "]";
    if (t->end < t->begin) return header_error(who + ": " + where + " end before they begin");

    // Sizes with checked arithmetic. The product of the dims with a 0 taken as 1, times the bits,
    // must fit: every stride of an accepted shape then fits in 64 bits, whatever the 0 dims.
    const uint32_t bits = dtype_bits(t->dtype);
    uint64_t span = bits, elements = 1;
    bool empty = false;
    for (uint64_t dim : t->shape) {
        if (dim == 0) empty = true;
        if (mul_overflows(span, dim == 0 ? 1 : dim, &span))
            return header_error(who + ": shape " + shape_text(t->shape) + " of " +
                                dtype_name(t->dtype) + " is more than 2^64 bits");
        if (!empty) elements *= dim; // no overflow: span is a multiple of it
    }
    t->elements = empty ? 0 : elements;
    const uint64_t nbits = t->elements * bits; // <= span
    if (nbits % 8 != 0)
        return header_error(who + ": " + str(t->elements) + " elements of " + dtype_name(t->dtype) +
                            " are " + str(nbits) + " bits, not a whole number of bytes");
    if (nbits / 8 != t->end - t->begin)
        return header_error(who + ": shape " + shape_text(t->shape) + " of " +
                            dtype_name(t->dtype) + " is " + str(nbits / 8) + " bytes, but " +
                            where + " hold " + str(t->end - t->begin));
    if (t->end > data_bytes)
        return header_error(who + ": " + where + " end past the data area, which is " +
                            str(data_bytes) + " bytes (a truncated file?)");
    return {};
}

Status read_metadata(const Document& d, uint32_t v, Header* out) {
    if (d.type(v) != Type::object)
        return header_error("__metadata__ must be an object of strings, got " +
                            std::string(json::type_name(d.type(v))));
    out->metadata.reserve(d.node(v).len);
    for (uint32_t k = d.first(v); k != d.end(v); k = d.next(d.next(k))) {
        const uint32_t val = d.next(k);
        if (d.type(val) != Type::string)
            return header_error("__metadata__ " + quoted(d.string(k)) + " must be a string, got " +
                                raw_value(d, val));
        out->metadata.emplace_back(d.string(k), d.string(val));
    }
    std::vector<uint32_t> order(out->metadata.size());
    for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
        return out->metadata[a].first < out->metadata[b].first;
    });
    for (size_t i = 1; i < order.size(); ++i)
        if (out->metadata[order[i]].first == out->metadata[order[i - 1]].first)
            return header_error("__metadata__ gives the key " +
                                quoted(out->metadata[order[i]].first) + " twice");
    return {};
}

Status read_header(const uint8_t* bytes, size_t size, uint64_t file_size, Header* out,
                   const Limits& limits) {
    uint64_t n = 0;
    Status st = safetensors_header_length(bytes, size, file_size, &n, limits);
    if (!st.ok()) return st;
    if (size < kLengthBytes + n)
        return Status::error("safetensors: the header is the file's first 8 + " + str(n) +
                             " bytes, but only " + str(size) + " were given");
    out->header_bytes = n;
    out->data_offset = kLengthBytes + n;
    out->data_bytes = file_size - out->data_offset;
    const std::string_view text(reinterpret_cast<const char*>(bytes + kLengthBytes),
                                static_cast<size_t>(n));

    // UTF-8 first, so that a header that is not text gets that said of it, with where.
    for (size_t p = 0; p < text.size();) {
        const unsigned char c = static_cast<unsigned char>(text[p]);
        if (c < 0x80) {
            ++p;
            continue;
        }
        size_t len;
        if (unicode::decode(text, p, &len) == 0xFFFD && len == 1) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "0x%02X", c);
            const std::string m = "safetensors header: not UTF-8: byte " + std::string(buf) +
                                  " at offset " + str(p) + " of the header";
            return p == 0 ? with_kind(m, bytes, size) : Status::error(m);
        }
        p += len;
    }

    json::Limits jl;
    jl.max_bytes = text.size();
    jl.max_depth = 16; // an entry needs 3; deeper values get a message about their key
    jl.max_nodes = limits.max_header_values;
    Document d;
    st = d.parse(text, jl);
    if (!st.ok()) {
        // A header that does not even start as an object: say what the file looks like.
        size_t i = 0;
        while (i < text.size() &&
               (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r'))
            ++i;
        const Status e = json_error(st, "safetensors header", limits.max_header_values);
        if (i == text.size() || text[i] != '{') return with_kind(e.message(), bytes, size);
        return e;
    }
    if (d.type(Document::root) != Type::object)
        return with_kind("safetensors header: must be a JSON object, got " +
                             std::string(json::type_name(d.type(Document::root))),
                         bytes, size);

    const uint32_t root = Document::root;
    out->tensors.reserve(d.node(root).len);
    for (uint32_t k = d.first(root); k != d.end(root); k = d.next(d.next(k))) {
        const uint32_t v = d.next(k);
        if (d.equals(k, "__metadata__")) {
            if (out->has_metadata) return header_error("\"__metadata__\" is given twice");
            out->has_metadata = true;
            st = read_metadata(d, v, out);
            if (!st.ok()) return st;
            continue;
        }
        TensorInfo t;
        t.name = d.string(k);
        st = read_entry(d, v, &t, out->data_bytes);
        if (!st.ok()) return st;
        out->tensors.push_back(std::move(t));
    }
    if (out->tensors.size() > std::numeric_limits<uint32_t>::max())
        return header_error("more tensors than 2^32 - 1");

    // Names: each once.
    std::vector<TensorInfo>& ts = out->tensors;
    out->by_name.resize(ts.size());
    for (uint32_t i = 0; i < ts.size(); ++i) out->by_name[i] = i;
    std::sort(out->by_name.begin(), out->by_name.end(),
              [&](uint32_t a, uint32_t b) { return ts[a].name < ts[b].name; });
    for (size_t i = 1; i < out->by_name.size(); ++i)
        if (ts[out->by_name[i]].name == ts[out->by_name[i - 1]].name)
            return header_error(tensor_label(ts[out->by_name[i]].name) + " is given twice");

    // Data order, then the tiling: each tensor begins where the one before it ends.
    std::sort(ts.begin(), ts.end(), [](const TensorInfo& a, const TensorInfo& b) {
        if (a.begin != b.begin) return a.begin < b.begin;
        if (a.end != b.end) return a.end < b.end;
        return a.name < b.name;
    });
    uint64_t next = 0;
    for (size_t i = 0; i < ts.size(); ++i) {
        const TensorInfo& t = ts[i];
        if (t.begin < next) {
            const TensorInfo& p = ts[i - 1]; // it holds byte t.begin (the ones before tile)
            return header_error(tensor_label(t.name) + " (data_offsets [" + str(t.begin) + ", " +
                                str(t.end) + "]) begins inside " + tensor_label(p.name) + " ([" +
                                str(p.begin) + ", " + str(p.end) + "]): tensors must not overlap");
        }
        if (t.begin > next)
            return header_error("bytes [" + str(next) + ", " + str(t.begin) +
                                ") of the data area belong to no tensor (" +
                                (i == 0 ? "before " + tensor_label(t.name)
                                        : "between " + tensor_label(ts[i - 1].name) + " and " +
                                              tensor_label(t.name)) +
                                "): the tensors must fill the data area without gaps");
        next = t.end;
    }
    if (next != out->data_bytes)
        return header_error("bytes [" + str(next) + ", " + str(out->data_bytes) +
                            ") of the data area belong to no tensor (" +
                            (ts.empty() ? std::string("the header has none")
                                        : "after the last, " + tensor_label(ts.back().name)) +
                            "): the tensors must fill the data area, up to the end of the file");

    for (uint32_t i = 0; i < ts.size(); ++i) out->by_name[i] = i;
    std::sort(out->by_name.begin(), out->by_name.end(),
              [&](uint32_t a, uint32_t b) { return ts[a].name < ts[b].name; });
    return {};
}

// A shard's file name: plain (no directory, no parent), ending in ".safetensors".
std::string shard_name_problem(const std::string& s) {
    const std::string suffix = ".safetensors";
    if (s.empty()) return "an empty name";
    if (s == "." || s == "..") return "not a file name";
    for (char ch : s) {
        const unsigned char c = static_cast<unsigned char>(ch);
        if (c == '/' || c == '\\' || c == ':')
            return "not a plain file name (it holds '" + std::string(1, ch) + "')";
        if (c < 0x20 || c == 0x7F) return "not a plain file name (it holds a control character)";
    }
    if (s.size() <= suffix.size() ||
        s.compare(s.size() - suffix.size(), suffix.size(), suffix) != 0)
        return "not a .safetensors file";
    return "";
}

} // namespace

const char* dtype_name(DType t) {
    for (const DTypeEntry& e : kDTypes)
        if (e.type == t) return e.name;
    return "?";
}

uint32_t dtype_bits(DType t) {
    for (const DTypeEntry& e : kDTypes)
        if (e.type == t) return e.bits;
    return 0;
}

bool dtype_from_name(std::string_view s, DType* out) {
    for (const DTypeEntry& e : kDTypes)
        if (s == e.name) {
            *out = e.type;
            return true;
        }
    return false;
}

bool is_weight_dtype(DType t) {
    return t == DType::F32 || t == DType::F16 || t == DType::BF16;
}

const TensorInfo* Header::find(std::string_view name) const {
    auto it = std::lower_bound(by_name.begin(), by_name.end(), name,
                               [&](uint32_t i, std::string_view n) { return tensors[i].name < n; });
    if (it == by_name.end() || tensors[*it].name != name) return nullptr;
    return &tensors[*it];
}

Status safetensors_header_length(const uint8_t* bytes, size_t size, uint64_t file_size,
                                 uint64_t* header_bytes, const Limits& limits) {
    *header_bytes = 0;
    if (size > file_size)
        return Status::error("safetensors: " + str(size) + " bytes were given of a file of " +
                             str(file_size));
    if (bytes == nullptr && size > 0) return Status::error("safetensors: no bytes given");
    if (file_size < kLengthBytes)
        return file_error(file_size == 0 ? std::string("the file is empty")
                                         : "the file is " + str(file_size) +
                                               (file_size == 1 ? " byte" : " bytes") +
                                               ", shorter than the 8-byte header length",
                          bytes, size);
    if (size < kLengthBytes)
        return Status::error("safetensors: the header length is the file's first 8 bytes, but "
                             "only " +
                             str(size) + " were given");
    uint64_t n = 0;
    for (int i = 7; i >= 0; --i) n = (n << 8) | bytes[i];
    if (n > limits.max_header_bytes)
        return file_error("the header length is " + str(n) + " bytes, over the limit of " +
                              str(limits.max_header_bytes),
                          bytes, size);
    if (n > file_size - kLengthBytes)
        return file_error("the header length is " + str(n) + " bytes, but the file has only " +
                              str(file_size - kLengthBytes) + " after its 8-byte length",
                          bytes, size);
    *header_bytes = n;
    return {};
}

Status read_safetensors_header(const uint8_t* bytes, size_t size, uint64_t file_size, Header* out,
                               const Limits& limits) {
    *out = Header();
    Status st = read_header(bytes, size, file_size, out, limits);
    if (!st.ok()) *out = Header();
    return st;
}

Status tensor_weights(const Header& header, std::string_view name, const DataSpan& data,
                      TensorView* out) {
    *out = TensorView();
    const TensorInfo* t = header.find(name);
    if (t == nullptr)
        return Status::error("safetensors: no tensor " + quoted(name) + " in the file (it has " +
                             str(header.tensors.size()) + ")");
    if (!is_weight_dtype(t->dtype))
        return Status::error("safetensors: " + tensor_label(t->name) + " is " +
                             dtype_name(t->dtype) + "; weights are read as F32, F16 or BF16 only");
    if (data.bytes == nullptr && data.size > 0)
        return Status::error("safetensors: no bytes given for " + tensor_label(t->name));
    // [t->begin, t->end) inside [data.begin, data.begin + data.size), without overflow.
    if (t->begin < data.begin || t->end - data.begin > data.size)
        return Status::error("safetensors: " + tensor_label(t->name) + " is bytes [" +
                             str(t->begin) + ", " + str(t->end) +
                             ") of the data area, not all inside the buffer given, [" +
                             str(data.begin) + ", " + str(data.begin + data.size) + ")");
    out->info = t;
    out->data = data.bytes == nullptr ? nullptr : data.bytes + (t->begin - data.begin);
    out->bytes = static_cast<size_t>(t->bytes());
    return {};
}

// ---------------------------------------------------------------------------------------------
// Shards

const std::string* ShardIndex::shard_of(std::string_view name) const {
    auto it = std::lower_bound(weight_map.begin(), weight_map.end(), name,
                               [](const std::pair<std::string, std::string>& e,
                                  std::string_view n) { return e.first < n; });
    if (it == weight_map.end() || it->first != name) return nullptr;
    return &it->second;
}

Status read_shard_index(std::string_view text, ShardIndex* out, const Limits& limits) {
    *out = ShardIndex();
    const std::string file = "model.safetensors.index.json";
    auto fail = [&](const std::string& m) {
        *out = ShardIndex();
        return Status::error(file + ": " + m);
    };
    if (text.size() > limits.max_index_bytes)
        return fail(str(text.size()) + " bytes, over the limit of " + str(limits.max_index_bytes));
    json::Limits jl;
    jl.max_bytes = limits.max_index_bytes;
    jl.max_depth = 16;
    jl.max_nodes = limits.max_index_values;
    Document d;
    Status st = d.parse(text, jl);
    if (!st.ok()) {
        *out = ShardIndex();
        return json_error(st, file, limits.max_index_values);
    }
    const uint32_t root = Document::root;
    if (d.type(root) != Type::object)
        return fail("must be a JSON object, got " + std::string(json::type_name(d.type(root))));
    uint32_t map = Document::none, meta = Document::none;
    for (uint32_t k = d.first(root); k != d.end(root); k = d.next(d.next(k))) {
        uint32_t* slot = d.equals(k, "weight_map") ? &map
                         : d.equals(k, "metadata") ? &meta
                                                   : nullptr;
        if (slot == nullptr) continue;
        if (*slot != Document::none) return fail("\"" + d.string(k) + "\" is given twice");
        *slot = d.next(k);
    }
    if (meta != Document::none && d.type(meta) != Type::null) {
        if (d.type(meta) != Type::object)
            return fail("metadata must be an object, got " +
                        std::string(json::type_name(d.type(meta))));
        uint32_t total = Document::none;
        for (uint32_t k = d.first(meta); k != d.end(meta); k = d.next(d.next(k))) {
            if (!d.equals(k, "total_size")) continue;
            if (total != Document::none) return fail("metadata.total_size is given twice");
            total = d.next(k);
        }
        if (total != Document::none && d.type(total) != Type::null) {
            uint64_t v = 0;
            bool ok = parse_u64(d, total, &v);
            if (!ok && d.type(total) == Type::number) {
                // Some writers put a float ("1234.0"): an integral value below 2^53 is read.
                const double x = d.number(total);
                if (std::isfinite(x) && x >= 0 && x == std::floor(x) && x < 9007199254740992.0) {
                    v = static_cast<uint64_t>(x);
                    ok = true;
                }
            }
            if (!ok)
                return fail("metadata.total_size must be a non-negative integer, got " +
                            raw_value(d, total));
            out->has_total_size = true;
            out->total_size = v;
        }
    }
    if (map == Document::none) return fail("has no \"weight_map\"");
    if (d.type(map) != Type::object)
        return fail("weight_map must be an object {tensor name: shard file}, got " +
                    std::string(json::type_name(d.type(map))));
    if (d.node(map).len == 0) return fail("weight_map is empty");
    out->weight_map.reserve(d.node(map).len);
    for (uint32_t k = d.first(map); k != d.end(map); k = d.next(d.next(k))) {
        const uint32_t v = d.next(k);
        std::string name = d.string(k);
        if (d.type(v) != Type::string)
            return fail("weight_map[" + quoted(name) + "] must be a shard file name, got " +
                        raw_value(d, v));
        std::string shard = d.string(v);
        const std::string problem = shard_name_problem(shard);
        if (!problem.empty())
            return fail("weight_map[" + quoted(name) + "] names the shard " + quoted(shard) + ", " +
                        problem + " (a shard is a .safetensors file beside the index)");
        out->weight_map.emplace_back(std::move(name), std::move(shard));
    }
    std::sort(out->weight_map.begin(), out->weight_map.end());
    for (size_t i = 1; i < out->weight_map.size(); ++i)
        if (out->weight_map[i].first == out->weight_map[i - 1].first)
            return fail("weight_map names " + tensor_label(out->weight_map[i].first) + " twice");
    for (const auto& e : out->weight_map) out->shards.push_back(e.second);
    std::sort(out->shards.begin(), out->shards.end());
    out->shards.erase(std::unique(out->shards.begin(), out->shards.end()), out->shards.end());
    return {};
}

Status check_shards(const ShardIndex& index, const std::vector<ShardHeader>& shards) {
    const std::string file = "model.safetensors.index.json";
    std::vector<size_t> order(shards.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(),
              [&](size_t a, size_t b) { return shards[a].file < shards[b].file; });
    for (size_t i = 0; i < order.size(); ++i) {
        const ShardHeader& s = shards[order[i]];
        if (s.header == nullptr)
            return Status::error("safetensors shards: " + quoted(s.file) + " has no header");
        if (i > 0 && s.file == shards[order[i - 1]].file)
            return Status::error("safetensors shards: " + quoted(s.file) + " is given twice");
        if (!std::binary_search(index.shards.begin(), index.shards.end(), s.file))
            return Status::error("safetensors shards: " + quoted(s.file) + " was given, but " +
                                 file + " puts no tensor in it");
    }
    for (const std::string& name : index.shards) {
        bool given = false;
        for (const ShardHeader& s : shards) given = given || s.file == name;
        if (!given)
            return Status::error("safetensors shards: " + file + " names the shard " +
                                 quoted(name) + ", which was not given");
    }
    // Every tensor of every shard, by name: each in one shard, the one the index names.
    std::vector<std::pair<const std::string*, const std::string*>> all; // tensor, shard
    size_t count = 0;
    for (const ShardHeader& s : shards) count += s.header->tensors.size();
    all.reserve(count);
    for (const ShardHeader& s : shards)
        for (const TensorInfo& t : s.header->tensors) all.emplace_back(&t.name, &s.file);
    std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) {
        if (*a.first != *b.first) return *a.first < *b.first;
        return *a.second < *b.second;
    });
    for (size_t i = 0; i < all.size(); ++i) {
        const std::string& name = *all[i].first;
        const std::string& shard = *all[i].second;
        if (i > 0 && *all[i - 1].first == name)
            return Status::error("safetensors shards: " + tensor_label(name) + " is in both " +
                                 quoted(*all[i - 1].second) + " and " + quoted(shard));
        const std::string* listed = index.shard_of(name);
        if (listed == nullptr)
            return Status::error("safetensors shards: " + quoted(shard) + " holds " +
                                 tensor_label(name) + ", which " + file +
                                 " does not list (an index and shards of different saves?)");
        if (*listed != shard)
            return Status::error("safetensors shards: " + tensor_label(name) + " is in " +
                                 quoted(shard) + ", but " + file + " puts it in " +
                                 quoted(*listed));
    }
    // Now every tensor held is listed where it is: what is listed but not held is missing. (Every
    // shard the index names was given: order finds it.)
    for (const auto& e : index.weight_map) {
        const auto it =
            std::lower_bound(order.begin(), order.end(), e.second,
                             [&](size_t i, const std::string& f) { return shards[i].file < f; });
        if (shards[*it].header->find(e.first) == nullptr)
            return Status::error("safetensors shards: " + file + " puts " + tensor_label(e.first) +
                                 " in " + quoted(e.second) + ", which does not hold it");
    }
    return {};
}

} // namespace checkpoint
} // namespace hirope
