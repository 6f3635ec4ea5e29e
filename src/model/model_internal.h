// Internal pieces of the code model shared by model.cpp and decoder.cpp: the layers, and the one
// block step that both a full forward and the KV-cache decoder run.
#pragma once

#include "hirope/architectures.h"
#include "hirope/model.h"
#include "hirope/model_config.h"
#include "kernels/gemm.h"

#include <cstdint>
#include <limits>
#include <vector>

namespace hirope {
namespace model {

// y (n x out) = x (n x in) . W^T for W stored as out x in (PyTorch's Linear layout). W is packed
// once into panels of kNR output columns ([in][kNR] each), so the micro-kernel streams it
// contiguously. Weights keep the width they are given in: F16 and BF16 panels hold 16 bits a
// value and are widened to float a panel at a time inside apply (exactly: kernels/widen.h), so a
// BF16 checkpoint takes half the memory of F32.
class Linear {
  public:
    // How a weight is stored: binary32, IEEE 754 binary16, or bfloat16 (a binary32's top half).
    enum class Format { f32, f16, bf16 };

    Linear() = default;
    Linear(const std::vector<float>& w, int out, int in);
    // W (out x in, row-major) as `format` values in little-endian bytes, as safetensors stores
    // them, at any alignment (read with memcpy): out * in * 4 bytes for f32, * 2 for f16 and bf16.
    Linear(const void* data, Format format, int out, int in);
    void apply(const float* x, int64_t n, float* y) const;
    // Columns [c0, c0 + cols) of apply's y (c0 a multiple of kernels::kNR), row i at y + i * ldy.
    void apply_columns(const float* x, int64_t n, int c0, int cols, float* y, int64_t ldy) const;
    // Whether apply runs the AVX2 + FMA kernels (x86-64 CPUs that have them) rather than the
    // 4-lane ones; apply_columns_with runs the one asked for (avx2 only where use_avx2()), so
    // that the tests hold both to the same reference on one machine.
    static bool use_avx2();
    void apply_columns_with(bool avx2, const float* x, int64_t n, int c0, int cols, float* y,
                            int64_t ldy) const;
    int out() const { return out_; }
    int in() const { return in_; }
    Format format() const { return format_; }
    // Row r of W (in values), widened: an embedding's row read from the panels it is packed in
    // (a tied output layer's), so that the table is held once, at its stored width.
    void row(int r, float* out) const;
    // The packed panels (panel_count(out) x in x kernels::kNR values at the format's width).
    const void* panel_data() const {
        return format_ == Format::f32 ? static_cast<const void*>(packed_.data())
                                      : static_cast<const void*>(packed16_.data());
    }
    // Bytes of the packed weights held (apply's panel scratch of in * kNR floats not counted).
    size_t bytes() const {
        return packed_.size() * sizeof(float) + packed16_.size() * sizeof(uint16_t);
    }

  private:
    int out_ = 0, in_ = 0;
    Format format_ = Format::f32;
    // panel_count(out_) x in_ x kNR, zero-padded columns: packed_ for f32, packed16_ otherwise.
    std::vector<float> packed_;
    std::vector<uint16_t> packed16_;
};

struct Scratch {
    std::vector<float> h, qkv, q, k, v, tmp, a, g;
    void resize(const Config& c, int64_t n);
};

// A norm's weights: RMSNorm (w) or LayerNorm (w and b). Gemma's (1 + w) RMSNorm is stored as
// w + 1, which it computes in f32 as this forward does.
struct NormWeights {
    std::vector<float> w, b;
    bool present() const { return !w.empty(); }
};

// What the forward does beyond hirope's own models' fixed form (include/hirope/model.h): the
// architecture's data (include/hirope/architectures.h) as a checkpoint's plan gives it. The
// defaults are hirope's own models: RMSNorm, SwiGLU, tied embeddings, RoPE on every layer.
struct ArchitectureSpec {
    bool layer_norm = false; // LayerNorm with bias (StarCoder2); else RMSNorm
    checkpoint::Activation activation = checkpoint::Activation::silu;
    bool gated_mlp = true;     // down(act(gate x) * up x); false: down(act(up x))
    float embedding_scale = 1; // Gemma: sqrt(hidden_size)
    double final_softcap = 0;  // logits c * tanh(z / c); 0: none
    // A checkpoint: its config's per-layer setup (masks, schemes, scales, soft-caps) drives the
    // attention, and only a whole prompt goes through (no KV cache, no context limit).
    bool checkpoint = false;
    ModelSetup setup; // the checkpoint's (read_model_config's)
};

struct Model::Impl {
    struct Block {
        NormWeights attn_norm, attn_post_norm, mlp_norm, mlp_post_norm, q_norm, k_norm;
        Linear wqkv;           // q rows (heads x head_dim), then k, then v (kv_heads x head_dim)
        Linear wo, w1, w3, w2; // w1 the gate (unused by a plain MLP), w3 up, w2 down
        std::vector<float> bqkv, bo, b1, b3, b2; // biases (empty: none)
    };
    Config cfg;
    ArchitectureSpec arch;
    std::vector<float> embedding; // vocab x d_model (hirope's own models)
    // A checkpoint's embedding at its stored width, read a row at a time; the output layer (head)
    // itself when tied.
    Linear embedding_rows;
    bool embedding_is_head = false;
    std::vector<Block> blocks;
    NormWeights final_norm;
    Linear head;     // the output layer: the embedding when tied
    HeapBudget heap; // checked before each step's allocations

    Status init(const Config& c, const uint8_t* params);
    Status check_scheme(const Scheme& scheme) const;
    Scheme own_scheme() const; // RoPE at the model's base, half-split (what it trained with)
    // A checkpoint's layer l: the scheme it runs, its own (model_schemes, or a NoPE layer) or
    // `user` in the layer's layout and rotated share, checked as check_scheme checks.
    Status layer_scheme(const Scheme& user, bool model_schemes, int l, Scheme* out) const;
    void embed(const int32_t* ids, int64_t n, float* x) const;
    Status check_ids(const int32_t* ids, int64_t n) const; // every id below vocab
    void norm(const NormWeights& w, const float* x, int64_t n, int d, float* out) const;
    // x += mlp(norm(x)) of block b in three parts around its linear layers, so that a checkpoint's
    // resumable step (Decoder::Impl::next_checkpoint) runs the same code: mlp_in normalizes x into
    // s.h; the gate (w1) writes s.a and the up projection (w3) s.g (a plain MLP: up into s.a);
    // mlp_mid adds their biases and applies the activation into s.a; the down projection (w2)
    // writes s.tmp; mlp_out adds its bias, the post-norm and the residual.
    void mlp_block(const Block& b, int64_t n, float* x, Scratch& s) const;
    void mlp_in(const Block& b, int64_t n, const float* x, Scratch& s) const;
    void mlp_mid(const Block& b, int64_t n, Scratch& s) const;
    void mlp_out(const Block& b, int64_t n, float* x, Scratch& s) const;
    // The linear layers in ForwardSteps' numbering (Model::linear_view): 5 per block, then head.
    const Linear* linear(int index) const;
    void logits_rows(const float* x, int64_t n, float* out, Scratch& s) const;
    // The loss in bits of rows [0, n) of x (the residual stream) for targets[0..n): the output
    // projection in blocks of rows and columns, each block's log-sum-exp folded in as it is
    // made, so that no n x vocab logits are kept (rows >= count get none).
    void loss_rows(const float* x, int64_t n, const int32_t* targets, int64_t count, float* losses,
                   Scratch& s) const;
};

// One sequence through the model: the positions of its bytes, per layer the keys and values of
// every byte so far, and the block step. Model::forward is a prefill of all its bytes without a
// cache; a Decoder keeps the cache and appends to it.
struct Decoder::Impl {
    // What append() writes besides the cache.
    struct Outputs {
        float* logits = nullptr; // vocab values per row: every new row, or the last one only
        bool every_row = false;
        int64_t first_row = 0; // with every_row: rows before it get no logits (truncate's)
        // Instead of logits: the loss in bits of rows [first_row, targets_count) for targets[row]
        // (Model::Impl::loss_rows), into losses[row].
        float* losses = nullptr;
        const int32_t* targets = nullptr;
        int64_t targets_count = 0;
        // A prompt's (first append's) attention probabilities of one layer and head, count x
        // count. Without logits the step stops after that layer: the sequence then cannot go on.
        float* attention = nullptr;
        int attention_layer = 0, attention_head = 0;
        // Every layer's and head's (a prompt's): layers x heads x count x count.
        float* attention_all = nullptr;
        // Whether the step can stop after layer l (only probabilities asked, none of them later).
        bool done_after(int l, int layer_count) const {
            if (logits || losses) return false;
            if (attention_all) return l == layer_count - 1;
            return attention && l == attention_layer;
        }
    };

    // cache: keep every layer's keys and values (and the rotated keys) for later appends; false
    // for a one-shot forward, which keeps one layer's worth at a time.
    // limit: none or sliding_window (truncate is a sequence of fresh Impls, see Model::forward).
    // model_schemes: a checkpoint's layers run their own schemes (ForwardRequest::model_schemes).
    Impl(const Model::Impl& model, const Scheme& scheme, int64_t frequency_length, bool cache,
         const ContextLimit& limit = {}, bool model_schemes = false);

    // Runs count new ids (bytes or tokens, checked by the caller) through every block. positions
    // holds count entries for the new bytes; a null token takes the next indices, a null unit or
    // statement continues the last byte's (0 at the start).
    Status append(const int32_t* ids, int64_t count, const Positions& positions,
                  const Outputs& out);
    // A checkpoint's prompt, resumable at each linear layer (ForwardSteps): start_steps() takes
    // the ids and positions as append() does and embeds them; next_checkpoint() runs to the next
    // product (*more false once the outputs are written), whose y the caller computes. The output
    // layer comes as products of row blocks into the logits or a block of them, the losses folded
    // from each block.
    // weight: Model::Impl::linear's index, or -1 for the attention of `layer`.
    using Step = ForwardSteps::Product;
    Status start_steps(const int32_t* ids, int64_t count, const Positions& positions,
                       const Outputs& out);
    Status next_checkpoint(bool* more, Step* step);
    // A step on the CPU: the linear layer's product, or the prompt's attention through the plan.
    Status run_step(const Step& step);
    // Layer l's attention call as JSON (ForwardSteps::attention_call).
    std::string attention_call_json(int l) const;
    Positions positions() const { return {token.data(), unit.data(), statement.data()}; }
    // Replaces the unit/statement indices of every byte so far; keys move at the next append.
    Status reposition(const int32_t* unit, const int32_t* statement);
    int64_t length() const { return static_cast<int64_t>(token.size()); }
    const Model::Impl& model() const { return m; }

  private:
    struct Layer {
        std::vector<float> k, v, k_near, k_far; // rows of d; k before rotation
    };

    // Takes count new positions (append's rule for null columns).
    void push_positions(int64_t count, const Positions& pos);
    // append()'s checks of new ids and their positions, taken (push_positions) when they pass.
    Status admit(const int32_t* ids, int64_t count, const Positions& pos);
    // A checkpoint's ids through every layer, each with its own setup (append's for such a
    // model): next_checkpoint's sequence with every product on the CPU and the output layer
    // through finish().
    Status append_checkpoint(const int32_t* ids, int64_t count, const Outputs& out);
    void begin_checkpoint(const int32_t* ids, int64_t count, const Outputs& out, bool head_steps);
    Status prompt_checkpoint(int l, const Layer& kv, const Outputs& out);
    // prompt_checkpoint's attention over k and v with every query head's rows (repeat_kv's).
    Status prompt_attention(int l, const float* k, const float* v, const Outputs& out);
    // kv's keys and values with each key/value head repeated for its query heads (transformers'
    // repeat_kv), in s.k and s.v; kv's own where every query head has its own.
    void repeat_kv(const Layer& kv, const float** k, const float** v);
    Status attend_checkpoint(int l, const Layer& kv, const float* q, int64_t t0, int64_t t1,
                             float* out, float* probs = nullptr, int probs_head = 0) const;
    // The last layer's residual stream (count rows) to the outputs asked: losses, logits.
    void finish(const float* x, int64_t count, const Outputs& out);
    void rollback(int64_t len);
    Status rotate_keys(Layer& L, int64_t begin, int64_t end) const;
    void attend(const Layer& L, const float* q_near, const float* q_far, int64_t t0, int64_t t1,
                float* out, float* probs, int probs_head) const;
    int64_t first_key(int64_t i) const; // the first key query i sees
    Status plan_attention(int64_t n, const float* q, const float* k, const float* v, float* out,
                          float* probs_out, int probs_head, float* probs_all, const Scheme& sch,
                          const LayerSetup* layer = nullptr) const;

    const Model::Impl& m;
    Scheme scheme;
    ContextLimit limit;
    Status scheme_status;
    int64_t frequency_length = 0;
    bool cache = true;
    bool windowed = false;
    int d = 0, hd = 0, heads = 0;
    std::vector<int32_t> token, unit, statement; // positions of every byte so far
    std::vector<uint8_t> dirty;                  // keys to rotate again (positions changed)
    std::vector<Layer> layers;
    Rotator rotator; // the frequencies and positions the cached keys were rotated with
    Rotator next;    // the next step's, swapped in (keeps both allocations)
    std::vector<Scheme> layer_schemes; // a checkpoint's, per layer
    Scratch s;
    // Where a checkpoint's step is (next_checkpoint): its rows, outputs, residual stream, the
    // layer and the part of it next to run, and the output layer's next row block.
    struct Pass {
        Outputs out;
        int64_t count = 0, t0 = 0;
        int layer = 0, stage = 0;
        bool head_steps = false; // the output layer as products (ForwardSteps); else finish()
        int64_t head_row = 0, head_rows = 0,
                head_block = 0; // the next row, the end, the last block's rows
        std::vector<float> x, block;
    } pass;
};

// -log2 softmax(logits)[target].
double bits_of(const float* logits, int vocab, int target);

} // namespace model
} // namespace hirope
