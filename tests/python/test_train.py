"""The trainer's PyTorch parts that decide what a training step learns (training/train.py,
training/model.py, training/data.py) and the copying circuit's scores (training/circuits.py): the
step loss with a reduced output vocabulary, the seeded previous-token head, the previous/induction
scores. Needs Debian's python3-torch, so scripts/test.sh runs it with /usr/bin/python3,
from the repository root: /usr/bin/python3 -m unittest tests.python.test_train (or -m pytest)."""
import math
import random
import unittest

import torch
import torch.nn.functional as F

from training import circuits, train
from training.data import token_batches
from training.model import Model, rope_scores, seed_previous_token_head

SMALL = {"vocab": 60, "d_model": 64, "layers": 2, "heads": 2, "ffn_hidden": 96,
         "rope_base": 10000, "norm_eps": 1e-5}


def small_model(seed=0):
    torch.manual_seed(seed)
    return Model(dict(SMALL))


class StepLoss(unittest.TestCase):
    def setUp(self):
        self.model = small_model()
        gen = torch.Generator().manual_seed(3)
        self.x = torch.randint(0, SMALL["vocab"], (3, 20), generator=gen)
        self.y = torch.randint(0, SMALL["vocab"], (3, 20), generator=gen)
        self.fn = rope_scores(20, SMALL["d_model"] // SMALL["heads"], SMALL["rope_base"], "cpu")
        with torch.no_grad():
            self.logits = self.model(self.x, self.fn)

    def brute(self, mask, kept):
        """Mean over the selected positions whose target is in kept of -log softmax over kept."""
        total, count = 0.0, 0
        for b in range(3):
            for t in range(20):
                if mask is not None and not mask[b, t]:
                    continue
                target = int(self.y[b, t])
                if kept is not None and target not in kept:
                    continue
                cols = kept if kept is not None else list(range(SMALL["vocab"]))
                row = self.logits[b, t, cols].double()
                total += float(torch.logsumexp(row, 0) - row[cols.index(target)])
                count += 1
        return total / count

    def test_full_vocabulary_is_plain_cross_entropy(self):
        with torch.no_grad():
            got = train.step_loss(self.model, self.x, self.y, self.fn).item()
        want = F.cross_entropy(self.logits.reshape(-1, SMALL["vocab"]), self.y.reshape(-1)).item()
        self.assertAlmostEqual(got, want, places=5)
        self.assertAlmostEqual(got, self.brute(None, None), places=5)

    def test_reduced_vocabulary_and_positions(self):
        rng = random.Random(5)
        for _ in range(10):
            kept = rng.sample(range(SMALL["vocab"]), rng.randint(5, 40))
            mask = torch.rand(3, 20, generator=torch.Generator().manual_seed(rng.randrange(99))) < 0.6
            with torch.no_grad():
                got = train.step_loss(self.model, self.x, self.y, self.fn, mask,
                                      torch.tensor(kept)).item()
            self.assertAlmostEqual(got, self.brute(mask, kept), places=4)

    def test_gradients_reach_only_kept_output_rows_through_the_output_layer(self):
        # Input tokens outside kept still get gradient (they are read); an id that is neither read
        # nor kept gets none.
        x = torch.full((1, 20), 1)
        y = torch.full((1, 20), 2)
        self.model.zero_grad()
        train.step_loss(self.model, x, y, self.fn, None, torch.tensor([2, 3, 4])).backward()
        grad = self.model.emb.weight.grad
        self.assertGreater(grad[1].abs().sum().item(), 0)
        self.assertGreater(grad[3].abs().sum().item(), 0)
        self.assertEqual(grad[10].abs().sum().item(), 0)


class PatternScores(unittest.TestCase):
    def test_by_hand(self):
        ids = [1, 2, 3, 1, 2, 3]
        n = len(ids)
        previous = torch.zeros(n, n)
        previous[0, 0] = 1
        for t in range(1, n):
            previous[t, t - 1] = 1
        self.assertEqual(circuits.pattern_scores(previous, ids), (1.0, 0.0))
        # Rows 3, 4, 5 (tokens 1, 2, 3 again) attend to 1, 2, 3: just after their earlier copies.
        induction = previous.clone()
        for t in (3, 4, 5):
            induction[t] = 0
            induction[t, t - 2] = 1
        prev, ind = circuits.pattern_scores(induction, ids)
        self.assertAlmostEqual(ind, 1.0)
        self.assertAlmostEqual(prev, 2 / 5)
        # Uniform attention: each of the 3 repeating queries puts 1/(t+1) on one position.
        uniform = torch.tril(torch.ones(n, n)) / torch.arange(1, n + 1)[:, None]
        self.assertAlmostEqual(circuits.pattern_scores(uniform, ids)[1], (1 / 4 + 1 / 5 + 1 / 6) / 3,
                               places=6)
        self.assertIsNone(circuits.pattern_scores(uniform[:3, :3], ids[:3])[1])


class SeededPreviousTokenHead(unittest.TestCase):
    def test_the_head_attends_one_token_back_and_no_other_does(self):
        model = small_model(1)
        before = model.emb.weight.detach().clone()
        seed_previous_token_head(model, {"layer": 0, "head": 1, "common": 0.3, "strength": 6}, 9)
        shared = (model.emb.weight.detach() - before)
        # One shared component of norm 0.3 in every row.
        self.assertTrue(torch.allclose(shared, shared[0].expand_as(shared), atol=1e-6))
        self.assertAlmostEqual(shared[0].norm().item(), 0.3, places=5)
        rng = random.Random(2)
        windows = [[rng.randrange(SMALL["vocab"]) for _ in range(128)] for _ in range(4)]
        hd = SMALL["d_model"] // SMALL["heads"]
        scores = circuits.head_scores(model, windows,
                                      lambda n: rope_scores(n, hd, SMALL["rope_base"], "cpu"))
        self.assertGreater(scores[(0, 1)][0], 0.5)
        self.assertLess(scores[(0, 0)][0], 0.1)
        # Fresh heads attend about uniformly: 1/(t+1) one back, about 2 ln(n)/n on average.
        self.assertLess(scores[(1, 0)][0], 0.1)
        self.assertEqual(circuits.strongest(scores)["previous"][:2], [0, 1])
        self.assertEqual(train.circuit_heads(model, torch.tensor(sum(windows, [])), 128, 4),
                         circuits.strongest(scores))

    def test_the_shared_component_moves_every_logit_alike(self):
        # With tied embeddings, adding u to every row adds h.u to every logit of a position: the
        # softmax over the output is unchanged for the same final states.
        model = small_model(2)
        h = torch.randn(5, SMALL["d_model"])
        before = torch.log_softmax(h @ model.emb.weight.T, -1)
        seed_previous_token_head(model, {"layer": 0, "head": 0, "common": 0.3, "strength": 6}, 4)
        after = torch.log_softmax(h @ model.emb.weight.T, -1)
        self.assertTrue(torch.allclose(before, after, atol=1e-5))


class CopyControl(unittest.TestCase):
    def test_second_occurrence_and_its_part_after_the_first_unit(self):
        # Two token probes of one style and a byte probe with a one-byte second occurrence (no
        # part after its first unit): every figure from per-position losses computed here.
        model = small_model(4)
        rng = random.Random(5)
        probes = [{"style": "a", "ids": [rng.randrange(SMALL["vocab"]) for _ in range(30)],
                   "first_tokens": [3, 7], "second_tokens": [20, 24]},
                  {"style": "a", "ids": [rng.randrange(SMALL["vocab"]) for _ in range(25)],
                   "first_tokens": [2, 5], "second_tokens": [15, 17]},
                  {"style": "b", "text": bytes(rng.randrange(SMALL["vocab"]) for _ in range(12)),
                   "first": [2, 3], "second": [9, 10]}]
        hd = SMALL["d_model"] // SMALL["heads"]

        def losses(seq):  # losses[t]: bits for position t + 1
            ids = torch.tensor([list(seq)])
            with torch.no_grad():
                logits = model(ids, rope_scores(len(seq), hd, SMALL["rope_base"], "cpu"))[0]
            return [float(torch.logsumexp(logits[t].double(), 0) - logits[t, ids[0, t + 1]])
                    / math.log(2) for t in range(len(seq) - 1)]

        def mean(xs):
            return sum(xs) / len(xs)

        l0, l1, l2 = losses(probes[0]["ids"]), losses(probes[1]["ids"]), losses(probes[2]["text"])
        out, per = train.copy_control(model, probes, "cpu")
        self.assertAlmostEqual(per[0][0], mean(l0[2:6]), places=4)
        self.assertAlmostEqual(per[0][1], mean(l0[19:23]), places=4)
        self.assertAlmostEqual(out["a"]["second"], (mean(l0[19:23]) + mean(l1[14:16])) / 2, places=3)
        self.assertAlmostEqual(out["a"]["after_first"], (mean(l0[20:23]) + l1[15]) / 2, places=3)
        self.assertAlmostEqual(out["b"]["second"], l2[8], places=3)
        self.assertIsNone(out["b"]["after_first"])


class TokenBatches(unittest.TestCase):
    def test_uniform_repeated_blocks_reach_the_rare_ids(self):
        # A corpus where id 1 is 99% of the tokens and ids 2..41 occur once each.
        stream = torch.tensor([1] * 4000 + list(range(2, 42)))
        gen = torch.Generator().manual_seed(0)

        def rare_share(uniform):
            augment = {"token_repeats": {"fraction": 1.0, "sizes": [8, 8], "gap": 0,
                                         "uniform": uniform}}
            x, _ = next(token_batches(stream, b"", 64, 16, gen, None, augment, seed=2))
            return (x != 1).float().mean().item()

        self.assertLess(rare_share(0.0), 0.1)
        self.assertGreater(rare_share(1.0), 0.9)


class Allocator(unittest.TestCase):
    def test_glibc_takes_the_settings(self):
        self.assertTrue(train.keep_freed_memory())


if __name__ == "__main__":
    unittest.main()
