// A Hugging Face checkpoint as a Model: the weights a plan (checkpoint::plan_checkpoint) located,
// read tensor by tensor and laid out as the one forward reads them (model_internal.h), at their
// stored width (F16 and BF16 widened inside the kernels): q, k and v rows in one matrix, a fused
// gate_up split into gate and up, the embedding read a row at a time from its packed panels (the
// output layer's when tied), Gemma's (1 + w) norms as w + 1.
#include "hirope/architectures.h"
#include "model/model_internal.h"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <limits>

namespace hirope {
namespace model {

namespace {

using checkpoint::CheckpointPlan;
using checkpoint::DType;
using checkpoint::WeightRef;
using checkpoint::WeightRole;

// A weight's stored bytes (F32, F16 or BF16, little-endian).
struct Stored {
    std::vector<uint8_t> bytes;
    DType dtype = DType::F32;
};

Linear::Format format_of(DType t) {
    return t == DType::F16    ? Linear::Format::f16
           : t == DType::BF16 ? Linear::Format::bf16
                              : Linear::Format::f32;
}

// The index of the first non-finite value (all exponent bits set), or -1.
int64_t first_non_finite(const Stored& w) {
    const uint8_t* p = w.bytes.data();
    if (w.dtype == DType::F32) {
        for (size_t i = 0; i + 4 <= w.bytes.size(); i += 4)
            if ((p[i + 3] & 0x7F) == 0x7F && (p[i + 2] & 0x80)) return static_cast<int64_t>(i / 4);
        return -1;
    }
    // F16: exponent bits 0x7C00; BF16: 0x7F80 (the high byte's 0x7F, the low byte's 0x80).
    const uint16_t mask = w.dtype == DType::F16 ? 0x7C00 : 0x7F80;
    for (size_t i = 0; i + 2 <= w.bytes.size(); i += 2) {
        const uint16_t h = static_cast<uint16_t>(p[i] | (p[i + 1] << 8));
        if ((h & mask) == mask) return static_cast<int64_t>(i / 2);
    }
    return -1;
}

// Widened to f32 (checkpoint::weight_at, the reader's own widening).
std::vector<float> widened(const Stored& w) {
    checkpoint::TensorInfo info;
    info.dtype = w.dtype;
    const checkpoint::TensorView view{&info, w.bytes.data(), w.bytes.size()};
    std::vector<float> out(w.bytes.size() / (checkpoint::dtype_bits(w.dtype) / 8));
    for (size_t i = 0; i < out.size(); ++i) out[i] = checkpoint::weight_at(view, i);
    return out;
}

// Reads located tensors at their stored width, every value checked finite.
class TensorReader {
  public:
    TensorReader(const CheckpointPlan& plan, const Model::ReadBytes& read)
        : plan_(plan), read_(read) {}

    // The weight of `role` (layer -1: model-wide) into *out; absent: *found false, or an error
    // when required.
    Status stored(WeightRole role, int layer, bool required, Stored* out, bool* found = nullptr) {
        const WeightRef* w = plan_.weight(role, layer);
        if (found) *found = w != nullptr;
        if (!w) {
            if (!required) return {};
            return Status::error(std::string("the plan has no ") + checkpoint::role_name(role) +
                                 " weight" +
                                 (layer >= 0 ? " for layer " + std::to_string(layer) : ""));
        }
        const checkpoint::TensorInfo& t = w->tensor;
        out->dtype = t.dtype;
        out->bytes.resize(static_cast<size_t>(t.bytes()));
        Status st = read_(w->file, w->file_offset, t.bytes(), out->bytes.data());
        if (!st.ok()) return Status::error("reading tensor " + t.name + ": " + st.message());
        const int64_t bad = first_non_finite(*out);
        if (bad >= 0)
            return Status::error("tensor " + t.name + " holds a non-finite value at element " +
                                 std::to_string(bad));
        return {};
    }

    // A small weight (a norm, a bias) widened and appended to *out; absent: nothing.
    Status append(WeightRole role, int layer, bool required, std::vector<float>* out) {
        Stored w;
        bool found = false;
        Status st = stored(role, layer, required, &w, &found);
        if (!st.ok() || !found) return st;
        const std::vector<float> v = widened(w);
        out->insert(out->end(), v.begin(), v.end());
        return {};
    }

    // The rows of `roles`' weights, in that order, as one out x in Linear at their stored width
    // (widened to f32 when their dtypes differ). rows: [first, first + count) of the joined rows.
    Status linear(std::initializer_list<WeightRole> roles, int layer, int out, int in, Linear* dst,
                  int64_t first = 0) {
        std::vector<Stored> parts;
        bool same = true;
        for (WeightRole r : roles) {
            parts.emplace_back();
            Status st = stored(r, layer, true, &parts.back());
            if (!st.ok()) return st;
            same = same && parts.back().dtype == parts.front().dtype;
        }
        const size_t size = same && parts.front().dtype != DType::F32 ? 2 : 4;
        std::vector<uint8_t> joined;
        if (same) {
            for (const Stored& p : parts)
                joined.insert(joined.end(), p.bytes.begin(), p.bytes.end());
        } else {
            for (const Stored& p : parts) {
                const std::vector<float> v = widened(p);
                const uint8_t* b = reinterpret_cast<const uint8_t*>(v.data());
                joined.insert(joined.end(), b, b + v.size() * sizeof(float));
            }
        }
        const size_t at = static_cast<size_t>(first) * in * size;
        *dst = Linear(joined.data() + at,
                      same ? format_of(parts.front().dtype) : Linear::Format::f32, out, in);
        return {};
    }

  private:
    const CheckpointPlan& plan_;
    const Model::ReadBytes& read_;
};

} // namespace

Status Model::from_checkpoint(const CheckpointPlan& plan, const ReadBytes& read,
                              std::unique_ptr<Model>* out, const HeapBudget& heap) {
    const checkpoint::Architecture* a = plan.architecture;
    if (!a) return Status::error("the checkpoint plan is empty (plan_checkpoint failed?)");
    if (!read) return Status::error("a checkpoint needs a function that reads its files");
    const checkpoint::Dims& dims = plan.dims;
    if (static_cast<int64_t>(plan.setup.layers.size()) != dims.layers)
        return Status::error("the checkpoint plan's setup has " +
                             std::to_string(plan.setup.layers.size()) + " layers, its dims " +
                             std::to_string(dims.layers));
    // The forward's own bounds (ModelLimits): a larger model is refused before a byte is read.
    auto over = [](const char* what, int64_t value, int64_t limit) {
        return Status::error(std::string("the checkpoint's ") + what + " (" +
                             std::to_string(value) + ") exceeds the forward's limit of " +
                             std::to_string(limit));
    };
    if (dims.layers < 1 || dims.layers > ModelLimits::max_layers)
        return over("num_hidden_layers", dims.layers, ModelLimits::max_layers);
    if (dims.hidden > ModelLimits::max_d_model)
        return over("hidden_size", dims.hidden, ModelLimits::max_d_model);
    if (dims.intermediate > ModelLimits::max_ffn)
        return over("intermediate_size", dims.intermediate, ModelLimits::max_ffn);
    if (dims.vocab > ModelLimits::max_vocab)
        return over("vocab_size", dims.vocab, ModelLimits::max_vocab);
    if (dims.heads * dims.head_dim > ModelLimits::max_d_model)
        return over("num_attention_heads x head_dim", dims.heads * dims.head_dim,
                    ModelLimits::max_d_model);

    Config c;
    c.version = kFormatVersion;
    c.vocab = static_cast<int>(dims.vocab);
    c.d_model = static_cast<int>(dims.hidden);
    c.layers = static_cast<int>(dims.layers);
    c.heads = static_cast<int>(dims.heads);
    c.kv_heads = static_cast<int>(dims.kv_heads);
    c.head_size = static_cast<int>(dims.head_dim);
    c.ffn_hidden = static_cast<int>(dims.intermediate);
    c.training_context = static_cast<int>(
        std::min<int64_t>(std::max<int64_t>(plan.setup.trained_length, 0), 1 << 30));
    c.norm_eps = static_cast<float>(plan.norm_eps);
    c.name = a->model_type;
    for (const LayerSetup& l : plan.setup.layers)
        if (l.rope) {
            c.rope_base = static_cast<float>(l.scheme.base);
            break;
        }

    // The weights at their stored width (norms and biases widened), plus at the peak one
    // tensor's bytes read and its packed copy.
    uint64_t largest = 0;
    for (const WeightRef& w : plan.weights) largest = std::max(largest, w.tensor.bytes());
    Status st = heap.reserve(static_cast<double>(plan.weight_bytes) + 3.0 * largest,
                             "loading the checkpoint");
    if (!st.ok()) return st;

    std::unique_ptr<Model> m(new Model);
    m->config_ = c;
    Impl& impl = *m->impl_;
    impl.heap = heap;
    impl.cfg = c;
    ArchitectureSpec& spec = impl.arch;
    spec.layer_norm = a->norm == checkpoint::NormKind::layer_norm;
    spec.activation = plan.activation;
    spec.gated_mlp = a->mlp != checkpoint::MlpKind::plain;
    spec.embedding_scale = static_cast<float>(plan.embedding_scale);
    spec.final_softcap = plan.final_softcap;
    spec.checkpoint = true;
    spec.setup = plan.setup;

    TensorReader reader(plan, read);
    const bool one_plus = a->norm == checkpoint::NormKind::rms_one_plus;
    // A norm's weight (and LayerNorm's bias); Gemma's (1 + w) folded in.
    auto norm = [&](WeightRole w, WeightRole b, int layer, NormWeights* n) {
        Status s = reader.append(w, layer, false, &n->w);
        if (s.ok() && spec.layer_norm) s = reader.append(b, layer, false, &n->b);
        if (one_plus)
            for (float& x : n->w) x += 1.0f;
        return s;
    };
    const int H = c.d_model, I = c.ffn_hidden, QD = c.heads * c.head_dim();
    const int QKV = (c.heads + 2 * c.kv_head_count()) * c.head_dim();
    // The embedding at its stored width, rows read as needed; the output layer when tied.
    st = reader.linear({WeightRole::embed}, -1, c.vocab, H,
                       plan.tied ? &impl.head : &impl.embedding_rows);
    impl.embedding_is_head = plan.tied;
    impl.blocks.resize(c.layers);
    for (int l = 0; l < c.layers && st.ok(); ++l) {
        Impl::Block& b = impl.blocks[l];
        using R = WeightRole;
        st = norm(R::attn_norm, R::attn_norm_bias, l, &b.attn_norm);
        // q, k and v as one matrix of (heads + 2 kv_heads) x head_dim rows, and their biases.
        if (st.ok())
            st = a->fused_qkv ? reader.linear({R::qkv}, l, QKV, H, &b.wqkv)
                              : reader.linear({R::q, R::k, R::v}, l, QKV, H, &b.wqkv);
        // Biases wherever the plan located them (the table and the config's flags decided).
        if (st.ok()) st = reader.append(R::q_bias, l, false, &b.bqkv);
        if (st.ok()) st = reader.append(R::k_bias, l, false, &b.bqkv);
        if (st.ok()) st = reader.append(R::v_bias, l, false, &b.bqkv);
        if (st.ok() && !b.bqkv.empty() && b.bqkv.size() != static_cast<size_t>(QKV))
            st = Status::error("layer " + std::to_string(l) +
                               " has biases for some of q, k and v but not all");
        if (st.ok()) st = reader.append(R::o_bias, l, false, &b.bo);
        if (st.ok()) st = reader.linear({R::o}, l, H, QD, &b.wo);
        if (st.ok() && a->qk_norm) {
            st = norm(R::q_norm, R::q_norm, l, &b.q_norm);
            if (st.ok()) st = norm(R::k_norm, R::k_norm, l, &b.k_norm);
        }
        if (st.ok() && a->sandwich_norms) {
            st = norm(R::attn_post_norm, R::attn_post_norm, l, &b.attn_post_norm);
            if (st.ok()) st = norm(R::ffn_post_norm, R::ffn_post_norm, l, &b.mlp_post_norm);
        }
        if (st.ok()) st = norm(R::ffn_norm, R::ffn_norm_bias, l, &b.mlp_norm);
        // The MLP: gate into w1, up into w3, down into w2 (Phi-3's gate_up: rows [0, I), [I, 2I)).
        if (st.ok() && a->mlp == checkpoint::MlpKind::fused_gated) {
            st = reader.linear({R::gate_up}, l, I, H, &b.w1, 0);
            if (st.ok()) st = reader.linear({R::gate_up}, l, I, H, &b.w3, I);
        } else if (st.ok()) {
            if (spec.gated_mlp) st = reader.linear({R::gate}, l, I, H, &b.w1);
            if (st.ok()) st = reader.linear({R::up}, l, I, H, &b.w3);
        }
        if (st.ok() && spec.gated_mlp) st = reader.append(R::gate_bias, l, false, &b.b1);
        if (st.ok()) st = reader.append(R::up_bias, l, false, &b.b3);
        if (st.ok()) st = reader.append(R::down_bias, l, false, &b.b2);
        if (st.ok()) st = reader.linear({R::down}, l, H, I, &b.w2);
    }
    if (st.ok())
        st = norm(WeightRole::final_norm, WeightRole::final_norm_bias, -1, &impl.final_norm);
    if (st.ok() && !plan.tied)
        st = reader.linear({WeightRole::lm_head}, -1, c.vocab, H, &impl.head);
    if (!st.ok()) return st;
    *out = std::move(m);
    return {};
}

Status Model::from_folder(const checkpoint::CheckpointFolder& folder, std::unique_ptr<Model>* out,
                          const HeapBudget& heap, uint64_t budget_bytes,
                          const std::function<void(size_t, size_t)>& progress,
                          CheckpointPlan* plan) {
    checkpoint::OpenedCheckpoint opened;
    Status st = checkpoint::open_checkpoint(folder, &opened);
    if (st.ok() && budget_bytes > 0)
        st = checkpoint::check_memory(opened.plan, budget_bytes, ModelLimits::max_input_bytes, 64);
    size_t done = 0;
    const size_t total = opened.plan.weights.size();
    if (st.ok())
        st = from_checkpoint(
            opened.plan,
            [&](uint32_t file, uint64_t offset, uint64_t size, uint8_t* dst) {
                Status r = folder.read(opened.files[file], offset, size, dst);
                if (r.ok() && progress) progress(++done, total);
                return r;
            },
            out, heap);
    if (plan) *plan = std::move(opened.plan);
    return st;
}

} // namespace model
} // namespace hirope
