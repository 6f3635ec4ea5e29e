"""Special-token markers in the text (issue 40): by default text is text on every built-in
tokenizer and on a tokenizer.json of your own, and special_tokens=True makes each marker its
special token's id. The expected ids come from a twin of each vocabulary without its special
tokens (a .bin file rewritten without its special-token section, a tokenizer.json without the
marker's added token), and the special ids from the vocabularies' own lists.

Run: PYTHONPATH=build/python /usr/bin/python3 -m pytest -q tests/python/test_special_tokens.py"""

import json
import os
import struct
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if os.path.isdir(os.path.join(ROOT, "build", "python")) and "hirope" not in sys.modules:
    sys.path.insert(0, os.path.join(ROOT, "build", "python"))

import hirope  # noqa: E402
from hirope import _hirope  # noqa: E402
from hirope._data import DATA_DIR as DATA  # noqa: E402
from hirope.tokenizers import Tokenizer  # noqa: E402

E = hirope.HiRoPEError

# Each built-in's special tokens and their ids: tiktoken's encoders (cl100k, o200k: the whole
# list, as the .bin file holds it), llama2's control tokens, and for the tokenizer.json files a
# few of their added tokens with "special": true (checked against the file below).
SPECIALS = {
    "cl100k": [
        ("<|endoftext|>", 100257),
        ("<|fim_prefix|>", 100258),
        ("<|fim_middle|>", 100259),
        ("<|fim_suffix|>", 100260),
        ("<|endofprompt|>", 100276),
    ],
    "o200k": [("<|endoftext|>", 199999), ("<|endofprompt|>", 200018)],
    "llama2": [("<unk>", 0), ("<s>", 1), ("</s>", 2)],
    "llama3": [("<|begin_of_text|>", 128000), ("<|eot_id|>", 128009)],
    "qwen3": [("<|endoftext|>", 151643), ("<|im_end|>", 151645)],
    "deepseek-v3": [("<｜begin▁of▁sentence｜>", 0), ("<｜end▁of▁sentence｜>", 1)],
    "gemma3": [("<eos>", 1), ("<start_of_turn>", 105)],
}
PREFIX, SUFFIX = 'x = "', '"  # end\n'


def _fnv1a(data):
    h = 0x811C9DC5
    for b in data:
        h = ((h ^ b) * 0x01000193) & 0xFFFFFFFF
    return h


def _bin_without_specials(data, specials):
    """A version 2 .bin file as version 1, without its special-token section (whose length the
    expected list gives: the twin loads only if the file lists exactly those)."""
    assert struct.unpack_from("<I", data, 4)[0] == 2
    section = 4 + sum(6 + len(m.encode()) for m, _ in specials)
    body = bytearray(data[: len(data) - 4 - section])
    struct.pack_into("<I", body, 4, 1)
    return bytes(body) + struct.pack("<I", _fnv1a(body))


def _twin(name, marker, tmp_path):
    """The built-in without the marker as a special token."""
    path_bin = os.path.join(DATA, name + ".bin")
    if os.path.exists(path_bin):
        with open(path_bin, "rb") as f:
            data = f.read()
        return Tokenizer(_hirope.Tokenizer.from_data(_bin_without_specials(data, SPECIALS[name])))
    with open(os.path.join(DATA, name + ".json"), encoding="utf-8") as f:
        doc = json.load(f)
    added = [a for a in doc["added_tokens"] if a["content"] == marker]
    assert len(added) == 1 and added[0]["special"] is True, (name, marker)
    doc["added_tokens"] = [a for a in doc["added_tokens"] if a["content"] != marker]
    path = tmp_path / f"{name}-without-special.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return hirope.load_tokenizer(str(path))


@pytest.mark.parametrize("name", sorted(SPECIALS))
def test_text_is_text_by_default_and_special_tokens_match(name, tmp_path):
    t = hirope.load_tokenizer(name)
    for marker, special_id in SPECIALS[name]:
        twin = _twin(name, marker, tmp_path)
        text = PREFIX + marker + SUFFIX
        plain = t.encode(text)
        # Text is text: the twin's ids, no special id among them, the text given back.
        assert plain.tolist() == twin.encode(text).tolist(), (name, marker)
        assert plain.tolist() == t.encode(text, special_tokens=False).tolist()
        assert not set(plain.tolist()) & {i for _, i in SPECIALS[name]}
        assert t.decode(plain) == text
        # special_tokens=True: the marker is its one id, the text on each side encoded alone.
        expected = t.encode(PREFIX).tolist() + [special_id] + t.encode(SUFFIX).tolist()
        assert t.encode(text, special_tokens=True).tolist() == expected, (name, marker)
        ids, starts, ends = t.encode_offsets(text, special_tokens=True)
        k = ids.tolist().index(special_id)
        assert (starts[k], ends[k]) == (len(PREFIX), len(PREFIX) + len(marker.encode()))
        ids, starts, ends = t.encode_offsets(text)
        assert ids.tolist() == plain.tolist() and ends[-1] == len(text.encode())
        batch = t.encode_batch([text, marker], special_tokens=True)
        assert batch[0].tolist() == expected and batch[1].tolist() == [special_id]
        assert [b.tolist() for b in t.encode_batch([text])] == [plain.tolist()]
        if name != "llama2":  # llama2's control tokens stand for no text
            assert t.decode([special_id]) == marker


def test_a_tokenizer_json_of_your_own(tmp_path):
    """A user's file: its special added tokens follow the rule; a non-special one (Qwen 3's
    <think>) is matched either way, as Hugging Face does."""
    with open(os.path.join(DATA, "qwen3.json"), encoding="utf-8") as f:
        doc = json.load(f)
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    t = hirope.load_tokenizer(str(path))
    assert t.name.startswith("json-")
    think = next(a for a in doc["added_tokens"] if a["content"] == "<think>")
    end = next(a for a in doc["added_tokens"] if a["content"] == "<|im_end|>")
    assert think["special"] is False and end["special"] is True
    text = "<think>ok</think><|im_end|>"
    plain = t.encode(text).tolist()
    assert plain[0] == think["id"] and end["id"] not in plain
    twin = _twin("qwen3", "<|im_end|>", tmp_path)
    assert plain == twin.encode(text).tolist()
    assert t.encode(text, special_tokens=True).tolist()[-1] == end["id"]
    assert t.encode(text, special_tokens=True).tolist()[0] == think["id"]


def test_the_option_and_batches_are_checked():
    t = hirope.load_tokenizer("llama3")
    for bad in (None, 1, "yes"):
        with pytest.raises(E, match="special_tokens must be a boolean"):
            t.encode("x", special_tokens=bad)
    assert t.encode("<|eot_id|>", special_tokens=np.bool_(True)).tolist() == [128009]
    for bad in (None, 42, 3.5):
        with pytest.raises(E, match="texts must be a list of strings, got " + repr(bad).replace(".", r"\.")):
            t.encode_batch(bad)
    with pytest.raises(E, match="texts must be a list of strings"):
        t.encode_batch(b"bytes")
    assert [a.tolist() for a in t.encode_batch(x for x in ["a", "b"])] == [
        t.encode("a").tolist(),
        t.encode("b").tolist(),
    ]
