/**
 * POST /keyword-tool/gap-analysis (pool `related-keywords`): keywords each competitor ranks
 * for and the domain does not, one result per competitor. Each competitor is one lookup
 * unless the same domain, competitor, location and page were asked within 24 hours; pages
 * beyond 1 only on plans that allow it.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { unixSeconds } from '../../lib/clock.js';
import type { PaidOperation } from '../../policy/accessPolicy.js';
import type { Plan } from '../../policy/plans.js';
import { lookupKey } from '../../policy/policyStore.js';
import { errorResponses, Ref } from '../common/schemas.js';
import { requireLocation, requireTargetUrl } from '../common/params.js';
import { GapAnalysisBody, KeywordToolGapAnalysis, keywordTags as tags } from './schemas.js';

export const GAP_PAGE_SIZE = 100;
const GAP_LOOKUP = 'gap';

/** The body with its default page filled in by the schema. */
type GapBody = Required<GapAnalysisBody>;

/** The page a plan gets: as asked where pagination is allowed, page 1 otherwise. */
const effectivePage = (plan: Plan, page: number) => (plan.gapPagination ? page : 1);
const normalised = (url: string) => url.trim().toLowerCase();
const gapKey = (b: GapBody, competitor: string, page: number) => lookupKey(normalised(b.domain), normalised(competitor), b.location_id, page);

export async function gapAnalysisRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { search, sources, locations } = app.quarry;

  const distinctCompetitors = (b: GapBody) => [...new Set(b.competitors.map(normalised))];

  const paid: PaidOperation<GapBody> = {
    pool: 'related-keywords',
    cost: async (b, ctx) => {
      const page = effectivePage(ctx.plan, b.page);
      const recent = await Promise.all(distinctCompetitors(b).map((c) => ctx.hasRecentLookup(GAP_LOOKUP, gapKey(b, c, page))));
      return recent.filter((made) => !made).length;
    },
    lookups: (b, body) => distinctCompetitors(b).map((c) => ({ kind: GAP_LOOKUP, key: gapKey(b, c, body.page) })),
    history: (b, body, at) => [
      {
        tool: 'keyword',
        entry: {
          t: 2,
          domain: b.domain.trim(),
          competitors: b.competitors.map((c) => c.trim()),
          location: search.shortLocation(b.location_id),
          page: body.page,
          created: unixSeconds(at.nowMs),
        },
      },
    ],
  };

  app.post(
    '/gap-analysis',
    {
      config: { paid },
      schema: {
        tags,
        summary: 'Keywords competitors rank for and the domain does not',
        description:
          'One result per competitor (1 to 5), each charged as one lookup unless the same domain, competitor, location and page were asked within 24 hours. Pages beyond 1 only on plans with gap pagination.',
        body: GapAnalysisBody,
        response: { 200: Ref(KeywordToolGapAnalysis), ...errorResponses(401, 422, 429) },
      },
    },
    async (req) => {
      // The schema fills in the default page.
      const b = { ...req.body, page: req.body.page ?? 1 };
      const domain = requireTargetUrl(b.domain, 'domain');
      b.competitors.forEach((c) => requireTargetUrl(c, 'competitors'));
      requireLocation(locations, b.location_id);
      const page = effectivePage(req.paid!.plan, b.page);
      const results = [];
      // One result per competitor, as charged: a competitor named twice is one competitor.
      const competitors = [...new Map(b.competitors.map((c) => [normalised(c), c.trim()])).values()];
      for (const competitor of competitors) {
        const gap = await search.gap(domain.input, competitor, b.location_id, page, GAP_PAGE_SIZE);
        // Ordered by the competitor's position, best first.
        const keywords = (await sources.settleDifficulty([...gap.keywords])).sort((x, y) => x.position - y.position);
        results.push({ domain: gap.domain, totalCount: gap.totalCount, originalItemsCount: gap.totalCount, keywords });
      }
      return {
        isAllowedPagination: req.paid!.plan.gapPagination,
        page,
        resultsSize: GAP_PAGE_SIZE,
        mode: 'missing',
        results,
      };
    },
  );
}
