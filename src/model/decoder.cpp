// The KV-cache decoder and generation.
#include "core/internal.h"
#include "core/rotate.h"
#include "kernels/activation.h"
#include "kernels/vector.h"
#include "model/model_internal.h"
#include "util/random.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace hirope {
namespace model {

struct Decoder::Impl {
    const Model::Impl& m;
    Scheme scheme;
    Status scheme_status;
    bool windowed = false;
    int d = 0, hd = 0, heads = 0;
    std::vector<int32_t> token, unit, statement; // positions of every cached byte
    std::vector<uint8_t> dirty;                  // keys to rotate again (positions changed)
    struct Layer {
        std::vector<float> k, v, k_near, k_far; // rows of d; k before rotation
    };
    std::vector<Layer> layers;
    std::vector<double> rotated_freq; // the frequencies the cached keys were rotated with
    double rotated_factor = 0;
    int64_t rotated_len = 0;
    Scratch s;

    int64_t frequency_length = 0;

    Impl(const Model& model_, const Scheme& scheme_, int64_t frequency_length_)
        : m(*model_.impl_), scheme(scheme_), frequency_length(frequency_length_) {
        scheme_status = m.check_scheme(scheme);
        windowed = is_windowed(scheme.type);
        d = m.cfg.d_model;
        hd = m.cfg.head_dim();
        heads = m.cfg.heads;
        layers.resize(m.cfg.layers);
    }

    Positions positions() const { return {token.data(), unit.data(), statement.data()}; }
    int64_t length() const { return static_cast<int64_t>(token.size()); }

    // Rotates the cached keys of rows [begin, end) (or the dirty ones) with context c.
    void rotate_keys(Layer& L, const hirope::detail::Context& c, int64_t begin, int64_t end) const {
        const Positions pos = positions();
        hirope::detail::rotate_range(c, pos, Role::key, Branch::near, L.k.data() + begin * d, heads,
                                     begin, end, L.k_near.data() + begin * d);
        if (windowed)
            hirope::detail::rotate_range(c, pos, Role::key, Branch::far, L.k.data() + begin * d,
                                         heads, begin, end, L.k_far.data() + begin * d);
    }

    // Attention of new rows [t0, t1) over every cached key, written to out ((t1 - t0) x d).
    void attend(const Layer& L, const float* q_near, const float* q_far, int64_t t0, int64_t t1,
                float* out) const {
        const float scale = 1.0f / std::sqrt(static_cast<float>(hd));
        std::vector<float> logits(static_cast<size_t>(t1));
        for (int64_t i = t0; i < t1; ++i) {
            for (int h = 0; h < heads; ++h) {
                const float* qn = q_near + (i - t0) * d + h * hd;
                const float* qf = windowed ? q_far + (i - t0) * d + h * hd : nullptr;
                for (int64_t j = 0; j <= i; ++j) {
                    const bool near = !windowed || token[i] - token[j] < scheme.window;
                    const float* q = near ? qn : qf;
                    const float* k = (near ? L.k_near.data() : L.k_far.data()) + j * d + h * hd;
                    logits[j] = kernels::dot(q, k, hd) * scale;
                }
                const int64_t len = i + 1;
                if (!kernels::softmax_row(logits.data(), static_cast<size_t>(len)))
                    std::fill(logits.begin(), logits.begin() + len, 1.0f / len);
                float* o = out + (i - t0) * d + h * hd;
                std::fill(o, o + hd, 0.0f);
                for (int64_t j = 0; j < len; ++j)
                    kernels::axpy(logits[j], L.v.data() + j * d + h * hd, o, hd);
            }
        }
    }

    Status append(const uint8_t* bytes, int64_t count, const int32_t* new_unit,
                  const int32_t* new_statement, float* logits_out) {
        if (!scheme_status.ok()) return scheme_status;
        if (count < 1) return Status::error("append needs at least 1 byte");
        if (!bytes) return Status::error("bytes are required");
        const int64_t t0 = length(), t1 = t0 + count;
        if (t1 > ModelLimits::max_input_bytes)
            return Status::error("the sequence would have " + std::to_string(t1) +
                                 " bytes; the model's limit is " +
                                 std::to_string(ModelLimits::max_input_bytes));
        for (int64_t t = 0; t < count; ++t) {
            token.push_back(static_cast<int32_t>(t0 + t));
            unit.push_back(new_unit ? new_unit[t] : (t0 + t > 0 ? unit.back() : 0));
            statement.push_back(new_statement ? new_statement[t]
                                              : (t0 + t > 0 ? statement.back() : 0));
            dirty.push_back(0);
        }
        hirope::detail::Context c;
        Status st = hirope::detail::make_context(scheme, hd, t1, positions(), &c);
        if (!st.ok()) {
            rollback(t0);
            return st;
        }
        // The attention plan takes its frequencies from the block it is given; a prompt may use
        // it only when those are the ones this decoder uses.
        bool plan_frequencies = true;
        if (frequency_length > 0) {
            const std::vector<double> natural = c.inv_freq;
            c.seq_len = std::max(frequency_length, t1);
            st = inverse_frequencies(scheme, hd, c.seq_len, &c.inv_freq);
            if (!st.ok()) {
                rollback(t0);
                return st;
            }
            c.attn_factor = attention_factor(scheme, c.seq_len);
            plan_frequencies = c.inv_freq == natural;
        }
        // Keys rotated with other frequencies (dynamic NTK grows with the sequence, LongRoPE
        // switches, xPos recentres) are rotated again, as a full forward at this length would.
        const bool all_stale = c.inv_freq != rotated_freq || c.attn_factor != rotated_factor ||
                               (scheme.type == SchemeType::xpos && rotated_len != t1);
        rotated_freq = c.inv_freq;
        rotated_factor = c.attn_factor;
        rotated_len = t1;

        std::vector<float> x(static_cast<size_t>(count) * d);
        m.embed(bytes, count, x.data());
        s.resize(m.cfg, count);
        std::vector<float> q_near(static_cast<size_t>(count) * d),
            q_far(windowed ? q_near.size() : 0);
        for (int l = 0; l < m.cfg.layers; ++l) {
            const Model::Impl::Block& b = m.blocks[l];
            Layer& L = layers[l];
            kernels::rms_norm(x.data(), count, d, b.attn_norm.data(), m.cfg.norm_eps, s.h.data());
            b.wqkv.apply(s.h.data(), count, s.qkv.data());
            L.k.resize(static_cast<size_t>(t1) * d);
            L.v.resize(L.k.size());
            L.k_near.resize(L.k.size());
            if (windowed) L.k_far.resize(L.k.size());
            for (int64_t t = 0; t < count; ++t) {
                const float* row = s.qkv.data() + t * 3 * d;
                std::memcpy(s.q.data() + t * d, row, sizeof(float) * d);
                std::memcpy(L.k.data() + (t0 + t) * d, row + d, sizeof(float) * d);
                std::memcpy(L.v.data() + (t0 + t) * d, row + 2 * d, sizeof(float) * d);
            }
            if (all_stale) {
                rotate_keys(L, c, 0, t0);
            } else {
                for (int64_t j = 0; j < t0; ++j)
                    if (dirty[j]) rotate_keys(L, c, j, j + 1);
            }
            rotate_keys(L, c, t0, t1);
            const Positions pos = positions();
            hirope::detail::rotate_range(c, pos, Role::query, Branch::near, s.q.data(), heads, t0,
                                         t1, q_near.data());
            if (windowed)
                hirope::detail::rotate_range(c, pos, Role::query, Branch::far, s.q.data(), heads,
                                             t0, t1, q_far.data());
            if (t0 == 0 && count > 1 && plan_frequencies) {
                // A whole prompt: the attention plan's tiled kernels, as in Model::forward.
                st = m.plan_attention(scheme, pos, count, s.q.data(), L.k.data(), L.v.data(),
                                      s.h.data(), nullptr, 0);
                if (!st.ok()) {
                    rollback(t0);
                    return st;
                }
            } else {
                attend(L, q_near.data(), q_far.data(), t0, t1, s.h.data());
            }
            b.wo.apply(s.h.data(), count, s.tmp.data());
            kernels::add_to(x.data(), s.tmp.data(), static_cast<size_t>(count) * d);
            m.mlp_block(b, count, x.data(), s);
        }
        std::fill(dirty.begin(), dirty.end(), 0);
        if (logits_out) m.logits_rows(x.data() + (count - 1) * d, 1, logits_out, s);
        return {};
    }

    void rollback(int64_t len) {
        token.resize(len);
        unit.resize(len);
        statement.resize(len);
        dirty.resize(len);
    }

    Status reposition(const int32_t* new_unit, const int32_t* new_statement) {
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
};

Decoder::Decoder(const Model& model, const Scheme& scheme, int64_t frequency_length)
    : impl_(new Impl(model, scheme, frequency_length)) {}
Decoder::~Decoder() = default;

Status Decoder::append(const uint8_t* bytes, int64_t count, const int32_t* unit,
                       const int32_t* statement, float* logits) {
    return impl_->append(bytes, count, unit, statement, logits);
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
    if (prompt.empty()) return Status::error("the prompt must hold at least 1 byte");
    if (o.max_bytes < 0) return Status::error("maxBytes must be >= 0");
    if (!std::isfinite(o.temperature) || o.temperature < 0)
        return Status::error("temperature must be a finite number >= 0");
    const int64_t total = static_cast<int64_t>(prompt.size()) + o.max_bytes;
    if (total > ModelLimits::max_input_bytes)
        return Status::error("prompt (" + std::to_string(prompt.size()) +
                             " bytes) plus maxBytes (" + std::to_string(o.max_bytes) +
                             ") exceeds the model's limit of " +
                             std::to_string(ModelLimits::max_input_bytes) + " bytes");
    const bool parsed = o.hierarchy.hierarchy != ByteHierarchy::segments;
    const bool needs_hierarchy = o.scheme.type == SchemeType::hirope;
    std::string text(prompt);
    BytePositions pos;
    Status st = byte_positions(text, o.hierarchy, &pos);
    if (!st.ok()) return st;
    Decoder dec(model, o.scheme, total);
    std::vector<float> logits(model.config().vocab);
    st =
        dec.append(reinterpret_cast<const uint8_t*>(text.data()), static_cast<int64_t>(text.size()),
                   pos.unit.data(), pos.statement.data(), logits.data());
    if (!st.ok()) return st;
    util::SplitMix64 rng{o.seed};
    std::string generated;
    for (int64_t step = 0; step < o.max_bytes; ++step) {
        const int byte = sample(logits, o.temperature, rng);
        if (byte == 0) break;
        generated.push_back(static_cast<char>(byte));
        text.push_back(static_cast<char>(byte));
        const int64_t t = static_cast<int64_t>(text.size()) - 1;
        int32_t u, s;
        if (!parsed) {
            u = s = static_cast<int32_t>(t / o.hierarchy.segment_size);
        } else if (needs_hierarchy && byte == '\n') {
            // A finished line: analyse the text again; cached keys move to their new units.
            st = byte_positions(text, o.hierarchy, &pos);
            if (!st.ok()) return st;
            st = dec.reposition(pos.unit.data(), pos.statement.data());
            if (!st.ok()) return st;
            u = pos.unit[t];
            s = pos.statement[t];
        } else {
            u = pos.unit.empty() ? 0 : pos.unit.back();
            s = pos.statement.empty() ? 0 : pos.statement.back();
            pos.unit.push_back(u);
            pos.statement.push_back(s);
        }
        const uint8_t b = static_cast<uint8_t>(byte);
        st = dec.append(&b, 1, &u, &s, logits.data());
        if (!st.ok()) return st;
    }
    *out = std::move(generated);
    return {};
}

} // namespace model
} // namespace hirope
