// Mean pooling of attention matrices into display grids (see hirope.h). One pass per row: its
// maximum (vectorised), then one sum per cell; the relative sum is the raw sum over the maximum,
// so each entry is read twice and added once.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "hirope/hirope.h"
#include "kernels/vector.h"

namespace hirope {
namespace {

// First matrix index of cell `cell` when `span` indices from `begin` fill `cells` cells.
int64_t edge(int64_t begin, int64_t span, int64_t cells, int64_t cell) {
    return begin + (cell * span + cells - 1) / cells;
}

// The error for row i, which holds a NaN or an infinity among its first `valid` entries.
Status not_finite(const float* row, int64_t i, int64_t valid) {
    int64_t j = 0;
    while (j < valid && std::isfinite(row[j])) ++j;
    const char* what = j < valid && std::isnan(row[j]) ? "NaN" : "an infinity";
    return Status::error("pool: the matrix holds " + std::string(what) + " at row " +
                         std::to_string(i) + ", column " + std::to_string(j) +
                         " (entries must be finite)");
}

} // namespace

Status validate(const PoolGrid& g) {
    if (g.n < 1) return Status::error("pool: n must be at least 1");
    if (g.row_begin < 0 || g.row_end > g.n || g.row_begin >= g.row_end) {
        return Status::error("pool: the region's rows must satisfy 0 <= r0 < r1 <= n");
    }
    if (g.col_begin < 0 || g.col_end > g.n || g.col_begin >= g.col_end) {
        return Status::error("pool: the region's columns must satisfy 0 <= c0 < c1 <= n");
    }
    if (g.rows < 1 || g.rows > g.row_end - g.row_begin) {
        return Status::error("pool: rows must be from 1 to the region's row count");
    }
    if (g.cols < 1 || g.cols > g.col_end - g.col_begin) {
        return Status::error("pool: cols must be from 1 to the region's column count");
    }
    return {};
}

Status pool_rows(const PoolGrid& g, const float* data, int64_t first, int64_t last, bool causal,
                 float* ratio_sum, float* raw_sum, float* row_max) {
    Status status = validate(g);
    if (!status.ok()) return status;
    if (first < 0 || last > g.n || first > last) return Status::error("pool: bad row range");
    const int64_t row_span = g.row_end - g.row_begin;
    const int64_t col_span = g.col_end - g.col_begin;
    std::vector<int64_t> col_edge(static_cast<size_t>(g.cols) + 1);
    for (int64_t x = 0; x <= g.cols; ++x) col_edge[x] = edge(g.col_begin, col_span, g.cols, x);
    for (int64_t i = first; i < last; ++i) {
        const float* row = data + (i - first) * g.n;
        const int64_t valid = causal ? i + 1 : g.n; // entries [0, valid) are unmasked
        // A NaN would vanish in the maximum and spread through a cell's mean: an error instead.
        if (!kernels::all_finite(row, static_cast<size_t>(valid))) return not_finite(row, i, valid);
        const float m = kernels::max_nonnegative(row, valid);
        if (row_max) row_max[i] = m;
        if (i < g.row_begin || i >= g.row_end) continue;
        const float inverse = m > 0.0f ? 1.0f / m : 0.0f;
        const int64_t y = ((i - g.row_begin) * g.rows) / row_span;
        float* ratio = ratio_sum + y * g.cols;
        float* raw = raw_sum + y * g.cols;
        for (int64_t x = 0; x < g.cols; ++x) {
            const int64_t from = col_edge[x];
            const int64_t to = std::min(col_edge[x + 1], valid);
            if (from >= to) break; // the rest of the row is masked
            const float s = kernels::sum(row + from, to - from);
            raw[x] += s;
            ratio[x] += s * inverse;
        }
    }
    return {};
}

void pool_finish(const PoolGrid& g, float* ratio_sum, float* raw_sum) {
    const int64_t row_span = g.row_end - g.row_begin;
    const int64_t col_span = g.col_end - g.col_begin;
    for (int64_t y = 0; y < g.rows; ++y) {
        const int64_t height = edge(0, row_span, g.rows, y + 1) - edge(0, row_span, g.rows, y);
        for (int64_t x = 0; x < g.cols; ++x) {
            const int64_t width = edge(0, col_span, g.cols, x + 1) - edge(0, col_span, g.cols, x);
            const float scale = 1.0f / static_cast<float>(height * width);
            ratio_sum[y * g.cols + x] *= scale;
            raw_sum[y * g.cols + x] *= scale;
        }
    }
}

} // namespace hirope
