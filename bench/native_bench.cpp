// Native timings of the same core the WASM builds run, for bench/attention.mjs.
// Prints one JSON line per case: {"impl", "scheme", "n", "d", "ms", "gflops_qk"}.
#include "hirope.h"
#include "simd4.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

using namespace hirope;

namespace {

double now_ms() {
    using namespace std::chrono;
    return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

} // namespace

int main(int argc, char** argv) {
    int repeats = argc > 1 ? std::atoi(argv[1]) : 5;
    std::vector<int> ns = {512, 1024, 2048, 4096};
    if (argc > 2) {
        ns.clear();
        for (char* tok = std::strtok(argv[2], ","); tok; tok = std::strtok(nullptr, ","))
            ns.push_back(std::atoi(tok));
    }
    for (int d : {64, 128}) {
        for (int n : ns) {
            std::vector<int32_t> tok(n), unit(n), ids(n);
            for (int t = 0; t < n; ++t) {
                tok[t] = ids[t] = t;
                unit[t] = t / 64;
            }
            std::vector<float> q(size_t(n) * d), k(size_t(n) * d), out(size_t(n) * n);
            seeded_vectors(1, ids.data(), n, d, 0, q.data());
            seeded_vectors(1, ids.data(), n, d, 1, k.data());
            for (const char* name : {"rope", "hirope"}) {
                for (bool eigen : {false, true}) {
                    AttentionRequest r;
                    r.q = q.data();
                    r.k = k.data();
                    r.n = n;
                    r.head_dim = d;
                    r.positions = Positions{tok.data(), unit.data()};
                    r.scheme.type =
                        std::strcmp(name, "rope") == 0 ? SchemeType::rope : SchemeType::hirope;
                    r.output = Output::probs;
                    r.use_eigen = eigen;
                    std::vector<double> times;
                    for (int rep = 0; rep < repeats; ++rep) {
                        const double t0 = now_ms();
                        Status st = attention(r, out.data());
                        times.push_back(now_ms() - t0);
                        if (!st.ok()) {
                            std::fprintf(stderr, "%s\n", st.message().c_str());
                            return 1;
                        }
                    }
                    const double ms = median(times);
                    // Causal q.k^T: n(n+1)/2 dot products of length d, 2 flops per term.
                    const double flops = double(n) * (n + 1) / 2 * d * 2;
                    std::printf("{\"impl\":\"native-%s\",\"scheme\":\"%s\",\"n\":%d,\"d\":%d,"
                                "\"ms\":%.3f,\"gflops_qk\":%.2f}\n",
                                eigen ? "eigen" : simd::kName, name, n, d, ms,
                                flops / (ms * 1e6));
                    std::fflush(stdout);
                }
            }
        }
    }
    return 0;
}
