/** Decoding and pixel statistics of rendered PNGs for the render tests. */
import { PNG } from 'pngjs';

export interface DecodedPng {
  width: number;
  height: number;
  data: Buffer;
}

export function decodePng(buffer: Buffer): DecodedPng {
  const png = PNG.sync.read(buffer);
  return { width: png.width, height: png.height, data: png.data };
}

/** Number of distinct RGB colours (alpha ignored). */
export function distinctColours(img: DecodedPng): number {
  const seen = new Set<number>();
  for (let i = 0; i < img.data.length; i += 4) seen.add((img.data[i] << 16) | (img.data[i + 1] << 8) | img.data[i + 2]);
  return seen.size;
}

/** Pixels within `tolerance` (per channel) of the `#rrggbb` colour. */
export function pixelsNear(img: DecodedPng, hex: string, tolerance = 0): number {
  const r = parseInt(hex.slice(1, 3), 16);
  const g = parseInt(hex.slice(3, 5), 16);
  const b = parseInt(hex.slice(5, 7), 16);
  let n = 0;
  for (let i = 0; i < img.data.length; i += 4) {
    if (Math.abs(img.data[i] - r) <= tolerance && Math.abs(img.data[i + 1] - g) <= tolerance && Math.abs(img.data[i + 2] - b) <= tolerance) n++;
  }
  return n;
}
