/**
 * The real web's link index and authority, as the tools ask for them: the configured
 * link-index provider (Majestic or DataForSEO Backlinks) and authority provider (Moz or
 * DataForSEO), each answer bought once for everyone within its freshness
 * (providerAnswers.ts) and paid from the provider's daily budget (a failed call is refunded:
 * keywordFill.ts's budgetedSpend, the same plumbing as the keyword provider's).
 *
 * Batches: item info of up to 100 targets a Majestic call (DataForSEO: 100 a bulk call),
 * authority of up to 50 URLs a Moz call. A SERP of 100 results is thus one link call and two
 * authority calls.
 *
 * @example
 * const data = createLinkData(config, { state, clock, ledger });
 * const [info] = await data.itemInfo([linkTarget('starbucks.com')!]);
 * info?.CitationFlow; // Majestic's figure as given
 */
import type { Kysely } from 'kysely';
import type { Clock } from '../../../lib/clock.js';
import type { StateDatabase } from '../../../store/schema.js';
import { budgetedSpend } from '../keywordFill.js';
import type { ProviderHttpOptions } from '../providerHttp.js';
import type { ProviderLedger } from '../providerLedger.js';
import { leaseFor, ProviderAnswers, type AnswerKind } from '../providerAnswers.js';
import type { SourcesConfig } from '../sourceConfig.js';
import { SourceError } from '../types.js';
import { DataForSeoBacklinksClient, DFS_BACKLINKS_PER_CALL, DFS_MAX_OFFSET } from './dataForSeoBacklinks.js';
import type {
  AnchorRow,
  AuthorityFigures,
  BacklinkPage,
  Bought,
  CalendarRow,
  CompetitorRow,
  HistoryRow,
  IndexItemInfo,
  LinkListSource,
  LinkTarget,
  ListCursor,
  RankOverview,
  RefDomainRow,
  TopPageRow,
} from './linkTypes.js';
import { MajesticClient, MAJESTIC_ITEMS_PER_CALL, MAJESTIC_MAX_BACKLINKS } from './majestic.js';
import { MozClient, MOZ_TARGETS_PER_CALL } from './moz.js';

/** Item info targets per DataForSEO bulk call: its limit is 100 root domains a call. */
const DFS_ITEMS_PER_CALL = 100;
/** Authority URLs per DataForSEO bulk call: each URL's root domain is asked too, 100 at most. */
const DFS_AUTHORITY_PER_CALL = 50;

/** Link-index figures a tool may ask for (null: the provider has no data for the target). */
export interface LinkData {
  /** The link-index provider's name (`majestic`, `dataforseo`): what `source` says. */
  readonly linkSource: string;
  /** The authority provider's name (`moz`, `dataforseo`). */
  readonly authoritySource: string;
  itemInfo(targets: readonly LinkTarget[]): Promise<(IndexItemInfo | null)[]>;
  authority(urls: readonly LinkTarget[]): Promise<(AuthorityFigures | null)[]>;
  backlinks(target: LinkTarget, source: LinkListSource, perDomain: boolean, offset: number, limit: number): Promise<BacklinkPage>;
  /**
   * One page of an export's walk through all of a target's backlinks (deleted ones too), from
   * `cursor`; `next` is where the following page starts, null once the list is read to its end.
   * Not kept in provider_answers: the export keeps its pages itself (store/exportPages.ts).
   */
  exportPage(target: LinkTarget, perDomain: boolean, cursor: ListCursor, limit: number): Promise<ExportPage>;
  refDomains(target: LinkTarget, count: number): Promise<RefDomainRow[]>;
  anchors(target: LinkTarget, count: number): Promise<AnchorRow[]>;
  calendar(target: LinkTarget, days: number): Promise<CalendarRow[]>;
  topPages(target: LinkTarget, count: number): Promise<TopPageRow[]>;
  /** Monthly history of the root domain since a YYYY-MM-DD; empty where the provider has none (Majestic: see majestic.ts). */
  history(target: LinkTarget, since: string): Promise<HistoryRow[]>;
  /** Organic competitors of a domain in a market; null when no provider configured gives them (Majestic alone). */
  competitors(domain: string, locationCode: number, languageCode: string, count: number): Promise<CompetitorRow[] | null>;
  /** A domain's organic ranking statistics in a market (DataForSEO Labs); null when Labs has none of it or no DataForSEO account is configured. */
  rankOverview(domain: string, locationCode: number, languageCode: string): Promise<RankOverview | null>;
}

/** A page of an export's walk (LinkData.exportPage). */
export interface ExportPage extends BacklinkPage {
  next: ListCursor | null;
}

export interface LinkDataDependencies {
  state: Kysely<StateDatabase>;
  clock: Clock;
  ledger: ProviderLedger;
  sleep?: (ms: number) => Promise<void>;
}

const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const targetKey = (t: LinkTarget) => `${t.type}:${t.name}`;

/** The link data of a configuration with a link or authority provider; null when both are the sandbox. */
export function createLinkData(config: SourcesConfig, deps: LinkDataDependencies): LinkData | null {
  if (config.links === 'sandbox' && config.authority === 'sandbox') return null;
  const http: ProviderHttpOptions = { ...config.limits, sleep: deps.sleep };
  const today = () => dayOf(deps.clock.now());
  // Waiting for another process's purchase takes real time (the injected sleep only skips retry backoffs).
  const answers = new ProviderAnswers(deps.state, deps.clock, { leaseMs: leaseFor(config.limits) });
  const dfs = config.dataforseo ? new DataForSeoBacklinksClient({ ...config.dataforseo, http, estimate: config.backlinksCost, today }) : null;
  const majestic = config.links === 'majestic' ? new MajesticClient({ ...config.majestic!, http, costPerCall: config.majesticCost, today }) : null;
  const moz = config.authority === 'moz' ? new MozClient({ ...config.moz!, http, costPerRow: config.mozRowCost }) : null;
  const linkAccount = config.links === 'majestic' ? 'majestic' : 'dataforseo-backlinks';
  const authorityAccount = config.authority === 'moz' ? 'moz' : 'dataforseo-authority';
  const linkSpend = budgetedSpend(deps.ledger, linkAccount, config.linkDailyBudget, deps.clock);
  const authoritySpend = budgetedSpend(deps.ledger, authorityAccount, config.authorityDailyBudget, deps.clock);
  const labs = createLabsCompetitors(config, deps);
  const rankOverview = createLabsRankOverview(config, deps);
  const linkEstimate = config.links === 'majestic' ? config.majesticCost : config.backlinksCost;

  /** One link-index call, paid from the link budget. */
  const linkCall = <T>(call: () => Promise<Bought<T>>) => linkSpend(linkEstimate, call);
  /** A single stored answer of the link index. */
  const one = async <T>(kind: AnswerKind, key: string, call: () => Promise<Bought<T>>): Promise<T> => {
    const found = await answers.get<T>(linkAccount, kind, [key], 1, async () => [await linkCall(call)]);
    return found.get(key) as T;
  };

  return {
    linkSource: config.links,
    authoritySource: config.authority,

    async itemInfo(targets) {
      const byKey = new Map(targets.map((t) => [targetKey(t), t]));
      const perCall = majestic ? MAJESTIC_ITEMS_PER_CALL : DFS_ITEMS_PER_CALL;
      const found = await answers.get<IndexItemInfo>(linkAccount, 'item', [...byKey.keys()], perCall, async (keys) => {
        const batch = keys.map((k) => byKey.get(k)!);
        if (majestic) return linkCall(() => majestic.itemInfo(batch));
        // One target: the summary endpoint, which answers more of the figures than a bulk row.
        if (batch.length === 1) return [await linkCall(() => dfs!.itemInfo(batch[0]))];
        return (await linkCall(() => dfs!.bulkSummaries(batch))).map((s) => s?.info ?? null);
      });
      return targets.map((t) => found.get(targetKey(t)) ?? null);
    },

    async authority(urls) {
      const byKey = new Map(urls.map((t) => [targetKey(t), t]));
      const perCall = moz ? MOZ_TARGETS_PER_CALL : DFS_AUTHORITY_PER_CALL;
      const found = await answers.get<AuthorityFigures>(authorityAccount, 'authority', [...byKey.keys()], perCall, (keys) => {
        const batch = keys.map((k) => byKey.get(k)!);
        if (moz) return authoritySpend(config.mozRowCost * batch.length, () => moz.authority(batch.map((t) => t.name)));
        return authoritySpend(config.backlinksCost, () => dfs!.authority(batch));
      });
      return urls.map((t) => found.get(targetKey(t)) ?? null);
    },

    backlinks(target, source, perDomain, offset, limit) {
      const kind: AnswerKind = source === 0 ? 'backlinks' : 'backlinks-recent';
      const key = `${targetKey(target)}|${source}|${perDomain ? 1 : 0}|${offset}|${limit}`;
      return one(kind, key, () => {
        if (majestic) return majestic.backlinks(target, source, perDomain, offset, limit);
        if (offset > DFS_MAX_OFFSET) {
          // Past 20,000 DataForSEO pages only by its search_after_token (exports walk it); a page read cannot jump there.
          throw new SourceError('dataforseo', 'unavailable', `dataforseo: backlink pages past offset ${DFS_MAX_OFFSET} are reached only by an export`);
        }
        return dfs!.backlinks(target, source, perDomain, { offset, token: null }, limit);
      });
    },

    async exportPage(target, perDomain, cursor, limit) {
      if (majestic) {
        const count = Math.min(limit, MAJESTIC_MAX_BACKLINKS);
        const page = await linkCall(() => majestic.backlinks(target, 0, perDomain, cursor.offset, count));
        const read = page.rows ?? page.links.length;
        const offset = cursor.offset + read;
        // A short page is the list's end, as is the total Majestic says it has.
        const more = read === count && (page.total === null || offset < page.total);
        return { ...page, next: more ? { offset, token: null } : null };
      }
      const count = Math.min(limit, DFS_BACKLINKS_PER_CALL);
      const page = await linkCall(() => dfs!.backlinks(target, 0, perDomain, cursor, count));
      const read = page.rows ?? page.links.length;
      const offset = cursor.offset + read;
      const more = read === count && (page.total === null || offset < page.total);
      // Past 20,000 only DataForSEO's search_after_token goes on; without one the walk ends there (docs/decisions.md).
      const next = !more ? null : page.next !== null ? { offset, token: page.next } : offset <= DFS_MAX_OFFSET ? { offset, token: null } : null;
      return { total: page.total, links: page.links, rows: page.rows, next };
    },

    refDomains: (target, count) =>
      one('refdomains', `${targetKey(target)}|${count}`, () => (majestic ? majestic.refDomains(target, count) : dfs!.refDomains(target, count))),
    anchors: (target, count) =>
      one('anchors', `${targetKey(target)}|${count}`, () => (majestic ? majestic.anchors(target, count) : dfs!.anchors(target, count))),
    calendar: (target, days) =>
      one('calendar', `${targetKey(target)}|${days}|${today()}`, () => (majestic ? majestic.calendar(target, days) : dfs!.calendar(target, days))),
    topPages: (target, count) =>
      one('toppages', `${targetKey(target)}|${count}`, () => (majestic ? majestic.topPages(target, count) : dfs!.topPages(target, count))),

    async history(target, since) {
      // Majestic's history counts new domains per month, not the totals the overview shows (majestic.ts).
      if (majestic) return [];
      return one('history', `${target.rootDomain}|${since}`, () => dfs!.history(target, since));
    },

    competitors: async (domain, locationCode, languageCode, count) => (labs ? labs(domain, locationCode, languageCode, count) : null),
    rankOverview: async (domain, locationCode, languageCode) => (rankOverview ? rankOverview(domain, locationCode, languageCode) : null),
  };
}

/** Organic competitors of a domain in a market: the domain, Labs' location code and language code, how many. */
export type CompetitorsOf = (domain: string, locationCode: number, languageCode: string, count: number) => Promise<CompetitorRow[]>;

/**
 * Organic competitors from DataForSEO Labs (`competitors_domain`), bought once for everyone,
 * whatever the link index: null without DataForSEO credentials. Its own ledger account,
 * `dataforseo-labs`, with the link budget's amount.
 */
export function createLabsCompetitors(config: SourcesConfig, deps: LinkDataDependencies): CompetitorsOf | null {
  if (!config.dataforseo) return null;
  const answers = new ProviderAnswers(deps.state, deps.clock, { leaseMs: leaseFor(config.limits) });
  const http: ProviderHttpOptions = { ...config.limits, sleep: deps.sleep };
  const dfs = new DataForSeoBacklinksClient({ ...config.dataforseo, http, estimate: config.backlinksCost, today: () => dayOf(deps.clock.now()) });
  const spend = budgetedSpend(deps.ledger, 'dataforseo-labs', config.linkDailyBudget, deps.clock);
  return async (domain, locationCode, languageCode, count) => {
    const key = `${domain}|${locationCode}|${languageCode}|${count}`;
    const found = await answers.get<CompetitorRow[]>('dataforseo-labs', 'competitors', [key], 1, async () => [
      await spend(config.backlinksCost, () => dfs.competitors(domain, locationCode, languageCode, count)),
    ]);
    return found.get(key) ?? [];
  };
}

/** A domain's organic ranking statistics in a market: the domain, Labs' location code and language code. */
export type RankOverviewOf = (domain: string, locationCode: number, languageCode: string) => Promise<RankOverview | null>;

/**
 * Organic ranking statistics from DataForSEO Labs (`domain_rank_overview`), bought once for
 * everyone (provider_answers kind `rank-overview`, a week), on the `dataforseo-labs` ledger
 * account as competitors; null without DataForSEO credentials.
 */
export function createLabsRankOverview(config: SourcesConfig, deps: LinkDataDependencies): RankOverviewOf | null {
  if (!config.dataforseo) return null;
  const { timeoutMs, retries, backoffMs } = config.limits;
  const leaseMs = timeoutMs * (retries + 1) + Math.min(30_000, backoffMs * 2 ** retries) * retries + 5_000;
  const answers = new ProviderAnswers(deps.state, deps.clock, { leaseMs });
  const http: ProviderHttpOptions = { ...config.limits, sleep: deps.sleep };
  const dfs = new DataForSeoBacklinksClient({ ...config.dataforseo, http, estimate: config.backlinksCost, today: () => dayOf(deps.clock.now()) });
  const spend = budgetedSpend(deps.ledger, 'dataforseo-labs', config.linkDailyBudget, deps.clock);
  return async (domain, locationCode, languageCode) => {
    const key = `${domain}|${locationCode}|${languageCode}`;
    const found = await answers.get<RankOverview>('dataforseo-labs', 'rank-overview', [key], 1, async () => [
      await spend(config.backlinksCost, () => dfs.rankOverview(domain, locationCode, languageCode)),
    ]);
    return found.get(key) ?? null;
  };
}
