// read_scheme (src/core/scheme_reader.cpp) over a tiny in-test SchemeSource: a tree of values
// such as a binding hands over. The bindings' own sources are tested through their APIs
// (tests/js/catalogue.test.mjs, tests/python/test_module_errors.py).
#include "hirope/hirope.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <string>
#include <utility>
#include <vector>

using namespace hirope;

namespace {

using Kind = SchemeSource::Kind;

// A value of the test's own little language: absent, null, a number, a boolean, a string, an
// object (keys in order) or a list.
struct Value {
    Kind kind = Kind::absent;
    double number = 0;
    bool integer = false;
    bool boolean = false;
    std::string text;
    std::vector<std::pair<std::string, Value>> object;
    std::vector<Value> list;
};

Value num(double x, bool integer = false) {
    Value v;
    v.kind = Kind::number;
    v.number = x;
    v.integer = integer;
    return v;
}
Value str(const std::string& s) {
    Value v;
    v.kind = Kind::string;
    v.text = s;
    return v;
}
Value boolean(bool b) {
    Value v;
    v.kind = Kind::boolean;
    v.boolean = b;
    return v;
}
Value null() {
    Value v;
    v.kind = Kind::null;
    return v;
}
Value obj(std::vector<std::pair<std::string, Value>> entries) {
    Value v;
    v.kind = Kind::object;
    v.object = std::move(entries);
    return v;
}
Value list(std::vector<Value> items) {
    Value v;
    v.kind = Kind::list;
    v.list = std::move(items);
    return v;
}

const SchemeDialect kDialect{"a map such as {type: rope}", "a map such as {type: yarn}",
                             "a list of numbers", true};

class TestSource final : public SchemeSource {
  public:
    explicit TestSource(const Value& v) : v_(v) {}
    Kind kind() const override { return v_.kind; }
    std::string describe() const override {
        switch (v_.kind) {
        case Kind::absent:
            return "nothing";
        case Kind::null:
            return "null";
        case Kind::number:
            return std::to_string(v_.number);
        case Kind::boolean:
            return v_.boolean ? "yes" : "no";
        case Kind::string:
            return "'" + v_.text + "'";
        case Kind::object:
            return "a map";
        case Kind::list:
            return "a list";
        default:
            return "something";
        }
    }
    double number(bool* integer) const override {
        *integer = v_.integer;
        return v_.number;
    }
    bool boolean() const override { return v_.boolean; }
    std::string text() const override { return v_.text; }
    bool keys(std::vector<std::string>* out, std::string*) const override {
        for (const auto& e : v_.object) out->push_back(e.first);
        return true;
    }
    std::unique_ptr<SchemeSource> at(const std::string& key) const override {
        for (const auto& e : v_.object)
            if (e.first == key) return std::unique_ptr<SchemeSource>(new TestSource(e.second));
        return std::unique_ptr<SchemeSource>(new TestSource(absent_));
    }
    size_t length() const override {
        ++lengths_read;
        return v_.list.size();
    }
    std::unique_ptr<SchemeSource> item(size_t i) const override {
        ++items_read;
        return std::unique_ptr<SchemeSource>(new TestSource(v_.list.at(i)));
    }
    const SchemeDialect& dialect() const override { return kDialect; }

    static int lengths_read, items_read;

  private:
    const Value& v_;
    Value absent_;
};
int TestSource::lengths_read = 0;
int TestSource::items_read = 0;

std::string error_of(const Value& v) {
    SchemeReading out;
    const Status st = read_scheme(TestSource(v), &out);
    return st.ok() ? std::string() : st.message();
}

SchemeReading read_ok(const Value& v) {
    SchemeReading out;
    const Status st = read_scheme(TestSource(v), &out);
    INFO(st.message());
    REQUIRE(st.ok());
    return out;
}

} // namespace

TEST_CASE("read_scheme: a name or an object with the table's defaults", "[scheme-reader]") {
    const SchemeReading rope = read_ok(str("rope"));
    REQUIRE(rope.info != nullptr);
    CHECK(rope.scheme.type == SchemeType::rope);
    CHECK(std::string(rope.info->name) == "rope");
    CHECK(rope.scheme.scaling.type == ScalingType::none);

    const SchemeReading h = read_ok(obj({{"type", str("hirope")},
                                         {"ratio", num(0.4)},
                                         {"levels", num(3, true)},
                                         {"segmentSize", num(64, true)}}));
    CHECK(h.scheme.type == SchemeType::hirope);
    CHECK(h.scheme.ratio == 0.4);
    CHECK(h.scheme.levels == 3);
    CHECK(h.option("segmentSize") == 64);
    // A default rule: with 3 levels and no statementRatio, half of the pairs the ratio leaves.
    CHECK(std::fabs(h.scheme.statement_ratio - 0.3) < 1e-12);
    CHECK(read_ok(str("hirope")).option("segmentSize") == 0);
    // ReRoPE's rule: logN on by default.
    CHECK(read_ok(str("rerope")).scheme.log_n);
    CHECK_FALSE(read_ok(str("hirope")).scheme.log_n);
}

TEST_CASE("read_scheme: scalings, aliases, lists and the required factor", "[scheme-reader]") {
    const SchemeReading y = read_ok(obj(
        {{"type", str("rope")},
         {"scaling",
          obj({{"type", str("yarn")}, {"factor", num(4)}, {"originalLength", num(4096, true)}})}}));
    CHECK(y.scheme.scaling.type == ScalingType::yarn);
    CHECK(y.scheme.scaling.factor == 4);
    CHECK(read_ok(obj({{"type", str("rope")}, {"scaling", obj({{"type", str("dynamic")}})}}))
              .scheme.scaling.type == ScalingType::dynamic_ntk);
    // Left out where it is required: NaN, for validate() to name.
    CHECK(std::isnan(
        read_ok(obj({{"type", str("rope")}, {"scaling", obj({{"type", str("linear")}})}}))
            .scheme.scaling.factor));
    // This dialect's null scaling is no scaling.
    CHECK(read_ok(obj({{"type", str("rope")}, {"scaling", null()}})).scheme.scaling.type ==
          ScalingType::none);
    const SchemeReading l =
        read_ok(obj({{"type", str("rope")},
                     {"scaling", obj({{"type", str("longrope")},
                                      {"factor", num(8)},
                                      {"originalLength", num(4096, true)},
                                      {"shortFactor", list({num(1), num(2)})},
                                      {"longFactor", list({num(3), num(4)})}})}}));
    CHECK(l.scheme.scaling.short_factor == std::vector<double>{1, 2});
    CHECK(l.scheme.scaling.long_factor == std::vector<double>{3, 4});
}

TEST_CASE("read_scheme: messages in the users' words and the source's dialect", "[scheme-reader]") {
    CHECK(error_of(num(5)) == "scheme must be a map such as {type: rope}, got 5.000000");
    CHECK(error_of(obj({})).rfind("scheme.type must be one of 'nope', ", 0) == 0);
    CHECK(error_of(obj({})).find("got nothing") != std::string::npos);
    CHECK(error_of(obj({{"type", str("rope")}, {"ratoi", num(1)}})) ==
          "scheme (type 'rope') has an unknown key 'ratoi' (known keys: base, layout, "
          "rotaryFraction, rotaryLast, scaling)");
    CHECK(
        error_of(obj({{"type", str("hirope")}, {"ratoi", num(1)}})).find("did you mean 'ratio'?") !=
        std::string::npos);
    CHECK(error_of(obj({{"type", str("alibi")}, {"base", num(2)}})) ==
          "scheme (type 'alibi') has an unknown key 'base' (it takes no parameters)");
    CHECK(error_of(obj({{"type", str("rope")}, {"base", str("big")}})) ==
          "scheme.base must be a number, got 'big'");
    CHECK(error_of(obj({{"type", str("rope")}, {"layout", str("diagonal")}})) ==
          "scheme.layout must be one of 'interleaved', 'half', got 'diagonal'");
    CHECK(error_of(obj({{"type", str("rerope")}, {"window", num(2.5)}})) ==
          "scheme.window must be an integer, got 2.500000");
    CHECK(error_of(obj({{"type", str("rerope")}, {"window", num(3e9)}})) ==
          "scheme.window is too large: 3000000000.000000");
    CHECK(error_of(obj({{"type", str("rerope")}, {"window", num(INFINITY, true)}})) ==
          "scheme.window is too large: inf");
    CHECK(error_of(obj({{"type", str("rerope")}, {"logN", num(1)}})) ==
          "scheme.logN must be a boolean, got 1.000000");
    // An option that is no field gets its range here.
    CHECK(error_of(obj({{"type", str("hirope")}, {"segmentSize", num(0, true)}})) ==
          "scheme.segmentSize must be an integer >= 1, got 0.000000");
    CHECK(error_of(obj({{"type", str("rope")}, {"scaling", str("yarn")}})) ==
          "scheme.scaling must be a map such as {type: yarn}, got 'yarn'");
    CHECK(error_of(obj({{"type", str("rope")}, {"scaling", obj({{"type", str("cubic")}})}}))
              .rfind("scheme.scaling.type must be one of 'none', ", 0) == 0);
    CHECK(error_of(obj({{"type", str("rope")},
                        {"scaling", obj({{"type", str("linear")}, {"betaFast", num(1)}})}}))
              .rfind("scheme.scaling (type 'linear') has an unknown key 'betaFast'", 0) == 0);
    CHECK(error_of(obj({{"type", str("rope")},
                        {"scaling", obj({{"type", str("longrope")},
                                         {"shortFactor", list({num(1), str("x")})}})}})) ==
          "scheme.scaling.shortFactor[1] must be a number, got 'x'");
    CHECK(error_of(obj({{"type", str("rope")},
                        {"scaling", obj({{"type", str("longrope")}, {"shortFactor", num(1)}})}})) ==
          "scheme.scaling.shortFactor must be a list of numbers, got 1.000000");
}

TEST_CASE("read_scheme: a long list is refused by its length before any item is read",
          "[scheme-reader]") {
    std::vector<Value> items(static_cast<size_t>(Limits::max_head_dim / 2) + 1, num(1));
    const Value scheme =
        obj({{"type", str("rope")},
             {"scaling", obj({{"type", str("longrope")}, {"shortFactor", list(items)}})}});
    TestSource::lengths_read = TestSource::items_read = 0;
    CHECK(error_of(scheme).find("has " + std::to_string(items.size()) +
                                " entries, more than rotaryDim/2 can be") != std::string::npos);
    CHECK(TestSource::lengths_read == 1);
    CHECK(TestSource::items_read == 0);
}
