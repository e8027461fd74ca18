/**
 * The link tool's lookups: URL metrics (pool `lm-url-metrics`) and paged backlinks (pool
 * `links`, charged per returned link, a page cut to what remains in the pool).
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { errors } from '../../lib/errors.js';
import { unixSeconds } from '../../lib/clock.js';
import { md5Hex } from '../../lib/ids.js';
import type { PaidOperation } from '../../policy/accessPolicy.js';
import { errorResponses, Ref } from '../common/schemas.js';
import { requireTargetUrl } from '../common/params.js';
import { linkTarget } from '../../engine/sources/links/linkTypes.js';
import { ServedLinks } from '../../store/servedLinks.js';
import { presentBacklink } from './presenters.js';
import { notFoundInfo, presentProviderBacklink } from './realLinks.js';
import { BackLinks, LinksQuery, LinkToolUrlMetrics, UrlQuery, type BackLinksBody, type LinkToolUrlMetricsBody } from './schemas.js';

/** Backlinks per page (link-tool rule 1). */
export const LINKS_PER_PAGE = 500;

/** The query once Ajv applied the defaults. */
type LinksParams = Required<Static<typeof LinksQuery>>;

export async function backlinkRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { engine, sources, state } = app.quarry;
  const served = new ServedLinks(state.db);

  app.get(
    '/url-metrics',
    {
      config: { paid: { pool: 'lm-url-metrics' } },
      schema: {
        tags: ['link-tool'],
        summary: 'Link index metrics of a URL, subdomain or root domain',
        querystring: UrlQuery,
        response: { 200: Ref(LinkToolUrlMetrics), ...errorResponses(401, 422, 424, 429) },
      },
    },
    async (req): Promise<LinkToolUrlMetricsBody> => {
      const url = requireTargetUrl(req.query.url).input;
      if (sources.linkData) {
        // Real mode: the link-index provider's item info as given (issue 24: not the sandbox's "NotFound" with zeros).
        const target = linkTarget(url);
        if (!target) throw errors.invalidParameter('url');
        const [info] = await sources.linkData.itemInfo([target]);
        return [{ _id: md5Hex(target.name), url, m: { linkindex: { v: info ?? notFoundInfo(target), ts: unixSeconds(req.paid!.nowMs) } } }];
      }
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
        querystring: LinksQuery,
        response: { 200: Ref(BackLinks), ...errorResponses(401, 422, 424, 429) },
      },
    },
    async (req): Promise<BackLinksBody> => {
      const { url: raw, page: pageNumber, source = 0, links_per_domain = 0 } = req.query;
      const url = requireTargetUrl(raw).input;
      // The page keeps its place in the list; only its length is cut to what remains.
      const limit = Math.min(LINKS_PER_PAGE, req.paid!.reserved);
      if (sources.linkData) {
        // Real mode: the provider's list, paged through it (each page bought once for everyone).
        const target = linkTarget(url);
        if (!target) throw errors.invalidParameter('url');
        const page = await sources.linkData.backlinks(target, source, links_per_domain === 1, pageNumber * LINKS_PER_PAGE, limit);
        req.paid!.charge(page.links.length);
        const presented = page.links.map(presentProviderBacklink);
        // What the favourite operation may then mark for this account (store/servedLinks.ts).
        await served.record(req.account!.id, target.rootDomain, presented, req.paid!.nowMs);
        return { meta: { url_type: target.type, available_links: page.total ?? pageNumber * LINKS_PER_PAGE + page.links.length }, links: presented };
      }
      const page = engine.links.backlinks(url, { source, linksPerDomain: links_per_domain }, { offset: pageNumber * LINKS_PER_PAGE, limit });
      if (!page) throw errors.invalidParameter('url');
      req.paid!.charge(page.links.length);
      return { meta: page.meta, links: page.links.map(presentBacklink) };
    },
  );
}
