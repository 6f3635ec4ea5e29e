// The playground's links (web/src/shared/playground-state.js): a link made by an earlier version still loads, a cut
// or garbled one is reported as unreadable (and gives the defaults), and a link can leave the code
// out and say so.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  normalizeState,
  encodeState,
  decodeState,
  readStateLink,
} from '../../web/src/shared/playground-state.js';

import { OLD_LINK, OLD_LINK_STATE } from './support/old-link.mjs';

describe('links', () => {
  it('loads a link in the earlier format', async () => {
    const read = await readStateLink(OLD_LINK);
    assert.equal(read.unreadable, false);
    assert.equal(read.codeOmitted, false);
    const want = normalizeState({
      ...OLD_LINK_STATE,
      a: { ...normalizeState({}).a, ...OLD_LINK_STATE.a },
      b: { ...normalizeState({}).b, ...OLD_LINK_STATE.b },
    });
    assert.deepEqual(read.state, want);
    assert.deepEqual(await decodeState(OLD_LINK), want);
  });

  it("reads leaky ReRoPE's slope from a link made before it became the core's leakyFactor", async () => {
    const zlib = await import('node:zlib');
    const json = JSON.stringify({ preset: '', a: { type: 'leaky-rerope', leaky: 0.125 } });
    const read = await readStateLink(
      `#s=${zlib.deflateRawSync(Buffer.from(json)).toString('base64url')}`,
    );
    assert.equal(read.unreadable, false);
    assert.equal(read.state.a.type, 'leaky-rerope');
    assert.equal(read.state.a.leakyFactor, 8);
    assert.equal(read.state.b.leakyFactor, normalizeState({}).b.leakyFactor);
  });

  it('round-trips a state with a long file', async () => {
    const code = Array.from(
      { length: 2600 },
      (_, i) => `    value_${i} = compute(${i}, "text ${i % 17}")  # line ${i}`,
    ).join('\n');
    const state = normalizeState({ code, train: 512, b: { ...normalizeState({}).b, ratio: 0.3 } });
    const hash = await encodeState(state);
    const read = await readStateLink(hash);
    assert.equal(read.unreadable, false);
    assert.deepEqual(read.state, state);
  });

  it('reports a cut or garbled link as unreadable and gives the defaults', async () => {
    const hash = await encodeState(normalizeState({ code: 'x = 1\n'.repeat(50), train: 100 }));
    for (const bad of [
      hash.slice(0, Math.floor(hash.length / 2)),
      hash.slice(0, -3),
      `${hash.slice(0, 12)}AAAA${hash.slice(16)}`,
      '#s=%%%',
      '#s=AAAA',
      '#s=',
      `${hash}!`,
    ]) {
      const read = await readStateLink(bad);
      assert.equal(read.unreadable, true, bad.slice(0, 40));
      assert.deepEqual(read.state, normalizeState({}));
    }
    // No state in the hash is not an error.
    for (const none of ['', '#', '#views'])
      assert.equal((await readStateLink(none)).unreadable, false);
  });

  it('leaves the code out of a shorter link, and says so', async () => {
    const code = Array.from(
      { length: 300 },
      (_, i) => `def g${i}(x):\n    return x * ${i} + ${(i * 7919) % 1000}\n`,
    ).join('');
    const state = normalizeState({ code, language: 'python', train: 64 });
    const full = await encodeState(state);
    const short = await encodeState(state, { withoutCode: true });
    assert.ok(short.length < full.length / 4, `${short.length} vs ${full.length}`);
    const read = await readStateLink(short);
    assert.equal(read.codeOmitted, true);
    assert.equal(read.state.code, null);
    assert.equal(read.state.train, 64);
    // A state with no code of its own (a sample) has nothing to leave out.
    assert.equal(
      (await readStateLink(await encodeState(normalizeState({ train: 64 }), { withoutCode: true })))
        .codeOmitted,
      false,
    );
  });
});
