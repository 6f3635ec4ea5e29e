"""The trainer's copy-teaching helpers (training/copying.py): the rewrites, the copy-control probes
and the choice of loss positions. Standard library only (run by scripts/test.sh with the other tests/python files)."""
import random
import re
import unittest

from training import copying

CODE = b"".join(b"def helper_%d(value, other):\n    total = value + other\n    return total * %d\n\n"
                % (i, i) for i in range(40))


class CopyTargets(unittest.TestCase):
    def test_by_hand(self):
        none_common = [False] * 10
        all_common = [True] * 10
        row = [5, 6, 7, 8, 5, 6, 7, 8]
        # With every token common only the 4-gram repeat (5 6 7 8 ending at index 7) counts.
        self.assertEqual(copying.copy_targets(row, 4, all_common),
                         [False, False, False, False, False, False, True])
        # Uncommon tokens seen before count too: 5, 6 and 7 at indices 4-6.
        self.assertEqual(copying.copy_targets(row, 4, none_common),
                         [False, False, False, True, True, True, True])
        # A bigram rule: 6 after 5 at index 5 repeats, as do 7 and 8 after it.
        self.assertEqual(copying.copy_targets(row, 2, all_common),
                         [False, False, False, False, True, True, True])
        self.assertEqual(copying.copy_targets([3], 4, none_common), [])

    def test_against_the_definition(self):
        rng = random.Random(7)
        for _ in range(300):
            n = rng.randint(1, 5)
            row = [rng.randrange(6) for _ in range(rng.randint(1, 40))]
            common = [rng.random() < 0.5 for _ in range(6)]
            want = []
            for t in range(1, len(row)):
                gram = row[t - n + 1: t + 1] if t >= n - 1 else None
                repeat = gram is not None and any(row[s - n + 1: s + 1] == gram
                                                  for s in range(n - 1, t))
                earlier = row[t] in row[:t] and not common[row[t]]
                want.append(repeat or earlier)
            self.assertEqual(copying.copy_targets(row, n, common), want, (row, n, common))


class RepeatTokens(unittest.TestCase):
    def test_blocks_repeat(self):
        pool = list(range(1000, 1500))
        out = copying.repeat_tokens(pool, random.Random(5), 103, sizes=(5, 5), gap=0)
        self.assertEqual(len(out), 103)
        for at in range(0, 100, 10):  # without gaps: k tokens, the same k tokens, ...
            self.assertEqual(out[at: at + 5], out[at + 5: at + 10])
        self.assertTrue(set(out) <= set(pool))

    def test_uniform_blocks_draw_from_ids(self):
        pool = [7] * 900 + list(range(100, 200))  # one id is 90% of the corpus
        ids = list(range(100, 200)) + [7]
        for uniform, want in ((0.0, (0.8, 1.0)), (1.0, (0.0, 0.05))):
            out, copies = copying.repeat_tokens_marked(pool, random.Random(3), 4000, (10, 10), 0,
                                                       ids, uniform)
            self.assertTrue(set(out) <= set(pool))
            blocks = [t for t, c in zip(out, copies) if c]
            share = blocks.count(7) / len(blocks)
            self.assertTrue(want[0] <= share <= want[1], (uniform, share))
        # Half the blocks: some blocks of mostly 7s, some with none.
        out, copies = copying.repeat_tokens_marked(pool, random.Random(4), 4000, (10, 10), 0,
                                                   ids, 0.5)
        sevens = [out[at: at + 10].count(7) for at in range(0, 3990, 20)]
        self.assertTrue(any(n >= 6 for n in sevens) and any(n <= 1 for n in sevens), sevens)
        for at in range(0, 3990, 20):  # still each block followed by itself
            self.assertEqual(out[at: at + 10], out[at + 10: at + 20])
        # uniform 0 draws as before: the rows of earlier runs are unchanged.
        self.assertEqual(copying.repeat_tokens(pool, random.Random(8), 300, (3, 40), 25, ids, 0.0),
                         copying.repeat_tokens(pool, random.Random(8), 300, (3, 40), 25))

    def test_gaps_are_consecutive_pool_tokens(self):
        pool = list(range(0, 5000, 5))  # a gap is a run of consecutive entries: steps of 5
        rng = random.Random(9)
        out = copying.repeat_tokens(pool, rng, 513, sizes=(8, 8), gap=20)
        self.assertEqual(len(out), 513)
        # Replaying the generator gives each block's layout: seq, gap, seq.
        rng = random.Random(9)
        at = 0
        while at + 16 < 513:
            seq = [pool[rng.randrange(len(pool))] for _ in range(rng.randint(8, 8))]
            g = rng.randint(0, 20)
            start = rng.randrange(0, len(pool) - g)
            self.assertEqual(out[at: at + 8], seq)
            self.assertEqual(out[at + 8: at + 8 + g], pool[start: start + g])
            self.assertEqual(out[at + 8 + g: at + 16 + g][: 513 - (at + 8 + g)], seq[: 513 - (at + 8 + g)])
            at += 16 + g

    def test_marked_says_which_tokens_are_second_copies(self):
        pool = list(range(0, 5000, 5))
        for seed in range(10):
            out, copies = copying.repeat_tokens_marked(pool, random.Random(seed), 300, (3, 40), 25)
            self.assertEqual(len(out), 300)
            self.assertEqual(len(copies), 300)
            # The same generator as repeat_tokens: the same row for the same seed.
            self.assertEqual(out, copying.repeat_tokens(pool, random.Random(seed), 300, (3, 40), 25))
            # Every marked run equals the block just before its gap: walk the runs from the end.
            at = 0
            while at < 300:
                if not copies[at]:
                    at += 1
                    continue
                end = at
                while end < 300 and copies[end]:
                    end += 1
                k = end - at
                found = any(out[s: s + k] == out[at: end] and not any(copies[s: s + k])
                            for s in range(max(0, at - k - 25), at - k + 1))
                self.assertTrue(found or end == 300, (seed, at, k))
                at = end
            self.assertTrue(any(copies) and not all(copies))


class Augment(unittest.TestCase):
    def test_every_rewrite_keeps_the_length_and_copies(self):
        for kind in ("rename", "copy_span", "repeat", "insert"):
            for seed in range(20):
                rng = random.Random(seed)
                out = copying.augment(CODE, rng, {kind: 1.0}, 600)
                self.assertEqual(len(out), 601, kind)
                if kind == "repeat":  # a segment of 16-96 bytes, again and again
                    seg = out[:16]
                    self.assertGreaterEqual(out.count(seg), 2)

    def test_rename_keeps_keywords_and_renames_consistently(self):
        for seed in range(20):
            out = copying.rename(CODE[:700], random.Random(seed), 700)
            self.assertEqual(out.count(b"def "), CODE[:700].count(b"def "))
            self.assertEqual(out.count(b"return "), CODE[:700].count(b"return "))
            # Every name now in the text either was there before or occurs at least twice.
            before = set(copying.IDENT.findall(CODE[:700]))
            for name in set(copying.IDENT.findall(out)) - before:
                self.assertGreaterEqual(len(re.findall(rb"\b%s\b" % name, out)), 2, name)

    def test_invented_names_have_their_style(self):
        rng = random.Random(3)
        for _ in range(50):
            self.assertRegex(copying.invented_name(rng, "letters"), r"^[a-z]{6,10}$")
            self.assertRegex(copying.invented_name(rng, "camel"), r"^([A-Z][a-z]{2,4}|[0-9])+$")
            self.assertRegex(copying.invented_name(rng, "syllables"), r"^[a-z]+(_[a-z]+)?$")


class Probes(unittest.TestCase):
    def test_both_occurrences_are_the_same_bytes(self):
        # The filler draws from 400 distinct short lines, the real style from 30-70 byte ones.
        short = b"".join(b"value_%d = compute(%d)\n" % (i, i * 7) for i in range(450))
        long = b"".join(b"result_%d = combine(first_argument, second_argument)\n" % i
                        for i in range(20))
        files = [("a.py", CODE + short), ("b.py", long)]
        probes = copying.copy_probes(files, 11, per_style=4, filler=(40, 120))
        self.assertEqual(sorted({p["style"] for p in probes}), ["camel", "letters", "real",
                                                               "syllables"])
        for p in probes:
            a, b = p["first"], p["second"]
            self.assertEqual(p["text"][a[0]:a[1]], p["text"][b[0]:b[1]])
            self.assertGreater(b[0] - a[1], 40)

    def test_span_bits(self):
        losses = [9.0, 1.0, 2.0, 3.0]  # losses[t]: the cost of unit t + 1
        self.assertEqual(copying.span_bits(losses, [2, 4]), 1.5)  # units 2 and 3


if __name__ == "__main__":
    unittest.main()
