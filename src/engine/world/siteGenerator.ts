/**
 * Sites of the sandbox web: root domains of distinct kinds (siteKinds.ts) and names
 * (siteNames.ts), their hosts (hosting.ts) and their pages.
 */
import type { WorldSizeSpec } from './sizes.js';
import { NICHES } from './niches.js';
import { LANGUAGE_IDS, type WorldLanguage } from './markets.js';
import type { GeneratedKeyword } from './keywordGenerator.js';
import { Rng } from './random.js';
import { dayFromIso } from './dates.js';
import { generateHosts, type HostSpec } from './hosting.js';
import { KIND_TRAITS, keywordFits, type SiteKind } from './siteKinds.js';
import { BRAND_ENDS, FARM_WORDS, GOV_AGENCIES, NAME_PREFIXES, NEWS_WORDS, PLACE_ENDS, PLACES, SHOP_SUFFIXES, SUFFIXES, WIKI_NAMES } from './siteNames.js';

export interface RootSpec {
  domain: string;
  kind: SiteKind;
  niche: number; // 0 = general
  language: WorldLanguage;
  brand: string;
  trusted: boolean;
  createdDay: number;
  fitness: number;
  firstHost: number;
  hostCount: number;
  firstPage: number;
  pageCount: number;
}

/** Pages in struct-of-arrays form (hundreds of thousands of them in `small`). */
export interface PageSpecs {
  count: number;
  root: Int32Array;
  host: Int32Array;
  isHome: Uint8Array;
  published: Int32Array;
  shares: Int32Array;
  /** Index into the keyword list, or -1 for homepages and listing pages. */
  keyword: Int32Array;
  niche: Int16Array;
  path: string[];
}

export interface WorldSites {
  roots: RootSpec[];
  hosts: HostSpec[];
  pages: PageSpecs;
  giantRoot: number;
}

const slugs = new Map<string, string>();

/** URL slug of a text; remembered, since the same keywords and niche names come back page after page. */
function slug(text: string): string {
  let known = slugs.get(text);
  if (known === undefined) {
    known = text
      .normalize('NFD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '');
    slugs.set(text, known);
  }
  return known;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function kindOf(rng: Rng, cumulative: number[], kinds: SiteKind[]): SiteKind {
  return kinds[rng.weighted(cumulative)];
}

/**
 * Generates roots, hosts and pages. Root 0 is the giant wiki every kind of site links to
 * (the size spec decides its page count and later its share of backlinks).
 */
export function generateSites(spec: WorldSizeSpec, keywords: readonly GeneratedKeyword[], asOfDay: number, rng: Rng, naming: Rng): WorldSites {
  const kinds = Object.keys(KIND_TRAITS) as SiteKind[];
  const cumulative: number[] = [];
  let acc = 0;
  for (const kind of kinds) cumulative.push((acc += KIND_TRAITS[kind].share));

  const usedDomains = new Set<string>();
  const usedNames = new Set<string>();
  const unique = (name: string, tld: string): string => {
    let domain = `${name}.${tld}`;
    for (let n = 2; usedDomains.has(domain); n++) domain = `${name}${n}.${tld}`;
    usedDomains.add(domain);
    usedNames.add(name);
    return domain;
  };
  /**
   * A name no other site has (on any TLD): numbered clones ("cremalab5.com", "cremalab19.com")
   * give a sandbox away. Draws again from `naming`, with a distinguishing word after twenty
   * tries, and from `wide` after forty when a kind's names are few (a small world has over a
   * thousand directories: "oakfieldlistings"); numbers only when a hundred found nothing free
   * (link farms number themselves). The redraws come from their own stream so that the rest
   * of the world (kinds, sizes, links: what ranking depends on) is drawn as before.
   */
  const freshName = (name: string, draw: (r: Rng) => string, wide?: (r: Rng) => string): string => {
    for (let attempt = 0; attempt < 100 && usedNames.has(name); attempt++) {
      if (attempt < 20) name = draw(naming);
      else if (attempt < 40 || wide === undefined) name = `${naming.pick(NAME_PREFIXES)}${draw(naming)}`;
      else name = wide(naming);
    }
    return name;
  };

  const roots: RootSpec[] = [];
  const giantDomain = unique('openpedia', 'org');
  roots.push({
    domain: giantDomain,
    kind: 'wiki',
    niche: 0,
    language: 'en',
    brand: 'Openpedia',
    trusted: true,
    createdDay: dayFromIso('2001-01-15'),
    fitness: 40,
    firstHost: 0,
    hostCount: 0,
    firstPage: 0,
    pageCount: spec.giantPages,
  });
  const createdSpan = dayFromIso('2022-12-31') - dayFromIso('1996-01-01');
  for (let i = 1; i < spec.rootDomains; i++) {
    const kind = kindOf(rng, cumulative, kinds);
    const niche =
      kind === 'wiki' || kind === 'gov' || kind === 'news' || kind === 'directory'
        ? rng.chance(0.3)
          ? rng.int(1, NICHES.length)
          : 0
        : rng.int(1, NICHES.length);
    const vocabulary = NICHES[(niche || rng.int(1, NICHES.length)) - 1];
    const language: WorldLanguage =
      kind === 'edu' || kind === 'gov' ? (rng.chance(0.85) ? 'en' : rng.chance(0.5) ? 'de' : 'fr') : rng.chance(0.8) ? 'en' : rng.chance(0.5) ? 'de' : 'fr';
    const localTld = language === 'de' ? 'de' : language === 'fr' ? 'fr' : null;
    let name: string;
    let tld: string;
    switch (kind) {
      case 'edu': {
        const draw = (r: Rng) => `${localTld ? 'uni-' : ''}${r.pick(PLACES)}${r.pick(PLACE_ENDS)}`;
        const first = `${rng.pick(PLACES)}${rng.pick(PLACE_ENDS)}`;
        tld = localTld === 'de' ? 'de' : localTld === 'fr' ? 'fr' : rng.chance(0.7) ? 'edu' : rng.pick(['ac.uk', 'edu.au', 'ac.nz']);
        name = freshName(`${localTld ? 'uni-' : ''}${first}`, draw);
        break;
      }
      case 'gov': {
        const draw = (r: Rng) => `${r.pick(GOV_AGENCIES)}${r.chance(0.5) ? '' : `-${r.pick(PLACES)}`}`;
        name = freshName(draw(rng), draw);
        tld = language === 'de' ? 'bund.de' : language === 'fr' ? 'gouv.fr' : rng.chance(0.7) ? 'gov' : 'gov.uk';
        break;
      }
      case 'news': {
        const draw = (r: Rng) => `${r.pick(PLACES)}${r.pick(NEWS_WORDS)}`;
        name = freshName(draw(rng), draw);
        tld = localTld ?? 'com';
        break;
      }
      case 'wiki': {
        // A wiki named after a niche is about that niche ("Petspedia" wrote on everything); a general one has a general name.
        const draw = (r: Rng) => `${niche === 0 ? r.pick(WIKI_NAMES) : slug(vocabulary.name)}${r.pick(['wiki', 'pedia', 'fandom'])}`;
        const ending = rng.pick(['wiki', 'pedia', 'fandom']);
        name = freshName(niche === 0 ? `${naming.pick(WIKI_NAMES)}${ending}` : `${slug(vocabulary.name)}${ending}`, draw);
        tld = localTld ?? 'org';
        break;
      }
      case 'directory': {
        const ends = ['directory', 'dir', 'listings', 'index'];
        const draw = (r: Rng) => `${r.pick(['web', 'link', 'site', 'best', 'top'])}${r.pick(ends)}`;
        // A town's directory of local businesses.
        name = freshName(draw(rng), draw, (r) => `${r.pick(PLACES)}${r.pick(PLACE_ENDS)}${r.pick(ends)}`);
        tld = rng.pick(['com', 'net', 'org']);
        break;
      }
      case 'farm':
        name = `${rng.pick(FARM_WORDS)}-${rng.pick(FARM_WORDS)}-${rng.int(1, 99)}`;
        tld = rng.pick(['info', 'xyz', 'biz', 'top', 'online']);
        break;
      case 'brand': {
        // A known brand has one site: once the niche's known brands have theirs, a smaller brand ("roastcraft").
        const brand = slug(rng.pick(vocabulary.brands)).replace(/-/g, '');
        const known = vocabulary.brands.map((b) => slug(b).replace(/-/g, '')).filter((b) => !usedNames.has(b));
        const other = known.length > 0 ? naming.pick(known) : `${slug(naming.pick(vocabulary.terms))}${naming.pick(BRAND_ENDS)}`;
        name = freshName(usedNames.has(brand) ? other : brand, (r) => `${slug(r.pick(vocabulary.terms))}${r.pick(BRAND_ENDS)}`);
        tld = localTld ?? 'com';
        break;
      }
      case 'shop': {
        const draw = (r: Rng) => `${slug(r.pick(vocabulary.terms))}${r.pick(SHOP_SUFFIXES)}`;
        name = freshName(draw(rng), draw);
        tld = localTld ?? rng.pick(['com', 'com', 'com', 'co.uk', 'net', 'store']);
        break;
      }
      default: {
        const draw = (r: Rng) => `${slug(r.pick(vocabulary.terms))}${r.pick(SUFFIXES)}`;
        name = freshName(draw(rng), draw);
        tld = localTld ?? rng.pick(['com', 'com', 'com', 'net', 'org', 'io', 'co.uk', 'blog']);
      }
    }
    const domain = unique(name, tld);
    const trusted = kind === 'edu' || kind === 'gov' || (kind === 'news' && rng.chance(0.2)) || (kind === 'wiki' && rng.chance(0.5));
    const traits = KIND_TRAITS[kind];
    const pageCount = Math.max(1, Math.min(Math.round(spec.medianPages * traits.pages * rng.pareto(0.6, 1.6)), spec.giantPages));
    roots.push({
      domain,
      kind,
      niche,
      language,
      brand: capitalize(name.replace(/[-0-9]+/g, ' ').trim()),
      trusted,
      createdDay: dayFromIso('1996-01-01') + Math.floor(rng.next() * createdSpan),
      fitness: traits.fitness * rng.pareto(1, 1.3),
      firstHost: 0,
      hostCount: 0,
      firstPage: 0,
      pageCount,
    });
  }

  const hosts = generateHosts(roots, rng);

  // Keyword pools per (niche, language, site kind): the keywords a site of that kind writes
  // pages for (keywordFits), most searched first.
  const pools = new Map<string, number[]>();
  keywords.forEach((k, index) => {
    for (const kind of kinds) {
      if (!keywordFits(kind, k)) continue;
      const key = `${k.nicheId}:${k.languageId}:${kind}`;
      let pool = pools.get(key);
      if (!pool) pools.set(key, (pool = []));
      pool.push(index);
    }
  });
  for (const pool of pools.values()) pool.sort((a, b) => keywords[b].volume - keywords[a].volume || a - b);

  const total = roots.reduce((sum, r) => sum + r.pageCount, 0);
  const pages: PageSpecs = {
    count: total,
    root: new Int32Array(total),
    host: new Int32Array(total),
    isHome: new Uint8Array(total),
    published: new Int32Array(total),
    shares: new Int32Array(total),
    keyword: new Int32Array(total),
    niche: new Int16Array(total),
    path: new Array<string>(total),
  };
  const usedPaths = new Set<string>();
  /** The number of the last listing path taken on a host for a topic (1: the bare path). */
  const listingTaken = new Map<string, number>();
  /**
   * A page listing the keywords of a topic ("/topics/coffee", "/topics/coffee-2"): the first
   * free one. Paths are only ever added, so every number up to the last one taken is still
   * taken and the search starts there (a giant wiki has thousands of listings: from 2 each
   * time, that was most of the sites' generation, issue 26).
   */
  const listingPath = (hostIndex: number, niche: number): string => {
    const base = `/topics/${slug(NICHES[niche - 1].name)}`;
    const key = `${hostIndex}${base}`;
    let n = listingTaken.get(key) ?? 1;
    let listing = n === 1 ? base : `${base}-${n}`;
    while (usedPaths.has(`${hostIndex}${listing}`)) listing = `${base}-${++n}`;
    listingTaken.set(key, n);
    usedPaths.add(`${hostIndex}${listing}`);
    return listing;
  };
  /**
   * The keyword a page drawn for `index` shows: itself, unless it is hidden or the site shows it
   * already; then the pool's most searched keyword of the same head the site does not show yet,
   * else of the pool; -1 when the site shows every one. No random draw: the world's stay as they were.
   */
  const shownKeyword = (index: number, pool: readonly number[], shown: Set<number>): number => {
    const free = (k: number) => !keywords[k].hidden && !shown.has(k);
    let pick = free(index) ? index : pool.find((k) => free(k) && keywords[k].head === keywords[index].head);
    pick ??= pool.find(free);
    if (pick === undefined) return -1;
    shown.add(pick);
    return pick;
  };
  let p = 0;
  for (let r = 0; r < roots.length; r++) {
    const root = roots[r];
    root.firstPage = p;
    // A site writes one page per keyword: a second draw of a keyword it has tries again.
    const written = new Set<number>();
    // The keywords its pages show (a hidden keyword's page shows another).
    const shown = new Set<number>();
    const start = Math.max(root.createdDay, dayFromIso('2008-01-01'));
    for (let i = 0; i < root.pageCount; i++, p++) {
      const hostIndex = i === 0 ? root.firstHost : root.firstHost + (rng.chance(0.8) ? 0 : rng.int(0, root.hostCount - 1));
      const host = hosts[hostIndex];
      const niche = root.niche || rng.int(1, NICHES.length);
      pages.root[p] = r;
      pages.host[p] = hostIndex;
      pages.niche[p] = niche;
      pages.isHome[p] = i === 0 ? 1 : 0;
      const recentBias = root.kind === 'news' ? Math.sqrt(rng.next()) : rng.next();
      pages.published[p] = i === 0 ? root.createdDay : start + Math.floor(recentBias * Math.max(1, asOfDay - start));
      const sharesScale = root.kind === 'news' ? 40 : root.kind === 'wiki' ? 20 : root.kind === 'farm' ? 0.2 : 3;
      // Pareto draws start at 1; a link farm's scale would push them below zero.
      pages.shares[p] = Math.max(0, Math.floor(rng.pareto(1, 1.1) * sharesScale) - 1);
      const pool = pools.get(`${niche}:${LANGUAGE_IDS[host.language]}:${root.kind}`) ?? [];
      if (i === 0 || pool.length === 0) {
        pages.keyword[p] = -1;
        pages.path[p] = '/';
        continue;
      }
      // Popular keywords get more pages (the product of two uniforms leans to the front of
      // the pool, most searched first).
      let keywordIndex = pool[Math.floor(rng.next() * rng.next() * pool.length)];
      for (let attempt = 0; attempt < 4 && written.has(keywordIndex); attempt++) keywordIndex = pool[Math.floor(rng.next() * pool.length)];
      if (written.has(keywordIndex)) keywordIndex = pool.find((k) => !written.has(k)) ?? -1;
      if (keywordIndex < 0) {
        // The site has a page for every keyword of the topic it writes about: this one lists them.
        pages.keyword[p] = -1;
        pages.path[p] = listingPath(hostIndex, niche);
        continue;
      }
      written.add(keywordIndex);
      // The draws above are over every keyword drawn, hidden ones too (keywordGenerator.ts), so
      // that the rest of the world is drawn as before; the page is about the keyword it shows.
      const shownIndex = shownKeyword(keywordIndex, pool, shown);
      pages.keyword[p] = shownIndex;
      const text = slug(keywords[shownIndex < 0 ? keywordIndex : shownIndex].kw);
      const year = new Date(pages.published[p] * 86_400_000).getUTCFullYear();
      let path: string;
      switch (root.kind) {
        case 'shop':
          path = `/products/${text}`;
          break;
        case 'brand':
          path = `/${rng.pick(['products', 'support', 'blog'])}/${text}`;
          break;
        case 'news':
          // The month it was published (a draw here put pages of the build year in months to come).
          path = `/${year}/${String(new Date(pages.published[p] * 86_400_000).getUTCMonth() + 1).padStart(2, '0')}/${text}`;
          break;
        case 'forum':
          path = `/threads/${text}.${rng.int(1000, 999999)}`;
          break;
        case 'wiki':
          path = `/wiki/${text.replace(/-/g, '_')}`;
          break;
        case 'edu':
          path = `/research/${text}`;
          break;
        case 'gov':
          path = `/guidance/${text}`;
          break;
        case 'directory':
          path = `/category/${slug(NICHES[niche - 1].name)}/${text}`;
          break;
        case 'farm':
          path = `/links/${text}-${rng.int(1, 9999)}`;
          break;
        default:
          path = `/${rng.chance(0.4) ? `${year}/` : ''}${text}`;
      }
      // No keyword left to show: a listing page (its path still drawn above, as before).
      if (shownIndex < 0) {
        pages.path[p] = listingPath(hostIndex, niche);
        continue;
      }
      let unique = path;
      for (let n = 2; usedPaths.has(`${hostIndex}${unique}`); n++) unique = `${path}-${n}`;
      usedPaths.add(`${hostIndex}${unique}`);
      pages.path[p] = unique;
    }
  }
  return { roots, hosts, pages, giantRoot: 0 };
}

export function pageUrl(sites: WorldSites, page: number): string {
  const host = sites.hosts[sites.pages.host[page]];
  return `${host.https ? 'https' : 'http'}://${host.host}${sites.pages.path[page]}`;
}
