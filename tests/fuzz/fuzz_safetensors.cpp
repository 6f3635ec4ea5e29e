// libFuzzer: the safetensors reader (include/hirope/checkpoint.h) on arbitrary bytes taken as a
// whole file, and the same bytes as a model.safetensors.index.json. Each must either fail with a
// Status (a message, nothing left behind) or give a fully consistent result: the tensors tile the
// data area, their sizes agree with their shapes and dtypes, every view lies inside the buffer
// (and every element of it is read, for ASan to see), the header read from its first 8 + N bytes
// alone is the same, and an index's names are the plain shard names it promises. A header read
// is also bound to a small Llama config (include/hirope/architectures.h): refused with a message
// and an empty plan, or every weight of the plan is the header's tensor of the expected shape;
// then loaded from these bytes (Model::from_checkpoint: a message, or a model), and a loaded
// model runs a forward of 3 ids and a step of its KV cache (a message or results, never a crash).
#include "hirope/architectures.h"
#include "hirope/checkpoint.h"
#include "hirope/model.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

using namespace hirope::checkpoint;

namespace {

void check_header(const Header& h, const uint8_t* data, size_t size) {
    if (h.data_offset != 8 + h.header_bytes || h.data_offset + h.data_bytes != size) std::abort();
    if (h.header_bytes > Limits().max_header_bytes) std::abort();
    if (h.by_name.size() != h.tensors.size()) std::abort();
    uint64_t next = 0;
    for (const TensorInfo& t : h.tensors) {
        if (t.begin != next || t.end < t.begin || t.end > h.data_bytes) std::abort();
        next = t.end;
        // The product of the dims (a 0 as 1) times the bits fits in 64 bits; the bytes agree.
        const uint64_t bits = dtype_bits(t.dtype);
        uint64_t span = bits, elements = 1;
        for (uint64_t d : t.shape) {
            const uint64_t f = d == 0 ? 1 : d;
            if (span > ~uint64_t{0} / f) std::abort();
            span *= f;
            elements *= d;
        }
        if (elements != t.elements || (elements * bits) % 8 != 0 ||
            elements * bits / 8 != t.bytes())
            std::abort();
        if (h.find(t.name) != &t) std::abort();
    }
    if (next != h.data_bytes) std::abort();
    for (size_t i = 1; i < h.by_name.size(); ++i)
        if (!(h.tensors[h.by_name[i - 1]].name < h.tensors[h.by_name[i]].name)) std::abort();

    // Views into the whole data area.
    DataSpan whole;
    whole.bytes = data + h.data_offset;
    whole.size = static_cast<size_t>(h.data_bytes);
    volatile float sink = 0;
    for (const TensorInfo& t : h.tensors) {
        TensorView v;
        const hirope::Status st = tensor_weights(h, t.name, whole, &v);
        if (!is_weight_dtype(t.dtype)) {
            if (st.ok() || st.message().find(dtype_name(t.dtype)) == std::string::npos ||
                v.data != nullptr)
                std::abort();
            continue;
        }
        if (!st.ok() || v.info != &t || v.bytes != t.bytes() ||
            v.data != data + h.data_offset + t.begin || v.data + v.bytes > data + size)
            std::abort();
        for (uint64_t i = 0; i < t.elements; ++i) sink = sink + weight_at(v, i);
    }
    (void)sink;
}

void check_index(std::string_view text) {
    ShardIndex idx;
    const hirope::Status st = read_shard_index(text, &idx);
    if (!st.ok()) {
        if (st.message().empty() || !idx.weight_map.empty() || !idx.shards.empty()) std::abort();
        return;
    }
    if (idx.weight_map.empty() || idx.shards.empty()) std::abort();
    for (size_t i = 0; i < idx.weight_map.size(); ++i) {
        const auto& e = idx.weight_map[i];
        if (i > 0 && !(idx.weight_map[i - 1].first < e.first)) std::abort();
        if (idx.shard_of(e.first) != &e.second) std::abort();
        if (!std::binary_search(idx.shards.begin(), idx.shards.end(), e.second)) std::abort();
        const std::string& s = e.second;
        const std::string suffix = ".safetensors";
        if (s.size() <= suffix.size() || s.compare(s.size() - suffix.size(), suffix.size(), suffix))
            std::abort();
        for (char c : s)
            if (c == '/' || c == '\\' || c == ':' || static_cast<unsigned char>(c) < 0x20)
                std::abort();
    }
    for (size_t i = 1; i < idx.shards.size(); ++i)
        if (!(idx.shards[i - 1] < idx.shards[i])) std::abort();
}

// The binding of a header to a Llama of hidden 8, intermediate 16, vocab 32, 2 layers, 2 heads,
// 1 key/value head (tests/fuzz/corpus/safetensors/tiny-llama.safetensors binds to it).
void check_binding(const Header& h, const uint8_t* data, size_t size) {
    static const char kConfig[] =
        R"({"model_type":"llama","vocab_size":32,"hidden_size":8,"intermediate_size":16,)"
        R"("num_hidden_layers":2,"num_attention_heads":2,"num_key_value_heads":1,)"
        R"("max_position_embeddings":64})";
    CheckpointPlan plan;
    const hirope::Status st = plan_checkpoint(kConfig, {{"model.safetensors", &h}}, &plan);
    if (!st.ok()) {
        if (st.message().empty() || plan.architecture != nullptr || !plan.weights.empty())
            std::abort();
        return;
    }
    uint64_t bytes = 0;
    for (const WeightRef& w : plan.weights) {
        const TensorInfo* t = h.find(w.tensor.name);
        if (t == nullptr || t->begin != w.tensor.begin || t->end != w.tensor.end ||
            t->shape != w.tensor.shape || w.tensor.shape != expected_shape(w.role, plan.dims) ||
            !is_weight_dtype(w.tensor.dtype) || w.file != 0 ||
            w.file_offset != h.data_offset + t->begin)
            std::abort();
        bytes += t->bytes();
    }
    if (bytes != plan.weight_bytes || plan.weight(WeightRole::lm_head) == nullptr) std::abort();
    // Loaded from the same bytes: every read inside the file the plan located.
    std::unique_ptr<hirope::model::Model> model;
    const hirope::Status loaded = hirope::model::Model::from_checkpoint(
        plan,
        [&](uint32_t file, uint64_t offset, uint64_t count, uint8_t* dst) {
            if (file != 0 || offset > size || count > size - offset) std::abort();
            std::memcpy(dst, data + offset, static_cast<size_t>(count));
            return hirope::Status{};
        },
        &model);
    if (!loaded.ok()) {
        if (loaded.message().empty() || model) std::abort();
        return;
    }
    const int32_t ids[3] = {1, 7, 31}, token[3] = {0, 1, 2};
    float logits[3 * 32], last[32];
    hirope::model::Model::ForwardRequest r;
    r.ids = ids;
    r.n = 3;
    r.positions.token = token;
    r.logits = logits;
    r.model_schemes = true;
    const hirope::Status ran = model->forward(r);
    if (!ran.ok() && ran.message().empty()) std::abort();
    hirope::model::Decoder dec(*model, model->setup()->layers[0].scheme);
    const hirope::Status step = dec.append(ids, 2, nullptr, nullptr, last);
    if (step.ok() && !dec.append(ids + 2, 1, nullptr, nullptr, last).ok() && dec.length() != 2)
        std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    Header h;
    const hirope::Status st = read_safetensors_header(data, size, size, &h);
    if (!st.ok()) {
        if (st.message().empty() || !h.tensors.empty() || h.has_metadata || h.header_bytes != 0)
            std::abort();
    } else {
        check_header(h, data, size);
        check_binding(h, data, size);
        // In steps, as a caller holding a Blob does: N from 8 bytes, the header from 8 + N.
        uint64_t n = 0;
        if (!safetensors_header_length(data, 8, size, &n).ok() || n != h.header_bytes) std::abort();
        Header again;
        if (!read_safetensors_header(data, static_cast<size_t>(8 + n), size, &again).ok())
            std::abort();
        if (again.tensors.size() != h.tensors.size() || again.metadata != h.metadata) std::abort();
        for (size_t i = 0; i < h.tensors.size(); ++i)
            if (again.tensors[i].name != h.tensors[i].name ||
                again.tensors[i].begin != h.tensors[i].begin ||
                again.tensors[i].end != h.tensors[i].end)
                std::abort();
        // As the one shard of an index that lists its tensors: they agree; leaving one out of
        // the index does not.
        if (!h.tensors.empty()) {
            ShardIndex idx;
            for (const TensorInfo& t : h.tensors)
                idx.weight_map.emplace_back(t.name, "a.safetensors");
            std::sort(idx.weight_map.begin(), idx.weight_map.end());
            idx.shards = {"a.safetensors"};
            if (!check_shards(idx, {{"a.safetensors", &h}}).ok()) std::abort();
            idx.weight_map.pop_back();
            if (check_shards(idx, {{"a.safetensors", &h}}).ok()) std::abort();
        }
    }
    check_index(std::string_view(reinterpret_cast<const char*>(data), size));
    return 0;
}
