/**
 * Rank trackings: create (201, also several platforms at once), list, detail, change,
 * soft delete and stats. Another account's tracking is as unknown as one that never
 * existed (404). All free: trackings count against the plan's tracked-keywords limit.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errors } from '../../http/errors.js';
import { unixSeconds } from '../../lib/clock.js';
import { trackingStats } from '../../rank/rankStats.js';
import { rankServices } from '../../rank/rankService.js';
import { TrackedKeywordLimitError, TrackingConflictError, type TrackingRow } from '../../store/rankTracking.js';
import { errorResponses } from '../common/schemas.js';
import { requireLocation } from '../common/params.js';
import { presentNewKeyword, presentReport, presentTracking } from './presenters.js';
import {
  CreateTrackingBody,
  MultipleTrackingsBody,
  NewTrackingResponse,
  PlatformId,
  Report,
  StatsBody,
  StatsResponse,
  Tracking,
  TrackedKeyword,
  TrackingParams,
} from './schemas.js';
import { parseDateFilter, requireKeywords, requireTrackedDomain, statsTimeframe } from './trackingInput.js';

/** Keywords checked right after they are added; more wait for the scheduler's next round (a minute). */
export const IMMEDIATE_CHECKS = 200;
/** Seconds one check takes on the sandbox web (bench/rank-tool.bench.ts), for the client's estimate. */
const SECONDS_PER_CHECK = 0.01;

/** Maps the store's refusals to the contract's 409 and 422. */
export function trackingError(err: unknown): never {
  if (err instanceof TrackingConflictError) throw errors.conflict(err.message);
  if (err instanceof TrackedKeywordLimitError) throw errors.outOfLimit(err.message);
  throw err;
}

/** The tracking of the path, or 404; deleted ones only for reads that show them. */
export async function requireTracking(app: FastifyInstance, req: FastifyRequest, opts: { withDeleted?: boolean } = {}): Promise<TrackingRow> {
  const { tracking_id } = req.params as { tracking_id: string };
  const tracking = await rankServices(app.quarry).store.get(req.account!.id, tracking_id, opts);
  if (!tracking) throw errors.notFound('Tracking not found');
  return tracking;
}

/** What a create answers beside the tracking: estimate and the keywords left to the scheduler. */
export function processingOf(keywords: readonly { id: string; kw: string }[]) {
  const immediate = keywords.slice(0, IMMEDIATE_CHECKS);
  const postponed = keywords.slice(IMMEDIATE_CHECKS);
  return {
    immediateIds: immediate.map((k) => k.id),
    estimatedTimeProcessing: Math.ceil(immediate.length * SECONDS_PER_CHECK),
    postponed_processing: postponed.length > 0,
    postponed_keywords: postponed.map((k) => k.kw),
  };
}

export async function trackingRoutes(app: FastifyInstance): Promise<void> {
  const { clock, locations, search, policy } = app.quarry;
  const { store, checks } = rankServices(app.quarry);

  async function create(req: FastifyRequest, reply: FastifyReply, platformIds: readonly (1 | 2)[], single: boolean) {
    const body = req.body as { domain: string; location_id: number; keywords: string[] };
    const account = req.account!;
    const domain = requireTrackedDomain(body.domain);
    const location = requireLocation(locations, body.location_id);
    const kws = requireKeywords(body.keywords);
    const limit = policy.planOf(account).trackedKeywords;
    // Refused before any keyword is looked up; the store checks again with the account's current count.
    if (kws.length * platformIds.length > limit) trackingError(new TrackedKeywordLimitError(limit, kws.length * platformIds.length));
    const keywords = kws.map((kw) => ({ kw, sv: search.keywordItem(kw, location.id, 0).sv }));
    const nowMs = clock.now();
    const created = await store
      .createTrackings(
        account.id,
        platformIds.map((platformId) => ({ domain, locationId: location.id, platformId })),
        keywords,
        { limit, nowSec: unixSeconds(nowMs), nowMs, email: account.email },
      )
      .catch(trackingError);
    const out = created.map((c) => {
      const processing = processingOf(c.keywords);
      checks.checkSoon(processing.immediateIds, nowMs);
      return {
        tracking: presentTracking(
          c.tracking,
          c.keywords.map((k) => k.id),
          locations,
        ),
        keywords: c.keywords.map(presentNewKeyword),
        reports: c.reports.map(presentReport),
        estimatedTimeProcessing: processing.estimatedTimeProcessing,
        postponed_processing: processing.postponed_processing,
        postponed_keywords: processing.postponed_keywords,
      };
    });
    return reply.code(201).send(single ? out[0] : out);
  }

  app.post(
    '/trackings',
    {
      schema: {
        tags: ['rank-tool'],
        summary: 'Track a domain’s positions for keywords in a location on a platform (1 desktop, 2 mobile)',
        body: CreateTrackingBody,
        response: { 201: NewTrackingResponse, ...errorResponses(401, 409, 422) },
      },
    },
    async (req, reply) => create(req, reply, [(req.body as { platform_id: 1 | 2 }).platform_id], true),
  );

  app.post(
    '/multiple-trackings',
    {
      schema: {
        tags: ['rank-tool'],
        summary: 'Track a domain on several platforms in one call: one tracking per platform, all or none',
        body: MultipleTrackingsBody,
        response: { 201: Type.Array(NewTrackingResponse), ...errorResponses(401, 409, 422) },
      },
    },
    async (req, reply) => create(req, reply, (req.body as { platform_ids: (1 | 2)[] }).platform_ids, false),
  );

  app.get(
    '/trackings',
    {
      schema: {
        tags: ['rank-tool'],
        summary: 'The account’s trackings, newest first (created_at between from and to; deleted ones with is_with_deleted=true)',
        querystring: Type.Object({
          from: Type.Optional(Type.String({ maxLength: 20 })),
          to: Type.Optional(Type.String({ maxLength: 20 })),
          is_with_deleted: Type.Optional(Type.String({ maxLength: 10 })),
        }),
        response: { 200: Type.Array(Tracking), ...errorResponses(401, 422) },
      },
    },
    async (req) => {
      const q = req.query as { from?: string; to?: string; is_with_deleted?: string };
      const withDeleted = q.is_with_deleted === undefined ? false : q.is_with_deleted.trim().toLowerCase() === 'true';
      if (q.is_with_deleted !== undefined && !['true', 'false', ''].includes(q.is_with_deleted.trim().toLowerCase())) {
        throw errors.invalidParameter('is_with_deleted');
      }
      const rows = await store.list(req.account!.id, { fromSec: parseDateFilter(q.from, 'from'), toSec: parseDateFilter(q.to, 'to'), withDeleted });
      const ids = await store.keywordIdsByTracking(rows.map((r) => r.id));
      return rows.map((r) => presentTracking(r, ids.get(r.id) ?? [], locations));
    },
  );

  app.get(
    '/trackings/:tracking_id/detail',
    {
      schema: {
        tags: ['rank-tool'],
        summary: 'A tracking with its keywords (latest position and ranking URL) and reports',
        params: TrackingParams,
        response: { 200: Type.Object({ tracking: Tracking, keywords: Type.Array(TrackedKeyword), reports: Type.Array(Report) }), ...errorResponses(401, 404) },
      },
    },
    async (req) => {
      const tracking = await requireTracking(app, req, { withDeleted: true });
      const keywords = await store.keywordsWithLatest(tracking.id);
      const reports = await store.reportsOf(tracking.id);
      return {
        tracking: presentTracking(
          tracking,
          keywords.map((k) => k.id),
          locations,
        ),
        keywords: keywords.map(presentTrackedKeyword),
        reports: reports.map(presentReport),
      };
    },
  );

  app.patch(
    '/trackings/:tracking_id',
    {
      schema: {
        tags: ['rank-tool'],
        summary: 'Change a tracking: reports_active (domain, location and platform stay as created)',
        params: TrackingParams,
        body: Type.Object({
          reports_active: Type.Optional(Type.Boolean()),
          domain: Type.Optional(Type.Unknown()),
          location_id: Type.Optional(Type.Unknown()),
          platform_id: Type.Optional(PlatformId),
        }),
        response: { 200: Tracking, ...errorResponses(401, 404, 422) },
      },
    },
    async (req) => {
      const tracking = await requireTracking(app, req);
      const body = req.body as { reports_active?: boolean; domain?: unknown; location_id?: unknown; platform_id?: unknown };
      // A tracking's history belongs to its domain, location and platform: a new target is a new tracking.
      for (const fixed of ['domain', 'location_id', 'platform_id'] as const) if (body[fixed] !== undefined) throw errors.invalidParameter(fixed);
      if (body.reports_active !== undefined) await store.setReportsActive(tracking.id, body.reports_active);
      const updated = (await store.get(req.account!.id, tracking.id))!;
      return presentTracking(updated, await store.keywordIdsOf(tracking.id), locations);
    },
  );

  app.delete(
    '/trackings/:tracking_id',
    {
      schema: {
        tags: ['rank-tool'],
        summary: 'Delete a tracking (soft: listed with is_with_deleted=true; no more checks or reports)',
        params: TrackingParams,
        response: { 204: Type.Null(), ...errorResponses(401, 404) },
      },
    },
    async (req, reply) => {
      const { tracking_id } = req.params as { tracking_id: string };
      if (!(await store.softDelete(req.account!.id, tracking_id, unixSeconds(clock.now())))) throw errors.notFound('Tracking not found');
      return reply.code(204).send();
    },
  );

  app.post(
    '/trackings/:tracking_id/stats',
    {
      schema: {
        tags: ['rank-tool'],
        summary: 'Rank distribution, average position, visibility, estimated visits and top movers over a timeframe (from/to dates or days)',
        params: TrackingParams,
        body: Type.Optional(StatsBody),
        response: { 200: StatsResponse, ...errorResponses(401, 404, 422) },
      },
    },
    async (req) => {
      const tracking = await requireTracking(app, req, { withDeleted: true });
      const range = statsTimeframe(req.body as { from?: string; to?: string; days?: number } | undefined, clock.now());
      return trackingStats(app.quarry.state.db, tracking, range);
    },
  );
}

export function presentTrackedKeyword(k: {
  id: string;
  tracking_id: string;
  kw: string;
  location_id: number;
  platform_id: number;
  sv: number | null;
  created_at: number;
  checked_through: string | null;
  position: number | null;
  url: string | null;
}) {
  return {
    _id: k.id,
    tracking_id: k.tracking_id,
    kw: k.kw,
    location_id: k.location_id,
    platform_id: k.platform_id,
    sv: k.sv,
    created_at: k.created_at,
    position: k.position ?? null,
    url: k.url ?? null,
    checked_at: k.checked_through,
  };
}
