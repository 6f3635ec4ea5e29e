// A layer's attention beyond its scheme (hirope.h): masks (full, sliding, chunked) and the query
// temperature, with their checks. The meaning is transformers' (docs/real-models.md).
#include "core/internal.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

namespace hirope {

const char* attention_kind_name(AttentionKind kind) {
    switch (kind) {
    case AttentionKind::full:
        return "full";
    case AttentionKind::sliding:
        return "sliding";
    case AttentionKind::chunked:
        return "chunked";
    }
    return "?";
}

bool attention_kind_from_name(const std::string& name, AttentionKind* kind) {
    for (AttentionKind k : {AttentionKind::full, AttentionKind::sliding, AttentionKind::chunked}) {
        if (name == attention_kind_name(k)) {
            *kind = k;
            return true;
        }
    }
    return false;
}

std::string unknown_mask_message(const std::string& name) {
    if (name == "linear")
        return "mask 'linear' is a linear-attention layer (Qwen3-Next's Gated DeltaNet): it has no "
               "RoPE and no softmax attention map to compute; pick a full, sliding or chunked "
               "layer";
    return "mask.type must be 'full', 'sliding' or 'chunked', got '" + name + "'";
}

namespace {

// floor(x / d) for d > 0, also for negative positions (C++ division truncates).
int64_t floor_div(int64_t x, int64_t d) {
    const int64_t q = x / d;
    return q * d > x ? q - 1 : q;
}

} // namespace

bool mask_sees(AttentionKind kind, int64_t window, int64_t chunk_size, int64_t query, int64_t key) {
    if (key > query) return false;
    switch (kind) {
    case AttentionKind::full:
        return true;
    case AttentionKind::sliding:
        return query - key < window;
    case AttentionKind::chunked:
        return chunk_size > 0 && floor_div(query, chunk_size) == floor_div(key, chunk_size);
    }
    return false;
}

Status attention_key_starts(AttentionKind kind, int64_t window, int64_t chunk_size,
                            const int32_t* token, int64_t n, int64_t* starts) {
    if (kind == AttentionKind::full) {
        std::fill(starts, starts + n, int64_t{0});
        return {};
    }
    if ((kind == AttentionKind::sliding && window < 1) ||
        (kind == AttentionKind::chunked && chunk_size < 1))
        return check_attention_mask(kind, window, chunk_size, true);
    for (int64_t i = 1; i < n; ++i)
        if (token[i] < token[i - 1])
            return Status::error(std::string("mask '") + attention_kind_name(kind) +
                                 "' follows the tokens' positions, which must not decrease (as a "
                                 "sequence's cache positions): positions.token[" +
                                 std::to_string(i) + "] = " + std::to_string(token[i]) +
                                 " comes after " + std::to_string(token[i - 1]));
    // The smallest position a query sees grows with the query's, so one pass finds every start.
    int64_t j = 0;
    for (int64_t i = 0; i < n; ++i) {
        const int64_t q = token[i];
        const int64_t lowest =
            kind == AttentionKind::sliding ? q - window + 1 : floor_div(q, chunk_size) * chunk_size;
        while (j < i && token[j] < lowest) ++j;
        starts[i] = j;
    }
    return {};
}

Status check_attention_mask(AttentionKind kind, int64_t window, int64_t chunk_size, bool causal) {
    switch (kind) {
    case AttentionKind::full:
        return {};
    case AttentionKind::sliding:
        if (window < 1)
            return Status::error("mask.window must be an integer >= 1, got " +
                                 std::to_string(window));
        break;
    case AttentionKind::chunked:
        if (chunk_size < 1)
            return Status::error("mask.chunkSize must be an integer >= 1, got " +
                                 std::to_string(chunk_size));
        break;
    default:
        return Status::error("mask.type must be 'full', 'sliding' or 'chunked'");
    }
    if (!causal)
        return Status::error(std::string("mask '") + attention_kind_name(kind) +
                             "' is causal (its keys come before the query): it needs causal "
                             "attention");
    return {};
}

double query_scale(const QueryTemperature& t, int64_t position) {
    if (!t.enabled) return 1.0;
    return 1.0 +
           t.scale *
               std::log(std::floor(static_cast<double>(position + t.offset) / t.floor_scale) + 1.0);
}

Status check_query_temperature(const QueryTemperature& t, int64_t end) {
    if (!t.enabled) return {};
    const auto num = detail::exact_text;
    if (!std::isfinite(t.floor_scale) || t.floor_scale <= 0)
        return Status::error("temperature.floorScale must be a finite number > 0, got " +
                             num(t.floor_scale));
    if (!std::isfinite(t.scale) || t.scale < 0)
        return Status::error("temperature.scale must be a finite number >= 0, got " + num(t.scale));
    if (t.offset < 0 || t.offset > (int64_t{1} << 53))
        return Status::error("temperature.offset must be an integer in [0, 2^53], got " +
                             std::to_string(t.offset));
    // The factor grows with the position: the last one is the largest.
    const double last = query_scale(t, end > 0 ? end - 1 : 0);
    if (!(last <= std::numeric_limits<float>::max()))
        return Status::error("temperature: the query factor at position " +
                             std::to_string(end > 0 ? end - 1 : 0) + " is " + num(last) +
                             ", beyond the float range (temperature.scale is too large)");
    return {};
}

Status layer_rows(const AttentionRequest& r, std::vector<int64_t>* starts,
                  std::vector<double>* query_factors) {
    starts->clear();
    query_factors->clear();
    if (r.n < 1 || !r.positions.token)
        return Status::error("a layer's mask and temperature need n >= 1 and positions.token");
    Status st = check_attention_mask(r.mask_kind, r.window, r.chunk_size, r.causal);
    if (!st.ok()) return st;
    const int32_t* token = r.positions.token;
    if (r.temperature.enabled) {
        // The temperature follows the query's position (transformers' cache_position).
        const int32_t lowest = *std::min_element(token, token + r.n);
        const int32_t highest = *std::max_element(token, token + r.n);
        if (lowest < 0)
            return Status::error("temperature follows the tokens' positions, which must be >= 0, "
                                 "got positions.token = " +
                                 std::to_string(lowest));
        st = check_query_temperature(r.temperature, static_cast<int64_t>(highest) + 1);
        if (!st.ok()) return st;
    }
    if (r.mask_kind != AttentionKind::full) {
        starts->resize(static_cast<size_t>(r.n));
        st = attention_key_starts(r.mask_kind, r.window, r.chunk_size, token, r.n, starts->data());
        if (!st.ok()) {
            starts->clear();
            return st;
        }
    }
    if (r.temperature.enabled) {
        query_factors->resize(static_cast<size_t>(r.n));
        for (int64_t i = 0; i < r.n; ++i)
            (*query_factors)[i] = query_scale(r.temperature, token[i]);
    }
    return {};
}

} // namespace hirope
