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
import { groupByKey } from './grouping.js';
import { COUNTER_COLUMNS } from '../researchSchema.js';

/** The counters, in the order of their `entity_metrics` columns. */
export const COUNTER_NAMES = COUNTER_COLUMNS;
export type CounterName = (typeof COUNTER_NAMES)[number];
export type Counters = Record<CounterName, Int32Array>;

/** Per-link facts shared by the three levels (computed once). */
export interface LinkFacts {
  sourceRoot: Int32Array;
  targetRoot: Int32Array;
  sourceIp: Int32Array;
  sourceSubnet: Int32Array;
  external: Uint8Array;
  ipCount: number;
  subnetCount: number;
}

export function linkFacts(g: LinkGraphInput): LinkFacts {
  const sourceRoot = new Int32Array(g.linkCount);
  const targetRoot = new Int32Array(g.linkCount);
  const sourceIp = new Int32Array(g.linkCount);
  const sourceSubnet = new Int32Array(g.linkCount);
  const external = new Uint8Array(g.linkCount);
  let ipCount = 0;
  let subnetCount = 0;
  for (let h = 0; h < g.hostCount; h++) {
    ipCount = Math.max(ipCount, g.hostIp[h] + 1);
    subnetCount = Math.max(subnetCount, g.hostSubnet[h] + 1);
  }
  for (let i = 0; i < g.linkCount; i++) {
    const s = g.linkSource[i];
    sourceRoot[i] = g.pageRoot[s];
    targetRoot[i] = g.pageRoot[g.linkTarget[i]];
    sourceIp[i] = g.hostIp[g.pageHost[s]];
    sourceSubnet[i] = g.hostSubnet[g.pageHost[s]];
    external[i] = sourceRoot[i] !== targetRoot[i] ? 1 : 0;
  }
  return { sourceRoot, targetRoot, sourceIp, sourceSubnet, external, ipCount, subnetCount };
}

/** What the counters that count every link (not distinct values) need of one link. */
export interface CountedLink {
  live: boolean;
  external: boolean;
  /** Code of LINK_TYPES. */
  type: number;
  nofollow: boolean;
  https: boolean;
  /** From a homepage. */
  fromHome: boolean;
  /** Classes of the source root domain (urls.ts domainClasses). */
  edu: number;
  gov: number;
}

/**
 * Adds `sign` (1, or −1 to take a link out) times a link's share of the counters that
 * count links: the out-links of its source entity and, when external, the backlinks of its
 * target entity. The incremental update (incrementalMetrics.ts) applies changed links so.
 */
export function countLink(c: Counters, sign: number, source: number, target: number, link: CountedLink): void {
  if (link.live) {
    if (link.external) c.out_external[source] += sign;
    else c.out_internal[source] += sign;
  }
  if (!link.external) return;
  const e = target;
  const type = link.type;
  c.total_non_unique[e] += sign;
  if (link.fromHome) c.nu_homepages[e] += sign;
  if (type === 2 || type === 3) c.nu_indirect[e] += sign;
  if (!link.live) c.nu_deleted[e] += sign;
  if (link.nofollow) c.nu_nofollow[e] += sign;
  if (link.https) c.nu_https[e] += sign;
  if (type === 0) c.nu_text[e] += sign;
  else if (type === 1) c.nu_image[e] += sign;
  else if (type === 2) c.nu_redirect[e] += sign;
  else if (type === 3) c.nu_frame[e] += sign;
  else c.nu_mention[e] += sign;
  if (!link.live) return;
  c.ext_backlinks[e] += sign;
  if (link.edu > 0) c.ext_backlinks_edu[e] += sign;
  if (link.edu === 2) c.ext_backlinks_edu_exact[e] += sign;
  if (link.gov > 0) c.ext_backlinks_gov[e] += sign;
  if (link.gov === 2) c.ext_backlinks_gov_exact[e] += sign;
}

/**
 * Counters for one level; `entityOfPage` maps a page index to the level's entity index.
 * Distinct counts visit each entity's links together (counting sort by entity) and mark
 * values already seen for the entity: O(links) per level.
 */
export function computeCounters(g: LinkGraphInput, entityCount: number, entityOfPage: Int32Array | null, facts: LinkFacts = linkFacts(g)): Counters {
  const c = Object.fromEntries(COUNTER_NAMES.map((name) => [name, new Int32Array(entityCount)])) as Counters;
  const { sourceRoot, targetRoot, sourceIp, sourceSubnet, external } = facts;
  const target = new Int32Array(g.linkCount);
  const source = new Int32Array(g.linkCount);
  for (let i = 0; i < g.linkCount; i++) {
    target[i] = entityOfPage ? entityOfPage[g.linkTarget[i]] : g.linkTarget[i];
    source[i] = entityOfPage ? entityOfPage[g.linkSource[i]] : g.linkSource[i];
  }
  // One record reused for every link (millions of them in a world).
  const link: CountedLink = { live: false, external: false, type: 0, nofollow: false, https: false, fromHome: false, edu: 0, gov: 0 };
  for (let i = 0; i < g.linkCount; i++) {
    const sr = sourceRoot[i];
    link.live = g.linkDeleted[i] === 0;
    link.external = external[i] === 1;
    link.type = g.linkType[i];
    link.nofollow = g.linkNofollow[i] === 1;
    link.https = g.linkHttps[i] === 1;
    link.fromHome = g.pageIsHome[g.linkSource[i]] === 1;
    link.edu = g.rootEdu[sr];
    link.gov = g.rootGov[sr];
    countLink(c, 1, source[i], target[i], link);
  }
  // Distinct referring roots / IPs / subnets per target entity.
  const byTarget = groupByKey(entityCount, g.linkCount, target, external);
  const liveRoot = new Int32Array(g.rootCount).fill(-1);
  const anyRoot = new Int32Array(g.rootCount).fill(-1);
  const ipSeen = new Int32Array(facts.ipCount).fill(-1);
  const subnetSeen = new Int32Array(facts.subnetCount).fill(-1);
  for (let e = 0; e < entityCount; e++) {
    for (let k = byTarget.offsets[e]; k < byTarget.offsets[e + 1]; k++) {
      const i = byTarget.order[k];
      const sr = sourceRoot[i];
      if (anyRoot[sr] !== e) {
        anyRoot[sr] = e;
        c.ref_domains_all[e]++;
      }
      if (g.linkDeleted[i] !== 0) continue;
      if (liveRoot[sr] !== e) {
        liveRoot[sr] = e;
        c.ref_domains[e]++;
        const edu = g.rootEdu[sr];
        const gov = g.rootGov[sr];
        if (edu > 0) c.ref_domains_edu[e]++;
        if (edu === 2) c.ref_domains_edu_exact[e]++;
        if (gov > 0) c.ref_domains_gov[e]++;
        if (gov === 2) c.ref_domains_gov_exact[e]++;
      }
      if (ipSeen[sourceIp[i]] !== e) {
        ipSeen[sourceIp[i]] = e;
        c.ref_ips[e]++;
      }
      if (subnetSeen[sourceSubnet[i]] !== e) {
        subnetSeen[sourceSubnet[i]] = e;
        c.ref_subnets[e]++;
      }
    }
  }
  // Distinct external target roots per source entity (live links).
  const liveExternal = new Uint8Array(g.linkCount);
  for (let i = 0; i < g.linkCount; i++) liveExternal[i] = external[i] === 1 && g.linkDeleted[i] === 0 ? 1 : 0;
  const bySource = groupByKey(entityCount, g.linkCount, source, liveExternal);
  const targetSeen = new Int32Array(g.rootCount).fill(-1);
  for (let e = 0; e < entityCount; e++) {
    for (let k = bySource.offsets[e]; k < bySource.offsets[e + 1]; k++) {
      const tr = targetRoot[bySource.order[k]];
      if (targetSeen[tr] !== e) {
        targetSeen[tr] = e;
        c.out_domains_external[e]++;
      }
    }
  }
  for (let p = 0; p < g.pageCount; p++) {
    const e = entityOfPage ? entityOfPage[p] : p;
    c.indexed_urls[e]++;
    c.social[e] += g.pageShares[p];
  }
  return c;
}
