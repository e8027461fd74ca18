/**
 * Keywords a URL, domain or subdomain ranks for (GET and POST, one operation, parameters in
 * the query string), the competitor domains of a recent lookup (free), and suggested
 * keywords for a new rank tracking.
 */
import type { Static } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { classifyTarget } from '../../engine/search/index.js';
import { errors } from '../../lib/errors.js';
import { unixSeconds } from '../../lib/clock.js';
import type { PaidOperation } from '../../policy/accessPolicy.js';
import { MAX_COMPETITOR_KEYWORDS_ROWS } from '../../policy/plans.js';
import { lookupKey } from '../../policy/policyStore.js';
import { emptyResponse, errorResponses, Ref } from '../common/schemas.js';
import { requireLocation, requireTargetUrl } from '../common/params.js';
import { competitorLocation } from './competitorLocations.js';
import {
  CompetitorDomainsAnswer,
  keywordTags as tags,
  KeywordToolCompetitors,
  KeywordToolSuggestedKeywords,
  UrlLocationQuery,
  type KeywordToolCompetitors as CompetitorsAnswer,
} from './schemas.js';

type UrlLocation = Static<typeof UrlLocationQuery>;

/** Lookups of competitor keywords unlock competitor domains for the same url and location. */
const COMPETITOR_LOOKUP = 'competitor-keywords';
/** Competitor domains answered. */
const COMPETITOR_DOMAINS = 10;
const competitorLookupKey = (p: UrlLocation) => lookupKey(requireTargetUrl(p.url).key, p.location_id);

export async function competitorKeywordsRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { search, sources, locations, policy } = app.quarry;

  /** The location a lookup is computed for; null for an unsupported one; 422 for a bad url or unknown location. */
  const lookupLocation = (q: UrlLocation): number | null => {
    requireTargetUrl(q.url);
    requireLocation(locations, q.location_id);
    return competitorLocation(q.location_id, locations);
  };

  const paid: PaidOperation<UrlLocation, CompetitorsAnswer> = {
    pool: 'related-keywords',
    cacheAs: 'competitor-keywords',
    // An unsupported location is an empty 204 whatever the counters say: it charges nothing,
    // so it needs no burst slot or quota either.
    answerWithoutCharge: (q) => (lookupLocation(q) === null ? { status: 204 } : undefined),
    history: (p, body, at) => [{ tool: 'keyword', entry: { t: 1, url: p.url.trim(), location: body.location, created: unixSeconds(at.nowMs) } }],
    lookups: (p) => [{ kind: COMPETITOR_LOOKUP, key: competitorLookupKey(p) }],
  };

  const schema = {
    tags,
    summary: 'Keywords a URL, domain or subdomain ranks for (worst position first)',
    description:
      'Up to the plan’s competitor-keywords-rows (at most 1,000). Location 0 or a supported country (a city or region counts as its country); any other location answers 204 and charges nothing. GET and POST are one operation, parameters in the query string.',
    querystring: UrlLocationQuery,
    response: {
      200: Ref(KeywordToolCompetitors),
      204: emptyResponse('The location is not supported (nothing is charged)'),
      ...errorResponses(401, 422, 429),
    },
  };
  const options = { config: { paid }, schema };
  for (const method of ['GET', 'POST'] as const) {
    app.route({
      ...options,
      method,
      url: '/competitor-keywords',
      handler: async (req): Promise<CompetitorsAnswer> => {
        const q = req.query;
        const target = requireTargetUrl(q.url);
        // Supported: an unsupported location was answered before admission (answerWithoutCharge).
        const location = lookupLocation(q)!;
        const limit = Math.min(req.paid!.plan.competitorKeywordsRows, MAX_COMPETITOR_KEYWORDS_ROWS);
        // Real mode: the keyword provider's ranking database, not the sandbox's rank index.
        const provider = sources.providerKeywords;
        const result = provider
          ? await provider.competitorKeywords(target.input, location, limit)
          : await search.competitorKeywords(target.input, location, limit);
        // Default order: by the domain's ranking position, worst to best.
        const keywords = (await sources.settleDifficulty([...result.keywords])).sort((a, b) => b.position - a.position);
        return {
          url_type: result.url_type,
          location: result.location,
          keywords,
          totalCount: result.totalCount,
          page: 1,
          resultsSize: keywords.length,
          originalItemsCount: result.totalCount,
          isAllowedPagination: false,
        };
      },
    });
  }

  app.get(
    '/competitor-domain',
    {
      schema: {
        tags,
        summary: 'Competitor domains of a competitor-keywords lookup made in the last 24 hours (free)',
        description: 'Needs a competitor-keywords lookup of the same url and location within 24 hours; otherwise 422 `No result`.',
        querystring: UrlLocationQuery,
        response: { 200: CompetitorDomainsAnswer, ...errorResponses(401, 422) },
      },
    },
    async (req) => {
      const q = req.query;
      const target = requireTargetUrl(q.url);
      requireLocation(locations, q.location_id);
      if (!(await policy.hasRecentLookup(req.account!.id, COMPETITOR_LOOKUP, competitorLookupKey(q)))) throw errors.noResult();
      const location = competitorLocation(q.location_id, locations) ?? 0;
      // Real mode: the provider's organic competitors, not the sandbox's rank index.
      if (sources.providerKeywords) return sources.providerKeywords.competitorDomains(target.input, location, COMPETITOR_DOMAINS);
      const domains = await search.competitorDomains(target.input, location, COMPETITOR_DOMAINS);
      return domains.map((d) => d.domain);
    },
  );

  app.get(
    '/suggested-keywords',
    {
      config: { paid: { pool: 'related-keywords' } satisfies PaidOperation<UrlLocation> },
      schema: {
        tags,
        summary: 'Keywords to track for a URL, from its ranking keywords',
        description: 'Meant for creating a rank tracking: the keywords the URL ranks for, best position first.',
        querystring: UrlLocationQuery,
        response: { 200: Ref(KeywordToolSuggestedKeywords), ...errorResponses(401, 422, 429) },
      },
    },
    async (req) => {
      const q = req.query;
      const target = requireTargetUrl(q.url);
      requireLocation(locations, q.location_id);
      const location = competitorLocation(q.location_id, locations) ?? 0;
      const limit = Math.min(req.paid!.plan.competitorKeywordsRows, MAX_COMPETITOR_KEYWORDS_ROWS);
      // Real mode: the provider's ranking keywords, not the sandbox's rank index.
      const keywords = sources.providerKeywords
        ? await sources.providerKeywords.suggestedKeywords(target.input, location, limit)
        : await search.suggestedKeywords(target.input, location, limit);
      return {
        // The engine's classification, as competitor keywords report it: `www.` is the domain.
        url_type: classifyTarget(target.input).type,
        location: search.shortLocation(q.location_id),
        keywords,
        totalCount: keywords.length,
        page: 1,
        resultsSize: keywords.length,
        originalItemsCount: keywords.length,
        isAllowedPagination: false,
      };
    },
  );
}
