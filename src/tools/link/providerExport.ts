/**
 * Backlink exports in real mode (a link-index provider configured, issue 24): the export's
 * targets and counts are the provider's, and the worker pages through the provider's list
 * (Majestic GetBackLinkData `From`/`Count`; DataForSEO backlinks `offset`, then its
 * `search_after_token`), keeping each page in the state store with the cursor of the next
 * (store/exportPages.ts). A worker that dies or is stopped mid-export leaves the pages it
 * stored: the job's next attempt continues after the last one, buying no page twice and
 * writing every row once. The CSV is written from the stored pages once the list is read
 * (or the limit reached), then the pages are dropped.
 *
 * The export's filter is applied to each page as the provider gives it, over the figures it
 * gives: a bound on a figure the provider has not given (DataForSEO's flow metrics) is not
 * met. TopRank and link strength exist only in the sandbox's index: a filter on them is
 * refused (422) in real mode rather than answered with nothing.
 *
 * A provider failure (after its own retries, providerHttp.ts) fails the export for good: the
 * job's charge is refunded (the `refund` hook) and the provider's budget reservation too
 * (linkData.ts).
 */
import { errors } from '../../lib/errors.js';
import type { LinkData } from '../../engine/sources/links/linkData.js';
import { linkTarget, type ListCursor, type ProviderBacklink, type TargetType } from '../../engine/sources/links/linkTypes.js';
import { SourceError } from '../../engine/sources/types.js';
import type { ExportRows } from '../../jobs/exportJobs.js';
import type { JobContext } from '../../jobs/worker.js';
import { PermanentJobError } from '../../jobs/worker.js';
import { ExportPages } from '../../store/exportPages.js';
import { presentProviderBacklink } from './realLinks.js';
import type { BackLinkBody, ExportFilter } from './schemas.js';

/** Rows asked of the provider per page by default (Majestic answers up to 50,000 a call, DataForSEO 1,000). */
export const PROVIDER_EXPORT_PAGE_ROWS = 10_000;

/** What the export's job carries that the provider's walk needs. */
export interface ProviderExportRequest {
  request: { url: string; type: TargetType; limit: number; filter: ExportFilter };
}

/** The filter fields only the sandbox's index has figures for. */
const SANDBOX_ONLY: readonly (keyof ExportFilter)[] = ['minTopRank', 'maxTopRank', 'minLinkStrength', 'maxLinkStrength'];

/** Refuses (422) a filter on a figure no link-index provider gives. */
export function checkProviderFilter(filter: ExportFilter): void {
  const field = SANDBOX_ONLY.find((f) => filter[f] !== undefined);
  if (field) throw errors.invalidParameter(`filter.${field}`);
}

/** The export targets of a URL with the provider's link counts: root domain, subdomain, the URL and its other protocol. */
export async function providerExportSuggestions(
  data: LinkData,
  url: string,
): Promise<{ suggestedType: TargetType; suggestions: { url: string; type: TargetType; refDomains: number; backLinks: number }[] } | null> {
  const asked = linkTarget(url);
  if (!asked) return null;
  const candidates = [linkTarget(asked.rootDomain, 'RootDomain')!];
  if (asked.host !== asked.rootDomain) candidates.push(linkTarget(asked.host, 'SubDomain')!);
  if (asked.type === 'URL') {
    const https = asked.name.replace(/^http:/, 'https:');
    const other = asked.name === https ? https.replace(/^https:/, 'http:') : https;
    candidates.push(asked, { ...asked, name: other });
  }
  const infos = await data.itemInfo(candidates);
  return {
    suggestedType: asked.type,
    // A count the provider does not have is no links to export (and no cost).
    suggestions: candidates.map((c, i) => ({ url: c.name, type: c.type, refDomains: infos[i]?.RefDomains ?? 0, backLinks: infos[i]?.ExtBackLinks ?? 0 })),
  };
}

const within = (value: number | null, min?: number, max?: number) =>
  (min === undefined || (value !== null && value >= min)) && (max === undefined || (value !== null && value <= max));

/** Whether a provider's backlink passes the export's filter (the sandbox's semantics, over the provider's figures). */
export function matchesFilter(link: ProviderBacklink, filter: ExportFilter): boolean {
  if (filter.targetAnchorText && !link.anchor.toLowerCase().includes(filter.targetAnchorText.toLowerCase())) return false;
  if (filter.targetHrefText && !link.targetUrl.toLowerCase().includes(filter.targetHrefText.toLowerCase())) return false;
  if (filter.linkType && link.type !== filter.linkType) return false;
  if (filter.noFollow !== undefined && link.nofollow !== filter.noFollow) return false;
  if (filter.liveLinks && link.deleted) return false;
  if (!within(link.sourceCitationFlow, filter.minCitationFlow, filter.maxCitationFlow)) return false;
  if (!within(link.sourceTrustFlow, filter.minTrustFlow, filter.maxTrustFlow)) return false;
  const flags = (['text', 'image', 'frame', 'redirect', 'mention'] as const).filter(
    (t) => filter[`flag${t[0].toUpperCase()}${t.slice(1)}Link` as keyof ExportFilter] === true,
  );
  return flags.length === 0 || flags.includes(link.type);
}

export interface ProviderCollectOptions {
  data: LinkData;
  pages: ExportPages;
  /** Rows asked of the provider per page. */
  pageRows: number;
}

/**
 * The collecting stage of a real export: pages through the provider from where the job's
 * stored pages end, storing each, with progress (rows collected of the rows expected); then
 * the rows of the stored pages, for the CSV.
 */
export async function collectFromProvider(payload: ProviderExportRequest, ctx: JobContext, options: ProviderCollectOptions): Promise<ExportRows> {
  const { data, pages, pageRows } = options;
  const { url, type, limit, filter } = payload.request;
  const target = linkTarget(url, type);
  if (!target) throw new PermanentJobError(`export target ${JSON.stringify(url)} cannot be resolved`);
  const jobId = ctx.job.id;
  let at = await pages.resumePoint<ListCursor>(jobId);
  // Before the first page the walk starts at the list's head; after the last (next null) it is over.
  let cursor: ListCursor | null = at.page === 0 ? { offset: 0, token: null } : at.next;
  const expected = () => Math.min(limit, at.total ?? limit);
  await ctx.progress(at.rows, at.page === 0 ? null : expected());
  while (cursor !== null && at.rows < limit) {
    ctx.signal.throwIfAborted();
    let page;
    try {
      page = await data.exportPage(target, filter.linksPerDomain === 1, cursor, pageRows);
    } catch (err) {
      // The provider failed after its own retries: the export fails for good and is refunded.
      if (err instanceof SourceError) throw new PermanentJobError(err.message);
      throw err;
    }
    ctx.signal.throwIfAborted();
    const rows: BackLinkBody[] = page.links.filter((l) => matchesFilter(l, filter)).map(presentProviderBacklink);
    const kept = rows.slice(0, limit - at.rows);
    // The limit reached inside this page ends the walk as surely as the list's end.
    const next = kept.length < rows.length ? null : page.next;
    await pages.put(jobId, at.page, kept, next, page.total);
    // Re-read rather than assume: an attempt that lost its lease may have stored this page first.
    at = await pages.resumePoint<ListCursor>(jobId);
    cursor = at.next;
    await ctx.progress(at.rows, expected());
  }
  return { total: at.rows, rows: pages.rows<BackLinkBody>(jobId) };
}
