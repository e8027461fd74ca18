/**
 * The site tool: the overview (pool `sp-overview`) and the free profiles derived from it —
 * audience (always 204), backlink profile, top content and competitors — which answer only
 * within 24 hours of an overview of the same `url` by the same account, else 429
 * `Not in history`.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { hexId } from '../../engine/index.js';
import { errors } from '../../http/errors.js';
import type { PaidOperation } from '../../policy/accessPolicy.js';
import { CACHE_TTL_MS } from '../../policy/policyStore.js';
import { historyRoute } from '../common/history.js';
import { errorResponses } from '../common/schemas.js';
import { requireTargetUrl } from '../common/params.js';

const OVERVIEW_LOOKUP = 'site-overview';
const UrlQuery = Type.Object({ url: Type.String({ minLength: 1, maxLength: 2048 }) });
const schemaOf = (summary: string, codes: number[]) => ({ tags: ['site-tool'], summary, querystring: UrlQuery, response: errorResponses(...codes) });

export async function siteToolRoutes(app: FastifyInstance): Promise<void> {
  const { engine, policy, clock } = app.quarry;

  const overview: PaidOperation<{ url: string }> = {
    pool: 'sp-overview',
    history: (p) => [{ tool: 'site', entry: p.url.trim() }],
    lookups: (p) => [{ kind: OVERVIEW_LOOKUP, key: requireTargetUrl(p.url).key }],
  };

  app.get(
    '/overview',
    { config: { paid: overview }, schema: schemaOf('Authority, flows, TopRank, referring IPs and social counts with history since 2016', [401, 422, 429]) },
    async (req) => {
      const url = requireTargetUrl((req.query as { url: string }).url).input;
      const result = engine.sites.overview(url);
      if (!result) throw errors.invalidParameter('url');
      const { urlType: _type, ...body } = result;
      return body;
    },
  );

  /** The url of a dependent profile, once checked against the account's recent overviews. */
  const profiledUrl = (req: FastifyRequest): string => {
    const target = requireTargetUrl((req.query as { url: string }).url);
    // Within the last 24 hours, like the request cache: an overview exactly 24 h ago no longer counts.
    if (!policy.store.hasLookup(req.account!.id, OVERVIEW_LOOKUP, target.key, clock.now() - CACHE_TTL_MS + 1)) throw errors.notInHistory();
    return target.input;
  };

  app.get('/audience', { schema: schemaOf('Audience (no data: always 204)', [401, 422, 429]) }, async (req, reply) => {
    profiledUrl(req);
    return reply.code(204).send();
  });

  app.get('/backlink-profile', { schema: schemaOf('Backlink profile: whole-domain stats for a domain', [401, 422, 429]) }, async (req) => {
    const profile = engine.links.backlinkProfile(profiledUrl(req));
    if (!profile) throw errors.invalidParameter('url');
    return profile;
  });

  app.get('/top-content', { schema: schemaOf('The pages of the site with the most links', [401, 422, 429]) }, async (req) => {
    const top = engine.links.topContent(profiledUrl(req));
    if (!top) throw errors.invalidParameter('url');
    return top;
  });

  app.get('/competitors', { schema: schemaOf('Sites sharing referring domains and topic', [401, 422, 429]) }, async (req) => {
    const url = profiledUrl(req);
    const competitors = engine.sites.competitors(url);
    const target = engine.links.resolve(url);
    if (!competitors || !target) throw errors.invalidParameter('url');
    return { id: target.rootDomainId === null ? null : hexId(target.rootDomainId), source: url, competitors };
  });

  historyRoute(app, '/requests', 'site', 'site-tool');
}
