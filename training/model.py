"""The code model: a pre-norm decoder, RMSNorm, half-split RoPE, SwiGLU, tied embeddings; the
seeded previous-token head; RoPE attention scores for training."""
import math

import torch
import torch.nn.functional as F


class RMSNorm(torch.nn.Module):
    def __init__(self, d, eps):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.ones(d))
        self.eps = eps

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


class Block(torch.nn.Module):
    def __init__(self, m):
        super().__init__()
        d, f = m["d_model"], m["ffn_hidden"]
        self.heads = m["heads"]
        self.attn_norm = RMSNorm(d, m["norm_eps"])
        self.wqkv = torch.nn.Linear(d, 3 * d, bias=False)
        self.wo = torch.nn.Linear(d, d, bias=False)
        self.mlp_norm = RMSNorm(d, m["norm_eps"])
        self.w1 = torch.nn.Linear(d, f, bias=False)
        self.w3 = torch.nn.Linear(d, f, bias=False)
        self.w2 = torch.nn.Linear(f, d, bias=False)

    def forward(self, x, scores_fn):
        b, n, d = x.shape
        hd = d // self.heads
        q, k, v = self.wqkv(self.attn_norm(x)).split(d, dim=-1)
        q = q.view(b, n, self.heads, hd).transpose(1, 2)
        k = k.view(b, n, self.heads, hd).transpose(1, 2)
        v = v.view(b, n, self.heads, hd).transpose(1, 2)
        scores = scores_fn(q, k)  # b, heads, n, n (masked with -inf)
        attn = torch.softmax(scores, dim=-1) @ v
        x = x + self.wo(attn.transpose(1, 2).reshape(b, n, d))
        h = self.mlp_norm(x)
        return x + self.w2(F.silu(self.w1(h)) * self.w3(h))


class Model(torch.nn.Module):
    def __init__(self, m):
        super().__init__()
        self.m = m
        self.emb = torch.nn.Embedding(m["vocab"], m["d_model"])
        self.blocks = torch.nn.ModuleList(Block(m) for _ in range(m["layers"]))
        self.norm = RMSNorm(m["d_model"], m["norm_eps"])
        torch.nn.init.normal_(self.emb.weight, std=0.02)
        for blk in self.blocks:
            for lin in (blk.wqkv, blk.w1, blk.w3):
                torch.nn.init.normal_(lin.weight, std=0.02)
            for lin in (blk.wo, blk.w2):  # residual projections, scaled by depth
                torch.nn.init.normal_(lin.weight, std=0.02 / math.sqrt(2 * m["layers"]))

    def hidden(self, ids, scores_fn):
        """The final normed states, before the output layer."""
        x = self.emb(ids)
        for blk in self.blocks:
            x = blk(x, scores_fn)
        return self.norm(x)

    def forward(self, ids, scores_fn):
        return self.hidden(ids, scores_fn) @ self.emb.weight.T


def inverse_frequencies(hd, base):
    return 1.0 / (base ** (torch.arange(0, hd // 2, dtype=torch.float64) * 2.0 / hd))


def seed_previous_token_head(model, init, seed):
    """A fresh model's head init["head"] of layer init["layer"] made a previous-token head: every
    embedding gets a shared component of norm init["common"] along one random direction u, and the
    head's query and key read u, with the query turned back by one position's RoPE angle in
    every pair, so that its scores peak one token back whatever the tokens are. Its values, and
    everything else, start as usual and are trained.

    Why: copying needs an induction circuit, and its first half, a head that attends to the
    previous token, never formed in the token model trained from a plain init (no layer-0 head
    put more than 0.03 of its attention one token back after 1,000 steps; the byte model's puts
    0.83). RoPE without biases can only attend by position through a component that all inputs
    share, and the token model's embeddings had none. The shared component changes no output:
    with tied embeddings it adds the same amount to every logit."""
    m = model.m
    d, heads = m["d_model"], m["heads"]
    hd = d // heads
    gen = torch.Generator().manual_seed(seed)
    u = torch.randn(d, generator=gen)
    u /= u.norm()
    with torch.no_grad():
        model.emb.weight += init["common"] * u
        # After the layer's RMSNorm the shared part is about sqrt(d) * common / |embedding| of u;
        # 1/sqrt(d) per unit keeps the query and key near init["strength"] per pair.
        w = model.blocks[init["layer"]].wqkv.weight  # rows: queries, keys, values
        theta = inverse_frequencies(hd, m["rope_base"]).float()
        scale = init["strength"] / math.sqrt(d)
        at = init["head"] * hd
        for p in range(hd // 2):
            w[at + p] = scale * math.cos(theta[p]) * u
            w[at + p + hd // 2] = -scale * math.sin(theta[p]) * u
            w[d + at + p] = scale * u
            w[d + at + p + hd // 2] = 0.0


def rope_scores(n, hd, base, device):
    """Training attention: RoPE in the half-split layout (pairs j, j + hd/2), causal."""
    inv = inverse_frequencies(hd, base).to(device)
    ang = torch.arange(n, dtype=torch.float64, device=device)[:, None] * inv[None, :]
    cos = torch.cat([ang.cos(), ang.cos()], -1).float()
    sin = torch.cat([ang.sin(), ang.sin()], -1).float()
    mask = torch.full((n, n), float("-inf"), device=device).triu(1)

    def rot(x):
        x1, x2 = x[..., : hd // 2], x[..., hd // 2:]
        return x * cos + torch.cat([-x2, x1], -1) * sin

    def fn(q, k):
        return (rot(q) @ rot(k).transpose(-1, -2)) / math.sqrt(hd) + mask

    return fn
