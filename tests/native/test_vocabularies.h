// The built-in vocabularies for native tests: build/data (written by the build) or
// HIROPE_DATA_DIR, each loaded once per test binary.
#pragma once

#include "hirope/analysis.h"
#include "test_files.h"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <map>
#include <memory>
#include <string>

inline std::string test_data_dir() {
    const char* env = std::getenv("HIROPE_DATA_DIR");
    return env ? env : "build/data";
}

inline const hirope::Vocabulary& test_vocabulary(const std::string& name) {
    static std::map<std::string, std::unique_ptr<hirope::Vocabulary>> loaded;
    std::unique_ptr<hirope::Vocabulary>& v = loaded[name];
    if (!v) {
        const std::vector<uint8_t> data = read_file(test_data_dir() + "/" + name + ".bin");
        INFO("run from the repository root after the build, or set HIROPE_DATA_DIR");
        REQUIRE(!data.empty());
        hirope::Status st = hirope::load_vocabulary(data.data(), data.size(), &v);
        INFO(st.message());
        REQUIRE(st.ok());
    }
    return *v;
}
