// model_setup_json (include/hirope/model_config.h): the JSON both bindings return. Its values are
// the setup's (the reader is tested in test_model_config.cpp); here: valid JSON for any setup
// (warnings with quotes and control characters), optional keys only where they apply, and
// numbers that read back exactly.
#include "hirope/model_config.h"
#include "tokenizers/json.h"
#include <catch2/catch.hpp>
#include <cmath>
#include <string>

using namespace hirope;

TEST_CASE("model setup JSON: keys, optional parts, escaping, exact numbers", "[model_config]") {
    const std::string config = R"({"model_type": "llama4_text", "hidden_size": 5120,
        "num_attention_heads": 40, "head_dim": 128, "num_hidden_layers": 4,
        "max_position_embeddings": 10485760, "rope_theta": 500000.0,
        "attention_chunk_size": 8192, "no_rope_layers": [1, 1, 1, 0],
        "attn_temperature_tuning": true, "floor_scale": 8192, "attn_scale": 0.1})";
    ModelSetup setup;
    REQUIRE(read_model_config(config, &setup).ok());
    setup.warnings.push_back("a \"quoted\"\nkey\\");
    const std::string text = model_setup_json(setup);
    json::Document doc;
    REQUIRE(doc.parse(text).ok());
    CHECK(text.rfind(R"({"modelType":"llama4_text","headDim":128,"rotaryDim":128,)", 0) == 0);
    CHECK(text.find(R"("layerCount":4,"layers":[)") != std::string::npos);
    CHECK(text.find(R"("attention":{"type":"chunked","chunkSize":8192},"rope":true)") !=
          std::string::npos);
    CHECK(text.find(R"("attention":{"type":"full"},"rope":false,"scheme":{"type":"nope")") !=
          std::string::npos);
    CHECK(text.find(R"("temperature":{"floorScale":8192,"scale":0.1,"offset":1})") !=
          std::string::npos);
    CHECK(text.find(R"("warnings":[)") != std::string::npos);
    CHECK(text.find(R"("a \"quoted\"\u000akey\\")") != std::string::npos);
    CHECK(text.find("dualChunk") == std::string::npos);
    CHECK(text.find(R"("maxLength":10485760)") != std::string::npos);
}

TEST_CASE("model setup JSON: scale and softcap only where set, linear layers", "[model_config]") {
    ModelSetup setup;
    REQUIRE(read_model_config(R"({"model_type":"gemma2","num_hidden_layers":2,"head_dim":128,
        "query_pre_attn_scalar":144,"attn_logit_softcapping":50.0,"sliding_window":4096})",
                              &setup)
                .ok());
    std::string text = model_setup_json(setup);
    json::Document doc;
    REQUIRE(doc.parse(text).ok());
    const uint32_t layers = doc.find(json::Document::root, "layers");
    REQUIRE(layers != json::Document::none);
    for (uint32_t l = doc.first(layers); l != doc.end(layers); l = doc.next(l)) {
        // 144^-1/2 = 1/12, read back exactly.
        REQUIRE(doc.number(doc.find(l, "scale")) == std::pow(144.0, -0.5));
        REQUIRE(doc.number(doc.find(l, "softcap")) == 50.0);
    }
    // A Llama layer has neither key (absent: head_dim^-1/2, no soft-cap).
    REQUIRE(
        read_model_config(R"({"model_type":"llama","num_hidden_layers":1,"head_dim":64})", &setup)
            .ok());
    text = model_setup_json(setup);
    CHECK(text.find("\"scale\"") == std::string::npos);
    CHECK(text.find("\"softcap\"") == std::string::npos);
    // Qwen3-Next: its linear-attention layers' attention is {"type":"linear"}.
    REQUIRE(read_model_config(R"({"model_type":"qwen3_next","num_hidden_layers":4,
        "head_dim":256,"rope_theta":10000000})",
                              &setup)
                .ok());
    text = model_setup_json(setup);
    REQUIRE(doc.parse(text).ok());
    CHECK(text.find(R"("attention":{"type":"linear"},"rope":false,"scheme":{"type":"nope"})") !=
          std::string::npos);
    CHECK(text.find(R"({"type":"full_attention","attention":{"type":"full"},"rope":true)") !=
          std::string::npos);
}
