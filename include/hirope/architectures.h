// hirope checkpoint architectures: which Hugging Face decoders a checkpoint may be, as data, and
// the binding of a checkpoint's tensors to one of them (the hirope_checkpoint library,
// src/checkpoint/architectures.cpp), checked before any tensor byte is read.
//
// As llama.cpp does (src/llama-arch.cpp: a table of tensor names per architecture; the loader
// checks every shape and refuses tensors nobody asked for), an architecture here is a row of data:
// its tensor names under the decoder's prefix, the norm and its epsilon key, the activation, the
// MLP's form, the biases and the keys that switch them on, q/k norms, the embedding scale, the
// final soft-cap, and the defaults of transformers' config class for the keys a config.json may
// leave out (save_pretrained writes only the values that differ from them). The forward reads the
// row; there is no code per architecture. The per-layer positions, masks, softmax scale and
// attention soft-cap come from the config reader (read_model_config,
// include/hirope/model_config.h).
//
// Shapes are PyTorch's [out, in] (nn.Linear's weight). H hidden_size, I intermediate_size, V
// vocab_size, nH num_attention_heads, nKV num_key_value_heads (grouped-query attention: query head
// h reads key/value head h / (nH / nKV); absent, it is nH or the class's default), D head_dim
// (absent: the class's default, else H / nH). Every architecture reads these keys under those
// names (a wrapper's text_config first: gemma3), and num_hidden_layers, tie_word_embeddings.
//
// The architectures (transformers' src/transformers/models/<type>/modeling_<type>.py and
// configuration_<type>.py; "L" is the layer index; every name is under the prefix "model." except
// lm_head.weight):
//   llama       Llama 2/3.x, CodeLlama, SmolLM2 (LlamaAttention, LlamaMLP, LlamaRMSNorm).
//               embed_tokens.weight [V,H]; layers.L.input_layernorm.weight [H];
//               layers.L.self_attn.{q,k,v,o}_proj.weight [nH*D,H] [nKV*D,H] [nKV*D,H] [H,nH*D],
//               with .bias [nH*D] [nKV*D] [nKV*D] [H] when attention_bias (default false);
//               layers.L.post_attention_layernorm.weight [H] (the MLP's input norm);
//               layers.L.mlp.{gate,up,down}_proj.weight [I,H] [I,H] [H,I], with .bias when
//               mlp_bias (default false); norm.weight [H]; lm_head.weight [V,H].
//               RMSNorm x / sqrt(mean(x^2) + rms_norm_eps) * w; down(act(gate x) * up x) with
//               hidden_act (silu). tie_word_embeddings default false.
//   mistral     as llama with no bias at all (MistralAttention, MistralMLP: bias=False);
//               num_key_value_heads default 8.
//   qwen2       Qwen2.5, Qwen2.5-Coder: as llama, q/k/v_proj.bias always (Qwen2Attention:
//               bias=True), o_proj none, MLP none.
//   qwen3       as llama (q/k/v/o bias when attention_bias, MLP none) plus
//               layers.L.self_attn.{q,k}_norm.weight [D]: an RMSNorm (rms_norm_eps) of each
//               head's q and k after the projection, before RoPE. head_dim default 128.
//   gemma2      embeddings * sqrt(H); every norm Gemma's (1 + w) RMSNorm, in f32; four per layer:
//               input_layernorm (before attention), post_attention_layernorm (on attention's
//               output, before the residual add), pre_feedforward_layernorm (the MLP's input),
//               post_feedforward_layernorm (on the MLP's output); q/k/v/o bias when
//               attention_bias; GeGLU down(act(gate x) * up x) with hidden_activation
//               (gelu_pytorch_tanh); softmax scale query_pre_attn_scalar^-1/2 and the attention
//               soft-cap attn_logit_softcapping (LayerSetup); the logits soft-capped
//               c * tanh(z / c), c = final_logit_softcapping (default 30; null: none).
//               tie_word_embeddings default true; head_dim default 256.
//   gemma3_text as gemma2 plus q_norm/k_norm [D] ((1 + w) form), final_logit_softcapping
//               default none; sliding layers rotate with rope_local_base_freq (LayerSetup). The
//               multimodal Gemma3ForConditionalGeneration (config model_type gemma3 with a
//               text_config) stores the text decoder as language_model.model.* with
//               language_model.lm_head.weight (checkpoints saved before transformers 4.52:
//               _checkpoint_conversion_mapping), or model.language_model.* with lm_head.weight
//               (after); both are read, and its vision_tower / multi_modal_projector tensors are
//               skipped with a warning.
//   phi3        fused layers.L.self_attn.qkv_proj.weight [(nH + 2 nKV) * D, H] (rows: q, then k,
//               then v) and o_proj; fused layers.L.mlp.gate_up_proj.weight [2I, H] (rows [0, I)
//               the gate, [I, 2I) up: up * act(gate)) and down_proj; RMSNorm (rms_norm_eps,
//               default 1e-5); no bias; partial rotary (partial_rotary_factor: the setup's
//               rotary_dim).
//   starcoder2  nn.LayerNorm with weight and bias ((x - mean) / sqrt(var + norm_epsilon) * w + b,
//               default 1e-5) for input_layernorm, post_attention_layernorm and norm;
//               q/k/v/o with .bias when use_bias (default true); a plain MLP
//               layers.L.mlp.c_proj(act(layers.L.mlp.c_fc x)), c_fc [I,H], c_proj [H,I], with .bias
//               when use_bias; hidden_act (gelu_pytorch_tanh). tie_word_embeddings default true.
// Activations (transformers' activations.py ACT2CLS): silu and swish are x * sigmoid(x);
// gelu_pytorch_tanh, gelu_new and gelu_python_tanh are 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715
// x^3))); gelu and gelu_python are x * Phi(x) (erf). Any other value is refused.
//
// Binding (plan_checkpoint) checks, before any tensor byte is read, and names what was wrong:
// - the model type is one of the above (else the error lists them); the config's dims are
//   integers in range, nH a multiple of nKV, head_dim the one the position setup uses;
// - every tensor the forward reads is present, F32, F16 or BF16 (any mix), with exactly the shape
//   above (the message gives the expected shape and its formula);
// - every tensor the checkpoint holds is one the forward reads. Refused otherwise: a weight the
//   table does not describe means the config does not describe these weights (a bias the config
//   switched off, a layer past num_hidden_layers, another architecture's name), so the forward
//   would not be the model's. Exceptions, listed in the plan's warnings: rotary_emb.inv_freq
//   buffers (older saves; RoPE is recomputed from the config), a multimodal wrapper's vision tower
//   and projector, and lm_head.weight when the embeddings are tied (transformers ties the output
//   layer to embed_tokens after loading, so the stored copy is not used);
// - tied embeddings: tie_word_embeddings true (or the class's default) makes lm_head the
//   embedding; lm_head.weight absent with tie_word_embeddings false is tied too, with a warning
//   (llama.cpp's fallback; transformers would leave the layer at its random initialization);
// - a tensor name held by two files.
// Weights stay at their stored width: the plan locates each (file, offsets) and counts its stored
// bytes; check_memory refuses a model over a byte budget before anything is read.
#pragma once

#include "hirope/checkpoint.h"
#include "hirope/model_config.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace hirope {
namespace checkpoint {

enum class NormKind : uint8_t {
    rms,          // x / sqrt(mean(x^2) + eps) * w (LlamaRMSNorm)
    rms_one_plus, // x / sqrt(mean(x^2) + eps) * (1 + w), all in f32 (Gemma2RMSNorm, Gemma3RMSNorm)
    layer_norm,   // (x - mean(x)) / sqrt(var(x) + eps) * w + b (torch.nn.LayerNorm)
};

enum class Activation : uint8_t {
    silu,      // x * sigmoid(x)
    gelu_tanh, // 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3)))
    gelu,      // x * Phi(x) = 0.5 x (1 + erf(x / sqrt(2)))
};

enum class MlpKind : uint8_t {
    gated,       // down(act(gate x) * up x): gate_proj, up_proj, down_proj
    fused_gated, // gate_up_proj rows [0, I) gate, [I, 2I) up; down_proj (Phi-3)
    plain,       // down(act(up x)): c_fc (role up), c_proj (role down) (StarCoder2)
};

// What a weight is to the forward (the same role keeps its meaning in every architecture; the
// table says which name holds it).
enum class WeightRole : uint8_t {
    // model-wide
    embed,           // [V, H]
    final_norm,      // [H]
    final_norm_bias, // [H] (LayerNorm)
    lm_head,         // [V, H]; the embedding when tied
    // per layer
    attn_norm,      // [H] the attention's input norm
    attn_norm_bias, // [H]
    q,              // [nH * D, H]
    q_bias,         // [nH * D]
    k,              // [nKV * D, H]
    k_bias,         // [nKV * D]
    v,              // [nKV * D, H]
    v_bias,         // [nKV * D]
    qkv,            // [(nH + 2 nKV) * D, H]: q rows, then k, then v
    o,              // [H, nH * D]
    o_bias,         // [H]
    q_norm,         // [D] per head, before RoPE
    k_norm,         // [D]
    attn_post_norm, // [H] on the attention's output, before the residual add (Gemma)
    ffn_norm,       // [H] the MLP's input norm
    ffn_norm_bias,  // [H]
    ffn_post_norm,  // [H] on the MLP's output, before the residual add (Gemma)
    gate,           // [I, H]
    gate_bias,      // [I]
    up,             // [I, H]
    up_bias,        // [I]
    gate_up,        // [2 I, H]
    down,           // [H, I]
    down_bias,      // [H]
};
constexpr size_t kWeightRoleCount = static_cast<size_t>(WeightRole::down_bias) + 1;

const char* role_name(WeightRole role); // "q", "attn_norm" ...
bool is_layer_role(WeightRole role);    // false for embed, final_norm, final_norm_bias, lm_head

// When a table entry is one of the model's weights.
enum class Presence : uint8_t {
    always,
    attention_bias, // when the architecture's attention bias key is true
    mlp_bias,       // when its MLP bias key is true
};

struct TensorName {
    WeightRole role;
    const char* name; // under the decoder's prefix; "{L}" is the layer index
    Presence presence;
    // llama.cpp's name for it (src/llama-arch.cpp LLM_TENSOR_NAMES, "blk.%d.attn_q"), for
    // reference: a GGUF writer's name for the same weight.
    const char* gguf;
};

// Where a checkpoint keeps its decoder: tensor names start with `decoder`, the output layer is
// `lm_head` (a whole name).
struct Prefix {
    const char* decoder;
    const char* lm_head;
};

struct Architecture {
    const char* model_type;  // config.json's (of the text decoder: "gemma3_text")
    const char* description; // one line
    const char* source;      // transformers' files the row was written from
    NormKind norm;
    const char* norm_eps_key; // "rms_norm_eps", "norm_epsilon"
    double norm_eps_default;
    const char* activation_key; // "hidden_act", or Gemma's "hidden_activation"
    const char* activation_default;
    MlpKind mlp;
    bool fused_qkv;
    bool qk_norm;
    bool sandwich_norms;   // Gemma's post-attention and pre/post-feedforward norms
    bool embedding_scaled; // embeddings * sqrt(hidden_size)
    // The keys that switch the biases on (null: fixed at the default).
    const char* attention_bias_key;
    bool attention_bias_default;
    const char* mlp_bias_key;
    bool mlp_bias_default;
    // The logits' soft-cap key (null: none); its default when the key is absent (0: none).
    const char* final_softcap_key;
    double final_softcap_default;
    // The config class's defaults for the keys a file may leave out (0: none; num_key_value_heads
    // 0: num_attention_heads; head_dim 0: hidden_size / num_attention_heads).
    int64_t vocab_size, hidden_size, intermediate_size, num_attention_heads, num_key_value_heads,
        head_dim;
    bool tie_word_embeddings;
    const Prefix* prefixes; // the first is the plain text model's
    size_t prefix_count;
    const TensorName* tensors; // lm_head's is the prefix's, not listed here
    size_t tensor_count;
};

// The supported architectures, in the order above.
const std::vector<const Architecture*>& architectures();
// The row of a model type, or null.
const Architecture* find_architecture(std::string_view model_type);
// "llama, mistral, qwen2, qwen3, gemma2, gemma3_text (or gemma3 wrapping one), phi3, starcoder2"
std::string supported_model_types();

struct Dims {
    int64_t vocab = 0, hidden = 0, intermediate = 0, layers = 0, heads = 0, kv_heads = 0,
            head_dim = 0;
};

// The shape a role's weight must have (PyTorch's, [out, in]).
std::vector<uint64_t> expected_shape(WeightRole role, const Dims& dims);

// One weight the forward reads: where its bytes are, at their stored width.
struct WeightRef {
    WeightRole role = WeightRole::embed;
    int32_t layer = -1;       // -1: model-wide
    uint32_t file = 0;        // index into the files given to plan_checkpoint
    TensorInfo tensor;        // its header entry: name, dtype, shape, data_offsets in that file
    uint64_t file_offset = 0; // where its bytes start in the file: data_offset + begin
};

struct CheckpointPlan {
    const Architecture* architecture = nullptr;
    ModelSetup setup; // per layer: attention kind, RoPE scheme, softmax scale, attention soft-cap
    Dims dims;
    double norm_eps = 0;
    Activation activation = Activation::silu;
    std::string activation_name; // as config.json wrote it
    double embedding_scale = 1;  // sqrt(hidden_size) where the architecture scales, else 1
    double final_softcap = 0;    // 0: none
    bool attention_bias = false;
    bool mlp_bias = false;
    bool tied = false; // lm_head is the embedding
    Prefix prefix{"", ""};
    // Every weight the forward reads, each once: model-wide first, then layer by layer in the
    // table's order (a tied lm_head has no entry of its own).
    std::vector<WeightRef> weights;
    // Indices into weights by role (-1: none): model-wide, and per layer.
    std::array<int32_t, kWeightRoleCount> model_weights{};
    std::vector<std::array<int32_t, kWeightRoleCount>> layer_weights;
    uint64_t weight_bytes = 0; // the weights' stored bytes (what the forward keeps in memory)
    uint64_t parameters = 0;   // their elements
    // The config reader's (less those about what the plan models: the logits' soft-cap, the q/k
    // norms; setup.warnings keeps them all), then the binding's.
    std::vector<std::string> warnings;

    // The weight of `role` (layer -1 for model-wide roles; lm_head gives the embedding when tied),
    // or null.
    const WeightRef* weight(WeightRole role, int layer = -1) const;
};

// Binds a checkpoint: config.json's text and the parsed headers of its safetensors files (one
// model.safetensors, or every shard after check_shards; `file` names each in messages). Checks
// the rules above; on error *out is left empty. The headers need not outlive the plan.
Status plan_checkpoint(std::string_view config_json, const std::vector<ShardHeader>& files,
                       CheckpointPlan* out);

// wasm32's address space: 4 GiB (32-bit pointers; -sMAXIMUM_MEMORY=4GB). The module's own
// ceiling is HeapCeiling::bytes until the build raises it.
constexpr uint64_t kWasm32MemoryBytes = uint64_t{4} << 30;

// The forward's working memory in bytes for `tokens` tokens, f32 activations (an upper estimate of
// what the forward allocates beside the weights):
//   4 * ( tokens * (2 H + (2 nH + 2 nKV) D + M)   the residual stream and its normed copy; q, k, v;
//                                                 the attention's output; the MLP's activations,
//                                                 M = 2 I gated, I plain
//       + layers * tokens * 2 nKV D               every layer's keys and values (the cache)
//       + tokens * tokens                         one head's attention probabilities
//       + logits_rows * V )                       the logits kept (every row for logits, a block
//                                                 of rows for a loss)
// tokens and logits_rows are clamped to [0, 2^24].
uint64_t forward_working_bytes(const CheckpointPlan& plan, int64_t tokens, int64_t logits_rows);

// An error, with the figures, when weight_bytes + forward_working_bytes(tokens, logits_rows)
// exceeds budget_bytes: "qwen2 checkpoint (3,085,938,688 parameters) needs 6,171,877,376 bytes for
// its weights (BF16, at their stored width) + 412,876,800 bytes for a 512-token forward =
// 6,584,754,176 bytes (6.58 GB), over the budget of 4,294,967,296 bytes" (Qwen2.5-3B's shape; the
// 0.5B's 988,065,536 + 352,583,680 bytes fit). tokens and logits_rows must be in [0, 2^24].
Status check_memory(const CheckpointPlan& plan, uint64_t budget_bytes, int64_t tokens,
                    int64_t logits_rows);

// ---------------------------------------------------------------------------------------------
// A checkpoint folder, opened: the order in which its files are read and checked, written once
// here for every binding (each gives only the file access). config.json first (at most
// ModelConfigLimits::max_bytes); then model.safetensors.index.json when the folder has one (the
// shards it names, checked with check_shards), else model.safetensors; of each safetensors file
// its first 8 bytes, then its 8 + N header bytes (safetensors_header_length's N, within
// Limits::max_header_bytes), never a tensor byte; then plan_checkpoint.
struct CheckpointFolder {
    // Whether the folder holds `name`, and its size in bytes.
    std::function<bool(const std::string& name, uint64_t* size)> stat;
    // Reads `size` bytes at `offset` of file `name` into dst.
    std::function<Status(const std::string& name, uint64_t offset, uint64_t size, uint8_t* dst)>
        read;
};

struct OpenedCheckpoint {
    std::string config_json;
    std::vector<std::string> files; // the safetensors files, as the plan's WeightRef::file indexes
    CheckpointPlan plan;
};

// On error *out is left empty; the message names the file.
Status open_checkpoint(const CheckpointFolder& folder, OpenedCheckpoint* out,
                       const Limits& limits = Limits());

} // namespace checkpoint
} // namespace hirope
