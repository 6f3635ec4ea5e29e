// A real model's config is read by the worker (modelSetup) while the person goes on choosing: a
// reading that arrives after a later choice never overwrites it (web/src/page/playground/
// model-choices.js). The readings are promises this test resolves, in every order, and each
// choice's own promise says when it is complete: no timers, no sleeps.
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import init from '../../dist/index.js';
import { createModelChoices, sourceKey } from '../../web/src/page/playground/model-choices.js';
import { setupSummary } from '../../web/src/shared/model-gallery.js';
import { normalizeState } from '../../web/src/shared/playground-state.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const configText = (id) => fs.readFileSync(path.join(root, 'models/configs', `${id}.json`), 'utf8');

let summaries;
before(async () => {
  const hr = await init();
  summaries = {};
  for (const id of ['deepseek-v3', 'gpt-oss-20b', 'ministral-3-3b'])
    summaries[id] = setupSummary(hr.fromConfig(configText(id)));
});

/** A page whose worker answers each modelSetup request when the test says so. */
function fakePage() {
  const waiting = new Map(); // source key -> { resolve, reject }
  const pg = {
    state: normalizeState({}),
    choose() {},
    schedule() {},
    client: {
      a: {
        request(type, { source }) {
          assert.equal(type, 'modelSetup');
          return new Promise((resolve, reject) =>
            waiting.set(sourceKey(source), { resolve, reject }),
          );
        },
      },
    },
  };
  const answer = (id) => waiting.get(`id:${id}`).resolve(summaries[id]);
  return { pg, answer, waiting };
}

/** Every order of a list. */
function orders(list) {
  if (list.length <= 1) return [list];
  return list.flatMap((x, i) =>
    orders([...list.slice(0, i), ...list.slice(i + 1)]).map((rest) => [x, ...rest]),
  );
}

describe('model readings that arrive late', () => {
  it('the summaries this test uses differ in head dim and trained length', () => {
    const facts = (id) => [summaries[id].headDim, summaries[id].trainedLength];
    // DeepSeek-V3: MLA 128 + 64 dims, original 4096; GPT-oss: head_dim 64, original 4096;
    // Ministral 3: head_dim 128, original 16384.
    assert.deepEqual(facts('deepseek-v3'), [192, 4096]);
    assert.deepEqual(facts('gpt-oss-20b'), [64, 4096]);
    assert.deepEqual(facts('ministral-3-3b'), [128, 16384]);
  });

  for (let round = 0; round < 20; round++)
    it(`never overwrites a later choice (round ${round + 1} of 20)`, async () => {
      // B chooses DeepSeek, then A chooses GPT-oss, then A Ministral: the settings are the
      // last choice's, whichever reading arrives first.
      for (const order of orders(['deepseek-v3', 'gpt-oss-20b', 'ministral-3-3b'])) {
        const { pg, answer } = fakePage();
        const choices = createModelChoices(pg, () => {});
        const done = [
          choices.choose('b', { model: 'deepseek-v3' }),
          choices.choose('a', { model: 'gpt-oss-20b' }),
          choices.choose('a', { model: 'ministral-3-3b' }),
        ];
        for (const id of order) answer(id);
        assert.deepEqual(await Promise.all(done), [false, false, true], order.join(', '));
        assert.deepEqual(
          [pg.state.headDim, pg.state.train, pg.state.a.model, pg.state.b.model],
          [128, 16384, 'ministral-3-3b', 'deepseek-v3'],
          order.join(', '),
        );
      }
      // On one side: DeepSeek, then GPT-oss; DeepSeek's reading arrives last.
      for (const order of orders(['deepseek-v3', 'gpt-oss-20b'])) {
        const { pg, answer } = fakePage();
        const choices = createModelChoices(pg, () => {});
        const done = [
          choices.choose('b', { model: 'deepseek-v3' }),
          choices.choose('b', { model: 'gpt-oss-20b' }),
        ];
        for (const id of order) answer(id);
        await Promise.all(done);
        assert.deepEqual([pg.state.headDim, pg.state.train], [64, 4096], order.join(', '));
        assert.equal(pg.state.b.model, 'gpt-oss-20b');
      }
    });

  it('keeps a head dim or training length the person set while the config was read', async () => {
    const { pg, answer } = fakePage();
    const choices = createModelChoices(pg, () => {});
    const done = choices.choose('b', { model: 'deepseek-v3' });
    pg.state.headDim = 32; // typed into Head dim before the reading arrived
    answer('deepseek-v3');
    assert.equal(await done, false);
    assert.deepEqual([pg.state.headDim, pg.state.train], [32, 256]);
  });

  it('keeps what a preset or Back set while the config was read', async () => {
    const { pg, answer } = fakePage();
    const choices = createModelChoices(pg, () => {});
    const done = choices.choose('b', { model: 'deepseek-v3' });
    choices.supersede(); // a preset: the same model may stay, its own settings win
    answer('deepseek-v3');
    assert.equal(await done, false);
    assert.deepEqual([pg.state.headDim, pg.state.train], [64, 256]);
  });

  it('applies a reading that arrives with no later choice, and reads each source once', async () => {
    const { pg, answer, waiting } = fakePage();
    const choices = createModelChoices(pg, () => {});
    const done = choices.choose('b', { model: 'deepseek-v3' });
    assert.equal(choices.summaryOf({ id: 'deepseek-v3' }), null); // being read
    assert.equal(waiting.size, 1);
    answer('deepseek-v3');
    assert.equal(await done, true);
    assert.deepEqual([pg.state.headDim, pg.state.train], [192, 4096]);
    assert.equal(choices.summaryOf({ id: 'deepseek-v3' }), summaries['deepseek-v3']);
    assert.equal(choices.viewLength(), 163840);
  });
});
