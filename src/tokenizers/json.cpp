// The strict iterative JSON parser (json.h).
#include "tokenizers/json.h"

#include "tokenizers/unicode.h"
#include "tokenizers/unicode_props.h"

#include <cstdlib>

namespace hirope {
namespace json {

const char* type_name(Type t) {
    switch (t) {
    case Type::null:
        return "null";
    case Type::boolean:
        return "a boolean";
    case Type::number:
        return "a number";
    case Type::string:
        return "a string";
    case Type::array:
        return "an array";
    case Type::object:
        return "an object";
    }
    return "?";
}

namespace {

int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

bool hex4(std::string_view s, size_t pos, uint32_t* v) {
    if (pos + 4 > s.size()) return false;
    *v = 0;
    for (size_t k = 0; k < 4; ++k) {
        const int h = hex_value(s[pos + k]);
        if (h < 0) return false;
        *v = *v * 16 + static_cast<uint32_t>(h);
    }
    return true;
}

} // namespace

Status Document::parse(std::string_view text, const Limits& limits) {
    nodes_.clear();
    text_ = text;
    if (text.size() > limits.max_bytes)
        return Status::error("tokenizer.json: " + std::to_string(text.size()) +
                             " bytes is more than the limit of " +
                             std::to_string(limits.max_bytes));
    if (text.size() >= 0xFFFFFFFFu) return Status::error("tokenizer.json: too large");
    const size_t n = text.size();
    size_t p = 0;
    auto fail = [&](const std::string& what) {
        size_t line = 1, col = 1;
        for (size_t k = 0; k < p && k < n; ++k) {
            if (text[k] == '\n')
                line++, col = 1;
            else
                col++;
        }
        nodes_.clear();
        return Status::error("tokenizer.json: invalid JSON at line " + std::to_string(line) +
                             ", column " + std::to_string(col) + ": " + what);
    };
    auto ws = [&] {
        while (p < n && (text[p] == ' ' || text[p] == '\t' || text[p] == '\n' || text[p] == '\r'))
            ++p;
    };
    auto push = [&](Type t, size_t start, size_t len) {
        Node nd;
        nd.type = t;
        nd.start = static_cast<uint32_t>(start);
        nd.len = static_cast<uint32_t>(len);
        nd.end = static_cast<uint32_t>(nodes_.size() + 1);
        nodes_.push_back(nd);
    };
    // A string at p (the opening quote): validated, pushed.
    auto scan_string = [&]() -> std::string {
        const size_t start = ++p;
        bool escaped = false;
        for (;;) {
            if (p >= n) return "unterminated string";
            const unsigned char c = static_cast<unsigned char>(text[p]);
            if (c == '"') break;
            if (c < 0x20) return "a control character in a string";
            if (c == '\\') {
                escaped = true;
                if (p + 1 >= n) return "unterminated string";
                const char e = text[p + 1];
                if (e == 'u') {
                    uint32_t v;
                    if (!hex4(text, p + 2, &v)) return "a bad \\u escape";
                    p += 6;
                    if (v >= 0xDC00 && v <= 0xDFFF) return "a lone low surrogate";
                    if (v >= 0xD800 && v <= 0xDBFF) {
                        uint32_t w;
                        if (p + 1 >= n || text[p] != '\\' || text[p + 1] != 'u' ||
                            !hex4(text, p + 2, &w) || w < 0xDC00 || w > 0xDFFF)
                            return "a lone high surrogate";
                        p += 6;
                    }
                    continue;
                }
                if (e != '"' && e != '\\' && e != '/' && e != 'b' && e != 'f' && e != 'n' &&
                    e != 'r' && e != 't')
                    return "a bad escape";
                p += 2;
                continue;
            }
            if (c < 0x80) {
                ++p;
                continue;
            }
            size_t len;
            const uint32_t cp = unicode::decode(text, p, &len);
            if (cp == 0xFFFD && len == 1) return "bytes that are not UTF-8";
            p += len;
        }
        if (nodes_.size() >= limits.max_nodes) return "more values than the limit";
        push(Type::string, start, p - start);
        nodes_.back().escaped = escaped;
        ++p;
        return "";
    };
    auto scan_number = [&]() -> std::string {
        const size_t start = p;
        if (p < n && text[p] == '-') ++p;
        if (p >= n || !std::isdigit(static_cast<unsigned char>(text[p]))) return "a bad number";
        if (text[p] == '0') {
            ++p;
        } else {
            while (p < n && std::isdigit(static_cast<unsigned char>(text[p]))) ++p;
        }
        if (p < n && text[p] == '.') {
            ++p;
            if (p >= n || !std::isdigit(static_cast<unsigned char>(text[p]))) return "a bad number";
            while (p < n && std::isdigit(static_cast<unsigned char>(text[p]))) ++p;
        }
        if (p < n && (text[p] == 'e' || text[p] == 'E')) {
            ++p;
            if (p < n && (text[p] == '+' || text[p] == '-')) ++p;
            if (p >= n || !std::isdigit(static_cast<unsigned char>(text[p]))) return "a bad number";
            while (p < n && std::isdigit(static_cast<unsigned char>(text[p]))) ++p;
        }
        if (nodes_.size() >= limits.max_nodes) return "more values than the limit";
        push(Type::number, start, p - start);
        return "";
    };
    std::vector<uint32_t> stack; // open containers
    bool need_value = true;
    for (;;) {
        ws();
        if (need_value) {
            if (p >= n) return fail("unexpected end of input");
            const char c = text[p];
            if (c == '{' || c == '[') {
                if (stack.size() >= limits.max_depth)
                    return fail("nesting deeper than " + std::to_string(limits.max_depth));
                if (nodes_.size() >= limits.max_nodes) return fail("more values than the limit");
                const bool object = c == '{';
                stack.push_back(static_cast<uint32_t>(nodes_.size()));
                push(object ? Type::object : Type::array, p, 0);
                ++p;
                ws();
                if (p < n && text[p] == (object ? '}' : ']')) {
                    ++p;
                    nodes_[stack.back()].end = static_cast<uint32_t>(nodes_.size());
                    stack.pop_back();
                    need_value = false;
                    continue;
                }
                if (object) {
                    if (p >= n || text[p] != '"') return fail("expected a key string");
                    const std::string e = scan_string();
                    if (!e.empty()) return fail(e);
                    ws();
                    if (p >= n || text[p] != ':') return fail("expected ':'");
                    ++p;
                }
                continue; // a value follows
            }
            std::string e;
            if (c == '"') {
                e = scan_string();
            } else if (c == '-' || (c >= '0' && c <= '9')) {
                e = scan_number();
            } else {
                const char* lit = c == 't' ? "true" : c == 'f' ? "false" : c == 'n' ? "null" : "";
                const size_t len = std::char_traits<char>::length(lit);
                if (len == 0 || text.substr(p, len) != lit) return fail("unexpected character");
                if (nodes_.size() >= limits.max_nodes) return fail("more values than the limit");
                push(c == 'n' ? Type::null : Type::boolean, p, len);
                p += len;
            }
            if (!e.empty()) return fail(e);
            need_value = false;
            continue;
        }
        // After a value.
        if (stack.empty()) {
            if (p != n) return fail("text after the top-level value");
            break;
        }
        Node& top = nodes_[stack.back()];
        top.len++;
        const bool object = top.type == Type::object;
        if (p >= n) return fail("unexpected end of input");
        if (text[p] == ',') {
            ++p;
            if (object) {
                ws();
                if (p >= n || text[p] != '"') return fail("expected a key string");
                const std::string e = scan_string();
                if (!e.empty()) return fail(e);
                ws();
                if (p >= n || text[p] != ':') return fail("expected ':'");
                ++p;
            }
            need_value = true;
            continue;
        }
        if (text[p] == (object ? '}' : ']')) {
            ++p;
            top.end = static_cast<uint32_t>(nodes_.size());
            stack.pop_back();
            continue;
        }
        return fail(object ? "expected ',' or '}'" : "expected ',' or ']'");
    }
    return {};
}

std::string Document::string(uint32_t i) const {
    const std::string_view r = raw(i);
    if (!nodes_[i].escaped) return std::string(r);
    std::string out;
    out.reserve(r.size());
    for (size_t p = 0; p < r.size();) {
        if (r[p] != '\\') {
            out.push_back(r[p++]);
            continue;
        }
        const char e = r[p + 1];
        p += 2;
        switch (e) {
        case 'b':
            out.push_back('\b');
            break;
        case 'f':
            out.push_back('\f');
            break;
        case 'n':
            out.push_back('\n');
            break;
        case 'r':
            out.push_back('\r');
            break;
        case 't':
            out.push_back('\t');
            break;
        case 'u': {
            uint32_t v = 0, w = 0;
            hex4(r, p, &v);
            p += 4;
            if (v >= 0xD800 && v <= 0xDBFF) {
                hex4(r, p + 2, &w);
                p += 6;
                v = 0x10000 + ((v - 0xD800) << 10) + (w - 0xDC00);
            }
            unicode::append_utf8(v, &out);
            break;
        }
        default:
            out.push_back(e);
            break;
        }
    }
    return out;
}

bool Document::index(uint32_t i, int32_t* out) const {
    if (nodes_[i].type != Type::number) return false;
    const std::string_view r = raw(i);
    if (r.empty() || r.size() > 10) return false;
    int64_t v = 0;
    for (char c : r) {
        if (c < '0' || c > '9') return false;
        v = v * 10 + (c - '0');
    }
    if (v > 0x7FFFFFFF) return false;
    *out = static_cast<int32_t>(v);
    return true;
}

double Document::number(uint32_t i) const {
    return std::strtod(std::string(raw(i)).c_str(), nullptr);
}

bool Document::equals(uint32_t i, std::string_view s) const {
    if (nodes_[i].type != Type::string) return false;
    if (!nodes_[i].escaped) return raw(i) == s;
    return string(i) == s;
}

uint32_t Document::find(uint32_t object, std::string_view key) const {
    if (nodes_[object].type != Type::object) return none;
    // A key given twice has its last value, as JSON.parse, Python's json and serde_json's maps
    // read it: the config a person checks with those is the one computed here.
    uint32_t found = none;
    for (uint32_t k = first(object); k != end(object); k = next(next(k)))
        if (equals(k, key)) found = next(k);
    return found;
}

} // namespace json
} // namespace hirope
