// Reading test data files (run the tests from the repository root).
#pragma once

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

inline std::vector<uint8_t> read_file(const std::string& path) {
    // One read of the whole file: a stream copy goes byte by byte, which in the WebAssembly test
    // builds cost seconds per tokenizer.json.
    std::ifstream f(path, std::ios::binary | std::ios::ate);
    if (!f) return {};
    const std::streamoff size = f.tellg();
    if (size <= 0) return {};
    std::vector<uint8_t> data(static_cast<size_t>(size));
    f.seekg(0);
    f.read(reinterpret_cast<char*>(data.data()), size);
    if (!f) return {};
    return data;
}
