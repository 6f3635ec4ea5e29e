// Real models' layers against transformers: read_model_config's layer run through attention as it
// is (scheme, head_dim, mask, temperature, scale, softcap; the sinks given per head), on both
// kernels, against tests/fixtures/real-layers.json. Its expected probabilities come from
// tests/python/transformers_reference.py, a numpy float64 transcription of transformers' eager
// attention that reads the raw config.json itself and never sees hirope's setup or output
// (tools/write-real-layer-fixture.py writes the file; tests/python/test_real_layers.py keeps it
// current). Each case: a gallery config (models/configs/<id>.json) or an inline config.json, a
// layer, token positions (offsets up to 32,769, strides that put a window or a chunk boundary
// among the keys), one head of float32 q and k, the sink logit when the model has sinks, and the
// probabilities row by row (masked = 0). Pass: max |hirope - reference| <= the fixture's tolerance.
#include "hirope/hirope.h"
#include "hirope/model_config.h"
#include "test_compare.h"
#include "test_files.h"
#include "tokenizers/json.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

using namespace hirope;

namespace {

// The JSON text of the object or array at node i of d (an inline config.json), found by matching
// its brackets outside strings from its first byte (iterative; the parser validated the text).
std::string value_text(const std::string& text, const json::Document& d, uint32_t i) {
    const size_t begin = d.node(i).start;
    size_t depth = 0;
    bool in_string = false;
    for (size_t p = begin; p < text.size(); ++p) {
        const char c = text[p];
        if (in_string) {
            if (c == '\\')
                ++p;
            else if (c == '"')
                in_string = false;
        } else if (c == '"') {
            in_string = true;
        } else if (c == '{' || c == '[') {
            ++depth;
        } else if ((c == '}' || c == ']') && --depth == 0) {
            return text.substr(begin, p + 1 - begin);
        }
    }
    return "";
}

// A JSON array of numbers at node i, appended to out (nested arrays row by row).
void numbers(const json::Document& d, uint32_t i, std::vector<double>* out) {
    for (uint32_t c = d.first(i); c != d.end(i); c = d.next(c)) {
        if (d.type(c) == json::Type::number) out->push_back(d.number(c));
        // One level of nesting: probs is n rows of n values.
        if (d.type(c) == json::Type::array)
            for (uint32_t x = d.first(c); x != d.end(c); x = d.next(x)) {
                REQUIRE(d.type(x) == json::Type::number);
                out->push_back(d.number(x));
            }
    }
}

} // namespace

TEST_CASE("real layers: read_model_config's layer in attention against transformers' eager "
          "attention (tests/fixtures/real-layers.json)",
          "[real_layers]") {
    const std::vector<uint8_t> bytes = read_file("tests/fixtures/real-layers.json");
    REQUIRE(!bytes.empty());
    const std::string text(bytes.begin(), bytes.end());
    json::Document d;
    REQUIRE(d.parse(text).ok());
    const uint32_t cases = d.find(json::Document::root, "cases");
    REQUIRE(cases != json::Document::none);
    const double fixture_tolerance = d.number(d.find(json::Document::root, "tolerance"));
    REQUIRE(fixture_tolerance > 0);
    REQUIRE(fixture_tolerance <= 1e-4);

    std::ostringstream table;
    size_t count = 0;
    for (uint32_t c = d.first(cases); c != d.end(cases); c = d.next(c), ++count) {
        const std::string id = d.string(d.find(c, "id"));
        INFO("case " << id);
        const uint32_t tol_node = d.find(c, "tolerance");
        const double tolerance =
            tol_node != json::Document::none ? d.number(tol_node) : fixture_tolerance;

        // The config: a gallery id or the inline config.json object.
        const uint32_t config = d.find(c, "config");
        REQUIRE(config != json::Document::none);
        std::string config_text;
        if (d.type(config) == json::Type::string) {
            const std::vector<uint8_t> file =
                read_file("models/configs/" + d.string(config) + ".json");
            REQUIRE(!file.empty());
            config_text.assign(file.begin(), file.end());
        } else {
            REQUIRE(d.type(config) == json::Type::object);
            config_text = value_text(text, d, config);
            REQUIRE(!config_text.empty());
        }
        ModelSetup setup;
        const Status read = read_model_config(config_text, &setup);
        if (!read.ok()) FAIL("read_model_config: " << read.message());
        int32_t layer_index = -1;
        REQUIRE(d.index(d.find(c, "layer"), &layer_index));
        REQUIRE(static_cast<size_t>(layer_index) < setup.layers.size());
        const LayerSetup& layer = setup.layers[layer_index];

        int32_t heads = 0, head_dim = 0;
        REQUIRE(d.index(d.find(c, "heads"), &heads));
        REQUIRE(d.index(d.find(c, "headDim"), &head_dim));
        REQUIRE(heads >= 1);
        // The fixture's head width is the layer's own (Gemma 4's global layers: 512).
        REQUIRE(head_dim == layer.head_dim);

        std::vector<int32_t> positions;
        const uint32_t pos = d.find(c, "positions");
        for (uint32_t x = d.first(pos); x != d.end(pos); x = d.next(x)) {
            int32_t p = 0;
            REQUIRE(d.index(x, &p));
            positions.push_back(p);
        }
        const int64_t n = static_cast<int64_t>(positions.size());
        REQUIRE(n >= 1);

        std::vector<double> qd, kd, want, sink_values;
        numbers(d, d.find(c, "q"), &qd);
        numbers(d, d.find(c, "k"), &kd);
        numbers(d, d.find(c, "probs"), &want);
        REQUIRE(qd.size() == static_cast<size_t>(n * heads * head_dim));
        REQUIRE(kd.size() == qd.size());
        REQUIRE(want.size() == static_cast<size_t>(heads * n * n));
        // q and k are float32 values written as short decimals: read as float32, as the reference.
        const std::vector<float> q(qd.begin(), qd.end()), k(kd.begin(), kd.end());
        const uint32_t sinks_node = d.find(c, "sinks");
        REQUIRE(sinks_node != json::Document::none);
        if (d.type(sinks_node) != json::Type::null) numbers(d, sinks_node, &sink_values);
        // Sinks are weights, not in the config: the fixture has them exactly where the setup
        // says the layer has them, one per head.
        REQUIRE(layer.sinks == !sink_values.empty());
        if (layer.sinks) REQUIRE(sink_values.size() == static_cast<size_t>(heads));
        const std::vector<float> sinks(sink_values.begin(), sink_values.end());

        AttentionRequest r;
        r.q = q.data(), r.k = k.data();
        r.n = n, r.head_dim = layer.head_dim, r.heads = heads;
        r.positions = Positions{positions.data()};
        r.scheme = layer.scheme;
        r.output = Output::probs;
        r.mask_kind = layer.attention, r.window = layer.window, r.chunk_size = layer.chunk_size;
        r.temperature = layer.temperature;
        r.scale = layer.scale;
        r.softcap = layer.softcap;
        if (layer.sinks) r.sinks = sinks.data();

        table << "\n  " << id;
        for (const Kernel kernel : {Kernel::fast, Kernel::reference}) {
            const char* name = kernel == Kernel::fast ? "fast" : "reference";
            INFO("kernel " << name);
            std::vector<float> got(static_cast<size_t>(heads * n * n), -1.0f);
            const Status st = attention(r, got.data(), kernel);
            if (!st.ok()) FAIL("attention: " << st.message());
            size_t where = 0;
            const double err = hirope_test::max_abs_error(got, want, &where);
            INFO("max |hirope - transformers| " << err << " at head " << where / (n * n) << ", row "
                                                << where / n % n << ", column " << where % n << ": "
                                                << got[where] << " vs " << want[where]);
            CHECK(err <= tolerance);
            table << "  " << name << " " << err;
        }
    }
    REQUIRE(count >= 11); // tools/write-real-layer-fixture.py's CASES
    WARN("real layers, max |hirope - transformers| per case:" << table.str());
}
