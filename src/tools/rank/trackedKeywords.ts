/**
 * The keywords of a tracking: list with latest positions, add (checked at once, counted
 * against the plan), remove (with their history), and one keyword's rank history with its
 * ranking URL, SERP features and the snapshot id of the latest check's SERP.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { errors } from '../../http/errors.js';
import { unixSeconds } from '../../lib/clock.js';
import { rankServices } from '../../rank/rankService.js';
import { TrackedKeywordLimitError } from '../../store/rankTracking.js';
import { errorResponses } from '../common/schemas.js';
import { presentNewKeyword } from './presenters.js';
import { Keywords, NewTrackedKeyword, TrackedKeyword, TrackedKeywordParams, TrackingParams, MAX_KEYWORDS_PER_REQUEST } from './schemas.js';
import { presentTrackedKeyword, processingOf, requireTracking, trackingError } from './trackings.js';
import { requireKeywords } from './trackingInput.js';

const Check = Type.Object({ date: Type.String(), position: Type.Union([Type.Integer(), Type.Null()]), url: Type.Union([Type.String(), Type.Null()]) });

export async function trackedKeywordRoutes(app: FastifyInstance): Promise<void> {
  const { clock, search, policy } = app.quarry;
  const { store, checks } = rankServices(app.quarry);

  app.get(
    '/trackings/:tracking_id/tracked-keywords',
    {
      schema: {
        tags: ['rank-tool'],
        summary: 'The tracked keywords of a tracking with their latest position and ranking URL',
        params: TrackingParams,
        response: { 200: Type.Array(TrackedKeyword), ...errorResponses(401, 404) },
      },
    },
    async (req) => {
      const tracking = await requireTracking(app, req, { withDeleted: true });
      return (await store.keywordsWithLatest(tracking.id)).map(presentTrackedKeyword);
    },
  );

  app.post(
    '/trackings/:tracking_id/tracked-keywords',
    {
      schema: {
        tags: ['rank-tool'],
        summary: 'Add keywords to a tracking (tracked ones are kept once; the plan’s tracked-keywords limit applies)',
        params: TrackingParams,
        body: Type.Object({ keywords: Keywords }),
        response: {
          201: Type.Object({
            keywords: Type.Array(NewTrackedKeyword),
            estimatedTimeProcessing: Type.Integer(),
            postponed_processing: Type.Boolean(),
            postponed_keywords: Type.Array(Type.String()),
          }),
          ...errorResponses(401, 404, 422),
        },
      },
    },
    async (req, reply) => {
      const tracking = await requireTracking(app, req);
      const kws = requireKeywords((req.body as { keywords: string[] }).keywords);
      const limit = policy.planOf(req.account!).trackedKeywords;
      // Refused before any keyword is looked up; the store checks again with the account's current count.
      if (kws.length > limit) trackingError(new TrackedKeywordLimitError(limit, kws.length));
      const nowMs = clock.now();
      const added = await store
        .addKeywords(
          tracking,
          kws.map((kw) => ({ kw, sv: search.keywordItem(kw, tracking.location_id, 0).sv })),
          { limit, nowSec: unixSeconds(nowMs), nowMs },
        )
        .catch(trackingError);
      const { immediateIds, ...processing } = processingOf(added);
      checks.checkSoon(immediateIds, nowMs);
      return reply.code(201).send({ keywords: added.map(presentNewKeyword), ...processing });
    },
  );

  app.delete(
    '/trackings/:tracking_id/tracked-keywords',
    {
      schema: {
        tags: ['rank-tool'],
        summary: 'Stop tracking keywords (their history goes with them; unknown ids are ignored)',
        params: TrackingParams,
        body: Type.Object({ keyword_ids: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { minItems: 1, maxItems: MAX_KEYWORDS_PER_REQUEST }) }),
        response: { 204: Type.Null(), ...errorResponses(401, 404, 422) },
      },
    },
    async (req, reply) => {
      const tracking = await requireTracking(app, req);
      await store.removeKeywords(tracking.id, [...new Set((req.body as { keyword_ids: string[] }).keyword_ids)]);
      return reply.code(204).send();
    },
  );

  app.get(
    '/trackings/:tracking_id/tracked-keywords/:keyword_id',
    {
      schema: {
        tags: ['rank-tool'],
        summary: 'A tracked keyword: rank history, ranking URL, SERP features and the latest SERP’s snapshot id',
        params: TrackedKeywordParams,
        response: {
          200: Type.Object({
            _id: Type.String(),
            tracking_id: Type.String(),
            kw: Type.String(),
            location_id: Type.Integer(),
            platform_id: Type.Integer(),
            sv: Type.Union([Type.Integer(), Type.Null()]),
            created_at: Type.Integer(),
            position: Type.Union([Type.Integer(), Type.Null()]),
            url: Type.Union([Type.String(), Type.Null()]),
            checked_at: Type.Union([Type.String(), Type.Null()]),
            serp_features: Type.Array(Type.String()),
            serp_snapshot_id: Type.Union([Type.String(), Type.Null()]),
            visual: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
            history: Type.Array(Check),
          }),
          ...errorResponses(401, 404),
        },
      },
    },
    async (req) => {
      const tracking = await requireTracking(app, req, { withDeleted: true });
      const { keyword_id } = req.params as { keyword_id: string };
      const k = await store.keyword(tracking.id, keyword_id);
      if (!k) throw errors.notFound('Tracked keyword not found');
      const history = await store.checksOf(k.id);
      const latest = history[history.length - 1];
      return {
        ...presentTrackedKeyword({ ...k, position: latest?.position ?? null, url: latest?.url ?? null }),
        serp_features: latest ? (JSON.parse(latest.features) as string[]) : [],
        serp_snapshot_id: latest?.serp_snapshot_id ?? null,
        visual: latest?.visual ? (JSON.parse(latest.visual) as Record<string, unknown>) : null,
        history: history.map((c) => ({ date: c.day, position: c.position, url: c.url })),
      };
    },
  );
}
