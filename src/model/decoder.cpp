// The block step of the code model, shared by the full forward (a prefill without a cache) and
// the KV-cache decoder, and generation on top of the decoder.
#include "kernels/activation.h"
#include "kernels/layers.h"
#include "kernels/vector.h"
#include "model/model_internal.h"
#include "util/random.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>

namespace hirope {
namespace model {

Decoder::Impl::Impl(const Model::Impl& model, const Scheme& scheme_, int64_t frequency_length_,
                    bool cache_, const ContextLimit& limit_, bool model_schemes)
    // A negative frequency_length has always meant 0 (the current length).
    : m(model), scheme(scheme_), limit(limit_),
      frequency_length(std::max<int64_t>(0, frequency_length_)), cache(cache_) {
    if (m.arch.checkpoint) {
        // Each layer's own scheme; its mask, scale and soft-cap are read where it attends.
        if (limit.type == ContextLimitType::truncate)
            scheme_status = Status::error("a decoder cannot truncate its context; generate() and "
                                          "forward() restart the sequence instead");
        layer_schemes.resize(m.cfg.layers);
        for (int l = 0; l < m.cfg.layers && scheme_status.ok(); ++l)
            scheme_status = m.layer_scheme(scheme, model_schemes, l, &layer_schemes[l]);
        d = m.cfg.d_model;
        hd = m.cfg.head_dim();
        heads = m.cfg.heads;
        layers.resize(cache ? m.cfg.layers : 1);
        return;
    }
    scheme_status = m.check_scheme(model_schemes ? m.own_scheme() : scheme);
    if (model_schemes) scheme = m.own_scheme();
    if (scheme_status.ok()) scheme_status = validate(limit);
    if (scheme_status.ok() && limit.type == ContextLimitType::truncate)
        scheme_status = Status::error("a decoder cannot truncate its context; generate() and "
                                      "forward() restart the sequence instead");
    windowed = is_windowed(scheme.type);
    d = m.cfg.d_model;
    hd = m.cfg.head_dim();
    heads = m.cfg.heads;
    layers.resize(cache ? m.cfg.layers : 1);
}

// Rotates the cached keys of rows [begin, end) for both branches with the current rotator.
Status Decoder::Impl::rotate_keys(Layer& L, int64_t begin, int64_t end) const {
    Status st = rotator.rotate_rows(Role::key, Branch::near, begin, end, L.k.data() + begin * d,
                                    L.k_near.data() + begin * d);
    if (st.ok() && windowed)
        st = rotator.rotate_rows(Role::key, Branch::far, begin, end, L.k.data() + begin * d,
                                 L.k_far.data() + begin * d);
    return st;
}

int64_t Decoder::Impl::first_key(int64_t i) const {
    return limit.type == ContextLimitType::sliding_window
               ? std::max<int64_t>(0, i - limit.length + 1)
               : 0;
}

// Attention of new rows [t0, t1) over the cached keys each sees, written to out ((t1 - t0) x d);
// probs (a prompt's, t0 = 0): head probs_head's probabilities, t1 x t1.
void Decoder::Impl::attend(const Layer& L, const float* q_near, const float* q_far, int64_t t0,
                           int64_t t1, float* out, float* probs, int probs_head) const {
    const float scale = 1.0f / std::sqrt(static_cast<float>(hd));
    std::vector<float> logits(static_cast<size_t>(t1));
    for (int64_t i = t0; i < t1; ++i) {
        const int64_t j0 = first_key(i), len = i + 1 - j0;
        for (int h = 0; h < heads; ++h) {
            const float* qn = q_near + (i - t0) * d + h * hd;
            const float* qf = windowed ? q_far + (i - t0) * d + h * hd : nullptr;
            for (int64_t j = j0; j <= i; ++j) {
                const bool near = !windowed || token[i] - token[j] < scheme.window;
                const float* q = near ? qn : qf;
                const float* k = (near ? L.k_near.data() : L.k_far.data()) + j * d + h * hd;
                logits[j - j0] = kernels::dot(q, k, hd) * scale;
            }
            if (!kernels::softmax_row(logits.data(), static_cast<size_t>(len)))
                std::fill(logits.begin(), logits.begin() + len, 1.0f / len);
            float* o = out + (i - t0) * d + h * hd;
            std::fill(o, o + hd, 0.0f);
            for (int64_t j = 0; j < len; ++j)
                kernels::axpy(logits[j], L.v.data() + (j0 + j) * d + h * hd, o, hd);
            if (probs && h == probs_head) {
                float* row = probs + i * t1;
                std::fill(row, row + t1, 0.0f);
                std::copy(logits.begin(), logits.begin() + len, row + j0);
            }
        }
    }
}

// softmax(q k^T) v of a whole prompt (n rows from token 0) through an AttentionPlan's tiled
// kernels (out: n x heads * head_dim) under scheme sch, with a checkpoint layer's mask, scale,
// soft-cap and temperature when layer is given; optionally one head's probabilities (n x n) into
// probs_out, and every head's (heads x n x n) into probs_all.
Status Decoder::Impl::plan_attention(int64_t n, const float* q, const float* k, const float* v,
                                     float* out, float* probs_out, int probs_head, float* probs_all,
                                     const Scheme& sch, const LayerSetup* layer) const {
    AttentionRequest req;
    req.q = q;
    req.k = k;
    req.v = v;
    req.n = n;
    req.head_dim = hd;
    req.heads = heads;
    req.positions = positions();
    req.scheme = sch;
    req.causal = true;
    req.output = Output::probs;
    if (layer) {
        req.scale = layer->scale;
        req.softcap = layer->softcap;
        req.mask_kind = layer->attention;
        req.window = layer->window;
        req.chunk_size = layer->chunk_size;
        req.temperature = layer->temperature;
    }
    AttentionPlan plan;
    Status st = plan.prepare(req);
    if (!st.ok()) return st;
    if (probs_out) {
        st = plan.rows(probs_head, 0, n, probs_out);
        if (!st.ok()) return st;
    }
    for (int h = 0; probs_all && h < heads && st.ok(); ++h)
        st = plan.rows(h, 0, n, probs_all + h * n * n);
    if (!st.ok()) return st;
    // Strips bound the plan's n-wide probability buffer.
    constexpr int64_t kStrip = 256;
    const int64_t width = static_cast<int64_t>(heads) * hd;
    for (int64_t r0 = 0; r0 < n && st.ok(); r0 += kStrip)
        st = plan.output_rows(r0, std::min(n, r0 + kStrip), out + r0 * width);
    return st;
}

Status Decoder::Impl::admit(const int32_t* ids, int64_t count, const Positions& pos) {
    if (!scheme_status.ok()) return scheme_status;
    if (count < 1) return Status::error("append needs at least 1 byte or token");
    if (!ids) return Status::error("bytes are required");
    const int64_t t1 = length() + count;
    if (t1 > ModelLimits::max_input_bytes)
        return Status::error("the sequence would have " + std::to_string(t1) +
                             " bytes; the model's limit is " +
                             std::to_string(ModelLimits::max_input_bytes));
    Status st = m.heap.reserve(step_heap_bytes(m.cfg, count, t1, cache, 0), "the model's step");
    if (!st.ok()) return st;
    push_positions(count, pos);
    return {};
}

Status Decoder::Impl::start_steps(const int32_t* ids, int64_t count, const Positions& pos,
                                  const Outputs& out) {
    if (!m.arch.checkpoint) return Status::error("only a checkpoint's forward runs in steps");
    Status st = admit(ids, count, pos);
    if (st.ok()) begin_checkpoint(ids, count, out, true);
    return st;
}

Status Decoder::Impl::append(const int32_t* ids, int64_t count, const Positions& pos,
                             const Outputs& out) {
    Status st = admit(ids, count, pos);
    if (!st.ok()) return st;
    const int64_t t1 = length(), t0 = t1 - count;
    if (m.arch.checkpoint) {
        st = append_checkpoint(ids, count, out);
        if (!st.ok()) rollback(t0);
        return st;
    }
    st = next.prepare(scheme, hd, heads, t1, positions(), frequency_length);
    if (!st.ok()) {
        rollback(t0);
        return st;
    }
    // A prompt goes through the attention plan's tiled kernels (a decoder's one-byte prompt
    // through the cache: the same result without building a plan). The plan takes its
    // frequencies from the block it is given, so only when those are the ones this sequence
    // rotates with.
    // The plan has no sliding-window mask: such a step attends through the cache.
    bool use_plan = t0 == 0 && (count > 1 || !cache) && limit.type == ContextLimitType::none;
    if (use_plan && frequency_length > 0) {
        Rotator natural;
        use_plan = natural.prepare(scheme, hd, heads, t1, positions()).ok() &&
                   natural.inverse_frequencies() == next.inverse_frequencies();
    }
    // Keys rotated with other frequencies (dynamic NTK grows with the sequence, LongRoPE
    // switches, xPos recentres) are rotated again, as a full forward at this length would.
    const bool all_stale =
        !rotator.prepared() || next.inverse_frequencies() != rotator.inverse_frequencies() ||
        next.attention_factor() != rotator.attention_factor() ||
        (scheme.type == SchemeType::xpos && next.xpos_centre() != rotator.xpos_centre());
    std::swap(rotator, next);
    if (out.attention_all && !use_plan) {
        rollback(t0);
        return Status::error("every head's attention at once needs a whole prompt without a cache");
    }
    // Rotated keys are kept for later appends, and needed now when this step does not use the plan.
    const bool rotate_cache = cache || !use_plan;

    std::vector<float> x(static_cast<size_t>(count) * d);
    m.embed(ids, count, x.data());
    s.resize(m.cfg, count);
    std::vector<float> q_near, q_far;
    if (!use_plan) {
        q_near.resize(static_cast<size_t>(count) * d);
        if (windowed) q_far.resize(q_near.size());
    }
    // The block step: x += wo(attention(rmsnorm(x))), then x += mlp(rmsnorm(x)).
    for (int l = 0; l < m.cfg.layers; ++l) {
        const Model::Impl::Block& b = m.blocks[l];
        Layer& L = layers[cache ? l : 0];
        m.norm(b.attn_norm, x.data(), count, d, s.h.data());
        b.wqkv.apply(s.h.data(), count, s.qkv.data());
        L.k.resize(static_cast<size_t>(t1) * d);
        L.v.resize(L.k.size());
        for (int64_t t = 0; t < count; ++t) {
            const float* row = s.qkv.data() + t * 3 * d;
            std::memcpy(s.q.data() + t * d, row, sizeof(float) * d);
            std::memcpy(L.k.data() + (t0 + t) * d, row + d, sizeof(float) * d);
            std::memcpy(L.v.data() + (t0 + t) * d, row + 2 * d, sizeof(float) * d);
        }
        if (rotate_cache) {
            L.k_near.resize(L.k.size());
            if (windowed) L.k_far.resize(L.k.size());
            if (all_stale) {
                st = rotate_keys(L, 0, t0);
            } else {
                for (int64_t j = 0; j < t0 && st.ok(); ++j)
                    if (dirty[j]) st = rotate_keys(L, j, j + 1);
            }
            if (st.ok()) st = rotate_keys(L, t0, t1);
        }
        if (st.ok() && use_plan) {
            float* probs = out.attention && l == out.attention_layer ? out.attention : nullptr;
            float* all = out.attention_all
                             ? out.attention_all + static_cast<int64_t>(l) * heads * count * count
                             : nullptr;
            st = plan_attention(count, s.q.data(), L.k.data(), L.v.data(), s.h.data(), probs,
                                out.attention_head, all, scheme);
        } else if (st.ok()) {
            st = rotator.rotate_rows(Role::query, Branch::near, t0, t1, s.q.data(), q_near.data());
            if (st.ok() && windowed)
                st =
                    rotator.rotate_rows(Role::query, Branch::far, t0, t1, s.q.data(), q_far.data());
            float* probs =
                out.attention && l == out.attention_layer && t0 == 0 ? out.attention : nullptr;
            if (st.ok())
                attend(L, q_near.data(), q_far.data(), t0, t1, s.h.data(), probs,
                       out.attention_head);
        }
        if (!st.ok()) {
            rollback(t0);
            return st;
        }
        b.wo.apply(s.h.data(), count, s.tmp.data());
        kernels::add_to(x.data(), s.tmp.data(), static_cast<size_t>(count) * d);
        // Only the captured probabilities were asked for (a forward): nothing after them is.
        if (out.done_after(l, m.cfg.layers)) return {};
        m.mlp_block(b, count, x.data(), s);
    }
    std::fill(dirty.begin(), dirty.end(), 0);
    finish(x.data(), count, out);
    return {};
}

void Decoder::Impl::push_positions(int64_t count, const Positions& pos) {
    const int64_t t0 = length();
    for (int64_t t = 0; t < count; ++t) {
        token.push_back(pos.token ? pos.token[t] : static_cast<int32_t>(t0 + t));
        unit.push_back(pos.unit ? pos.unit[t] : (t0 + t > 0 ? unit.back() : 0));
        statement.push_back(pos.statement ? pos.statement[t] : (t0 + t > 0 ? statement.back() : 0));
        dirty.push_back(0);
    }
}

void Decoder::Impl::finish(const float* x, int64_t count, const Outputs& out) {
    if (out.losses && out.targets_count > out.first_row)
        m.loss_rows(x + out.first_row * d, count - out.first_row, out.targets + out.first_row,
                    out.targets_count - out.first_row, out.losses + out.first_row, s);
    if (out.logits) {
        if (out.every_row)
            m.logits_rows(x + out.first_row * d, count - out.first_row,
                          out.logits + out.first_row * m.cfg.vocab, s);
        else
            m.logits_rows(x + (count - 1) * d, 1, out.logits, s);
    }
}

// The same block step as append's, for a checkpoint's architecture row and per-layer setup (its
// config's masks, scales, soft-caps and schemes): x += post_norm(wo(attention(norm(x)))), then
// the MLP; every product on the CPU, the output layer through finish().
Status Decoder::Impl::append_checkpoint(const int32_t* ids, int64_t count, const Outputs& out) {
    begin_checkpoint(ids, count, out, false);
    bool more = true;
    Step step;
    while (true) {
        Status st = next_checkpoint(&more, &step);
        if (st.ok() && more) st = run_step(step);
        if (!st.ok() || !more) return st;
    }
}

Status Decoder::Impl::run_step(const Step& step) {
    if (step.weight < 0) return prompt_attention(step.layer, step.k, step.v, pass.out);
    m.linear(step.weight)->apply(step.x, step.rows, step.y);
    return {};
}

void Decoder::Impl::begin_checkpoint(const int32_t* ids, int64_t count, const Outputs& out,
                                     bool head_steps) {
    pass = Pass();
    pass.out = out;
    pass.count = count;
    pass.t0 = length() - count;
    pass.head_steps = head_steps;
    pass.x.resize(static_cast<size_t>(count) * d);
    m.embed(ids, count, pass.x.data());
    s.resize(m.cfg, count);
}

// The stages of a layer, each ending at a product (next_checkpoint).
enum CheckpointStage {
    kQKV,
    kAttend,
    kAttended,
    kAfterAttention,
    kUp,
    kActivate,
    kAfterMlp,
    kHead,
    kDone
};

// Runs from where the pass is to the next product. A step is the block step of append(): the
// attention norm, q/k/v (one product), their biases, split and q/k norms, the attention
// (grouped-query heads repeat their key/value head, as transformers' repeat_kv), the output
// product, its bias, post-norm and residual; then the MLP (gate and up products, the activation,
// the down product, the residual). The cache keeps every layer's keys (after any k norm, before
// rotation) and values.
Status Decoder::Impl::next_checkpoint(bool* more, Step* step) {
    const Config& c = m.cfg;
    const int nq = c.heads, nkv = c.kv_head_count();
    const int qd = nq * hd, kvd = nkv * hd, width = qd + 2 * kvd;
    const int64_t count = pass.count, t0 = pass.t0, t1 = t0 + count;
    const Outputs& out = pass.out;
    float* x = pass.x.data();
    // A step that the caller computes (or run_step), then the pass goes on at next_stage.
    auto yield = [&](const Step& product_step, int next_stage) {
        *step = product_step;
        pass.stage = next_stage;
        *more = true;
        return Status();
    };
    auto product = [&](int weight, const float* in, int64_t rows, float* y, int next_stage) {
        const Linear* w = m.linear(weight);
        Step p;
        p.weight = weight;
        p.x = in;
        p.rows = rows;
        p.in = w->in();
        p.out = w->out();
        p.y = y;
        return yield(p, next_stage);
    };
    auto layer_product = [&](int which, const float* in, float* y, int next_stage) {
        return product(5 * pass.layer + which, in, count, y, next_stage);
    };
    while (true) {
        const int l = pass.layer;
        switch (pass.stage) {
        case kQKV:
            if (l == c.layers) {
                pass.stage = kHead;
                break;
            }
            m.norm(m.blocks[l].attn_norm, x, count, d, s.h.data());
            return layer_product(0, s.h.data(), s.qkv.data(), kAttend);
        case kAttend: {
            const Model::Impl::Block& b = m.blocks[l];
            Layer& kv = layers[cache ? l : 0];
            kv.k.resize(static_cast<size_t>(t1) * kvd);
            kv.v.resize(kv.k.size());
            if (!b.bqkv.empty()) kernels::add_bias(s.qkv.data(), count, width, b.bqkv.data());
            for (int64_t t = 0; t < count; ++t) {
                const float* row = s.qkv.data() + t * width;
                std::memcpy(s.q.data() + t * qd, row, sizeof(float) * qd);
                std::memcpy(kv.k.data() + (t0 + t) * kvd, row + qd, sizeof(float) * kvd);
                std::memcpy(kv.v.data() + (t0 + t) * kvd, row + qd + kvd, sizeof(float) * kvd);
            }
            if (b.q_norm.present()) m.norm(b.q_norm, s.q.data(), count * nq, hd, s.q.data());
            if (b.k_norm.present())
                m.norm(b.k_norm, kv.k.data() + t0 * kvd, count * nkv, hd, kv.k.data() + t0 * kvd);
            // A prompt's attention, unless this layer's probabilities are asked for (the CPU
            // writes them) or it has sink logits: a step of its own in steps (ForwardSteps).
            const bool sliding = limit.type == ContextLimitType::sliding_window;
            if (pass.head_steps && t0 == 0 && !sliding && !m.arch.setup.layers[l].sinks &&
                !(out.attention && l == out.attention_layer) && !out.attention_all) {
                Step a;
                a.layer = l;
                a.x = s.q.data();
                repeat_kv(kv, &a.k, &a.v);
                a.rows = count;
                a.in = a.out = qd;
                a.y = s.h.data();
                return yield(a, kAttended);
            }
            Status st;
            if (t0 > 0 || sliding) {
                // A step after the prompt, or the sliding-window baseline (the plan has no such
                // mask on top of the layer's): the new rows over every key they see.
                float* probs =
                    out.attention && l == out.attention_layer && t0 == 0 ? out.attention : nullptr;
                st = attend_checkpoint(l, kv, s.q.data(), t0, t1, s.h.data(), probs,
                                       out.attention_head);
                if (!st.ok())
                    st = Status::error("layer " + std::to_string(l) + ": " + st.message());
            } else {
                st = prompt_checkpoint(l, kv, out);
            }
            if (!st.ok()) return st;
            return layer_product(1, s.h.data(), s.tmp.data(), kAfterAttention);
        }
        case kAttended:
            return layer_product(1, s.h.data(), s.tmp.data(), kAfterAttention);
        case kAfterAttention: {
            const Model::Impl::Block& b = m.blocks[l];
            if (!b.bo.empty()) kernels::add_bias(s.tmp.data(), count, d, b.bo.data());
            if (b.attn_post_norm.present()) {
                m.norm(b.attn_post_norm, s.tmp.data(), count, d, s.h.data());
                kernels::add_to(x, s.h.data(), static_cast<size_t>(count) * d);
            } else {
                kernels::add_to(x, s.tmp.data(), static_cast<size_t>(count) * d);
            }
            if (out.done_after(l, c.layers)) {
                pass.stage = kDone;
                break;
            }
            m.mlp_in(b, count, x, s);
            // mlp_block's order: the gate into s.a, the up projection into s.g (a plain MLP: up
            // into s.a).
            if (m.arch.gated_mlp) return layer_product(2, s.h.data(), s.a.data(), kUp);
            return layer_product(3, s.h.data(), s.a.data(), kActivate);
        }
        case kUp:
            return layer_product(3, s.h.data(), s.g.data(), kActivate);
        case kActivate:
            m.mlp_mid(m.blocks[l], count, s);
            return layer_product(4, s.a.data(), s.tmp.data(), kAfterMlp);
        case kAfterMlp:
            m.mlp_out(m.blocks[l], count, x, s);
            ++pass.layer;
            pass.stage = kQKV;
            break;
        case kHead: {
            if (!pass.head_steps) {
                finish(x, count, out);
                pass.stage = kDone;
                break;
            }
            // The output layer in blocks of rows: into the logits asked for, or into a block
            // whose rows' losses are folded when the next step comes (the fused losses').
            if (pass.head_row == 0) {
                m.norm(m.final_norm, x, count, d, s.h.data());
                pass.head_rows = out.logits ? count : std::min(count, out.targets_count);
            } else {
                const int64_t done = pass.head_block, r0 = pass.head_row - done;
                float* rows = out.logits ? out.logits + r0 * c.vocab : pass.block.data();
                if (m.arch.final_softcap > 0)
                    kernels::softcap(rows, static_cast<size_t>(done) * c.vocab,
                                     m.arch.final_softcap);
                if (!out.logits)
                    for (int64_t r = 0; r < done; ++r)
                        out.losses[r0 + r] = static_cast<float>(
                            bits_of(rows + r * c.vocab, c.vocab, out.targets[r0 + r]));
            }
            if (pass.head_row >= pass.head_rows) {
                pass.stage = kDone;
                break;
            }
            constexpr int64_t kHeadRows = 64;
            const int64_t r0 = pass.head_row, rows = std::min(kHeadRows, pass.head_rows - r0);
            if (!out.logits) pass.block.resize(static_cast<size_t>(rows) * c.vocab);
            float* y = out.logits ? out.logits + r0 * c.vocab : pass.block.data();
            pass.head_row = r0 + rows;
            pass.head_block = rows;
            return product(5 * c.layers, s.h.data() + r0 * d, rows, y, kHead);
        }
        default:
            *more = false;
            return {};
        }
    }
}

// A prompt's attention on layer l through the plan's tiled kernels (the rows of s.q over kv's
// keys and values), into s.h; the probabilities asked for in out.
Status Decoder::Impl::prompt_checkpoint(int l, const Layer& kv, const Outputs& out) {
    const float* k = nullptr;
    const float* v = nullptr;
    repeat_kv(kv, &k, &v);
    return prompt_attention(l, k, v, out);
}

Status Decoder::Impl::prompt_attention(int l, const float* k, const float* v, const Outputs& out) {
    const LayerSetup& setup = m.arch.setup.layers[l];
    const int64_t count = length();
    const int nq = m.cfg.heads;
    float* probs = out.attention && l == out.attention_layer ? out.attention : nullptr;
    float* all = out.attention_all
                     ? out.attention_all + static_cast<int64_t>(l) * nq * count * count
                     : nullptr;
    const Status st = plan_attention(count, s.q.data(), k, v, s.h.data(), probs, out.attention_head,
                                     all, layer_schemes[l], &setup);
    return st.ok() ? st : Status::error("layer " + std::to_string(l) + ": " + st.message());
}

void Decoder::Impl::repeat_kv(const Layer& kv, const float** k, const float** v) {
    const Config& c = m.cfg;
    const int64_t count = length();
    const int nq = c.heads, nkv = c.kv_head_count(), group = nq / nkv;
    const int qd = nq * hd, kvd = nkv * hd;
    *k = kv.k.data();
    *v = kv.v.data();
    if (group == 1) return;
    for (int64_t t = 0; t < count; ++t)
        for (int h = 0; h < nq; ++h) {
            const size_t from = static_cast<size_t>(t) * kvd + (h / group) * hd;
            const size_t to = static_cast<size_t>(t) * qd + h * hd;
            std::memcpy(s.k.data() + to, kv.k.data() + from, sizeof(float) * hd);
            std::memcpy(s.v.data() + to, kv.v.data() + from, sizeof(float) * hd);
        }
    *k = s.k.data();
    *v = s.v.data();
}

std::string Decoder::Impl::attention_call_json(int l) const {
    if (l < 0 || l >= m.cfg.layers) return "null";
    LayerSetup layer = m.arch.setup.layers[l];
    layer.scheme = layer_schemes[l];
    return layer_setup_json(layer);
}

// New rows [t0, t1) of layer l (queries q, t1 - t0 rows of heads x head_dim, before rotation)
// over every key the cache holds: the layer's mask, softmax scale and soft-cap, its scheme's near
// and far branches (windowed schemes), each query head reading its key/value head. Keys are
// rotated again at every step (the positions may have moved: a re-analysis, a length-dependent
// frequency), as a full forward at this length would rotate them. Into out ((t1 - t0) x qd).
Status Decoder::Impl::attend_checkpoint(int l, const Layer& kv, const float* q, int64_t t0,
                                        int64_t t1, float* out, float* probs,
                                        int probs_head) const {
    const LayerSetup& setup = m.arch.setup.layers[l];
    const Scheme& sc = layer_schemes[l];
    const bool two = is_windowed(sc.type);
    const int nq = m.cfg.heads, nkv = m.cfg.kv_head_count(), group = nq / nkv;
    const int qd = nq * hd, kvd = nkv * hd;
    if (setup.sinks || setup.temperature.enabled)
        return Status::error("sinks and query temperatures have no KV-cache path yet");
    Rotator rq, rk;
    Status st = rq.prepare(sc, hd, nq, t1, positions(), frequency_length);
    if (st.ok()) st = rk.prepare(sc, hd, nkv, t1, positions(), frequency_length);
    std::vector<float> kn(static_cast<size_t>(t1) * kvd), kf(two ? kn.size() : 0);
    std::vector<float> qn(static_cast<size_t>(t1 - t0) * qd), qf(two ? qn.size() : 0);
    if (st.ok()) st = rk.rotate_rows(Role::key, Branch::near, 0, t1, kv.k.data(), kn.data());
    if (st.ok() && two) st = rk.rotate_rows(Role::key, Branch::far, 0, t1, kv.k.data(), kf.data());
    if (st.ok()) st = rq.rotate_rows(Role::query, Branch::near, t0, t1, q, qn.data());
    if (st.ok() && two) st = rq.rotate_rows(Role::query, Branch::far, t0, t1, q, qf.data());
    if (!st.ok()) return st;
    const double scale = setup.scale > 0 ? setup.scale : 1.0 / std::sqrt(static_cast<double>(hd));
    std::vector<int64_t> keys;
    std::vector<float> logits;
    for (int64_t i = t0; i < t1; ++i) {
        keys.clear();
        // The layer's own mask, and the sliding-window baseline's (the last limit.length keys).
        for (int64_t j = first_key(i); j <= i; ++j)
            if (layer_sees(setup, token[i], token[j])) keys.push_back(j);
        logits.resize(keys.size());
        for (int h = 0; h < nq; ++h) {
            const int g = h / group;
            for (size_t k = 0; k < keys.size(); ++k) {
                const int64_t j = keys[k];
                const bool near = !two || token[i] - token[j] < sc.window;
                const float* qv = (near ? qn : qf).data() + (i - t0) * qd + h * hd;
                const float* kv_row = (near ? kn : kf).data() + j * kvd + g * hd;
                double x = kernels::dot(qv, kv_row, hd) * scale;
                if (setup.softcap > 0) x = setup.softcap * std::tanh(x / setup.softcap);
                logits[k] = static_cast<float>(x);
            }
            if (!kernels::softmax_row(logits.data(), logits.size()))
                return Status::error("attention logits overflowed the float range");
            float* o = out + (i - t0) * qd + h * hd;
            std::fill(o, o + hd, 0.0f);
            for (size_t k = 0; k < keys.size(); ++k)
                kernels::axpy(logits[k], kv.v.data() + keys[k] * kvd + g * hd, o, hd);
            if (probs && h == probs_head) {
                float* row = probs + i * t1;
                std::fill(row, row + t1, 0.0f);
                for (size_t k = 0; k < keys.size(); ++k) row[keys[k]] = logits[k];
            }
        }
    }
    return {};
}

void Decoder::Impl::rollback(int64_t len) {
    token.resize(len);
    unit.resize(len);
    statement.resize(len);
    dirty.resize(len);
}

Status Decoder::Impl::reposition(const int32_t* new_unit, const int32_t* new_statement) {
    const int64_t n = length();
    if (n > 0 && (!new_unit || !new_statement))
        return Status::error("unit and statement indices are required");
    for (int64_t t = 0; t < n; ++t) {
        if (new_unit[t] < 0 || new_statement[t] < 0)
            return Status::error("unit and statement indices must be >= 0");
    }
    for (int64_t t = 0; t < n; ++t) {
        if (unit[t] != new_unit[t] || statement[t] != new_statement[t]) dirty[t] = 1;
        unit[t] = new_unit[t];
        statement[t] = new_statement[t];
    }
    return {};
}

Decoder::Decoder(const Model& model, const Scheme& scheme, int64_t frequency_length,
                 const ContextLimit& limit, bool model_schemes)
    : impl_(new Impl(*model.impl_, scheme, frequency_length, true, limit, model_schemes)) {}
Decoder::~Decoder() = default;

Status Decoder::append(const uint8_t* bytes, int64_t count, const int32_t* unit,
                       const int32_t* statement, float* logits) {
    if (!impl_->model().cfg.tokenizer.empty())
        return Status::error("this model reads " + impl_->model().cfg.tokenizer +
                             " token ids, not bytes");
    if (impl_->model().arch.checkpoint)
        return Status::error("a checkpoint model reads its tokenizer's token ids, not bytes");
    if (!bytes && count > 0) return Status::error("bytes are required");
    std::vector<int32_t> ids(bytes, bytes + std::max<int64_t>(0, count));
    return append(ids.data(), count, unit, statement, logits);
}

Status Decoder::append(const int32_t* ids, int64_t count, const int32_t* unit,
                       const int32_t* statement, float* logits) {
    if (!ids && count > 0) return Status::error("ids are required");
    if (count > 0) {
        Status st = impl_->model().check_ids(ids, count);
        if (!st.ok()) return st;
    }
    Impl::Outputs out;
    out.logits = logits;
    return impl_->append(ids, count, Positions{nullptr, unit, statement}, out);
}

Status Decoder::reposition(const int32_t* unit, const int32_t* statement) {
    return impl_->reposition(unit, statement);
}

int64_t Decoder::length() const {
    return impl_->length();
}

// ---------------------------------------------------------------------------------------------

namespace {

int sample(const std::vector<float>& logits, double temperature, util::SplitMix64& rng) {
    const int vocab = static_cast<int>(logits.size());
    int best = 0;
    for (int i = 1; i < vocab; ++i)
        if (logits[i] > logits[best]) best = i;
    if (temperature <= 0) return best;
    std::vector<double> p(vocab);
    double sum = 0;
    for (int i = 0; i < vocab; ++i) {
        p[i] = std::exp((static_cast<double>(logits[i]) - logits[best]) / temperature);
        sum += p[i];
    }
    double u = rng.uniform() * sum;
    for (int i = 0; i < vocab; ++i) {
        u -= p[i];
        if (u < 0) return i;
    }
    return best;
}

} // namespace

Status generate(const Model& model, std::string_view prompt, const GenerateOptions& o,
                std::string* out) {
    const Config& c = model.config();
    // A checkpoint reads the ids of its own tokenizer.json, which the caller loads and passes.
    const bool checkpoint = model.setup() != nullptr;
    const bool tokens = !c.tokenizer.empty() || checkpoint;
    if (checkpoint && !o.vocabulary)
        return Status::error("a checkpoint model generates with its tokenizer: pass the one its "
                             "tokenizer.json gives");
    if (tokens && !o.vocabulary)
        return Status::error("this model reads " + c.tokenizer +
                             " tokens: generating needs that tokenizer");
    if (!checkpoint && tokens && o.vocabulary->name() != c.tokenizer)
        return Status::error("this model reads " + c.tokenizer + " tokens, not " +
                             o.vocabulary->name() + " tokens");
    if (!tokens && o.vocabulary)
        return Status::error("this model reads bytes: it takes no tokenizer");
    if (prompt.empty()) return Status::error("the prompt must hold at least 1 byte");
    if (o.max_bytes < 0) return Status::error("max_bytes must be >= 0");
    if (!std::isfinite(o.temperature) || o.temperature < 0)
        return Status::error("temperature must be a finite number >= 0");
    Status st = validate(o.limit);
    if (!st.ok()) return st;
    const int64_t total = static_cast<int64_t>(prompt.size()) + o.max_bytes;
    if (total > ModelLimits::max_input_bytes)
        return Status::error("prompt (" + std::to_string(prompt.size()) +
                             " bytes) plus max_bytes (" + std::to_string(o.max_bytes) +
                             ") exceeds the model's limit of " +
                             std::to_string(ModelLimits::max_input_bytes) + " bytes");
    const bool parsed = o.hierarchy.hierarchy != ByteHierarchy::segments;
    if (!parsed && o.hierarchy.segment_size < 1)
        return Status::error("segment size must be at least 1, got " +
                             std::to_string(o.hierarchy.segment_size));
    const bool needs_hierarchy = !o.model_schemes && o.scheme.type == SchemeType::hirope;
    const bool truncate = o.limit.type == ContextLimitType::truncate;
    ContextLimit cache_limit = o.limit;
    if (truncate) cache_limit = {};

    // The sequence: its ids (bytes, or tokens) and where each one starts in text. A token model
    // keeps the tokens it sampled (not a new encoding of the text), as a model generating does.
    std::string text(prompt);
    std::vector<int32_t> ids;
    std::vector<int64_t> starts;
    if (tokens) {
        std::vector<Token> encoded;
        o.vocabulary->encode(prompt, &encoded);
        if (encoded.empty()) return Status::error("the prompt has no tokens");
        for (const Token& t : encoded) {
            ids.push_back(t.id);
            starts.push_back(t.start);
        }
    } else {
        for (size_t b = 0; b < text.size(); ++b) {
            ids.push_back(static_cast<uint8_t>(text[b]));
            starts.push_back(static_cast<int64_t>(b));
        }
    }
    // The decoder holds ids[first..], positioned from text[starts[first]..] alone: a token takes
    // the unit and statement of its first byte; segments count ids.
    int64_t first = 0;
    std::vector<int32_t> unit, statement;
    BytePositions bytes;
    auto position = [&]() {
        unit.clear();
        statement.clear();
        const int64_t count = static_cast<int64_t>(ids.size()) - first;
        if (!parsed) {
            for (int64_t k = 0; k < count; ++k)
                unit.push_back(static_cast<int32_t>(k / o.hierarchy.segment_size));
            statement = unit;
            return Status{};
        }
        const int64_t b0 = starts[first];
        Status s = byte_positions(std::string_view(text).substr(static_cast<size_t>(b0)),
                                  o.hierarchy, &bytes);
        if (!s.ok()) return s;
        for (int64_t k = 0; k < count; ++k) {
            const size_t b = static_cast<size_t>(starts[first + k] - b0);
            const size_t at = std::min(b, bytes.unit.size() - 1);
            unit.push_back(bytes.unit.empty() ? 0 : bytes.unit[at]);
            statement.push_back(bytes.statement.empty() ? 0 : bytes.statement[at]);
        }
        return Status{};
    };
    std::unique_ptr<Decoder> dec;
    std::vector<float> logits(c.vocab);
    auto restart = [&](int64_t from) {
        first = from;
        Status s = position();
        if (!s.ok()) return s;
        dec.reset(new Decoder(model, o.scheme, truncate ? o.limit.length : total, cache_limit,
                              o.model_schemes));
        return dec->append(ids.data() + first, static_cast<int64_t>(ids.size()) - first,
                           unit.data(), statement.data(), logits.data());
    };
    const int64_t n = static_cast<int64_t>(ids.size());
    st = restart(truncate ? std::max<int64_t>(0, n - o.limit.length) : 0);
    if (!st.ok()) return st;
    util::SplitMix64 rng{o.seed};
    std::string generated;
    while (static_cast<int64_t>(generated.size()) < o.max_bytes) {
        const int32_t id = sample(logits, o.temperature, rng);
        std::string piece;
        if (tokens) {
            piece = std::string(o.vocabulary->token_bytes(id));
            if (piece.empty()) break; // end of sequence, or a control token
        } else {
            if (id == 0) break;
            piece.push_back(static_cast<char>(id));
        }
        starts.push_back(static_cast<int64_t>(text.size()));
        ids.push_back(id);
        text += piece;
        generated += piece;
        const int64_t last = static_cast<int64_t>(ids.size()) - 1;
        if (truncate && dec->length() >= o.limit.length) {
            // Full: start again from the last length - stride ids before this one.
            st = restart(last - (o.limit.length - o.limit.stride));
            if (!st.ok()) return st;
            continue;
        }
        const int64_t k = last - first;
        int32_t u, s;
        if (!parsed) {
            u = s = static_cast<int32_t>(k / o.hierarchy.segment_size);
        } else if (needs_hierarchy && piece.find('\n') != std::string::npos) {
            // A finished line: analyse the text again; cached keys move to their new units.
            st = position();
            if (!st.ok()) return st;
            st = dec->reposition(unit.data(), statement.data());
            if (!st.ok()) return st;
            u = unit[k];
            s = statement[k];
        } else {
            u = unit.empty() ? 0 : unit.back();
            s = statement.empty() ? 0 : statement.back();
            unit.push_back(u);
            statement.push_back(s);
        }
        st = dec->append(&id, 1, &u, &s, logits.data());
        if (!st.ok()) return st;
    }
    *out = std::move(generated);
    return {};
}

} // namespace model
} // namespace hirope
