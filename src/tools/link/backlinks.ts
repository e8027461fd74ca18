/**
 * The link tool's lookups: URL metrics (pool `lm-url-metrics`) and paged backlinks (pool
 * `links`, charged per returned link, a page cut to what remains in the pool).
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { errors } from '../../http/errors.js';
import { unixSeconds } from '../../lib/clock.js';
import { md5Hex } from '../../lib/ids.js';
import type { PaidOperation } from '../../policy/accessPolicy.js';
import { errorResponses } from '../common/schemas.js';
import { requireTargetUrl } from '../common/params.js';

/** Backlinks per page (link-tool rule 1). */
export const LINKS_PER_PAGE = 500;

interface LinksParams {
  url: string;
  source: 0 | 1 | 2;
  page: number;
  links_per_domain: 0 | 1;
}

const UrlQuery = Type.Object({ url: Type.String({ minLength: 1, maxLength: 2048 }) });

export async function backlinkRoutes(app: FastifyInstance): Promise<void> {
  const { engine } = app.quarry;

  app.get(
    '/url-metrics',
    {
      config: { paid: { pool: 'lm-url-metrics' } },
      schema: {
        tags: ['link-tool'],
        summary: 'Link index metrics of a URL, subdomain or root domain',
        querystring: UrlQuery,
        response: errorResponses(401, 422, 429),
      },
    },
    async (req) => {
      const url = requireTargetUrl((req.query as { url: string }).url).input;
      const metrics = engine.links.urlMetrics(url);
      if (!metrics) throw errors.invalidParameter('url');
      return [{ _id: md5Hex(metrics.target.name), url, m: { linkindex: { v: metrics.v, ts: unixSeconds(req.paid!.nowMs) } } }];
    },
  );

  const links: PaidOperation<LinksParams> = {
    pool: 'links',
    cost: () => LINKS_PER_PAGE,
    allowPartial: true,
    history: (p, _body, at) => [
      {
        tool: 'link',
        entry: {
          _id: md5Hex(`${p.url.trim()}\u0000${p.source}\u0000${p.links_per_domain}`),
          t: 0,
          created: unixSeconds(at.nowMs),
          url: p.url.trim(),
          source: p.source,
          links_per_domain: p.links_per_domain,
        },
      },
    ],
  };

  app.get(
    '/links',
    {
      config: { paid: links },
      schema: {
        tags: ['link-tool'],
        summary: 'Backlinks of a URL, subdomain or root domain, 500 a page, strongest first (pool charged per link returned)',
        querystring: Type.Object({
          url: Type.String({ minLength: 1, maxLength: 2048 }),
          // Integers (not unions of literals) so that the strict decimal check of http/validation.ts applies: Ajv alone reads " " as 0 and "1e0" as 1.
          source: Type.Optional(Type.Integer({ minimum: 0, maximum: 2, default: 0, description: '0 all, 1 new, 2 lost' })),
          page: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0 })),
          links_per_domain: Type.Optional(Type.Integer({ minimum: 0, maximum: 1, default: 0, description: '1: one link per referring domain' })),
        }),
        response: errorResponses(401, 422, 429),
      },
    },
    async (req) => {
      const q = req.query as LinksParams;
      const url = requireTargetUrl(q.url).input;
      // The page keeps its place in the list; only its length is cut to what remains.
      const limit = Math.min(LINKS_PER_PAGE, req.paid!.reserved);
      const page = engine.links.backlinks(url, { source: q.source, linksPerDomain: q.links_per_domain }, { offset: q.page * LINKS_PER_PAGE, limit });
      if (!page) throw errors.invalidParameter('url');
      req.paid!.charge(page.links.length);
      return page;
    },
  );
}
