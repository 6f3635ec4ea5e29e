// Model mode's downloads: each model's weights (and the token model's llama2 vocabulary) fetched
// once per visit for both workers and only when picked, their sizes before the download (for the
// picker), and the held-out verdict of the model shown, from the evaluation's own files.
import { el } from '../dom.js';
import { $ } from '../shell.js';
import { assetURL } from '../../shared/hashed-assets.js';
import { SHIPPED_MODELS, CHECKPOINT } from '../../shared/models.js';
import { EVAL_FILES, verdictData, renderVerdict } from './verdict.js';

/**
 * useModel(name) loads a model into both workers and, once the page's controls exist
 * (mx.built), sets mx.config and the Split% bounds; labelSizes(select) names each model's size.
 */
export function createModelLoading(mx) {
  // The weights, fetched once per visit for both workers, and only for the model picked: the
  // byte model (data/pybyte.hrm, about 1.3 MB) or the token model (data/pyjs-llama2.hrm, about
  // 9.5 MB, with the llama2 vocabulary, data/llama2.bin). hr.model.load() reads data/NAME.hrm next
  // to the hirope module, which the site bundles into worker.js: the same URL from here.
  const MODEL_URLS = Object.fromEntries(
    SHIPPED_MODELS.map(([name]) => [name, assetURL(`data/${name}.hrm`, mx.workerURL)]),
  );
  const TOKENIZER_URL = assetURL('data/llama2.bin', mx.workerURL);
  async function fetchBytes(url, what) {
    const response = await fetch(url);
    if (!response.ok)
      throw Object.assign(
        new Error(`could not fetch ${what} (${url.pathname}: HTTP ${response.status})`),
        { name: 'NetworkError' },
      );
    return response.arrayBuffer();
  }
  // Sizes before download: the files' lengths from a HEAD request each (null if the host says none).
  const sizeOf = (url) =>
    fetch(url, { method: 'HEAD' })
      .then((r) => Number(r.headers.get('content-length')) || null)
      .catch(() => null);
  const modelSizes = Object.fromEntries(
    SHIPPED_MODELS.map(([name]) => [
      name,
      Promise.all([
        sizeOf(MODEL_URLS[name]),
        name === 'pyjs-llama2' ? sizeOf(TOKENIZER_URL) : 0,
      ]).then(([w, t]) => (w === null || t === null ? null : w + t)),
    ]),
  );
  const megabytes = (n) => `${(n / 1048576).toFixed(1)} MB`;
  const loads = new Map(); // model name -> Promise of its config, loaded by both workers
  function loadModel(name) {
    // The person's checkpoint: its source loads it, in both workers (checkpoint-source.js).
    if (name === CHECKPOINT) return mx.checkpointSource.load();
    if (!loads.has(name)) {
      const promise = (async () => {
        if (name === 'pyjs-llama2') {
          const data = await fetchBytes(TOKENIZER_URL, 'the llama2 vocabulary');
          await Promise.all(
            ['a', 'b'].map((s) =>
              mx.client.side(s).request('tokenizerData', { name: 'llama2', data }),
            ),
          );
        }
        const data = await fetchBytes(MODEL_URLS[name], "the model's weights");
        const [loaded] = await Promise.all(
          ['a', 'b'].map((s) => mx.client.side(s).request('modelLoad', { data, name })),
        ); // each worker gets a copy
        return loaded;
      })();
      promise.catch(() => loads.delete(name)); // a failed download is tried again on the next run
      loads.set(name, promise);
    }
    return loads.get(name);
  }
  // The held-out verdict of the model shown, from the evaluation's own files (data/eval/).
  const verdicts = new Map(); // model name -> Promise of its verdictData
  async function showVerdict(name, modelConfig) {
    if (name === CHECKPOINT) {
      $('verdict-body').replaceChildren(
        el(
          'p',
          { class: 'muted' },
          "The held-out verdict is the shipped models' evaluation. For your checkpoint, the loss chart is the measure: A's and B's loss at every token against its training length, on the code above.",
        ),
      );
      document.body.dataset.verdict = name;
      return;
    }
    if (!verdicts.has(name)) {
      verdicts.set(
        name,
        (async () => {
          const files = await Promise.all(
            EVAL_FILES[name].map(([evalFile, record]) =>
              Promise.all(
                [evalFile, record].map(async (f) =>
                  JSON.parse(
                    new TextDecoder().decode(
                      await fetchBytes(assetURL(`data/eval/${f}`, location.href), f),
                    ),
                  ),
                ),
              ),
            ),
          );
          const seeds = files.map(
            ([, record], i) => `seed ${record.seed}${i === 0 ? ' (shipped)' : ''}`,
          );
          return verdictData(
            files.map(([e]) => e),
            { seeds, config: modelConfig },
          );
        })(),
      );
      verdicts.get(name).catch(() => verdicts.delete(name));
    }
    const box = $('verdict-body');
    try {
      const data = await verdicts.get(name);
      if (mx.state.model !== name) return;
      renderVerdict(box, data);
      document.body.dataset.verdict = name;
    } catch (e) {
      box.replaceChildren(
        el(
          'p',
          { class: 'muted' },
          `The held-out verdict could not be read: ${e.message}. It is in docs/model-eval.md.`,
        ),
      );
    }
  }

  function useModel(name) {
    const loading = loadModel(name);
    mx.modelReady = loading.then(async (loaded) => {
      await mx.built;
      if (mx.state.model !== name) return loaded;
      mx.config = loaded;
      mx.bound = await mx.splitBoundOf(0);
      mx.bound = await mx.splitBoundOf(mx.bound.maxRatio);
      mx.paperBound = await mx.splitBoundOf(0.5);
      mx.configured();
      showVerdict(name, loaded);
      return loaded;
    });
    mx.modelReady.catch(() => {}); // reported by the first run
    return mx.modelReady;
  }

  // The picker names each model's download size before it is fetched.
  function labelSizes(select) {
    for (const [name, label] of SHIPPED_MODELS) {
      modelSizes[name].then((size) => {
        const option = [...select.options].find((o) => o.value === name);
        if (option && size)
          option.textContent = `${label} · ${megabytes(size)}${loads.has(name) ? '' : ' download'}`;
      });
    }
  }

  return { useModel, labelSizes };
}
