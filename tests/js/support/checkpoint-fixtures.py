"""Checkpoints for tests/js/checkpoint.test.mjs, with the float64 forward of transformers' modeling files
(tests/python/checkpoint_reference.py) on each: out_dir/<case>/ holds the checkpoint, ids.json and expected.bin
(float64 little-endian: the logits, n x vocab, then every layer's attention, heads x n x n).

Run: /usr/bin/python3 tests/js/support/checkpoint-fixtures.py OUT_DIR"""

import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
import checkpoint_reference as ref  # noqa: E402

CASES = [(arch, "BF16" if arch in ("gemma2", "qwen3") else "F32", 1) for arch in ref.ARCHITECTURES]
CASES += [("llama", "F16", 3)]


def main(out_dir: str) -> None:
    cases = []
    for arch, dtype, shards in CASES:
        name = f"{arch}-{dtype}-{shards}"
        folder = os.path.join(out_dir, name)
        config, _ = ref.make_checkpoint(arch, folder, dtype, shards, seed=11)
        ids = [(i * 13 + 5) % config["vocab_size"] for i in range(18)]
        logits, attentions = ref.reference_forward(folder, np.array(ids, dtype=np.int32))
        with open(os.path.join(folder, "expected.bin"), "wb") as f:
            f.write(np.ascontiguousarray(logits, dtype="<f8").tobytes())
            for layer in attentions:
                f.write(np.ascontiguousarray(layer, dtype="<f8").tobytes())
        cases.append({"name": name, "arch": arch, "dtype": dtype, "shards": shards, "ids": ids,
                      "vocab": config["vocab_size"], "layers": config["num_hidden_layers"],
                      "heads": config["num_attention_heads"]})
    # hirope's own byte model as a llama checkpoint (F16 keeps its weights' values exactly).
    ref.export_hrm_as_llama(os.path.join(HERE, "..", "..", "..", "models", "pybyte.hrm"),
                            os.path.join(out_dir, "pybyte-llama"), "F16")
    with open(os.path.join(out_dir, "cases.json"), "w") as f:
        json.dump(cases, f)


if __name__ == "__main__":
    main(sys.argv[1])
