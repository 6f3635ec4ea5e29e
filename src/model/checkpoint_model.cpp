// A Hugging Face checkpoint as a Model: the weights a plan (checkpoint::plan_checkpoint) located,
// read tensor by tensor and laid out as the one forward reads them (model_internal.h): q, k and v
// rows in one matrix, a fused gate_up split into gate and up, Gemma's (1 + w) norms as w + 1.
#include "hirope/architectures.h"
#include "model/model_internal.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace hirope {
namespace model {

namespace {

using checkpoint::CheckpointPlan;
using checkpoint::WeightRef;
using checkpoint::WeightRole;

// Reads one located tensor, widened to f32, every value finite.
class TensorReader {
  public:
    TensorReader(const CheckpointPlan& plan, const Model::ReadBytes& read)
        : plan_(plan), read_(read) {}

    Status floats(const WeightRef& w, std::vector<float>* out) {
        const checkpoint::TensorInfo& t = w.tensor;
        bytes_.resize(static_cast<size_t>(t.bytes()));
        Status st = read_(w.file, w.file_offset, t.bytes(), bytes_.data());
        if (!st.ok()) return Status::error("reading tensor " + t.name + ": " + st.message());
        checkpoint::TensorView view;
        view.info = &t;
        view.data = bytes_.data();
        view.bytes = bytes_.size();
        out->resize(static_cast<size_t>(t.elements));
        for (uint64_t i = 0; i < t.elements; ++i) {
            const float x = checkpoint::weight_at(view, i);
            if (!std::isfinite(x))
                return Status::error("tensor " + t.name + " holds a non-finite value at element " +
                                     std::to_string(i));
            (*out)[static_cast<size_t>(i)] = x;
        }
        return {};
    }

    // The weight of `role` (layer -1: model-wide) appended to *out; absent: nothing, or an error
    // when required.
    Status append(WeightRole role, int layer, bool required, std::vector<float>* out) {
        const WeightRef* w = plan_.weight(role, layer);
        if (!w) {
            if (!required) return {};
            return Status::error(std::string("the plan has no ") + checkpoint::role_name(role) +
                                 " weight" +
                                 (layer >= 0 ? " for layer " + std::to_string(layer) : ""));
        }
        std::vector<float> v;
        Status st = floats(*w, &v);
        if (!st.ok()) return st;
        out->insert(out->end(), v.begin(), v.end());
        return {};
    }

  private:
    const CheckpointPlan& plan_;
    const Model::ReadBytes& read_;
    std::vector<uint8_t> bytes_;
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

    // Every weight widened to f32 and packed (twice its floats at the peak: a tensor's copy and
    // its panels), plus the largest tensor's stored bytes.
    uint64_t largest = 0;
    for (const WeightRef& w : plan.weights) largest = std::max(largest, w.tensor.bytes());
    Status st = heap.reserve(2.0 * sizeof(float) * static_cast<double>(plan.parameters) +
                                 static_cast<double>(largest),
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
    const int H = c.d_model, I = c.ffn_hidden;
    st = reader.append(WeightRole::embed, -1, true, &impl.embedding);
    if (!st.ok()) return st;
    impl.blocks.resize(c.layers);
    for (int l = 0; l < c.layers && st.ok(); ++l) {
        Impl::Block& b = impl.blocks[l];
        using R = WeightRole;
        st = norm(R::attn_norm, R::attn_norm_bias, l, &b.attn_norm);
        // q, k and v as one matrix of (heads + 2 kv_heads) x head_dim rows, and their biases.
        std::vector<float> w;
        if (st.ok()) st = reader.append(a->fused_qkv ? R::qkv : R::q, l, true, &w);
        if (st.ok() && !a->fused_qkv) st = reader.append(R::k, l, true, &w);
        if (st.ok() && !a->fused_qkv) st = reader.append(R::v, l, true, &w);
        if (st.ok()) {
            const int rows = (c.heads + 2 * c.kv_head_count()) * c.head_dim();
            b.wqkv = Linear(w, rows, H);
        }
        // Biases wherever the plan located them (the table and the config's flags decided).
        if (st.ok()) st = reader.append(R::q_bias, l, false, &b.bqkv);
        if (st.ok()) st = reader.append(R::k_bias, l, false, &b.bqkv);
        if (st.ok()) st = reader.append(R::v_bias, l, false, &b.bqkv);
        if (st.ok() && !b.bqkv.empty() &&
            b.bqkv.size() != static_cast<size_t>((c.heads + 2 * c.kv_head_count()) * c.head_dim()))
            st = Status::error("layer " + std::to_string(l) +
                               " has biases for some of q, k and v but not all");
        if (st.ok()) st = reader.append(R::o_bias, l, false, &b.bo);
        w.clear();
        if (st.ok()) st = reader.append(R::o, l, true, &w);
        if (st.ok()) b.wo = Linear(w, H, c.heads * c.head_dim());
        if (st.ok() && a->qk_norm) {
            st = norm(R::q_norm, R::q_norm, l, &b.q_norm);
            if (st.ok()) st = norm(R::k_norm, R::k_norm, l, &b.k_norm);
        }
        if (st.ok() && a->sandwich_norms) {
            st = norm(R::attn_post_norm, R::attn_post_norm, l, &b.attn_post_norm);
            if (st.ok()) st = norm(R::ffn_post_norm, R::ffn_post_norm, l, &b.mlp_post_norm);
        }
        if (st.ok()) st = norm(R::ffn_norm, R::ffn_norm_bias, l, &b.mlp_norm);
        // The MLP: gate into w1, up into w3, down into w2.
        w.clear();
        if (st.ok() && a->mlp == checkpoint::MlpKind::fused_gated) {
            st = reader.append(R::gate_up, l, true, &w);
            if (st.ok()) {
                const size_t half = static_cast<size_t>(I) * H;
                b.w1 = Linear(std::vector<float>(w.begin(), w.begin() + half), I, H);
                b.w3 = Linear(std::vector<float>(w.begin() + half, w.end()), I, H);
            }
        } else if (st.ok()) {
            if (spec.gated_mlp) {
                st = reader.append(R::gate, l, true, &w);
                if (st.ok()) b.w1 = Linear(w, I, H);
                w.clear();
            }
            if (st.ok()) st = reader.append(R::up, l, true, &w);
            if (st.ok()) b.w3 = Linear(w, I, H);
        }
        if (st.ok() && spec.gated_mlp) st = reader.append(R::gate_bias, l, false, &b.b1);
        if (st.ok()) st = reader.append(R::up_bias, l, false, &b.b3);
        if (st.ok()) st = reader.append(R::down_bias, l, false, &b.b2);
        w.clear();
        if (st.ok()) st = reader.append(R::down, l, true, &w);
        if (st.ok()) b.w2 = Linear(w, H, I);
    }
    if (st.ok())
        st = norm(WeightRole::final_norm, WeightRole::final_norm_bias, -1, &impl.final_norm);
    if (!st.ok()) return st;
    if (plan.tied) {
        impl.head = Linear(impl.embedding, c.vocab, H);
    } else {
        std::vector<float> w;
        st = reader.append(WeightRole::lm_head, -1, true, &w);
        if (!st.ok()) return st;
        impl.head = Linear(w, c.vocab, H);
    }
    *out = std::move(m);
    return {};
}

} // namespace model
} // namespace hirope
