/**
 * Hosting of the sandbox web's sites: each root domain's hosts (subdomains) with IPs in /24
 * subnets. Link farms share a handful of subnets, as real link networks on cheap shared
 * hosting do; other sites sometimes share a server, and many sit on the subnets of a few big
 * hosting providers and CDNs (shareHosting), so that a site's referring subnets are clearly
 * fewer than its referring domains, as in real link indexes.
 */
import type { SiteKind } from './siteKinds.js';
import type { WorldLanguage } from './markets.js';
import type { Rng } from './random.js';

/** What hosting reads and sets of a root domain (siteGenerator.ts RootSpec). */
export interface HostedRoot {
  domain: string;
  kind: SiteKind;
  language: WorldLanguage;
  firstHost: number;
  hostCount: number;
}

export interface HostSpec {
  host: string;
  root: number;
  ip: number;
  https: boolean;
  language: WorldLanguage;
}

/** The hosts of `roots` (setting each root's firstHost and hostCount), with their IPs. */
export function generateHosts(roots: HostedRoot[], rng: Rng): HostSpec[] {
  const hosts: HostSpec[] = [];
  const farmSubnets = Array.from({ length: 5 }, () => ((rng.int(45, 220) << 16) | (rng.int(0, 255) << 8) | rng.int(0, 255)) >>> 0);
  const usedSubnets: number[] = [];
  const newIp = (kind: SiteKind): number => {
    let subnet: number;
    if (kind === 'farm') subnet = rng.pick(farmSubnets);
    else if (usedSubnets.length > 0 && rng.chance(0.25))
      subnet = rng.pick(usedSubnets); // shared hosting
    else {
      subnet = ((rng.int(11, 223) << 16) | (rng.int(0, 255) << 8) | rng.int(0, 255)) >>> 0;
      usedSubnets.push(subnet);
    }
    return ((subnet << 8) | rng.int(2, 254)) >>> 0;
  };
  for (let r = 0; r < roots.length; r++) {
    const root = roots[r];
    root.firstHost = hosts.length;
    const https = rng.chance(0.88);
    const ip = newIp(root.kind);
    const names: { name: string; language: WorldLanguage }[] = [];
    if (r === 0) {
      names.push(
        { name: `www.${root.domain}`, language: 'en' },
        { name: `en.${root.domain}`, language: 'en' },
        { name: `de.${root.domain}`, language: 'de' },
        { name: `fr.${root.domain}`, language: 'fr' },
      );
    } else {
      names.push({ name: rng.chance(0.8) ? `www.${root.domain}` : root.domain, language: root.language });
      if (root.kind === 'edu' && rng.chance(0.6)) names.push({ name: `library.${root.domain}`, language: root.language });
      if (root.kind === 'news' && rng.chance(0.4)) names.push({ name: `blog.${root.domain}`, language: root.language });
      if ((root.kind === 'shop' || root.kind === 'brand') && rng.chance(0.15)) names.push({ name: `shop.${root.domain}`, language: root.language });
      if (root.kind === 'forum' && rng.chance(0.3)) names.push({ name: `community.${root.domain}`, language: root.language });
    }
    for (const [i, n] of names.entries()) {
      hosts.push({ host: n.name, root: r, ip: i === 0 || rng.chance(0.5) ? ip : newIp(root.kind), https, language: n.language });
    }
    root.hostCount = names.length;
  }
  return hosts;
}

/**
 * Chance that a site of a kind sits on a big hosting provider's or CDN's subnets: most small
 * sites do (shared hosting, a CDN in front), brands, news and wikis less, universities and
 * governments run their own networks, link farms have theirs (generateHosts).
 */
const SHARED_HOSTING: Readonly<Record<SiteKind, number>> = {
  blog: 0.55,
  shop: 0.55,
  forum: 0.5,
  directory: 0.55,
  brand: 0.3,
  news: 0.25,
  wiki: 0.25,
  edu: 0,
  gov: 0,
  farm: 0,
};
/**
 * The big providers' and CDNs' busiest subnets, whatever the web's size: a few hosts serve a
 * large share of all sites, so a bigger web puts more sites on the same subnets (with one
 * subnet per 25 sites the small world's median ratio stayed at 0.94).
 */
const PROVIDER_SUBNETS = 20;

/**
 * Moves sites onto the subnets of big hosting providers and CDNs, the biggest ones holding
 * most (Zipf: the n-th provider subnet is drawn with weight 1/n), a few IPs each (shared
 * servers). From its own random stream, after the world is drawn: only IPs change, and
 * nothing ranking reads depends on them (they count referring IPs and subnets).
 */
export function shareHosting(sites: { roots: readonly HostedRoot[]; hosts: HostSpec[]; giantRoot: number }, rng: Rng): void {
  const { roots, hosts } = sites;
  const providers = PROVIDER_SUBNETS;
  const subnets = Array.from({ length: providers }, () => ((rng.int(11, 223) << 16) | (rng.int(0, 255) << 8) | rng.int(0, 255)) >>> 0);
  const cumulative: number[] = [];
  let acc = 0;
  for (let n = 1; n <= providers; n++) cumulative.push((acc += 1 / n));
  roots.forEach((root, r) => {
    if (r === sites.giantRoot || !rng.chance(SHARED_HOSTING[root.kind])) return;
    const subnet = subnets[rng.weighted(cumulative)];
    const ip = ((subnet << 8) | rng.int(2, 40)) >>> 0;
    for (let h = root.firstHost; h < root.firstHost + root.hostCount; h++) hosts[h].ip = ip;
  });
}

export function ipText(ip: number): string {
  return `${ip >>> 24}.${(ip >>> 16) & 255}.${(ip >>> 8) & 255}.${ip & 255}`;
}

export function subnetText(ip: number): string {
  return `${ip >>> 24}.${(ip >>> 16) & 255}.${(ip >>> 8) & 255}`;
}
