// hirope's code models: small decoders trained with RoPE (training/train.py) on bytes or on the
// tokens of one of hirope's tokenizers, run in C++ with any of hirope's position schemes applied
// at inference only.
//
// Architecture (fixed by format version 1): token embedding (256 bytes, or the vocabulary the
// file names; tied with the output layer), then
// `layers` pre-norm blocks of RMSNorm -> causal multi-head attention (q, k, v from one matrix,
// scheme applied to q and k in the half-split layout) -> output projection, and RMSNorm ->
// SwiGLU (w2 (silu(w1 x) * w3 x)); a final RMSNorm. The weights file is described in
// docs/model.md. Attention runs on hirope's own plans and kernels (src/core/attention.cpp); the
// linear layers on the same 4-lane micro-kernel over packed weight panels. A forward is the
// decoder's block step over all its bytes at once (src/model/decoder.cpp).
//
// Errors are returned as Status. A model is immutable after load and may be shared by threads;
// a Decoder (the KV cache) belongs to one caller.
#pragma once

#include "hirope/analysis.h"
#include "hirope/hirope.h"

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace hirope {
struct ModelSetup;
namespace checkpoint {
struct CheckpointPlan;
struct CheckpointFolder;
} // namespace checkpoint
namespace model {

constexpr uint32_t kFormatVersion = 1;

struct ModelLimits {
    static constexpr int64_t max_input_bytes = 8192;     // bytes (tokens) per forward or generation
    static constexpr int max_vocab = 1 << 20;            // a token model's vocabulary
    static constexpr size_t max_file_bytes = 256u << 20; // weights file
    static constexpr int max_layers = 64, max_d_model = 4096, max_ffn = 16384;
};

struct Config {
    uint32_t version = 0;
    int vocab = 0, d_model = 0, layers = 0, heads = 0, ffn_hidden = 0;
    int training_context = 0; // the context length it was trained at (L for Split%, windows)
    float rope_base = 10000, norm_eps = 1e-5f;
    std::string name;
    // Empty for a byte model (vocab 256); else the name of the tokenizer whose ids it reads
    // (flag 2 of the file), e.g. "llama2": its ids must be below vocab.
    std::string tokenizer;
    // A checkpoint's (Model::from_checkpoint): key/value heads (grouped-query attention; 0: heads)
    // and the head dim when it is not d_model / heads (0: that). A weights file has neither.
    int kv_heads = 0, head_size = 0;
    int head_dim() const { return head_size > 0 ? head_size : d_model / heads; }
    int kv_head_count() const { return kv_heads > 0 ? kv_heads : heads; }
    int64_t parameters() const;
};

// The weights file's header only (no tensors): for showing what a file is before loading it.
Status read_config(const uint8_t* data, size_t size, Config* out);

// How byte positions get their hierarchy (HiRoPE): top-level units or statements from a
// tree-sitter parse, or fixed segments of `segment_size` bytes. The chosen level fills
// BytePositions::unit (what two-level HiRoPE rotates its high pairs by); statement always holds
// the statement index (three-level HiRoPE), or the segment index for segments.
enum class ByteHierarchy { units, statements, segments };

// ByteHierarchy's names (the vocabulary's value list, see hirope.h), in enum order.
const std::vector<EnumValue>& byte_hierarchies();

struct HierarchyOptions {
    ByteHierarchy hierarchy = ByteHierarchy::units;
    std::string language = "python";
    const Grammar* grammar = nullptr; // as AnalyzeOptions::grammar
    GapPolicy gap = GapPolicy::own;
    bool descend_classes = false;
    int64_t segment_size = 32;
};

// Per-byte positions: token = byte index; unit and statement from the hierarchy. Takes texts up
// to the analysis's limit, so that a window's positions can come from its whole file's parse. Bytes
// between tokens take the statement of the token before them (the first ones, of the first token).
struct BytePositions {
    std::vector<int32_t> token, unit, statement;
    Positions view() const { return {token.data(), unit.data(), statement.data()}; }
};
Status byte_positions(std::string_view text, const HierarchyOptions& options, BytePositions* out);

// A token model's input and positions: the vocabulary's tokens of text (ids and byte spans), and
// per token, token = its index, unit and statement = those of its first byte (byte_positions),
// or for segments the index of its run of segment_size tokens.
struct TokenPositions {
    std::vector<int32_t> ids;
    std::vector<uint32_t> start, end;
    std::vector<int32_t> token, unit, statement;
    Positions view() const { return {token.data(), unit.data(), statement.data()}; }
};
Status token_positions(std::string_view text, const Vocabulary& vocabulary,
                       const HierarchyOptions& options, TokenPositions* out);

// Baselines that limit what each prediction sees, applied on top of the scheme (the model API
// pairs them with the training RoPE). They answer "does the far context help at all": a scheme
// that uses context beyond the training length must beat them there.
//   sliding_window: attention in every layer reaches only the last `length` bytes (key j is
//     visible to query i when i - j < length); information from farther back can still arrive
//     through earlier layers' rows, as in sliding-window models.
//   truncate: each prediction sees only the last `length` bytes, as if the file began there
//     (positions restart at 0). Exact with stride 1: the loss of byte t + 1 equals the last loss of
//     a plain forward over the `length` bytes ending at t. With stride S, one forward serves S
//     predictions, each of which sees between length - S + 1 and length bytes.
enum class ContextLimitType { none, sliding_window, truncate };

// ContextLimitType's names ("none", "sliding-window", "truncate"), in enum order.
const std::vector<EnumValue>& context_limits();

struct ContextLimit {
    ContextLimitType type = ContextLimitType::none;
    int64_t length = 0; // bytes; >= 1 unless type is none
    int64_t stride = 1; // truncate only: in [1, length]
};
Status validate(const ContextLimit& limit);

// ---------------------------------------------------------------------------------------------
// A model's scheme defaults and baselines (the bindings' model.scheme() reads the user's scheme
// and calls these; the rules live here once).

// The truncate baseline's default stride is length / kTruncateStrideDivisor, at least 1 (the
// registry's truncate.stride_divisor). The model re-runs on the last `length` bytes every `stride`
// bytes, so each byte sees between length - stride + 1 and length bytes: stride 1 is exact but runs
// one forward pass per byte; length / 8 is 25-60x faster and its loss differs by about 0.001
// bits/byte on real files (README).
constexpr int64_t kTruncateStrideDivisor = 8;
int64_t truncate_stride(int64_t length, int64_t divisor = kTruncateStrideDivisor);

// One default a model fills into a scheme where the user left `key` out: a number or a name.
// `key` is the user's name; "scaling.originalLength" is a key of the scheme's scaling object.
struct SchemeDefault {
    std::string key;
    double number = 0;
    std::string name; // not empty: the default is this name ("half"), not `number`
};

// The defaults a model fills into a scheme of `type` (the user's name; `type_shown` is how the
// binding writes the value it read, for the message): base = its RoPE base, layout = 'half',
// trainingLength and scaling.originalLength = its training context, window = half of it, each
// only where the scheme takes the key. `scaling_type`: the type of the scheme's scaling object
// when it is one without originalLength, else null. Error: a type the model cannot run.
Status model_scheme_defaults(const Config& config, const std::string& type,
                             const std::string& type_shown, const std::string* scaling_type,
                             std::vector<SchemeDefault>* out);

// A number the binding read from the user's scheme: absent, a number (JS number, Python int) or
// another value; `shown` is how the binding writes it in messages.
struct UserNumber {
    bool present = false, number = false;
    double value = 0;
    std::string shown;
};

// The context limit a baseline ("sliding-window" { window }, "truncate" { length, stride }) runs
// with: the size defaults to the training context, the stride to truncate_stride(length); both are
// integers in [1, max_input] ([1, length] for the stride), else "scheme.<key> must be an integer in
// [1, max], got <shown>".
Status model_baseline(const Config& config, int64_t max_input, ContextLimitType type,
                      const UserNumber& size, const UserNumber& stride, ContextLimit* out);

class Decoder;
class ForwardSteps;

// The heap that one step through the model takes beyond its weights: `count` new bytes in a
// sequence that reaches `total` bytes, keeping every layer's keys and values (a decoder) or one
// layer's (a forward), plus `logits_rows` rows of output logits. Checked against the model's
// HeapBudget before the step allocates.
double step_heap_bytes(const Config& c, int64_t count, int64_t total, bool cache,
                       int64_t logits_rows);

class Model {
  public:
    // Parses and checks a whole weights file (magic, version, sizes, hash, finite values); *out
    // is set only when everything is valid.
    // heap: the budget that loading (about three times the parameters' float bytes at its peak)
    // and every later forward or decoder step (model::step_heap_bytes) are checked against.
    static Status load(const uint8_t* data, size_t size, std::unique_ptr<Model>* out,
                       const HeapBudget& heap = {});
    ~Model();

    const Config& config() const { return config_; }

    struct ForwardRequest {
        // The input: bytes (a byte model), or ids (a token model's token ids, or a byte model's
        // bytes as ids); n of them. Set one.
        const uint8_t* bytes = nullptr;
        const int32_t* ids = nullptr;
        int64_t n = 0;
        Scheme scheme;           // head_dim is the model's; validated here
        Positions positions;     // n entries each (token required; unit/statement for HiRoPE)
        float* logits = nullptr; // optional: n x vocab
        float* losses = nullptr; // optional: n - 1 values, bits to predict byte t + 1 from 0..t
        // optional: the attention probabilities of one layer and head (n x n, rows = queries);
        // the forward stops after that layer when logits and losses are not asked for.
        float* attention = nullptr;
        int attention_layer = 0, attention_head = 0;
        // optional: every layer's every head's probabilities at once, layers x heads x n x n
        // (layer-major), from the same forward (no context limit).
        float* attention_all = nullptr;
        // What each prediction sees (a baseline). With truncate, attention row i is query i's
        // row in the forward that predicts byte i + 1, at the columns of the bytes it saw.
        ContextLimit limit;
        // A checkpoint's layers: true runs each with its config's own position scheme
        // (setup().layers), ignoring `scheme`; false puts `scheme` on every RoPE layer, in the
        // layer's own layout and rotated share of the head (NoPE layers stay NoPE; masks, scales
        // and soft-caps stay the layer's). hirope's own models: true means RoPE at their base.
        bool model_schemes = false;
    };
    Status forward(const ForwardRequest& request) const;

    // Reads `size` bytes at byte `offset` of checkpoint file `file` (an index into the files the
    // plan was made from) into dst.
    using ReadBytes =
        std::function<Status(uint32_t file, uint64_t offset, uint64_t size, uint8_t* dst)>;
    // A Hugging Face checkpoint bound by checkpoint::plan_checkpoint (include/hirope/
    // architectures.h): its weights read tensor by tensor through `read`, checked finite, into the
    // one forward all models share (src/model/decoder.cpp), driven by the plan's architecture row
    // and per-layer setup. The heap budget is checked before anything is read. config() reports
    // its dims (tokenizer empty: ids come from the checkpoint's tokenizer.json; training_context
    // its trained length). Such a model runs forward() over a whole prompt; a Decoder, generate()
    // and context limits are refused.
    static Status from_checkpoint(const checkpoint::CheckpointPlan& plan, const ReadBytes& read,
                                  std::unique_ptr<Model>* out, const HeapBudget& heap = {});
    // A checkpoint folder opened (checkpoint::open_checkpoint) and loaded (from_checkpoint)
    // through the same file access, for every binding. budget_bytes > 0: the plan is first held
    // to it (checkpoint::check_memory, a forward of max_input_bytes tokens). progress(done, total)
    // after each weight read. *plan, when given, receives the plan (its parameters, stored bytes
    // and warnings) whether or not the load succeeds.
    static Status from_folder(const checkpoint::CheckpointFolder& folder,
                              std::unique_ptr<Model>* out, const HeapBudget& heap = {},
                              uint64_t budget_bytes = 0,
                              const std::function<void(size_t, size_t)>& progress = {},
                              checkpoint::CheckpointPlan* plan = nullptr);
    // A checkpoint's per-layer setup (its config's), or null for hirope's own models.
    const ModelSetup* setup() const;

    // A checkpoint's linear layers as ForwardSteps names them (index 5 l + 0..4: layer l's q/k/v
    // rows, output, gate (absent in a plain MLP: out 0), up and down; 5 layers: the output
    // layer), each as its packed panels: panel p holds rows [p w, p w + w) (w = panel_width) as
    // in x w values, value (r, i) at p in w + i w + r % w, zero-padded, stored as f32, f16 or bf16
    // (format 0, 1, 2) little-endian. hirope's own models have none (count 0).
    struct LinearView {
        int out = 0, in = 0, panel_width = 0, format = 0;
        const void* data = nullptr;
        size_t bytes = 0;
    };
    int linear_count() const;
    LinearView linear_view(int index) const;

    struct Impl;

  private:
    Model();
    Status forward_truncated(const ForwardRequest& request, const int32_t* ids, float* logits,
                             float* losses = nullptr) const;
    // forward()'s checks of a request, in its order; *ids: the input as ids (bytes widened into
    // *byte_ids), *fused: losses without logits (the output projection folded into them).
    Status check_request(const ForwardRequest& r, std::vector<int32_t>* byte_ids,
                         const int32_t** ids, bool* fused) const;
    Config config_;
    std::unique_ptr<Impl> impl_;
    friend class Decoder;
    friend class ForwardSteps;
};

// A checkpoint's forward over a whole prompt, resumable at each product, for a caller that
// computes the products elsewhere (the WebGPU backend, wasm/model.js). start() checks the request
// as forward() does (no context limit); next() runs the CPU's part of the block step (the
// embedding, norms, biases, the q/k/v split and norms, the activation, residuals) up to the next
// product and returns it: a linear layer, y (rows x in -> rows x out) = x . W^T with
// W = model.linear_view(weight), or a layer's attention (weight -1): softmax(q k^T) v of the
// layer's call (attention_call(layer): its scheme, mask, temperature, scale and soft-cap, as an
// attention call takes them) over the positions, q = x, k and v with each key/value head
// repeated for its query heads (rows x in each), into y (rows x out, out = in). The caller writes
// y and calls next() again, or calls apply() to have the CPU compute it. forward() runs this same
// sequence with every product on the CPU. The output layer comes in blocks of rows, the losses
// folded from each block; a layer whose probabilities were asked for attends on the CPU. The
// request's outputs are written by the time next() says it is done, and must stay valid until then.
class ForwardSteps {
  public:
    struct Product {
        int weight = -1; // -1: the attention of `layer`
        int layer = -1;
        const float* x = nullptr;
        const float* k = nullptr; // attention only, as v
        const float* v = nullptr;
        int64_t rows = 0;
        int in = 0, out = 0;
        float* y = nullptr; // rows x out, row stride out
    };
    static Status start(const Model& model, const Model::ForwardRequest& request,
                        std::unique_ptr<ForwardSteps>* out);
    ~ForwardSteps();
    // *more: false once the forward is done; else *product is the next product to compute.
    Status next(bool* more, Product* product);
    Status apply(const Product& product);
    // Layer l's attention call as JSON (hirope::layer_setup_json of its setup, with the scheme it
    // runs: its own, or the request's in its layout), and the sequence's positions.
    std::string attention_call(int layer) const;
    Positions positions() const;
    int heads() const;

  private:
    ForwardSteps();
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// Incremental decoding with a KV cache. Per layer it keeps the keys as computed (before any
// rotation), the values, and the keys rotated for both branches of windowed schemes (near: the
// token position; far: the scheme's far position, e.g. ReRoPE's 0, Self-Extend's group index,
// HiRoPE's unit index on the high pairs). Keys are rotated again only when their positions or
// the scheme's frequencies change (dynamic NTK as the sequence grows; a re-analysis moving units).
// Values and the activations of earlier layers stay as computed, so after such a change the
// decoder is close to, not exactly, a fresh forward over the same bytes; with fixed positions and
// frequencies (see frequency_length) it equals the full forward to float rounding.
class Decoder {
  public:
    // frequency_length: the sequence length whose frequencies every step uses, for schemes whose
    // frequencies depend on it (dynamic NTK, LongRoPE). generate() passes the length it will
    // reach, so that each step equals a full forward over the final text. 0: the current length
    // at each step (cached keys are rotated again as it grows, but values and earlier layers'
    // activations keep the frequencies of their time, so this is not a full forward's result).
    // limit: sliding_window only (truncate restarts the sequence; generate() does that).
    // model_schemes: a checkpoint's layers run their own schemes (ForwardRequest::model_schemes).
    Decoder(const Model& model, const Scheme& scheme, int64_t frequency_length = 0,
            const ContextLimit& limit = {}, bool model_schemes = false);
    ~Decoder();
    Decoder(const Decoder&) = delete;
    Decoder& operator=(const Decoder&) = delete;

    // Appends bytes with their positions (count entries each, for the new bytes) and writes the
    // logits of the last one (vocab values) when logits is not null.
    Status append(const uint8_t* bytes, int64_t count, const int32_t* unit,
                  const int32_t* statement, float* logits);
    // The same for ids (a token model's, or bytes as ids).
    Status append(const int32_t* ids, int64_t count, const int32_t* unit, const int32_t* statement,
                  float* logits);
    // Replaces the unit/statement indices of every cached byte (length() entries each).
    Status reposition(const int32_t* unit, const int32_t* statement);
    int64_t length() const;

    struct Impl;

  private:
    std::unique_ptr<Impl> impl_;
};

struct GenerateOptions {
    Scheme scheme;
    // A checkpoint's layers run their own schemes, ignoring `scheme` (ForwardRequest's).
    bool model_schemes = false;
    // A token model's tokenizer (the one its config names; a checkpoint's, its tokenizer.json's):
    // encodes the prompt and gives each sampled token's bytes. Null for a byte model.
    const Vocabulary* vocabulary = nullptr;
    // sliding_window: the cache's attention reaches the last `length` bytes. truncate: when the
    // text would pass `length` bytes, the decoder starts again from its last length - stride
    // bytes (positions from 0, the hierarchy from those bytes alone), as ForwardRequest's
    // truncate sees them.
    ContextLimit limit;
    HierarchyOptions hierarchy;
    int64_t max_bytes = 256;
    double temperature = 0.8; // 0: greedy
    uint64_t seed = 1;
};

// Continues prompt by up to max_bytes bytes. Positions come from byte_positions() of the text so
// far (a token takes those of its first byte); with a parsed hierarchy the text is analysed again
// after every generated newline and the cached keys are rotated to the new positions (values and
// earlier layers' activations stay as computed). Length-dependent frequencies (dynamic NTK) are
// those of prompt + max_bytes from the first step. Stops early at a NUL byte (a byte model) or a
// token without bytes (a token model's end of sequence). A token model samples whole tokens: the
// last one may end past max_bytes.
Status generate(const Model& model, std::string_view prompt, const GenerateOptions& options,
                std::string* out);

// ---------------------------------------------------------------------------------------------
// The evaluation (src/model/evaluation.cpp; docs/model-eval.md): which units of a text need far
// context (recall classes), the windows a file is cut into, the position buckets and the
// per-window sums by bucket and by class, and the numbers a preset's symbols stand for. Both
// bindings expose these; the statistics over files are the package's eval-stats module.

// A unit's recall class (its numeric code): far for the units of an identifier whose previous
// occurrence starts more than `reach` units before it, with none nearer; near within `reach`;
// first at an identifier's first occurrence; other for every other unit.
enum class RecallClass : uint8_t { other = 0, first = 1, near = 2, far = 3 };
constexpr int kRecallClassCount = 4;

// The classes' names ("other", "first", "near", "far"), in code order.
const std::vector<std::string>& recall_class_names();

// An identifier of a text: bytes [start, end), ASCII letters, digits and '_' not starting with a
// digit nor preceded by one of those; common keywords (Python's and JavaScript's) and one-letter
// names left out.
struct Identifier {
    int64_t start = 0, end = 0;
};
void identifiers(std::string_view text, std::vector<Identifier>* out);

// A class per byte of text, distances counted in bytes. reach >= 1.
Status recall_classes(std::string_view text, int64_t reach, std::vector<uint8_t>* out);

// A class per token, given each token's byte span [start[k], end[k]) in text: distances count
// tokens (from the token holding an identifier's first byte), and a token takes the highest class
// of the identifiers it overlaps (far over near over first).
Status token_recall_classes(std::string_view text, const std::vector<int64_t>& start,
                            const std::vector<int64_t>& end, int64_t reach,
                            std::vector<uint8_t>* out);

// The language the evaluation parses a file in, by its name: "javascript" for .js, .mjs, .cjs,
// else "python".
const char* evaluation_language(std::string_view file_name);

// The first units of a file's windows: of the floor(units / length) consecutive windows of
// `length` units, at most per_file (negative: all), evenly spread (window floor(w * count / take)).
Status window_offsets(int64_t units, int64_t length, int64_t per_file, std::vector<int64_t>* out);

// Bucket edges for a training context L and windows of `length` units: 0, L, 2L, 4L, ... up to
// length (bucket b holds positions [edges[b], edges[b + 1])).
Status default_buckets(int64_t training_context, int64_t length, std::vector<int64_t>* edges);

// One window's sums. losses[p - 1] is the loss (bits) of unit p, p = 1..count (unit 0 has none),
// in the bucket holding p and in the class classes[p] (classes has at least count + 1 entries).
struct WindowSums {
    std::vector<double> bucket_sums;    // per bucket: bits
    std::vector<int64_t> bucket_counts; // per bucket: units
    double class_sums[kRecallClassCount] = {};
    int64_t class_counts[kRecallClassCount] = {};
};
Status window_sums(const float* losses, size_t count, const uint8_t* classes, size_t class_count,
                   const std::vector<int64_t>& edges, WindowSums* out);

// The numbers the preset table's symbols stand for (training/models/registry.json
// evaluation.symbols) for a model trained at context L evaluated on windows of `length` units:
// "L", "L/2" (the window of the windowed schemes), "length/L" (the scaled RoPEs' factor),
// "self-extend group" (the smallest group G >= 2 whose usable length (L - W) * G + W covers the
// window, W = L / 2) and "truncate stride" (L / stride_divisor, at least 1).
struct PresetSymbols {
    int64_t training_context = 0, window = 0, self_extend_group = 0, truncate_stride = 0;
    double factor = 0;
};
Status preset_symbols(int64_t training_context, int64_t length, int64_t stride_divisor,
                      PresetSymbols* out);

} // namespace model
} // namespace hirope
