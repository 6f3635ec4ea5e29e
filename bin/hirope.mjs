#!/usr/bin/env node
// hirope command-line tool.
import fs from 'node:fs';
import init, { HiRoPEError } from '../dist/index.js';
import { encodePNG, heatmapRGBA } from './png.mjs';
import { bucketLabel, bucketLosses, defaultBuckets, presetSchemes, windowsOf } from './model-eval.mjs';

const HELP = {
  main: `usage: hirope <command> [options]

commands:
  analyze FILE     tokenize and parse a source file, print tokens, units and positions
  attention FILE   attention of a source file under a position encoding, as a PNG heatmap
  bench            time attention on this machine
  eval-model FILES bits/byte of hirope's code model per position bucket, for each scheme
  generate FILE    continue a file with the code model under a scheme

Run 'hirope <command> --help' for the options of a command.`,
  analyze: `usage: hirope analyze FILE [options]

Parses FILE with tree-sitter, tokenizes it, and prints its tokens, top-level units and the
hierarchical positions (token, unit, statement) that HiRoPE uses.

options:
  --language L        python, javascript, typescript, tsx, c, cpp, java, go, rust
                      (default: detected from the file name)
  --tokenizer T       lexical (default), cl100k, llama2
  --gap P             own (default), next, previous: where code between definitions goes
  --descend-classes   methods become their own units
  --segments S        fixed segments of S tokens instead of syntax units
  --json              print the full analysis as JSON (default: a summary)
  --help              this text`,
  attention: `usage: hirope attention FILE --png OUT.png [options]

Analyzes FILE, builds q/k for its tokens and renders the attention probabilities under a scheme
as the playground draws one scheme's map (rows = query tokens, columns = key tokens; colour =
probability relative to its row's maximum on the magma ramp, log scale over four decades; when
the image has fewer pixels than tokens, each pixel shows the mean over its block of entries;
cells above the diagonal are transparent).

options:
  --png OUT           the image to write (required)
  --scheme S          rope (default), hirope, rerope, leaky-rerope, self-extend, xpos, alibi,
                      sinusoidal, nope; or a JSON scheme such as '{"type":"hirope","ratio":0.5}'
  --window W          window of windowed schemes (default 512)
  --ratio R           HiRoPE's token fraction (default 0.5)
  --base B            RoPE base (default 10000)
  --head-dim D        head dimension (default 64)
  --source S          seeded (default: random vectors per token id) or ones (content-free)
  --size N            image size in pixels (default: tokens, at most 1024); below the token
                      count the matrix is mean-pooled, above it each cell is a block of pixels
  --language L, --tokenizer T, --gap P, --descend-classes, --segments S   as for analyze
  --help              this text`,
  bench: `usage: hirope bench [--n 512,1024,2048] [--head-dim 64] [--repeats 5]

Times attention probabilities (RoPE and HiRoPE, one head) with this package's WASM build and
prints milliseconds and GFLOP/s of the q.k part. The repository's bench/ has the full comparisons.`,
  'eval-model': `usage: hirope eval-model FILES... [options]

Runs hirope's byte-level code model over windows of each file and prints bits/byte per position
bucket ([0, L), [L, 2L), [2L, 4L), ... with L the model's training context), one column per scheme.

options:
  --scheme S          a preset (repeatable): rope, pi, ntk, dynamic-ntk, yarn, rerope, self-extend,
                      hirope-0.5-units, hirope-1/3-units, hirope-1/3-statements,
                      hirope-1/3-segments32, or a JSON model option object such as
                      '{"scheme":{"type":"hirope","ratio":0.25},"hierarchy":"segments"}'
                      (default: every preset)
  --length N          window length in bytes (default 8 x the training context)
  --per-file K        at most K windows per file (default: all)
  --weights FILE      a weights file (default: the package's data/pybyte.hrm)
  --json              print per-scheme bucket means as JSON
  --help              this text`,
  generate: `usage: hirope generate FILE [options]

Continues the contents of FILE (the prompt) with hirope's code model and prints the new text.

options:
  --scheme S          as for eval-model (default rope)
  --max-bytes N       bytes to generate (default 256)
  --temperature T     sampling temperature, 0 = greedy (default 0.8)
  --seed N            sampling seed (default 1)
  --weights FILE      a weights file (default: the package's data/pybyte.hrm)
  --help              this text`,
};

class UsageError extends Error {}

function parseArgs(argv) {
  const opts = { positional: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) throw new UsageError(`${a} needs a value`);
      return argv[++i];
    };
    if (a === '--help' || a === '-h') opts.help = true;
    else if (a === '--json') opts.json = true;
    else if (a === '--descend-classes') opts.descendClasses = true;
    else if (a === '--language') opts.language = value();
    else if (a === '--tokenizer') opts.tokenizer = value();
    else if (a === '--gap') opts.gap = value();
    else if (a === '--png') opts.png = value();
    else if (a === '--scheme') (opts.schemes ||= []).push((opts.scheme = value()));
    else if (a === '--weights') opts.weights = value();
    else if (a === '--source') opts.source = value();
    else if (['--window', '--ratio', '--base', '--head-dim', '--size', '--repeats', '--length', '--per-file', '--max-bytes', '--temperature', '--seed'].includes(a)) {
      const v = value();
      const x = Number(v);
      if (!Number.isFinite(x)) throw new UsageError(`${a} needs a number, got '${v}'`);
      opts[a.slice(2).replace(/-(.)/g, (_, c) => c.toUpperCase())] = x;
    } else if (a === '--n') {
      const v = value();
      const list = v.split(',').map(Number);
      if (!list.every((x) => Number.isInteger(x) && x > 0)) throw new UsageError(`--n needs positive integers, got '${v}'`);
      opts.n = list;
    } else if (a === '--segments') {
      const v = value();
      if (!/^[1-9]\d*$/.test(v)) throw new UsageError(`--segments needs a positive integer, got '${v}'`);
      opts.segmentSize = Number(v);
    } else if (a.startsWith('-')) throw new UsageError(`unknown option ${a}`);
    else opts.positional.push(a);
  }
  return opts;
}

async function analyzeFile(opts, command) {
  if (opts.positional.length !== 1) throw new UsageError(`${command} needs exactly one FILE`);
  const file = opts.positional[0];
  const code = new TextDecoder().decode(readBytes(file));
  const tokenizer = opts.tokenizer || 'lexical';
  const hr = await init();
  if (tokenizer !== 'lexical' && hr.tokenizers.includes(tokenizer)) await hr.loadTokenizer(tokenizer);
  const a = hr.analyze(code, {
    ...(opts.language ? { language: opts.language } : { filename: file }),
    tokenizer,
    ...(opts.gap ? { gap: opts.gap } : {}),
    ...(opts.descendClasses ? { descendClasses: true } : {}),
    ...(opts.segmentSize ? { hierarchy: 'segments', segmentSize: opts.segmentSize } : {}),
  });
  return { hr, a, file };
}

async function analyze(opts) {
  if (opts.help) return console.log(HELP.analyze);
  const { a, file } = await analyzeFile(opts, 'analyze');
  if (opts.json) {
    const out = {
      file,
      language: a.language,
      tokenizer: a.tokenizer,
      tokens: {
        count: a.tokens.count,
        ids: Array.from(a.tokens.ids),
        start: Array.from(a.tokens.start),
        end: Array.from(a.tokens.end),
        byteStart: Array.from(a.tokens.byteStart),
        byteEnd: Array.from(a.tokens.byteEnd),
        texts: a.tokens.texts,
      },
      positions: { token: Array.from(a.positions.token), unit: Array.from(a.positions.unit), statement: Array.from(a.positions.statement) },
      units: a.units,
      errors: a.errors,
      statements: a.statements,
    };
    process.stdout.write(JSON.stringify(out) + '\n');
    return;
  }
  console.log(`${file}: ${a.language}, ${a.tokens.count} ${a.tokenizer} tokens, ${a.units.length} units, ${a.statements} statements, ${a.errors.length} syntax error regions`);
  for (const u of a.units) {
    const tokens = a.positions.unit.filter((x) => x === u.index).length;
    console.log(`  ${String(u.index).padStart(4)}  ${u.kind.padEnd(8)} ${(u.name || '').padEnd(28)} chars ${u.start}-${u.end}, ${tokens} tokens`);
  }
}

function schemeFrom(opts, hr) {
  let scheme = opts.scheme || 'rope';
  if (scheme.startsWith('{')) {
    try {
      scheme = JSON.parse(scheme);
    } catch {
      throw new UsageError(`--scheme is not valid JSON: ${scheme}`);
    }
  } else {
    scheme = { type: scheme };
    const windowed = hr.vocabulary.schemes.find((s) => s.name === scheme.type)?.windowed;
    if (opts.window !== undefined && windowed) scheme.window = opts.window;
    if (opts.ratio !== undefined && scheme.type === 'hirope') scheme.ratio = opts.ratio;
    if (opts.base !== undefined) scheme.base = opts.base;
  }
  return scheme;
}

async function attention(opts) {
  if (opts.help) return console.log(HELP.attention);
  if (!opts.png) throw new UsageError('attention needs --png OUT.png');
  const { hr, a, file } = await analyzeFile(opts, 'attention');
  const n = a.tokens.count;
  if (n === 0) throw new HiRoPEError(`${file} has no tokens`);
  const headDim = opts.headDim ?? 64;
  const source = opts.source || 'seeded';
  const { q, k } = hr.qk({ source, n, headDim, tokenIds: a.tokens.ids, seed: 1 });
  const scheme = schemeFrom(opts, hr);
  // A scheme with segmentSize asks for fixed segments: the core derives them when no units are
  // given, as on the page.
  const positions = typeof scheme === 'object' && scheme?.segmentSize ? { token: a.positions.token } : a.positions;
  const probs = hr.attention({ q, k, n, headDim, positions, scheme });
  const size = opts.size ?? Math.min(n, 1024);
  if (!Number.isInteger(size) || size < 1 || size > 8192) throw new UsageError(`--size must be an integer in [1, 8192], got ${size}`);
  fs.writeFileSync(opts.png, encodePNG(size, size, heatmapRGBA(hr, probs, n, size)));
  console.log(`${opts.png}: ${size}x${size} heatmap of ${n} ${a.tokenizer} tokens, ${a.units.length} units`);
}

async function bench(opts) {
  if (opts.help) return console.log(HELP.bench);
  const hr = await init();
  const headDim = opts.headDim ?? 64;
  const repeats = opts.repeats ?? 5;
  console.log(`hirope ${hr.backend}, head dim ${headDim}, median of ${repeats} after a warm-up`);
  for (const n of opts.n || [512, 1024, 2048]) {
    const { q, k } = hr.qk({ n, headDim, seed: 1 });
    const out = new Float32Array(n * n);
    for (const scheme of ['rope', { type: 'hirope', segmentSize: 64 }]) {
      const args = { q, k, n, headDim, scheme, out };
      const warm = performance.now();
      while (performance.now() - warm < 300) hr.attention(args);
      const times = [];
      for (let r = 0; r < repeats; r++) {
        const t0 = performance.now();
        hr.attention(args);
        times.push(performance.now() - t0);
      }
      times.sort((x, y) => x - y);
      const ms = times[Math.floor(times.length / 2)];
      const gflops = (n * (n + 1) * headDim) / (ms * 1e6);
      console.log(`  n=${String(n).padEnd(5)} ${(typeof scheme === 'string' ? scheme : scheme.type).padEnd(7)} ${ms.toFixed(2).padStart(8)} ms   q.k ${gflops.toFixed(1)} GFLOP/s`);
    }
  }
}

function readBytes(file) {
  try {
    return new Uint8Array(fs.readFileSync(file));
  } catch (e) {
    throw new HiRoPEError(`cannot read ${file}: ${e.code === 'ENOENT' ? 'no such file' : e.message}`);
  }
}

async function loadModel(opts) {
  const hr = await init();
  const model = await hr.model.load(opts.weights ? { data: readBytes(opts.weights) } : {});
  return { hr, model };
}

// A preset name or a JSON object of model options ({ scheme, hierarchy, segmentSize, ... }).
function modelOptions(spec, presets) {
  if (spec.startsWith('{')) {
    try {
      return JSON.parse(spec);
    } catch {
      throw new UsageError(`--scheme is not valid JSON: ${spec}`);
    }
  }
  if (!presets[spec]) throw new UsageError(`unknown scheme preset '${spec}' (presets: ${Object.keys(presets).join(', ')})`);
  return presets[spec];
}

function checkInteger(value, name, min) {
  if (value !== undefined && (!Number.isInteger(value) || value < min)) throw new UsageError(`${name} must be an integer >= ${min}, got ${value}`);
}

async function evalModel(opts) {
  if (opts.help) return console.log(HELP['eval-model']);
  if (opts.positional.length === 0) throw new UsageError('eval-model needs at least one FILE');
  checkInteger(opts.length, '--length', 2);
  checkInteger(opts.perFile, '--per-file', 1);
  const files = opts.positional.map((name) => ({ name, bytes: readBytes(name) }));
  const { model } = await loadModel(opts);
  const L = model.config.trainingContext;
  const length = opts.length ?? 8 * L;
  const presets = presetSchemes(L, length);
  const names = opts.schemes || Object.keys(presets);
  const windows = windowsOf(files, length, opts.perFile);
  if (windows.length === 0) throw new HiRoPEError(`no file holds ${length} bytes (one window); pass a smaller --length`);
  const edges = defaultBuckets(L, length);
  const results = {};
  for (const name of names) {
    const { sums, counts } = bucketLosses(model, windows, modelOptions(name, presets), edges);
    results[name] = counts.map((c, b) => sums.reduce((acc, row) => acc + row[b], 0) / (c * windows.length));
  }
  if (opts.json) {
    process.stdout.write(JSON.stringify({ model: model.config.name, length, windows: windows.length, buckets: edges, bitsPerByte: results }) + '\n');
    return;
  }
  console.log(`${model.config.name}: ${windows.length} windows of ${length} bytes from ${files.length} files; bits/byte by position (training context ${L})`);
  const width = Math.max(12, ...names.map((n) => n.length + 2));
  console.log('position'.padEnd(12) + names.map((n) => n.padStart(width)).join(''));
  for (let b = 0; b + 1 < edges.length; b++) {
    console.log(bucketLabel(edges, b).padEnd(12) + names.map((n) => results[n][b].toFixed(3).padStart(width)).join(''));
  }
}

async function generate(opts) {
  if (opts.help) return console.log(HELP.generate);
  if (opts.positional.length !== 1) throw new UsageError('generate needs exactly one FILE (the prompt)');
  const prompt = readBytes(opts.positional[0]);
  const { model } = await loadModel(opts);
  const presets = presetSchemes(model.config.trainingContext, 8 * model.config.trainingContext);
  const options = modelOptions(opts.scheme || 'rope', presets);
  const { text } = model.generate(prompt, {
    ...options,
    maxBytes: opts.maxBytes ?? 256,
    ...(opts.temperature !== undefined ? { temperature: opts.temperature } : {}),
    ...(opts.seed !== undefined ? { seed: opts.seed } : {}),
  });
  process.stdout.write(text + '\n');
}

async function main(argv) {
  const [command, ...rest] = argv;
  if (!command || command === '--help' || command === '-h') return console.log(HELP.main);
  const opts = parseArgs(rest);
  if (command === 'analyze') return analyze(opts);
  if (command === 'attention') return attention(opts);
  if (command === 'bench') return bench(opts);
  if (command === 'eval-model') return evalModel(opts);
  if (command === 'generate') return generate(opts);
  throw new UsageError(`unknown command '${command}'`);
}

main(process.argv.slice(2)).catch((e) => {
  if (e instanceof UsageError) {
    console.error(`hirope: ${e.message} (see hirope --help)`);
    process.exit(2);
  }
  console.error(`hirope: ${e instanceof HiRoPEError ? e.message : e.stack || e}`);
  process.exit(1);
});
