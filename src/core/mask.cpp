// A layer's attention beyond its scheme (hirope.h): masks (full, sliding, chunked) and the query
// temperature, with their checks. The meaning is transformers' (docs/real-models.md).
#include "hirope/hirope.h"

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

bool mask_sees(AttentionKind kind, int64_t window, int64_t chunk_size, int64_t query, int64_t key) {
    if (key > query) return false;
    switch (kind) {
    case AttentionKind::full:
        return true;
    case AttentionKind::sliding:
        return query - key < window;
    case AttentionKind::chunked:
        return chunk_size > 0 && query / chunk_size == key / chunk_size;
    }
    return false;
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

Status check_query_temperature(const QueryTemperature& t, int64_t n) {
    if (!t.enabled) return {};
    auto num = [](double v) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.17g", v);
        return std::string(buf);
    };
    if (!std::isfinite(t.floor_scale) || t.floor_scale <= 0)
        return Status::error("temperature.floorScale must be a finite number > 0, got " +
                             num(t.floor_scale));
    if (!std::isfinite(t.scale) || t.scale < 0)
        return Status::error("temperature.scale must be a finite number >= 0, got " + num(t.scale));
    if (t.offset < 0 || t.offset > (int64_t{1} << 53))
        return Status::error("temperature.offset must be an integer in [0, 2^53], got " +
                             std::to_string(t.offset));
    // The factor grows with the position: the last one is the largest.
    const double last = query_scale(t, n > 0 ? n - 1 : 0);
    if (!(last <= std::numeric_limits<float>::max()))
        return Status::error("temperature: the query factor at position " +
                             std::to_string(n > 0 ? n - 1 : 0) + " is " + num(last) +
                             ", beyond the float range (temperature.scale is too large)");
    return {};
}

} // namespace hirope
