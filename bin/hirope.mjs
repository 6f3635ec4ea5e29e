#!/usr/bin/env node
// hirope command-line tool.
import fs from 'node:fs';
import path from 'node:path';
import init, { HiRoPEError, RECALL_CLASSES, BUILTIN_TOKENIZERS } from '../dist/index.js';
import { encodePNG, heatmapRGBA } from '../lib/png.mjs';
import {
  bucketLabel,
  bucketLosses,
  defaultBuckets,
  presetSchemes,
  windowOptions,
  windowsOf,
} from '../lib/model-eval.mjs';
import { REGISTRY } from '../dist/registry.js';
import { closestName } from '../dist/runtime.js';

/** ' (did you mean X?)' for a misspelt name, or '' (the API's closestName rule). */
function didYouMean(name, known) {
  const guess = closestName(name, known);
  return guess ? ` (did you mean ${guess}?)` : '';
}

/**
 * What generate runs with when not told: the models at their best on a real file. A prompt is
 * usually longer than the training context, where plain RoPE falls apart; a window of the
 * training context (the 'sliding-window' preset, which the tuning kept for both models:
 * docs/model-eval.md) writes code there, and a low temperature keeps a small model on it.
 */
const GENERATE_DEFAULTS = { scheme: 'sliding-window', temperature: 0.3 };

const HELP = {
  main: `usage: hirope <command> [options]

commands:
  analyze FILE     tokenize and parse a source file, print tokens, units and positions
  attention FILE   attention of a source file under a position encoding, as a PNG heatmap
  bench            time attention on this machine
  checkpoint FOLDER FILE
                   bits/token of a Hugging Face checkpoint on a file per position bucket, under
                   its own positions and a scheme; an attention map as a PNG
  config FILE      what each layer of a model sees, from its Hugging Face config.json
  eval-model FILES bits/byte of hirope's code model per position bucket, for each scheme
  generate FILE    continue a file with the code model under a scheme

Run 'hirope <command> --help' for the options of a command.`,
  analyze: `usage: hirope analyze FILE [options]

Parses FILE with tree-sitter, tokenizes it, and prints its tokens, top-level units and the
hierarchical positions (token, unit, statement) that HiRoPE uses.

options:
  --language L        python, javascript, typescript, tsx, c, cpp, java, go, rust
                      (default: detected from the file name)
  --tokenizer T       lexical (default), ${BUILTIN_TOKENIZERS.join(', ')}
  --tokenizer-file F  a Hugging Face tokenizer.json (byte-level BPE) instead of --tokenizer
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
                      (with a JSON --scheme, put window, ratio and base in the JSON instead)
  --head-dim D        head dimension (default 64)
  --source S          seeded (default: random vectors per token id) or ones (content-free)
  --size N            image size in pixels (default: tokens, at most 1024); below the token
                      count the matrix is mean-pooled, above it each cell is a block of pixels
  --language L, --tokenizer T, --tokenizer-file F, --gap P, --descend-classes, --segments S
                      as for analyze
  --help              this text`,
  bench: `usage: hirope bench [--n 512,1024,2048] [--head-dim 64] [--repeats 5]

Times attention probabilities (RoPE and HiRoPE, one head) with this package's WASM build and
prints milliseconds and GFLOP/s of the q.k part. The repository's bench/ has the full comparisons.`,
  checkpoint: `usage: hirope checkpoint FOLDER FILE [options]

Loads the Hugging Face checkpoint in FOLDER (config.json, model.safetensors or its shards, and the
tokenizer.json that tokenizes FILE) and prints the bits per token of FILE's tokens per position
bucket ([0, L), [L, 2L), [2L, 4L), ... with L the model's trained length, as eval-model buckets),
under the model's own positions (each layer's, from config.json) and, with --scheme, under that
scheme on every RoPE layer, side by side. A FILE longer than the model's input limit is cut to
its first tokens, and the output says so.

options:
  --scheme S          a scheme as for eval-model (hirope, rerope, self-extend, yarn, ...: the model
                      fills in the rest), or JSON such as '{"type":"hirope","ratio":0.25}' or
                      '{"type":"rope","scaling":{"type":"yarn","factor":4}}'
  --window W, --ratio R, --base B
                      fields of a named --scheme, as for attention
  --layer L, --head H, --png OUT
                      also write the attention probabilities of layer L, head H (from 0) over
                      FILE's tokens as a PNG heatmap, drawn as attention draws one, under --scheme
                      (default: the model's own positions)
  --size N            image size in pixels, as for attention
  --json              print the numbers as JSON
  --help              this text`,
  config: `usage: hirope config FILE [--length N] [--json]

Reads a Hugging Face config.json (either format; a multimodal wrapper's text_config) and prints,
for each group of identical layers: their attention (full, sliding window, chunked) and sinks,
NoPE or the RoPE base and scaling, the dims rotated, the longest wavelength 2*pi/theta_min in
tokens against the trained length, the share of frequency pairs that meet angles unseen in
training at N tokens, and the attention factor at N. A pair is unseen at N when the largest angle
it turns through over the distances the layer sees at N exceeds the largest it turned through in
training (at the trained length, before a context extension's scaling), and that one stayed
under a full turn (docs/real-models.md).

options:
  --length N   the length to look at (default: the model's maximum length, else its trained one)
  --json       print the whole setup (hr.fromConfig) as JSON instead
  --help       this text`,
  'eval-model': `usage: hirope eval-model FILES... [options]

Runs hirope's byte-level code model over windows of each file and prints bits/byte per position
bucket ([0, L), [L, 2L), [2L, 4L), ... with L the model's training context), then on far-recall
bytes (a name whose previous use is more than L bytes back, none nearer) and near-recall bytes
(previous use within L), one column per scheme.

options:
  --scheme S          repeatable: a scheme as for attention (hirope, rope, rerope, self-extend,
                      ...; the model fills in the rest, window L/2), a JSON scheme such as
                      '{"type":"hirope","ratio":0.25}', a JSON model option object such as
                      '{"scheme":{"type":"hirope","ratio":0.25},"hierarchy":"segments"}', or a
                      preset: sliding-window, truncate (the baselines: attention reaching L bytes
                      back; each prediction from the last L bytes, one forward per
                      L/${REGISTRY.truncate.stride_divisor}), rope, pi, ntk, dynamic-ntk, yarn, rerope, self-extend,
                      hirope-0.5-units, hirope-1/3-units, hirope-1/3-statements,
                      hirope-1/3-segments32 (default: every preset)
  --window W, --ratio R, --base B
                      fields of each named --scheme, as for attention
  --length N          window length in bytes, or tokens (default 8 x the training context)
  --per-file K        at most K windows per file (default: all)
  --model NAME        a shipped model: pybyte (bytes, the default) or pyjs-llama2 (llama2
                      tokens: lengths and losses count tokens)
  --weights FILE      a weights file (default: the shipped model's)
  --json              print per-scheme bucket means as JSON
  --help              this text`,
  generate: `usage: hirope generate FILE [options]

Continues the contents of FILE (the prompt) with hirope's code model and prints the new text.

options:
  --scheme S          as for eval-model (default ${GENERATE_DEFAULTS.scheme}: attention over the last
                      training context, which writes code past it; plain rope does not)
  --window W, --ratio R, --base B
                      fields of a named --scheme, as for attention
  --max-bytes N       bytes to generate (default 256)
  --temperature T     sampling temperature, 0 = greedy (default ${GENERATE_DEFAULTS.temperature}; greedy decoding
                      of this small model tends to repeat itself)
  --seed N            sampling seed (default 1)
  --model NAME        a shipped model: pybyte (default) or pyjs-llama2
  --weights FILE      a weights file (default: the shipped model's)
  --help              this text`,
};

class UsageError extends Error {}
// A file the CLI cannot read or write (a bad FILE or --png argument): one line naming the file
// and the reason, exit 2 like a usage error.
class FileError extends Error {}

// Every option: how its value is taken. Numbers stay text until the command checks them against
// their range (some ranges come from the package), so that a message reports the text as given.
const OPTIONS = {
  '--help': { key: 'help' },
  '-h': { key: 'help' },
  '--json': { key: 'json' },
  '--descend-classes': { key: 'descendClasses' },
  '--language': { key: 'language', value: true },
  '--tokenizer': { key: 'tokenizer', value: true },
  '--tokenizer-file': { key: 'tokenizerFile', value: true },
  '--gap': { key: 'gap', value: true },
  '--source': { key: 'source', value: true },
  '--png': { key: 'png', value: true },
  '--weights': { key: 'weights', value: true },
  '--model': { key: 'model', value: true },
  '--scheme': { key: 'scheme', value: true },
  '--window': { key: 'window', value: true },
  '--ratio': { key: 'ratio', value: true },
  '--base': { key: 'base', value: true },
  '--head-dim': { key: 'headDim', value: true },
  '--size': { key: 'size', value: true },
  '--repeats': { key: 'repeats', value: true },
  '--n': { key: 'n', value: true },
  '--segments': { key: 'segments', value: true },
  '--length': { key: 'length', value: true },
  '--per-file': { key: 'perFile', value: true },
  '--max-bytes': { key: 'maxBytes', value: true },
  '--temperature': { key: 'temperature', value: true },
  '--seed': { key: 'seed', value: true },
  '--layer': { key: 'layer', value: true },
  '--head': { key: 'head', value: true },
};
const ANALYSIS_OPTIONS = [
  '--language',
  '--tokenizer',
  '--tokenizer-file',
  '--gap',
  '--descend-classes',
  '--segments',
];
const COMMAND_OPTIONS = {
  analyze: [...ANALYSIS_OPTIONS, '--json'],
  attention: [
    '--png',
    '--scheme',
    '--window',
    '--ratio',
    '--base',
    '--head-dim',
    '--source',
    '--size',
    ...ANALYSIS_OPTIONS,
  ],
  bench: ['--n', '--head-dim', '--repeats'],
  checkpoint: [
    '--scheme',
    '--window',
    '--ratio',
    '--base',
    '--layer',
    '--head',
    '--png',
    '--size',
    '--json',
  ],
  config: ['--length', '--json'],
  'eval-model': [
    '--scheme',
    '--window',
    '--ratio',
    '--base',
    '--length',
    '--per-file',
    '--model',
    '--weights',
    '--json',
  ],
  generate: [
    '--scheme',
    '--window',
    '--ratio',
    '--base',
    '--max-bytes',
    '--temperature',
    '--seed',
    '--model',
    '--weights',
  ],
};
// Options that may be given more than once (each value kept, in order).
const REPEATABLE = { 'eval-model': ['--scheme'] };

/**
 * The options of one command: { positional, help?, json?, descendClasses?, <key>: text, schemes? }.
 * Takes --opt value and --opt=value; '--' ends the options. An option the command does not take,
 * a missing or empty value, a value given twice: UsageError.
 */
function parseArgs(command, argv) {
  const allowed = COMMAND_OPTIONS[command];
  const repeatable = REPEATABLE[command] || [];
  const opts = { positional: [] };
  const seen = new Set();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') {
      opts.positional.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith('-') || arg === '-') {
      opts.positional.push(arg);
      continue;
    }
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const flag = eq > 0 ? arg.slice(0, eq) : arg;
    const spec = OPTIONS[flag];
    if (!spec) throw new UsageError(`unknown option ${flag}${didYouMean(flag, allowed)}`);
    if (!allowed.includes(flag) && spec.key !== 'help')
      throw new UsageError(`${command} takes no option ${flag}${didYouMean(flag, allowed)}`);
    if (!spec.value) {
      if (eq > 0) throw new UsageError(`${flag} takes no value, got '${arg.slice(eq + 1)}'`);
      opts[spec.key] = true;
      continue;
    }
    let text;
    if (eq > 0) text = arg.slice(eq + 1);
    else {
      if (i + 1 >= argv.length) throw new UsageError(`${flag} needs a value`);
      text = argv[++i];
      if (text.startsWith('--') || text === '-h')
        throw new UsageError(`${flag} needs a value, got the option ${text}`);
    }
    if (text === '') throw new UsageError(`${flag} needs a value, got ''`);
    if (seen.has(flag) && !repeatable.includes(flag))
      throw new UsageError(`${flag} is given twice`);
    seen.add(flag);
    if (flag === '--scheme') {
      opts.schemes ||= [];
      opts.schemes.push(text);
    }
    opts[spec.key] = text;
  }
  return opts;
}

const flagOf = (key) => Object.keys(OPTIONS).find((f) => OPTIONS[f].key === key);

function rangeText({ min, max, minOpen = false, maxOpen = false }) {
  const lo = min === undefined || min === null ? null : minOpen ? `> ${min}` : `>= ${min}`;
  const hi = max === undefined || max === null ? null : maxOpen ? `< ${max}` : `<= ${max}`;
  if (lo && hi && !minOpen && !maxOpen) return `in [${min}, ${max}]`;
  return [lo, hi].filter(Boolean).join(' and ');
}

/** An integer option within [min, max] (max at most 2^53 - 1), or fallback when not given. */
function intOption(opts, key, min, max, fallback) {
  const text = opts[key];
  if (text === undefined) return fallback;
  const x = /^[+-]?\d+$/.test(text) ? Number(text) : NaN;
  const hi = Math.min(max, Number.MAX_SAFE_INTEGER);
  if (!Number.isSafeInteger(x) || x < min || x > hi)
    throw new UsageError(
      `${flagOf(key)} needs an integer ${rangeText({ min, max: hi })}, got '${text}'`,
    );
  return x;
}

/** A finite number option within a range ({ min, max, minOpen, maxOpen }), or fallback. */
function numberOption(opts, key, range, fallback) {
  const text = opts[key];
  if (text === undefined) return fallback;
  const x = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text) ? Number(text) : NaN;
  const { min, max, minOpen, maxOpen } = range;
  const below = min !== undefined && min !== null && (minOpen ? x <= min : x < min);
  const above = max !== undefined && max !== null && (maxOpen ? x >= max : x > max);
  if (!Number.isFinite(x) || below || above) {
    const r = rangeText(range);
    throw new UsageError(`${flagOf(key)} needs a number${r ? ' ' + r : ''}, got '${text}'`);
  }
  return x;
}

/** --n: a comma-separated list of integers in [1, max]. */
function listOption(opts, key, max, fallback) {
  const text = opts[key];
  if (text === undefined) return fallback;
  const list = text.split(',').map((v) => (/^\+?\d+$/.test(v) ? Number(v) : NaN));
  if (!list.every((x) => Number.isSafeInteger(x) && x >= 1 && x <= max)) {
    throw new UsageError(
      `${flagOf(key)} needs positive integers up to ${max}, separated by commas, got '${text}'`,
    );
  }
  return list;
}

function checkPositional(opts, command, min, max, what) {
  const n = opts.positional.length;
  if (n < min || n > max) {
    if (max === 0) throw new UsageError(`${command} takes no FILE, got '${opts.positional[0]}'`);
    throw new UsageError(
      `${command} needs ${min === max ? 'exactly one' : 'at least one'} FILE${what ? ` (${what})` : ''}`,
    );
  }
  if (opts.positional.includes('')) throw new UsageError(`${command} got an empty FILE name`);
}

// ---- Files ---------------------------------------------------------------------------------

const REASONS = {
  ENOENT: 'no such file',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EISDIR: 'is a directory',
  ENOTDIR: 'a component of the path is not a directory',
  ELOOP: 'too many levels of symbolic links',
  ENAMETOOLONG: 'file name too long',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on device',
  EDQUOT: 'disk quota exceeded',
  EFBIG: 'file too large',
  EIO: 'input/output error',
  ENXIO: 'no such device or address',
  EMFILE: 'too many open files',
  ENFILE: 'too many open files',
  ETXTBSY: 'text file busy',
};
const reasonOf = (e) => REASONS[e?.code] || String(e?.message ?? e).split('\n')[0];

function kindOf(st) {
  if (st.isDirectory()) return 'is a directory';
  const kind = st.isCharacterDevice()
    ? 'a character device'
    : st.isBlockDevice()
      ? 'a block device'
      : st.isFIFO()
        ? 'a FIFO'
        : st.isSocket()
          ? 'a socket'
          : 'not a file';
  return `not a regular file (${kind})`;
}

/**
 * The bytes of a regular file of at most `limit` bytes (`what` names the limit). Anything else is
 * refused before it is read: a directory, device, FIFO or socket, or a file over the limit.
 */
function readInput(file, limit, what) {
  const fail = (reason) => new FileError(`cannot read ${file}: ${reason}`);
  const overLimit = (size) => fail(`${size} bytes, over the ${what} limit of ${limit} bytes`);
  let st;
  try {
    st = fs.statSync(file);
  } catch (e) {
    throw fail(reasonOf(e));
  }
  if (!st.isFile()) throw fail(kindOf(st));
  if (limit !== undefined && st.size > limit) throw overLimit(st.size);
  let fd;
  try {
    // O_NONBLOCK: should the path have become a FIFO since the stat, opening it does not wait.
    fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
  } catch (e) {
    throw fail(reasonOf(e));
  }
  try {
    const now = fs.fstatSync(fd);
    if (!now.isFile()) throw fail(kindOf(now));
    // Read at most limit + 1 bytes: a file that grows past the limit is refused, not swallowed.
    const cap = limit === undefined ? Infinity : limit + 1;
    let buf = Buffer.allocUnsafe(Math.max(1, Math.min(cap, now.size + 1)));
    let total = 0;
    for (;;) {
      if (total === buf.length) {
        if (total >= cap) throw fail(`over the ${what} limit of ${limit} bytes`);
        const grown = Buffer.allocUnsafe(Math.min(cap, buf.length * 2));
        buf.copy(grown, 0, 0, total);
        buf = grown;
      }
      const got = fs.readSync(fd, buf, total, buf.length - total, null);
      if (got === 0) break;
      total += got;
    }
    return new Uint8Array(buf.buffer, buf.byteOffset, total);
  } catch (e) {
    if (e instanceof FileError) throw e;
    throw fail(reasonOf(e));
  } finally {
    fs.closeSync(fd);
  }
}

function writeError(file, e) {
  if (e.code === 'ENOENT')
    return new FileError(`cannot write ${file}: no such directory ${path.dirname(file)}`);
  return new FileError(`cannot write ${file}: ${reasonOf(e)}`);
}

/** Checks, before any work, that `file` can be written: not a directory, in a writable directory. */
function checkOutput(file) {
  let st = null;
  try {
    st = fs.statSync(file);
  } catch (e) {
    if (e.code !== 'ENOENT' && e.code !== 'ENOTDIR') throw writeError(file, e);
  }
  if (st?.isDirectory()) throw new FileError(`cannot write ${file}: is a directory`);
  const dir = path.dirname(file);
  let dirStat;
  try {
    dirStat = fs.statSync(dir);
  } catch (e) {
    throw writeError(file, e);
  }
  if (!dirStat.isDirectory())
    throw new FileError(`cannot write ${file}: ${dir} is not a directory`);
  try {
    fs.accessSync(st ? file : dir, fs.constants.W_OK);
  } catch (e) {
    throw writeError(file, e);
  }
}

function writeOutput(file, bytes) {
  try {
    fs.writeFileSync(file, bytes);
  } catch (e) {
    throw writeError(file, e);
  }
}

// ---- Commands ------------------------------------------------------------------------------

// The largest --tokenizer-file read (the loader's own limit on tokenizer.json).
const MAX_TOKENIZER_FILE = 128 * 1024 * 1024;

function analysisOptions(opts, file) {
  if (opts.tokenizer !== undefined && opts.tokenizerFile !== undefined)
    throw new UsageError('give --tokenizer or --tokenizer-file, not both');
  return {
    ...(opts.language !== undefined ? { language: opts.language } : { filename: file }),
    tokenizer: opts.tokenizer ?? 'lexical',
    ...(opts.gap !== undefined ? { gap: opts.gap } : {}),
    ...(opts.descendClasses ? { descendClasses: true } : {}),
    ...(opts.segments !== undefined
      ? {
          hierarchy: 'segments',
          segmentSize: intOption(opts, 'segments', 1, Number.MAX_SAFE_INTEGER),
        }
      : {}),
  };
}

async function analyzeFile(hr, opts) {
  const file = opts.positional[0];
  const options = analysisOptions(opts, file);
  const code = new TextDecoder().decode(readInput(file, hr.limits.maxSourceBytes, 'source'));
  if (opts.tokenizerFile !== undefined) {
    const json = readInput(opts.tokenizerFile, MAX_TOKENIZER_FILE, 'tokenizer.json');
    try {
      options.tokenizer = await hr.loadTokenizer({ json });
    } catch (e) {
      if (e instanceof HiRoPEError) throw new HiRoPEError(`${opts.tokenizerFile}: ${e.message}`);
      throw e;
    }
  }
  const { tokenizer } = options;
  if (tokenizer !== 'lexical' && hr.tokenizers.includes(tokenizer))
    await hr.loadTokenizer(tokenizer);
  return { a: hr.analyze(code, options), file };
}

async function analyze(opts) {
  checkPositional(opts, 'analyze', 1, 1);
  const hr = await init();
  const { a, file } = await analyzeFile(hr, opts);
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
      positions: {
        token: Array.from(a.positions.token),
        unit: Array.from(a.positions.unit),
        statement: Array.from(a.positions.statement),
      },
      units: a.units,
      errors: a.errors,
      statements: a.statements,
    };
    process.stdout.write(JSON.stringify(out) + '\n');
    return;
  }
  console.log(
    `${file}: ${a.language}, ${a.tokens.count} ${a.tokenizer} tokens, ${a.units.length} units, ${a.statements} statements, ${a.errors.length} syntax error regions`,
  );
  for (const u of a.units) {
    const tokens = u.tokens.end - u.tokens.start;
    // HiRoPE's kind, then the language's own where it says more (a Rust struct and its impl).
    const own = u.languageKind && u.languageKind !== u.kind ? u.languageKind : '';
    console.log(
      `  ${String(u.index).padStart(4)}  ${u.kind.padEnd(8)} ${own.padEnd(10)} ${(u.name || '').padEnd(28)} chars ${u.start}-${u.end}, ${tokens} tokens`,
    );
  }
}

// --window, --ratio and --base: fields of a named scheme.
const SCHEME_FLAGS = [
  ['window', 'window'],
  ['ratio', 'ratio'],
  ['base', 'base'],
];

/**
 * The scheme of --scheme: a JSON object as given, or a name with --window, --ratio and --base as
 * its fields. A flag beside a JSON scheme, or one the named scheme does not take, is a usage
 * error (rather than silently dropped); ranges come from the package's scheme catalogue.
 */
function schemeFrom(opts, hr) {
  const text = opts.scheme ?? 'rope';
  const given = SCHEME_FLAGS.filter(([key]) => opts[key] !== undefined);
  if (text.trimStart().startsWith('{')) {
    if (given.length) {
      const [key, field] = given[0];
      throw new UsageError(
        `${flagOf(key)} cannot be combined with a JSON --scheme: put "${field}" in the JSON`,
      );
    }
    try {
      return JSON.parse(text);
    } catch {
      throw new UsageError(`--scheme is not valid JSON: ${text}`);
    }
  }
  const scheme = { type: text };
  const info = hr.catalogue.schemes.find((s) => s.name === text);
  // An unknown name: the package's message lists the schemes.
  if (!info) return scheme;
  for (const [key, field] of given) {
    const flag = flagOf(key);
    if (!info.parameters.includes(field)) {
      const takers = hr.catalogue.schemes
        .filter((s) => s.parameters.includes(field))
        .map((s) => s.name);
      throw new UsageError(
        `${flag} does not apply to scheme '${text}' (it applies to ${takers.join(', ')})`,
      );
    }
    const p = hr.catalogue.parameters.find((x) => x.name === field);
    if (p?.kind === 'integer')
      scheme[field] = intOption(
        opts,
        key,
        p.min ?? 1,
        Math.min(p.max ?? Infinity, p.limit ?? Infinity),
      );
    else
      scheme[field] = numberOption(
        opts,
        key,
        p ? { min: p.min, max: p.max, minOpen: p.minOpen, maxOpen: p.maxOpen } : {},
      );
  }
  return scheme;
}

const MAX_IMAGE = 8192;

async function attention(opts) {
  checkPositional(opts, 'attention', 1, 1);
  if (!opts.png) throw new UsageError('attention needs --png OUT.png');
  const hr = await init();
  // Every option is checked, and the image found writable, before the file is read.
  const headDim = intOption(opts, 'headDim', 1, hr.limits.maxHeadDim, 64);
  const givenSize = intOption(opts, 'size', 1, MAX_IMAGE);
  const scheme = schemeFrom(opts, hr);
  const source = opts.source ?? 'seeded';
  analysisOptions(opts, opts.positional[0]);
  checkOutput(opts.png);
  const { a, file } = await analyzeFile(hr, opts);
  const n = a.tokens.count;
  if (n === 0) throw new HiRoPEError(`${file} has no tokens`);
  const { q, k } = hr.qk({ source, n, headDim, tokenIds: a.tokens.ids, seed: 1 });
  // A scheme with segmentSize asks for fixed segments: the core derives them when no units are
  // given, as on the page.
  const positions =
    typeof scheme === 'object' && scheme?.segmentSize ? { token: a.positions.token } : a.positions;
  const probs = hr.attention({ q, k, n, headDim, positions, scheme });
  const size = givenSize ?? Math.min(n, 1024);
  writeOutput(opts.png, encodePNG(size, size, heatmapRGBA(hr, probs, n, size)));
  console.log(
    `${opts.png}: ${size}x${size} heatmap of ${n} ${a.tokenizer} tokens, ${a.units.length} units`,
  );
}

const MAX_REPEATS = 100000;

async function bench(opts) {
  checkPositional(opts, 'bench', 0, 0);
  const hr = await init();
  const headDim = intOption(opts, 'headDim', 1, hr.limits.maxHeadDim, 64);
  const repeats = intOption(opts, 'repeats', 1, MAX_REPEATS, 5);
  // n x n probabilities: n within the token limit and n * n within the output limit.
  const maxN = Math.min(hr.limits.maxTokens, Math.floor(Math.sqrt(hr.limits.maxOutputElements)));
  const ns = listOption(opts, 'n', maxN, [512, 1024, 2048]);
  console.log(`hirope ${hr.backend}, head dim ${headDim}, median of ${repeats} after a warm-up`);
  for (const n of ns) {
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
      console.log(
        `  n=${String(n).padEnd(5)} ${(typeof scheme === 'string' ? scheme : scheme.type).padEnd(7)} ${ms.toFixed(2).padStart(8)} ms   q.k ${gflops.toFixed(1)} GFLOP/s`,
      );
    }
  }
}

// ---- config: a real model's layers ----------------------------------------------------------

/** Layer indices as ranges: [0, 1, 2, 4] -> '0-2,4'. */
function layerRanges(indices) {
  const parts = [];
  for (let i = 0; i < indices.length; ) {
    let j = i;
    while (j + 1 < indices.length && indices[j + 1] === indices[j] + 1) j++;
    parts.push(j > i ? `${indices[i]}-${indices[j]}` : `${indices[i]}`);
    i = j + 1;
  }
  return parts.join(',');
}

/**
 * What one group of identical layers sees (the numbers come from hr, none computed here).
 * scaledAfterTraining: whether a linear scaling was put on the model after training at `trained`
 * (the config names a length before it) rather than trained with (hr.unseenPairs).
 */
function layerFacts(hr, layer, trained, length, scaledAfterTraining) {
  const { attention, scheme, headDim } = layer;
  const facts = {
    attention:
      attention.type === 'sliding'
        ? `sliding window ${attention.window}`
        : attention.type === 'chunked'
          ? `chunked ${attention.chunkSize}`
          : 'full',
  };
  if (layer.sinks) facts.attention += ' + sinks';
  if (layer.temperature) {
    const t = layer.temperature;
    facts.temperature = `query temperature (floor ${t.floorScale}, scale ${t.scale})`;
  }
  if (!layer.rope) return facts;
  const { scaling } = scheme;
  facts.rope = `RoPE base ${scheme.base}, scaling ${scaling.type}${scaling.factor !== undefined ? ` x${scaling.factor}` : ''}`;
  // The core's one rule (docs/real-models.md, "Angles unseen in training"), over the distances the
  // layer sees: its window or chunk bounds them.
  const u = hr.unseenPairs(scheme, headDim, {
    trainedLength: trained,
    length,
    reach: attention.window ?? attention.chunkSize ?? 0,
    scaledAfterTraining,
  });
  const rotated = [...u.frequencies].filter((f) => f > 0);
  facts.rotated = `rotates ${2 * rotated.length} of ${headDim} dims`;
  const thetaMin = Math.min(...rotated);
  facts.wavelength = `longest wavelength ${Math.round((2 * Math.PI) / thetaMin)} tokens vs trained ${trained}`;
  const share = u.rotated ? (100 * u.count) / u.rotated : 0;
  facts.unseen = `unseen at ${length}: ${u.count} of ${u.rotated} pairs (${share.toFixed(1)}%)`;
  const factor = hr.attentionFactor(scheme, headDim, { seqLen: length });
  facts.factor = `attention factor ${Number(factor.toFixed(4))}`;
  return facts;
}

// The largest config.json read (the reader's own limit, which hr.fromConfig checks again).
const MAX_CONFIG_FILE = 1 << 20;

async function config(opts) {
  checkPositional(opts, 'config', 1, 1, 'a config.json');
  const file = opts.positional[0];
  const length = intOption(opts, 'length', 1, Number.MAX_SAFE_INTEGER);
  const hr = await init();
  const text = new TextDecoder().decode(readInput(file, MAX_CONFIG_FILE, 'config.json'));
  let setup;
  try {
    setup = hr.fromConfig(text);
  } catch (e) {
    if (e instanceof HiRoPEError) throw new HiRoPEError(`${file}: ${e.message}`);
    throw e;
  }
  if (opts.json) return console.log(JSON.stringify(setup, null, 2));
  const trained = setup.trainedLength || setup.maxLength;
  const n = length ?? (setup.maxLength || trained);
  if (!trained) throw new HiRoPEError(`${file}: the config gives no trained or maximum length`);
  console.log(
    `${file}: ${setup.modelType}, ${setup.layerCount} layers, head dim ${setup.headDim}, rotary dim ${setup.rotaryDim}, trained length ${trained}, max length ${setup.maxLength}; at ${n} tokens:`,
  );
  // The config reader's verdict: a scaling put on after training (a length named before it).
  const { scaledAfterTraining } = setup;
  // Identical layers, in the order each first appears.
  const groups = new Map();
  setup.layers.forEach((layer, i) => {
    const { type, ...same } = layer; // the name transformers gives the type is not what it sees
    const key = JSON.stringify(same);
    if (!groups.has(key)) groups.set(key, { layer, indices: [] });
    groups.get(key).indices.push(i);
  });
  for (const { layer, indices } of groups.values()) {
    const facts = layerFacts(hr, layer, trained, n, scaledAfterTraining);
    const parts = [facts.attention, facts.rope ?? 'NoPE', facts.temperature, facts.rotated];
    parts.push(facts.wavelength, facts.unseen, facts.factor);
    console.log(
      `  layers ${layerRanges(indices)} (${indices.length}): ${parts.filter(Boolean).join(', ')}`,
    );
  }
  const dca = setup.dualChunk;
  if (dca)
    console.log(
      `  dual chunk attention: chunk ${dca.chunkSize}, local ${dca.localSize} (vLLM remaps the positions; the lines above count the plain ones)`,
    );
  for (const w of setup.warnings) console.log(`  warning: ${w}`);
}

async function loadModel(hr, opts) {
  if (opts.model !== undefined && opts.weights !== undefined)
    throw new UsageError('give --model or --weights, not both');
  if (opts.model !== undefined && !hr.model.names.includes(opts.model))
    throw new UsageError(
      `--model needs one of ${hr.model.names.join(', ')}, got '${opts.model}'${didYouMean(opts.model, hr.model.names)}`,
    );
  if (opts.model !== undefined) return hr.model.load({ name: opts.model });
  return hr.model.load(
    opts.weights
      ? { data: readInput(opts.weights, hr.limits.maxModelFileBytes, 'model file') }
      : {},
  );
}

/**
 * The model options of one --scheme, in the vocabulary attention takes too: a scheme name of the
 * package's catalogue (hirope, rope, rerope, ...: the model fills in its own defaults, window
 * L / 2) with --window, --ratio and --base as its fields; a JSON scheme ('{"type":"hirope",...}');
 * a JSON object of model options ('{"scheme":...,"hierarchy":"statements"}'); or an evaluation
 * preset (sliding-window, truncate, hirope-1/3-units, ...), kept as an alias.
 */
function modelOptions(spec, presets, opts, hr) {
  const flags = SCHEME_FLAGS.filter(([key]) => opts[key] !== undefined);
  if (spec.trimStart().startsWith('{')) {
    const parsed = schemeFrom({ ...opts, scheme: spec }, hr);
    // A scheme object ({ type, ... }) is the scheme; anything else is the model options.
    return isObject(parsed) && Object.hasOwn(parsed, 'type') ? { scheme: parsed } : parsed;
  }
  const named = hr.catalogue.schemes.some((x) => x.name === spec);
  // A catalogue name given fields (or one no preset has) is a scheme; a preset name is the preset.
  if (named && (flags.length > 0 || !presets[spec]))
    return { scheme: schemeFrom({ ...opts, scheme: spec }, hr) };
  if (presets[spec]) {
    if (flags.length > 0)
      throw new UsageError(
        `${flagOf(flags[0][0])} does not apply to the preset '${spec}' (it sets its own fields; name a scheme such as hirope, or pass JSON)`,
      );
    return presets[spec];
  }
  const schemes = hr.catalogue.schemes.map((x) => x.name);
  const guess = closestName(spec, [...schemes, ...Object.keys(presets)]);
  throw new UsageError(
    `unknown scheme '${spec}' (${guess ? `did you mean ${guess}? ` : ''}schemes: ${schemes.join(', ')}; presets: ${Object.keys(presets).join(', ')}; or JSON)`,
  );
}

const isObject = (x) => x !== null && typeof x === 'object' && !Array.isArray(x);

async function evalModel(opts) {
  checkPositional(opts, 'eval-model', 1, Infinity);
  const hr = await init();
  const model = await loadModel(hr, opts);
  const L = model.config.trainingContext;
  const length = intOption(opts, 'length', 2, Number.MAX_SAFE_INTEGER, 8 * L);
  const perFile = intOption(opts, 'perFile', 1, Number.MAX_SAFE_INTEGER);
  const presets = presetSchemes(L, length);
  const names = opts.schemes || Object.keys(presets);
  const options = names.map((name) => modelOptions(name, presets, opts, hr));
  const files = opts.positional.map((name) => ({
    name,
    bytes: readInput(name, hr.limits.maxSourceBytes, 'source'),
  }));
  const unit = model.tokenizer ? 'token' : 'byte';
  const windows = windowsOf(files, length, perFile, model);
  if (windows.length === 0)
    throw new HiRoPEError(`no file holds ${length} ${unit}s (one window); pass a smaller --length`);
  // A window is one call of the model: at most its input limit.
  if (length > model.maxInputBytes)
    throw new UsageError(
      `--length needs an integer in [2, ${model.maxInputBytes}] (the model's input limit), got '${opts.length}'`,
    );
  const edges = defaultBuckets(L, length);
  const results = {};
  const recall = {};
  let classBytes = null;
  names.forEach((name, i) => {
    const { sums, counts, classSums, classCounts } = bucketLosses(
      model,
      windows,
      options[i],
      edges,
    );
    results[name] = counts.map(
      (c, b) => sums.reduce((acc, row) => acc + row[b], 0) / (c * windows.length),
    );
    classBytes = RECALL_CLASSES.map((_, c) => classCounts.reduce((acc, row) => acc + row[c], 0));
    recall[name] = Object.fromEntries(
      RECALL_CLASSES.map((cls, c) => [
        cls,
        classSums.reduce((acc, row) => acc + row[c], 0) / classBytes[c],
      ]),
    );
  });
  if (opts.json) {
    const bytes = Object.fromEntries(RECALL_CLASSES.map((cls, c) => [cls, classBytes[c]]));
    process.stdout.write(
      JSON.stringify({
        model: model.config.name,
        unit,
        length,
        windows: windows.length,
        buckets: edges,
        bitsPerByte: results,
        recall: { bytes, bitsPerByte: recall },
      }) + '\n',
    );
    return;
  }
  console.log(
    `${model.config.name}: ${windows.length} windows of ${length} ${unit}s from ${files.length} files; bits/${unit} by position (training context ${L})`,
  );
  const width = Math.max(12, ...names.map((n) => n.length + 2));
  console.log('position'.padEnd(12) + names.map((n) => n.padStart(width)).join(''));
  for (let b = 0; b + 1 < edges.length; b++) {
    console.log(
      bucketLabel(edges, b).padEnd(12) +
        names.map((n) => results[n][b].toFixed(3).padStart(width)).join(''),
    );
  }
  for (const cls of ['far', 'near']) {
    const count = classBytes[RECALL_CLASSES.indexOf(cls)];
    const cell = (n) => (count ? recall[n][cls].toFixed(3) : '—').padStart(width);
    console.log(`${cls}-recall`.padEnd(12) + names.map(cell).join('') + `   (${count} ${unit}s)`);
  }
}

async function generate(opts) {
  checkPositional(opts, 'generate', 1, 1, 'the prompt');
  const hr = await init();
  const model = await loadModel(hr, opts);
  const maxBytes = intOption(opts, 'maxBytes', 0, model.maxInputBytes, 256);
  const temperature =
    numberOption(opts, 'temperature', { min: 0 }) ?? GENERATE_DEFAULTS.temperature;
  const seed = intOption(opts, 'seed', 0, Number.MAX_SAFE_INTEGER);
  const presets = presetSchemes(model.config.trainingContext, 8 * model.config.trainingContext);
  const options = modelOptions(opts.scheme ?? GENERATE_DEFAULTS.scheme, presets, opts, hr);
  const prompt = readInput(opts.positional[0], model.maxInputBytes, "model's input");
  const { text } = model.generate(prompt, {
    ...options,
    maxBytes,
    temperature,
    ...(seed !== undefined ? { seed } : {}),
  });
  process.stdout.write(text + '\n');
}

// ---- checkpoint: a Hugging Face checkpoint on a file --------------------------------------------

/**
 * Checks, before the load, that FOLDER is a directory with a tokenizer.json (FILE is text, which
 * only the checkpoint's own tokenizer turns into its ids).
 */
function checkCheckpointFolder(folder) {
  let st;
  try {
    st = fs.statSync(folder);
  } catch (e) {
    throw new FileError(
      `cannot read ${folder}: ${e.code === 'ENOENT' ? 'no such directory' : reasonOf(e)}`,
    );
  }
  if (!st.isDirectory()) throw new FileError(`cannot read ${folder}: not a directory`);
  if (!fs.existsSync(path.join(folder, 'tokenizer.json')))
    throw new HiRoPEError(
      `${folder} has no tokenizer.json: the checkpoint's tokenizer is needed to tokenize FILE`,
    );
}

/** The checkpoint, its progress on stderr when that is a terminal; its errors name the folder. */
async function loadCheckpoint(hr, folder) {
  const tty = process.stderr.isTTY;
  const onProgress = tty
    ? ({ loaded, total }) => process.stderr.write(`\rloading ${folder}: ${loaded}/${total} tensors`)
    : undefined;
  try {
    return await hr.model.fromPretrained(folder, onProgress ? { onProgress } : undefined);
  } catch (e) {
    if (e instanceof HiRoPEError) throw new HiRoPEError(`${folder}: ${e.message}`);
    throw e;
  } finally {
    if (tty) process.stderr.write('\r\x1b[K');
  }
}

async function checkpoint(opts) {
  const [folder, file] = opts.positional;
  if (opts.positional.length !== 2)
    throw new UsageError('checkpoint needs a FOLDER (the checkpoint) and a FILE (the source)');
  if (opts.positional.includes('')) throw new UsageError('checkpoint got an empty FOLDER or FILE');
  // Everything that needs no model is checked before the load (a real one takes a while).
  const flags = SCHEME_FLAGS.filter(([key]) => opts[key] !== undefined);
  if (opts.scheme === undefined && flags.length > 0)
    throw new UsageError(`${flagOf(flags[0][0])} needs a named --scheme`);
  const map = ['layer', 'head', 'png'].filter((key) => opts[key] !== undefined);
  if (map.length > 0 && map.length < 3)
    throw new UsageError('--layer, --head and --png go together (the attention map to write)');
  if (opts.size !== undefined && opts.png === undefined)
    throw new UsageError('--size needs --png (the attention map to write)');
  const layer = intOption(opts, 'layer', 0, Number.MAX_SAFE_INTEGER);
  const head = intOption(opts, 'head', 0, Number.MAX_SAFE_INTEGER);
  const givenSize = intOption(opts, 'size', 1, MAX_IMAGE);
  if (opts.png !== undefined) checkOutput(opts.png);
  const hr = await init();
  // The preset names do not depend on the lengths: an unknown scheme is refused here.
  if (opts.scheme !== undefined) modelOptions(opts.scheme, presetSchemes(1024, 1024), opts, hr);
  const bytes = readInput(file, hr.limits.maxSourceBytes, 'source');
  checkCheckpointFolder(folder);
  const model = await loadCheckpoint(hr, folder);
  const { layers, heads, modelType, warnings } = model.config;
  if (layer !== undefined && layer >= layers)
    throw new UsageError(
      `--layer needs an integer in [0, ${layers - 1}] (the model's layers), got '${opts.layer}'`,
    );
  if (head !== undefined && head >= heads)
    throw new UsageError(
      `--head needs an integer in [0, ${heads - 1}] (the model's heads), got '${opts.head}'`,
    );
  // FILE's tokens, cut to what one call of the model takes: one window from the first token.
  const fileTokens = model.positions(bytes, { hierarchy: 'segments' }).tokens.ids.length;
  const limit = model.maxInputBytes;
  const n = Math.min(fileTokens, limit);
  if (n < 2)
    throw new HiRoPEError(
      `${file} has ${fileTokens} token${fileTokens === 1 ? '' : 's'}; the loss needs at least 2`,
    );
  const [window] = windowsOf([{ name: file, bytes }], n, 1, model);
  const L = model.config.trainingContext;
  const edges = defaultBuckets(L, n);
  // A parsed hierarchy (HiRoPE's units) parses FILE in its own language where it has one.
  const language = hr.detectLanguage(file);
  const columns = [['model', {}]];
  if (opts.scheme !== undefined) {
    const options = modelOptions(opts.scheme, presetSchemes(L, Math.max(n, L)), opts, hr);
    columns.push([opts.scheme, { ...(language ? { language } : {}), ...options }]);
  }
  let counts = [];
  const bits = {};
  for (const [name, options] of columns) {
    const r = bucketLosses(model, [window], options, edges);
    counts = r.counts;
    bits[name] = r.counts.map((c, b) => (c ? r.sums[0][b] / c : null));
  }
  let image = null;
  if (opts.png !== undefined) {
    const [scheme, options] = columns[columns.length - 1];
    // The losses' input and options. attention() takes no positions: where the scheme needs a
    // parse (HiRoPE's units, statements) it gets the window's text and parses it itself (the same
    // tokens, unless FILE was cut, where the text's end may tokenize and parse otherwise).
    const o = windowOptions(model, window, options, new Map());
    const input = o.positions ? window.bytes : window.ids;
    const r = model.attention(input, { ...(o.positions ? options : o), layer, head });
    const size = givenSize ?? Math.min(r.n, 1024);
    writeOutput(opts.png, encodePNG(size, size, heatmapRGBA(hr, r.matrix, r.n, size)));
    image = { file: opts.png, size, tokens: r.n, layer, head, scheme };
  }
  if (opts.json) {
    process.stdout.write(
      JSON.stringify({
        folder,
        file,
        modelType,
        layers,
        heads,
        trainingContext: L,
        tokens: n,
        fileTokens,
        cut: fileTokens > n,
        buckets: edges,
        counts,
        bitsPerToken: bits,
        ...(image ? { png: image } : {}),
        warnings,
      }) + '\n',
    );
    return;
  }
  const tokens =
    fileTokens > n
      ? `the first ${n} of ${fileTokens} tokens (the model's input limit)`
      : `${n} tokens`;
  console.log(
    `${folder}: ${modelType}, ${layers} layers, ${heads} heads, trained length ${L}; ${file}: ${tokens}; bits/token by position`,
  );
  const names = columns.map(([name]) => name);
  const width = Math.max(12, ...names.map((name) => name.length + 2));
  console.log(
    'position'.padEnd(12) + 'tokens'.padStart(8) + names.map((x) => x.padStart(width)).join(''),
  );
  for (let b = 0; b + 1 < edges.length; b++) {
    const cell = (name) => (bits[name][b] === null ? '—' : bits[name][b].toFixed(3));
    console.log(
      bucketLabel(edges, b).padEnd(12) +
        String(counts[b]).padStart(8) +
        names.map((name) => cell(name).padStart(width)).join(''),
    );
  }
  if (image)
    console.log(
      `${image.file}: ${image.size}x${image.size} attention of layer ${layer}, head ${head} over ${image.tokens} tokens, ${image.scheme === 'model' ? "the model's own positions" : image.scheme}`,
    );
  for (const w of warnings) console.log(`  warning: ${w}`);
}

const COMMANDS = {
  analyze,
  attention,
  bench,
  checkpoint,
  config,
  'eval-model': evalModel,
  generate,
};

async function main(argv) {
  const [command, ...rest] = argv;
  if (!command || command === '--help' || command === '-h') return console.log(HELP.main);
  if (!Object.hasOwn(COMMANDS, command))
    throw new UsageError(
      `unknown command '${command}'${didYouMean(command, Object.keys(COMMANDS))}`,
    );
  // --help anywhere before '--' prints the command's help, whatever else is given.
  const end = rest.indexOf('--');
  if ((end < 0 ? rest : rest.slice(0, end)).some((a) => a === '--help' || a === '-h'))
    return console.log(HELP[command]);
  return COMMANDS[command](parseArgs(command, rest));
}

// stdout closed early (hirope ... | head): stop quietly; any other write error: one line.
process.stdout.on('error', (e) => {
  if (e.code === 'EPIPE') process.exit(0);
  console.error(`hirope: cannot write standard output: ${reasonOf(e)}`);
  process.exit(1);
});

main(process.argv.slice(2)).catch((e) => {
  if (e instanceof UsageError) {
    console.error(`hirope: ${e.message} (see hirope --help)`);
    process.exit(2);
  }
  if (e instanceof FileError) {
    console.error(`hirope: ${e.message}`);
    process.exit(2);
  }
  console.error(`hirope: ${e instanceof HiRoPEError ? e.message : e.stack || e}`);
  process.exit(1);
});
