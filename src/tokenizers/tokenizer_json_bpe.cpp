// The tokenizer of a tokenizer.json (tokenizer_json_bpe.h): the pipeline over the normalizer
// steps, added tokens, pre-tokenizer steps and ranked BPE merges, with each token's input offsets.
#include "tokenizers/tokenizer_json_bpe.h"

#include "tokenizers/unicode.h"

#include <algorithm>
#include <functional>

namespace hirope {
namespace tokenizer_json {

void JsonBpe::encode(std::string_view text, std::vector<Token>* out,
                     const EncodeOptions& options) const {
    Work w;
    encode_with(text, options, out, &w);
}

void JsonBpe::normalize(std::string_view text, std::string* out,
                        std::vector<uint32_t>* from) const {
    Mapped m, tmp;
    OpScratch sc;
    m.text.assign(text);
    m.from.resize(text.size());
    for (uint32_t i = 0; i < m.from.size(); ++i) m.from[i] = i;
    m.end = static_cast<uint32_t>(text.size());
    if (nfc_) {
        std::string norm;
        std::vector<unicode::NfcChange> changes;
        if (unicode::nfc(text, &norm, &changes)) {
            m.text = norm;
            m.from.resize(norm.size());
            for (uint32_t i = 0; i < norm.size(); ++i)
                m.from[i] = unicode::nfc_original_offset(changes, i);
        }
    }
    for (const TextOp& op : norm_ops_) apply_op(op, &m, &tmp, &sc);
    *out = std::move(m.text);
    if (from) {
        *from = std::move(m.from);
        from->push_back(m.end);
    }
}

size_t JsonBpe::encode_peak(std::string_view text, std::vector<Token>* out) const {
    Work w;
    encode_with(text, EncodeOptions(), out, &w);
    w.note(*out);
    return w.peak;
}

void JsonBpe::encode_with(std::string_view text, const EncodeOptions& options,
                          std::vector<Token>* out, Work* work) const {
    if (spm_ || !norm_ops_.empty()) {
        encode_spm(text, options, out, work);
        return;
    }
    Work& w = *work;
    w.max_tokens = options.max_tokens;
    std::vector<Section>& sections = w.sections;
    split_added(text, stage1_, 0, options.special_tokens, &sections);
    std::string norm;
    std::vector<unicode::NfcChange> changes;
    for (const Section& s : sections) {
        if (out->size() > w.max_tokens) return;
        if (s.token >= 0) {
            out->push_back({added_[s.token].id, s.start, s.end});
            continue;
        }
        std::string_view part = text.substr(s.start, s.end - s.start);
        bool changed = false;
        if (nfc_) changed = unicode::nfc(part, &norm, &changes);
        std::string_view normalized = changed ? std::string_view(norm) : part;
        auto map = [&](uint32_t off) {
            return s.start + (changed ? unicode::nfc_original_offset(changes, off) : off);
        };
        std::vector<Section>& subs = w.subs;
        split_added(normalized, stage2_, 0, options.special_tokens, &subs);
        for (const Section& u : subs) {
            if (out->size() > w.max_tokens) return;
            if (u.token >= 0) {
                out->push_back({added_[u.token].id, map(u.start), map(u.end)});
                continue;
            }
            const size_t first = out->size();
            encode_section(normalized, u.start, u.end, &w, out);
            for (size_t k = first; k < out->size(); ++k) {
                (*out)[k].start = map((*out)[k].start);
                (*out)[k].end = map((*out)[k].end);
            }
        }
    }
}

void JsonBpe::encode_spm(std::string_view text, const EncodeOptions& options,
                         std::vector<Token>* out, Work* work) const {
    Work& w = *work;
    std::vector<Section>&sections = w.sections, &subs = w.subs;
    split_added(text, stage1_, 0, options.special_tokens, &sections);
    for (const Section& s : sections) {
        if (s.token >= 0) {
            out->push_back({added_[s.token].id, s.start, s.end});
            continue;
        }
        const bool first = s.start == 0; // the reference's section_index 0
        Mapped& m = w.norm;
        m.text.assign(text.substr(s.start, s.end - s.start));
        m.from.resize(m.text.size());
        for (uint32_t i = 0; i < m.from.size(); ++i) m.from[i] = s.start + i;
        m.end = s.end;
        for (const TextOp& op : norm_ops_) {
            apply_op(op, &m, &w.tmp, &w.ops);
            w.note(*out);
        }
        w.note(*out);
        Mapped().from.swap(w.tmp.from); // the copy is not needed past this point
        std::string().swap(w.tmp.text);
        split_added(m.text, stage2_, 0, options.special_tokens, &subs);
        for (const Section& u : subs) {
            if (u.token >= 0) {
                out->push_back({added_[u.token].id, m.at(u.start), m.at(u.end)});
                continue;
            }
            const size_t section_first = out->size();
            if (metaspace_) {
                Mapped& p = w.piece;
                p.text.assign(m.text, u.start, u.end - u.start);
                p.from.assign(m.from.begin() + u.start, m.from.begin() + u.end);
                p.end = m.at(u.end);
                apply_op(TextOp::make_replace(" ", ms_replacement_), &p, &w.tmp, &w.ops);
                const bool starts = p.text.compare(0, ms_replacement_.size(), ms_replacement_) == 0;
                if (!starts && (ms_prepend_ == 2 || (ms_prepend_ == 1 && first)))
                    apply_op(TextOp::make_prepend(ms_replacement_), &p, &w.tmp, &w.ops);
                const uint32_t n = static_cast<uint32_t>(p.text.size());
                if (!ms_split_) {
                    spm_bpe(p, Span{0, n}, &w, out);
                } else {
                    // Split on the replacement, each merged with what follows it.
                    uint32_t begin = 0;
                    for (size_t k = p.text.find(ms_replacement_, 1); k != std::string::npos;
                         k = p.text.find(ms_replacement_, k + ms_replacement_.size())) {
                        if (k > begin) spm_bpe(p, Span{begin, static_cast<uint32_t>(k)}, &w, out);
                        begin = static_cast<uint32_t>(k);
                    }
                    if (n > begin) spm_bpe(p, Span{begin, n}, &w, out);
                }
            } else {
                w.mapped = &m;
                encode_section(m.text, u.start, u.end, &w, out);
                if (!spm_) // byte-level tokens are spans of m.text
                    for (size_t k = section_first; k < out->size(); ++k) {
                        (*out)[k].start = m.at((*out)[k].start);
                        (*out)[k].end = m.at((*out)[k].end);
                    }
            }
            if (fuse_unk_ && unk_id_ >= 0) {
                size_t keep = section_first;
                for (size_t k = section_first; k < out->size(); ++k) {
                    if (keep > section_first && (*out)[k].id == unk_id_ &&
                        (*out)[keep - 1].id == unk_id_) {
                        (*out)[keep - 1].end = (*out)[k].end;
                        continue;
                    }
                    (*out)[keep++] = (*out)[k];
                }
                out->resize(keep);
            }
        }
    }
}

int32_t JsonBpe::char_id(std::string_view c, uint32_t cp) const {
    if (cp < kSmallChars) return small_char_id_[cp]; // decode rejects overlong forms
    auto it = by_bytes_.find(c);
    return it == by_bytes_.end() ? kUnknown : it->second;
}

void JsonBpe::spm_bpe(const Mapped& m, Span p, Work* w, std::vector<Token>* out) const {
    const std::string_view text(m.text);
    if (ignore_merges_) {
        auto it = by_bytes_.find(text.substr(p.start, p.end - p.start));
        if (it != by_bytes_.end()) {
            out->push_back({it->second, m.at(p.start), m.at(p.end)});
            return;
        }
    }
    auto& nodes = w->nodes;
    size_t chars = 0;
    for (uint32_t i = p.start; i < p.end; ++chars) {
        size_t len;
        unicode::decode(text, i, &len);
        i += static_cast<uint32_t>(len);
    }
    bpe::reserve_exact(&nodes, chars);
    for (uint32_t i = p.start; i < p.end;) {
        size_t len;
        const uint32_t cp = unicode::decode(text, i, &len);
        const int32_t k = static_cast<int32_t>(nodes.size());
        nodes.push_back({char_id(text.substr(i, len), cp), i, k - 1, k + 1});
        i += static_cast<uint32_t>(len);
    }
    const int32_t count = static_cast<int32_t>(nodes.size());
    bpe::merge(&nodes, p.end, &w->heap, bpe::MergeList{merges_});
    w->note(*out);
    for (int32_t i = 0; i < count; i = nodes[i].next) {
        const bpe::Symbol& nd = nodes[i];
        const uint32_t end = bpe::symbol_end(nodes, i, p.end);
        if (nd.id >= 0) {
            out->push_back({nd.id, m.at(nd.start), m.at(end)});
            continue;
        }
        bool all = byte_fallback_;
        for (uint32_t b = nd.start; all && b < end; ++b)
            all = byte_token_[static_cast<unsigned char>(text[b])] >= 0;
        if (all) {
            for (uint32_t b = nd.start; b < end; ++b)
                out->push_back(
                    {byte_token_[static_cast<unsigned char>(text[b])], m.at(b), m.at(b + 1)});
        } else if (unk_id_ >= 0) {
            out->push_back({unk_id_, m.at(nd.start), m.at(end)});
        }
    }
    w->note(*out);
}

void JsonBpe::split_added(std::string_view text, const AddedTrie& trie, uint32_t base,
                          bool special_tokens, std::vector<Section>* out) const {
    out->clear();
    uint32_t text_start = 0;
    const uint32_t n = static_cast<uint32_t>(text.size());
    if (!trie.empty()) {
        for (uint32_t i = 0; i < n;) {
            size_t len = 0;
            const int32_t t = trie.longest(text, i, &len);
            if (t < 0) {
                ++i;
                continue;
            }
            if (added_[t].special && !special_tokens) { // text is text: the marker stays text
                i += static_cast<uint32_t>(len);
                continue;
            }
            if (i > text_start) out->push_back({base + text_start, base + i, -1});
            out->push_back({base + i, base + i + static_cast<uint32_t>(len), t});
            i += static_cast<uint32_t>(len);
            text_start = i;
        }
    }
    if (n > text_start) out->push_back({base + text_start, base + n, -1});
    for (size_t k = 0; k < out->size(); ++k) {
        const Section& s = (*out)[k];
        if (s.token < 0) continue;
        if (added_[s.token].lstrip && k > 0 && (*out)[k - 1].token < 0) {
            Section& p = (*out)[k - 1];
            p.end = trim_end(text, base, p.start, p.end);
        }
        if (added_[s.token].rstrip && k + 1 < out->size() && (*out)[k + 1].token < 0) {
            Section& q = (*out)[k + 1];
            q.start = trim_start(text, base, q.start, q.end);
        }
    }
    out->erase(
        std::remove_if(out->begin(), out->end(), [](const Section& s) { return s.start == s.end; }),
        out->end());
}

uint32_t JsonBpe::trim_end(std::string_view text, uint32_t base, uint32_t start, uint32_t end) {
    // Walk forward remembering the end of the last non-space code point.
    uint32_t last = start;
    for (uint32_t i = start; i < end;) {
        size_t len;
        const uint32_t cp = unicode::decode(text, i - base, &len);
        i += static_cast<uint32_t>(len);
        if (!unicode::is_white_space(cp)) last = i;
    }
    return last;
}

uint32_t JsonBpe::trim_start(std::string_view text, uint32_t base, uint32_t start, uint32_t end) {
    uint32_t i = start;
    while (i < end) {
        size_t len;
        const uint32_t cp = unicode::decode(text, i - base, &len);
        if (!unicode::is_white_space(cp)) break;
        i += static_cast<uint32_t>(len);
    }
    return i;
}

void JsonBpe::encode_section(std::string_view text, uint32_t start, uint32_t end, Work* w,
                             std::vector<Token>* out) const {
    w->pieces.assign(1, Span{start, end});
    for (const Step& st : steps_) {
        if (st.kind == Step::byte_level) {
            for (const Span& p : w->pieces) {
                if (out->size() > w->max_tokens) return;
                byte_level(st, text, p, w, out);
            }
            return;
        }
        w->next.clear();
        for (const Span& p : w->pieces) split_piece(st, text, p, &w->re, &w->splits, &w->next);
        std::swap(w->pieces, w->next);
    }
    for (const Span& p : w->pieces) spm_bpe(*w->mapped, p, w, out);
}

void JsonBpe::byte_level(const Step& st, std::string_view text, Span p, Work* w,
                         std::vector<Token>* out) const {
    byte_level_split(st, text, p, &w->re, [&](Span span, bool prefix) {
        if (out->size() <= w->max_tokens) bpe(text, span, prefix, w, out);
    });
}

void JsonBpe::bpe(std::string_view text, Span p, bool prefix, Work* w,
                  std::vector<Token>* out) const {
    std::string_view piece = text.substr(p.start, p.end - p.start);
    if (ignore_merges_ && !prefix) {
        auto it = by_bytes_.find(piece);
        if (it != by_bytes_.end()) {
            out->push_back({it->second, p.start, p.end});
            return;
        }
    }
    if (ignore_merges_ && prefix) {
        std::string s = " ";
        s.append(piece);
        auto it = by_bytes_.find(s);
        if (it != by_bytes_.end()) {
            out->push_back({it->second, p.start, p.end});
            return;
        }
    }
    auto& nodes = w->nodes;
    bpe::reserve_exact(&nodes, p.end - p.start + (prefix ? 1 : 0));
    if (prefix) nodes.push_back({byte_id_[0x20], p.start, -1, 1});
    for (uint32_t i = p.start; i < p.end; ++i) {
        const int32_t k = static_cast<int32_t>(nodes.size());
        nodes.push_back({byte_id_[static_cast<unsigned char>(text[i])], i, k - 1, k + 1});
    }
    const int32_t count = static_cast<int32_t>(nodes.size());
    bpe::merge(&nodes, p.end, &w->heap, bpe::MergeList{merges_});
    for (int32_t i = 0; i < count; i = nodes[i].next)
        out->push_back({nodes[i].id, nodes[i].start, bpe::symbol_end(nodes, i, p.end)});
    w->note(*out);
}

} // namespace tokenizer_json

bool tokenizer_json_normalize(const Vocabulary& v, std::string_view text, std::string* out,
                              std::vector<uint32_t>* from) {
    const tokenizer_json::JsonBpe* bpe = dynamic_cast<const tokenizer_json::JsonBpe*>(&v);
    if (!bpe) return false;
    bpe->normalize(text, out, from);
    return true;
}

size_t tokenizer_json_encode_peak(const Vocabulary& v, std::string_view text,
                                  std::vector<Token>* out) {
    const tokenizer_json::JsonBpe* bpe = dynamic_cast<const tokenizer_json::JsonBpe*>(&v);
    if (!bpe) return 0;
    return bpe->encode_peak(text, out);
}

} // namespace hirope
