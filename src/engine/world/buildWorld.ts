/**
 * Builds the sandbox web into a research store file: keywords, sites, pages, links and
 * every computed metric, deterministically from (size, seed, build date).
 *
 * Example:
 * ```ts
 * await buildWorld({ size: 'tiny', seed: 1, file: '/tmp/research.db', asOf: clock.now(),
 *   onProgress: (stage, done, total) => bar.update(done) });
 * ```
 */
import fs from 'node:fs';
import type { WorldSize } from '../../config.js';
import { openResearchStore, LINK_INDEXES } from '../researchStore.js';
import { BACKGROUND_BUSY_TIMEOUT_MS } from '../../store/database.js';
import { LINK_COLUMNS } from '../researchSchema.js';
import { WORLD_SIZE_SPECS } from './sizes.js';
import { Rng } from './random.js';
import { generateKeywords } from './keywordGenerator.js';
import { seedBreakouts } from './trends.js';
import { generateSites, pageUrl } from './siteGenerator.js';
import { ipText, shareHosting, subnetText } from './hosting.js';
import { generateLinks, GENERIC_ANCHORS, LINK_TYPES, LOST_REASONS } from './linkGenerator.js';
import { NICHES } from './niches.js';
import { dayNumber, isoDay } from './dates.js';
import { pageText } from './pageText.js';
import { hash32, hash32Extend } from './random.js';
import type { LinkGraphInput } from '../links/linkGraphInput.js';
import { writeLevelMetrics, writeRootHistories } from '../links/metricsWriter.js';
import { linkMetricsInWorker } from '../links/metricsWorker.js';
import { domainClasses } from '../links/urls.js';
import { contentHashOf } from './contentHash.js';
import { openSearch } from '../search/index.js';
import { rankInWorker, saveRanked, type RankedMarket } from '../search/rankWorker.js';
import { migrateSearchTables, SearchStore } from '../search/searchStore.js';
import { DEFAULT_SERP_LOCATION } from '../search/searchEngine.js';

/** Bumped whenever generated content changes, so cached test worlds are rebuilt. */
export const GENERATOR_VERSION = 16;

export type { ProgressListener } from '../../lib/progress.js';
import type { ProgressListener } from '../../lib/progress.js';

export interface BuildWorldOptions {
  size: WorldSize;
  seed: number;
  /**
   * A new file under a temporary name (whatever is there is replaced): it is written without
   * a journal on disk nor syncs, so it is made the store by `installBuiltStore` (synced, renamed)
   * once buildWorld has returned, never opened under its final name before.
   */
  file: string;
  /** Build date (ms); the link timeline ends here and keyword history stops the month before. */
  asOf: number;
  onProgress?: ProgressListener;
  /**
   * Also compute and store the content hash (a full read of the store: ~1 s for tiny,
   * tens of seconds for small). Off by default; `contentHash(file)` computes it later.
   */
  computeHash?: boolean;
}

export interface BuiltWorld {
  file: string;
  keywords: number;
  rootDomains: number;
  hosts: number;
  pages: number;
  links: number;
  contentHash: string | null;
}

/**
 * The default market ranked in a worker thread; `wait` answers null when the worker could
 * not run (the build then ranks in this thread). Until this thread waits, the link stages
 * are shown (busy in SQLite, it cannot draw anything else, and the worker's messages queue);
 * then the worker's ranking is shown as "rank market 2840 (worker)", its time the wait.
 */
function startRanking(file: string, asOf: number, progress: ProgressListener): { wait(): Promise<RankedMarket | null> } {
  let waiting = false;
  const stage = `rank market ${DEFAULT_SERP_LOCATION} (worker)`;
  const result = rankInWorker({ file, market: DEFAULT_SERP_LOCATION, asOf }, (name, done, total) => {
    if (waiting && name.startsWith('rank market')) progress(stage, done, total);
  }).catch(() => null);
  return {
    wait() {
      waiting = true;
      progress(stage, 0, 1);
      return result;
    },
  };
}

/** Links a multi-row INSERT writes (23 columns each: 736 variables, far below SQLite's limit). */
const LINKS_PER_INSERT = 32;

const PARTIAL_PREFIXES = ['guide to', 'more about', 'tips on', 'this', 'great', 'read about', 'all about'];

export async function buildWorld(options: BuildWorldOptions): Promise<BuiltWorld> {
  const { size, seed, file } = options;
  const progress = options.onProgress ?? (() => {});
  const spec = WORLD_SIZE_SPECS[size];
  const asOfDay = dayNumber(options.asOf);
  for (const suffix of ['', '-wal', '-shm', '-journal']) fs.rmSync(`${file}${suffix}`, { force: true });

  const rng = new Rng(seed);
  progress('keywords', 0, 1);
  const keywords = generateKeywords(spec.keywords, rng.fork(1));
  progress('sites', 0, 1);
  // Names redrawn to keep them distinct come from their own stream (siteGenerator.ts: freshName).
  const sites = generateSites(spec, keywords, asOfDay, rng.fork(2), new Rng(hash32(`site names|${seed}`)));
  // Big hosting providers' subnets, from their own stream: only IPs move (hosting.ts).
  shareHosting(sites, new Rng(hash32(`hosting|${seed}`)));
  progress('links', 0, 1);
  const links = generateLinks(sites, spec, asOfDay, rng.fork(3));
  // After the sites: pages were written before a trend broke out (trends.ts).
  seedBreakouts(keywords, rng.fork(4));
  const { roots, hosts, pages } = sites;

  // Dense ids for IPs and subnets.
  const ipIds = new Map<number, number>();
  const subnetIds = new Map<number, number>();
  const hostIp = new Int32Array(hosts.length);
  const hostSubnet = new Int32Array(hosts.length);
  hosts.forEach((h, i) => {
    if (!ipIds.has(h.ip)) ipIds.set(h.ip, ipIds.size);
    if (!subnetIds.has(h.ip >>> 8)) subnetIds.set(h.ip >>> 8, subnetIds.size);
    hostIp[i] = ipIds.get(h.ip)!;
    hostSubnet[i] = subnetIds.get(h.ip >>> 8)!;
  });
  const classes = roots.map((r) => domainClasses(r.domain));
  const linkHttps = new Uint8Array(links.count);
  const linkDeleted = new Uint8Array(links.count);
  const linkEndDay = new Int32Array(links.count);
  for (let i = 0; i < links.count; i++) {
    linkHttps[i] = hosts[pages.host[links.source[i]]].https ? 1 : 0;
    linkDeleted[i] = links.deletedDay[i] >= 0 ? 1 : 0;
    linkEndDay[i] = linkDeleted[i] ? links.lastDay[i] : asOfDay;
  }
  const input: LinkGraphInput = {
    asOfDay,
    pageCount: pages.count,
    pageHost: pages.host,
    pageRoot: pages.root,
    pageIsHome: pages.isHome,
    pageShares: pages.shares,
    pagePublished: pages.published,
    hostCount: hosts.length,
    hostRoot: Int32Array.from(hosts.map((h) => h.root)),
    hostIp,
    hostSubnet,
    rootCount: roots.length,
    rootTrusted: Uint8Array.from(roots.map((r) => (r.trusted ? 1 : 0))),
    rootEdu: Uint8Array.from(classes.map((c) => c.edu)),
    rootGov: Uint8Array.from(classes.map((c) => c.gov)),
    linkCount: links.count,
    linkSource: links.source,
    linkTarget: links.target,
    linkType: links.type,
    linkNofollow: links.nofollow,
    linkHttps,
    linkDeleted,
    linkFirstDay: links.firstDay,
    linkEndDay,
  };
  // The link metrics are needed from the metrics' and links' writes on, the root histories
  // only at the end: a worker thread computes both while this one writes keywords and sites
  // (metricsWorker.ts; the same figures as in this thread).
  const computed = linkMetricsInWorker(input);

  // A brand-new file, made the store only once complete (ensureWorld renames it into place):
  // written with the rollback journal in memory, each page once (through WAL, every page was
  // written again by the checkpoints: 2.7 GB written for a 1.0 GB file on `small`). The
  // ranking worker reads it meanwhile under SQLite's file locks, each read short
  // (rankWorker.ts), so the long busy timeout is only a bound.
  const store = await openResearchStore(file, { journal: 'memory', busyTimeoutMs: BACKGROUND_BUSY_TIMEOUT_MS });
  const raw = store.raw;
  raw.pragma('synchronous = OFF');
  // 128 MiB of page cache: the ranking worker's corpus is in memory beside it while the links are written.
  raw.pragma('cache_size = -131072');
  // Lets SQLite sort with a helper thread while building the link indexes.
  raw.pragma('threads = 2');
  try {
    const transaction = (fn: () => void): void => raw.transaction(fn)();
    progress('write keywords', 0, keywords.length);
    transaction(() => {
      const niche = raw.prepare('INSERT INTO niches (id, name, season_peak, season_amplitude, trend, vocabulary) VALUES (?, ?, ?, ?, ?, ?)');
      NICHES.forEach((n, i) =>
        niche.run(
          i + 1,
          n.name,
          n.peak,
          n.amplitude,
          n.trend,
          [...new Set([...n.heads.en, ...n.heads.de, ...n.heads.fr, ...n.attributes, ...n.terms])].join(' '),
        ),
      );
      const keyword = raw.prepare(
        'INSERT INTO keywords (id, kw, language_id, niche_id, head, kind, intent, volume, trend, noise_seed, cpc, ppc, origin) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      );
      const market = raw.prepare('INSERT INTO keyword_markets (keyword_id, location_id, share) VALUES (?, ?, ?)');
      for (const [n, k] of keywords.entries()) {
        if (n % 5_000 === 0) progress('write keywords', n, keywords.length);
        // Drawn only to keep the world's draws as they were (keywordGenerator.ts); ids keep their gaps.
        if (k.hidden) continue;
        keyword.run(k.id, k.kw, k.languageId, k.nicheId, k.head, k.kind, k.intent, k.volume, k.trend, k.noiseSeed, k.cpc, k.ppc, 'sandbox');
        for (const m of k.markets) market.run(k.id, m.locationId, m.share);
      }
    });
    progress('write sites', 0, pages.count);
    transaction(() => {
      const root = raw.prepare(
        'INSERT INTO root_domains (id, domain, kind, niche_id, language_id, brand, trusted, created_on) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      );
      const languageIds = { en: 1000, de: 1001, fr: 1002 } as const;
      roots.forEach((r, i) => root.run(i + 1, r.domain, r.kind, r.niche || null, languageIds[r.language], r.brand, r.trusted ? 1 : 0, isoDay(r.createdDay)));
      const host = raw.prepare('INSERT INTO hosts (id, host, root_domain_id, ip, subnet) VALUES (?, ?, ?, ?, ?)');
      hosts.forEach((h, i) => host.run(i + 1, h.host, h.root + 1, ipText(h.ip), subnetText(h.ip)));
      const page = raw.prepare(
        'INSERT INTO pages (id, url, host_id, root_domain_id, https, is_homepage, title, description, body, keyword, niche_id, language_id, kind, published, shares) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      );
      for (let p = 0; p < pages.count; p++) {
        const r = roots[pages.root[p]];
        const h = hosts[pages.host[p]];
        const k = pages.keyword[p] >= 0 ? keywords[pages.keyword[p]] : null;
        if (p % 5_000 === 0) progress('write sites', p, pages.count);
        const text = pageText(p + 1, r.kind, r.brand, k, r.niche, pages.niche[p], pages.isHome[p] === 1);
        page.run(
          p + 1,
          pageUrl(sites, p),
          pages.host[p] + 1,
          pages.root[p] + 1,
          h.https ? 1 : 0,
          pages.isHome[p],
          text.title,
          text.description,
          text.body,
          k?.kw ?? '',
          pages.niche[p],
          languageIds[h.language],
          r.kind,
          isoDay(pages.published[p]),
          pages.shares[p],
        );
      }
    });

    progress('link metrics (worker)', 0, 1);
    const metrics = await computed.metrics;
    progress('write metrics', 0, 1);
    transaction(() => writeLevelMetrics(raw, metrics));
    transaction(() => {
      const meta = raw.prepare('INSERT OR REPLACE INTO world_meta (key, value) VALUES (?, ?)');
      meta.run('size', size);
      meta.run('seed', String(seed));
      meta.run('built_on', isoDay(asOfDay));
      meta.run('as_of_ms', String(options.asOf));
      meta.run('generator_version', String(GENERATOR_VERSION));
      meta.run('origin', 'sandbox');
    });
    // What every first start would otherwise do once: index the page text and rank the
    // default market. The ranking reads pages and metrics only, so it runs in a worker
    // thread beside the link writes below (rankWorker.ts); both are stored with the world.
    await migrateSearchTables(store.db);
    const ranking = startRanking(file, options.asOf, progress);

    for (const index of LINK_INDEXES) raw.prepare(`DROP INDEX IF EXISTS ${index.name}`).run();
    // LINKS_PER_INSERT links a statement (multi-row VALUES, in id order): running a statement
    // costs about as much again as inserting its row (issue 26).
    const columns = LINK_COLUMNS.length;
    const values = `(${LINK_COLUMNS.map(() => '?').join(', ')})`;
    const insertLinks = raw.prepare(`INSERT INTO links (${LINK_COLUMNS.join(', ')}) VALUES ${new Array(LINKS_PER_INSERT).fill(values).join(', ')}`);
    const insertLink = raw.prepare(`INSERT INTO links (${LINK_COLUMNS.join(', ')}) VALUES ${values}`);
    const rows: (string | number | null)[] = new Array(columns * LINKS_PER_INSERT);
    let filled = 0;
    // hash32(`${seed}:${i}`), continued from the prefix's state instead of building each string.
    const variantSeed = hash32(`${seed}:`);
    const batch = 200_000;
    for (let startAt = 0; startAt < links.count; startAt += batch) {
      progress('write links', startAt, links.count);
      transaction(() => {
        const end = Math.min(links.count, startAt + batch);
        for (let i = startAt; i < end; i++) {
          if (i % 20_000 === 0) progress('write links', i, links.count);
          const s = links.source[i];
          const t = links.target[i];
          const targetRoot = roots[pages.root[t]];
          const targetKeyword = pages.keyword[t] >= 0 ? keywords[pages.keyword[t]].kw : targetRoot.brand;
          const variant = hash32Extend(variantSeed, String(i));
          let anchor = '';
          let alt = '';
          switch (links.anchorKind[i]) {
            case 0:
              anchor = targetRoot.brand;
              break;
            case 1:
              anchor = targetKeyword;
              break;
            case 2:
              anchor = `${PARTIAL_PREFIXES[variant % PARTIAL_PREFIXES.length]} ${targetKeyword}`;
              break;
            case 3:
              anchor = variant % 2 === 0 ? pageUrl(sites, t) : targetRoot.domain;
              break;
            case 4:
              anchor = GENERIC_ANCHORS[variant % GENERIC_ANCHORS.length];
              break;
            default:
              alt = variant % 3 === 0 ? targetRoot.brand : targetKeyword;
          }
          const internal = pages.root[s] === pages.root[t];
          const row = filled * columns;
          rows[row] = i + 1;
          rows[row + 1] = s + 1;
          rows[row + 2] = t + 1;
          rows[row + 3] = pages.host[s] + 1;
          rows[row + 4] = pages.host[t] + 1;
          rows[row + 5] = pages.root[s] + 1;
          rows[row + 6] = pages.root[t] + 1;
          rows[row + 7] = anchor;
          rows[row + 8] = alt;
          rows[row + 9] = LINK_TYPES[links.type[i]];
          rows[row + 10] = links.nofollow[i];
          rows[row + 11] = linkHttps[i];
          rows[row + 12] = isoDay(links.firstDay[i]);
          rows[row + 13] = isoDay(links.lastDay[i]);
          rows[row + 14] = linkDeleted[i];
          rows[row + 15] = linkDeleted[i] ? isoDay(links.deletedDay[i]) : null;
          rows[row + 16] = LOST_REASONS[links.reason[i]];
          rows[row + 17] = internal ? 1 : 0;
          rows[row + 18] = metrics.linkScore[i];
          rows[row + 19] = metrics.linkStrength[i];
          rows[row + 20] = metrics.bestRoot[i];
          rows[row + 21] = metrics.bestHost[i];
          rows[row + 22] = metrics.bestUrl[i];
          if (++filled === LINKS_PER_INSERT) {
            insertLinks.run(rows);
            filled = 0;
          }
        }
        // The last links of the batch, one a statement.
        for (let k = 0; k < filled; k++) insertLink.run(rows.slice(k * columns, (k + 1) * columns));
        filled = 0;
      });
    }
    progress('write links', links.count, links.count);
    for (const [n, index] of LINK_INDEXES.entries()) {
      progress('index links', n, LINK_INDEXES.length);
      raw.prepare(index.sql).run();
    }
    progress('history (worker)', 0, 1);
    const historyTexts = await computed.histories;
    transaction(() => writeRootHistories(raw, historyTexts));
    raw.pragma('analysis_limit = 1000');
    raw.prepare('ANALYZE').run();
    let hash: string | null = null;
    if (options.computeHash) {
      progress('hash', 0, 1);
      hash = contentHashOf(raw);
      raw.prepare("INSERT OR REPLACE INTO world_meta (key, value) VALUES ('content_hash', ?)").run(hash);
    }
    const ranked = await ranking.wait();
    if (ranked) saveRanked(new SearchStore(raw), ranked);
    // Without a worker (or when it failed), here: an open loads what is stored, ranks what is not.
    else await openSearch({ store, clock: { now: () => options.asOf }, rankIndexes: [DEFAULT_SERP_LOCATION], onProgress: progress });
    raw.prepare("INSERT OR REPLACE INTO world_meta (key, value) VALUES ('state', 'ready')").run();
    // The store is opened in WAL mode, as every research store is, from here on; switched now,
    // while no other connection has the file open (switching needs it alone), not by whichever
    // of several processes opens it first.
    raw.pragma('journal_mode = WAL');
    return {
      file,
      keywords: keywords.filter((k) => !k.hidden).length,
      rootDomains: roots.length,
      hosts: hosts.length,
      pages: pages.count,
      links: links.count,
      contentHash: hash,
    };
  } finally {
    await store.close();
  }
}
