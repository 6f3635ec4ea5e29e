// Model mode's marks over the code: the text the model read as its tokens (the token model) or its
// characters (the byte model), with their UTF-16 ranges and units, and the bits to predict each.
// Pure (no DOM).

// The marks of the text the model read: its tokens (a token model: one mark per token, UTF-16
// ranges from the tokens' byte spans; posMark[k] = k), or its characters (the byte model).
export function markTable(text, r, units) {
  if (!r.tokens) return charTable(text, r.n, units);
  const { start, end } = r.tokens;
  // UTF-16 offset of every byte boundary of the text read (a byte inside a character: its start).
  const bytes = r.bytes;
  const offset = new Int32Array(bytes + 1);
  let byte = 0;
  for (let i = 0; i < text.length && byte < bytes; ) {
    const cp = text.codePointAt(i);
    const width = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    for (let b = byte; b < Math.min(bytes, byte + width); b++) offset[b] = i;
    byte += width;
    i += cp > 0xffff ? 2 : 1;
    if (byte <= bytes) offset[byte] = i;
  }
  const count = start.length;
  const s16 = new Int32Array(count);
  const e16 = new Int32Array(count);
  for (let k = 0; k < count; k++) {
    s16[k] = offset[start[k]];
    e16[k] = Math.max(s16[k], offset[end[k]]);
  }
  const unit = Int32Array.from({ length: count }, (_, k) => units[k] ?? 0);
  // The heatmaps' axis label of token k: its text (made visible: spaces and newlines as signs).
  const label = (k) =>
    k < count
      ? text.slice(s16[k], e16[k]).replace(/ /g, '·').replace(/\n/g, '↵').replace(/\t/g, '→')
      : '';
  return {
    count,
    start: s16,
    end: e16,
    unit,
    tokens: r.tokens,
    label,
    byteChar: Int32Array.from({ length: count }, (_, k) => k),
  };
}

// Characters of the text the model read, with their UTF-16 and byte ranges.
function charTable(text, n, units) {
  const start = [];
  const end = [];
  const firstByte = [];
  const byteChar = new Int32Array(n);
  let byte = 0;
  let i = 0;
  while (i < text.length && byte < n) {
    const cp = text.codePointAt(i);
    const width = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    const units16 = cp > 0xffff ? 2 : 1;
    start.push(i);
    end.push(i + units16);
    firstByte.push(byte);
    for (let b = byte; b < Math.min(n, byte + width); b++) byteChar[b] = start.length - 1;
    byte += width;
    i += units16;
  }
  const count = start.length;
  const unit = Int32Array.from(firstByte, (b) =>
    b < units.length ? units[b] : (units[units.length - 1] ?? 0),
  );
  return {
    count,
    start: Int32Array.from(start),
    end: Int32Array.from(end),
    unit,
    firstByte: Int32Array.from(firstByte),
    byteChar,
  };
}

// Bits to predict a character: the sum over its bytes (null for the very first byte); a token
// model's mark is a token: its loss.
export function charBits(chars, losses, index) {
  if (chars.tokens) return index === 0 ? null : losses[index - 1];
  const b0 = chars.firstByte[index];
  const b1 = index + 1 < chars.count ? chars.firstByte[index + 1] : losses.length + 1;
  if (b0 === 0) return null;
  let sum = 0;
  for (let b = b0; b < b1; b++) sum += losses[b - 1] ?? 0;
  return sum;
}
