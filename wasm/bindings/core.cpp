// Embind glue of the core (hirope_core): attention plans, inverse frequencies, bands, rotation,
// relative distances, pooling, seeded vectors, the core's limits and the heap's statistics.
#include "common.h"
#include "hirope/hirope.h"

#include <string>
#include <vector>

#include <emscripten/bind.h>
#include <emscripten/heap.h>
#include <emscripten/val.h>
#include <malloc.h>

// dlmalloc's peak of bytes taken from the system (emscripten's malloc; no header declares it).
extern "C" size_t malloc_max_footprint(void);

using emscripten::val;
using namespace hirope;
using namespace hirope::bindings;

namespace {

// The heap: bytes in use now (mallinfo walks the heap: for hr.memory(), never per operation), the
// most malloc has held, the memory's size, the ceiling the core derives its limits from, and the
// memory maximum this module was linked with (the two must agree: tests/js check it).
val heapStats() {
    val o = val::object();
    o.set("inUseBytes", static_cast<double>(mallinfo().uordblks));
    o.set("peakBytes", static_cast<double>(malloc_max_footprint()));
    o.set("memoryBytes", static_cast<double>(emscripten_get_heap_size()));
    o.set("reserveBytes", static_cast<double>(HeapCeiling::reserve));
    o.set("ceilingBytes", static_cast<double>(HeapCeiling::bytes));
    o.set("linkedMaximumBytes", static_cast<double>(emscripten_get_heap_max()));
    return o;
}

// A query temperature from the JS call's numbers (enabled false: none).
QueryTemperature to_temperature(bool enabled, double floor_scale, double scale, double offset) {
    QueryTemperature t;
    t.enabled = enabled;
    t.floor_scale = floor_scale;
    t.scale = scale;
    t.offset = static_cast<int64_t>(offset);
    return t;
}

// A prepared attention held by the JS side between strip calls.
class Plan {
  public:
    std::string prepare(val scheme, uintptr_t q, uintptr_t k, uintptr_t v, double n, int head_dim,
                        int heads, uintptr_t token, uintptr_t unit, uintptr_t statement,
                        bool causal, int output, double scale, int kernel, std::string mask,
                        double window, double chunk_size, uintptr_t sinks, bool temperature,
                        double floor_scale, double temperature_scale, double offset,
                        double softcap) {
        AttentionRequest r;
        r.q = ptr<const float>(q);
        r.k = ptr<const float>(k);
        r.v = ptr<const float>(v);
        r.n = static_cast<int64_t>(n);
        r.head_dim = head_dim;
        r.heads = heads;
        r.positions = to_positions(token, unit, statement);
        r.scheme = to_scheme(scheme);
        r.causal = causal;
        r.output = static_cast<Output>(output);
        r.scale = scale;
        if (!attention_kind_from_name(mask, &r.mask_kind)) return unknown_mask_message(mask);
        r.window = static_cast<int64_t>(window);
        r.chunk_size = static_cast<int64_t>(chunk_size);
        r.sinks = sinks ? ptr<const float>(sinks) : nullptr;
        r.temperature = to_temperature(temperature, floor_scale, temperature_scale, offset);
        r.softcap = softcap;
        return plan_.prepare(r, static_cast<Kernel>(kernel)).message();
    }
    std::string rows(int head, double r0, double r1, uintptr_t out) const {
        return plan_.rows(head, static_cast<int64_t>(r0), static_cast<int64_t>(r1), ptr<float>(out))
            .message();
    }
    std::string outputRows(double r0, double r1, uintptr_t out) const {
        return plan_
            .output_rows(static_cast<int64_t>(r0), static_cast<int64_t>(r1), ptr<float>(out))
            .message();
    }

  private:
    AttentionPlan plan_;
};

val inverseFrequencies(val scheme, int head_dim, double seq_len) {
    std::vector<double> f;
    Status st = inverse_frequencies(to_scheme(scheme), head_dim, static_cast<int64_t>(seq_len), &f);
    val out = val::object();
    out.set("error", result(st));
    if (st.ok()) {
        val arr = val::global("Float64Array").new_(f.size());
        arr.call<void>("set", val(emscripten::typed_memory_view(f.size(), f.data())));
        out.set("values", arr);
        out.set("attentionFactor",
                attention_factor(to_scheme(scheme), static_cast<int64_t>(seq_len)));
    }
    return out;
}

val bandList(val scheme, int head_dim) {
    const Scheme s = to_scheme(scheme);
    val out = val::object();
    Status st = validate(s, head_dim);
    out.set("error", result(st));
    val list = val::array();
    if (st.ok()) {
        for (const Band& b : bands(s, head_dim)) {
            val item = val::object();
            item.set("name", b.name);
            item.set("pairBegin", b.pair_begin);
            item.set("pairEnd", b.pair_end);
            list.call<void>("push", item);
        }
    }
    out.set("bands", list);
    return out;
}

val splitFraction(double training_length, double base) {
    double f = 0;
    Status st = split_fraction_checked(training_length, base, &f);
    val out = val::object();
    out.set("error", result(st));
    if (st.ok()) out.set("value", f);
    return out;
}

val splitBound(val scheme, int head_dim) {
    SplitBound b;
    Status st = split_bound(to_scheme(scheme), head_dim, &b);
    val out = val::object();
    out.set("error", result(st));
    if (st.ok()) {
        out.set("split", b.split);
        out.set("pairs", b.pairs);
        out.set("tokenPairs", b.token_pairs);
        out.set("maxTokenPairs", b.max_token_pairs);
        out.set("over", b.over);
    }
    return out;
}

val alibiSlopes(int heads) {
    std::vector<double> s = alibi_slopes(heads);
    val arr = val::global("Float64Array").new_(s.size());
    arr.call<void>("set", val(emscripten::typed_memory_view(s.size(), s.data())));
    return arr;
}

std::string relativeDistances(val scheme, int head_dim, double n, uintptr_t token, uintptr_t unit,
                              uintptr_t statement, int band, uintptr_t out) {
    return relative_distances(to_scheme(scheme), head_dim, static_cast<int64_t>(n),
                              to_positions(token, unit, statement), band, ptr<float>(out))
        .message();
}

std::string rotateRows(val scheme, int head_dim, int heads, double n, uintptr_t token,
                       uintptr_t unit, uintptr_t statement, int role, int branch, uintptr_t x,
                       uintptr_t out) {
    return rotate(to_scheme(scheme), head_dim, heads, static_cast<int64_t>(n),
                  to_positions(token, unit, statement), static_cast<Role>(role),
                  static_cast<Branch>(branch), ptr<const float>(x), ptr<float>(out))
        .message();
}

std::string transformCoefficients(val scheme, int head_dim, double n, uintptr_t token,
                                  uintptr_t unit, uintptr_t statement, int role, int branch,
                                  uintptr_t a, uintptr_t b, uintptr_t c, uintptr_t partner) {
    return transform_coefficients(to_scheme(scheme), head_dim, static_cast<int64_t>(n),
                                  to_positions(token, unit, statement), static_cast<Role>(role),
                                  static_cast<Branch>(branch), ptr<float>(a), ptr<float>(b),
                                  ptr<float>(c), ptr<int32_t>(partner))
        .message();
}

// grid: [n, r0, r1, c0, c1, rows, cols] as a JS array.
PoolGrid to_grid(const val& grid) {
    PoolGrid g;
    g.n = static_cast<int64_t>(grid[0].as<double>());
    g.row_begin = static_cast<int64_t>(grid[1].as<double>());
    g.row_end = static_cast<int64_t>(grid[2].as<double>());
    g.col_begin = static_cast<int64_t>(grid[3].as<double>());
    g.col_end = static_cast<int64_t>(grid[4].as<double>());
    g.rows = static_cast<int64_t>(grid[5].as<double>());
    g.cols = static_cast<int64_t>(grid[6].as<double>());
    return g;
}

std::string poolRows(val grid, uintptr_t data, double first, double last, bool causal,
                     uintptr_t ratio, uintptr_t raw, uintptr_t row_max) {
    const PoolGrid g = to_grid(grid);
    return pool_rows(g, ptr<const float>(data), static_cast<int64_t>(first),
                     static_cast<int64_t>(last), causal, ptr<float>(ratio), ptr<float>(raw),
                     row_max ? ptr<float>(row_max) : nullptr)
        .message();
}

void poolFinish(val grid, uintptr_t ratio, uintptr_t raw) {
    const PoolGrid g = to_grid(grid);
    pool_finish(g, ptr<float>(ratio), ptr<float>(raw));
}

std::string longTermDecay(val scheme, int head_dim, double max_distance, uintptr_t out) {
    return long_term_decay(to_scheme(scheme), head_dim, static_cast<int64_t>(max_distance),
                           ptr<float>(out))
        .message();
}

void seededVectors(double seed, uintptr_t ids, double n, double row_width, int role,
                   uintptr_t out) {
    seeded_vectors(static_cast<uint64_t>(seed), ptr<const int32_t>(ids), static_cast<int64_t>(n),
                   static_cast<int64_t>(row_width), role, ptr<float>(out));
}

val limits() {
    val o = val::object();
    o.set("maxTokens", static_cast<double>(Limits::max_tokens));
    o.set("maxHeadDim", static_cast<double>(Limits::max_head_dim));
    o.set("maxHeads", static_cast<double>(Limits::max_heads));
    o.set("maxOutputElements", static_cast<double>(Limits::max_output_elements));
    return o;
}

// The window rule's causal check, for the executors that do not reach AttentionPlan::prepare.
std::string causalRule(int type, bool causal) {
    return check_causal(static_cast<SchemeType>(type), causal).message();
}

// A layer's mask and temperature checked by the core (layer_rows), for every executor (the WebGPU
// path never reaches AttentionPlan::prepare), with the per-row values the GPU kernels read:
// { error: "" or the message, starts: Int32Array (each query row's first key row) or null for
// full attention, queryScales: Float32Array (the temperature's factor per row) or null }.
val layerRows(std::string mask, double window, double chunk_size, bool causal, bool temperature,
              double floor_scale, double temperature_scale, double offset, val tokens) {
    val out = val::object();
    out.set("starts", val::null());
    out.set("queryScales", val::null());
    AttentionRequest r;
    if (!attention_kind_from_name(mask, &r.mask_kind)) {
        out.set("error", unknown_mask_message(mask));
        return out;
    }
    const std::vector<int32_t> token = emscripten::convertJSArrayToNumberVector<int32_t>(tokens);
    r.n = static_cast<int64_t>(token.size());
    r.positions.token = token.data();
    r.window = static_cast<int64_t>(window);
    r.chunk_size = static_cast<int64_t>(chunk_size);
    r.causal = causal;
    r.temperature = to_temperature(temperature, floor_scale, temperature_scale, offset);
    std::vector<int64_t> starts;
    std::vector<double> factors;
    Status st = layer_rows(r, &starts, &factors);
    out.set("error", st.message());
    if (!st.ok()) return out;
    // As the GPU buffers read them: n <= Limits::max_tokens fits an int32, factors are floats.
    if (!starts.empty())
        out.set("starts",
                typed_copy("Int32Array", std::vector<int32_t>(starts.begin(), starts.end())));
    if (!factors.empty())
        out.set("queryScales",
                typed_copy("Float32Array", std::vector<float>(factors.begin(), factors.end())));
    return out;
}

std::string kernelName() {
    return kernel_name();
}

} // namespace

EMSCRIPTEN_BINDINGS(hirope_core) {
    emscripten::class_<Plan>("Plan")
        .constructor<>()
        .function("prepare", &Plan::prepare)
        .function("rows", &Plan::rows)
        .function("outputRows", &Plan::outputRows);
    emscripten::function("inverseFrequencies", &inverseFrequencies);
    emscripten::function("bands", &bandList);
    emscripten::function("alibiSlopes", &alibiSlopes);
    emscripten::function("splitFraction", &splitFraction);
    emscripten::function("splitBound", &splitBound);
    emscripten::function("relativeDistances", &relativeDistances);
    emscripten::function("rotate", &rotateRows);
    emscripten::function("longTermDecay", &longTermDecay);
    emscripten::function("poolRows", &poolRows);
    emscripten::function("poolFinish", &poolFinish);
    emscripten::function("transformCoefficients", &transformCoefficients);
    emscripten::function("seededVectors", &seededVectors);
    emscripten::function("limits", &limits);
    emscripten::function("heapStats", &heapStats);
    emscripten::function("kernelName", &kernelName);
    emscripten::function("causalRule", &causalRule);
    emscripten::function("layerRows", &layerRows);
    emscripten::function("unknownMaskMessage", &unknown_mask_message);
}
