/**
 * Backlink exports: suggest (free; records what may be exported for 24 h), create (pool
 * `links`: min(suggested cost, limit), charged once with the request), list (newest first,
 * with state, stats and progress). A worker writes the CSV (jobs/exportJobs.ts); a job that
 * fails for good is refunded, and an identical create is then no longer answered from cache.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import { BACKLINK_FIELDS, type Engine, type ResolvedTarget, type TargetType } from '../../engine/index.js';
import { errors } from '../../lib/errors.js';
import type { CsvRecordSource } from '../../lib/csv.js';
import type { QuarryContext } from '../../context.js';
import type { UrlSigner } from '../../lib/signedUrl.js';
import type { PaidOperation } from '../../policy/accessPolicy.js';
import { EXPORT_JOB_KIND, exportJobHandler, exportJobStatus, openExportFiles, type ExportResult } from '../../jobs/exportJobs.js';
import type { Job } from '../../jobs/jobQueue.js';
import { PermanentJobError, type JobHandler } from '../../jobs/worker.js';
import { errorResponses, Ref } from '../common/schemas.js';
import {
  BackLinkExport,
  BackLinkExports,
  BackLinkExportSuggestionResponse,
  CreateExportBody,
  SuggestBody,
  type BackLinkExportBody,
  type ExportFilter,
  type BackLinkExportSuggestionResponseBody,
} from './schemas.js';
import { newId } from '../../lib/ids.js';
import { createLinkData } from '../../engine/sources/links/linkData.js';
import { ProviderLedger } from '../../engine/sources/providerLedger.js';
import { ExportPages } from '../../store/exportPages.js';
import { checkProviderFilter, collectFromProvider, PROVIDER_EXPORT_PAGE_ROWS, providerExportSuggestions } from './providerExport.js';

const SUGGESTION_LOOKUP = 'export-suggestion';
/** Export jobs per page of GET /link-tool/exports (all jobs are reachable page by page). */
export const EXPORTS_PER_PAGE = 1000;

interface Suggestion {
  url: string;
  type: TargetType;
  backLinks: number;
  cost: number;
}

/** What an export job carries from creation to the worker. */
export interface ExportPayload {
  request: { url: string; type: TargetType; limit: number; filter: ExportFilter };
  cost: number;
  costPrediction: number;
  chargedAtMs: number;
  /** Links of the target matching the filter when the export was created, and of those still live. */
  matching: number;
  live: number;
  unfiltered: number;
}

/** The columns of an export CSV: the fields of a backlink as GET /link-tool/links shows it, in its order. */
export const EXPORT_COLUMNS = BACKLINK_FIELDS;

const suggestionKey = (url: string) => url.trim().toLowerCase();

/** The export job object (contract, reference `BackLinkExport`). */
export function presentExportJob(job: Job<ExportPayload, ExportResult>, signer: UrlSigner, nowMs: number): BackLinkExportBody {
  const status = exportJobStatus(job, signer, nowMs);
  const p = job.payload;
  const written = job.result?.rows ?? 0;
  // Enrichment reads the local link index: no remote calls are made, so rpcCalls stay 0.
  const enrichment = { requests: written, rpcCalls: 0, rpcGoodResult: 0, goodResult: written, successRate: written > 0 ? 1 : 0 };
  return {
    _id: job.id,
    creator: job.accountId,
    jobName: `${p.request.type} ${p.request.url}`,
    state: status.state,
    error: status.error,
    request: p.request,
    stats: {
      fresh: p.live,
      historic: p.matching - p.live,
      duplicates: 0,
      filtered: p.unfiltered - p.matching,
      topRank: enrichment,
      social: enrichment,
      // The contract's name of the same figures.
      fb: enrichment,
    },
    progress: status.progress,
    backLinks: job.state === 'completed' || job.state === 'expired' ? written : Math.min(p.matching, p.request.limit),
    cost: p.cost,
    costPrediction: p.costPrediction,
    createdAt: status.createdAt,
    completedAt: status.completedAt,
    ...(status.downloadURL ? { downloadURL: status.downloadURL } : {}),
  };
}

function resolveExport(engine: Engine, url: string, type: TargetType): ResolvedTarget {
  const target = engine.links.resolve(url, type);
  if (!target) throw errors.invalidParameter('url');
  return target;
}

export async function exportRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { engine, jobs, signer, clock, sources } = app.quarry;

  app.post(
    '/exports/suggest',
    {
      // Free, but it records lookups: one of the account's bulk slots (fair use).
      config: { fairUse: 'bulk' },
      schema: {
        tags: ['link-tool'],
        summary: 'Export targets for a URL (root domain, subdomain, exact URL, protocol variants) with backlink counts and cost',
        body: SuggestBody,
        response: { 200: Ref(BackLinkExportSuggestionResponse), ...errorResponses(401, 422) },
      },
    },
    async (req): Promise<BackLinkExportSuggestionResponseBody> => {
      const { url } = req.body;
      // Real mode: the provider's targets and counts (each bought once for everyone), never the sandbox's.
      const found = sources.linkData ? await providerExportSuggestions(sources.linkData, url.trim()) : engine.links.exportSuggestions(url.trim());
      if (!found) throw errors.invalidParameter('url');
      const suggestions = found.suggestions.map((s) => ({ ...s, cost: s.backLinks, state: 'available' as const }));
      await app.quarry.policy.recordLookups(
        req.account!.id,
        suggestions.map((s) => ({
          kind: SUGGESTION_LOOKUP,
          key: suggestionKey(s.url),
          data: { url: s.url, type: s.type, backLinks: s.backLinks, cost: s.cost } satisfies Suggestion,
        })),
        clock.now(),
      );
      return { suggestedType: found.suggestedType, suggestions };
    },
  );

  const suggestionFor = async (lookup: (kind: string, key: string) => Promise<unknown>, url: string): Promise<Suggestion> => {
    const s = (await lookup(SUGGESTION_LOOKUP, suggestionKey(url))) as Suggestion | undefined;
    // Exports need a suggestion for the same url within 24 hours (link-tool rule 3).
    if (!s) throw errors.invalidParameter('url');
    return s;
  };
  const create: PaidOperation<Static<typeof CreateExportBody>> = {
    pool: 'links',
    cost: async (b, ctx) => {
      const s = await suggestionFor(ctx.lookupData, b.url);
      return b.limit === undefined ? s.cost : Math.min(s.cost, b.limit);
    },
    // A repeat answers the job it created then, unless that job failed for good: its charge
    // was refunded, so the repeat creates a new job and is charged again.
    cachedAnswerHolds: async (body) => (await jobs.byId((body as { _id: string })._id))?.state !== 'failed',
  };

  app.post(
    '/exports',
    {
      config: { paid: create },
      schema: {
        tags: ['link-tool'],
        summary: 'Create a backlink CSV export (needs a suggestion for the url; charged min(suggested cost, limit))',
        body: CreateExportBody,
        response: { 200: Ref(BackLinkExport), ...errorResponses(401, 422, 429) },
      },
    },
    async (req, reply) => {
      const b = req.body;
      const accountId = req.account!.id;
      // Fair use: a few exports per account at a time. Refused here, the request is released
      // (no charge, no burst slot) and may be sent again once one has finished. The place is
      // taken for the job's id and counts until the job is stored and finished. A request that
      // ends without its 200 (refused, failed, client gone) gives it back: its job was not
      // stored, or if it was, the job counts as live by itself.
      const jobId = newId();
      const releasePlace = await app.quarry.fairUse.exports.take(accountId, jobId);
      reply.raw.once('close', () => {
        if (!(reply.raw.writableFinished && reply.statusCode === 200)) releasePlace();
      });
      const suggestion = await suggestionFor((kind, key) => app.quarry.policy.lookupData(accountId, kind, key), b.url);
      const filter: ExportFilter = { ...(b.filter ?? {}) };
      const cost = req.paid!.reserved;
      const request = { url: suggestion.url, type: suggestion.type, limit: cost, filter };
      const charged = { cost, costPrediction: suggestion.cost, chargedAtMs: req.paid!.nowMs };
      let payload: ExportPayload;
      if (sources.linkData) {
        // Real mode: the provider's count is all that is known before the worker reads its list.
        checkProviderFilter(filter);
        payload = { request, ...charged, matching: suggestion.backLinks, live: suggestion.backLinks, unfiltered: suggestion.backLinks };
      } else {
        const target = resolveExport(engine, suggestion.url, suggestion.type);
        const matching = engine.links.countBacklinks(target, filter);
        payload = {
          request,
          ...charged,
          matching,
          live: filter.liveLinks === false ? 0 : engine.links.countBacklinks(target, { ...filter, liveLinks: true }),
          unfiltered: engine.links.countBacklinks(target, {}),
        };
      }
      // The job is stored with the charge and the cached answer, in one transaction: a crash
      // before it leaves neither a charge without a job nor a job an identical retry cannot find.
      const job = jobs.draft(EXPORT_JOB_KIND, accountId, payload, { id: jobId });
      req.paid!.onCommit(jobs.insertWrite(job));
      return presentExportJob(job as Job<ExportPayload, ExportResult>, signer, clock.now());
    },
  );

  app.get(
    '/exports',
    {
      schema: {
        tags: ['link-tool'],
        summary: `Export jobs, newest first, with state, progress and downloadURL; ${EXPORTS_PER_PAGE} per page (\`page\` from 0), the header x-next-page names the next`,
        querystring: Type.Object({ page: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0 })) }),
        response: { 200: BackLinkExports, ...errorResponses(401, 422) },
      },
    },
    async (req, reply) => {
      const { page = 0 } = req.query as { page?: number };
      // One more than a page tells whether another page follows.
      const list = await jobs.list(req.account!.id, { kind: EXPORT_JOB_KIND, limit: EXPORTS_PER_PAGE + 1, offset: page * EXPORTS_PER_PAGE });
      if (list.length > EXPORTS_PER_PAGE) reply.header('x-next-page', String(page + 1));
      const now = clock.now();
      return list.slice(0, EXPORTS_PER_PAGE).map((job) => presentExportJob(job as Job<ExportPayload, ExportResult>, signer, now));
    },
  );
}

export interface ExportHandlerOptions {
  /** Rows asked of the link-index provider per page in real mode (default PROVIDER_EXPORT_PAGE_ROWS). */
  providerPageRows?: number;
  /** Rows written between progress reports (default 10,000, exportJobs.ts). */
  progressEvery?: number;
}

/**
 * The worker's handler of backlink exports: streams the matching links into the CSV; in real
 * mode (a link-index provider configured) pages through the provider's list first, resumably
 * (providerExport.ts).
 */
export function exportHandler(
  ctx: Pick<QuarryContext, 'engine' | 'config' | 'policy' | 'clock' | 'state'>,
  options: ExportHandlerOptions = {},
): JobHandler<ExportPayload, ExportResult> {
  const linkData = createLinkData(ctx.config.sources, { state: ctx.state.db, clock: ctx.clock, ledger: new ProviderLedger(ctx.state.db) });
  const pages = new ExportPages(ctx.state.db);
  return exportJobHandler<ExportPayload>({
    files: openExportFiles(ctx.state, ctx.config.dataDir),
    columns: [...EXPORT_COLUMNS],
    progressEvery: options.progressEvery,
    // The stored pages are in the CSV now.
    written: linkData ? (job) => pages.remove(job.id) : undefined,
    collect(payload, job) {
      if (linkData) return collectFromProvider(payload, job, { data: linkData, pages, pageRows: options.providerPageRows ?? PROVIDER_EXPORT_PAGE_ROWS });
      // The scan spans many turns of the event loop (the file's writes): it runs on a
      // connection of its own, so lookups answered in between use the shared one freely.
      const reader = ctx.engine.openLinksReader();
      let rows: CsvRecordSource | undefined;
      const close = () => {
        rows?.close();
        reader.close();
      };
      // Aborted before the rows are read (lease lost, shutdown), the writer never closes them.
      job.signal.addEventListener('abort', close, { once: true });
      try {
        // A target that does not resolve will not resolve on a retry either: fail for good (and refund) at once.
        const target = reader.links.resolve(payload.request.url, payload.request.type);
        if (!target) throw new PermanentJobError(`export target ${JSON.stringify(payload.request.url)} cannot be resolved`);
        const limit = payload.request.limit;
        // Link dates are judged as of the export's creation, so a re-run writes the same rows.
        const total = Math.min(limit, reader.links.countBacklinks(target, payload.request.filter, payload.chargedAtMs));
        rows = reader.links.backlinkCsv(target, payload.request.filter, limit, payload.chargedAtMs);
        return { total, rows: closing(rows, reader.close) };
      } catch (err) {
        close();
        throw err;
      }
    },
    async refund(job) {
      await ctx.policy.refund(job.accountId, 'links', job.payload.cost, job.payload.chargedAtMs);
    },
  });
}

/** The records of a source, then `close()` once the writer is done with them (read to the end or stopped). */
function closing(rows: CsvRecordSource, close: () => void): CsvRecordSource {
  let open = true;
  return {
    nextRecordBytes: () => rows.nextRecordBytes(),
    writeRecords: (into, at, maxRows) => rows.writeRecords(into, at, maxRows),
    get written() {
      return rows.written;
    },
    close() {
      rows.close();
      if (open) close();
      open = false;
    },
  };
}
