/**
 * Deterministic pseudo-random numbers from strings and integers, so that every
 * synthetic value (daily SERP movement, metrics of unknown keywords, feature choice)
 * is the same on every run and every machine.
 */

/** FNV-1a 32-bit hash of a string (Fowler, Noll, Vo; http://www.isthe.com/chongo/tech/comp/fnv/). */
export function hashString32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/**
 * Mixes two 32-bit values into a well-distributed 32-bit value: the finaliser of
 * MurmurHash3 (Austin Appleby) applied to a combination of both.
 */
export function mix32(a: number, b: number): number {
  let h = (a ^ Math.imul(b + 0x9e3779b9, 0x85ebca6b)) >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** A uniform number in [0, 1) for (seed, n). */
export function unitNoise(seed: number, n: number): number {
  return mix32(seed, n) / 4294967296;
}

/** A uniform number in [0, 1) for a string key. */
export function unitNoiseOf(key: string): number {
  return mix32(hashString32(key), 0x2545f491) / 4294967296;
}
