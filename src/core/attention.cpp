// The attention plan: validation, rotation and packing of q/k, then logits / probabilities /
// outputs in row strips with the tiled kernels (fast) or the double-precision reference.
#include "core/reference.h"
#include "core/rotate.h"
#include "kernels/activation.h"
#include "kernels/gemm.h"
#include "kernels/vector.h"

#include <algorithm>
#include <cstdlib>
#include <limits>

namespace hirope {

namespace {
// The rows of probabilities the attention output holds at a time (AttentionPlan::output_rows):
// 4 MiB of floats, a few rows of a long input.
constexpr int64_t kOutputStripElements = int64_t{1} << 20;
} // namespace

using kernels::kMR;
using kernels::kNR;

struct AttentionPlan::Impl {
    detail::Context ctx;
    AttentionRequest req;
    Kernel kernel = Kernel::fast;
    int64_t n = 0;
    int heads = 1;
    int hd = 0;
    int64_t width = 0;
    std::vector<int32_t> token, unit, statement;
    Positions pos;
    bool windowed = false;
    float scale = 1;
    std::vector<float> slopes;        // ALiBi, per head
    detail::KeyRange keys;            // the run of keys each query row sees (mask and causal)
    std::vector<float> sinks;         // per head; empty: none
    std::vector<double> query_scales; // per query row; empty: no temperature

    // fast kernel state: rotated q rows (n + kMR padding rows) and packed key panels per head
    int64_t panels = 0;
    std::vector<float> q_near, q_far;
    std::vector<float> k_near, k_far; // packed key panels, per head
    // ALiBi: token positions rebased on the smallest, t - min, as floats padded to panels * kNR;
    // exact (and so are their differences) when every t - min is below 2^24 (alibi_exact).
    std::vector<float> tokf;
    bool alibi_exact = true;
    std::vector<int32_t> block_min, block_max; // token range per key panel
    std::vector<double> q_ref, k_ref, v_ref;   // reference kernel copies

    const float* packed(const std::vector<float>& k, int h, int64_t panel) const {
        return k.data() + ((static_cast<int64_t>(h) * panels + panel) * hd) * kNR;
    }
};

namespace {

Status check_request(const AttentionRequest& r) {
    if (!r.q) return Status::error("q is required");
    if (!r.k) return Status::error("k is required");
    if (r.n <= 0) return Status::error("n must be at least 1, got " + std::to_string(r.n));
    if (r.n > Limits::max_tokens)
        return Status::error("n must be at most " + std::to_string(Limits::max_tokens) + ", got " +
                             std::to_string(r.n));
    if (r.heads < 1 || r.heads > Limits::max_heads)
        return Status::error("heads must be in [1, " + std::to_string(Limits::max_heads) +
                             "], got " + std::to_string(r.heads));
    if (!std::isfinite(r.scale) || r.scale < 0)
        return Status::error("scale must be a finite number >= 0 (0 means 1/sqrt(headDim))");
    if (!std::isfinite(r.softcap) || r.softcap < 0)
        return Status::error("softcap must be a finite number >= 0 (0 means none)");
    Status st = check_causal(r.scheme.type, r.causal);
    if (st.ok()) st = check_attention_mask(r.mask_kind, r.window, r.chunk_size, r.causal);
    if (!st.ok() || !r.sinks) return st;
    for (int h = 0; h < r.heads; ++h)
        if (!std::isfinite(r.sinks[h]))
            return Status::error("sinks[" + std::to_string(h) + "] must be a finite number, got " +
                                 (std::isnan(r.sinks[h]) ? "NaN" : "an infinity"));
    return {};
}

} // namespace

AttentionPlan::AttentionPlan() : impl_(new Impl) {}
AttentionPlan::~AttentionPlan() {
    delete impl_;
}
int64_t AttentionPlan::n() const {
    return impl_->n;
}
int AttentionPlan::heads() const {
    return impl_->heads;
}

Status AttentionPlan::prepare(const AttentionRequest& r, Kernel kernel) {
    Impl& m = *impl_;
    m = Impl();
    Status st = check_request(r);
    if (!st.ok()) return st;
    st = detail::make_context(r.scheme, r.head_dim, r.n, r.positions, &m.ctx);
    if (!st.ok()) return st;
    m.keys.causal = r.causal;
    m.keys.n = r.n;
    st = layer_rows(r, &m.keys.starts, &m.query_scales);
    if (!st.ok()) {
        m = Impl();
        return st;
    }
    m.n = r.n;
    m.heads = r.heads;
    m.hd = r.head_dim;
    m.width = static_cast<int64_t>(r.heads) * r.head_dim;
    st = detail::check_finite(r.q, m.n * m.width, "q");
    if (st.ok()) st = detail::check_finite(r.k, m.n * m.width, "k");
    if (st.ok() && r.v) st = detail::check_finite(r.v, m.n * m.width, "v");
    if (!st.ok()) {
        m = Impl(); // unprepared
        return st;
    }

    m.req = r;
    m.kernel = kernel;
    m.token.assign(r.positions.token, r.positions.token + m.n);
    if (r.positions.unit) m.unit.assign(r.positions.unit, r.positions.unit + m.n);
    if (r.positions.statement)
        m.statement.assign(r.positions.statement, r.positions.statement + m.n);
    m.pos = Positions{m.token.data(), m.unit.empty() ? nullptr : m.unit.data(),
                      m.statement.empty() ? nullptr : m.statement.data()};
    m.windowed = is_windowed(r.scheme.type);
    m.scale = static_cast<float>(r.scale > 0 ? r.scale : 1.0 / std::sqrt(double(r.head_dim)));
    if (r.scheme.type == SchemeType::alibi) {
        for (double s : alibi_slopes(r.heads)) m.slopes.push_back(static_cast<float>(s));
    }
    if (r.sinks) m.sinks.assign(r.sinks, r.sinks + m.heads);

    if (kernel == Kernel::reference) {
        m.q_ref.assign(r.q, r.q + m.n * m.width);
        m.k_ref.assign(r.k, r.k + m.n * m.width);
        if (r.v) m.v_ref.assign(r.v, r.v + m.n * m.width);
        return {};
    }

    m.panels = kernels::panel_count(m.n);
    const int64_t qsize = (m.n + kMR) * m.width;
    std::vector<float> rows(m.n * m.width);
    auto prepare_branch = [&](Branch branch, std::vector<float>* q, std::vector<float>* k) {
        q->assign(qsize, 0.0f);
        Status rotated =
            detail::rotate_rows(m.ctx, m.pos, Role::query, branch, r.q, m.heads, q->data());
        if (rotated.ok())
            rotated =
                detail::rotate_rows(m.ctx, m.pos, Role::key, branch, r.k, m.heads, rows.data());
        if (!rotated.ok()) return rotated;
        // The temperature multiplies the query as it enters the product (Llama 4: after RoPE).
        if (!m.query_scales.empty())
            for (int64_t i = 0; i < m.n; ++i) {
                const float f = static_cast<float>(m.query_scales[i]);
                float* row = q->data() + i * m.width;
                for (int64_t c = 0; c < m.width; ++c) row[c] *= f;
            }
        k->resize(m.panels * kNR * m.width);
        for (int h = 0; h < m.heads; ++h)
            kernels::pack_panels(rows.data() + h * m.hd, m.n, m.width, m.hd,
                                 k->data() + static_cast<int64_t>(h) * m.panels * m.hd * kNR);
        return Status();
    };
    st = prepare_branch(Branch::near, &m.q_near, &m.k_near);
    if (st.ok() && m.windowed) st = prepare_branch(Branch::far, &m.q_far, &m.k_far);
    if (!st.ok()) {
        m = Impl();
        return st;
    }

    // ALiBi distances from positions rebased on the smallest: exact in float for any shift of
    // all positions (docs/schemes.md section 1.6).
    m.tokf.assign(m.panels * kNR, 0.0f);
    const int64_t origin = m.ctx.min_token;
    m.alibi_exact = static_cast<int64_t>(m.ctx.max_token) - origin < (int64_t{1} << 24);
    for (int64_t j = 0; j < m.n; ++j) m.tokf[j] = static_cast<float>(m.token[j] - origin);
    m.block_min.assign(m.panels, std::numeric_limits<int32_t>::max());
    m.block_max.assign(m.panels, std::numeric_limits<int32_t>::min());
    for (int64_t j = 0; j < m.n; ++j) {
        m.block_min[j / kNR] = std::min(m.block_min[j / kNR], m.token[j]);
        m.block_max[j / kNR] = std::max(m.block_max[j / kNR], m.token[j]);
    }
    return {};
}

namespace {

// Fills out rows [r0, r1) x [0, n) of one head with scaled logits (+ ALiBi bias), choosing near or
// far per element for windowed schemes; masked entries are left untouched or hold values (callers
// fill them). Key panels wholly before the rows' mask start (a sliding window, a chunk) are
// skipped.
void fast_logits(const AttentionPlan::Impl& m, int h, int64_t r0, int64_t r1, float* out) {
    const int64_t n = m.n;
    const int hd = m.hd;
    const bool causal = m.req.causal;
    const float slope = m.slopes.empty() ? 0.0f : m.slopes[h];
    const int64_t window = m.req.scheme.window;
    alignas(16) float tile[kMR * kNR];
    alignas(16) float tile_far[kMR * kNR];

    for (int64_t i0 = r0; i0 < r1; i0 += kMR) {
        const int rows = static_cast<int>(std::min<int64_t>(kMR, r1 - i0));
        const int64_t last_row = i0 + rows - 1;
        const int64_t jend = causal ? last_row + 1 : n;
        const int64_t jbegin = m.keys.first(i0); // first is non-decreasing in the row
        int32_t tmin = m.token[i0], tmax = m.token[i0];
        for (int r = 1; r < rows; ++r) {
            tmin = std::min(tmin, m.token[i0 + r]);
            tmax = std::max(tmax, m.token[i0 + r]);
        }
        const float* qn = m.q_near.data() + i0 * m.width + static_cast<int64_t>(h) * hd;
        const float* qf =
            m.windowed ? m.q_far.data() + i0 * m.width + static_cast<int64_t>(h) * hd : nullptr;
        for (int64_t p = jbegin / kNR; p * kNR < jend; ++p) {
            const int64_t j0 = p * kNR;
            bool need_near = true, need_far = false;
            if (m.windowed) {
                const int64_t dmax = static_cast<int64_t>(tmax) - m.block_min[p];
                const int64_t dmin = static_cast<int64_t>(tmin) - m.block_max[p];
                need_near = dmin < window;
                need_far = dmax >= window;
            }
            if (need_near) kernels::gemm_tile(qn, m.width, m.packed(m.k_near, h, p), kNR, hd, tile);
            if (need_far)
                kernels::gemm_tile(qf, m.width, m.packed(m.k_far, h, p), kNR, hd, tile_far);
            const bool full = j0 + kNR <= n && (!causal || j0 + kNR - 1 <= i0) && rows == kMR &&
                              (slope == 0.0f || m.alibi_exact);
            if (full && !(need_near && need_far)) {
                kernels::logits_tile(need_near ? tile : tile_far, m.scale, slope,
                                     m.tokf.data() + i0, m.tokf.data() + j0,
                                     out + (i0 - r0) * n + j0, n);
                continue;
            }
            for (int r = 0; r < rows; ++r) {
                const int64_t i = i0 + r;
                const int64_t jmax = std::min<int64_t>(causal ? i + 1 : n, j0 + kNR);
                float* o = out + (i - r0) * n;
                for (int64_t j = std::max(j0, m.keys.first(i)); j < jmax; ++j) {
                    const int l = static_cast<int>(j - j0);
                    bool near =
                        !need_far ||
                        (need_near && static_cast<int64_t>(m.token[i]) - m.token[j] < window);
                    float v = (near ? tile[r * kNR + l] : tile_far[r * kNR + l]) * m.scale;
                    // The distance as an exact integer, rounded to float once.
                    if (slope != 0.0f)
                        v -= slope * static_cast<float>(
                                         std::llabs(static_cast<int64_t>(m.token[i]) - m.token[j]));
                    o[j] = v;
                }
            }
        }
    }
}

// Logits or probabilities for rows [r0, r1) of one head; the row range is already checked.
Status strip(const AttentionPlan::Impl& m, int head, int64_t r0, int64_t r1, bool probs,
             float* out) {
    const int64_t n = m.n;
    if (m.kernel == Kernel::reference) {
        detail::reference_logits(m.ctx, m.pos, m.q_ref.data(), m.k_ref.data(), m.heads, head,
                                 m.keys, m.query_scales.empty() ? nullptr : m.query_scales.data(),
                                 m.scale, m.slopes.empty() ? 0.0 : m.slopes[head], m.req.softcap,
                                 r0, r1, out);
    } else {
        fast_logits(m, head, r0, r1, out);
        // Soft-capping (Gemma 2) on the scaled logits, before the mask and the softmax.
        if (m.req.softcap > 0) {
            const double cap = m.req.softcap;
            for (int64_t i = r0; i < r1; ++i) {
                float* o = out + (i - r0) * n;
                for (int64_t j = m.keys.first(i), end = m.keys.end(i); j < end; ++j)
                    if (std::isfinite(o[j])) o[j] = static_cast<float>(cap * std::tanh(o[j] / cap));
            }
        }
    }
    const float masked = probs ? 0.0f : -std::numeric_limits<float>::infinity();
    const float sink = m.sinks.empty() ? -std::numeric_limits<float>::infinity() : m.sinks[head];
    for (int64_t i = r0; i < r1; ++i) {
        float* o = out + (i - r0) * n;
        const int64_t first = m.keys.first(i), end = m.keys.end(i);
        const size_t len = static_cast<size_t>(end - first);
        bool finite;
        if (!probs)
            finite = kernels::all_finite(o + first, len);
        else if (m.kernel == Kernel::reference)
            finite = detail::reference_softmax(o + first, end - first, sink);
        else
            finite = kernels::softmax_row(o + first, len, sink);
        if (!finite)
            return Status::error("logits overflow the float range at row " + std::to_string(i) +
                                 " (q and k values are too large)");
        std::fill(o, o + first, masked);
        std::fill(o + end, o + n, masked);
    }
    return {};
}

Status check_rows(const AttentionPlan::Impl& m, int64_t r0, int64_t r1) {
    if (m.n == 0) return Status::error("the attention plan is not prepared");
    if (r0 < 0 || r1 > m.n || r0 >= r1)
        return Status::error("row range [" + std::to_string(r0) + ", " + std::to_string(r1) +
                             ") is not inside [0, " + std::to_string(m.n) + ")");
    return {};
}

} // namespace

Status AttentionPlan::rows(int head, int64_t r0, int64_t r1, float* out) const {
    const Impl& m = *impl_;
    Status st = check_rows(m, r0, r1);
    if (!st.ok()) return st;
    if (head < 0 || head >= m.heads)
        return Status::error("head must be in [0, " + std::to_string(m.heads) + "), got " +
                             std::to_string(head));
    return strip(m, head, r0, r1, m.req.output == Output::probs, out);
}

Status AttentionPlan::output_rows(int64_t r0, int64_t r1, float* out) const {
    const Impl& m = *impl_;
    Status st = check_rows(m, r0, r1);
    if (!st.ok()) return st;
    if (!m.req.v) return Status::error("v is required for the attention output");
    const int64_t n = m.n, hd = m.hd;
    // The probabilities are an n-wide scratch: it holds a few rows at a time (at most
    // kOutputStripElements floats whatever n and the row range are), so an output of n x width
    // never costs n x n (at n = 32,768 that was 4 GiB, which the WASM heap cannot hold).
    const int64_t step = std::max<int64_t>(1, kOutputStripElements / n - kMR);
    // Padded with kMR zero rows so the micro-kernel can overrun.
    std::vector<float> probs((std::min(step, r1 - r0) + kMR) * n, 0.0f);
    for (int64_t s0 = r0; s0 < r1; s0 += step) {
        const int64_t s1 = std::min(r1, s0 + step), rows = s1 - s0;
        float* strip_out = out + (s0 - r0) * m.width;
        for (int h = 0; h < m.heads; ++h) {
            st = strip(m, h, s0, s1, true, probs.data());
            if (!st.ok()) return st;
            // The rows past this strip's are zero for the micro-kernel (a shorter last strip).
            std::fill(probs.begin() + rows * n, probs.end(), 0.0f);
            float* o = strip_out + h * hd;
            if (m.kernel == Kernel::reference) {
                const int64_t depth = m.req.causal ? s1 : n;
                detail::reference_output(probs.data(), n, m.v_ref.data() + h * hd, m.width, rows,
                                         depth, hd, o, m.width);
                continue;
            }
            const float* v = m.req.v + h * hd;
            for (int64_t i0 = 0; i0 < rows; i0 += kMR) {
                const int rcount = static_cast<int>(std::min<int64_t>(kMR, rows - i0));
                const int64_t kdepth = m.req.causal ? s0 + i0 + rcount : n;
                const int64_t kfirst = m.keys.first(s0 + i0); // the keys before are masked (0)
                kernels::gemm_rows(probs.data() + i0 * n + kfirst, n, v + kfirst * m.width, m.width,
                                   static_cast<int>(kdepth - kfirst), rcount, hd, o + i0 * m.width,
                                   m.width);
            }
        }
    }
    return {};
}

const char* kernel_name() {
    return simd::kName;
}

Status check_matrix_output(int64_t heads, int64_t rows, int64_t n) {
    const double elements = static_cast<double>(heads) * static_cast<double>(rows) * n;
    if (elements > static_cast<double>(Limits::max_output_elements))
        return Status::error("heads * " + std::string(rows < n ? "rows" : "n") +
                             " * n = " + std::to_string(static_cast<int64_t>(elements)) +
                             " exceeds the output limit of " +
                             std::to_string(Limits::max_output_elements) + " elements");
    return {};
}

Status attention(const AttentionRequest& request, float* out, Kernel kernel) {
    Status st = check_matrix_output(request.heads, request.n, request.n);
    if (!st.ok()) return st;
    AttentionPlan plan;
    st = plan.prepare(request, kernel);
    if (!st.ok()) return st;
    for (int h = 0; h < request.heads; ++h) {
        st = plan.rows(h, 0, request.n, out + static_cast<int64_t>(h) * request.n * request.n);
        if (!st.ok()) return st;
    }
    return {};
}

} // namespace hirope
