/**
 * Exact link counters of the spec's link-tool URL metrics, per page, host and root
 * domain. Definitions (recorded in docs/decisions.md):
 * - external link: source and target on different root domains; only external links count
 *   as backlinks. "Live" = not deleted.
 * - ExtBackLinks: live external links; RefDomains / RefIPs / RefSubNets: distinct referring
 *   root domains / host IPs / /24 subnets over live external links.
 * - EDU / GOV: the same restricted to referring root domains with an education /
 *   government public suffix; `_Exact`: exactly `.edu` / `.gov`.
 * - NonUniqueLinkType*: over all external links, lost ones included (non-unique = every
 *   link counted, not every domain): Homepages = from a homepage, Indirect = through a
 *   redirect or frame, Deleted, NoFollow, ProtocolHTTPS = from an https page, Frame,
 *   ImageLink, Redirect, TextLink. TotalNonUniqueLinks = all external links.
 * - OutLinksInternal / OutLinksExternal: live links leaving the item to its own / other
 *   root domains; OutDomainsExternal: distinct root domains those external links reach.
 * - IndexedURLs: pages of the item in the index.
 */
import type { LinkGraphInput } from './linkGraphInput.js';

export const COUNTER_NAMES = [
  'ext_backlinks', 'ref_domains', 'ref_domains_all', 'ref_ips', 'ref_subnets', 'ref_domains_edu', 'ext_backlinks_edu',
  'ref_domains_gov', 'ext_backlinks_gov', 'ref_domains_edu_exact', 'ext_backlinks_edu_exact', 'ref_domains_gov_exact',
  'ext_backlinks_gov_exact', 'indexed_urls', 'nu_homepages', 'nu_indirect', 'nu_deleted', 'nu_nofollow', 'nu_https',
  'nu_frame', 'nu_image', 'nu_redirect', 'nu_text', 'nu_mention', 'total_non_unique', 'out_internal', 'out_external',
  'out_domains_external', 'social',
] as const;
export type CounterName = (typeof COUNTER_NAMES)[number];
export type Counters = Record<CounterName, Int32Array>;

/**
 * Number of distinct `value(i)` per `entity(i)` over the links where `include(i)`:
 * sort (entity, value) keys packed into doubles (exact below 2^53), then count runs.
 */
export function countDistinct(
  entityCount: number,
  linkCount: number,
  include: (i: number) => boolean,
  entity: (i: number) => number,
  value: (i: number) => number,
  valueRange: number,
): Int32Array {
  const keys = new Float64Array(linkCount);
  let n = 0;
  for (let i = 0; i < linkCount; i++) if (include(i)) keys[n++] = entity(i) * valueRange + value(i);
  const sorted = keys.subarray(0, n).sort();
  const out = new Int32Array(entityCount);
  let previous = -1;
  for (let k = 0; k < n; k++) {
    const key = sorted[k];
    if (key !== previous) {
      out[Math.floor(key / valueRange)]++;
      previous = key;
    }
  }
  return out;
}

/** Counters for one level; `entityOfPage` maps a page index to the level's entity index. */
export function computeCounters(g: LinkGraphInput, entityCount: number, entityOfPage: (page: number) => number): Counters {
  const c = Object.fromEntries(COUNTER_NAMES.map((name) => [name, new Int32Array(entityCount)])) as Counters;
  const srcRoot = (i: number): number => g.pageRoot[g.linkSource[i]];
  const tgtRoot = (i: number): number => g.pageRoot[g.linkTarget[i]];
  const target = new Int32Array(g.linkCount);
  const source = new Int32Array(g.linkCount);
  const external = new Uint8Array(g.linkCount);
  for (let i = 0; i < g.linkCount; i++) {
    target[i] = entityOfPage(g.linkTarget[i]);
    source[i] = entityOfPage(g.linkSource[i]);
    external[i] = srcRoot(i) !== tgtRoot(i) ? 1 : 0;
  }
  for (let i = 0; i < g.linkCount; i++) {
    const live = g.linkDeleted[i] === 0;
    if (live) {
      if (external[i]) c.out_external[source[i]]++;
      else c.out_internal[source[i]]++;
    }
    if (!external[i]) continue;
    const e = target[i];
    const type = g.linkType[i];
    c.total_non_unique[e]++;
    if (g.pageIsHome[g.linkSource[i]]) c.nu_homepages[e]++;
    if (type === 2 || type === 3) c.nu_indirect[e]++;
    if (!live) c.nu_deleted[e]++;
    if (g.linkNofollow[i]) c.nu_nofollow[e]++;
    if (g.linkHttps[i]) c.nu_https[e]++;
    if (type === 0) c.nu_text[e]++;
    else if (type === 1) c.nu_image[e]++;
    else if (type === 2) c.nu_redirect[e]++;
    else if (type === 3) c.nu_frame[e]++;
    else c.nu_mention[e]++;
    if (!live) continue;
    c.ext_backlinks[e]++;
    const sr = srcRoot(i);
    if (g.rootEdu[sr] > 0) c.ext_backlinks_edu[e]++;
    if (g.rootEdu[sr] === 2) c.ext_backlinks_edu_exact[e]++;
    if (g.rootGov[sr] > 0) c.ext_backlinks_gov[e]++;
    if (g.rootGov[sr] === 2) c.ext_backlinks_gov_exact[e]++;
  }
  const liveExternal = (i: number): boolean => external[i] === 1 && g.linkDeleted[i] === 0;
  const byTarget = (i: number): number => target[i];
  const m = g.linkCount;
  c.ref_domains = countDistinct(entityCount, m, liveExternal, byTarget, srcRoot, g.rootCount);
  c.ref_domains_all = countDistinct(entityCount, m, (i) => external[i] === 1, byTarget, srcRoot, g.rootCount);
  c.ref_ips = countDistinct(entityCount, m, liveExternal, byTarget, (i) => g.hostIp[g.pageHost[g.linkSource[i]]], g.hostCount + 1);
  c.ref_subnets = countDistinct(entityCount, m, liveExternal, byTarget, (i) => g.hostSubnet[g.pageHost[g.linkSource[i]]], g.hostCount + 1);
  c.ref_domains_edu = countDistinct(entityCount, m, (i) => liveExternal(i) && g.rootEdu[srcRoot(i)] > 0, byTarget, srcRoot, g.rootCount);
  c.ref_domains_edu_exact = countDistinct(entityCount, m, (i) => liveExternal(i) && g.rootEdu[srcRoot(i)] === 2, byTarget, srcRoot, g.rootCount);
  c.ref_domains_gov = countDistinct(entityCount, m, (i) => liveExternal(i) && g.rootGov[srcRoot(i)] > 0, byTarget, srcRoot, g.rootCount);
  c.ref_domains_gov_exact = countDistinct(entityCount, m, (i) => liveExternal(i) && g.rootGov[srcRoot(i)] === 2, byTarget, srcRoot, g.rootCount);
  c.out_domains_external = countDistinct(entityCount, m, liveExternal, (i) => source[i], tgtRoot, g.rootCount);
  for (let p = 0; p < g.pageCount; p++) {
    const e = entityOfPage(p);
    c.indexed_urls[e]++;
    c.social[e] += g.pageShares[p];
  }
  return c;
}
