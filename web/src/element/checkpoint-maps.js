// The <hirope-attention> element's checkpoint attribute (web/src/element/hirope-attention.js):
// a Hugging Face checkpoint folder's real attention,
// fetched by the shared worker once per page (web/src/worker/checkpoint-engine.js), refused above
// max-bytes before its weights download, with its progress in the element's foot.
import { el } from '../page/dom.js';
import { plural } from '../shared/wording.js';
import { schemeName } from '../shared/schemes.js';
import { checkpointURL } from '../shared/checkpoint.js';

/**
 * A checkpoint side's title: "its own positions", or the scheme swapped in with the settings the
 * attributes give (the model's own for the rest); on a NoPE layer a swapped scheme changes nothing.
 */
export function checkpointSideName(side, nope = false) {
  if (side.type === 'rope' && (side.scaling ?? 'none') === 'none') return 'its own positions';
  const parts = [];
  if (side.type === 'hirope' && side.ratio !== undefined) parts.push(`ratio ${side.ratio}`);
  if (side.window !== undefined && side.type !== 'rope') parts.push(`W ${side.window}`);
  if (side.type === 'self-extend' && side.group !== undefined) parts.push(`G ${side.group}`);
  const scaled =
    side.scaling && side.scaling !== 'none'
      ? ` with ${side.scaling} scaling${side.factor !== undefined ? ` ×${side.factor}` : ''}`
      : '';
  const name = `${schemeName(side.type)}${parts.length ? ` (${parts.join(', ')})` : ''}${scaled} on its weights`;
  return nope ? `${name} (a NoPE layer: its own)` : name;
}

/**
 * A Hugging Face checkpoint's own attention (the checkpoint attribute): fetched by the worker
 * once per page, refused above max-bytes before its weights download, with its progress here;
 * A under its own positions (or scheme-a), B under scheme-b on the same weights.
 */
export async function showCheckpoint(
  element,
  { state, checkpoint, run, t0, client, sameAttention, workerFailure },
) {
  const where = checkpointURL(checkpoint.url, document.baseURI);
  if (where.problem) {
    element._fail(state, where.problem, { names: sideNames(checkpoint) });
    return;
  }
  const megabytes = (n) => `${(n / 1048576).toFixed(1)} MB`;
  const progress = (p) => {
    if (run !== element._runs) return;
    if (p.stage === 'download')
      element._foot.textContent = `Downloading the checkpoint: ${megabytes(p.loaded)}${p.total ? ` of ${megabytes(p.total)}` : ''}…`;
    else if (p.stage === 'load')
      element._foot.textContent = `Reading the weights: ${Math.round((100 * p.loaded) / p.total)}%…`;
    else if (p.stage === 'attention')
      element._foot.textContent = `Running the model for ${p.side.toUpperCase()}…`;
  };
  try {
    await client.a.loadLanguage(state.language);
    const r = await client.a.request(
      'checkpointMaps',
      {
        url: where.url,
        maxBytes: checkpoint.maxBytes,
        code: element.code,
        language: state.language,
        layer: checkpoint.layer,
        head: checkpoint.head,
        a: checkpoint.a,
        b: checkpoint.b,
        view: { size: 320 },
      },
      progress,
    );
    if (run !== element._runs) return;
    const name = (side) =>
      checkpointSideName(side, r.model.layer === null ? null : r.model.layer.includes('NoPE'));
    element._result = {
      n: r.n,
      analysis: { unit: r.units, count: r.n },
      images: r.images,
      state,
      setup: null,
      names: { a: name(checkpoint.a), b: name(checkpoint.b) },
    };
    element._draw();
    const ms = performance.now() - t0;
    const m = r.model;
    element._foot.replaceChildren(
      ...element._legends(),
      el(
        'span',
        {},
        `${m.modelType}, ${(m.parameters / 1e6).toFixed(1)}M parameters · layer ${checkpoint.layer}${m.layer ? ` (${m.layer})` : ''}, head ${checkpoint.head} · ${plural(r.n, 'token')}${r.clipped ? ` of ${r.total.toLocaleString('en')}` : ''} · ${ms.toFixed(0)} ms · hirope`,
      ),
    );
    const same = r.n > 0 && sameAttention(r.images.raw, r.images.rawB);
    if (same)
      element._foot.append(
        el(
          'span',
          { class: 'same' },
          'A and B give the same attention for this code and head: try another scheme-b, layer or head, or longer code.',
        ),
      );
    element.dataset.same = String(same);
    element.dataset.ready = 'true';
    element.dispatchEvent(
      new CustomEvent('hirope:ready', { detail: { tokens: r.n, ms, same, checkpoint: m } }),
    );
  } catch (e) {
    if (run !== element._runs) return;
    const message = e.name === 'WorkerError' ? await workerFailure(e.message) : e.message;
    if (run !== element._runs) return;
    element._fail(state, message, { names: sideNames(checkpoint) });
  }
}

const sideNames = (checkpoint) => ({
  a: checkpointSideName(checkpoint.a),
  b: checkpointSideName(checkpoint.b),
});
