// The CLI's heatmaps, drawn as the playground draws them: hr.pool() mean-pools the matrix and the
// page's colour map (the package's colormap.js) colours it. Written by a minimal PNG writer (8-bit
// RGBA, no interlace): zlib from Node, CRC-32 by table.
import zlib from 'node:zlib';
import { probImage } from '../dist/colormap.js';

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

/** rgba: width * height * 4 bytes, row-major (straight alpha). */
export function encodePNG(width, height, rgba) {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 6; // colour type: RGBA
  const stride = width * 4;
  const raw = Buffer.alloc((stride + 1) * height);
  for (let y = 0; y < height; y++) {
    raw[y * (stride + 1)] = 0; // filter: none
    Buffer.from(rgba.buffer, rgba.byteOffset + y * stride, stride).copy(raw, y * (stride + 1) + 1);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', zlib.deflateSync(raw, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/**
 * An n x n attention matrix as a size x size RGBA heatmap, the page's single-scheme map: hr.pool()
 * mean-pools it (causal) to min(size, n) cells a side, each cell's mean of p / its row's maximum
 * is coloured on the magma ramp over four decades (log scale), and the cells wholly above the
 * diagonal are transparent. When size > n each cell covers a block of pixels (pixel x shows cell
 * floor(x * cells / size), as the page stretches its image).
 */
export function heatmapRGBA(hr, probs, n, size) {
  const cells = Math.min(size, n);
  const region = { r0: 0, r1: n, c0: 0, c1: n };
  const { ratio } = hr.pool({ matrix: probs, n, rows: cells, cols: cells, region, causal: true });
  const image = probImage(ratio, cells, cells, region);
  if (cells === size) return image;
  const src = new Uint32Array(image.buffer);
  const out = new Uint8ClampedArray(size * size * 4);
  const dst = new Uint32Array(out.buffer);
  const at = Int32Array.from({ length: size }, (_, p) => Math.floor((p * cells) / size));
  for (let y = 0; y < size; y++)
    for (let x = 0; x < size; x++) dst[y * size + x] = src[at[y] * cells + at[x]];
  return out;
}
