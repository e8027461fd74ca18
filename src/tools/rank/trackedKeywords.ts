/**
 * The keywords of a tracking: list with latest positions and tags, add (checked at once,
 * counted against the plan, tagged), remove (with their history), and one keyword's checks
 * per ranking URL and day with its SERP features and the latest SERP's snapshot.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { baseClickThroughRate } from '../../engine/search/clickThroughCurve.js';
import { errors } from '../../lib/errors.js';
import { unixSeconds } from '../../lib/clock.js';
import { UNRANKED, type StoredVisual } from '../../rank/rankStats.js';
import { rankServices } from '../../rank/rankService.js';
import { TrackedKeywordLimitError, type TrackedKeywordRow } from '../../store/rankTracking.js';
import { emptyResponse, errorResponses, Ref } from '../common/schemas.js';
import { presentNewKeyword, presentTrackedKeyword } from './presenters.js';
import {
  AddKeywordsBody,
  RemoveKeywordsBody,
  TRACKED_KEYWORD_FIELDS,
  TrackedKeywordDetail,
  TrackedKeywordList,
  TrackedKeywordParams,
  TrackedKeywordQuery,
  TrackedKeywordsAddRes,
  TrackedKeywordsQuery,
  TrackingParams,
  type TrackedKeywordDetailJson,
} from './schemas.js';
import { processingOf, requireTracking, trackingError, trackingJson } from './trackings.js';
import { keywordStrings, requireDay, requireKeywords } from './trackingInput.js';
import { itemsSent } from '../common/fairUse.js';

const TAG = ['rank-tool'];

/** The fields a `fields` parameter names, in the order given; 422 for an unknown one. */
function requireFields(raw: string | undefined): string[] | null {
  if (raw === undefined || raw.trim() === '') return null;
  const names = [...new Set(raw.split(',').map((f) => f.trim()))].filter(Boolean);
  if (names.length === 0 || names.some((n) => !TRACKED_KEYWORD_FIELDS.includes(n))) throw errors.invalidParameter('fields');
  return names;
}

export async function trackedKeywordRoutes(plain: FastifyInstance): Promise<void> {
  const app = plain.withTypeProvider<TypeBoxTypeProvider>();
  const { clock, search, policy } = app.quarry;
  const { store, checks } = rankServices(app.quarry);

  app.get(
    '/trackings/:tracking_id/tracked-keywords',
    {
      schema: {
        tags: TAG,
        summary: 'The tracked keywords of a tracking with their latest position, ranking URL and tags',
        description: '`fields` (comma-separated) keeps only the fields named.',
        params: TrackingParams,
        querystring: TrackedKeywordsQuery,
        response: { 200: TrackedKeywordList, ...errorResponses(401, 404, 422) },
      },
    },
    async (req) => {
      const fields = requireFields(req.query.fields);
      const tracking = await requireTracking(app, req.account, req.params.tracking_id, { withDeleted: true });
      const tags = await store.tagIdsByKeyword(tracking.id);
      const all = (await store.keywordsWithLatest(tracking.id)).map((k) => presentTrackedKeyword(k, tags.get(k.id)));
      if (!fields) return all;
      return all.map((k) => Object.fromEntries(fields.map((f) => [f, k[f as keyof typeof k]])));
    },
  );

  app.post(
    '/trackings/:tracking_id/tracked-keywords',
    {
      config: { fairUse: itemsSent },
      preValidation: keywordStrings,
      schema: {
        tags: TAG,
        summary: 'Add keywords to a tracking, with tags',
        description:
          'Keywords tracked already are kept once and only gain the tags (which must be the tracking’s); only new ones count against the plan’s tracked-keywords limit. ' +
          'The addition is recorded as an annotation.',
        params: TrackingParams,
        body: AddKeywordsBody,
        response: { 201: Ref(TrackedKeywordsAddRes), ...errorResponses(401, 404, 422) },
      },
    },
    async (req, reply) => {
      const account = req.account!;
      const tracking = await requireTracking(app, account, req.params.tracking_id);
      const kws = requireKeywords(req.body.keywords);
      const tagIds = [...new Set(req.body.tag_ids ?? [])];
      if ((await store.unknownTags(tracking.id, tagIds)).length > 0) throw errors.invalidParameter('tag_ids');
      const limit = policy.planOf(account).trackedKeywords;
      // Refused before any keyword is looked up; the store checks again with the account's current count.
      if (kws.length > limit) trackingError(new TrackedKeywordLimitError(limit, kws.length));
      const nowMs = clock.now();
      const added = await store
        .addKeywords(
          tracking,
          kws.map((kw) => ({ kw, sv: search.keywordItem(kw, tracking.location_id, 0).sv })),
          { limit, nowSec: unixSeconds(nowMs), nowMs, tagIds, creator: account.email },
        )
        .catch(trackingError);
      const { immediateIds, ...processing } = processingOf(added);
      checks.checkSoon(immediateIds, nowMs);
      const tags = await store.tagIdsByKeyword(tracking.id);
      return reply.code(201).send({
        tracking: await trackingJson(app, tracking),
        keywords: added.map((k) => ({ ...presentNewKeyword(k), tag_ids: tags.get(k.id) ?? [] })),
        ...processing,
      });
    },
  );

  app.delete(
    '/trackings/:tracking_id/tracked-keywords',
    {
      config: { fairUse: itemsSent },
      schema: {
        tags: TAG,
        summary: 'Stop tracking keywords',
        description: 'Their history and tags go with them; unknown ids are ignored. The removal is recorded as an annotation.',
        params: TrackingParams,
        body: RemoveKeywordsBody,
        response: { 204: emptyResponse('Removed'), ...errorResponses(401, 404, 422) },
      },
    },
    async (req, reply) => {
      const account = req.account!;
      const ids = req.body.tracked_keyword_ids ?? req.body.keyword_ids;
      if (!ids || (req.body.tracked_keyword_ids && req.body.keyword_ids)) throw errors.invalidParameter('tracked_keyword_ids');
      const tracking = await requireTracking(app, account, req.params.tracking_id);
      const nowMs = clock.now();
      await store.removeKeywords(tracking, [...new Set(ids)], { nowSec: unixSeconds(nowMs), nowMs, creator: account.email });
      return reply.code(204).send();
    },
  );

  app.get(
    '/trackings/:tracking_id/tracked-keywords/:tracked_keyword_id',
    {
      config: { auth: 'optional' },
      schema: {
        tags: TAG,
        summary: 'A tracked keyword: its checks per ranking URL and day, rank figures and the latest SERP’s snapshot',
        description: 'From `from` to `to` (default: every check). Without an API key, the tracking’s `share_token` opens it read-only.',
        params: TrackedKeywordParams,
        querystring: TrackedKeywordQuery,
        response: { 200: Ref(TrackedKeywordDetail), ...errorResponses(401, 404, 422) },
      },
    },
    async (req) => {
      const q = req.query;
      const from = q.from === undefined ? undefined : requireDay(q.from, 'from');
      const to = q.to === undefined ? undefined : requireDay(q.to, 'to');
      if (from !== undefined && to !== undefined && from > to) throw errors.invalidParameter('from');
      const tracking = await requireTracking(app, req.account, req.params.tracking_id, { withDeleted: true, shareToken: q.share_token });
      const k = await store.keyword(tracking.id, req.params.tracked_keyword_id);
      if (!k) throw errors.notFound('Tracked keyword not found');
      const history = (await store.checksOf(k.id)).filter((c) => (from === undefined || c.day >= from) && (to === undefined || c.day <= to));
      const tags = await store.tagIdsByKeyword(tracking.id);
      return keywordDetail(k, history, tags.get(k.id) ?? []);
    },
  );
}

type Check = Awaited<ReturnType<ReturnType<typeof rankServices>['store']['checksOf']>>[number];

function keywordDetail(k: TrackedKeywordRow, history: readonly Check[], tagIds: readonly string[]): TrackedKeywordDetailJson {
  const first = history[0];
  const latest = history[history.length - 1];
  const ranked = history.map((c) => c.position).filter((p): p is number => p !== null);
  const visits = (c: Check | undefined) => (c?.position != null && k.sv !== null ? Math.round(k.sv * baseClickThroughRate(c.position)) : 0);
  // One entry per URL of the domain that ranked, with its days.
  const items = new Map<string, TrackedKeywordDetailJson['items'][number]>();
  for (const c of history) {
    if (c.url === null) continue;
    let item = items.get(c.url);
    if (!item) items.set(c.url, (item = { url: c.url, rank_history: {} }));
    const v = c.visual ? (JSON.parse(c.visual) as StoredVisual) : null;
    item.rank_history[c.day] = {
      p: c.position,
      af: v ? Math.max(0, v.positionToFold.fold - v.size.t) : null,
      ft: v ? v.size.t : null,
      cov: v ? Math.round((v.size.r - v.size.l) * (v.size.b - v.size.t)) : null,
      b: v ? v.size.b : null,
    };
  }
  return {
    ...presentTrackedKeyword({ ...k, position: latest?.position ?? null, url: latest?.url ?? null }, tagIds),
    checked_at: k.checked_through,
    search_volume: k.sv,
    rank: {
      last: latest?.position ?? null,
      avg: ranked.length === 0 ? null : Math.round((ranked.reduce((a, b) => a + b, 0) / ranked.length) * 100) / 100,
      best: ranked.length === 0 ? null : Math.min(...ranked),
      change: first ? (first.position ?? UNRANKED) - (latest.position ?? UNRANKED) : 0,
    },
    estimated_visits: { end: visits(latest), start: visits(first), change: visits(latest) - visits(first) },
    items: [...items.values()],
    serp_features: latest ? (JSON.parse(latest.features) as string[]) : [],
    serp_snapshot_id: latest?.serp_snapshot_id ?? null,
    serp_snapshot: latest?.serp_snapshot_id ? { id: latest.serp_snapshot_id, crawled_at: Math.floor(latest.checked_ms / 1000) } : null,
    visual: latest?.visual ? (JSON.parse(latest.visual) as Record<string, unknown>) : null,
    history: history.map((c) => ({ date: c.day, position: c.position, url: c.url })),
  };
}
