// The benches' checkpoint: a llama checkpoint with SmolLM2-135M's shape (hidden 576, 30 layers,
// 9 heads, 3 key/value heads, MLP 1536, vocabulary 49,152) and random weights in BF16 (270 MB),
// written once by tests/python/checkpoint_reference.py into build/bench-checkpoint/. Shared by
// bench/checkpoint.mjs (the forward) and bench/model-checkpoint.mjs (the page).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export const SHAPE = {
  hidden_size: 576,
  num_hidden_layers: 30,
  num_attention_heads: 9,
  num_key_value_heads: 3,
  head_dim: 64,
  intermediate_size: 1536,
  vocab_size: 49152,
  max_position_embeddings: 2048,
  rope_theta: 100000,
  tie_word_embeddings: true,
};

/** { folder, SHAPE }: the checkpoint's folder, written first if it is not there. */
export function benchCheckpoint(folder = path.resolve('build/bench-checkpoint')) {
  if (!fs.existsSync(path.join(folder, 'config.json'))) {
    console.log(`writing the checkpoint to ${folder} ...`);
    execFileSync(
      '/usr/bin/python3',
      [
        '-c',
        `import sys, json; sys.path.insert(0, 'tests/python'); import checkpoint_reference as ref
ref.make_checkpoint('llama', ${JSON.stringify(folder)}, 'BF16', 1, 0, **json.loads(sys.argv[1]))`,
        JSON.stringify(SHAPE),
      ],
      { stdio: 'inherit' },
    );
  }
  return { folder, SHAPE };
}
