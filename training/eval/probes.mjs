// The held-out report's recall probe (training/eval/report.mjs): a function defined, filler code
// from the file itself, then a call of it; the bits of the called name's bytes or tokens.
import { languageOf } from '../../lib/model-eval.mjs';

// A deterministic generator (mulberry32) for the probe's names.
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Styles of invented names: random letters, CamelCase with digits, pronounceable syllables. */
export const NAME_STYLES = Object.freeze(['letters', 'camel', 'syllables']);

/** An invented name of a style, of about `size` characters, from rand() in [0, 1). */
export function inventedName(rand, style, size = 9) {
  const pick = (s) => s[Math.floor(rand() * s.length)];
  const lower = 'abcdefghijklmnopqrstuvwxyz';
  let name = '';
  if (style === 'letters') {
    while (name.length < size) name += pick(lower);
  } else if (style === 'camel') {
    while (name.length < size - 2)
      name += pick(lower).toUpperCase() + pick(lower) + pick(lower) + pick(lower);
    name = name.slice(0, size - 2) + pick('0123456789') + pick('0123456789');
  } else if (style === 'syllables') {
    while (name.length < size) name += pick('bcdfghjklmnprstvwz') + pick('aeiou');
    name = name.slice(0, size);
  } else {
    throw new RangeError(`unknown name style '${style}'`);
  }
  return name;
}

/**
 * Recall probes: for every file and filler length F, `def NAME(value):` ... (a JavaScript file:
 * `function NAME(value) {...}`), about F bytes of the file's own code, then `result = NAME(value)`; and its control, the same text with the
 * definition's name replaced by another invented name (so the call is a first occurrence).
 * [{ file, filler, style, probe, control, use: [start, end) }], texts as Uint8Arrays; the use
 * span is the called name's bytes.
 */
export function recallProbes(files, fillers, seed = 1) {
  const encoder = new TextEncoder();
  const rand = random(seed);
  const out = [];
  files.forEach(({ name: file, bytes }, fi) => {
    const text = new TextDecoder().decode(bytes);
    // Whole lines from the middle of the file (its code, not its licence header).
    const lines = text
      .slice(Math.floor(text.length / 3))
      .split('\n')
      .slice(1);
    for (const filler of fillers) {
      const style = NAME_STYLES[fi % NAME_STYLES.length];
      const called = inventedName(rand, style);
      const other = inventedName(rand, style);
      let body = '';
      for (const line of lines) {
        if (body.length >= filler) break;
        body += line + '\n';
      }
      if (body.length < filler) continue; // a file too short for this filler
      const make =
        languageOf(file) === 'javascript'
          ? (defined) =>
              `function ${defined}(value) {\n  return value + 1;\n}\n\n${body}\nresult = ${called}(value);\n`
          : (defined) =>
              `def ${defined}(value):\n    return value + 1\n\n${body}\nresult = ${called}(value)\n`;
      const probe = make(called);
      const start = encoder.encode(probe.slice(0, probe.lastIndexOf(called))).length;
      out.push({
        file,
        filler,
        style,
        probe: encoder.encode(probe),
        control: encoder.encode(make(other)),
        use: [start, start + encoder.encode(called).length],
      });
    }
  });
  return out;
}

/** Mean bits/byte of a span of bytes [start, end) from per-byte losses (losses[t] is byte t + 1). */
export function spanBits(losses, [start, end]) {
  let sum = 0;
  for (let t = start; t < end; t++) sum += losses[t - 1];
  return sum / (end - start);
}

/** The token span [first, last + 1) of the tokens that overlap the byte span [a, b). */
export function tokenSpan(tokens, [a, b]) {
  let first = -1;
  let last = -1;
  for (let k = 0; k < tokens.ids.length; k++) {
    if (tokens.start[k] < b && tokens.end[k] > a) {
      if (first < 0) first = k;
      last = k;
    }
  }
  if (first < 1) throw new RangeError(`no predicted token overlaps bytes [${a}, ${b})`);
  return [first, last + 1];
}
