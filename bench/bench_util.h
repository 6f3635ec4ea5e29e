// What the native benches share: a millisecond clock and a comma-separated list of sizes.
#pragma once

#include <chrono>
#include <cstdlib>
#include <string>
#include <vector>

namespace bench {

inline double now_ms() {
    using namespace std::chrono;
    return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

// "512,1" -> {512, 1}.
inline std::vector<int> parse_list(const char* text) {
    std::vector<int> out;
    std::string s(text);
    size_t start = 0;
    while (start < s.size()) {
        size_t end = s.find(',', start);
        if (end == std::string::npos) end = s.size();
        out.push_back(std::atoi(s.substr(start, end - start).c_str()));
        start = end + 1;
    }
    return out;
}

} // namespace bench
