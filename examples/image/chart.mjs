// chart.mjs draws a bar chart of the sizes of a directory's files as a PNG,
// with nothing but node:fs/promises: the pixels, the PNG chunks, their
// CRC-32 and a zlib stream of stored deflate blocks are made here.
import { readdir, stat, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";

const WIDTH = 640, BAR = 18, GAP = 6, MARGIN = 20, MAX_BARS = 20;
const PALETTE = [[66, 133, 244], [219, 68, 55], [244, 180, 0], [15, 157, 88], [171, 71, 188], [0, 172, 193]];

// files lists the regular files under dir with their sizes, biggest first.
async function files(dir, root = dir, out = []) {
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) await files(p, root, out);
    else if (e.isFile()) out.push({ path: relative(root, p), size: (await stat(p)).size });
  }
  return out.sort((a, b) => b.size - a.size || a.path.localeCompare(b.path));
}

const CRC = new Uint32Array(256).map((_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes) {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function u32(n) { return [(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255]; }

function chunk(type, data) {
  const td = new Uint8Array([...type].map((c) => c.charCodeAt(0)).concat(Array.from(data)));
  return new Uint8Array([...u32(data.length), ...td, ...u32(crc32(td))]);
}

// zlib wraps raw in a zlib stream of stored (uncompressed) deflate blocks.
function zlib(raw) {
  const out = [0x78, 0x01];
  for (let i = 0; i < raw.length || i === 0; i += 65535) {
    const n = Math.min(65535, raw.length - i), last = i + n >= raw.length ? 1 : 0;
    out.push(last, n & 255, n >>> 8, ~n & 255, (~n >>> 8) & 255);
    for (let j = 0; j < n; j++) out.push(raw[i + j]);
    if (raw.length === 0) break;
  }
  let a = 1, b = 0;
  for (const x of raw) { a = (a + x) % 65521; b = (b + a) % 65521; }
  out.push(...u32(((b << 16) | a) >>> 0));
  return new Uint8Array(out);
}

// png encodes an RGB image of w×h pixels.
function png(w, h, rgb) {
  const raw = new Uint8Array(h * (1 + 3 * w));
  for (let y = 0; y < h; y++) raw.set(rgb.subarray(y * 3 * w, (y + 1) * 3 * w), y * (1 + 3 * w) + 1);
  const ihdr = new Uint8Array([...u32(w), ...u32(h), 8, 2, 0, 0, 0]);
  const parts = [new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10]), chunk("IHDR", ihdr), chunk("IDAT", zlib(raw)), chunk("IEND", new Uint8Array())];
  const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let off = 0;
  for (const p of parts) { all.set(p, off); off += p.length; }
  return all;
}

// chart writes the chart of dir's files to file and returns the bars drawn.
export default async function chart(dir, file) {
  const bars = (await files(dir)).filter((f) => join(dir, f.path) !== file).slice(0, MAX_BARS);
  const h = 2 * MARGIN + Math.max(1, bars.length) * (BAR + GAP);
  const rgb = new Uint8Array(WIDTH * h * 3).fill(255);
  const max = Math.max(1, ...bars.map((b) => b.size));
  const fill = (x0, y0, x1, y1, [r, g, b]) => {
    for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) rgb.set([r, g, b], (y * WIDTH + x) * 3);
  };
  fill(MARGIN - 2, MARGIN, MARGIN, h - MARGIN, [0, 0, 0]); // the axis
  bars.forEach((b, i) => {
    b.width = Math.max(1, Math.round((WIDTH - 2 * MARGIN) * b.size / max));
    b.color = PALETTE[i % PALETTE.length];
    const y = MARGIN + i * (BAR + GAP) + GAP / 2;
    fill(MARGIN, y, MARGIN + b.width, y + BAR, b.color);
  });
  await writeFile(file, png(WIDTH, h, rgb));
  return { file, width: WIDTH, height: h, bars };
}
