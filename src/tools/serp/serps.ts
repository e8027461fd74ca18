/**
 * The SERP tool's SERPs: GET /serp-tool/serps (pool `serps`, cached), GET /serps/reset
 * (re-fetches `serp_count` pages, charged per page, never cached) and the free snapshot of
 * a SERP this account was shown (by these lookups or its rank tracking), rendered as a PNG.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Serp } from '../../engine/search/index.js';
import { normaliseKeyword } from '../../engine/search/text.js';
import { unixSeconds } from '../../lib/clock.js';
import type { PaidOperation } from '../../policy/accessPolicy.js';
import { cacheKey } from '../../policy/canonical.js';
import { openableSnapshot, snapshotLookups } from '../../policy/serpSnapshots.js';
import { renderSerpSnapshot } from '../../render/serpSnapshot.js';
import { errorResponses, LocationId } from '../common/schemas.js';
import { requireLocation } from '../common/params.js';
import { KeywordText } from '../keyword/schemas.js';
import { DEFAULT_SERP_LOCATION, PlatformId } from '../keyword/keywordSerps.js';

interface SerpParams {
  kw: string;
  location_id: number;
  platform_id: 1 | 2;
}

/** Name of the SERP lookup in the request cache; reset drops that entry. */
const SERPS_OPERATION = 'serp-tool/serps';

const SerpQuery = {
  kw: KeywordText,
  // A default makes a missing location and 0 one request (one cache entry, one charge): both mean 2840.
  location_id: Type.Optional({ ...LocationId, default: 0 }),
  platform_id: Type.Optional(PlatformId),
};

/**
 * The keyword as the engine identifies a SERP (NFKC, lower case, collapsed spaces), set
 * before the paid pipeline reads the parameters: "Backpack" and "backpack" are one SERP,
 * so they share one cache entry, and a reset of either forgets it.
 */
const keywordIdentity = async (req: { query: unknown }) => {
  const q = req.query as { kw?: unknown };
  if (typeof q.kw === 'string') q.kw = normaliseKeyword(q.kw);
};

export async function serpRoutes(app: FastifyInstance): Promise<void> {
  const { search, locations, policy, clock } = app.quarry;
  const locationOf = (id: number) => (id === 0 ? DEFAULT_SERP_LOCATION : id);

  const lookup: PaidOperation<SerpParams, Serp> = {
    pool: 'serps',
    cacheAs: SERPS_OPERATION,
    history: (_p, serp, at) => [
      {
        tool: 'serp',
        entry: {
          _id: serp._id,
          t: 0,
          created: unixSeconds(at.nowMs),
          kw: serp.kw,
          platform_id: serp.platform_id,
          location: serp.location,
          rank: serp.rank ?? null,
          rank_ts: serp.rank_updated_at ?? null,
        },
      },
    ],
    lookups: (_p, serp) => snapshotLookups(serp),
  };

  app.get(
    '/serps',
    {
      config: { paid: lookup },
      preHandler: keywordIdentity,
      schema: {
        tags: ['serp-tool'],
        summary: 'A SERP with features and per-result metrics (location 0 means 2840)',
        querystring: Type.Object(SerpQuery),
        response: errorResponses(401, 422, 429),
      },
    },
    async (req) => {
      const q = req.query as SerpParams;
      const locationId = locationOf(q.location_id);
      requireLocation(locations, locationId);
      return search.serp({ kw: q.kw, locationId, platform: q.platform_id, page: 0 });
    },
  );

  const reset: PaidOperation<SerpParams & { serp_count: number }, (Serp | null)[]> = {
    pool: 'serps',
    cacheable: false,
    // One SERP credit per page, charged also for a page that fails to re-parse.
    cost: (p) => p.serp_count,
    lookups: (_p, serps) => serps.flatMap((s) => (s ? snapshotLookups(s) : [])),
  };

  app.get(
    '/serps/reset',
    {
      config: { paid: reset },
      preHandler: keywordIdentity,
      schema: {
        tags: ['serp-tool'],
        summary: 'Re-fetch a SERP (serp_count pages, one SERP credit each); never served from cache',
        querystring: Type.Object({ ...SerpQuery, serp_count: Type.Optional(Type.Integer({ minimum: 1, maximum: 10, default: 1 })) }),
        response: errorResponses(401, 422, 429),
      },
    },
    async (req) => {
      const q = req.query as SerpParams & { serp_count: number };
      const locationId = locationOf(q.location_id);
      requireLocation(locations, locationId);
      const pages: (Serp | null)[] = [];
      for (let page = 0; page < q.serp_count; page++) {
        const serp = search.serp({ kw: q.kw, locationId, platform: q.platform_id, page });
        // A page past the last result did not parse: it is answered as null and still charged.
        pages.push(serp.serp_results > 0 || page === 0 ? serp : null);
      }
      // The next GET /serp-tool/serps answers the fresh SERP, not the cached one.
      const accountId = req.account!.id;
      for (const location_id of new Set([q.location_id, locationId, 0].filter((l) => locationOf(l) === locationId))) {
        policy.store.forget(accountId, cacheKey(SERPS_OPERATION, { kw: q.kw, location_id, platform_id: q.platform_id }));
      }
      return pages;
    },
  );

  app.get(
    '/serps/:serp_id/snapshot',
    {
      schema: {
        tags: ['serp-tool'],
        summary: 'A PNG snapshot of a SERP this account was shown (serp_snapshot_id of GET /serp-tool/serps or of a tracked keyword)',
        // Any string: a malformed id (empty, oversized) is the contract's 404, not a 422.
        params: Type.Object({ serp_id: Type.String() }),
        response: { 200: Type.Object({ image: Type.String({ description: 'base64 PNG' }) }), ...errorResponses(401, 404) },
      },
    },
    async (req) => {
      const { serp_id } = req.params as { serp_id: string };
      const stored = openableSnapshot(policy.store, req.account!.id, serp_id, clock.now());
      const serp = search.serp({ kw: stored.kw, locationId: stored.location_id, platform: stored.platform_id, page: stored.page, date: stored.date });
      const location = locations.get(serp.location_id);
      const png = renderSerpSnapshot({ ...serp, engine_domain: location?.engineDomain ?? null });
      return { image: png.toString('base64') };
    },
  );
}
