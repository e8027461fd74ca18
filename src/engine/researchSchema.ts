/**
 * The research store: one typed description of every table of `<dataDir>/research.db`.
 * It holds the sandbox web (engine/world), imported data (engine/import) and the metrics
 * computed from them (engine/links, engine/authority). Everything here can be rebuilt,
 * unlike the state store (store/schema.ts).
 *
 * Conventions
 * - Ids are small integers (compact indexes, typed-array friendly); the API turns them
 *   into strings.
 * - Dates in link and page data are `YYYY-MM-DD` text (sortable, as the API shows them);
 *   months are `YYYY-MM`.
 * - URLs are stored normalised by `normalizeUrl` (engine/links/urls.ts): lower-case
 *   scheme and host, no fragment, no default port, path at least `/`.
 * - Languages are Google Ads language criterion ids (1000 English, 1001 German, 1002
 *   French); locations are Google Ads geotarget ids (2840 United States, ...), 0 = global.
 *
 * Example (a keyword with its volume in Germany):
 * ```ts
 * const row = await db.selectFrom('keywords').innerJoin('keyword_markets', 'keyword_markets.keyword_id', 'keywords.id')
 *   .selectAll('keywords').select('keyword_markets.share')
 *   .where('keywords.kw', '=', 'beste laufschuhe').where('keyword_markets.location_id', '=', 2276).executeTakeFirst();
 * ```
 */

/** Key/value facts about the world: size, seed, built date, content hash, generator version. */
export interface WorldMetaTable {
  key: string;
  value: string;
}

/**
 * A topic area with its own vocabulary, seasonality and trend.
 * `season_peak` is the month (1–12) of highest demand, `season_amplitude` the relative
 * swing (0.3 = ±30 %), `trend` the yearly growth factor (1.05 = +5 % a year).
 */
export interface NichesTable {
  id: number;
  name: string;
  season_peak: number;
  season_amplitude: number;
  trend: number;
  /** Space-separated vocabulary terms (all languages), used for page bodies and anchors. */
  vocabulary: string;
}

/**
 * A keyword for one language. `volume` is the global average monthly searches of the
 * last 12 months at the build date. Monthly history is derived from `volume`, the
 * niche's seasonality, `trend` and `noise_seed` by `keywordHistory` (world/keywordHistory.ts),
 * unless `keyword_history` holds stored (imported) months for the location, which win.
 *
 * `intent` is a comma-separated list of hints from the generator/importer:
 * informational, commercial, transactional, navigational, local, question.
 * `kind` says how the keyword was formed: head, modifier, question, brand, versus, import.
 * `head` is the head term the keyword was built from (the keyword itself for heads).
 */
export interface KeywordsTable {
  id: number;
  kw: string;
  language_id: number;
  niche_id: number | null;
  head: string;
  kind: string;
  intent: string;
  volume: number;
  trend: number;
  noise_seed: number;
  cpc: number;
  ppc: number;
  /** 'sandbox' or 'import'. */
  origin: string;
}

/** Per-country share of a keyword's global volume (shares of one keyword sum to ≤ 1). */
export interface KeywordMarketsTable {
  keyword_id: number;
  location_id: number;
  share: number;
}

/** Stored monthly searches (imports); overrides the derived history for that location. */
export interface KeywordHistoryTable {
  keyword_id: number;
  location_id: number;
  year: number;
  month: number;
  searches: number;
}

/**
 * A registrable domain (eTLD+1 by tldts). `kind`: blog, shop, brand, news, forum, wiki,
 * edu, gov, directory, farm, imported. `brand` is the name used in brand anchors.
 */
export interface RootDomainsTable {
  id: number;
  domain: string;
  kind: string;
  niche_id: number | null;
  language_id: number;
  brand: string;
  /** Whether the domain is in the TrustRank seed set (see engine/links/trustRank.ts). */
  trusted: number;
  created_on: string;
}

/** A host name (subdomain or the bare root) with its IP and /24 subnet. */
export interface HostsTable {
  id: number;
  host: string;
  root_domain_id: number;
  ip: string;
  /** The /24 subnet as `a.b.c`. */
  subnet: string;
}

/**
 * A crawled page. `body` is space-separated lower-case terms (title terms, niche terms),
 * ready for BM25 tokenisation by splitting on spaces. `keyword` is the keyword the page
 * was written for (sandbox) or '' (imports). `shares` is the current social share count;
 * its history follows `pageSharesAt` (world/social.ts).
 */
export interface PagesTable {
  id: number;
  url: string;
  host_id: number;
  root_domain_id: number;
  https: number;
  is_homepage: number;
  title: string;
  description: string;
  body: string;
  keyword: string;
  niche_id: number | null;
  language_id: number;
  kind: string;
  published: string;
  shares: number;
}

/**
 * One link from a page to a page. `type`: text, image, redirect, frame, mention.
 * `https` = the source page is served over https. `deleted` 1 when the link is lost;
 * `deleted_on` its date and `reason_lost` why. `internal` 1 when both pages share the
 * root domain. `score` orders backlinks strongest first (engine/links/linkStrength.ts);
 * `strength` is the 0–10 link strength shown as `ls`. `best_root`/`best_host`/`best_url`
 * are 1 on the strongest link from each referring root domain to the target's root
 * domain / host / page (serves `links_per_domain = 1`).
 */
export interface LinksTable {
  id: number;
  source_page_id: number;
  target_page_id: number;
  source_host_id: number;
  target_host_id: number;
  source_root_id: number;
  target_root_id: number;
  anchor: string;
  alt: string;
  type: string;
  nofollow: number;
  https: number;
  first_seen: string;
  last_seen: string;
  deleted: number;
  deleted_on: string | null;
  reason_lost: string;
  internal: number;
  score: number;
  strength: number;
  best_root: number;
  best_host: number;
  best_url: number;
}

/** Level of an entity in `entity_metrics`. */
export const LEVEL = { url: 0, subdomain: 1, root: 2 } as const;
export type Level = (typeof LEVEL)[keyof typeof LEVEL];

/**
 * Computed metrics and exact link counters for a page (level 0, entity = pages.id), a
 * host (1, hosts.id) or a root domain (2, root_domains.id). Counters follow the
 * spec's link-tool URL metrics; see engine/links/counters.ts for each definition.
 */
export interface EntityMetricsTable {
  level: number;
  entity_id: number;
  pagerank: number;
  trustrank: number;
  citation_flow: number;
  trust_flow: number;
  /** upa for pages, pda for hosts and root domains (0–100). */
  authority: number;
  /** Rank of the root domain by authority, 1 best (root level; 0 elsewhere). */
  top_rank: number;
  ac_rank: number;
  ext_backlinks: number;
  ref_domains: number;
  /** Referring root domains counting lost links too (totals for links_per_domain = 1). */
  ref_domains_all: number;
  ref_ips: number;
  ref_subnets: number;
  ref_domains_edu: number;
  ext_backlinks_edu: number;
  ref_domains_gov: number;
  ext_backlinks_gov: number;
  ref_domains_edu_exact: number;
  ext_backlinks_edu_exact: number;
  ref_domains_gov_exact: number;
  ext_backlinks_gov_exact: number;
  indexed_urls: number;
  nu_homepages: number;
  nu_indirect: number;
  nu_deleted: number;
  nu_nofollow: number;
  nu_https: number;
  nu_frame: number;
  nu_image: number;
  nu_redirect: number;
  nu_text: number;
  nu_mention: number;
  total_non_unique: number;
  out_internal: number;
  out_external: number;
  out_domains_external: number;
  social: number;
}

/**
 * Monthly history of a root domain since 2016-01, one JSON document per domain:
 * `{ start: 'YYYY-MM', topRank: number[], refIps: number[], refSubnets: number[],
 *    citationFlow: number[], trustFlow: number[], social: number[], refDomains: number[] }`
 * (arrays aligned month by month from `start` to the build month).
 */
export interface RootHistoryTable {
  root_domain_id: number;
  history: string;
}

/** A resumable import of one file (engine/import/importRuns.ts). `status`: running, done. */
export interface ImportRunsTable {
  id: number;
  kind: string;
  /** kind, absolute path, size and mtime of the file: the same file resumes, a changed one starts over. */
  file_key: string;
  records_done: number;
  status: string;
  started_at: number;
  updated_at: number;
}

/** Root domains whose links an unfinished import changed (their metrics are not updated yet). */
/**
 * The state of every link an import changed since the last link metrics update, as it was
 * before the first change (`existed` 0: the import created it), so the incremental update
 * (links/incrementalMetrics.ts) can take the old link's share out of the counters and put
 * the new one's in. Emptied by every metrics update.
 */
export interface LinkChangesTable {
  link_id: number;
  existed: number;
  type: string;
  nofollow: number;
  deleted: number;
  first_seen: string;
  last_seen: string;
}

/**
 * Public rank lists per registrable domain: Common Crawl web graph (harmonic centrality
 * and PageRank, position 1 best, and the value) and the Tranco top-sites list position.
 */
export interface DomainPriorsTable {
  domain: string;
  cc_harmonic_rank: number | null;
  cc_harmonic_value: number | null;
  cc_pagerank_rank: number | null;
  cc_pagerank_value: number | null;
  tranco_rank: number | null;
}

export interface ResearchDatabase {
  world_meta: WorldMetaTable;
  niches: NichesTable;
  keywords: KeywordsTable;
  keyword_markets: KeywordMarketsTable;
  keyword_history: KeywordHistoryTable;
  root_domains: RootDomainsTable;
  hosts: HostsTable;
  pages: PagesTable;
  links: LinksTable;
  entity_metrics: EntityMetricsTable;
  root_history: RootHistoryTable;
  import_runs: ImportRunsTable;
  link_changes: LinkChangesTable;
  domain_priors: DomainPriorsTable;
}

/** The link counters of `entity_metrics`, one column each (counters.ts computes them in this order). */
export const COUNTER_COLUMNS = [
  'ext_backlinks',
  'ref_domains',
  'ref_domains_all',
  'ref_ips',
  'ref_subnets',
  'ref_domains_edu',
  'ext_backlinks_edu',
  'ref_domains_gov',
  'ext_backlinks_gov',
  'ref_domains_edu_exact',
  'ext_backlinks_edu_exact',
  'ref_domains_gov_exact',
  'ext_backlinks_gov_exact',
  'indexed_urls',
  'nu_homepages',
  'nu_indirect',
  'nu_deleted',
  'nu_nofollow',
  'nu_https',
  'nu_frame',
  'nu_image',
  'nu_redirect',
  'nu_text',
  'nu_mention',
  'total_non_unique',
  'out_internal',
  'out_external',
  'out_domains_external',
  'social',
] as const satisfies readonly (keyof EntityMetricsTable)[];

/** Column order of `entity_metrics` (bulk writers use it). */
export const ENTITY_METRIC_COLUMNS = [
  'level',
  'entity_id',
  'pagerank',
  'trustrank',
  'citation_flow',
  'trust_flow',
  'authority',
  'top_rank',
  'ac_rank',
  ...COUNTER_COLUMNS,
] as const satisfies readonly (keyof EntityMetricsTable)[];

/** Column order of `links` (bulk writers use it). */
export const LINK_COLUMNS = [
  'id',
  'source_page_id',
  'target_page_id',
  'source_host_id',
  'target_host_id',
  'source_root_id',
  'target_root_id',
  'anchor',
  'alt',
  'type',
  'nofollow',
  'https',
  'first_seen',
  'last_seen',
  'deleted',
  'deleted_on',
  'reason_lost',
  'internal',
  'score',
  'strength',
  'best_root',
  'best_host',
  'best_url',
] as const satisfies readonly (keyof LinksTable)[];
