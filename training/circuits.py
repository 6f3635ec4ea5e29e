"""The copying circuit's two heads, read off a model's attention: a previous-token head (attends one
position back) and an induction head (attends from a token to the positions just after its earlier
occurrences). Used by training/heads_check.py and logged by train.py at every evaluation."""
import torch


def pattern_scores(attention, ids):
    """(previous, induction) of one head's causal attention matrix (n x n, rows sum to 1) over a
    sequence of ids; induction is None when no token repeats."""
    n = len(ids)
    previous = float(attention.diagonal(-1).mean()) if n > 1 else 0.0
    seen = {}  # token -> positions so far
    total, count = 0.0, 0
    for t in range(n):
        after = [s + 1 for s in seen.get(ids[t], []) if s + 1 < t]
        if after:
            total += float(attention[t, after].sum())
            count += 1
        seen.setdefault(ids[t], []).append(t)
    return previous, (total / count if count else None)


def attention_maps(model, ids, scores_for):
    """Every layer's attention (layers x heads x n x n) for a 1-d tensor of ids; scores_for(n) is
    the attention score function of n positions (model.rope_scores: the training scheme)."""
    m = model.m
    d, heads = m["d_model"], m["heads"]
    hd = d // heads
    n = len(ids)
    fn = scores_for(n)
    maps = []
    with torch.no_grad():
        x = model.emb(ids[None])
        for blk in model.blocks:
            q, k, _ = blk.wqkv(blk.attn_norm(x)).split(d, dim=-1)
            q = q.view(1, n, heads, hd).transpose(1, 2)
            k = k.view(1, n, heads, hd).transpose(1, 2)
            maps.append(torch.softmax(fn(q, k), dim=-1)[0])
            x = blk(x, fn)
    return maps


def head_scores(model, windows, scores_for):
    """{(layer, head): (previous, induction)} averaged over windows (lists of ids)."""
    sums = {}
    for ids in windows:
        maps = attention_maps(model, torch.tensor(ids, dtype=torch.long), scores_for)
        for layer, heads in enumerate(maps):
            for head in range(heads.shape[0]):
                prev, ind = pattern_scores(heads[head], ids)
                acc = sums.setdefault((layer, head), [0.0, 0, 0.0, 0])
                acc[0] += prev
                acc[1] += 1
                if ind is not None:
                    acc[2] += ind
                    acc[3] += 1
    return {key: (a[0] / a[1], a[2] / a[3] if a[3] else None) for key, a in sorted(sums.items())}


def strongest(scores):
    """The strongest previous-token head and the strongest induction head (a later layer's) of
    head_scores: {"previous": [layer, head, score], "induction": [layer, head, score]}."""
    prev = max(scores.items(), key=lambda kv: kv[1][0])
    later = [kv for kv in scores.items() if kv[0][0] > 0 and kv[1][1] is not None]
    out = {"previous": [prev[0][0], prev[0][1], round(prev[1][0], 4)]}
    if later:
        ind = max(later, key=lambda kv: kv[1][1])
        out["induction"] = [ind[0][0], ind[0][1], round(ind[1][1], 4)]
    return out

