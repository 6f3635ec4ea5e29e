"""Reference scores for the inference-time schemes, from the relative-distance formulas
(docs/schemes.md sections 2.1, 3.1 - 3.2, 5 and 6.3): the score of query i and key j is
sum_p Re(q_p conj(k_p) exp(i * D_p(i, j) * theta_p)) with q_p = q[p] + i q[p + hd/2], D_p the
distance rule of pair p's band. The test vectors (export.py) are computed with these, and the C++
inference must match them."""
import math

import numpy as np
import torch

from .model import inverse_frequencies


def scheme_distances(scheme, n, units):
    """Per-band distance matrices (float64, n x n) and the band of every pair."""
    i = np.arange(n)[:, None].astype(np.float64)
    j = np.arange(n)[None, :].astype(np.float64)
    delta = i - j
    kind = scheme["type"]
    if kind == "rope":
        return [delta], None
    w = scheme["window"]
    if kind == "rerope":
        return [np.where(delta < w, delta, w)], None
    if kind == "self_extend":
        g = scheme["group"]
        far = np.floor(i / g) - np.floor(j / g) + w - math.floor(w / g)
        return [np.where(delta < w, delta, far)], None
    if kind == "hirope":
        f = np.asarray(units, dtype=np.float64)
        far = f[:, None] - f[None, :] + w - 1
        return [delta, np.where(delta < w, delta, far)], "hirope"
    raise ValueError(kind)


def reference_scores(scheme, n, hd, base, units, device):
    inv = inverse_frequencies(hd, base)
    scaling = scheme.get("scaling")
    if scaling == "linear":
        inv = inv / scheme["factor"]
    elif scaling == "ntk":
        s = scheme["factor"]
        inv = inverse_frequencies(hd, base * s ** (hd / (hd - 2)))
    dists, split = scheme_distances(scheme, n, units)
    pairs = hd // 2
    band = np.zeros(pairs, dtype=np.int64)
    if split == "hirope":
        ds = 2 * round(scheme["ratio"] * hd / 2)  # round_to_even(ratio * d)
        band[ds // 2:] = 1
    # phase[p] = exp(i * D_band(p) * theta_p), n x n complex per pair
    phase = torch.stack([torch.polar(torch.ones(n, n, dtype=torch.float64),
                                     torch.from_numpy(dists[band[p]]) * inv[p])
                         for p in range(pairs)]).to(device)
    mask = torch.full((n, n), float("-inf"), dtype=torch.float64, device=device).triu(1)

    def fn(q, k):
        q = q.double()
        k = k.double()
        qc = torch.complex(q[..., :pairs], q[..., pairs:])  # b, h, n, pairs
        kc = torch.complex(k[..., :pairs], k[..., pairs:])
        prod = qc[..., :, None, :] * kc.conj()[..., None, :, :]  # b, h, n, n, pairs
        s = (prod * phase.permute(1, 2, 0)).real.sum(-1)
        return (s / math.sqrt(hd) + mask).float()

    return fn
