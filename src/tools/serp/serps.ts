/**
 * The SERP tool's SERPs: GET /serp-tool/serps (pool `serps`, cached), GET /serps/reset
 * (re-fetches `serp_count` pages, charged per page, never cached) and the free snapshot of
 * a SERP this account was shown (by these lookups or its rank tracking), rendered as a PNG.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Serp } from '../../engine/search/index.js';
import { DEFAULT_SERP_LOCATION } from '../../engine/search/searchEngine.js';
import { normaliseKeyword } from '../../engine/search/text.js';
import { SourceError } from '../../engine/sources/index.js';
import { errors } from '../../lib/errors.js';
import { unixSeconds } from '../../lib/clock.js';
import type { PaidOperation } from '../../policy/accessPolicy.js';
import { openableSnapshot, snapshotLookups } from '../../policy/serpSnapshots.js';
import { renderSerpSnapshot } from '../../render/serpSnapshot.js';
import { errorResponses, Ref } from '../common/schemas.js';
import { requireLocation } from '../common/params.js';
import { presentSerp } from './presenters.js';
import { Serp as SerpSchema, SerpQuery, SerpResetQuery, SerpResetResponse, SnapshotParams, SnapshotResponse } from './schemas.js';

type SerpParams = Required<SerpQuery>;

/** Name of the SERP lookup in the request cache; reset drops that entry. */
const SERPS_OPERATION = 'serp-tool/serps';

/**
 * The keyword as the engine identifies a SERP (NFKC, lower case, collapsed spaces), set
 * before the paid pipeline reads the parameters: "Backpack" and "backpack" are one SERP,
 * so they share one cache entry, and a reset of either forgets it.
 */
const keywordIdentity = async (req: { query: { kw: string } }) => {
  req.query.kw = normaliseKeyword(req.query.kw);
};

export async function serpRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { sources, locations, policy } = app.quarry;
  // Location 0 (or none) means 2840 (serp-tool rule 1).
  const locationOf = (id: number) => (id === 0 ? DEFAULT_SERP_LOCATION : id);

  const lookup: PaidOperation<SerpParams, ReturnType<typeof presentSerp>> = {
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
        querystring: SerpQuery,
        response: { 200: Ref(SerpSchema), ...errorResponses(401, 422, 424, 429) },
      },
    },
    async (req) => {
      const { kw, location_id = 0, platform_id = 1 } = req.query;
      const locationId = locationOf(location_id);
      requireLocation(locations, locationId);
      return presentSerp(await sources.serp.serp({ kw, locationId, platform: platform_id, page: 0 }));
    },
  );

  const reset: PaidOperation<Required<SerpResetQuery>, ReturnType<typeof presentSerp>[]> = {
    pool: 'serps',
    cacheable: false,
    // One SERP credit per page, charged also for a page that fails to re-parse.
    cost: (p) => p.serp_count,
    lookups: (_p, serps) => serps.flatMap((s) => snapshotLookups(s)),
  };

  app.get(
    '/serps/reset',
    {
      config: { paid: reset },
      preHandler: keywordIdentity,
      schema: {
        tags: ['serp-tool'],
        summary: 'Re-fetch a SERP (serp_count pages, one SERP credit each); never served from cache',
        querystring: SerpResetQuery,
        response: { 200: Ref(SerpResetResponse), ...errorResponses(401, 422, 424, 429) },
      },
    },
    async (req) => {
      const q = { location_id: 0, platform_id: 1 as const, serp_count: 1, ...req.query };
      const locationId = locationOf(q.location_id);
      requireLocation(locations, locationId);
      const pages: Serp[] = [];
      for (let page = 0; page < q.serp_count; page++) {
        const serp = await sources.serp.serp({ kw: q.kw, locationId, platform: q.platform_id, page });
        // A page past the last result does not parse: it is left out, and still charged.
        if (serp.serp_results > 0 || page === 0) pages.push(serp);
      }
      // The next GET /serp-tool/serps answers the fresh SERP, not the cached one.
      const accountId = req.account!.id;
      for (const location_id of new Set([q.location_id, locationId, 0].filter((l) => locationOf(l) === locationId))) {
        await policy.forgetAnswer(accountId, SERPS_OPERATION, { kw: q.kw, location_id, platform_id: q.platform_id });
      }
      return pages.map(presentSerp);
    },
  );

  app.get(
    '/serps/:serp_id/snapshot',
    {
      schema: {
        tags: ['serp-tool'],
        summary: 'A PNG snapshot of a SERP this account was shown (serp_snapshot_id of GET /serp-tool/serps or of a tracked keyword)',
        params: SnapshotParams,
        response: { 200: SnapshotResponse, ...errorResponses(401, 404) },
      },
    },
    async (req) => {
      const stored = await openableSnapshot(policy, req.account!.id, req.params.serp_id);
      let serp: Serp;
      try {
        serp = await sources.serp.serp({ kw: stored.kw, locationId: stored.location_id, platform: stored.platform_id, page: stored.page, date: stored.date });
      } catch (err) {
        // A provider's SERP of a day it no longer holds cannot be drawn again.
        if (err instanceof SourceError && err.reason === 'unavailable') throw errors.notFound('The SERP of this snapshot is no longer held');
        throw err;
      }
      const location = locations.get(serp.location_id);
      const png = renderSerpSnapshot({ ...serp, engine_domain: location?.engineDomain ?? null });
      return { image: png.toString('base64') };
    },
  );
}
