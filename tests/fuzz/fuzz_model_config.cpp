// libFuzzer: the config.json reader (read_model_config) on arbitrary bytes. A config must either
// be read or fail with a Status (a message, an empty setup); once read, every layer's scheme is
// one the core takes: its inverse frequencies and attention factor are finite at the trained and
// the maximum length, and the setup's counts agree with each other.
#include "hirope/model_config.h"

#include <cmath>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    hirope::ModelSetup m;
    const hirope::Status st = hirope::read_model_config(text, &m);
    if (!st.ok()) {
        if (st.message().empty() || !m.layers.empty()) std::abort();
        return 0;
    }
    if (m.layers.empty() || m.head_dim <= 0 || m.rotary_dim <= 0 || m.rotary_dim > m.head_dim)
        std::abort();
    for (const hirope::LayerSetup& l : m.layers) {
        if (l.rope != (l.scheme.type != hirope::SchemeType::nope)) std::abort();
        if (l.attention == hirope::AttentionKind::sliding && l.window <= 0) std::abort();
        if (l.attention == hirope::AttentionKind::chunked && l.chunk_size <= 0) std::abort();
        for (int64_t n : {int64_t{1}, m.trained_length, m.max_length}) {
            if (n <= 0) continue;
            std::vector<double> f;
            if (!hirope::inverse_frequencies(l.scheme, l.head_dim, n, &f).ok()) std::abort();
            for (double x : f)
                if (!std::isfinite(x) || x < 0) std::abort();
            if (!std::isfinite(hirope::attention_factor(l.scheme, n))) std::abort();
        }
    }
    return 0;
}
