// Opening a checkpoint folder (include/hirope/architectures.h, open_checkpoint): which files are
// read, in which order, and how much of each, before plan_checkpoint binds them.
#include "hirope/architectures.h"

#include <algorithm>

namespace hirope {
namespace checkpoint {

namespace {

// The whole of a small file (config.json, the index), refused over `limit` bytes.
Status read_text(const CheckpointFolder& folder, const std::string& name, uint64_t limit,
                 std::string* out) {
    uint64_t size = 0;
    if (!folder.stat(name, &size)) return Status::error("the checkpoint folder has no " + name);
    if (size > limit)
        return Status::error(name + " is " + std::to_string(size) + " bytes, over the limit of " +
                             std::to_string(limit));
    out->assign(static_cast<size_t>(size), '\0');
    Status st = folder.read(name, 0, size, reinterpret_cast<uint8_t*>(&(*out)[0]));
    if (!st.ok()) return Status::error("reading " + name + ": " + st.message());
    return {};
}

// A safetensors file's header: its length from the first 8 bytes, then the header itself.
Status read_header(const CheckpointFolder& folder, const std::string& name, const Limits& limits,
                   Header* out) {
    uint64_t size = 0;
    if (!folder.stat(name, &size)) return Status::error("the checkpoint folder has no " + name);
    uint8_t first[8] = {};
    const uint64_t head = std::min<uint64_t>(8, size);
    Status st = folder.read(name, 0, head, first);
    if (!st.ok()) return Status::error("reading " + name + ": " + st.message());
    uint64_t n = 0;
    st = safetensors_header_length(first, static_cast<size_t>(head), size, &n, limits);
    if (!st.ok()) return Status::error(name + ": " + st.message());
    std::vector<uint8_t> bytes(static_cast<size_t>(8 + n));
    st = folder.read(name, 0, bytes.size(), bytes.data());
    if (!st.ok()) return Status::error("reading " + name + ": " + st.message());
    st = read_safetensors_header(bytes.data(), bytes.size(), size, out, limits);
    if (!st.ok()) return Status::error(name + ": " + st.message());
    return {};
}

} // namespace

Status open_checkpoint(const CheckpointFolder& folder, OpenedCheckpoint* out,
                       const Limits& limits) {
    *out = OpenedCheckpoint();
    if (!folder.stat || !folder.read)
        return Status::error("a checkpoint folder needs functions to stat and read its files");
    OpenedCheckpoint o;
    Status st = read_text(folder, "config.json", ModelConfigLimits().max_bytes, &o.config_json);
    if (!st.ok()) return st;
    const std::string index_name = "model.safetensors.index.json";
    uint64_t index_size = 0;
    ShardIndex index;
    const bool sharded = folder.stat(index_name, &index_size);
    if (sharded) {
        std::string text;
        st = read_text(folder, index_name, limits.max_index_bytes, &text);
        if (st.ok()) st = read_shard_index(text, &index, limits);
        if (!st.ok()) return Status::error(index_name + ": " + st.message());
        o.files = index.shards;
    } else {
        o.files = {"model.safetensors"};
    }
    std::vector<Header> headers(o.files.size());
    std::vector<ShardHeader> shards(o.files.size());
    for (size_t i = 0; i < o.files.size(); ++i) {
        st = read_header(folder, o.files[i], limits, &headers[i]);
        if (!st.ok()) return st;
        shards[i].file = o.files[i];
        shards[i].header = &headers[i];
    }
    if (sharded) {
        st = check_shards(index, shards);
        if (!st.ok()) return Status::error(index_name + ": " + st.message());
    }
    st = plan_checkpoint(o.config_json, shards, &o.plan);
    if (!st.ok()) return st;
    *out = std::move(o);
    return {};
}

} // namespace checkpoint
} // namespace hirope
