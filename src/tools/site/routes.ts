/**
 * The site tool: the overview (pool `sp-overview`) and the free profiles derived from it —
 * audience (always 204), backlink profile, top content and competitors — which answer only
 * within 24 hours of an overview of the same `url` by the same account, else 429
 * `Not in history`.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { DEFAULT_SERP_LOCATION } from '../../engine/search/searchEngine.js';
import { errors } from '../../lib/errors.js';
import type { PaidOperation } from '../../policy/accessPolicy.js';
import { historyRoute } from '../common/history.js';
import { requireTargetUrl } from '../common/params.js';
import { linkTarget, type LinkTarget } from '../../engine/sources/links/linkTypes.js';
import { presentBacklinkProfile, presentCompetitors, presentOverview, presentTopContent } from './presenters.js';
import { RealSite } from './realSite.js';
import { audienceSchema, backlinkProfileSchema, competitorsSchema, overviewSchema, RequestItem, topContentSchema } from './schemas.js';

const OVERVIEW_LOOKUP = 'site-overview';

export async function siteToolRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { engine, policy, sources, search: searchEngine } = app.quarry;
  // Real mode (a link-index provider configured): every answer from the providers, never the sandbox's index.
  // (Read per request: `sources` and `engine` are views of the research data a request began on.)
  const realSite = (): RealSite | null =>
    sources.linkData
      ? new RealSite({
          data: sources.linkData,
          importedRank: (domain) => engine.authority.importedRank(domain),
          languageOf: (locationId) => searchEngine.languageFor(locationId, 0).code ?? 'en',
          rankLocation: DEFAULT_SERP_LOCATION,
        })
      : null;
  /** The provider target of a checked url (422 when it names no domain). */
  const realTarget = (url: string): LinkTarget => {
    const target = linkTarget(url);
    if (!target) throw errors.invalidParameter('url');
    return target;
  };

  const overview: PaidOperation<{ url: string }> = {
    pool: 'sp-overview',
    history: (p) => [{ tool: 'site', entry: p.url.trim() }],
    lookups: (p) => [{ kind: OVERVIEW_LOOKUP, key: requireTargetUrl(p.url).key }],
  };

  app.get('/overview', { config: { paid: overview }, schema: overviewSchema }, async (req) => {
    const url = requireTargetUrl(req.query.url).input;
    const real = realSite();
    if (real) return real.overview(realTarget(url));
    const result = engine.sites.overview(url);
    if (!result) throw errors.invalidParameter('url');
    // Ranking statistics from the rank indexes already built; opening the search engine is a no-op once the server has warmed it.
    const search = await engine.search();
    return presentOverview(result, search.hostRankStats(url));
  });

  /** The url of a dependent profile, once checked against the account's recent overviews. */
  const profiledUrl = async (accountId: string, raw: string): Promise<string> => {
    const target = requireTargetUrl(raw);
    if (!(await policy.hasRecentLookup(accountId, OVERVIEW_LOOKUP, target.key))) throw errors.notInHistory();
    return target.input;
  };

  app.get('/audience', { schema: audienceSchema }, async (req, reply) => {
    await profiledUrl(req.account!.id, req.query.url);
    return reply.code(204).send();
  });

  app.get('/backlink-profile', { schema: backlinkProfileSchema }, async (req) => {
    const url = await profiledUrl(req.account!.id, req.query.url);
    const real = realSite();
    if (real) return real.backlinkProfile(realTarget(url));
    const profile = engine.links.backlinkProfile(url);
    const target = engine.links.resolve(url);
    if (!profile || !target) throw errors.invalidParameter('url');
    return presentBacklinkProfile(profile, target.parsed.rootDomain);
  });

  app.get('/top-content', { schema: topContentSchema }, async (req) => {
    const url = await profiledUrl(req.account!.id, req.query.url);
    const real = realSite();
    if (real) return real.topContent(realTarget(url));
    const top = engine.links.topContent(url);
    if (!top) throw errors.invalidParameter('url');
    return presentTopContent(top);
  });

  app.get('/competitors', { schema: competitorsSchema }, async (req) => {
    const url = await profiledUrl(req.account!.id, req.query.url);
    const real = realSite();
    if (real) return real.competitors(realTarget(url), url, DEFAULT_SERP_LOCATION);
    // Organic competitors: the domains ranking for the site's keywords in the default market.
    const search = await engine.search();
    const byKeywords = engine.links.resolve(url) ? await search.organicCompetitors(url, DEFAULT_SERP_LOCATION, 20) : [];
    const competitors = engine.sites.competitorsByKeywords(url, byKeywords);
    const target = engine.links.resolve(url);
    if (!competitors || !target) throw errors.invalidParameter('url');
    return presentCompetitors(target, url, competitors);
  });

  historyRoute(app, '/requests', 'site', 'site-tool', RequestItem);
}
