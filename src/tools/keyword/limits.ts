/**
 * GET /keyword-tool/limits: the account's plan, every pool's state, its tracked keywords and
 * trackings, and the configured plans compared. Works without a key (nothing remaining).
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { rankServices } from '../../rank/rankService.js';
import { answerServices } from '../../answers/answerService.js';
import { POOLS, type PoolName } from '../../policy/pools.js';
import { Ref } from '../common/schemas.js';
import { limitOptions } from './presenters.js';
import { keywordTags as tags, Limit, type PoolState } from './schemas.js';

/**
 * A pool whose `reset` the reference types as a non-null integer: 0 while no period runs
 * (nothing to wait for, the pool is whole). `related-keywords` and `serps` keep `null` then,
 * as the reference's prose says.
 */
const withReset = (state: PoolState) => ({ ...state, reset: state.reset ?? 0 });

/** A pool of stored objects (monitors, prompts): what the plan allows and what is left; nothing to wait for. */
const stock = (limit: number, used: number) => ({ limit, remaining: Math.max(0, limit - used), reset: null });

export async function limitsRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { policy, plans, state } = app.quarry;
  const options = limitOptions(Object.values(plans));

  app.get(
    '/limits',
    {
      config: { auth: 'optional' },
      schema: {
        tags,
        summary: 'Plan limits and the state of every quota pool (authentication optional)',
        description:
          'Without a key, or with an unknown one, the same answer with nothing in any pool (never a way to test a key). `reset` counts seconds until a pool is whole again.',
        security: [{ ApiKeyAuth: [] }, {}],
        response: { 200: Ref(Limit) },
      },
    },
    async (req): Promise<Limit> => {
      const account = req.account;
      let pools = {} as Record<PoolName, PoolState>;
      let tracked = { limit: 0, remaining: 0 };
      let trackings = 0;
      let answers = { monitors: stock(0, 0), prompts: stock(0, 0) };
      const plan = account ? policy.planOf(account) : null;
      if (!account || !plan) {
        // Never a way to validate a key: an unknown key looks exactly like no key.
        for (const pool of POOLS) pools[pool] = { limit: 0, remaining: 0, reset: null };
      } else {
        pools = await policy.poolStates(account);
        const { store } = rankServices(app.quarry);
        const used = await store.trackedKeywordCount(state.db, account.id);
        tracked = { limit: plan.trackedKeywords, remaining: Math.max(0, plan.trackedKeywords - used) };
        trackings = (await store.list(account.id, { withDeleted: false })).length;
        const live = await answerServices(app.quarry).store.liveCounts(account.id);
        answers = { monitors: stock(plan.aiWatcherMonitors, live.monitors), prompts: stock(plan.aiWatcherPrompts, live.prompts) };
      }
      return {
        'related-keywords-rows': plan?.relatedKeywordsRows ?? 0,
        'competitor-keywords-rows': plan?.competitorKeywordsRows ?? 0,
        'reqs-per-short-period': plan?.reqsPerShortPeriod ?? 3,
        api_quota: null,
        resources: {
          'related-keywords': pools['related-keywords'],
          serps: pools.serps,
          trends: withReset(pools.trends),
          links: withReset(pools.links),
          'sch-url-metrics': withReset(pools['sch-url-metrics']),
          'kw-url-metrics': withReset(pools['kw-url-metrics']),
          'lm-url-metrics': withReset(pools['lm-url-metrics']),
          'sp-overview': withReset(pools['sp-overview']),
          'lm-suggest': withReset(pools['lm-suggest']),
          tracked_keywords: tracked,
          'checked-keywords-ranks': { ...tracked, reset: null },
          'ai-watcher-prompts': answers.prompts,
          'ai-watcher-monitors': answers.monitors,
        },
        'tracked-keywords': plan?.trackedKeywords ?? 0,
        plan: plan?.name ?? null,
        // The entry plan is where accounts start (and fall back to); any other is an upgrade.
        upgraded_account: plan !== null && plan.name !== 'entry',
        limit_options: options,
        highestPlan: plan?.name ?? '',
        platformPlan: plan?.name ?? '',
        trackings,
        maxGeneratePrompts: plan?.maxGeneratePrompts ?? 0,
      };
    },
  );
}
