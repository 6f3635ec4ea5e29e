// The JS side of the Python module's parity tests (tests/python/test_module.py): runs a list of
// operations through the npm package (dist/index.js, the WebAssembly build) and writes their
// results as JSON. Floats are written as the shortest text of the float32 value, so they read back
// exactly. Usage: node tests/python/js_reference.mjs REQUEST.json OUT.json
// REQUEST: { ops: [ { op: 'encode' | 'analyze' | 'attention' | 'rotate' | 'distances' | 'loss'
// | 'logits' | 'modelAttention' | 'generate', ...arguments } ] }; OUT: { results: [ result or
// { error } per op ] }.
import fs from 'node:fs';
import init from '../../dist/index.js';

const [requestPath, outPath] = process.argv.slice(2);
const request = JSON.parse(fs.readFileSync(requestPath, 'utf8'));
const hr = await init();
const models = new Map();
const text = (o) => (o.path ? fs.readFileSync(o.path, 'utf8') : o.text);
const f32 = (list) => Float32Array.from(list);
const i32 = (list) => (list ? Int32Array.from(list) : undefined);
// Floats for JSON: non-finite values as the strings 'inf', '-inf' and 'nan' (JSON has none).
const floats = (a) =>
  Array.from(a, (x) => (Number.isFinite(x) ? x : Number.isNaN(x) ? 'nan' : x > 0 ? 'inf' : '-inf'));
const positions = (p) =>
  p && { token: i32(p.token), unit: i32(p.unit), statement: i32(p.statement) };

async function run(o) {
  switch (o.op) {
    case 'encode': {
      await hr.loadTokenizer(o.tokenizer);
      return Array.from(hr.encode(text(o), { tokenizer: o.tokenizer }));
    }
    case 'analyze': {
      if (o.tokenizer !== 'lexical') await hr.loadTokenizer(o.tokenizer);
      const a = hr.analyze(text(o), {
        language: o.language,
        tokenizer: o.tokenizer,
        hierarchy: o.hierarchy,
        segmentSize: o.segmentSize,
      });
      return {
        language: a.language,
        tokenizer: a.tokenizer,
        ids: Array.from(a.tokens.ids),
        starts: Array.from(a.tokens.byteStart),
        ends: Array.from(a.tokens.byteEnd),
        startsUtf16: Array.from(a.tokens.start),
        unit: Array.from(a.positions.unit),
        statement: Array.from(a.positions.statement),
        units: a.units.map((u) => ({
          kind: u.kind,
          name: u.name,
          nodeType: u.nodeType,
          languageKind: u.languageKind,
          start: u.byteStart,
          end: u.byteEnd,
          tokens: [u.tokens.start, u.tokens.end],
          statements: [u.statements.start, u.statements.end],
        })),
        errors: a.errors.map((e) => ({ start: e.byteStart, end: e.byteEnd, missing: e.missing })),
        statements: a.statements,
      };
    }
    case 'attention': {
      const args = {
        n: o.n,
        headDim: o.headDim,
        heads: o.heads,
        q: f32(o.q),
        k: f32(o.k),
        scheme: o.scheme,
        positions: positions(o.positions),
        output: o.output,
        causal: o.causal,
      };
      if (o.v) args.v = f32(o.v);
      return floats(hr.attention(args));
    }
    case 'rotate':
      return floats(
        hr.rotate({
          n: o.n,
          headDim: o.headDim,
          heads: o.heads,
          x: f32(o.x),
          scheme: o.scheme,
          positions: positions(o.positions),
          role: o.role,
          branch: o.branch,
        }),
      );
    case 'distances':
      return hr
        .relativeDistances({
          n: o.n,
          headDim: o.headDim,
          scheme: o.scheme,
          positions: positions(o.positions),
        })
        .map((b) => ({
          name: b.name,
          pairBegin: b.pairBegin,
          pairEnd: b.pairEnd,
          distances: floats(b.distances),
        }));
    case 'loss': {
      if (!models.has(o.model)) models.set(o.model, await hr.model.load({ name: o.model }));
      const r = models.get(o.model).loss(text(o), { scheme: o.scheme, hierarchy: o.hierarchy });
      return {
        losses: floats(r.losses),
        bitsPerByte: r.bitsPerByte,
        bitsPerToken: r.bitsPerToken ?? null,
        n: r.n,
      };
    }
    case 'logits': {
      if (!models.has(o.model)) models.set(o.model, await hr.model.load({ name: o.model }));
      return floats(models.get(o.model).logits(text(o), { scheme: o.scheme }));
    }
    case 'modelAttention': {
      if (!models.has(o.model)) models.set(o.model, await hr.model.load({ name: o.model }));
      const r = models.get(o.model).attention(text(o), {
        scheme: o.scheme,
        layer: o.layer,
        head: o.head,
      });
      return {
        matrix: floats(r.matrix),
        n: r.n,
        unit: Array.from(r.positions.unit),
        statement: Array.from(r.positions.statement),
        tokenIds: r.tokens ? Array.from(r.tokens.ids) : null,
      };
    }
    case 'generate': {
      if (!models.has(o.model)) models.set(o.model, await hr.model.load({ name: o.model }));
      return models.get(o.model).generate(o.prompt, {
        maxBytes: o.maxBytes,
        temperature: o.temperature,
        seed: o.seed,
        scheme: o.scheme,
      }).text;
    }
    default:
      throw new Error(`unknown op ${o.op}`);
  }
}

const results = [];
for (const o of request.ops) {
  try {
    results.push(await run(o));
  } catch (e) {
    results.push({ error: e.message });
  }
}
fs.writeFileSync(outPath, JSON.stringify({ results }));
