"""Teaching the code model to copy, and checking that it does.

A model that predicts code from its context must copy: the second time a name (or a line) appears,
its bytes are in the context and should cost close to nothing. Real code repeats names, but a
small model trained briefly on it learns local statistics first; sequences that repeat earlier
spans make induction heads appear sooner. `augment` rewrites a training sequence in one of four
ways (rename identifiers to invented names, copy a span forward, repeat a segment, insert an
invented name at several lines); `copy_probes` builds the control that training logs and that
`npm test` checks against the shipped weights: an invented name (three styles) or a real held-out
line, then filler, then the same name or line again.
"""
import keyword
import random
import re

IDENT = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")
# Names a rename must keep: the language's own words and the most common builtins.
KEEP = {w.encode() for w in keyword.kwlist + keyword.softkwlist} | {
    w.encode() for w in ("self", "cls", "None", "True", "False", "print", "len", "range", "str",
                         "int", "dict", "list", "set", "tuple", "isinstance", "super", "object",
                         "Exception", "ValueError", "TypeError", "__init__", "__name__")}

VOWELS = "aeiou"
CONSONANTS = "bcdfghjklmnprstvwz"
LOWER = "abcdefghijklmnopqrstuvwxyz"
STYLES = ("letters", "camel", "syllables")


def invented_name(rng, style):
    """A name no file uses: random letters, CamelCase with digits, or pronounceable syllables."""
    if style == "letters":
        return "".join(rng.choice(LOWER) for _ in range(rng.randint(6, 10)))
    if style == "camel":
        parts = ["".join([rng.choice(LOWER).upper()] + [rng.choice(LOWER) for _ in range(rng.randint(2, 4))])
                 for _ in range(rng.randint(2, 3))]
        digits = "".join(rng.choice("0123456789") for _ in range(rng.randint(1, 2)))
        cut = rng.randint(1, len(parts))
        return "".join(parts[:cut]) + digits + "".join(parts[cut:])
    if style == "syllables":
        def word():
            return "".join(rng.choice(CONSONANTS) + rng.choice(VOWELS) +
                           (rng.choice(CONSONANTS) if rng.random() < 0.3 else "")
                           for _ in range(rng.randint(2, 3)))
        return word() + ("_" + word() if rng.random() < 0.5 else "")
    raise ValueError(style)


def _line_starts(seq, limit):
    return [i + 1 for i in range(min(len(seq), limit) - 1) if seq[i] == 0x0A]


def rename(seq, rng, context=256):
    """Renames 1-3 identifiers that occur at least twice in the first context bytes to invented
    names, everywhere."""
    counts = {}
    for m in IDENT.finditer(seq[:context]):
        name = m.group(0)
        if name not in KEEP and len(name) > 1:
            counts[name] = counts.get(name, 0) + 1
    names = sorted(n for n, c in counts.items() if c >= 2)
    if not names:
        return insert_names(seq, rng)
    chosen = rng.sample(names, min(len(names), rng.randint(1, 3)))
    mapping = {n: invented_name(rng, rng.choice(STYLES)).encode() for n in chosen}
    return IDENT.sub(lambda m: mapping.get(m.group(0), m.group(0)), seq)


def copy_span(seq, rng, context):
    """Copies 1-3 whole lines from early in the sequence to a later line start."""
    starts = _line_starts(seq, context)
    if len(starts) < 4:
        return repeat_segment(seq, rng, context)
    a_index = rng.randrange(0, len(starts) // 2)
    a = starts[a_index]
    end_index = min(len(starts) - 1, a_index + rng.randint(1, 3))
    span = seq[a: starts[end_index]][:120]
    b_choices = [b for b in starts[end_index:] if b + len(span) <= context] or starts[end_index:]
    b = rng.choice(b_choices)
    return seq[:b] + span + seq[b:]


def repeat_segment(seq, rng, context):
    """A segment of 16-96 bytes, then 0-64 bytes of other code, again and again."""
    a = rng.randrange(0, max(1, len(seq) - 200))
    seg = seq[a: a + rng.randint(16, 96)]
    out = b""
    at = a + len(seg)
    while len(out) < context + 1:
        gap = rng.randint(0, 64)
        out += seg + seq[at: at + gap]
        at += gap
    return out


TEMPLATES = (b"def %s(self):\n", b"%s = None\n", b"return %s\n", b"%s.append(item)\n",
             b"if %s:\n", b"class %s:\n", b"result = %s(value)\n", b"for item in %s:\n")


def insert_names(seq, rng, context=256):
    """One invented name on 2-4 new lines at random line starts, indented as the line after."""
    name = invented_name(rng, rng.choice(STYLES)).encode()
    starts = _line_starts(seq, context)
    if not starts:
        starts = [0]
    at = sorted(rng.sample(starts, min(len(starts), rng.randint(2, 4))), reverse=True)
    for pos in at:
        indent = re.match(rb"[ \t]*", seq[pos:]).group(0)
        seq = seq[:pos] + indent + rng.choice(TEMPLATES) % name + seq[pos:]
    return seq


def augment(seq, rng, mix, context):
    """seq (bytes, about twice the context) rewritten by one augmentation drawn from mix."""
    kinds = sorted(mix)
    kind = rng.choices(kinds, weights=[mix[k] for k in kinds])[0]
    if kind == "rename":
        out = rename(seq, rng, context)
    elif kind == "copy_span":
        out = copy_span(seq, rng, context)
    elif kind == "repeat":
        out = repeat_segment(seq, rng, context)
    elif kind == "insert":
        out = insert_names(seq, rng, context)
    else:
        raise ValueError(kind)
    return out[: context + 1]


def repeat_tokens(pool, rng, length, sizes=(8, 64), gap=150, ids=None, uniform=0.0):
    """A row of length token ids made of blocks: k tokens drawn one by one from pool (the corpus's
    ids, so in no order a model could predict), a gap of up to gap consecutive pool tokens (real
    code), then the same k tokens again. Only copying predicts a block's second half, and since
    k and the gap vary, only copying by content: matching the tokens, not a fixed distance back.
    A uniform fraction of the blocks draw their tokens from ids instead, each id alike: drawn
    from the corpus, a block holds the common ids, and a copy of a rare one is never taught."""
    return repeat_tokens_marked(pool, rng, length, sizes, gap, ids, uniform)[0]


def repeat_tokens_marked(pool, rng, length, sizes=(8, 64), gap=150, ids=None, uniform=0.0):
    """repeat_tokens's row and, for each of its tokens, whether it is a block's second copy."""
    out, copies = [], []
    while len(out) < length:
        source = ids if uniform and rng.random() < uniform else pool
        seq = [int(source[rng.randrange(len(source))]) for _ in range(rng.randint(*sizes))]
        g = rng.randint(0, gap)
        at = rng.randrange(0, len(pool) - g)
        out += seq + [int(t) for t in pool[at: at + g]] + seq
        copies += [False] * (len(seq) + g) + [True] * len(seq)
    return out[:length], copies[:length]


def copy_targets(row, ngram, common):
    """For a row of token ids, one bool per target row[1:]: whether a copy could supply it, i.e.
    the ngram tokens ending at it occurred before in the row, or it is a token outside the
    common ones (common[id] is true for those) that occurred before."""
    grams, seen, out = {tuple(row[:1])}, set(row[:1]), []
    for t in range(1, len(row)):
        gram = tuple(row[max(0, t - ngram + 1): t + 1])
        out.append(gram in grams or (row[t] in seen and not common[row[t]]))
        grams.add(gram)
        seen.add(row[t])
    return out


# ---------------------------------------------------------------------------------------------
# The copy control


def _real_lines(files, rng, count, lo, hi):
    """count distinct stripped lines of lo..hi bytes from the files (deterministic for rng)."""
    pool = sorted({line.strip() for _, data in files for line in data.split(b"\n")
                   if lo <= len(line.strip()) <= hi and line.strip()[:1] not in (b"#", b"\"", b"'")})
    return rng.sample(pool, count)


def copy_probes(files, seed, per_style=16, filler=(40, 120)):
    """Probes of the copy control: {style, text, first, second} with text bytes and the [start, end)
    byte spans of the first and second occurrence. Styles: the invented-name styles (a function
    defined and called after filler) and 'real' (a held-out line repeated verbatim after filler).
    Filler is real held-out code; a probe fits the training context (256 bytes, or 512 tokens)."""
    rng = random.Random(seed)
    probes = []
    fill_lines = _real_lines(files, rng, 400, 10, 40)

    def filler_text(target):
        out = b""
        while len(out) < target:
            out += b"    " + rng.choice(fill_lines) + b"\n"
        return out

    for style in STYLES:
        for _ in range(per_style):
            name = invented_name(rng, style).encode()
            head = b"import os\n\n"
            first = len(head) + len(b"def ")
            text = head + b"def " + name + b"(value):\n" + filler_text(rng.randint(*filler))
            text += b"\nresult = "
            second = len(text)
            text += name + b"(value)\n"
            probes.append({"style": style, "text": text, "first": [first, first + len(name)],
                           "second": [second, second + len(name)]})
    for line in _real_lines(files, rng, per_style, 30, 70):
        head = b"import os\n\n"
        first = len(head)
        text = head + line + b"\n" + filler_text(rng.randint(*filler))
        second = len(text)
        text += line + b"\n"
        probes.append({"style": "real", "text": text, "first": [first, first + len(line)],
                       "second": [second, second + len(line)]})
    return probes


def span_bits(losses, span):
    """Mean bits/byte over a [start, end) span, from per-byte losses where losses[t] is the cost
    of byte t + 1 given bytes 0..t."""
    start, end = span
    return sum(losses[t - 1] for t in range(start, end)) / (end - start)
