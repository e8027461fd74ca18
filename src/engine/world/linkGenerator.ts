/**
 * Links of the sandbox web, generated into typed arrays.
 *
 * Target choice mixes preferential attachment (Barabási & Albert 1999, "Emergence of
 * scaling in random networks": a target is picked with probability proportional to the
 * links it already has, here by sampling uniformly from the list of past targets) with
 * intrinsic fitness (Bianconi & Barabási 2001, "Competition and multiscaling in evolving
 * networks") and topical locality (most links stay inside the source's niche, as
 * observed by Davison 2000, "Topical locality in the Web"). Link farms link among
 * themselves and to their clients; trusted sites never link to farms.
 */
import type { WorldSizeSpec } from './sizes.js';
import type { WorldSites } from './siteGenerator.js';
import { KIND_TRAITS, type SiteKind } from './siteKinds.js';
import { NICHES } from './niches.js';
import { Rng } from './random.js';
import { TIMELINE_START_DAY } from './dates.js';

/** Link types in the order of their codes in `LinkArrays.type`. */
export const LINK_TYPES = ['text', 'image', 'redirect', 'frame', 'mention'] as const;
export type LinkType = (typeof LINK_TYPES)[number];

/** Anchor kinds in the order of their codes in `LinkArrays.anchorKind`. */
export const ANCHOR_KINDS = ['brand', 'exact', 'partial', 'naked', 'generic', 'image'] as const;

/** Generic anchors ("click here") and filler words for page text. */
export const GENERIC_ANCHORS = ['click here', 'read more', 'website', 'here', 'this site', 'learn more', 'source', 'link', 'visit', 'more info'];

export const LOST_REASONS = ['', 'Page not found (404)', 'Link removed from page', 'Page redirected', 'Page not crawled recently'];

export interface LinkArrays {
  count: number;
  source: Int32Array;
  target: Int32Array;
  type: Uint8Array;
  nofollow: Uint8Array;
  anchorKind: Uint8Array;
  firstDay: Int32Array;
  lastDay: Int32Array;
  /** Day the link was lost, or -1 when live. */
  deletedDay: Int32Array;
  reason: Uint8Array;
}

class GrowableInt32 {
  data: Int32Array;
  length = 0;
  constructor(capacity: number) {
    this.data = new Int32Array(Math.max(16, capacity));
  }
  push(value: number): void {
    if (this.length === this.data.length) {
      const next = new Int32Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = value;
  }
}

function cumulativeOf(indices: number[], weight: (i: number) => number): Float64Array {
  const out = new Float64Array(indices.length);
  let acc = 0;
  indices.forEach((index, i) => (out[i] = acc += weight(index)));
  return out;
}

/** Generates all links (external and internal) of a world. */
export function generateLinks(sites: WorldSites, spec: WorldSizeSpec, asOfDay: number, rng: Rng): LinkArrays {
  const { roots, pages } = sites;
  const estimate = Math.ceil(pages.count * (spec.meanExternalLinks * 1.2 + 3));
  const columns = {
    source: new GrowableInt32(estimate),
    target: new GrowableInt32(estimate),
    attrs: new GrowableInt32(estimate),
    firstDay: new GrowableInt32(estimate),
    lastDay: new GrowableInt32(estimate),
    deletedDay: new GrowableInt32(estimate),
  };

  // Candidate sets for target selection.
  const ordinaryKinds: ReadonlySet<SiteKind> = new Set(['blog', 'shop', 'brand', 'news', 'forum', 'wiki', 'edu', 'gov', 'directory']);
  const trustedKinds: ReadonlySet<SiteKind> = new Set(['blog', 'shop', 'brand', 'news', 'wiki', 'edu', 'gov']);
  const all = roots.map((_, i) => i).filter((i) => i !== sites.giantRoot);
  const ordinary = all.filter((i) => ordinaryKinds.has(roots[i].kind));
  const trusted = all.filter((i) => trustedKinds.has(roots[i].kind));
  const farms = all.filter((i) => roots[i].kind === 'farm');
  const clients = all.filter((i) => (roots[i].kind === 'blog' || roots[i].kind === 'shop') && i % 9 === 0);
  const fitness = (i: number): number => roots[i].fitness;
  const ordinaryCum = cumulativeOf(ordinary, fitness);
  const trustedCum = cumulativeOf(trusted, fitness);
  const byNiche = NICHES.map((_, n) => ordinary.filter((i) => roots[i].niche === n + 1 || roots[i].niche === 0));
  const byNicheCum = byNiche.map((list) => cumulativeOf(list, fitness));
  const globalPool = new GrowableInt32(estimate);
  const nichePools = NICHES.map(() => new GrowableInt32(1024));

  const pickTargetRoot = (sourceRoot: number): number => {
    const source = roots[sourceRoot];
    if (source.kind === 'farm') {
      return rng.chance(0.5) && farms.length > 0 ? rng.pick(farms) : clients.length > 0 ? rng.pick(clients) : rng.pick(all);
    }
    if (sourceRoot !== sites.giantRoot && rng.chance(spec.giantShare)) return sites.giantRoot;
    if (source.trusted) return trusted[rng.weighted(trustedCum)];
    const niche = source.niche > 0 && rng.chance(0.65) ? source.niche - 1 : -1;
    const pool = niche >= 0 ? nichePools[niche] : globalPool;
    if (pool.length > 50 && rng.chance(0.5)) return pool.data[Math.floor(rng.next() * pool.length)];
    if (niche >= 0 && byNiche[niche].length > 0) return byNiche[niche][rng.weighted(byNicheCum[niche])];
    return ordinary[rng.weighted(ordinaryCum)];
  };

  const pickTargetPage = (root: number): number => {
    const r = roots[root];
    if (r.pageCount === 1 || rng.chance(0.3)) return r.firstPage;
    const u = rng.next();
    return r.firstPage + 1 + Math.floor(u * u * (r.pageCount - 1));
  };

  const addLink = (source: number, target: number, kind: SiteKind, internal: boolean): void => {
    const earliest = Math.min(asOfDay - 1, Math.max(TIMELINE_START_DAY, pages.published[source], pages.published[target]));
    const first = earliest + Math.floor(rng.next() * (asOfDay - earliest + 1));
    const lost = rng.chance(kind === 'farm' ? 0.3 : 0.15);
    let deleted = -1;
    let last: number;
    if (lost && first < asOfDay) {
      deleted = first + 1 + Math.floor(rng.next() * (asOfDay - first));
      last = Math.max(first, deleted - rng.int(1, 20));
    } else {
      last = Math.max(first, asOfDay - rng.int(0, 25));
    }
    const t = rng.next();
    let type = kind === 'farm' || internal ? 0 : t < 0.78 ? 0 : t < 0.88 ? 1 : t < 0.91 ? 2 : t < 0.92 ? 3 : 4;
    if (internal && rng.chance(0.08)) type = 1;
    const nofollow = type !== 4 && rng.chance(internal ? 0.01 : KIND_TRAITS[kind].nofollow) ? 1 : 0;
    let anchor: number;
    if (type === 1) anchor = 5;
    else if (type === 4) anchor = rng.chance(0.6) ? 0 : 3;
    else if (kind === 'farm') anchor = rng.chance(0.7) ? 1 : 2;
    else {
      const a = rng.next();
      anchor = a < 0.3 ? 0 : a < 0.45 ? 1 : a < 0.65 ? 2 : a < 0.8 ? 3 : 4;
    }
    const reason = deleted >= 0 ? rng.int(1, LOST_REASONS.length - 1) : 0;
    columns.source.push(source);
    columns.target.push(target);
    columns.attrs.push(type | (nofollow << 3) | (anchor << 4) | (reason << 8));
    columns.firstDay.push(first);
    columns.lastDay.push(last);
    columns.deletedDay.push(deleted);
  };

  for (let p = 0; p < pages.count; p++) {
    const rootIndex = pages.root[p];
    const root = roots[rootIndex];
    const traits = KIND_TRAITS[root.kind];
    const external = Math.round(spec.meanExternalLinks * traits.outLinks * rng.lognormal(0.75, 0.7));
    for (let k = 0; k < external; k++) {
      let targetRoot = pickTargetRoot(rootIndex);
      if (targetRoot === rootIndex) targetRoot = pickTargetRoot(rootIndex);
      if (targetRoot === rootIndex) continue;
      addLink(p, pickTargetPage(targetRoot), root.kind, false);
      if (root.kind !== 'farm' && targetRoot !== sites.giantRoot) {
        globalPool.push(targetRoot);
        const niche = roots[targetRoot].niche;
        if (niche > 0) nichePools[niche - 1].push(targetRoot);
      }
    }
    // Internal links: every page links to its homepage and a couple of siblings;
    // homepages link to their newest sections.
    if (root.pageCount > 1) {
      if (pages.isHome[p]) {
        const n = Math.min(5, root.pageCount - 1);
        for (let k = 0; k < n; k++) addLink(p, root.firstPage + 1 + Math.floor(rng.next() * (root.pageCount - 1)), root.kind, true);
      } else {
        addLink(p, root.firstPage, root.kind, true);
        const siblings = rng.int(0, 2);
        for (let k = 0; k < siblings; k++) {
          const sibling = root.firstPage + 1 + Math.floor(rng.next() * (root.pageCount - 1));
          if (sibling !== p) addLink(p, sibling, root.kind, true);
        }
      }
    }
  }

  const count = columns.source.length;
  const out: LinkArrays = {
    count,
    source: columns.source.data.slice(0, count),
    target: columns.target.data.slice(0, count),
    type: new Uint8Array(count),
    nofollow: new Uint8Array(count),
    anchorKind: new Uint8Array(count),
    firstDay: columns.firstDay.data.slice(0, count),
    lastDay: columns.lastDay.data.slice(0, count),
    deletedDay: columns.deletedDay.data.slice(0, count),
    reason: new Uint8Array(count),
  };
  const attrs = columns.attrs.data;
  for (let i = 0; i < count; i++) {
    const a = attrs[i];
    out.type[i] = a & 7;
    out.nofollow[i] = (a >> 3) & 1;
    out.anchorKind[i] = (a >> 4) & 15;
    out.reason[i] = (a >> 8) & 15;
  }
  return out;
}
