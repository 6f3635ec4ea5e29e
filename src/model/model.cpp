// Loading the weights file, the forward pass and per-byte positions. The decoder (KV cache) and
// generation are in decoder.cpp.
#include "kernels/activation.h"
#include "kernels/layers.h"
#include "kernels/vector.h"
#include "model/model_internal.h"
#include "util/bytes.h"
#include "util/hash.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace hirope {
namespace model {

int64_t Config::parameters() const {
    const int64_t d = d_model, f = ffn_hidden;
    return static_cast<int64_t>(vocab) * d + layers * (2 * d + 4 * d * d + 3 * d * f) + d;
}

namespace format {

constexpr char kMagic[8] = {'H', 'R', 'P', 'M', 'O', 'D', 'E', 'L'};

// Reads the header up to (not including) the parameter count.
Status parse_header(util::ByteReader& r, size_t size, Config* c) {
    const uint8_t* magic;
    if (size < 8 || !r.bytes(8, &magic) || std::memcmp(magic, kMagic, 8) != 0)
        return Status::error("not a hirope model file (the first 8 bytes are not \"HRPMODEL\")");
    if (!r.u32(&c->version)) return Status::error("model file truncated in its header");
    if (c->version != kFormatVersion)
        return Status::error("model file format version " + std::to_string(c->version) +
                             " is not supported: this hirope reads version " +
                             std::to_string(kFormatVersion));
    uint32_t v[6], flags;
    for (uint32_t& x : v)
        if (!r.u32(&x)) return Status::error("model file truncated in its header");
    if (!r.f32(&c->rope_base) || !r.f32(&c->norm_eps) || !r.u32(&flags))
        return Status::error("model file truncated in its header");
    c->vocab = static_cast<int>(std::min<uint32_t>(v[0], 1u << 30));
    c->d_model = static_cast<int>(std::min<uint32_t>(v[1], 1u << 30));
    c->layers = static_cast<int>(std::min<uint32_t>(v[2], 1u << 30));
    c->heads = static_cast<int>(std::min<uint32_t>(v[3], 1u << 30));
    c->ffn_hidden = static_cast<int>(std::min<uint32_t>(v[4], 1u << 30));
    c->training_context = static_cast<int>(std::min<uint32_t>(v[5], 1u << 30));
    if (c->layers < 1 || c->layers > ModelLimits::max_layers || c->d_model < 2 ||
        c->d_model > ModelLimits::max_d_model || c->heads < 1 || c->d_model % c->heads != 0 ||
        (c->d_model / c->heads) % 2 != 0 || c->ffn_hidden < 1 ||
        c->ffn_hidden > ModelLimits::max_ffn || c->training_context < 1)
        return Status::error("model file header has invalid dimensions (layers " +
                             std::to_string(v[2]) + ", d_model " + std::to_string(v[1]) +
                             ", heads " + std::to_string(v[3]) + ", ffn " + std::to_string(v[4]) +
                             ", context " + std::to_string(v[5]) + ")");
    if (!(c->rope_base > 1.0f) || !std::isfinite(c->rope_base) || !(c->norm_eps > 0.0f) ||
        !std::isfinite(c->norm_eps))
        return Status::error("model file header has an invalid rope base or norm epsilon");
    // Flag 1: tied embeddings (required); flag 2: a token vocabulary, named after the name.
    if (flags != 1 && flags != 3)
        return Status::error("model file flags " + std::to_string(flags) +
                             " are not supported (version 1 needs tied embeddings, flag 1, and "
                             "may name a tokenizer, flag 2)");
    auto text = [&](const char* what, std::string* out) {
        uint32_t len;
        if (!r.u32(&len)) return Status::error("model file truncated in its header");
        if (len > 256)
            return Status::error(std::string("model file header has a ") + what +
                                 " over 256 bytes");
        const uint8_t* p;
        if (!r.bytes(len + (4 - len % 4) % 4, &p))
            return Status::error("model file truncated in its header");
        out->assign(reinterpret_cast<const char*>(p), len);
        return Status{};
    };
    Status st = text("name", &c->name);
    if (!st.ok()) return st;
    if (flags & 2) {
        st = text("tokenizer name", &c->tokenizer);
        if (!st.ok()) return st;
        if (c->tokenizer.empty()) return Status::error("model file names an empty tokenizer");
        if (v[0] < 2 || v[0] > static_cast<uint32_t>(ModelLimits::max_vocab))
            return Status::error("model vocabulary must be in [2, " +
                                 std::to_string(ModelLimits::max_vocab) +
                                 "] tokens, the file says " + std::to_string(v[0]));
    } else if (c->vocab != 256) {
        return Status::error("a byte model's vocabulary must be 256 bytes, the file says " +
                             std::to_string(v[0]));
    }
    return {};
}

} // namespace format

Status read_config(const uint8_t* data, size_t size, Config* out) {
    if (!data && size) return Status::error("model data is required");
    util::ByteReader r(data, size);
    Config c;
    Status st = format::parse_header(r, size, &c);
    if (!st.ok()) return st;
    *out = c;
    return {};
}

Model::Model() : impl_(new Impl) {}
Model::~Model() = default;

const ModelSetup* Model::setup() const {
    return impl_->arch.checkpoint ? &impl_->arch.setup : nullptr;
}

Status Model::load(const uint8_t* data, size_t size, std::unique_ptr<Model>* out,
                   const HeapBudget& heap) {
    if (!data && size) return Status::error("model data is required");
    if (size > ModelLimits::max_file_bytes)
        return Status::error("model file of " + std::to_string(size) +
                             " bytes exceeds the limit of " +
                             std::to_string(ModelLimits::max_file_bytes));
    util::ByteReader r(data, size);
    Config c;
    Status st = format::parse_header(r, size, &c);
    if (!st.ok()) return st;
    uint32_t count;
    if (!r.u32(&count)) return Status::error("model file truncated in its header");
    if (static_cast<int64_t>(count) != c.parameters())
        return Status::error("model file holds " + std::to_string(count) +
                             " parameters but its dimensions need " +
                             std::to_string(c.parameters()));
    const size_t body = static_cast<size_t>(count) * 2, padded = body + (4 - body % 4) % 4;
    const size_t expected = r.pos() + padded + 4;
    if (size < expected)
        return Status::error("model file truncated: " + std::to_string(size) + " bytes, expected " +
                             std::to_string(expected));
    if (size > expected)
        return Status::error("model file has " + std::to_string(size - expected) +
                             " unexpected bytes after its end");
    const uint8_t* params = nullptr;
    r.bytes(padded, &params);
    uint32_t stored = 0;
    r.u32(&stored);
    if (util::fnv1a(data, size - 4) != stored)
        return Status::error("model file is corrupted (its FNV-1a checksum does not match)");

    // Peak of init(): all parameters as floats, each tensor's copy, and its packed panels.
    st = heap.reserve(3.0 * sizeof(float) * static_cast<double>(count), "loading the model");
    if (!st.ok()) return st;
    std::unique_ptr<Model> m(new Model);
    m->config_ = c;
    m->impl_->heap = heap;
    st = m->impl_->init(c, params);
    if (!st.ok()) return st;
    *out = std::move(m);
    return {};
}

// ---------------------------------------------------------------------------------------------

Status Model::Impl::init(const Config& c, const uint8_t* params) {
    cfg = c;
    std::vector<float> all(static_cast<size_t>(c.parameters()));
    for (size_t i = 0; i < all.size(); ++i) {
        all[i] = checkpoint::f16_to_f32(util::load_u16le(params + 2 * i));
        if (!std::isfinite(all[i]))
            return Status::error("model file holds a non-finite weight at parameter " +
                                 std::to_string(i));
    }
    const int d = c.d_model, f = c.ffn_hidden;
    size_t at = 0;
    auto take = [&](size_t count) {
        std::vector<float> v(all.begin() + at, all.begin() + at + count);
        at += count;
        return v;
    };
    embedding = take(static_cast<size_t>(c.vocab) * d);
    blocks.resize(c.layers);
    for (Block& b : blocks) {
        b.attn_norm.w = take(d);
        b.wqkv = Linear(take(3u * d * d), 3 * d, d);
        b.wo = Linear(take(static_cast<size_t>(d) * d), d, d);
        b.mlp_norm.w = take(d);
        b.w1 = Linear(take(static_cast<size_t>(f) * d), f, d);
        b.w3 = Linear(take(static_cast<size_t>(f) * d), f, d);
        b.w2 = Linear(take(static_cast<size_t>(d) * f), d, f);
    }
    final_norm.w = take(d);
    head = Linear(embedding, c.vocab, d);
    return {};
}

Status Model::Impl::check_scheme(const Scheme& scheme) const {
    Status st = validate(scheme, cfg.head_dim());
    if (!st.ok()) return st;
    if (!is_rotary(scheme.type) && scheme.type != SchemeType::nope)
        return Status::error("the code model was trained with RoPE; its schemes must rotate q and "
                             "k (" +
                             scheme_names(&SchemeInfo::rotary) + ", with any scaling) or be nope");
    // Its weights learnt RoPE's half-split pairs (j, j + d/2): another layout would pair dims the
    // model never saw rotate together.
    if (is_rotary(scheme.type) && scheme.layout != Layout::half)
        return Status::error(
            "the code model rotates in the half-split layout: scheme.layout must be 'half'");
    return {};
}

Scheme Model::Impl::own_scheme() const {
    Scheme s;
    s.type = SchemeType::rope;
    s.base = cfg.rope_base;
    s.layout = Layout::half;
    return s;
}

Status Model::Impl::layer_scheme(const Scheme& user, bool model_schemes, int l, Scheme* out) const {
    const LayerSetup& layer = arch.setup.layers[l];
    if (model_schemes || !layer.rope) {
        *out = layer.scheme;
        return {};
    }
    // Which dims rotate and how they pair are the weights' (what they learnt), not the scheme's.
    Scheme s = user;
    s.layout = layer.scheme.layout;
    s.rotary_fraction = layer.scheme.rotary_fraction;
    s.rotary_last = layer.scheme.rotary_last;
    Status st = validate(s, cfg.head_dim());
    if (st.ok() && !is_rotary(s.type) && s.type != SchemeType::nope)
        st = Status::error("a checkpoint's RoPE layers take a scheme that rotates q and k (" +
                           scheme_names(&SchemeInfo::rotary) + ", with any scaling) or nope");
    if (!st.ok()) return Status::error("layer " + std::to_string(l) + ": " + st.message());
    *out = s;
    return {};
}

void Model::Impl::embed(const int32_t* ids, int64_t n, float* x) const {
    const int d = cfg.d_model;
    const Linear& rows = embedding_is_head ? head : embedding_rows;
    for (int64_t t = 0; t < n; ++t) {
        if (embedding.empty())
            rows.row(ids[t], x + t * d);
        else
            std::memcpy(x + t * d, embedding.data() + static_cast<size_t>(ids[t]) * d,
                        sizeof(float) * d);
    }
    if (arch.embedding_scale != 1)
        for (int64_t i = 0; i < n * d; ++i) x[i] *= arch.embedding_scale;
}

void Model::Impl::norm(const NormWeights& w, const float* x, int64_t n, int d, float* out) const {
    if (arch.layer_norm)
        kernels::layer_norm(x, n, d, w.w.data(), w.b.empty() ? nullptr : w.b.data(), cfg.norm_eps,
                            out);
    else
        kernels::rms_norm(x, n, d, w.w.data(), cfg.norm_eps, out);
}

Status Model::Impl::check_ids(const int32_t* ids, int64_t n) const {
    for (int64_t t = 0; t < n; ++t)
        if (ids[t] < 0 || ids[t] >= cfg.vocab)
            return Status::error("token id " + std::to_string(ids[t]) + " at " + std::to_string(t) +
                                 " is outside the model's vocabulary of " +
                                 std::to_string(cfg.vocab));
    return {};
}

void Model::Impl::mlp_block(const Block& b, int64_t n, float* x, Scratch& s) const {
    mlp_in(b, n, x, s);
    // a = gate (w1), g = up (w3): down(act(gate x) * up x); a plain MLP: down(act(up x)).
    if (arch.gated_mlp) {
        b.w1.apply(s.h.data(), n, s.a.data());
        b.w3.apply(s.h.data(), n, s.g.data());
    } else {
        b.w3.apply(s.h.data(), n, s.a.data());
    }
    mlp_mid(b, n, s);
    b.w2.apply(s.a.data(), n, s.tmp.data());
    mlp_out(b, n, x, s);
}

void Model::Impl::mlp_in(const Block& b, int64_t n, const float* x, Scratch& s) const {
    norm(b.mlp_norm, x, n, cfg.d_model, s.h.data());
}

void Model::Impl::mlp_mid(const Block& b, int64_t n, Scratch& s) const {
    const int f = cfg.ffn_hidden;
    const size_t len = static_cast<size_t>(n) * f;
    const int act = static_cast<int>(arch.activation);
    if (arch.gated_mlp) {
        if (!b.b1.empty()) kernels::add_bias(s.a.data(), n, f, b.b1.data());
        if (!b.b3.empty()) kernels::add_bias(s.g.data(), n, f, b.b3.data());
        kernels::activate(act, s.a.data(), s.g.data(), len);
    } else {
        if (!b.b3.empty()) kernels::add_bias(s.a.data(), n, f, b.b3.data());
        kernels::activate(act, s.a.data(), nullptr, len);
    }
}

void Model::Impl::mlp_out(const Block& b, int64_t n, float* x, Scratch& s) const {
    const int d = cfg.d_model;
    if (!b.b2.empty()) kernels::add_bias(s.tmp.data(), n, d, b.b2.data());
    if (b.mlp_post_norm.present()) {
        norm(b.mlp_post_norm, s.tmp.data(), n, d, s.h.data());
        kernels::add_to(x, s.h.data(), static_cast<size_t>(n) * d);
    } else {
        kernels::add_to(x, s.tmp.data(), static_cast<size_t>(n) * d);
    }
}

const Linear* Model::Impl::linear(int index) const {
    if (index < 0 || index > 5 * cfg.layers) return nullptr;
    if (index == 5 * cfg.layers) return &head;
    const Block& b = blocks[index / 5];
    const Linear* parts[] = {&b.wqkv, &b.wo, &b.w1, &b.w3, &b.w2};
    return parts[index % 5];
}

void Model::Impl::logits_rows(const float* x, int64_t n, float* out, Scratch& s) const {
    norm(final_norm, x, n, cfg.d_model, s.h.data());
    head.apply(s.h.data(), n, out);
    if (arch.final_softcap > 0)
        kernels::softcap(out, static_cast<size_t>(n) * cfg.vocab, arch.final_softcap);
}

void Model::Impl::loss_rows(const float* x, int64_t n, const int32_t* targets, int64_t count,
                            float* losses, Scratch& s) const {
    const int d = cfg.d_model, vocab = cfg.vocab;
    norm(final_norm, x, n, d, s.h.data());
    // 64 rows x 4,096 columns of logits (1 MB) at a time: the weights stream once per 64 rows, as
    // in apply(), and each block of logits is read back from cache for the log-sum-exp.
    constexpr int64_t kRows = 64;
    constexpr int kCols = 4096 / kernels::kNR * kernels::kNR; // whole panels
    // Sized to what a block can hold (a byte model's 256 columns: 64 KB, the rows the forward
    // reserved), not the 1 MB of a full one.
    std::vector<float> block(static_cast<size_t>(std::min({kRows, n, count})) *
                             static_cast<size_t>(std::min(kCols, vocab)));
    for (int64_t r0 = 0; r0 < n && r0 < count; r0 += kRows) {
        const int64_t rows = std::min({kRows, n - r0, count - r0});
        float mx[kRows];
        double z[kRows], target[kRows];
        std::fill(mx, mx + rows, -3.4e38f);
        std::fill(z, z + rows, 0.0);
        for (int c0 = 0; c0 < vocab; c0 += kCols) {
            const int cols = std::min(kCols, vocab - c0);
            head.apply_columns(s.h.data() + r0 * d, rows, c0, cols, block.data(), cols);
            if (arch.final_softcap > 0)
                kernels::softcap(block.data(), static_cast<size_t>(rows) * cols,
                                 arch.final_softcap);
            for (int64_t r = 0; r < rows; ++r) {
                const float* row = block.data() + r * cols;
                const float m = kernels::max_row(row, static_cast<size_t>(cols));
                if (m > mx[r]) { // rescale what was summed against the old max
                    z[r] *= std::exp(static_cast<double>(mx[r]) - m);
                    mx[r] = m;
                }
                z[r] += kernels::sum_exp_row(row, static_cast<size_t>(cols), mx[r]);
                const int t = targets[r0 + r];
                if (t >= c0 && t < c0 + cols) target[r] = row[t - c0];
            }
        }
        for (int64_t r = 0; r < rows; ++r)
            losses[r0 + r] =
                static_cast<float>((std::log(z[r]) - (target[r] - mx[r])) / std::log(2.0));
    }
}

void Scratch::resize(const Config& c, int64_t n) {
    const size_t d = c.d_model, rows = static_cast<size_t>(n);
    const size_t qd = static_cast<size_t>(c.heads) * c.head_dim();
    const size_t kvd = static_cast<size_t>(c.kv_head_count()) * c.head_dim();
    // Normed rows and attention outputs; logits go to the caller's buffer.
    h.resize(rows * std::max(d, qd));
    qkv.resize(rows * (qd + 2 * kvd));
    q.resize(rows * qd);
    // Grouped-query attention's keys and values, repeated to every query head.
    if (kvd != qd) {
        k.resize(rows * qd);
        v.resize(rows * qd);
    }
    tmp.resize(rows * d);
    a.resize(rows * c.ffn_hidden);
    g.resize(rows * c.ffn_hidden);
}

double step_heap_bytes(const Config& c, int64_t count, int64_t total, bool cache,
                       int64_t logits_rows) {
    const double d = std::max(c.d_model, c.heads * c.head_dim()), n = static_cast<double>(count),
                 t = static_cast<double>(total);

    // Per new row: the residual stream, Scratch (h, qkv, q, tmp, a, g), the rotated queries of
    // both branches and the attention plan's copies; per row of the sequence, keys, values and
    // both rotated keys of every kept layer, counted twice for a vector's growth; the plan's
    // probability strips; the logits.
    const double floats = n * (13 * d + 2.0 * c.ffn_hidden + 256) +
                          8 * t * d * (cache ? c.layers : 1) +
                          static_cast<double>(logits_rows) * c.vocab;
    return floats * sizeof(float);
}

Status validate(const ContextLimit& l) {
    switch (l.type) {
    case ContextLimitType::none:
        return {};
    case ContextLimitType::sliding_window:
    case ContextLimitType::truncate:
        break;
    default:
        return Status::error("context limit type " + std::to_string(static_cast<int>(l.type)) +
                             " is not one of none, sliding-window, truncate");
    }
    const char* what = l.type == ContextLimitType::truncate ? "truncate length" : "sliding window";
    if (l.length < 1 || l.length > ModelLimits::max_input_bytes)
        return Status::error(std::string(what) + " must be in [1, " +
                             std::to_string(ModelLimits::max_input_bytes) + "], got " +
                             std::to_string(l.length));
    if (l.type == ContextLimitType::truncate && (l.stride < 1 || l.stride > l.length))
        return Status::error("truncate stride must be in [1, length " + std::to_string(l.length) +
                             "], got " + std::to_string(l.stride));
    return {};
}

namespace {

// Positions of bytes [s, s + m) as if the text began at s: every index less its value at s.
BytePositions rebased(const Positions& p, int64_t s, int64_t m) {
    BytePositions out;
    out.token.resize(m);
    out.unit.resize(m);
    out.statement.resize(m);
    for (int64_t k = 0; k < m; ++k) {
        out.token[k] = p.token[s + k] - p.token[s];
        out.unit[k] = p.unit ? p.unit[s + k] - p.unit[s] : 0;
        out.statement[k] = p.statement ? p.statement[s + k] - p.statement[s] : 0;
    }
    return out;
}

} // namespace

// Truncate: forwards over windows [s, s + L) at s = 0, S, 2S, ...; window 0 serves the rows
// t < L, window s > 0 the rows [s + L - S, s + L), so row t sees between L - S + 1 and L bytes.
Status Model::forward_truncated(const ForwardRequest& r, const int32_t* ids, float* logits,
                                float* losses) const {
    const Config& c = config_;
    const int64_t n = r.n, L = r.limit.length, S = r.limit.stride;
    std::vector<float> rows, probs, window_losses;
    for (int64_t s = 0;; s += S) {
        const int64_t first = s == 0 ? 0 : s + L - S;
        if (first >= n) break;
        const int64_t m = std::min(n, s + L) - s;
        BytePositions p = rebased(r.positions, s, m);
        Decoder::Impl window(*impl_, r.scheme, 0, false, {}, r.model_schemes);
        Decoder::Impl::Outputs out;
        if (logits) {
            rows.resize(static_cast<size_t>(m) * c.vocab);
            out.logits = rows.data();
            out.every_row = true;
            out.first_row = first - s; // the only rows this window serves
        } else if (losses) {
            // Row t's target is id t + 1, which may lie past the window's last id.
            window_losses.resize(static_cast<size_t>(m));
            out.losses = window_losses.data();
            out.targets = ids + s + 1;
            out.targets_count = std::min(m, n - 1 - s);
            out.every_row = true;
            out.first_row = first - s;
        }
        if (r.attention) {
            probs.resize(static_cast<size_t>(m) * m);
            out.attention = probs.data();
            out.attention_layer = r.attention_layer;
            out.attention_head = r.attention_head;
        }
        Status st = window.append(ids + s, m, p.view(), out);
        if (!st.ok()) return st;
        for (int64_t t = first; t < s + m; ++t) {
            if (logits)
                std::copy(rows.begin() + (t - s) * c.vocab, rows.begin() + (t - s + 1) * c.vocab,
                          logits + t * c.vocab);
            else if (losses && t + 1 < n)
                losses[t] = window_losses[t - s];
            if (r.attention) {
                float* row = r.attention + t * n;
                std::fill(row, row + n, 0.0f);
                std::copy(probs.begin() + (t - s) * m, probs.begin() + (t - s) * m + (t - s) + 1,
                          row + s);
            }
        }
    }
    return {};
}

Status Model::check_request(const ForwardRequest& r, std::vector<int32_t>* byte_ids,
                            const int32_t** ids_out, bool* fused) const {
    const Config& c = config_;
    const char* unit = c.tokenizer.empty() ? " bytes" : " tokens";
    if (!c.tokenizer.empty() && r.bytes)
        return Status::error("this model reads " + c.tokenizer + " token ids, not bytes");
    if (impl_->arch.checkpoint && r.bytes)
        return Status::error("a checkpoint model reads its tokenizer's token ids, not bytes");
    if (r.bytes && r.ids) return Status::error("give bytes or ids, not both");
    if (!r.bytes && !r.ids && r.n > 0)
        return Status::error(std::string(unit + 1) + " are required");
    if (r.n < 1)
        return Status::error(std::string("the input must hold at least 1") +
                             (c.tokenizer.empty() ? " byte" : " token"));
    if (r.n > ModelLimits::max_input_bytes)
        return Status::error("the input has " + std::to_string(r.n) + unit +
                             "; the model's limit is " +
                             std::to_string(ModelLimits::max_input_bytes));
    const int32_t* ids = r.ids;
    if (r.bytes) {
        byte_ids->assign(r.bytes, r.bytes + r.n);
        ids = byte_ids->data();
    }
    *ids_out = ids;
    Status st = impl_->check_ids(ids, r.n);
    if (!st.ok()) return st;
    if (!r.positions.token) return Status::error("token positions are required");
    // The scheme each layer runs: a checkpoint's own per layer or the request's on its RoPE
    // layers; hirope's own models, the request's (or RoPE at their base) on every layer.
    Scheme scheme = r.model_schemes ? impl_->own_scheme() : r.scheme;
    if (impl_->arch.checkpoint) {
        // The first RoPE layer's scheme, for the positions check below; the sequence checks
        // every layer's as it is set up.
        const std::vector<LayerSetup>& layers = impl_->arch.setup.layers;
        int first = 0;
        while (first + 1 < c.layers && !layers[first].rope) ++first;
        st = impl_->layer_scheme(r.scheme, r.model_schemes, first, &scheme);
        if (!st.ok()) return st;
    } else {
        st = impl_->check_scheme(scheme);
        if (!st.ok()) return st;
    }
    if (r.attention) {
        if (r.attention_layer < 0 || r.attention_layer >= c.layers)
            return Status::error("layer must be in [0, " + std::to_string(c.layers - 1) +
                                 "], got " + std::to_string(r.attention_layer));
        if (r.attention_head < 0 || r.attention_head >= c.heads)
            return Status::error("head must be in [0, " + std::to_string(c.heads - 1) + "], got " +
                                 std::to_string(r.attention_head));
    }
    st = validate(r.limit);
    if (!st.ok()) return st;
    if (r.attention_all && r.limit.type != ContextLimitType::none)
        return Status::error("every head's attention at once takes no context limit: ask for one "
                             "layer and head at a time");
    // The request's positions as given: a scheme that needs unit or statement indices fails
    // here, where the sequence below would fill in zeros as a decoder does.
    Rotator check;
    st = check.prepare(scheme, c.head_dim(), c.heads, r.n, r.positions);
    if (!st.ok()) return st;
    // Losses without logits: the output projection in blocks with a fused log-sum-exp
    // (Model::Impl::loss_rows), no n x vocab buffer (at most 64 rows' worth is reserved).
    *fused = !r.logits && r.losses;
    return impl_->heap.reserve(
        step_heap_bytes(c, r.n, r.n, false, *fused ? std::min<int64_t>(r.n, 64) : 0),
        "the model's forward pass");
}

namespace {

// forward()'s outputs as the sequence writes them: logits of every row, or the fused losses
// (targets: the next ids), and the attention asked for.
Decoder::Impl::Outputs outputs_of(const Model::ForwardRequest& r, const int32_t* ids, bool fused) {
    Decoder::Impl::Outputs out;
    out.logits = r.logits;
    out.every_row = true;
    out.attention = r.attention;
    out.attention_layer = r.attention_layer;
    out.attention_head = r.attention_head;
    out.attention_all = r.attention_all;
    if (fused) {
        out.losses = r.losses;
        out.targets = ids + 1;
        out.targets_count = r.n - 1;
    }
    return out;
}

// Losses from the logits of every row (a request that asked for both).
void losses_from_logits(const Model::ForwardRequest& r, const int32_t* ids, int vocab) {
    for (int64_t t = 0; t + 1 < r.n; ++t)
        r.losses[t] = static_cast<float>(bits_of(r.logits + t * vocab, vocab, ids[t + 1]));
}

} // namespace

Status Model::forward(const ForwardRequest& r) const {
    std::vector<int32_t> byte_ids;
    const int32_t* ids = nullptr;
    bool fused = false;
    Status st = check_request(r, &byte_ids, &ids, &fused);
    if (!st.ok()) return st;
    if (r.limit.type == ContextLimitType::truncate) {
        st = forward_truncated(r, ids, r.logits, fused ? r.losses : nullptr);
    } else {
        // A forward is the decoder's prefill of all n bytes, without a cache.
        Decoder::Impl sequence(*impl_, r.scheme, 0, false, r.limit, r.model_schemes);
        st = sequence.append(ids, r.n, r.positions, outputs_of(r, ids, fused));
    }
    if (!st.ok()) return st;
    if (r.losses && !fused) losses_from_logits(r, ids, config_.vocab);
    return {};
}

int Model::linear_count() const {
    return impl_->arch.checkpoint ? 5 * config_.layers + 1 : 0;
}

Model::LinearView Model::linear_view(int index) const {
    LinearView v;
    const Linear* w = index < linear_count() ? impl_->linear(index) : nullptr;
    if (!w) return v;
    v.out = w->out();
    v.in = w->in();
    v.panel_width = kernels::kNR;
    v.format = static_cast<int>(w->format());
    v.data = w->panel_data();
    v.bytes = w->bytes();
    return v;
}

struct ForwardSteps::Impl {
    Impl(const Model& model, const Model::ForwardRequest& r)
        : request(r), sequence(*model.impl_, r.scheme, 0, false, r.limit, r.model_schemes) {}
    Model::ForwardRequest request;
    std::vector<int32_t> byte_ids;
    const int32_t* ids = nullptr;
    bool fused = false, done = false;
    Decoder::Impl sequence;
};

ForwardSteps::ForwardSteps() = default;
ForwardSteps::~ForwardSteps() = default;

Status ForwardSteps::start(const Model& model, const Model::ForwardRequest& r,
                           std::unique_ptr<ForwardSteps>* out) {
    if (!model.impl_->arch.checkpoint)
        return Status::error("only a checkpoint's forward runs in steps");
    if (r.limit.type != ContextLimitType::none)
        return Status::error("a forward in steps takes no context limit");
    std::unique_ptr<ForwardSteps> steps(new ForwardSteps);
    steps->impl_.reset(new Impl(model, r));
    Impl& s = *steps->impl_;
    Status st = model.check_request(r, &s.byte_ids, &s.ids, &s.fused);
    if (!st.ok()) return st;
    // The ids are read again at the output layer (the losses' targets): a copy of them is kept.
    if (s.ids != s.byte_ids.data()) s.byte_ids.assign(s.ids, s.ids + r.n);
    s.ids = s.byte_ids.data();
    st = s.sequence.start_steps(s.ids, r.n, r.positions, outputs_of(r, s.ids, s.fused));
    if (!st.ok()) return st;
    *out = std::move(steps);
    return {};
}

Status ForwardSteps::next(bool* more, Product* product) {
    Impl& s = *impl_;
    *more = false;
    if (s.done) return Status::error("the forward is done");
    Status st = s.sequence.next_checkpoint(more, product);
    if (!st.ok() || !*more) s.done = true;
    if (st.ok() && !*more && s.request.losses && !s.fused)
        losses_from_logits(s.request, s.ids, s.sequence.model().cfg.vocab);
    return st;
}

Status ForwardSteps::apply(const Product& p) {
    return impl_->sequence.run_step(p);
}

std::string ForwardSteps::attention_call(int layer) const {
    return impl_->sequence.attention_call_json(layer);
}

Positions ForwardSteps::positions() const {
    return impl_->sequence.positions();
}

int ForwardSteps::heads() const {
    return impl_->sequence.model().cfg.heads;
}

double bits_of(const float* logits, int vocab, int target) {
    float m = logits[0];
    for (int i = 1; i < vocab; ++i) m = std::max(m, logits[i]);
    double sum = 0;
    for (int i = 0; i < vocab; ++i) sum += std::exp(static_cast<double>(logits[i]) - m);
    return (std::log(sum) - (static_cast<double>(logits[target]) - m)) / std::log(2.0);
}

// ---------------------------------------------------------------------------------------------
// Positions

Status byte_positions(std::string_view text, const HierarchyOptions& o, BytePositions* out) {
    // Whole files (positions of a window cut from a file's parse): the analysis's limit.
    const int64_t n = static_cast<int64_t>(text.size());
    if (static_cast<size_t>(n) > AnalysisLimits::max_bytes)
        return Status::error("the input has " + std::to_string(n) +
                             " bytes; the analysis's limit is " +
                             std::to_string(AnalysisLimits::max_bytes));
    BytePositions p;
    p.token.resize(n);
    p.unit.assign(n, 0);
    p.statement.assign(n, 0);
    for (int64_t t = 0; t < n; ++t) p.token[t] = static_cast<int32_t>(t);
    if (o.hierarchy == ByteHierarchy::segments) {
        if (o.segment_size < 1)
            return Status::error("segment size must be at least 1, got " +
                                 std::to_string(o.segment_size));
        for (int64_t t = 0; t < n; ++t) p.unit[t] = static_cast<int32_t>(t / o.segment_size);
        p.statement = p.unit;
        *out = std::move(p);
        return {};
    }
    AnalyzeOptions ao;
    ao.language = o.language;
    ao.grammar = o.grammar;
    ao.gap = o.gap;
    ao.descend_classes = o.descend_classes;
    Analysis a;
    Status st = analyze(text, ao, &a);
    if (!st.ok()) return st;
    for (size_t u = 0; u < a.units.size(); ++u)
        for (uint32_t b = a.units[u].start; b < a.units[u].end && b < text.size(); ++b)
            p.unit[b] = static_cast<int32_t>(u);
    size_t tok = 0;
    for (int64_t b = 0; b < n; ++b) {
        while (tok + 1 < a.tokens.size() && a.tokens[tok + 1].start <= b) ++tok;
        p.statement[b] = a.tokens.empty() ? 0 : a.statement[tok];
    }
    if (o.hierarchy == ByteHierarchy::statements) p.unit = p.statement;
    *out = std::move(p);
    return {};
}

Status token_positions(std::string_view text, const Vocabulary& vocabulary,
                       const HierarchyOptions& o, TokenPositions* out) {
    const int64_t n = static_cast<int64_t>(text.size());
    if (static_cast<size_t>(n) > AnalysisLimits::max_bytes)
        return Status::error("the input has " + std::to_string(n) +
                             " bytes; the analysis's limit is " +
                             std::to_string(AnalysisLimits::max_bytes));
    const bool segments = o.hierarchy == ByteHierarchy::segments;
    if (segments && o.segment_size < 1)
        return Status::error("segment size must be at least 1, got " +
                             std::to_string(o.segment_size));
    BytePositions bytes;
    if (!segments) {
        Status st = byte_positions(text, o, &bytes);
        if (!st.ok()) return st;
    }
    std::vector<Token> tokens;
    vocabulary.encode(text, &tokens);
    TokenPositions p;
    for (size_t k = 0; k < tokens.size(); ++k) {
        const Token& t = tokens[k];
        p.ids.push_back(t.id);
        p.start.push_back(t.start);
        p.end.push_back(t.end);
        p.token.push_back(static_cast<int32_t>(k));
        if (segments) {
            p.unit.push_back(static_cast<int32_t>(static_cast<int64_t>(k) / o.segment_size));
        } else {
            const size_t at =
                std::min<size_t>(t.start, bytes.unit.empty() ? 0 : bytes.unit.size() - 1);
            p.unit.push_back(bytes.unit.empty() ? 0 : bytes.unit[at]);
            p.statement.push_back(bytes.statement.empty() ? 0 : bytes.statement[at]);
        }
    }
    if (segments) p.statement = p.unit;
    *out = std::move(p);
    return {};
}

} // namespace model
} // namespace hirope
