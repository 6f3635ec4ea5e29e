// Native timings of the same core the WASM builds run, for bench/attention.mjs.
// Usage: hirope_bench REPEATS N[,N...] D[,D...]
// Prints one JSON line per case: {"impl", "case", "n", "d", "ms"} (median of REPEATS runs after
// one warm-up run).
#include "hirope/hirope.h"
#include "kernels/simd4.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using namespace hirope;

namespace {

double now_ms() {
    using namespace std::chrono;
    return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

std::vector<int> parse_list(const char* text) {
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

} // namespace

int main(int argc, char** argv) {
    const int repeats = argc > 1 ? std::atoi(argv[1]) : 5;
    const std::vector<int> ns = parse_list(argc > 2 ? argv[2] : "512,1024,2048,4096");
    const std::vector<int> ds = parse_list(argc > 3 ? argv[3] : "64,128");
    struct Case {
        const char* name;
        SchemeType type;
        bool causal;
        Output output;
    };
    const Case cases[] = {
        {"rope-probs", SchemeType::rope, true, Output::probs},
        {"hirope-probs", SchemeType::hirope, true, Output::probs},
        {"rope-full-probs", SchemeType::rope, false, Output::probs},
        {"rope-full-logits", SchemeType::rope, false, Output::logits},
    };
    for (int d : ds) {
        for (int n : ns) {
            std::vector<int32_t> tok(n), unit(n);
            for (int t = 0; t < n; ++t) {
                tok[t] = t;
                unit[t] = t / 64;
            }
            std::vector<float> q(size_t(n) * d), k(size_t(n) * d), out(size_t(n) * n);
            seeded_vectors(1, tok.data(), n, d, 0, q.data());
            seeded_vectors(1, tok.data(), n, d, 1, k.data());
            for (const Case& c : cases) {
                for (bool eigen : {false, true}) {
                    AttentionRequest r;
                    r.q = q.data();
                    r.k = k.data();
                    r.n = n;
                    r.head_dim = d;
                    r.positions = Positions{tok.data(), unit.data()};
                    r.scheme.type = c.type;
                    r.causal = c.causal;
                    r.output = c.output;
                    r.use_eigen = eigen;
                    std::vector<double> times;
                    for (int rep = 0; rep <= repeats; ++rep) {
                        const double t0 = now_ms();
                        Status st = attention(r, out.data());
                        if (rep > 0) times.push_back(now_ms() - t0);
                        if (!st.ok()) {
                            std::fprintf(stderr, "%s\n", st.message().c_str());
                            return 1;
                        }
                    }
                    std::sort(times.begin(), times.end());
                    std::printf("{\"impl\":\"native-%s\",\"case\":\"%s\",\"n\":%d,\"d\":%d,"
                                "\"ms\":%.3f}\n",
                                eigen ? "eigen" : simd::kName, c.name, n, d,
                                times[times.size() / 2]);
                    std::fflush(stdout);
                }
            }
        }
    }
    return 0;
}
