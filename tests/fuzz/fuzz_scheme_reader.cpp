// libFuzzer: the core's scheme reader (read_scheme), which both bindings call on a caller's
// values, over arbitrary JSON as a SchemeSource (the shape of a JS object or a Python dict). A
// scheme is either read, or refused with a message; a read scheme is one the core validates or
// refuses by Status, and whose inverse frequencies, when valid, are finite. Never a crash, a hang
// or a read of a list's items before its length is checked.
#include "hirope/hirope.h"
#include "tokenizers/json.h"

#include <cmath>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace {

using hirope::SchemeSource;
namespace json = hirope::json;

constexpr uint32_t kAbsent = 0xffffffffu;

class JsonSource final : public SchemeSource {
  public:
    JsonSource(const json::Document& d, uint32_t node) : d_(d), node_(node) {}

    Kind kind() const override {
        if (node_ == kAbsent) return Kind::absent;
        switch (d_.type(node_)) {
        case json::Type::null:
            return Kind::null;
        case json::Type::boolean:
            return Kind::boolean;
        case json::Type::number:
            return Kind::number;
        case json::Type::string:
            return Kind::string;
        case json::Type::array:
            return Kind::list;
        case json::Type::object:
            return Kind::object;
        }
        return Kind::other;
    }
    std::string describe() const override {
        if (node_ == kAbsent) return "undefined";
        return std::string(d_.raw(node_).substr(0, 40));
    }
    double number(bool* integer) const override {
        const double x = d_.number(node_);
        if (integer) *integer = std::isfinite(x) && x == std::floor(x);
        return x;
    }
    bool boolean() const override { return d_.boolean(node_); }
    std::string text() const override { return d_.string(node_); }
    bool keys(std::vector<std::string>* out, std::string* /*bad_key*/) const override {
        for (uint32_t k = d_.first(node_); k != d_.end(node_); k = d_.next(d_.next(k)))
            out->push_back(d_.string(k));
        return true;
    }
    std::unique_ptr<SchemeSource> at(const std::string& key) const override {
        const uint32_t v = d_.find(node_, key);
        return std::make_unique<JsonSource>(d_, v == json::Document::none ? kAbsent : v);
    }
    size_t length() const override { return d_.node(node_).len; }
    std::unique_ptr<SchemeSource> item(size_t i) const override {
        uint32_t c = d_.first(node_);
        for (size_t k = 0; k < i && c != d_.end(node_); ++k) c = d_.next(c);
        if (c == d_.end(node_)) std::abort(); // an item past the length read first
        return std::make_unique<JsonSource>(d_, c);
    }
    const hirope::SchemeDialect& dialect() const override {
        static const hirope::SchemeDialect kDialect{"an object such as {\"type\": \"rope\"}",
                                                    "an object such as {\"type\": \"yarn\"}",
                                                    "a list of numbers", true};
        return kDialect;
    }

  private:
    const json::Document& d_;
    uint32_t node_;
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    json::Document d;
    json::Limits limits;
    limits.max_bytes = size_t{1} << 16;
    if (!d.parse(text, limits).ok()) return 0;
    hirope::SchemeReading reading;
    const hirope::Status st = hirope::read_scheme(JsonSource(d, 0), &reading);
    if (!st.ok()) {
        if (st.message().empty()) std::abort();
        return 0;
    }
    if (reading.info == nullptr) std::abort();
    for (const int head_dim : {8, 64}) {
        if (!hirope::validate(reading.scheme, head_dim).ok()) continue;
        std::vector<double> f;
        if (!hirope::inverse_frequencies(reading.scheme, head_dim, 4096, &f).ok()) continue;
        for (const double x : f)
            if (!std::isfinite(x) || x < 0) std::abort();
    }
    return 0;
}
