/**
 * Seeded pseudo-random numbers for the sandbox web. Never Math.random: the same seed
 * must give the same world byte for byte.
 *
 * The generator is sfc32 (Chris Doty-Humphrey's "Small Fast Chaotic" PRNG from
 * PractRand, 2010s), seeded through splitmix32 so nearby seeds give unrelated streams.
 */
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number) {
    let s = seed >>> 0;
    // splitmix32 (Steele, Lea, Flood 2014, "Fast splittable pseudorandom number generators").
    const next = (): number => {
      s = (s + 0x9e3779b9) | 0;
      let z = s;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.a = next();
    this.b = next();
    this.c = next();
    this.d = next();
    for (let i = 0; i < 12; i++) this.nextUint32();
  }

  /** A derived, independent generator (one per generation stage keeps stages stable). */
  fork(label: number): Rng {
    return new Rng((this.nextUint32() ^ Math.imul(label + 1, 0x27d4eb2d)) >>> 0);
  }

  nextUint32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.nextUint32() / 4294967296;
  }

  /** Integer in [min, max] inclusive. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }

  /** Standard normal by the Box–Muller transform (Box & Muller 1958). */
  normal(): number {
    const u = 1 - this.next();
    const v = this.next();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }

  /** Lognormal with the given median and log-space sigma. */
  lognormal(median: number, sigma: number): number {
    return median * Math.exp(sigma * this.normal());
  }

  /** Log-uniform in [min, max]: heavy-tailed magnitudes such as search volumes. */
  logUniform(min: number, max: number): number {
    return Math.exp(Math.log(min) + this.next() * (Math.log(max) - Math.log(min)));
  }

  /** Pareto (type I) with scale xm and shape alpha, by inversion. */
  pareto(xm: number, alpha: number): number {
    return xm / Math.pow(1 - this.next(), 1 / alpha);
  }

  /** Index drawn with probability proportional to `weights` (cumulative array, last = total). */
  weighted(cumulative: Float64Array | number[]): number {
    const total = cumulative[cumulative.length - 1];
    const x = this.next() * total;
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (cumulative[mid] > x) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }
}

/** FNV-1a's offset basis: the state of hash32 before any character. */
export const HASH32_START = 0x811c9dc5;

/** A stable 32-bit hash of a string (FNV-1a), for deterministic per-item noise. */
export function hash32(text: string): number {
  return hash32Extend(HASH32_START, text);
}

/**
 * Continues an FNV-1a state with more characters: `hash32Extend(hash32(a), b) === hash32(a + b)`.
 * FNV-1a reads one character at a time, so hashes of strings sharing a prefix can start
 * from the prefix's state instead of building every string.
 */
export function hash32Extend(state: number, text: string): number {
  let h = state;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
