/**
 * GET /keyword-tool/kd/url-metrics (pool `kw-url-metrics`): the URL authority score (`lps`)
 * keyword difficulty is computed from, and the kd request history.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { errors } from '../../lib/errors.js';
import { unixSeconds } from '../../lib/clock.js';
import { md5Hex } from '../../lib/ids.js';
import type { PaidOperation } from '../../policy/accessPolicy.js';
import { errorResponses, Ref } from '../common/schemas.js';
import { requireTargetUrl } from '../common/params.js';
import { KdUrlMetrics, KdUrlMetricsQuery, keywordTags as tags } from './schemas.js';

export async function kdUrlMetricsRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { engine } = app.quarry;
  const paid: PaidOperation<{ url: string }, KdUrlMetrics> = {
    pool: 'kw-url-metrics',
    history: (_p, body, at) => [{ tool: 'kd', entry: { _id: body._id, t: 0, url: body.url, lps: body.lps, created: unixSeconds(at.nowMs) } }],
  };
  app.get(
    '/kd/url-metrics',
    {
      config: { paid },
      schema: {
        tags,
        summary: 'URL authority score used for keyword difficulty',
        querystring: KdUrlMetricsQuery,
        response: { 200: Ref(KdUrlMetrics), ...errorResponses(401, 422, 429) },
      },
    },
    async (req) => {
      const url = requireTargetUrl(req.query.url).input;
      const metrics = engine.authority.forUrl(url);
      if (!metrics) throw errors.invalidParameter('url');
      return { _id: md5Hex(url), url, lps: metrics.lps };
    },
  );
}
