// A minimal PNG writer (8-bit RGB, no interlace) for the CLI's heatmaps: zlib from Node, CRC-32
// by table.
import zlib from 'node:zlib';

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

function crc32(buf) {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type, data) {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'ascii');
  data.copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}

/** rgb: width * height * 3 bytes, row-major. */
export function encodePNG(width, height, rgb) {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // colour type: RGB
  const raw = Buffer.alloc((width * 3 + 1) * height);
  for (let y = 0; y < height; y++) {
    raw[y * (width * 3 + 1)] = 0; // filter: none
    Buffer.from(rgb.buffer, rgb.byteOffset + y * width * 3, width * 3).copy(raw, y * (width * 3 + 1) + 1);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', zlib.deflateSync(raw, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

// Magma-like ramp, as on the page.
const STOPS = [[0, 0, 4], [81, 18, 124], [183, 55, 121], [252, 137, 97], [252, 253, 191]];
export function colour(t) {
  const x = Math.min(1, Math.max(0, t)) * (STOPS.length - 1);
  const i = Math.min(STOPS.length - 2, Math.floor(x));
  const f = x - i;
  return STOPS[i].map((c, k) => Math.round(c + (STOPS[i + 1][k] - c) * f));
}

/** n x n probabilities -> size x size RGB (max-pooled when size < n), row-relative log colours. */
export function heatmapRGB(probs, n, size) {
  const rgb = new Uint8Array(size * size * 3);
  const rowMax = new Float32Array(n);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) rowMax[i] = Math.max(rowMax[i], probs[i * n + j]);
  for (let y = 0; y < size; y++) {
    const i0 = Math.floor((y * n) / size), i1 = Math.max(i0 + 1, Math.floor(((y + 1) * n) / size));
    for (let x = 0; x < size; x++) {
      const j0 = Math.floor((x * n) / size), j1 = Math.max(j0 + 1, Math.floor(((x + 1) * n) / size));
      let t = 0;
      for (let i = i0; i < i1; i++) {
        for (let j = j0; j < j1; j++) {
          const p = probs[i * n + j];
          if (p > 0) t = Math.max(t, 1 + Math.log10(p / rowMax[i]) / 4);
        }
      }
      const [r, g, b] = colour(t);
      rgb.set([r, g, b], (y * size + x) * 3);
    }
  }
  return rgb;
}
