/** GET /serp-tool/url-metrics (pool `sch-url-metrics`): link index, authority and social metrics of a URL, and its TopRank. */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { errors } from '../../lib/errors.js';
import { unixSeconds } from '../../lib/clock.js';
import { md5Hex } from '../../lib/ids.js';
import { errorResponses, Ref } from '../common/schemas.js';
import { requireTargetUrl } from '../common/params.js';
import { notFoundInfo } from '../link/realLinks.js';
import { linkTarget } from '../../engine/sources/links/linkTypes.js';
import { SerpToolUrlMetrics, UrlQuery, type SerpToolUrlMetricsBody } from './schemas.js';

export async function serpUrlMetricsRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { engine, sources } = app.quarry;
  app.get(
    '/url-metrics',
    {
      config: { paid: { pool: 'sch-url-metrics' } },
      schema: {
        tags: ['serp-tool'],
        summary: 'Domain and page authority, link index item info, social shares and TopRank of a URL',
        querystring: UrlQuery,
        response: { 200: Ref(SerpToolUrlMetrics), ...errorResponses(401, 422, 424, 429) },
      },
    },
    async (req): Promise<SerpToolUrlMetricsBody> => {
      const url = requireTargetUrl(req.query.url).input;
      if (sources.linkData) {
        // Real mode: the providers' item info and authority; TopRank from the imported rank lists; no social counts.
        const target = linkTarget(url);
        if (!target) throw errors.invalidParameter('url');
        const [[info], [a]] = await Promise.all([sources.linkData.itemInfo([target]), sources.linkData.authority([target])]);
        const ts = unixSeconds(req.paid!.nowMs);
        return {
          _id: md5Hex(url),
          url,
          domain: target.rootDomain,
          m: {
            linkindex: { v: info ?? notFoundInfo(target), ts },
            authority: { v: { pda: a?.pda ?? null, upa: a?.upa ?? null, ...(a && a.spam !== null ? { spam: a.spam } : {}) }, ts },
            social: { v: { l: null, og: null }, ts },
            rank: null,
          },
          topRank: engine.authority.importedRank(url),
        };
      }
      const authority = engine.authority.forUrl(url);
      const links = engine.links.urlMetrics(url);
      if (!authority || !links) throw errors.invalidParameter('url');
      const ts = unixSeconds(req.paid!.nowMs);
      return {
        _id: md5Hex(url),
        url,
        domain: authority.domain,
        m: {
          linkindex: { v: links.v, ts },
          authority: { v: { pda: authority.pda, upa: authority.upa }, ts },
          // Open Graph tags are never fetched (og null); the share count is null for a target the index does not know.
          social: { v: { l: links.social, og: null }, ts },
          // No rank metric of its own: the TopRank below is the only rank we have.
          rank: null,
        },
        topRank: authority.topRank,
      };
    },
  );
}
