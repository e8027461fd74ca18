/**
 * Majestic's JSON API (https://developer-support.majestic.com/api/): one GET of
 * `/api/json?app_api_key=…&cmd=<Command>&…` per command, answering
 * `{ "Code": "OK", "ErrorMessage": "", "DataTables": { "<Table>": { "Headers": {…}, "Data": [ {…} ] } } }`.
 * Majestic's own figures are the contract's `linkindex` fields, so they come through under
 * their own names and values (counters it sends as strings stay strings, −1 becomes 0 as
 * the reference's notes say).
 *
 * Commands used (all on the Fresh Index, `datasource=fresh`, the one Majestic recommends
 * for flow metrics):
 * - GetIndexItemInfo (`Results`): the item info of up to 100 items a call;
 * - GetBackLinkData (`BackLinks`): a target's backlinks, `From`/`Count` paging (Count at most
 *   50,000), `Mode=0` with deleted links, `MaxSourceURLsPerRefDomain=1` for one link per
 *   referring domain; new and lost lists with Majestic's filtering
 *   (`ConsumeResourcesForAdditionalProcessing=1`, `Filters=FirstSeen("gt","<date>")` or
 *   `DateDeleted("gt","<date>")`);
 * - GetRefDomains (`Results`), GetAnchorText (`AnchorText`), GetTopPages and the new/lost
 *   calendar (GetNewLostBackLinkCalendar): where the documentation names no table, the
 *   answer's only table is read.
 *
 * Majestic's GetBackLinksHistory counts each month's links and *new* referring domains, not
 * the month's totals the overview's `linkindexHistory` holds, so it is not used: with
 * Majestic that history stays empty (docs/decisions.md).
 *
 * Errors: HTTP 200 with a `Code` other than "OK" (InvalidAPIKey, an exhausted resource…)
 * is final; an HTTP 429, a 5xx, or a Code saying the service is busy are retried with
 * backoff (providerHttp.ts).
 */
import { exchange, type ProviderHttpOptions, type Verdict } from '../providerHttp.js';
import { list, record, text } from '../fetchedSerp.js';
import type { LinkIndexMetrics } from '../../links/backlinkTypes.js';
import {
  ITEM_TYPE,
  type AnchorRow,
  type BacklinkPage,
  type Bought,
  type CalendarRow,
  type IndexItemInfo,
  type LinkListSource,
  type LinkTarget,
  type ProviderBacklink,
  type RefDomainRow,
  type TopPageRow,
} from './linkTypes.js';

export interface MajesticOptions {
  apiKey: string;
  /** Default https://api.majestic.com */
  baseUrl: string;
  http: ProviderHttpOptions;
  /** Dollars one command costs against the daily budget (Majestic bills units of a subscription, not dollars: an estimate). */
  costPerCall: number;
  /** Today (YYYY-MM-DD), for the new and lost windows. */
  today: () => string;
}

/** Items one GetIndexItemInfo takes (Majestic's limit). */
export const MAJESTIC_ITEMS_PER_CALL = 100;
/** Rows one GetBackLinkData answers at most (Majestic's limit). */
export const MAJESTIC_MAX_BACKLINKS = 50_000;

/** Codes that say "try again later" rather than "this request is wrong". */
const BUSY = /busy|timeout|tryagain|toomany|ratelimit|internal/i;

type Table = { headers: Record<string, unknown>; rows: Record<string, unknown>[] };

/** A Majestic answer's tables by name, or why not. */
export function readMajestic(status: number, body: unknown): Verdict<Map<string, Table>> {
  const b = record(body);
  const code = text(b.Code);
  const message = text(b.ErrorMessage) ?? text(b.FullError) ?? code ?? `HTTP ${status}`;
  if (status === 429) return { ok: false, retry: 'rate-limited', message };
  if (status >= 500) return { ok: false, retry: 'failed', message };
  if (status !== 200) return { ok: false, retry: false, message };
  if (code === null) return { ok: false, retry: 'failed', message: 'the answer is not Majestic JSON' };
  if (code !== 'OK') return { ok: false, retry: BUSY.test(code) ? 'rate-limited' : false, message: `${code}: ${message}` };
  const tables = new Map<string, Table>();
  for (const [name, t] of Object.entries(record(b.DataTables))) {
    tables.set(name, { headers: record(record(t).Headers), rows: list(record(t).Data).map(record) });
  }
  return { ok: true, value: tables };
}

/** A table by its documented name, else the answer's only table. */
function tableOf(tables: Map<string, Table>, name: string | null): Table {
  const named = name === null ? undefined : tables.get(name);
  if (named) return named;
  if (tables.size === 1) return [...tables.values()][0];
  return { headers: {}, rows: [] };
}

const num = (v: unknown): number | null => {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v.trim()) ? Number(v) : NaN;
  if (!Number.isFinite(n)) return null;
  // The reference's notes: link-index values of −1 upstream are reported as 0.
  return n < 0 ? 0 : n;
};
/** A counter Majestic sends as a string stays a string (the contract's type), a number becomes its decimal text. */
const countText = (v: unknown): string | null => (typeof v === 'string' ? (/^-1$/.test(v.trim()) ? '0' : v) : num(v) === null ? null : String(num(v)));
const flag = (v: unknown): boolean => v === 1 || v === true || v === '1' || (typeof v === 'string' && v.toLowerCase() === 'true');
const day = (v: unknown): string | null => {
  const t = text(v);
  return t !== null && /^\d{4}-\d{2}-\d{2}/.test(t) ? t.slice(0, 10) : null;
};

const NUMBER_FIELDS = [
  'ExtBackLinks',
  'RefDomains',
  'ACRank',
  'RefIPs',
  'RefSubNets',
  'CitationFlow',
  'TrustFlow',
  'TrustMetric',
  'IndexedURLs',
  'RefDomainsEDU',
  'ExtBackLinksEDU',
  'RefDomainsGOV',
  'ExtBackLinksGOV',
  'RefDomainsEDU_Exact',
  'ExtBackLinksEDU_Exact',
  'RefDomainsGOV_Exact',
  'ExtBackLinksGOV_Exact',
] as const satisfies readonly (keyof LinkIndexMetrics)[];
const STRING_FIELDS = [
  'NonUniqueLinkTypeHomepages',
  'NonUniqueLinkTypeIndirect',
  'NonUniqueLinkTypeDeleted',
  'NonUniqueLinkTypeNoFollow',
  'NonUniqueLinkTypeProtocolHTTPS',
  'NonUniqueLinkTypeFrame',
  'NonUniqueLinkTypeImageLink',
  'NonUniqueLinkTypeRedirect',
  'NonUniqueLinkTypeTextLink',
  'TotalNonUniqueLinks',
  'OutLinksInternal',
  'OutLinksExternal',
  'OutDomainsExternal',
] as const satisfies readonly (keyof LinkIndexMetrics)[];
/** Every figure of an index item's metrics, by Majestic's names (an unknown item carries each as null). */
export const LINK_INDEX_FIELDS = [...NUMBER_FIELDS, ...STRING_FIELDS] as const;

/** One GetIndexItemInfo row as the contract's item info, under Majestic's names. */
export function itemInfoOf(row: Record<string, unknown>, target: LinkTarget): IndexItemInfo {
  const out: Record<string, unknown> = { Status: text(row.Status) ?? 'NotFound', ItemType: num(row.ItemType) ?? ITEM_TYPE[target.type] };
  for (const f of NUMBER_FIELDS) out[f] = num(row[f]);
  for (const f of STRING_FIELDS) out[f] = countText(row[f]);
  return out as IndexItemInfo;
}

/** One GetBackLinkData row as a backlink. */
export function backlinkOf(r: Record<string, unknown>): ProviderBacklink | null {
  const sourceUrl = text(r.SourceURL);
  const targetUrl = text(r.TargetURL);
  if (sourceUrl === null || targetUrl === null) return null;
  const image = flag(r.FlagImages);
  const redirect = flag(r.FlagRedirect);
  const frame = flag(r.FlagFrame);
  const mention = flag(r.FlagMention);
  const deleted = flag(r.FlagDeleted);
  return {
    sourceUrl,
    targetUrl,
    title: text(r.SourceTitle),
    anchor: typeof r.AnchorText === 'string' ? r.AnchorText : '',
    type: redirect ? 'redirect' : frame ? 'frame' : image ? 'image' : mention ? 'mention' : 'text',
    alt: flag(r.FlagAltText),
    nofollow: flag(r.FlagNoFollow),
    image,
    redirect,
    frame,
    deleted,
    firstSeen: day(r.FirstIndexedDate),
    lastSeen: day(r.LastSeenDate),
    lostOn: deleted ? day(r.DateLost) : null,
    reasonLost: text(r.ReasonLost),
    sourceCitationFlow: num(r.SourceCitationFlow),
    sourceTrustFlow: num(r.SourceTrustFlow),
    targetCitationFlow: num(r.TargetCitationFlow),
    targetTrustFlow: num(r.TargetTrustFlow),
    lang: text(r.SourceLanguage),
    internalLinks: num(r.SourceOutLinksInternal),
    externalLinks: num(r.SourceOutLinksExternal),
  };
}

const daysBefore = (today: string, days: number) => new Date(Date.parse(`${today}T00:00:00Z`) - days * 86_400_000).toISOString().slice(0, 10);

/** Majestic as a link index: each method one command, with its price. */
export class MajesticClient {
  readonly name = 'majestic' as const;
  readonly itemsPerCall = MAJESTIC_ITEMS_PER_CALL;

  constructor(private readonly options: MajesticOptions) {}

  private async command(cmd: string, params: Record<string, string | number>): Promise<Map<string, Table>> {
    const query = new URLSearchParams({ app_api_key: this.options.apiKey, cmd, datasource: 'fresh' });
    for (const [k, v] of Object.entries(params)) query.set(k, String(v));
    const url = `${this.options.baseUrl.replace(/\/+$/, '')}/api/json?${query.toString()}`;
    return exchange('majestic', { url, method: 'GET', headers: { accept: 'application/json' } }, this.options.http, readMajestic);
  }

  private bought<T>(value: T): Bought<T> {
    return { value, cost: this.options.costPerCall };
  }

  /** The item info of up to 100 targets, in their order (null for one Majestic answered no row for). */
  async itemInfo(targets: readonly LinkTarget[]): Promise<Bought<(IndexItemInfo | null)[]>> {
    if (targets.length > MAJESTIC_ITEMS_PER_CALL) throw new Error(`GetIndexItemInfo takes at most ${MAJESTIC_ITEMS_PER_CALL} items`);
    const params: Record<string, string | number> = { items: targets.length };
    targets.forEach((t, i) => (params[`item${i}`] = t.name));
    const rows = tableOf(await this.command('GetIndexItemInfo', params), 'Results').rows;
    const byNum = new Map(rows.map((r) => [num(r.ItemNum), r]));
    return this.bought(targets.map((t, i) => (byNum.has(i) ? itemInfoOf(byNum.get(i)!, t) : null)));
  }

  /** A page of a target's backlinks: all (with deleted ones), new in the last 30 days, or lost in the last 90. */
  async backlinks(target: LinkTarget, source: LinkListSource, perDomain: boolean, from: number, count: number): Promise<Bought<BacklinkPage>> {
    const params: Record<string, string | number> = { item: target.name, From: from, Count: Math.min(count, MAJESTIC_MAX_BACKLINKS), Mode: 0 };
    if (perDomain) params.MaxSourceURLsPerRefDomain = 1;
    if (source !== 0) {
      const today = this.options.today();
      params.ConsumeResourcesForAdditionalProcessing = 1;
      params.Filters = source === 1 ? `FirstSeen("gt","${daysBefore(today, 31)}")` : `DateDeleted("gt","${daysBefore(today, 91)}")`;
    }
    const table = tableOf(await this.command('GetBackLinkData', params), 'BackLinks');
    const total = num(table.headers.AvailableLines) ?? num(table.headers.TotalBackLinks);
    const links = table.rows.map(backlinkOf).filter((l): l is ProviderBacklink => l !== null);
    return this.bought({ total, links, rows: table.rows.length });
  }

  /** The referring domains with the most links to the target (`matchedLinks` ← MatchedLinks). */
  async refDomains(target: LinkTarget, count: number): Promise<Bought<RefDomainRow[]>> {
    const table = tableOf(await this.command('GetRefDomains', { item0: target.name, Count: count, OrderBy1: 0 }), 'Results');
    return this.bought(
      table.rows
        .map((r) => ({ domain: text(r.Domain) ?? '', matchedLinks: num(r.MatchedLinks), citationFlow: num(r.CitationFlow), trustFlow: num(r.TrustFlow) }))
        .filter((r) => r.domain !== ''),
    );
  }

  /** The anchors used by the most referring domains (GetAnchorText's own column names). */
  async anchors(target: LinkTarget, count: number): Promise<Bought<AnchorRow[]>> {
    const table = tableOf(await this.command('GetAnchorText', { item: target.name, Count: count }), 'AnchorText');
    return this.bought(
      table.rows.map((r) => ({
        anchorText: typeof r.AnchorText === 'string' ? r.AnchorText : '',
        refDomains: num(r.RefDomains),
        totalLinks: num(r.TotalLinks),
        noFollowLinks: num(r.NoFollowLinks),
        deletedLinks: num(r.DeletedLinks),
        citationFlow: num(r.CitationFlow),
      })),
    );
  }

  /** New and lost links per day (the new/lost calendar) over the last `days` days. */
  async calendar(target: LinkTarget, days: number): Promise<Bought<CalendarRow[]>> {
    const today = this.options.today();
    const table = tableOf(await this.command('GetNewLostBackLinkCalendar', { item: target.name, DateFrom: daysBefore(today, days - 1), DateTo: today }), null);
    return this.bought(
      table.rows.map((r) => ({ Date: day(r.Date) ?? '', NewLinks: num(r.NewLinks) ?? 0, LostLinks: num(r.LostLinks) ?? 0 })).filter((r) => r.Date !== ''),
    );
  }

  /** The pages of a domain or host with the most links (GetTopPages). */
  async topPages(target: LinkTarget, count: number): Promise<Bought<TopPageRow[]>> {
    const table = tableOf(await this.command('GetTopPages', { Query: target.name, Count: count }), 'Matches');
    return this.bought(
      table.rows
        .map((r) => ({
          url: text(r.URL) ?? text(r.Url) ?? '',
          citationFlow: num(r.CitationFlow),
          trustFlow: num(r.TrustFlow),
          refDomains: num(r.RefDomains),
          extBackLinks: num(r.ExtBackLinks),
          title: text(r.Title),
        }))
        .filter((r) => r.url !== ''),
    );
  }
}
