// Internal pieces of the code model shared by model.cpp and decoder.cpp.
#pragma once

#include "hirope/model.h"
#include "kernels/gemm.h"

#include <cstdint>
#include <limits>
#include <vector>

namespace hirope {
namespace model {

// y (n x out) = x (n x in) . W^T for W stored as out x in (PyTorch's Linear layout). W is packed
// once into panels of kNR output columns ([in][kNR] each), so the micro-kernel streams it
// contiguously.
class Linear {
  public:
    Linear() = default;
    Linear(const std::vector<float>& w, int out, int in);
    void apply(const float* x, int64_t n, float* y) const;
    int out() const { return out_; }
    int in() const { return in_; }

  private:
    int out_ = 0, in_ = 0;
    std::vector<float> packed_; // panel_count(out_) x in_ x kNR, zero-padded columns
};

struct Scratch {
    std::vector<float> h, qkv, q, k, v, tmp, a, g;
    void resize(const Config& c, int64_t n);
};

struct Model::Impl {
    struct Block {
        std::vector<float> attn_norm, mlp_norm;
        Linear wqkv, wo, w1, w3, w2;
    };
    Config cfg;
    std::vector<float> embedding; // vocab x d_model
    std::vector<Block> blocks;
    std::vector<float> final_norm;
    Linear head; // the embedding as the output layer

    Status init(const Config& c, const uint8_t* params);
    Status check_scheme(const Scheme& scheme) const;
    void embed(const uint8_t* bytes, int64_t n, float* x) const;
    Status attention_block(const Block& b, const Scheme& scheme, const Positions& pos, int64_t n,
                           float* x, Scratch& s, float* probs_out, int probs_head) const;
    // softmax(q k^T) v of n rows through an AttentionPlan (out: n x d_model); optionally one
    // head's probabilities (n x n) into probs_out.
    Status plan_attention(const Scheme& scheme, const Positions& pos, int64_t n, const float* q,
                          const float* k, const float* v, float* out, float* probs_out,
                          int probs_head) const;
    void mlp_block(const Block& b, int64_t n, float* x, Scratch& s) const;
    void logits_rows(const float* x, int64_t n, float* out, Scratch& s) const;
};

// -log2 softmax(logits)[target].
double bits_of(const float* logits, int vocab, int target);

namespace format {
float half_to_float(uint16_t h);
} // namespace format

} // namespace model
} // namespace hirope
