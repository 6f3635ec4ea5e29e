// libFuzzer: the code model's weights file on arbitrary bytes (a file must either load or fail),
// and a short forward pass and generation through whatever loads (a token model: its ids). The
// trailing checksum is recomputed first so that mutations reach the header and parameter checks
// behind it.
#include "fuzz_common.h"
#include "hirope/model.h"
#include "model/model_internal.h"
#include "util/hash.h"

#include <cstring>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::vector<uint8_t> file(data, data + size);
    if (file.size() >= 8) {
        const uint32_t h = hirope::util::fnv1a(file.data(), file.size() - 4);
        std::memcpy(file.data() + file.size() - 4, &h, 4);
    }
    hirope::model::Config config;
    (void)hirope::model::read_config(file.data(), file.size(), &config);
    std::unique_ptr<hirope::model::Model> m;
    if (!hirope::model::Model::load(file.data(), file.size(), &m).ok()) return 0;
    const std::string text = "def f(x):\n    return x\n";
    hirope::model::BytePositions p;
    hirope::model::HierarchyOptions o;
    if (!hirope::model::byte_positions(text, o, &p).ok()) return 0;
    hirope::Scheme s;
    s.type = hirope::SchemeType::hirope;
    s.window = 4;
    std::vector<float> losses(text.size() - 1);
    hirope::model::Model::ForwardRequest r;
    r.bytes = reinterpret_cast<const uint8_t*>(text.data());
    r.n = static_cast<int64_t>(text.size());
    r.scheme = s;
    r.positions = p.view();
    r.losses = losses.data();
    (void)m->forward(r);
    if (!m->config().tokenizer.empty()) {
        // A token model: the text's bytes as ids (folded into its vocabulary) through the forward
        // and the decoder.
        std::vector<int32_t> ids(text.begin(), text.end());
        for (int32_t& id : ids) id %= m->config().vocab;
        r.bytes = nullptr;
        r.ids = ids.data();
        (void)m->forward(r);
        hirope::model::Decoder d(*m, s);
        std::vector<float> row(static_cast<size_t>(m->config().vocab));
        (void)d.append(ids.data(), r.n, p.unit.data(), p.statement.data(), row.data());
    }
    hirope::model::GenerateOptions g;
    g.scheme = s;
    g.max_bytes = 4;
    std::string out;
    (void)hirope::model::generate(*m, text, g, &out);
    return 0;
}
