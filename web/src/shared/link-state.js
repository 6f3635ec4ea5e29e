// The URL form that makes every view shareable by link, for either mode's state: only what differs
// from the mode's defaults, deflated into "#s=…". Pure functions (no DOM), so Node tests can use them.

/** normalizeState for any defaults (Model mode has its own). */
export function normalizeWith(defaults, partial = {}) {
  const pick = (defaults, value) => {
    const out = {};
    for (const [key, def] of Object.entries(defaults)) {
      const v = value?.[key];
      if (def === null) out[key] = typeof v === 'string' ? v : null;
      else if (typeof def === 'object') out[key] = pick(def, v);
      else
        out[key] =
          typeof v === typeof def && (typeof v !== 'number' || Number.isFinite(v)) ? v : def;
    }
    return out;
  };
  return pick(defaults, partial);
}

// Only the differences from the defaults go into the URL, so links stay short.
function diff(value, defaults) {
  const out = {};
  for (const [key, def] of Object.entries(defaults)) {
    const v = value[key];
    if (def !== null && typeof def === 'object') {
      const d = diff(v, def);
      if (Object.keys(d).length) out[key] = d;
    } else if (v !== def) out[key] = v;
  }
  return out;
}

function toBase64Url(bytes) {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000)
    s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
function fromBase64Url(text) {
  const s = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  const bytes = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) bytes[i] = s.charCodeAt(i);
  return bytes;
}
async function pipe(bytes, stream) {
  const out = new Response(new Blob([bytes]).stream().pipeThrough(stream));
  return new Uint8Array(await out.arrayBuffer());
}

/**
 * The hash for a state. withoutCode: a shorter link that leaves the code out (and says so, with
 * codeOmitted, so that the page that opens it can tell the person).
 */
export async function encodeWith(defaults, state, { withoutCode = false, keep = [] } = {}) {
  const normal = normalizeWith(defaults, state);
  const changed = diff(normal, defaults);
  for (const key of keep) changed[key] = normal[key]; // named even at its default
  if (withoutCode && 'code' in changed) {
    delete changed.code;
    changed.codeOmitted = true;
  }
  const json = JSON.stringify(changed);
  if (json === '{}') return '';
  const packed = await pipe(new TextEncoder().encode(json), new CompressionStream('deflate-raw'));
  return `#s=${toBase64Url(packed)}`;
}

export async function decodeWith(defaults, hash) {
  return (await readLink(defaults, hash)).state;
}

/**
 * A link's state in the keys of an earlier version, in today's: leaky ReRoPE's slope `leaky`
 * (beyond the window the distance grows by `leaky` per token) is now the core's divisor
 * `leakyFactor` = 1 / leaky.
 */
function upgrade(defaults, value) {
  const out = { ...value };
  for (const side of ['a', 'b']) {
    const v = value[side];
    if (!defaults[side] || !('leakyFactor' in defaults[side]) || !v || typeof v !== 'object')
      continue;
    if (typeof v.leaky === 'number' && v.leaky > 0 && v.leakyFactor === undefined)
      out[side] = { ...v, leakyFactor: 1 / v.leaky };
  }
  return out;
}

/**
 * A URL hash read in full: { state, unreadable, codeOmitted }. unreadable: the hash carries a
 * state ("#s=…") that cannot be decoded (cut off, garbled); the state is then the defaults.
 * codeOmitted: the link was made without its code.
 */
export async function readLink(defaults, hash) {
  const text = hash || '';
  const fallback = (unreadable) => ({
    state: normalizeWith(defaults, {}),
    unreadable,
    codeOmitted: false,
  });
  if (!/^#?s=/.test(text)) return fallback(false);
  const match = /^#?s=([A-Za-z0-9_-]+)$/.exec(text);
  if (!match) return fallback(true);
  try {
    const json = new TextDecoder('utf-8', { fatal: true }).decode(
      await pipe(fromBase64Url(match[1]), new DecompressionStream('deflate-raw')),
    );
    const value = JSON.parse(json);
    if (!value || typeof value !== 'object' || Array.isArray(value)) return fallback(true);
    return {
      state: normalizeWith(defaults, upgrade(defaults, value)),
      unreadable: false,
      codeOmitted: value.codeOmitted === true,
    };
  } catch {
    return fallback(true);
  }
}
