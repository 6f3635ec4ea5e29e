// hirope: position encodings (RoPE, HiRoPE and their relatives) applied to attention.
//
// This header is the whole public C++ API. The formulas, and the choices made where a paper is
// silent, are in docs/schemes.md; the section numbers below refer to that page.
//
// Conventions
// - q, k, v are row-major float matrices of n rows and heads * head_dim columns; head h owns
//   columns [h * head_dim, (h + 1) * head_dim).
// - Frequency pairs are indexed by j = 0 .. rotary_dim / 2 - 1 with inverse frequency theta_j.
//   Interleaved layout pairs memory dims (2j, 2j + 1); half layout pairs (j, j + rotary_dim / 2).
// - Errors are returned as a Status (no exceptions): the message names the bad argument.
// - Nothing here keeps global mutable state; every function is reentrant.
#pragma once

#include "hirope/status.h" // Status and the heap budget (hirope_util)

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace hirope {

// ---------------------------------------------------------------------------------------------
// Limits, checked before any allocation that depends on them.

struct Limits {
    static constexpr int64_t max_tokens = 1 << 16;            // n
    static constexpr int64_t max_head_dim = 1024;             // head_dim
    static constexpr int64_t max_heads = 256;                 // heads
    static constexpr int64_t max_output_elements = 1LL << 28; // heads * n * n (1 GiB of floats)
};

// ---------------------------------------------------------------------------------------------
// Schemes

enum class SchemeType {
    nope,         // no position information
    sinusoidal,   // absolute sinusoids added to q and k (docs/schemes.md section 4.2)
    rope,         // rotary (docs/schemes.md section 2.1) with an optional scaling (section 3)
    xpos,         // rotary with exponential decay (docs/schemes.md section 4.3)
    alibi,        // linear bias on the logits (docs/schemes.md section 4.4)
    rerope,       // window, then constant distance (docs/schemes.md section 5.2)
    leaky_rerope, // window, then distance slope 1 / leaky_factor (docs/schemes.md section 5.3)
    self_extend,  // window, then grouped distance (docs/schemes.md section 5.4)
    hirope,       // hierarchical positions with window (docs/schemes.md section 6)
};

enum class Layout { interleaved, half };

enum class ScalingType { none, linear, ntk, dynamic_ntk, yarn, longrope, llama3, proportional };

enum class SinusoidalVariant { vaswani, fairseq };

struct Scaling {
    ScalingType type = ScalingType::none;
    double factor = 1.0;         // s (linear, ntk, dynamic_ntk, yarn, longrope, llama3)
    double original_length = 0;  // L_orig: original max positions (dynamic, yarn, longrope, llama3)
    double beta_fast = 32.0;     // yarn
    double beta_slow = 1.0;      // yarn
    bool truncate = true;        // yarn: floor/ceil the correction range
    double mscale = 0.0;         // yarn DeepSeek variant (used when both are > 0)
    double mscale_all_dim = 0.0; // yarn DeepSeek variant
    double attention_factor = -1;       // override of the scaling's own factor when >= 0
    double low_freq_factor = 1.0;       // llama3
    double high_freq_factor = 4.0;      // llama3
    std::vector<double> short_factor;   // longrope, rotary_dim / 2 entries
    std::vector<double> long_factor;    // longrope, rotary_dim / 2 entries
    double partial_rotary_factor = 1.0; // proportional: the share of pairs that rotate
};

struct Scheme {
    SchemeType type = SchemeType::rope;
    double base = 10000.0;
    Layout layout = Layout::half;
    double rotary_fraction = 1.0; // fraction of head_dim that is rotated
    // Which dims rotate: the first rotary_fraction of head_dim (false), or the last (true: MLA,
    // DeepSeek's q = cat(q_nope, q_pe), the RoPE part at the end of the head).
    bool rotary_last = false;
    Scaling scaling;

    // Windowed schemes (rerope, leaky_rerope, self_extend, hirope): near if delta < window.
    int64_t window = 512;
    double leaky_factor = 16.0; // leaky_rerope: k
    int64_t group = 8;          // self_extend: G

    // ReRoPE's query log-n scaling max(1, ln(t + 1) / ln(training_length)).
    bool log_n = false;
    double training_length = 4096;

    // HiRoPE
    double ratio = 0.5;           // fraction of frequency pairs that carry the token index
    int levels = 2;               // 2: (unit, token); 3: (unit, statement, token)
    double statement_ratio = 0.0; // levels == 3: fraction of pairs that carry the statement index
    bool token_on_high = false; // Eq. (3) as printed: token index on the high-frequency-index pairs

    // xPos
    double xpos_gamma = 0.4;
    double xpos_scale_base = 512.0;

    // sinusoidal
    SinusoidalVariant sinusoidal = SinusoidalVariant::vaswani;
};

// Scheme-level validation for a given head dimension: every parameter range, the scaling's own
// parameters, list lengths. Also called by every function below. Messages name scheme parameters
// as users write them, by their catalogue names (ParamInfo::name: "scheme.scaling.originalLength",
// "scheme.gamma"), so the bindings pass them on as they are; function arguments keep their C++
// names ("head_dim"), which the JS layer spells in camelCase (SchemeCatalogue::arguments).
Status validate(const Scheme& scheme, int head_dim);

// True for the schemes that merge a near and a far branch by the window rule.
bool is_windowed(SchemeType type);
// The window rule is defined for causal attention only: an error naming the scheme when a
// windowed one runs without the causal mask. AttentionPlan::prepare checks it; the bindings call it
// for executors that do not reach prepare (the WebGPU path).
Status check_causal(SchemeType type, bool causal);
// True for schemes that rotate q and k.
bool is_rotary(SchemeType type);

// ---------------------------------------------------------------------------------------------
// Catalogue: every scheme, scaling and option name with its flags and parameters (kind, default,
// range, description), in one table (src/core/catalogue.cpp). validate(), is_rotary() and
// is_windowed() read it; the WASM bindings export it, and the JS layer builds its option names,
// defaults, type checks and name mapping from it. Adding a scheme means one enum value here and
// its rows in that table.

enum class ParamKind {
    number,
    integer,
    boolean,
    enumeration, // a name from one of the catalogue's value lists (ParamInfo::values)
    list,        // a list of numbers (checked by the scheme's own rules)
    scaling,     // Scheme::scaling: the scaling types and their parameters below
};

// One value of an enumeration, as users write it.
struct EnumValue {
    const char* name;        // "half", "own"
    int value;               // the C++ enumerator
    const char* label;       // display name: "half-split (HF)"
    const char* description; // one line
};

struct SchemeInfo {
    SchemeType type;
    const char* name;  // as users write it: "leaky-rerope"
    const char* label; // display name: "Leaky ReRoPE"
    bool rotary;       // rotates q and k
    bool windowed;     // merges a near and a far branch by the window rule (causal only)
    bool needs_units;  // reads positions.unit (hierarchical positions)
    const char* description;
};

struct ScalingInfo {
    ScalingType type;
    const char* name;                 // "dynamic-ntk"
    const char* label;                // "dynamic NTK"
    std::vector<const char*> aliases; // other accepted names ("dynamic")
    const char* description;
};

// A parameter of a scheme (a field of Scheme) or of a scaling (a field of Scaling).
struct ParamInfo {
    const char* field; // the C++ member ("xpos_gamma", "original_length"); nullptr for an option
                       // of the JS layer that is no field (segment_size: derives positions.unit)
    const char* name;  // the JS option name ("gamma", "originalLength")
    ParamKind kind;
    // Range that validate() checks (number and integer kinds): min <= x <= max, strict where
    // min_open / max_open; +-infinity: unbounded. `allowed`, when not empty, lists the only values.
    // `limit`: an implementation bound beyond the range ("is too large"), infinity when none.
    double min = -std::numeric_limits<double>::infinity();
    double max = std::numeric_limits<double>::infinity();
    bool min_open = false, max_open = false;
    std::vector<double> allowed;
    double limit = std::numeric_limits<double>::infinity();
    const char* values = nullptr; // enumeration: its value list ("layouts", "sinusoidal_variants")
    uint32_t takes = 0;           // bit 1 << type for each SchemeType (scheme parameters) or
                                  // ScalingType (scaling parameters) that takes it
    bool required = false;        // must be given where it is taken (the scaling factor)
    uint32_t optional = 0; // types (bits as `takes`) where a required parameter may be left out:
                           // its field's default then (proportional's factor, 1)
    const char* only_if = nullptr; // checked only when this field equals only_if_value
    double only_if_value = 0;
    const char* description = "";
    // Access to the field of a Scheme (scaling parameters: of scheme.scaling). Numbers as doubles:
    // booleans 0/1, enumerations their enumerator; set() clamps integers into their type.
    double (*get)(const Scheme&) = nullptr;
    void (*set)(Scheme&, double) = nullptr;
    std::vector<double>* (*list)(Scheme&) = nullptr; // list kind
    double option_default = 0; // the default of an option that is no field (0: unused)
    // The step a form control moves by (the playground's inputs and sliders); 0: any value
    // (integers: 1).
    double step = 0;
};

// A default that depends on the scheme type or on another parameter. C++ callers set fields
// themselves; option layers (the JS API) apply these when an option is left out:
// value = (offset + scale * from) / divisor, for the schemes in `schemes` and, when `when` is
// set, only if that parameter equals when_value.
struct DefaultRule {
    const char* field;
    uint32_t schemes; // bit 1 << SchemeType
    const char* when = nullptr;
    double when_value = 0;
    const char* from = nullptr; // nullptr: value = offset / divisor
    double offset = 0, scale = 0, divisor = 1;
    const char* description = "";
};

// A name in messages that is no parameter (a function argument), with the JS layer's spelling.
struct NameInfo {
    const char* field; // "head_dim"
    const char* name;  // "headDim"
};

struct SchemeCatalogue {
    std::vector<SchemeInfo> schemes;       // in SchemeType order
    std::vector<ScalingInfo> scalings;     // in ScalingType order
    std::vector<ParamInfo> scheme_params;  // in the order options are listed
    std::vector<ParamInfo> scaling_params; // likewise, for Scheme::scaling
    std::vector<EnumValue> layouts, sinusoidal_variants, outputs, roles, branches, kernels;
    std::vector<DefaultRule> default_rules;
    std::vector<NameInfo> arguments;
};

const SchemeCatalogue& scheme_catalogue();
// A parameter kind's name as the bindings publish it: "number", "integer", "boolean", "enum",
// "list", "scaling".
const char* param_kind_name(ParamKind kind);
// A value list's name as the bindings publish it: ParamInfo::values in camelCase
// ("sinusoidal_variants" -> "sinusoidalVariants").
std::string published_list_name(const char* values);

// The catalogue as JSON text, the one export both bindings parse (JSON.parse, json.loads):
// schemes, scalings, parameters and scalingParameters (name, field, kind, default, range ...),
// the value lists, defaultRules and arguments, keys in camelCase, null for "none" (an unbounded
// range, no step). hr.catalogue and hirope.catalogue are this object plus the other libraries'
// parts (languages, the model's lists).
std::string catalogue_json();
// A value list as a JSON array of {name, value, label, description} (for those parts too).
std::string enum_list_json(const std::vector<EnumValue>& list);
// A scheme as users write it, as JSON text: {"type": "rope", "base": 10000, ..., "scaling":
// {"type": "none"}}, parameters by their user names (enumerations by name), the scaling with the
// parameters its type takes. SchemeKeys::all writes every parameter of Scheme (a normalized
// scheme); SchemeKeys::taken only those the scheme's type takes, the object every call accepts
// back as it is (the calls refuse the others as unknown keys for the type).
enum class SchemeKeys { all, taken };
std::string scheme_json(const Scheme& scheme, SchemeKeys keys = SchemeKeys::all);

// The row of a scheme type (nullptr for a value outside the enum).
const SchemeInfo* scheme_info(SchemeType type);

// The names of the schemes with a flag, for messages: scheme_names(&SchemeInfo::windowed) is
// "rerope, leaky-rerope, self-extend, hirope".
std::string scheme_names(bool SchemeInfo::*flag);

// A value list by the name ParamInfo::values gives ("layouts"); nullptr for another name.
const std::vector<EnumValue>* value_list(const char* name);

// Whether a parameter is taken by a scheme or scaling type (its enumerator as an int).
inline bool takes(const ParamInfo& p, int type) {
    return type >= 0 && type < 32 && (p.takes >> type & 1u);
}
// Whether a parameter must be given for this type: required, taken, and not optional there.
inline bool required_for(const ParamInfo& p, int type) {
    return p.required && takes(p, type) && !(p.optional >> type & 1u);
}

// The range of a number or integer parameter as messages state it: "a number > 1",
// "an integer >= 1", "in [0, 1]", "a positive number", "2 or 3".
std::string param_range(const ParamInfo& p);

// ---------------------------------------------------------------------------------------------
// Reading a scheme from a binding's own values (src/core/scheme_reader.cpp). Each binding wraps
// its values in a SchemeSource (Embind `val`, a pybind11 handle); read_scheme reads one through
// the catalogue (the type, each parameter's kind, defaults and default rules, unknown keys,
// lists) and writes its messages in the users' words (ParamInfo::name), with the few phrases a
// language spells its own way from the source's SchemeDialect. Ranges stay validate()'s, except
// for options that are no Scheme field.

// The phrases of messages that differ between the languages.
struct SchemeDialect {
    // What a scheme and a scaling must be: "an object such as { type: 'rope' }".
    const char* scheme_shape;
    const char* scaling_shape;
    // What a list parameter must be: "an array of numbers", "a list of numbers".
    const char* list_shape;
    // Whether a null scaling (Python's None) means the default, no scaling.
    bool null_scaling_is_none;
};

// One value of the caller's: the scheme, a value at one of its keys, an item of a list. The
// reader asks each value's kind before reading it, and a list's length before its items.
class SchemeSource {
  public:
    enum class Kind { absent, null, number, boolean, string, object, list, other };
    virtual ~SchemeSource() = default;
    virtual Kind kind() const = 0;
    // The value as messages name it ("'yarn'", "an array", "None", "undefined").
    virtual std::string describe() const = 0;
    // kind() == number: the value, and (*integer) whether it is of the language's own integer
    // type (a Python int: exact; one past a double's range reads as +-infinity).
    virtual double number(bool* integer) const = 0;
    virtual bool boolean() const = 0;
    virtual std::string text() const = 0; // kind() == string
    // kind() == object: its keys in order. A key that is no string stops the walk: false, with
    // *bad_key describing it.
    virtual bool keys(std::vector<std::string>* out, std::string* bad_key) const = 0;
    // kind() == object: the value at a key (kind() absent where there is none).
    virtual std::unique_ptr<SchemeSource> at(const std::string& key) const = 0;
    // kind() == list: its length (read first, so that a long list is refused before its items
    // are read) and its items.
    virtual size_t length() const = 0;
    virtual std::unique_ptr<SchemeSource> item(size_t i) const = 0;
    virtual const SchemeDialect& dialect() const = 0;
};

// A scheme as read: the core's Scheme, its catalogue row and the options that are no Scheme
// field (segmentSize), given or defaulted, in the catalogue's order.
struct SchemeReading {
    Scheme scheme;
    const SchemeInfo* info = nullptr;
    std::vector<std::pair<const ParamInfo*, double>> options;
    // An option's value by its name (0 when the scheme has no such option).
    double option(const char* name) const;
};

// Reads a scheme (a scheme name, or an object of a type and its parameters) into *out. A
// required parameter left out (a scaling's factor) is NaN, for validate() to name.
Status read_scheme(const SchemeSource& source, SchemeReading* out);

// Number of rotated dims: rotary_fraction * head_dim rounded down to an even number.
int rotary_dim(const Scheme& scheme, int head_dim);

// Number of frequency pairs carrying each hierarchy level, lowest level (token) first.
// For non-HiRoPE schemes: one entry (all pairs). For HiRoPE: round_to_even(ratio * d) / 2 token
// pairs, then (levels == 3) the statement pairs, then the unit pairs.
std::vector<int> band_pairs(const Scheme& scheme, int head_dim);

// Inverse frequencies theta_j (rotary_dim / 2 values) after scaling. seq_len matters only for
// dynamic NTK and LongRoPE (the short/long switch): it is the current sequence length.
Status inverse_frequencies(const Scheme& scheme, int head_dim, int64_t seq_len,
                           std::vector<double>* out);

// Factor multiplying cos and sin (YaRN, LongRoPE; 1 otherwise). Logits scale by its square.
double attention_factor(const Scheme& scheme, int64_t seq_len);

// ALiBi slopes for any head count (docs/schemes.md section 4.4).
std::vector<double> alibi_slopes(int heads);

// Split% = log_base(L_pretrain / 2 pi), the fraction of reliable frequency pairs
// (docs/schemes.md section 6.5). The formula alone, unchecked: NaN unless training_length is a
// finite number > 0 and base a finite number > 1. Callers with unchecked arguments (the bindings)
// use split_fraction_checked.
double split_fraction(double training_length, double base);

// split_fraction with its arguments checked: an error naming training_length or base unless
// training_length is a finite number > 0 and base a finite number > 1; otherwise *out is set (a
// finite number, not clamped to [0, 1]).
Status split_fraction_checked(double training_length, double base, double* out);

// Whether a HiRoPE scheme's token band stays within its Split% bound (docs/schemes.md section
// 6.5), at scheme.training_length and scheme.base: pair j completed a period in training when
// j < split * pairs, so a token band of pairs [0, token_pairs) is within the bound when
// token_pairs - 1 < split * pairs.
struct SplitBound {
    double split = 0;        // split_fraction(training_length, base)
    int pairs = 0;           // rotary_dim / 2
    int token_pairs = 0;     // pairs carrying the token index at scheme.ratio (band_pairs()[0])
    int max_token_pairs = 0; // the largest token band within the bound
    bool over = false;       // token_pairs is above max_token_pairs
};
Status split_bound(const Scheme& scheme, int head_dim, SplitBound* out);

// YaRN correction range (low, high) before truncation (docs/schemes.md section 3.4). An error
// naming the argument unless beta_fast, beta_slow and original_length are finite numbers > 0,
// base a finite number > 1 and dim >= 2; *low and *high are then left unchanged.
Status yarn_correction_range(double beta_fast, double beta_slow, int dim, double base,
                             double original_length, double* low, double* high);

// ---------------------------------------------------------------------------------------------
// Positions and relative distances

struct Positions {
    const int32_t* token = nullptr;     // n entries, required
    const int32_t* unit = nullptr;      // HiRoPE: function/class unit index (or segment index)
    const int32_t* statement = nullptr; // HiRoPE with levels == 3
};

// One band: a run of frequency pairs that share the same relative-distance rule.
struct Band {
    std::string name; // "all", "token", "statement", "unit"
    int pair_begin = 0;
    int pair_end = 0;
};

std::vector<Band> bands(const Scheme& scheme, int head_dim);

// Effective relative distance fed to the rotation in a band for query i and key j:
// the angle of pair p is distance * theta_p. Windowed schemes are causal: for j > i the value is
// NaN. `out` receives n * n values, row = query.
Status relative_distances(const Scheme& scheme, int head_dim, int64_t n, const Positions& pos,
                          int band, float* out);

// ---------------------------------------------------------------------------------------------
// Rotation and attention

enum class Branch { near, far };
enum class Role { query, key };

// Applies the scheme to x (n x heads*head_dim) for the given role and branch, writing out (same
// shape). Includes the attention factor, xPos scale, log-n query scale, sinusoid addition.
// Rotary angles are those of the absolute positions, reduced in double precision; the xPos scale
// is centred on the positions' own range (docs/schemes.md sections 1.6, 4.3). A non-finite x, or
// an output row that leaves the float range (a huge xPos scale, huge values), is an error naming
// the scheme and the first such token; out is then unspecified.
Status rotate(const Scheme& scheme, int head_dim, int heads, int64_t n, const Positions& pos,
              Role role, Branch branch, const float* x, float* out);

// The same transform as per-token coefficients, for other executors (the WebGPU kernels):
// out[t][i] = x[t][i] * a[t][i] + x[t][partner[i]] * b[t][i] + c[t][i] for every head, with
// a, b, c of n x head_dim values and partner of head_dim entries. Angles are reduced in double
// precision here, so a float executor stays exact to float rounding at any position. A
// coefficient beyond the float range (an xPos scale) is an error naming the scheme and the token.
Status transform_coefficients(const Scheme& scheme, int head_dim, int64_t n, const Positions& pos,
                              Role role, Branch branch, float* a, float* b, float* c,
                              int32_t* partner);

// Incremental rotation, for key caches. A decoder receives its rows a few at a time and keeps
// the rotated keys of earlier tokens; it rotates new rows, and old ones again only when their
// positions or the frequencies changed. A Rotator is the scheme resolved once for a sequence
// (validation, frequencies, attention factor, xPos centre) that then rotates any range of its
// tokens: rotate_rows over [0, n) of a rotator prepared with frequency_length 0 equals rotate().
//
//   Rotator r;
//   Status st = r.prepare(scheme, head_dim, heads, n, positions);
//   if (st.ok()) st = r.rotate_rows(Role::key, Branch::near, begin, end, k_rows, out_rows);
class Rotator {
  public:
    Rotator();
    ~Rotator();
    Rotator(Rotator&& other) noexcept;
    Rotator& operator=(Rotator&& other) noexcept;
    Rotator(const Rotator&) = delete;
    Rotator& operator=(const Rotator&) = delete;

    // Validates the scheme for head_dim and heads, and the positions tokens [0, n) need (token
    // always, unit for HiRoPE, statement for three-level HiRoPE); copies those positions, so the
    // caller's arrays may change afterwards. Frequencies and the factors that follow the sequence
    // length (dynamic NTK, LongRoPE, YaRN's factor, xPos's centre) are those of
    // max(frequency_length, max token + 1) positions: 0 keeps the sequence's own, as rotate();
    // a decoder passes the length it will reach so that every step rotates alike. On error the
    // rotator is left unprepared.
    Status prepare(const Scheme& scheme, int head_dim, int heads, int64_t n,
                   const Positions& positions, int64_t frequency_length = 0);

    // out = the scheme applied to x for tokens [begin, end), one role and branch (including the
    // attention factor, xPos scale, log-n query scale, sinusoid addition): x and out hold
    // end - begin rows of heads * head_dim floats, row 0 being token begin; x may equal out.
    // Needs 0 <= begin <= end <= n(); an empty range does nothing. A non-finite x, or an output
    // row beyond the float range, is an error as for rotate() (out is then unspecified).
    Status rotate_rows(Role role, Branch branch, int64_t begin, int64_t end, const float* x,
                       float* out) const;

    bool prepared() const;
    int64_t n() const;
    // The sequence length the frequencies were resolved for (see prepare).
    int64_t frequency_length() const;
    // theta_j after scaling (rotary_dim / 2 values) and the factor on cos and sin. Two rotators
    // of one scheme rotate a token with unchanged positions alike when these agree (and, for
    // xPos, xpos_centre()).
    const std::vector<double>& inverse_frequencies() const;
    double attention_factor() const;
    // xPos only (0 for other schemes): the centre c of the scale (docs/schemes.md section 4.3),
    // min token + ceil((max(frequency_length, max token + 1) - min token) / 2). It follows
    // frequency_length and the smallest token position.
    double xpos_centre() const;

    struct Impl;

  private:
    Impl* impl_ = nullptr;
};

enum class Output { logits, probs };

// Which keys a query sees (transformers' masking_utils; every kind is causal). The mask follows
// the tokens' positions (positions.token, transformers' cache positions), not the rows' indices:
// with a start offset or spread-out positions the window and the chunk boundaries move with them.
enum class AttentionKind {
    full,    // key k seen by query q when k <= q (causal), every key without the causal mask
    sliding, // pos(k) <= pos(q) and pos(q) - pos(k) < window (transformers' sliding_window_overlay)
    chunked, // floor(pos(q) / chunk_size) == floor(pos(k) / chunk_size) (chunked_overlay)
};

// "full", "sliding", "chunked"; attention_kind_from_name reads them back (false for another name).
const char* attention_kind_name(AttentionKind kind);
bool attention_kind_from_name(const std::string& name, AttentionKind* kind);
// The error for a mask type that is none of those: "mask.type must be 'full', 'sliding' or
// 'chunked', got 'x'"; for 'linear' (a config's linear-attention layer, read_model_config's
// LayerSetup::linear) it says that such a layer has no softmax attention to compute.
std::string unknown_mask_message(const std::string& name);

// Whether the query at position `query` sees the key at position `key` under a mask (window:
// sliding; chunk_size: chunked; both >= 1 where used). Every kind is causal (key <= query).
bool mask_sees(AttentionKind kind, int64_t window, int64_t chunk_size, int64_t query, int64_t key);

// The first key row each query row sees under a mask, for rows of positions token[0 .. n): with
// the causal mask, query row i sees key rows [starts[i], i], exactly those j <= i with
// mask_sees(kind, window, chunk_size, token[i], token[j]). A sliding or chunked mask needs
// non-decreasing positions (as a sequence's cache positions are): otherwise an error naming the
// first row that goes back. Full attention: every start is 0. starts receives n values.
Status attention_key_starts(AttentionKind kind, int64_t window, int64_t chunk_size,
                            const int32_t* token, int64_t n, int64_t* starts);

// A mask's values for one request, checked: window >= 1 for sliding, chunk_size >= 1 for chunked,
// and causal attention for both (their overlays are causal). Messages name "mask.window",
// "mask.chunkSize" as the JS API and the setups of read_model_config write them.
Status check_attention_mask(AttentionKind kind, int64_t window, int64_t chunk_size, bool causal);

// Query temperature (Llama 4's attn_temperature_tuning, Ministral 3's llama_4_scaling_beta): the
// query at position p (positions.token, transformers' cache_position) is multiplied by
// 1 + scale * ln(floor((p + offset) / floor_scale) + 1).
// Llama 4: offset 1 (its cache_position + 1), floor_scale = floor_scale, scale = attn_scale;
// Ministral 3: offset 0, floor_scale = original_max_position_embeddings, scale = the beta.
struct QueryTemperature {
    bool enabled = false;
    double floor_scale = 8192;
    double scale = 0.1;
    int64_t offset = 1;
};

// The factor on the query at `position` (1 when the temperature is off).
double query_scale(const QueryTemperature& temperature, int64_t position);

// An enabled temperature's values, checked: floor_scale a finite number > 0, scale a finite
// number >= 0, offset in [0, 2^53], and the factor at positions [0, end) finite within the float
// range (end: the largest query position + 1). Messages name "temperature.floorScale",
// "temperature.scale", "temperature.offset".
Status check_query_temperature(const QueryTemperature& temperature, int64_t end);

struct AttentionRequest {
    const float* q = nullptr;
    const float* k = nullptr;
    const float* v = nullptr; // optional
    int64_t n = 0;
    int head_dim = 0;
    int heads = 1;
    Positions positions;
    Scheme scheme;
    bool causal = true;
    Output output = Output::probs;
    double scale = 0; // logit scale; 0 means 1 / sqrt(head_dim)
    // Logit soft-capping (Gemma 2's attn_logit_softcapping): each scaled logit x becomes
    // softcap * tanh(x / softcap) before the mask and the softmax; 0: none.
    double softcap = 0;
    // The layer's mask on top of `causal` (sliding and chunked need causal): masked entries are
    // logits -inf and probabilities 0, as the causal mask's.
    // By the tokens' positions (positions.token), which must then be non-decreasing.
    AttentionKind mask_kind = AttentionKind::full;
    int64_t window = 0;     // sliding: pos(q) - pos(k) < window
    int64_t chunk_size = 0; // chunked
    // Sinks (GPT-oss): one logit per head (heads values, finite), an extra softmax column compared
    // with the scaled logits and dropped after the softmax, so a row's probabilities sum to < 1.
    // Logits are unchanged. nullptr: none.
    const float* sinks = nullptr;
    // Query row i multiplied by query_scale(temperature, positions.token[i]) as it enters the
    // product (after the scheme's transform; an ALiBi bias is not scaled). Needs positions >= 0.
    QueryTemperature temperature;
};

// A request's mask and query temperature as per-row values, checked as AttentionPlan::prepare
// checks them (for executors that do not reach it: the WebGPU path): the mask's values and
// causal attention (check_attention_mask), positions that do not decrease under a sliding or
// chunked mask, the temperature's values with positions >= 0 and its factor at the largest
// position within the float range. Needs request.n >= 1 and request.positions.token.
// starts: n first key rows (attention_key_starts), empty for full attention; query_factors: n
// factors query_scale(temperature, positions.token[i]), empty without a temperature.
Status layer_rows(const AttentionRequest& request, std::vector<int64_t>* starts,
                  std::vector<double>* query_factors);

// Which implementation computes the logits.
enum class Kernel {
    reference, // double precision, per-element from the relative-distance formula (slow, for tests)
    fast, // packed, tiled, SIMD where the build has it (wasm_simd128.h / SSE), scalar otherwise
};

// A prepared attention: validated inputs, rotated and packed q/k for every head. Memory: O(n d).
// rows() then fills any range of output rows, so callers can stream an n x n result in strips.
class AttentionPlan {
  public:
    AttentionPlan();
    ~AttentionPlan();
    AttentionPlan(const AttentionPlan&) = delete;
    AttentionPlan& operator=(const AttentionPlan&) = delete;

    Status prepare(const AttentionRequest& request, Kernel kernel = Kernel::fast);

    // Writes rows [row_begin, row_end) of head `head` into out ((row_end - row_begin) x n),
    // logits (masked = -inf) or probabilities (masked = 0), per request.output.
    Status rows(int head, int64_t row_begin, int64_t row_end, float* out) const;

    // Attention output softmax(logits) . v for rows [row_begin, row_end) of all heads:
    // (row_end - row_begin) x heads*head_dim. Needs v. Computed a few rows at a time: its memory
    // is the output's and a 4 MiB strip, whatever n is (no limit beyond max_tokens).
    Status output_rows(int64_t row_begin, int64_t row_end, float* out) const;

    int64_t n() const;
    int heads() const;

    struct Impl;

  private:
    Impl* impl_ = nullptr;
};

// The vector kernels compiled into this build: "wasm-simd128", "sse2" or "scalar".
const char* kernel_name();

// The one limit on a returned matrix (logits or probabilities): heads * rows * n elements at most
// Limits::max_output_elements (rows: the query rows asked for, n without a row range). The
// attention output (values, rows x heads*head_dim) has no limit of its own (see output_rows).
Status check_matrix_output(int64_t heads, int64_t rows, int64_t n);

// Convenience: the full heads x n x n matrix in one call.
Status attention(const AttentionRequest& request, float* out, Kernel kernel = Kernel::fast);

// ---------------------------------------------------------------------------------------------
// Q/K sources for people without a model

// Content-free: every entry 1 (isolates the position effect).
void ones(int64_t count, float* out);

// Pseudo-random standard-normal vectors per token id: the same (seed, id, role) gives the same
// row of heads * head_dim values. role 0 = query, 1 = key, 2 = value.
void seeded_vectors(uint64_t seed, const int32_t* token_ids, int64_t n, int64_t row_width, int role,
                    float* out);

// ---------------------------------------------------------------------------------------------
// Long-term decay (RoFormer 3.4.3): (1 / (d/2)) * sum_j |S_j| with S_j = sum_{k<j} e^{i r theta_k},
// for r = 0 .. max_distance, using the scheme's inverse frequencies and band distances for a
// query far from the start (all tokens in one unit).
Status long_term_decay(const Scheme& scheme, int head_dim, int64_t max_distance, float* out);

// ---------------------------------------------------------------------------------------------
// Pooling for display: an attention matrix shown as a grid of at most a few hundred cells a side.

// The region [row_begin, row_end) x [col_begin, col_end) of an n x n matrix as rows x cols cells:
// cell row y covers matrix rows row_begin + ceil(y * R / rows) .. row_begin + ceil((y + 1) * R /
// rows) - 1 with R = row_end - row_begin, and likewise for columns.
struct PoolGrid {
    int64_t n = 0;
    int64_t row_begin = 0, row_end = 0, col_begin = 0, col_end = 0;
    int64_t rows = 0, cols = 0;
};
Status validate(const PoolGrid& grid);

// Adds matrix rows [first, last) (row i at data + (i - first) * n) into the grid sums: each entry
// p into raw_sum, and p / (its row's maximum) into ratio_sum. With causal, entries after the
// diagonal (j > i) are taken as 0 without being read. Writes each row's maximum (over the
// unmasked entries) to row_max[i] when row_max is not null. Rows outside the region add nothing
// to the sums. Call with the rows in any order, then pool_finish. A NaN or infinite entry among
// those read is an error naming its row and column; the rows before it have then been added
// (the sums are to be discarded).
Status pool_rows(const PoolGrid& grid, const float* data, int64_t first, int64_t last, bool causal,
                 float* ratio_sum, float* raw_sum, float* row_max);

// Turns the sums into means over each cell's entries (masked entries count, as 0).
void pool_finish(const PoolGrid& grid, float* ratio_sum, float* raw_sum);

// ---------------------------------------------------------------------------------------------
// Angles unseen in training (src/core/unseen.cpp; docs/real-models.md, "Angles unseen in
// training"): the one rule behind `hirope config`'s "unseen at N" and the playground's angle view
// and status line.
//
// Attention depends on q - k only through the angles (q - k) * theta_j. Training at length L
// showed pair j the angles [0, theta_j^train * D(L)], so every angle once that reaches 2 pi. A pair
// that never turned a full period there meets angles it never saw where the largest distance D it
// sees turns it further, by more than one more position's step (Position Interpolation's argument:
// N = sL positions scaled by s put distance N - 1 at (N - 1) / s, between L - 1 and L, still
// interpolated between trained positions):
//
//   unseen_j  <=>  theta_j(N) * D_j(N) > theta_j^train * (D(L) + 1)  and  theta_j^train * D(L) < 2
//   pi
//
// - theta_j(N): the scheme's frequencies for a sequence of N positions (inverse_frequencies with
//   seq_len N), N the positions the code reaches (its last position + 1).
// - D(x) = min(x, reach) - 1: the largest query-key distance a layer sees in x positions; reach is
//   a sliding layer's window or a chunked layer's chunk, 0 for none (a full layer). D_j(N) is D(N),
//   or the largest distance of pair j's band where the caller gives them (band_distances: a
//   windowed scheme's clamped or grouped distances, HiRoPE's unit distances, from
//   relative_distances).
// - theta_j^train, what training turned at L: YaRN and llama3 extend from their original_length,
//   so with L <= original_length training turned the unscaled theta_j (beyond it, the scaling as it
//   is); dynamic NTK and LongRoPE give what training used at L themselves (unscaled, the short
//   factors: inverse_frequencies with seq_len L); linear and NTK-aware scalings name no length, so
//   the caller says whether they were put on a model trained at L without them
//   (scaled_after_training: Position Interpolation, the playground's scaled RoPE: the unscaled
//   theta_j) or the model trained with them at L (Gemma 3's linear x8, whose config names no
//   length before it: the scaled theta_j). Proportional RoPE's zeroed pairs never rotate.
//
// Comparisons allow a relative 1e-12 for rounding (an exact PI factor reaches the limit exactly).
struct UnseenRequest {
    Scheme scheme; // a rotary scheme
    int head_dim = 0;
    int64_t trained_length = 0; // L, >= 1
    int64_t length = 0;         // N, >= 1: the positions reached (the last position + 1)
    int64_t reach = 0;          // a sliding window or a chunk, in positions; 0: none
    // Empty, or one entry per band of bands(scheme, head_dim): the largest distance that band's
    // pairs see in the N positions (finite, >= 0), in place of D(N).
    std::vector<double> band_distances;
    bool scaled_after_training = false; // linear and NTK-aware scalings only (see above)
};

struct UnseenPairs {
    int64_t trained_distance = 0; // D(L)
    int64_t distance = 0;         // D(N)
    // Per pair (rotary_dim / 2 entries): theta_j^train, theta_j(N), the largest distance D_j(N) and
    // angle theta_j(N) * D_j(N) it meets, the largest angle training showed theta_j^train * D(L),
    // and the limit past which an angle is unseen: theta_j^train * (D(L) + 1), or +infinity for a
    // pair that turned a full period in training or does not rotate.
    std::vector<double> trained_frequencies, frequencies, distances, angles, seen_angles, limits;
    std::vector<uint8_t> unseen; // 1 where the pair meets angles unseen in training
    int pairs = 0;               // rotary_dim / 2
    int rotated = 0;             // pairs with theta_j(N) > 0
    int count = 0;               // pairs unseen
    // Where theta_j^train * L = 2 pi, as a fractional pair index (log-linear between the two pairs
    // around it; before the first or past the last pair along the two nearest; never past the
    // rotating pairs of proportional RoPE): the pairs before it turn a full period within L
    // tokens. For plain RoPE it is
    // split_fraction(L, base) * pairs (docs/schemes.md section 6.5); for a layer it follows the
    // layer's own trained frequencies.
    double split_pair = 0;
};

// The verdicts above. An error naming the argument unless the scheme is rotary and valid for
// head_dim, trained_length and length are integers in [1, 2^53], reach one in [0, 2^53], and
// band_distances empty or one finite number >= 0 per band; *out is then left unchanged.
Status unseen_pairs(const UnseenRequest& request, UnseenPairs* out);

} // namespace hirope
