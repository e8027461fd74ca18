/** GET /serp-tool/url-metrics (pool `sch-url-metrics`): domain and page authority, flows, TopRank. */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { errors } from '../../http/errors.js';
import { unixSeconds } from '../../lib/clock.js';
import { md5Hex } from '../../lib/ids.js';
import { errorResponses } from '../common/schemas.js';
import { requireTargetUrl } from '../common/params.js';

export async function serpUrlMetricsRoutes(app: FastifyInstance): Promise<void> {
  const { engine } = app.quarry;
  app.get(
    '/url-metrics',
    {
      config: { paid: { pool: 'sch-url-metrics' } },
      schema: {
        tags: ['serp-tool'],
        summary: 'Domain and page authority, citation and trust flow, TopRank of a URL',
        querystring: Type.Object({ url: Type.String({ minLength: 1, maxLength: 2048 }) }),
        response: errorResponses(401, 422, 429),
      },
    },
    async (req) => {
      const url = requireTargetUrl((req.query as { url: string }).url).input;
      const authority = engine.authority.forUrl(url);
      const links = engine.links.urlMetrics(url);
      if (!authority) throw errors.invalidParameter('url');
      const ts = unixSeconds(req.paid!.nowMs);
      return {
        _id: md5Hex(url),
        url,
        domain: authority.domain,
        m: {
          linkindex: {
            v: {
              CitationFlow: links?.v.CitationFlow ?? authority.citationFlow,
              TrustFlow: links?.v.TrustFlow ?? authority.trustFlow,
              RefDomains: links?.v.RefDomains ?? 0,
              ExtBackLinks: links?.v.ExtBackLinks ?? 0,
            },
            ts,
          },
          authority: { v: { pda: authority.pda, upa: authority.upa }, ts },
        },
        topRank: authority.topRank,
      };
    },
  );
}
