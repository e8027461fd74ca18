/**
 * A second set of provider sources over a test app's state store and research data: what
 * another API process would make of `env` (nothing in its memory, the same stored answers).
 *
 * @example
 * const other = otherProcessSources(t, { ...keywordProviderEnv(fake) });
 * await other.providerKeywords!.related('coffee', 2840, 0, 100); // served from the store, nothing bought
 */
import { createSources, type EngineSources } from '../../src/engine/sources/index.js';
import { loadSourcesConfig } from '../../src/engine/sources/sourceConfig.js';
import { reloadSearchKeywords } from '../../src/engine/search/index.js';
import type { TestApp } from './app.js';

export function otherProcessSources(t: TestApp, env: Record<string, string>): EngineSources {
  const { ctx } = t;
  return createSources(loadSourcesConfig(env), {
    search: ctx.search,
    links: ctx.engine.links,
    authority: ctx.engine.authority,
    research: ctx.engine.store,
    reloadKeywords: () => reloadSearchKeywords(ctx.search, ctx.engine.store),
    state: ctx.state.db,
    locations: ctx.locations,
    clock: t.clock,
    metricsTs: 0,
  });
}
