// <hirope-attention> from the packed npm package (hirope/element), as a blog author gets it: `npm
// pack`, the tarball installed offline into fresh projects (one pack and one install shared by
// every test), then the element from a plain <script type="module"> on a static server (the same
// origin, and another origin as a CDN is), through a Vite build and through an esbuild bundle,
// each in headless Chromium. Also: every path README's entry-point table lists resolves, the
// tarball carries LICENSE and the docs README links, an unknown language is refused before any
// request, a snippet inside the window says why A and B are the same, a missing file is named, a
// checkpoint folder beside the page is drawn (its own head and HiRoPE on its weights), and a Vite
// page that uses one language and one tokenizer deploys under 3 MB.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import zlib from 'node:zlib';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { launchChromium } from '../../tools/chromium.mjs';
import { CSP, bin, installTarball, packTarball, root } from './packed.mjs';
import { TOKENIZER_FILES, MODEL_FILES } from '../../dist/runtime.js';
import { CONFIG_GALLERY } from '../../dist/registry.js';
import { writeCheckpointFixtures } from '../js/support/checkpoint-fixtures.mjs';
import { tinyTokenizerFile } from '../fixtures/tiny-tokenizer.mjs';

const TYPES = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.wasm': 'application/wasm',
};
const DEPLOY_LIMIT = 3 * 1024 * 1024;

/** A static server of `dir` that records each request's method, path and status in `requests`. */
function serve(dir, { csp = CSP, cors = false, requests = [] } = {}) {
  const server = http.createServer((req, res) => {
    const name = decodeURIComponent(req.url.split('?')[0]);
    if (name === '/favicon.ico') {
      res.writeHead(204);
      res.end();
      return;
    }
    const file = path.join(dir, name === '/' ? 'index.html' : name);
    const found = file.startsWith(dir) && fs.existsSync(file) && fs.statSync(file).isFile();
    requests.push({ method: req.method, path: name, status: found ? 200 : 404 });
    const headers = {
      ...(csp && { 'content-security-policy': csp }),
      ...(cors && { 'access-control-allow-origin': '*' }),
    };
    if (!found) {
      res.writeHead(404, headers);
      res.end();
      return;
    }
    res.writeHead(200, {
      ...headers,
      'content-type': TYPES[path.extname(file)] || 'application/octet-stream',
    });
    if (req.method === 'HEAD') res.end();
    else fs.createReadStream(file).pipe(res);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}
const address = (server) => `http://127.0.0.1:${server.address().port}/`;

// The elements every page shows: Python under cl100k (the window set below its length, so A and B
// differ), a snippet shorter than the default window, a language hirope does not know, a gallery
// model (its config read at the URL the page registered or beside element.js) and a config.json's
// own text.
const MODEL = 'llama-3.2-1b';
const OWN_CONFIG = JSON.stringify({
  model_type: 'qwen2',
  hidden_size: 896,
  num_attention_heads: 14,
  num_hidden_layers: 2,
  rope_theta: 1000000,
  max_position_embeddings: 32768,
});
const MODEL_ELEMENTS = `
<hirope-attention id="model" model="${MODEL}" window="4" code="def add(x, y):
    total = x + y
    return total
"></hirope-attention>
<hirope-attention id="config" config='${OWN_CONFIG}' window="4" code="def add(x, y):
    return x + y
"></hirope-attention>`;
// A misspelt attribute and a misspelt language (refused with a suggestion, before any request
// for the Rust grammar), and an element with no code.
const STRICT_ELEMENTS = `
<hirope-attention id="typo" sheme-b="alibi" language="rust" code="fn main() {}"></hirope-attention>
<hirope-attention id="pyton" language="pyton" code="x = 1"></hirope-attention>
<hirope-attention id="empty" language="python"></hirope-attention>`;
const IDS = ['main', 'short', 'ruby', 'model', 'config', 'typo', 'pyton', 'empty'];
const ELEMENTS = `${MODEL_ELEMENTS}${STRICT_ELEMENTS}
<hirope-attention id="main" language="python" tokenizer="cl100k" window="4" code="def add(x, y):
    total = x + y
    return total
"></hirope-attention>
<hirope-attention id="short" language="python" code="x = 1
"></hirope-attention>
<hirope-attention id="ruby" language="ruby" code="puts 1"></hirope-attention>`;
// Python longer than the checkpoint element's window of 32 bytes, so that A and B differ.
const CHECKPOINT_CODE = `class Circle:
    def __init__(self, radius):
        self.radius = radius

    def area(self):
        return 3.14159 * self.radius ** 2
`;
const PAGE = (src, body = ELEMENTS, attributes = '') =>
  `<!doctype html><html><head><meta charset="utf-8"><title>hirope element</title></head><body>${body}<script type="module" src="${src}"${attributes}></script></body></html>`;

/** docs/playground.md's Content Security Policy for the element from a CDN, for `origin`. */
function documentedCSP(origin) {
  const docs = fs.readFileSync(path.join(root, 'docs/playground.md'), 'utf8');
  const line = /^Content-Security-Policy: (.*)$/m.exec(docs);
  assert.ok(line, 'docs/playground.md gives the policy');
  return line[1].replaceAll('https://cdn.example', origin);
}

// An element computes once it scrolls into view, as a reader scrolls to it.
const settled = async (page, id) => {
  await page.locator(`#${id}`).scrollIntoViewIfNeeded();
  await page.waitForFunction(
    (id) => ['true', 'error'].includes(document.getElementById(id)?.dataset.ready),
    id,
    { timeout: 60000 },
  );
};
const foot = (page, id) =>
  page.evaluate(
    (id) => document.getElementById(id).shadowRoot.querySelector('[role=status]').textContent,
    id,
  );

/**
 * A size a doc states (in MB of 10^6 bytes or KB of 10^3) against the bytes measured: equal to
 * the precision it is written with, or within 5% (JS grows a little with each change).
 */
function assertStated(what, text, bytes, unit) {
  const stated = Number(text);
  const measured = bytes / unit;
  const decimals = text.includes('.') ? text.length - text.indexOf('.') - 1 : 0;
  const slack = Math.max(0.5 * 10 ** -decimals, 0.05 * measured);
  assert.ok(
    Math.abs(stated - measured) <= slack,
    `${what}: the docs say ${text}, measured ${measured.toFixed(decimals + 1)}`,
  );
}
const MB = 1e6;
const KB = 1e3;
const gzipBytes = (file) => zlib.gzipSync(fs.readFileSync(file), { level: 9 }).length;

const dirBytes = (dir) =>
  fs
    .readdirSync(dir, { recursive: true })
    .map((f) => path.join(dir, f))
    .filter((f) => fs.statSync(f).isFile())
    .reduce((sum, f) => sum + fs.statSync(f).size, 0);

describe('<hirope-attention> from the packed package', () => {
  let tmp, tarball, project, browser;
  const dist = () => path.join(project, 'node_modules/hirope/dist');

  before(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'hirope-element-'));
    tarball = packTarball(tmp);
    project = installTarball(path.join(tmp, 'site'), tarball, 'element-site');
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  /** Opens `url`, waits for the elements named, returns the page and its console problems. */
  async function open(url, ids = IDS) {
    const page = await browser.newPage({ viewport: { width: 1100, height: 2000 } });
    const problems = [];
    page.on('pageerror', (e) => problems.push(e.message));
    page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
    await page.goto(url);
    for (const id of ids) await settled(page, id);
    return { page, problems };
  }

  /** The checks every page with ELEMENTS passes: drawn, the hint, the language refused. */
  async function checkElements(page, requests) {
    assert.equal(
      await page.evaluate(() => document.getElementById('main').dataset.ready),
      'true',
      await foot(page, 'main'),
    );
    assert.match(await foot(page, 'main'), /\d+ tokens?, \d+ units?/);
    assert.equal(await page.evaluate(() => document.getElementById('main').dataset.same), 'false');
    const cells = await page.evaluate(
      () => document.getElementById('main').shadowRoot.querySelector('canvas').dataset.cells,
    );
    assert.ok(Number(cells) > 0, `cells ${cells}`);
    // Under 64 tokens, HiRoPE with the default window is RoPE: the element says so.
    assert.equal(await page.evaluate(() => document.getElementById('short').dataset.same), 'true');
    assert.match(await foot(page, 'short'), /A and B are the same here: .* window of 64.*window="/);
    // An unknown language is refused from the table, with no request for its grammar.
    assert.equal(await page.evaluate(() => document.getElementById('ruby').dataset.ready), 'error');
    assert.match(await foot(page, 'ruby'), /language attribute must be one of python, .*"ruby"/);
    assert.ok(!requests.some((r) => /ruby/.test(r.path)), JSON.stringify(requests));
    // A real model by its gallery id, and a config.json's own text: both drawn, each with its
    // layer's head dim (64 for Llama 3.2 1B: 2048 / 32; 64 for the Qwen2 config: 896 / 14).
    for (const id of ['model', 'config']) {
      assert.equal(
        await page.evaluate((id) => document.getElementById(id).dataset.ready, id),
        'true',
        `${id}: ${await foot(page, id)}`,
      );
      assert.match(await foot(page, id), /\d+ tokens?, \d+ units?/);
    }
    // A model's side offers only its layer (rope) and HiRoPE on it in the scheme menus.
    const offered = await page.evaluate(() =>
      [...document.getElementById('model').shadowRoot.querySelectorAll('select')].map((s) =>
        [...s.options].filter((o) => !o.disabled).map((o) => o.value),
      ),
    );
    assert.deepEqual(offered, [
      ['rope', 'hirope'],
      ['rope', 'hirope'],
    ]);
    // Strict attributes: refused with a suggestion, nothing fetched for them; no code is named.
    for (const [id, pattern] of [
      ['typo', /^<hirope-attention> has no attribute "sheme-b" \(did you mean "scheme-b"\?\)/],
      ['pyton', /language attribute must be one of .*, got "pyton" \(did you mean "python"\?\)/],
      ['empty', /^There is no code to show/],
    ]) {
      assert.equal(
        await page.evaluate((id) => document.getElementById(id).dataset.ready, id),
        'error',
      );
      assert.match(await foot(page, id), pattern);
    }
    assert.ok(!requests.some((r) => /rust|pyton/.test(r.path)), JSON.stringify(requests));
    const caption = await page.evaluate(
      () => document.getElementById('model').shadowRoot.querySelector('figcaption').textContent,
    );
    assert.match(caption, /llama-3\.2-1b|Llama/i, caption);
  }

  it('ships the element, LICENSE, the docs README links, and resolves every README entry point', () => {
    const pkg = path.join(project, 'node_modules/hirope');
    assert.match(fs.readFileSync(path.join(pkg, 'LICENSE'), 'utf8'), /^MIT License/);
    const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
    const linked = [...new Set(readme.match(/docs\/[\w.-]+\.(?:md|svg)/g))];
    assert.ok(linked.length > 3, linked.join());
    for (const doc of linked) assert.ok(fs.existsSync(path.join(pkg, doc)), doc);
    // The entry-point table's import paths, with {a,b}, <language> and * expanded.
    const table = readme.slice(readme.indexOf('### Entry points'));
    const rows = [
      ...table.slice(0, table.indexOf('\n\n', table.indexOf('|'))).matchAll(/^\| ([^|]+) \|/gm),
    ].filter((m) => m[1].startsWith('`hirope'));
    const languages = fs
      .readdirSync(path.join(pkg, 'dist'))
      .filter((f) => f.startsWith('tree-sitter-'))
      .map((f) => f.slice('tree-sitter-'.length, -'.wasm'.length));
    const data = fs.readdirSync(path.join(pkg, 'dist/data'));
    const expand = (spec) => {
      const brace = /\{([^}]*)\}/.exec(spec);
      if (brace) return brace[1].split(',').flatMap((x) => expand(spec.replace(brace[0], x)));
      if (spec.includes('<language>')) return languages.map((l) => spec.replace('<language>', l));
      if (spec.includes('/language/<name>')) return languages.map((l) => spec.replace('<name>', l));
      if (spec.includes('/tokenizer/<name>'))
        return Object.keys(TOKENIZER_FILES).map((t) => spec.replace('<name>', t));
      if (spec.includes('/model/<name>'))
        return Object.keys(MODEL_FILES).map((m) => spec.replace('<name>', m));
      if (spec.includes('/config/<id>'))
        return CONFIG_GALLERY.map((c) => spec.replace('<id>', c.id));
      if (spec.includes('*')) {
        const [prefix, suffix] = spec.replace(/^hirope\/data\//, '').split('*');
        return data
          .filter((f) => f.startsWith(prefix) && f.endsWith(suffix))
          .map((f) => `hirope/data/${f}`);
      }
      return [spec];
    };
    // Every backticked name of a row's first cell; `*.json` after `hirope/data/*.bin` is in its folder.
    const specs = rows.flatMap((m) => {
      const names = [...m[1].matchAll(/`([^`]+)`/g)].map((x) => x[1]);
      const folder = names[0].slice(0, names[0].lastIndexOf('/') + 1);
      return names.map((n) => (n.startsWith('hirope') ? n : folder + n)).flatMap(expand);
    });
    for (const must of [
      'hirope',
      'hirope/lean',
      'hirope/element',
      'hirope/assets/model/pybyte',
      'hirope/assets/config/llama-3.2-1b',
      'hirope/assets/core',
      'hirope/data/qwen3.json',
      'hirope/tree-sitter-python.wasm',
    ])
      assert.ok(specs.includes(must), `README's table lists ${must}: ${specs.join(' ')}`);
    const resolved = JSON.parse(
      execFileSync(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          `console.log(JSON.stringify(${JSON.stringify(specs)}.map((s) => { try { return import.meta.resolve(s); } catch (e) { return 'ERROR ' + e.code; } })))`,
        ],
        { cwd: project, encoding: 'utf8' },
      ),
    );
    specs.forEach((spec, i) => {
      assert.ok(resolved[i].startsWith('file:'), `${spec}: ${resolved[i]}`);
      assert.ok(fs.existsSync(fileURLToPath(resolved[i])), `${spec}: ${resolved[i]} is not there`);
    });
  });

  it('runs from a plain <script type="module"> on a static server, no build step; the docs example shows A and B differ', async () => {
    // docs/playground.md's element example, as a blog author copies it.
    const docs = fs.readFileSync(path.join(root, 'docs/playground.md'), 'utf8');
    const section = docs.slice(docs.indexOf('## `<hirope-attention>` for blog posts'));
    const example = /```html\n[\s\S]*?(<hirope-attention[\s\S]*?<\/hirope-attention>)/
      .exec(section)[1]
      .replace('<hirope-attention', '<hirope-attention id="docs"');
    // A checkpoint folder served beside the page (hirope's byte model as a llama checkpoint,
    // with a byte-level tokenizer.json): the package's element worker downloads and runs it.
    const fixtures = writeCheckpointFixtures('hirope-element-package-');
    try {
      fs.cpSync(
        path.join(fixtures, 'pybyte-llama'),
        path.join(project, 'checkpoints/pybyte-llama'),
        { recursive: true },
      );
    } finally {
      fs.rmSync(fixtures, { recursive: true, force: true });
    }
    fs.writeFileSync(
      path.join(project, 'checkpoints/pybyte-llama/tokenizer.json'),
      JSON.stringify(tinyTokenizerFile({ tokens: [], merges: [] })),
    );
    const checkpoint = `<hirope-attention id="checkpoint" checkpoint="checkpoints/pybyte-llama/" layer="1" head="2" window="32" code="${CHECKPOINT_CODE}"></hirope-attention>`;
    fs.writeFileSync(
      path.join(project, 'plain.html'),
      PAGE('./node_modules/hirope/dist/element.js', ELEMENTS + example + checkpoint),
    );
    const requests = [];
    const server = await serve(project, { requests });
    try {
      const { page, problems } = await open(`${address(server)}plain.html`, [
        ...IDS,
        'docs',
        'checkpoint',
      ]);
      await checkElements(page, requests);
      assert.equal(
        await page.evaluate(() => document.getElementById('docs').dataset.same),
        'false',
        await foot(page, 'docs'),
      );
      // The checkpoint's own head and HiRoPE on its weights, its weights downloaded once.
      assert.equal(
        await page.evaluate(() => document.getElementById('checkpoint').dataset.ready),
        'true',
        await foot(page, 'checkpoint'),
      );
      assert.match(
        await foot(page, 'checkpoint'),
        /llama, 0\.7M parameters · layer 1 \(full\), head 2 · \d+ tokens/,
      );
      assert.equal(
        await page.evaluate(() => document.getElementById('checkpoint').dataset.same),
        'false',
      );
      assert.equal(
        requests.filter((r) => r.method === 'GET' && r.path.endsWith('.safetensors')).length,
        1,
        JSON.stringify(requests),
      );
      assert.deepEqual(problems, []);
      await page.close();
    } finally {
      server.close();
    }
  });

  it('takes every documented attribute from the package: each one changes the picture or the title it should', async () => {
    const code = `def area(width, height):
    return width * height

def volume(width, height, depth):
    return area(width, height) * depth
`;
    // [id, attributes, the element it is compared with, the side whose map changes, its title]
    const cases = [
      ['base', '', null, null, /^A RoPE$/],
      ['seeded', 'source="seeded"', 'base', 'a', null],
      ['layout', 'source="seeded" layout="interleaved"', 'seeded', 'a', null],
      ['theta', 'base="500000"', 'base', 'a', null],
      ['dim', 'head-dim="32"', 'base', 'a', null],
      [
        'selfextend',
        'scheme-a="self-extend" group="4" window="8"',
        'base',
        'a',
        /Self-Extend \(W 8, G 4\)/,
      ],
      [
        'leaky',
        'scheme-a="leaky-rerope" leaky-factor="4" window="8"',
        'base',
        'a',
        /Leaky ReRoPE \(W 8, slope 1\/4\)/,
      ],
      [
        'levels',
        'levels="3" ratio="0.3" window="4"',
        'base',
        'b',
        /HiRoPE \(ratio 0\.3, 3 levels, W 4\)/,
      ],
      ['segments', 'segment-size="4" window="4"', 'base', 'b', /4-token segments/],
      ['yarn', 'scaling="yarn" factor="8" train="16"', 'base', 'a', /YaRN scaling ×8/],
      ['layer', `model="${MODEL}" layer="1"`, null, null, /llama-3\.2-1b, layer 1/],
    ];
    const escaped = code.replaceAll('"', '&quot;');
    const body = cases
      .map(
        ([id, attributes]) =>
          `<hirope-attention id="${id}" ${attributes} code="${escaped}"></hirope-attention>`,
      )
      .join('\n');
    // The code as a <template> child and as the element's own text, indented as HTML is.
    const indented = code.replace(/^/gm, '    ').trimEnd();
    const sources = `<hirope-attention id="template"><template>\n${indented}\n</template></hirope-attention>
<hirope-attention id="text">\n${indented}\n</hirope-attention>`;
    fs.writeFileSync(
      path.join(project, 'attributes.html'),
      PAGE('./node_modules/hirope/dist/element.js', body + sources),
    );
    const server = await serve(project);
    try {
      const ids = [...cases.map(([id]) => id), 'template', 'text'];
      const { page, problems } = await open(`${address(server)}attributes.html`, ids);
      const drawn = await page.evaluate(
        (ids) =>
          Object.fromEntries(
            ids.map((id) => {
              const e = document.getElementById(id);
              const figures = [...e.shadowRoot.querySelectorAll('figure')];
              return [
                id,
                {
                  ready: e.dataset.ready,
                  foot: e.shadowRoot.querySelector('[role=status]').textContent,
                  titles: figures.map((f) => f.querySelector('figcaption').textContent),
                  maps: figures.map((f) => f.querySelector('canvas').toDataURL()),
                },
              ];
            }),
          ),
        ids,
      );
      for (const id of ids) assert.equal(drawn[id].ready, 'true', `${id}: ${drawn[id].foot}`);
      for (const [id, , other, side, title] of cases) {
        if (other) {
          const k = side === 'a' ? 0 : 1;
          assert.notEqual(
            drawn[id].maps[k],
            drawn[other].maps[k],
            `${id}: ${side.toUpperCase()} as ${other}'s`,
          );
        }
        if (title) assert.match(drawn[id].titles[side === 'b' ? 1 : 0], title, id);
      }
      // The same code from the attribute, a <template> and the text: the same maps.
      for (const id of ['template', 'text']) assert.deepEqual(drawn[id].maps, drawn.base.maps, id);
      assert.deepEqual(problems, []);
      await page.close();
    } finally {
      server.close();
    }
  });

  it('runs from another origin, as from a CDN (the page names only element.js), under the documented CSP', async () => {
    const cdnRequests = [];
    const cdn = await serve(project, { csp: null, cors: true, requests: cdnRequests });
    const site = path.join(tmp, 'blog');
    fs.mkdirSync(site, { recursive: true });
    fs.writeFileSync(
      path.join(site, 'index.html'),
      PAGE(`${address(cdn)}node_modules/hirope/dist/element.js`),
    );
    const origin = address(cdn).slice(0, -1);
    const server = await serve(site, { csp: documentedCSP(origin) });
    try {
      const { page, problems } = await open(address(server));
      await checkElements(page, cdnRequests);
      assert.ok(cdnRequests.some((r) => r.path.endsWith('/element-worker.js')));
      assert.deepEqual(problems, []);
      await page.close();
    } finally {
      server.close();
      cdn.close();
    }
  });

  it('runs under Trusted Types with the documented policy name, and names it when the CSP lacks it', async () => {
    const main =
      '<hirope-attention id="main" language="python" window="4" code="def f(x):\n    return x + 1\n"></hirope-attention>';
    fs.writeFileSync(
      path.join(project, 'trusted.html'),
      PAGE('./node_modules/hirope/dist/element.js', main),
    );
    for (const [names, ready] of [
      ['hirope', 'true'],
      ['other', 'error'],
    ]) {
      const server = await serve(project, {
        csp: `${CSP}; require-trusted-types-for 'script'; trusted-types ${names}`,
      });
      try {
        const page = await browser.newPage();
        await page.goto(`${address(server)}trusted.html`);
        await settled(page, 'main');
        const text = await foot(page, 'main');
        assert.equal(
          await page.evaluate(() => document.getElementById('main').dataset.ready),
          ready,
          text,
        );
        if (ready === 'error')
          assert.match(
            text,
            /^The hirope worker did not start: the page's Trusted Types policy .* add hirope to its trusted-types directive/,
          );
        await page.close();
      } finally {
        server.close();
      }
    }
  });

  it('from a CDN under a policy that blocks the worker, every element names the cause at once', async () => {
    const cdn = await serve(project, { csp: null, cors: true });
    const origin = address(cdn).slice(0, -1);
    const src = `${origin}/node_modules/hirope/dist/element.js`;
    const site = path.join(tmp, 'blocked');
    fs.mkdirSync(site, { recursive: true });
    // A nonce lets the page's script tag in, but not the worker the blob: module imports; a
    // worker-src without blob: refuses the start module itself.
    const cases = [
      {
        name: 'nonce.html',
        attributes: ' nonce="n0nce"',
        csp: `default-src 'self'; script-src 'nonce-n0nce' 'wasm-unsafe-eval'; connect-src 'self' ${origin}; worker-src blob:`,
        cause: new RegExp(
          `Content Security Policy blocks ${origin}/node_modules/hirope/dist/element-worker\\.js \\(script-src`,
        ),
      },
      {
        name: 'no-blob.html',
        attributes: '',
        csp: `default-src 'self'; script-src 'self' ${origin} 'wasm-unsafe-eval'; connect-src 'self' ${origin}; worker-src 'self'`,
        cause: /worker-src/,
      },
    ];
    for (const c of cases)
      fs.writeFileSync(path.join(site, c.name), PAGE(src, ELEMENTS, c.attributes));
    try {
      for (const c of cases) {
        const server = await serve(site, { csp: c.csp }); // each page under its own policy
        try {
          const page = await browser.newPage({ viewport: { width: 1100, height: 2000 } });
          await page.goto(`${address(server)}${c.name}`);
          // Every element that needs the worker fails with the cause (none stays at "Computing…").
          for (const id of ['main', 'short', 'model', 'config']) {
            await settled(page, id);
            assert.equal(
              await page.evaluate((id) => document.getElementById(id).dataset.ready, id),
              'error',
            );
            const text = await foot(page, id);
            assert.match(text, /^The hirope worker did not start: /, `${c.name} ${id}: ${text}`);
            assert.match(text, c.cause, `${c.name} ${id}: ${text}`);
          }
          await page.close();
        } finally {
          server.close();
        }
      }
    } finally {
      cdn.close();
    }
  });

  it('builds with Vite: the page ships only what it imports, under 3 MB, and names a missing file', async () => {
    const dir = path.join(project, 'vite');
    fs.mkdirSync(path.join(dir, 'src'), { recursive: true });
    fs.writeFileSync(
      path.join(dir, 'src/main.js'),
      `import 'hirope/element';\nimport 'hirope/assets/language/python';\nimport 'hirope/assets/tokenizer/cl100k';\nimport 'hirope/assets/config/${MODEL}';\n`,
    );
    // One more element, in a language the page did not import: its grammar is not deployed.
    const go = '<hirope-attention id="go" language="go" code="package main\n"></hirope-attention>';
    fs.writeFileSync(path.join(dir, 'index.html'), PAGE('/src/main.js', ELEMENTS + go));
    const log = execFileSync(
      process.execPath,
      [bin('vite', 'bin/vite.js'), 'build', '--logLevel', 'warn'],
      { cwd: dir, encoding: 'utf8', stdio: 'pipe' },
    );
    assert.equal(log.trim(), '', 'Vite builds without warnings');
    const out = path.join(dir, 'dist');
    const files = fs.readdirSync(path.join(out, 'assets'));
    const assets = files
      .filter((f) => !f.endsWith('.js'))
      .map((f) => f.replace(/-[\w-]{8}\./, '.'));
    // The config's module carries its text: no file, no request (a data: URL would meet the CSP).
    assert.deepEqual(assets.sort(), ['cl100k.bin', 'hirope-simd.wasm', 'tree-sitter-python.wasm']);
    assert.ok(
      files.some((f) => /^element-worker-.*\.js$/.test(f)),
      files.join(),
    );
    const bytes = dirBytes(out);
    console.log(`Vite page (python + cl100k) deploys ${bytes} bytes`);
    assert.ok(bytes < DEPLOY_LIMIT, `${bytes} bytes deployed`);
    // docs/playground.md states this page's size and its parts.
    const doc = fs.readFileSync(path.join(root, 'docs/playground.md'), 'utf8').replace(/\s+/g, ' ');
    const m =
      /deploys ([\d.]+) MB: the ([\d.]+) MB SIMD module, the ([\d.]+) MB Python grammar, the ([\d.]+) MB vocabulary and ([\d.]+) MB of JS/.exec(
        doc,
      );
    assert.ok(m, 'docs/playground.md states the Vite page size');
    const file = (f) => fs.statSync(path.join(dist(), f)).size;
    const parts = [
      file('hirope-simd.wasm'),
      file('tree-sitter-python.wasm'),
      file('data/cl100k.bin'),
    ];
    assertStated('the page', m[1], bytes, MB);
    assertStated('the SIMD module', m[2], parts[0], MB);
    assertStated('the Python grammar', m[3], parts[1], MB);
    assertStated('the vocabulary', m[4], parts[2], MB);
    assertStated('the JS', m[5], bytes - parts[0] - parts[1] - parts[2], MB);
    const requests = [];
    const server = await serve(out, { requests });
    try {
      const { page, problems } = await open(address(server), [...IDS, 'go']);
      await checkElements(page, requests);
      assert.ok(!requests.some((r) => r.path.includes('configs')), JSON.stringify(requests));
      // The grammar the page did not import: the error names the URL it looked for.
      assert.match(await foot(page, 'go'), /tree-sitter-go\.wasm.*(404|HTTP)/);
      assert.ok(
        problems.every((p) => /404/.test(p)),
        problems.join('\n'),
      );
      await page.close();
    } finally {
      server.close();
    }
  });

  it('bundles with esbuild (worker and files copied beside the bundle); a missing worker is named', async () => {
    const dir = path.join(project, 'esbuild');
    fs.mkdirSync(path.join(dir, 'src'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'src/main.js'), "import 'hirope/element';\n");
    execFileSync(
      bin('esbuild', 'bin/esbuild'),
      ['src/main.js', '--bundle', '--format=esm', '--outdir=out', '--log-level=warning'],
      { cwd: dir, stdio: 'pipe' },
    );
    const out = path.join(dir, 'out');
    fs.writeFileSync(path.join(out, 'index.html'), PAGE('./main.js'));
    const server = await serve(out);
    try {
      // Nothing copied yet: the element says which file is missing.
      const first = await open(address(server), ['short']);
      assert.match(
        await foot(first.page, 'short'),
        /The hirope worker did not start: .*http:\/\/127\.0\.0\.1:\d+\/element-worker\.js answered HTTP 404/,
      );
      await first.page.close();
      // What docs/playground.md says to copy: the worker, the module, the grammars and data used.
      for (const f of ['element-worker.js', 'hirope-simd.wasm', 'tree-sitter-python.wasm'])
        fs.copyFileSync(path.join(dist(), f), path.join(out, f));
      fs.mkdirSync(path.join(out, 'data'));
      fs.copyFileSync(path.join(dist(), 'data/cl100k.bin'), path.join(out, 'data/cl100k.bin'));
      fs.mkdirSync(path.join(out, 'data/configs'));
      fs.copyFileSync(
        path.join(dist(), `data/configs/${MODEL}.json`),
        path.join(out, `data/configs/${MODEL}.json`),
      );
      const requests = [];
      server.on('request', (req) => requests.push({ path: req.url }));
      const { page, problems } = await open(address(server));
      await checkElements(page, requests);
      assert.deepEqual(problems, []);
      await page.close();
    } finally {
      server.close();
    }
  });
  it('hirope/lean in Node reads every file from the package, and knows every grammar', () => {
    const out = execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import init, { GRAMMAR_LANGUAGES } from 'hirope/lean';
const hr = await init();
await hr.loadTokenizer('o200k');
const a = hr.analyze('fn main() {}\\n', { language: 'rust', tokenizer: 'o200k' });
const core = await init({ analysis: false, simd: false });
const model = await hr.model.load();
console.log(JSON.stringify({ languages: [...hr.languages].sort(), grammars: [...GRAMMAR_LANGUAGES].sort(), units: a.units.map((u) => u.kind), core: core.hasAnalysis, bits: model.loss('def f(x):\\n    return x\\n').bitsPerByte > 0 }));`,
      ],
      { cwd: project, encoding: 'utf8' },
    );
    const r = JSON.parse(out);
    assert.deepEqual(r.grammars, r.languages);
    assert.deepEqual(r.units, ['function']);
    assert.equal(r.core, false);
    assert.equal(r.bits, true);
  });

  it('hirope/lean through Vite: one language and one tokenizer deploy under 3 MB', async () => {
    const dir = path.join(project, 'vite-lean');
    fs.mkdirSync(path.join(dir, 'src'), { recursive: true });
    fs.writeFileSync(
      path.join(dir, 'src/main.js'),
      `import init from 'hirope/lean';
import 'hirope/assets/language/python';
import 'hirope/assets/tokenizer/cl100k';
const hr = await init();
await hr.loadTokenizer('cl100k');
const a = hr.analyze('def add(x, y):\\n    return x + y\\n', { language: 'python', tokenizer: 'cl100k' });
let missing = '';
try { await hr.loadLanguage('go'); } catch (e) { missing = e.message; }
document.body.dataset.result = JSON.stringify({ ids: Array.from(a.tokens.ids.slice(0, 4)), units: a.units.map((u) => u.kind), missing });
`,
    );
    fs.writeFileSync(path.join(dir, 'index.html'), PAGE('/src/main.js', ''));
    const log = execFileSync(
      process.execPath,
      [bin('vite', 'bin/vite.js'), 'build', '--logLevel', 'warn'],
      { cwd: dir, encoding: 'utf8', stdio: 'pipe' },
    );
    assert.equal(log.trim(), '', 'Vite builds without warnings');
    const out = path.join(dir, 'dist');
    const assets = fs
      .readdirSync(path.join(out, 'assets'))
      .filter((f) => !f.endsWith('.js'))
      .map((f) => f.replace(/-[\w-]{8}\./, '.'));
    assert.deepEqual(assets.sort(), ['cl100k.bin', 'hirope-simd.wasm', 'tree-sitter-python.wasm']);
    const bytes = dirBytes(out);
    console.log(`Vite page on hirope/lean (python + cl100k) deploys ${bytes} bytes`);
    assert.ok(bytes < DEPLOY_LIMIT, `${bytes} bytes deployed`);
    // README's entry-point table states it, and the element's and the grammars' downloads (gzip).
    const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
    assertStated(
      'hirope/lean in README',
      /Python \+ cl100k: ([\d.]+) MB deployed/.exec(readme)[1],
      bytes,
      MB,
    );
    const element = /\| ([\d.]+) KB \+ the worker, ([\d.]+) KB \|/.exec(readme);
    assertStated(
      'hirope/element (gzip)',
      element[1],
      gzipBytes(path.join(dist(), 'element.js')),
      KB,
    );
    assertStated(
      'its worker (gzip)',
      element[2],
      gzipBytes(path.join(dist(), 'element-worker.js')),
      KB,
    );
    const grammars = /([\d.]+) KB \(Go\) to ([\d.]+) KB \(C\+\+\); Python ([\d.]+) KB/.exec(readme);
    for (const [i, language] of ['go', 'cpp', 'python'].entries())
      assertStated(
        `the ${language} grammar (gzip)`,
        grammars[i + 1],
        gzipBytes(path.join(dist(), `tree-sitter-${language}.wasm`)),
        KB,
      );
    const server = await serve(out);
    try {
      const page = await browser.newPage();
      await page.goto(address(server));
      await page.waitForFunction(() => document.body.dataset.result, null, { timeout: 60000 });
      const r = JSON.parse(await page.evaluate(() => document.body.dataset.result));
      // cl100k ids of "def add(x, y):" (gpt-tokenizer), and the function unit.
      assert.deepEqual(r.ids, [755, 923, 2120, 11]);
      assert.deepEqual(r.units, ['function']);
      // A grammar the page did not import: the error names the URL that failed.
      assert.match(
        r.missing,
        /go grammar could not be loaded from http:.*tree-sitter-go\.wasm.*404/,
      );
      await page.close();
    } finally {
      server.close();
    }
  });
});
