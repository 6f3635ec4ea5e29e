"""Checkpoints for tests/js/llama-cpp.test.mjs: each case's folder holds a Hugging Face checkpoint (config.json,
model.safetensors in F32) and model.gguf, the same weights as llama.cpp's converter writes them
(tests/python/gguf_reference.py), with the RoPE scaling llama.cpp is to run (the config's own, or the scheme the
test swaps in on hirope's side). cases.json lists them with the input ids.

Run: /usr/bin/python3 tests/js/support/llama-cpp-fixtures.py OUT_DIR"""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
import checkpoint_reference as ref  # noqa: E402
import gguf_reference  # noqa: E402

YARN = {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 64}
# (name, architecture, config keys, the RoPE scaling llama.cpp runs, hirope's scheme for the same)
CASES = [
    ("llama", "llama", {}, None, None),
    ("llama-tied-linear", "llama", {"tie_word_embeddings": True, "rope_scaling": {"rope_type": "linear",
                                                                                 "factor": 2.0}}, None, None),
    ("llama-yarn-scheme", "llama", {}, YARN,
     {"type": "rope", "scaling": {"type": "yarn", "factor": 4, "originalLength": 64}}),
    ("qwen2", "qwen2", {}, None, None),
]


def main(out_dir: str) -> None:
    cases = []
    for name, arch, dims, scaling, scheme in CASES:
        folder = os.path.join(out_dir, name)
        config, tensors = ref.make_checkpoint(arch, folder, "F32", 1, seed=23, **dims)
        gguf_reference.write_gguf(os.path.join(folder, "model.gguf"), config, tensors, "F32", scaling)
        ids = [(i * 29 + 7) % config["vocab_size"] for i in range(40)]
        cases.append({"name": name, "arch": arch, "ids": ids, "vocab": config["vocab_size"], "scheme": scheme})
    with open(os.path.join(out_dir, "cases.json"), "w") as f:
        json.dump(cases, f)


if __name__ == "__main__":
    main(sys.argv[1])
