#!/usr/bin/env node
// hirope command-line tool.
import fs from 'node:fs';
import init, { HiRoPEError } from '../dist/index.js';

const HELP = {
  main: `usage: hirope <command> [options]

commands:
  analyze FILE   tokenize and parse a source file, print tokens, units and positions

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
    else if (a === '--segments') {
      const v = value();
      if (!/^[1-9]\d*$/.test(v)) throw new UsageError(`--segments needs a positive integer, got '${v}'`);
      opts.segmentSize = Number(v);
    } else if (a.startsWith('-')) throw new UsageError(`unknown option ${a}`);
    else opts.positional.push(a);
  }
  return opts;
}

async function analyze(opts) {
  if (opts.help) return console.log(HELP.analyze);
  if (opts.positional.length !== 1) throw new UsageError('analyze needs exactly one FILE');
  const file = opts.positional[0];
  let code;
  try {
    code = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new HiRoPEError(`cannot read ${file}: ${e.code === 'ENOENT' ? 'no such file' : e.message}`);
  }
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

async function main(argv) {
  const [command, ...rest] = argv;
  if (!command || command === '--help' || command === '-h') return console.log(HELP.main);
  const opts = parseArgs(rest);
  if (command === 'analyze') return analyze(opts);
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
