// JSON text written by hand, the one writer of the C++ that emits JSON for the bindings to parse
// (the scheme catalogue, scheme_json, model_setup_json): strings escaped, numbers that read back
// as the same double, objects key by key in order.
#pragma once

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace hirope {
namespace util {

inline std::string json_text(const std::string& s) {
    std::string out = "\"";
    for (const char c : s) {
        const unsigned char u = static_cast<unsigned char>(c);
        if (u == '"' || u == '\\') {
            out += '\\';
            out += c;
        } else if (u < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", u);
            out += buf;
        } else {
            out += c;
        }
    }
    return out + "\"";
}

inline std::string json_text(const char* s) {
    return json_text(std::string(s ? s : ""));
}

// Integers without a fraction (Python's json reads them as ints), others in the shortest text
// that reads back as the same double; null for +-infinity (unbounded) and NaN.
inline std::string json_number(double x) {
    if (!std::isfinite(x)) return "null";
    char buf[64];
    if (x == std::floor(x) && std::fabs(x) < 9007199254740992.0) {
        std::snprintf(buf, sizeof buf, "%.0f", x);
        return buf;
    }
    for (int digits = 15; digits <= 17; ++digits) {
        std::snprintf(buf, sizeof buf, "%.*g", digits, x);
        if (std::strtod(buf, nullptr) == x) break;
    }
    return buf;
}

inline std::string json_bool(bool b) {
    return b ? "true" : "false";
}

inline std::string json_array(const std::vector<std::string>& items) {
    std::string out = "[";
    for (size_t i = 0; i < items.size(); ++i) out += (i ? "," : "") + items[i];
    return out + "]";
}

// An object written key by key, in order.
class JsonObject {
  public:
    JsonObject& add(const char* key, const std::string& json) {
        text_ += (text_.size() > 1 ? "," : "") + json_text(key) + ":" + json;
        return *this;
    }
    std::string str() const { return text_ + "}"; }

  private:
    std::string text_ = "{";
};

} // namespace util
} // namespace hirope
