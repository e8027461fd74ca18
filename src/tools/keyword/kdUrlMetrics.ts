/**
 * GET /keyword-tool/kd/url-metrics (pool `kw-url-metrics`): the URL authority score (`lps`)
 * keyword difficulty is computed from, and the kd request history.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { errors } from '../../http/errors.js';
import { unixSeconds } from '../../lib/clock.js';
import { md5Hex } from '../../lib/ids.js';
import type { PaidOperation } from '../../policy/accessPolicy.js';
import { errorResponses } from '../common/schemas.js';
import { requireTargetUrl } from '../common/params.js';

interface KdBody {
  _id: string;
  url: string;
  lps: number;
}

export async function kdUrlMetricsRoutes(app: FastifyInstance): Promise<void> {
  const { engine } = app.quarry;
  const paid: PaidOperation<{ url: string }, KdBody> = {
    pool: 'kw-url-metrics',
    history: (_p, body, at) => [{ tool: 'kd', entry: { _id: body._id, t: 0, url: body.url, lps: body.lps, created: unixSeconds(at.nowMs) } }],
  };
  app.get(
    '/kd/url-metrics',
    {
      config: { paid },
      schema: {
        tags: ['keyword-tool'],
        summary: 'URL authority score used for keyword difficulty',
        querystring: Type.Object({ url: Type.String({ minLength: 1, maxLength: 2048 }) }),
        response: {
          200: Type.Object({ _id: Type.String(), url: Type.String(), lps: Type.Number() }),
          ...errorResponses(401, 422, 429),
        },
      },
    },
    async (req): Promise<KdBody> => {
      const url = requireTargetUrl((req.query as { url: string }).url).input;
      const metrics = engine.authority.forUrl(url);
      if (!metrics) throw errors.invalidParameter('url');
      return { _id: md5Hex(url), url, lps: metrics.lps };
    },
  );
}
