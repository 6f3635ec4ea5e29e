// The model's Linear layer with weights at their stored width: F32 panels against F16 and BF16
// panels widened inside apply. Default case: SmolLM2-135M's MLP gate/up projection, a 512 x 576
// input against a 1536 x 576 weight (out x in).
// Usage: hirope_linear_bench [REPEATS [N[,N...] [IN [OUT]]]]
// Prints one JSON line per format and N: {"format", "n", "in", "out", "bytes", "ms", "gflops",
// "vs_f32"}, ms the median of REPEATS runs after one warm-up run (the formats run in turn),
// gflops 2 * n * in * out / ms, vs_f32 ms over F32's ms.
#include "model/model_internal.h"

#include "bench_util.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using hirope::model::Linear;

namespace {

using bench::now_ms;
using bench::parse_list;

uint64_t next(uint64_t& state) { // splitmix64
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

// Weights of magnitude 2^-6 to 2^-1 (a trained layer's range, no subnormals), little-endian.
std::vector<uint8_t> weights(Linear::Format format, size_t count) {
    uint64_t state = 42;
    const int width = format == Linear::Format::f32 ? 4 : 2;
    std::vector<uint8_t> bytes(count * width);
    for (size_t i = 0; i < count; ++i) {
        const uint64_t r = next(state);
        const uint32_t sign = static_cast<uint32_t>(r >> 63),
                       e = static_cast<uint32_t>(r >> 40) % 5;
        uint32_t bits;
        if (format == Linear::Format::f32)
            bits = sign << 31 | (121 + e) << 23 | static_cast<uint32_t>(r & 0x7FFFFFu);
        else if (format == Linear::Format::bf16)
            bits = sign << 15 | (121 + e) << 7 | static_cast<uint32_t>(r & 0x7Fu);
        else
            bits = sign << 15 | (9 + e) << 10 | static_cast<uint32_t>(r & 0x3FFu);
        for (int b = 0; b < width; ++b)
            bytes[i * width + b] = static_cast<uint8_t>(bits >> (8 * b));
    }
    return bytes;
}

} // namespace

int main(int argc, char** argv) {
    const int repeats = argc > 1 ? std::max(1, std::atoi(argv[1])) : 21;
    const std::vector<int> ns = parse_list(argc > 2 ? argv[2] : "512");
    const int in = argc > 3 ? std::atoi(argv[3]) : 576;
    const int out = argc > 4 ? std::atoi(argv[4]) : 1536;
    const Linear::Format formats[] = {Linear::Format::f32, Linear::Format::f16,
                                      Linear::Format::bf16};
    const char* names[] = {"f32", "f16", "bf16"};
    std::vector<Linear> linears;
    for (Linear::Format format : formats) {
        const std::vector<uint8_t> bytes = weights(format, static_cast<size_t>(out) * in);
        linears.emplace_back(bytes.data(), format, out, in);
    }
    for (int n : ns) {
        std::vector<float> x(static_cast<size_t>(n) * in), y(static_cast<size_t>(n) * out);
        uint64_t state = 7;
        for (float& v : x) v = static_cast<float>((next(state) >> 40) * 0x1p-23 - 1.0);
        // The formats take turns, so that a busy machine's slow spells fall on all of them.
        std::vector<double> ms[3];
        for (int r = -1; r < repeats; ++r)
            for (int f = 0; f < 3; ++f) {
                const double t0 = now_ms();
                linears[f].apply(x.data(), n, y.data());
                if (r >= 0) ms[f].push_back(now_ms() - t0); // r = -1: the warm-up
            }
        double median[3];
        for (int f = 0; f < 3; ++f) {
            std::sort(ms[f].begin(), ms[f].end());
            median[f] = ms[f][ms[f].size() / 2];
        }
        for (int f = 0; f < 3; ++f)
            std::printf("{\"format\": \"%s\", \"n\": %d, \"in\": %d, \"out\": %d, \"bytes\": %zu, "
                        "\"ms\": %.4f, \"gflops\": %.2f, \"vs_f32\": %.3f}\n",
                        names[f], n, in, out, linears[f].bytes(), median[f],
                        2.0 * n * in * out / (median[f] * 1e6), median[f] / median[0]);
    }
    return 0;
}
