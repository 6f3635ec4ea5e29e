// Native timings of the same core the WASM builds run, for bench/attention.mjs.
// Usage: hirope_bench REPEATS N[,N...] D[,D...]
// Prints one JSON line per case: {"impl", "case", "n", "d", "ms"} (median of REPEATS runs after
// one warm-up run). impl "native-eigen" is the same attention with Eigen's products in place of
// the tiled kernels, computed here (the library has only the tiled kernels and the reference).
#include "hirope/hirope.h"
#include "kernels/activation.h"
#include "kernels/simd4.h"
#include "kernels/vector.h"

#include "bench_util.h"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using namespace hirope;

namespace {

using bench::now_ms;
using bench::parse_list;

// attention(r, out) with Eigen products: q and k rotated by the public rotate() (both branches
// for windowed schemes), one q.k^T product per head and branch, the window rule, the scale, the
// softmax and the masked fill. No ALiBi: the cases below have none.
Status eigen_attention(const AttentionRequest& r, float* out) {
    using RowMat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    using Map = Eigen::Map<const RowMat, 0, Eigen::OuterStride<>>;
    const int64_t n = r.n, hd = r.head_dim, width = r.heads * hd;
    const bool windowed = is_windowed(r.scheme.type);
    std::vector<float> qn(n * width), kn(n * width), qf, kf;
    auto rot = [&](Role role, Branch branch, const float* x, std::vector<float>* y) {
        y->resize(n * width);
        return rotate(r.scheme, r.head_dim, r.heads, n, r.positions, role, branch, x, y->data());
    };
    Status st = rot(Role::query, Branch::near, r.q, &qn);
    if (st.ok()) st = rot(Role::key, Branch::near, r.k, &kn);
    if (st.ok() && windowed) st = rot(Role::query, Branch::far, r.q, &qf);
    if (st.ok() && windowed) st = rot(Role::key, Branch::far, r.k, &kf);
    if (!st.ok()) return st;
    const float scale = static_cast<float>(r.scale > 0 ? r.scale : 1.0 / std::sqrt(double(hd)));
    const int32_t* tok = r.positions.token;
    for (int h = 0; h < r.heads; ++h) {
        auto product = [&](const std::vector<float>& q, const std::vector<float>& k) {
            Map qm(q.data() + h * hd, n, hd, Eigen::OuterStride<>(width));
            Map km(k.data() + h * hd, n, hd, Eigen::OuterStride<>(width));
            RowMat res = qm * km.transpose();
            return res;
        };
        const RowMat near = product(qn, kn);
        const RowMat far = windowed ? product(qf, kf) : RowMat();
        for (int64_t i = 0; i < n; ++i) {
            float* o = out + (h * n + i) * n;
            const int64_t len = r.causal ? i + 1 : n;
            for (int64_t j = 0; j < len; ++j) {
                const bool use_near =
                    !windowed || static_cast<int64_t>(tok[i]) - tok[j] < r.scheme.window;
                o[j] = (use_near ? near(i, j) : far(i, j)) * scale;
            }
            const bool probs = r.output == Output::probs;
            const bool finite = probs ? kernels::softmax_row(o, static_cast<size_t>(len))
                                      : kernels::all_finite(o, static_cast<size_t>(len));
            if (!finite) return Status::error("logits overflow the float range");
            std::fill(o + len, o + n, probs ? 0.0f : -INFINITY);
        }
    }
    return {};
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
                    std::vector<double> times;
                    for (int rep = 0; rep <= repeats; ++rep) {
                        const double t0 = now_ms();
                        Status st =
                            eigen ? eigen_attention(r, out.data()) : attention(r, out.data());
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
