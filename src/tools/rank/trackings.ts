/**
 * Rank trackings: create (201; several locations × platforms at once), list, detail, change
 * (domain and local-SEO settings), soft delete and stats. Another account's tracking is as
 * unknown as one that never existed (404). The detail, the stats and a tracked keyword's
 * detail also answer without an API key to whoever holds the tracking's share token. All
 * free: trackings count against the plan's tracked-keywords limit.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Account } from '../../accounts/accounts.js';
import { errors } from '../../lib/errors.js';
import { unixSeconds } from '../../lib/clock.js';
import { trackingStats } from '../../rank/rankStats.js';
import { rankServices } from '../../rank/rankService.js';
import { StorageQuotaError, TrackedKeywordLimitError, TrackingConflictError, type TrackingConfig, type TrackingRow } from '../../store/rankTracking.js';
import { emptyResponse, errorResponses, Ref } from '../common/schemas.js';
import { requireLocation } from '../common/params.js';
import { presentAnnotation, presentNewKeyword, presentReport, presentTag, presentTracking, presentTrackedKeyword } from './presenters.js';
import {
  CreateTrackingBody,
  DetailQuery,
  GetTrackingDetailRes,
  GetTrackingStatsRes,
  MultipleTrackingsBody,
  StatsBody,
  StatsQuery,
  TrackingList,
  TrackingListQuery,
  TrackingParams,
  TrackingPost,
  TrackingUpdateResponse,
  UpdateTrackingBody,
  type TrackingJson,
} from './schemas.js';
import { keywordStrings, parseDateFilter, requireKeywords, requireTrackedDomain, statsTimeframe } from './trackingInput.js';
import { itemsSent } from '../common/fairUse.js';

/** Keywords checked right after they are added; more wait for the scheduler's next round (a minute). */
export const IMMEDIATE_CHECKS = 200;
/** Seconds one check takes on the sandbox web (bench/rank-tool.bench.ts), for the client's estimate. */
const SECONDS_PER_CHECK = 0.01;
const TAG = ['rank-tool'];

/**
 * Maps the store's refusals to the contract's 409 and 422. The storage quota answers like
 * the keyword lists' (422 `Error`, the type the contract gives a list-count limit).
 */
export function trackingError(err: unknown): never {
  if (err instanceof TrackingConflictError) throw errors.conflict(err.message);
  if (err instanceof TrackedKeywordLimitError) throw errors.outOfLimit(err.message);
  if (err instanceof StorageQuotaError) throw errors.listLimit(err.message);
  throw err;
}

/**
 * The tracking of the path: the account's (deleted ones only for reads that show them), or
 * without an account the one the share token opens; otherwise 404 (401 with neither key nor token).
 */
export async function requireTracking(
  app: FastifyInstance,
  account: Account | null | undefined,
  trackingId: string,
  opts: { withDeleted?: boolean; shareToken?: string } = {},
): Promise<TrackingRow> {
  const { store } = rankServices(app.quarry);
  let tracking: TrackingRow | undefined;
  if (account) tracking = await store.get(account.id, trackingId, opts);
  else if (opts.shareToken) tracking = await store.byShareToken(trackingId, opts.shareToken);
  else throw errors.auth();
  if (!tracking) throw errors.notFound('Tracking not found');
  return tracking;
}

/** What a create answers beside the tracking: estimate and how many keywords wait for the scheduler. */
export function processingOf(keywords: readonly { id: string }[]) {
  const immediate = keywords.slice(0, IMMEDIATE_CHECKS);
  const postponed = keywords.length - immediate.length;
  return {
    immediateIds: immediate.map((k) => k.id),
    estimatedTimeProcessing: Math.ceil(immediate.length * SECONDS_PER_CHECK),
    postponed_processing: postponed > 0,
    postponed_keywords: postponed,
  };
}

/** A tracking as answered, its keyword ids and report types read from the store. */
export async function trackingJson(app: FastifyInstance, tracking: TrackingRow): Promise<TrackingJson> {
  const { store } = rankServices(app.quarry);
  const types = await store.reportTypesByTracking([tracking.id]);
  return presentTracking(tracking, await store.keywordIdsOf(tracking.id), types.get(tracking.id) ?? [], app.quarry.locations);
}

export async function trackingRoutes(plain: FastifyInstance): Promise<void> {
  const app = plain.withTypeProvider<TypeBoxTypeProvider>();
  const { clock, locations, search, policy } = app.quarry;
  const { store, checks } = rankServices(app.quarry);

  async function create(
    account: Account,
    body: { domain: string; keywords: readonly (string | { keyword: string })[] },
    targets: { location: number; platform: number }[],
  ) {
    const domain = requireTrackedDomain(body.domain);
    for (const t of targets) requireLocation(locations, t.location, targets.length > 1 ? 'location_ids' : 'location_id');
    const kws = requireKeywords(body.keywords);
    const limit = policy.planOf(account).trackedKeywords;
    // Refused before any keyword is looked up; the store checks again with the account's current count.
    if (kws.length > limit) trackingError(new TrackedKeywordLimitError(limit, kws.length));
    const nowMs = clock.now();
    const created = await store
      .createTrackings(
        account.id,
        targets.map((t) => ({ domain, locationId: t.location, platformId: t.platform })),
        kws.map((kw) => ({ kw, sv: search.keywordItem(kw, targets[0].location, 0).sv })),
        { limit, nowSec: unixSeconds(nowMs), nowMs, email: account.email, skipExisting: targets.length > 1 },
      )
      .catch(trackingError);
    return created.map((c) => {
      const { immediateIds, ...processing } = processingOf(c.keywords);
      checks.checkSoon(immediateIds, nowMs);
      return {
        tracking: presentTracking(
          c.tracking,
          c.keywords.map((k) => k.id),
          c.reports.map((r) => r.type),
          locations,
        ),
        keywords: c.keywords.map(presentNewKeyword),
        reports: c.reports.map(presentReport),
        ...processing,
      };
    });
  }

  app.post(
    '/trackings',
    {
      config: { fairUse: itemsSent },
      schema: {
        tags: TAG,
        summary: 'Track a domain’s positions for keywords in a location on a platform',
        description: 'Checks the keywords at once (up to 200; the rest within minutes) and every day after; creates a weekly and a monthly e-mail report.',
        body: CreateTrackingBody,
        response: { 201: Ref(TrackingPost), ...errorResponses(401, 409, 422) },
      },
    },
    async (req, reply) => {
      const [out] = await create(req.account!, req.body, [{ location: req.body.location_id, platform: req.body.platform_id }]);
      return reply.code(201).send(out);
    },
  );

  app.post(
    '/multiple-trackings',
    {
      config: { fairUse: itemsSent },
      preValidation: keywordStrings,
      schema: {
        tags: TAG,
        summary: 'Track a domain in several locations and on several platforms in one call',
        description: 'Creates a tracking for each location × platform pair that has none yet and skips the others; 409 when every pair is tracked already.',
        body: MultipleTrackingsBody,
        response: { 201: Type.Array(Ref(TrackingPost)), ...errorResponses(401, 409, 422) },
      },
    },
    async (req, reply) => {
      const locationIds = req.body.location_ids ?? (req.body.location_id === undefined ? [] : [req.body.location_id]);
      if (locationIds.length === 0 || (req.body.location_ids && req.body.location_id !== undefined)) throw errors.invalidParameter('location_ids');
      const targets = locationIds.flatMap((location) => req.body.platform_ids.map((platform) => ({ location, platform })));
      return reply.code(201).send(await create(req.account!, req.body, targets));
    },
  );

  app.get(
    '/trackings',
    {
      schema: {
        tags: TAG,
        summary: 'The account’s trackings, newest first',
        description: 'Created between `from` and `to`; deleted ones only with `is_with_deleted=true`.',
        querystring: TrackingListQuery,
        response: { 200: TrackingList, ...errorResponses(401, 422) },
      },
    },
    async (req) => {
      const q = req.query;
      const rows = await store.list(req.account!.id, {
        fromSec: parseDateFilter(q.from, 'from'),
        toSec: parseDateFilter(q.to, 'to'),
        withDeleted: booleanParam(q.is_with_deleted, 'is_with_deleted') ?? false,
      });
      const ids = await store.keywordIdsByTracking(rows.map((r) => r.id));
      const types = await store.reportTypesByTracking(rows.map((r) => r.id));
      return rows.map((r) => presentTracking(r, ids.get(r.id) ?? [], types.get(r.id) ?? [], locations));
    },
  );

  app.get(
    '/trackings/:tracking_id/detail',
    {
      // Its figures per day are the stats' (heavy on a large tracking): one of the account's bulk slots.
      config: { auth: 'optional', fairUse: 'bulk' },
      schema: {
        tags: TAG,
        summary: 'A tracking with its figures per day, tags, keywords and reports',
        description: 'Deleted trackings too, unless `is_with_deleted=false`. Without an API key, the tracking’s `share_token` opens it read-only.',
        params: TrackingParams,
        querystring: DetailQuery,
        response: { 200: Ref(GetTrackingDetailRes), ...errorResponses(401, 404, 422) },
      },
    },
    async (req) => {
      const q = req.query;
      const withDeleted = booleanParam(q.is_with_deleted, 'is_with_deleted') ?? true;
      const tracking = await requireTracking(app, req.account, req.params.tracking_id, { withDeleted, shareToken: q.share_token });
      const range = statsTimeframe({ from: q.from, to: q.to }, clock.now());
      const keywords = await store.keywordsWithLatest(tracking.id);
      const tags = await store.tagIdsByKeyword(tracking.id);
      const reports = await store.reportsOf(tracking.id);
      const stats = await trackingStats(app.quarry.state.db, tracking, range);
      return {
        tracking: {
          ...presentTracking(
            tracking,
            keywords.map((k) => k.id),
            reports.map((r) => r.type),
            locations,
          ),
          stats: { timeframes: stats.timeframes },
          tags: (await store.tagsOf(tracking.id)).map(presentTag),
        },
        keywords: keywords.map((k) => presentTrackedKeyword(k, tags.get(k.id))),
        reports: reports.map(presentReport),
        whiteLabel: null,
      };
    },
  );

  app.patch(
    '/trackings/:tracking_id',
    {
      config: { fairUse: itemsSent },
      schema: {
        tags: TAG,
        summary: 'Change a tracking’s domain or local-SEO settings',
        description:
          'A new domain keeps the tracking’s history and is recorded as an annotation (409 when another tracking of the same location and platform follows it). ' +
          'Location and platform stay as created. `reports_active: false` pauses every report, `true` resumes them.',
        params: TrackingParams,
        body: UpdateTrackingBody,
        response: { 200: Ref(TrackingUpdateResponse), ...errorResponses(401, 404, 409, 422) },
      },
    },
    async (req) => {
      const body = req.body;
      const account = req.account!;
      const tracking = await requireTracking(app, account, req.params.tracking_id);
      // A tracking's history belongs to its location and platform: another one is another tracking.
      for (const fixed of ['location_id', 'platform_id'] as const) if (body[fixed] !== undefined) throw errors.invalidParameter(fixed);
      const nowMs = clock.now();
      const { tracking: updated, annotation } = await store
        .updateTracking(
          tracking,
          {
            domain: body.domain === undefined ? undefined : requireTrackedDomain(body.domain),
            config: body.tracking_config === undefined ? undefined : configOf(body.tracking_config),
            reportsActive: body.reports_active,
          },
          { nowSec: unixSeconds(nowMs), nowMs, creator: account.email },
        )
        .catch(trackingError);
      return { tracking: await trackingJson(app, updated), ...(annotation ? { annotation: presentAnnotation(annotation) } : {}) };
    },
  );

  app.delete(
    '/trackings/:tracking_id',
    {
      config: { fairUse: itemsSent },
      schema: {
        tags: TAG,
        summary: 'Delete a tracking',
        description: 'Soft: listed with `is_with_deleted=true`; no more checks or reports, and its keywords leave the plan’s count.',
        params: TrackingParams,
        response: { 204: emptyResponse('Deleted'), ...errorResponses(401, 404) },
      },
    },
    async (req, reply) => {
      if (!(await store.softDelete(req.account!.id, req.params.tracking_id, unixSeconds(clock.now())))) throw errors.notFound('Tracking not found');
      return reply.code(204).send();
    },
  );

  app.post(
    '/trackings/:tracking_id/stats',
    {
      // Free and heavy on a large tracking: one of the account's bulk slots (fair use).
      config: { auth: 'optional', fairUse: 'bulk' },
      schema: {
        tags: TAG,
        summary: 'A tracking’s figures per day, its keywords’ movements and the annotations of a timeframe',
        description:
          'From `from` to `to` (default: the last 30 days), over the keywords `kwIds` (default: all). Without an API key, the tracking’s `share_token` opens it read-only.',
        params: TrackingParams,
        querystring: StatsQuery,
        body: Type.Optional(StatsBody),
        response: { 200: Ref(GetTrackingStatsRes), ...errorResponses(401, 404, 422) },
      },
    },
    async (req) => {
      const q = req.query;
      const body = req.body ?? {};
      const tracking = await requireTracking(app, req.account, req.params.tracking_id, { withDeleted: true, shareToken: q.share_token });
      if ((q.from !== undefined && body.from !== undefined) || (q.to !== undefined && body.to !== undefined)) throw errors.invalidParameter('from');
      const range = statsTimeframe({ from: q.from ?? body.from, to: q.to ?? body.to, days: body.days }, clock.now());
      const tagIds = await store.tagIdsByKeyword(tracking.id);
      const stats = await trackingStats(app.quarry.state.db, tracking, range, { keywordIds: body.kwIds, tagIds });
      const annotations = (await store.annotationsOf(tracking.id, range)).filter((a) => req.account || a.non_shareable === 0);
      return {
        annotations: annotations.map(presentAnnotation),
        history_dates: stats.history_dates,
        stats: { timeframes: stats.timeframes, top_up: stats.top_up, top_down: stats.top_down },
        keywords: stats.keywords,
        from: range.from,
        to: range.to,
      };
    },
  );
}

/** An optional `true`/`false` query parameter. */
function booleanParam(value: string | undefined, name: string): boolean | undefined {
  if (value === undefined) return undefined;
  const v = value.trim().toLowerCase();
  if (v === '') return undefined;
  if (v !== 'true' && v !== 'false') throw errors.invalidParameter(name);
  return v === 'true';
}

/** The stored settings: null clears them, as does a null `place_id`. */
function configOf(body: Partial<Record<keyof TrackingConfig, string | null>> | null): TrackingConfig | null {
  if (body === null || body.place_id === null) return null;
  const clean = (v: string | null | undefined) => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);
  return { place_id: clean(body.place_id), ludocid: clean(body.ludocid), name: clean(body.name), address: clean(body.address) };
}
