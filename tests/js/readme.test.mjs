// The README's runnable examples run as they stand (against the built package).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

describe('README examples', () => {
  it('run without errors', () => {
    const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
    const blocks = [...readme.matchAll(/<!-- runnable -->\n```js\n([\s\S]*?)```/g)].map(
      (m) => m[1],
    );
    assert.ok(blocks.length >= 1);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hirope-readme-'));
    for (const [i, code] of blocks.entries()) {
      const file = path.join(dir, `example${i}.mjs`);
      const dist = path.join(root, 'dist/index.js');
      fs.writeFileSync(file, code.replaceAll("from 'hirope'", `from '${dist}'`));
      const out = execFileSync(process.execPath, [file], { encoding: 'utf8' });
      assert.match(out, /headDim must be a positive even integer, got 15/);
    }
  });

  // The JS model example writes code, the same as the Python example (same prompt, temperature
  // and seed), whose printed output the README shows. Before, it sampled at 0.8 under self-extend.
  it('the JS generate example prints the code the Python example prints', () => {
    const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
    const jsPrompt = readme.match(/^const prompt = '(.*)';$/m);
    const jsCall = readme.match(
      /^(model\.generate\(prompt, \{ maxBytes: (\d+), temperature: ([\d.]+), seed: (\d+) \}\)\.text);/m,
    );
    const pyPrompt = readme.match(/^prompt = "(.*)"$/m);
    const pyCall = readme.match(
      /^print\(model\.generate\(prompt, max_bytes=(\d+), temperature=([\d.]+), seed=(\d+)\)\)$/m,
    );
    assert.ok(jsPrompt && jsCall && pyPrompt && pyCall, 'the two generate examples');
    assert.equal(jsPrompt[1], pyPrompt[1]);
    assert.deepEqual(jsCall.slice(2), pyCall.slice(1));
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hirope-readme-'));
    try {
      const file = path.join(dir, 'generate.mjs');
      fs.writeFileSync(
        file,
        `import init from '${path.join(root, 'dist/index.js')}';
const hr = await init();
const model = await hr.model.load();
${jsPrompt[0]}
process.stdout.write(${jsCall[1]});
`,
      );
      const text = execFileSync(process.execPath, [file], { encoding: 'utf8' });
      // Code: indented lines, mostly not blank (greedy decoding gave 80 spaces here).
      assert.ok(text.replace(/\s/g, '').length >= text.length / 2, JSON.stringify(text));
      assert.match(text, /\n {4}def \w+\(self/);
      const output = readme.slice(readme.indexOf('<!-- output -->'));
      const printed = output.slice(0, output.indexOf('\n```\n', output.indexOf('```text') + 1));
      assert.ok(
        printed.includes(text.trimEnd()),
        `README output block lacks ${JSON.stringify(text)}`,
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("lists every Debian package scripts/setup.sh installs (setup.sh's list is the source)", () => {
    const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
    const setup = fs.readFileSync(path.join(root, 'scripts/setup.sh'), 'utf8');
    const list = setup.match(/^APT_PACKAGES=\(([^)]*)\)/m);
    assert.ok(list, 'APT_PACKAGES in scripts/setup.sh');
    const packages = list[1].split(/\s+/).filter(Boolean);
    assert.ok(packages.includes('python3-setuptools') && packages.includes('python3-wheel'));
    const intro = readme.slice(0, readme.indexOf('Other commands:'));
    assert.deepEqual(
      packages.filter((name) => !intro.includes(`\`${name}\``)),
      [],
    );
  });
});

describe("README's Layout", () => {
  const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
  const block = readme.slice(readme.indexOf('## Layout'), readme.indexOf('## Benchmark'));
  const tracked = execFileSync('git', ['ls-files'], { cwd: root, encoding: 'utf8' })
    .split('\n')
    .filter((f) => f.includes('/') && !f.startsWith('.'));
  // The folder names that start a line of the block: "src/        portable C++17 ..."
  const named = new Set([...block.matchAll(/^([\w-]+(?:\/[\w-]+)*)\/ /gm)].map((m) => m[1]));

  it('names every top-level folder, and only folders that exist', () => {
    const top = new Set(tracked.map((f) => f.split('/')[0]));
    const topNamed = new Set([...named].map((n) => n.split('/')[0]));
    assert.deepEqual(
      [...top].filter((d) => !topNamed.has(d)),
      [],
      'folders the Layout leaves out',
    );
    for (const n of named) assert.ok(fs.existsSync(path.join(root, n)), `${n}/ exists`);
  });

  it('names every library folder of src/, every public header and every docs/ page', () => {
    for (const dir of fs.readdirSync(path.join(root, 'src')))
      assert.ok(block.includes(`${dir}/`), `src/${dir}/ in the Layout`);
    for (const header of fs.readdirSync(path.join(root, 'include/hirope')))
      assert.ok(block.includes(header), `include/hirope/${header} in the Layout`);
    for (const doc of fs.readdirSync(path.join(root, 'docs')).filter((f) => f.endsWith('.md')))
      assert.ok(block.includes(doc), `docs/${doc} in the Layout`);
  });
});
