/**
 * Fills the keyword catalogue from a keyword provider: before a keyword lookup, the
 * keywords the catalogue does not hold for the lookup's language are asked of the provider
 * once for everyone: each keyword's answer is kept in the state store (providerAnswers.ts,
 * kind `keyword-data`; PostgreSQL in the scale mode, so every process sees what any process
 * bought), and a keyword the provider has no data for is kept as that answer for the same
 * time, so no process pays for it again. What the provider knows (volume, CPC, competition,
 * monthly searches) is then put in this process's research store like a Keyword Planner
 * import (origin `provider:<source>`; a research store is a per-process copy in the scale
 * mode), so every keyword tool serves it from then on without asking again.
 *
 * New keywords are not added to stored rank indexes (re-ranking a market takes minutes);
 * they rank from the next rank-index build. Keyword Planner CSV imports stay as they were.
 */
import type { Clock } from '../../lib/clock.js';
import { intentHints } from '../import/keywordsImport.js';
import type { ResearchStore } from '../researchStore.js';
import type { SearchEngine } from '../search/searchEngine.js';
import { normaliseKeyword } from '../search/text.js';
import { PROVIDER_ORIGIN, UNKNOWN_FIGURE } from '../search/keywordMetrics.js';
import { hash32 } from '../world/random.js';
import type { ProviderAnswers } from './providerAnswers.js';
import type { ProviderLedger } from './providerLedger.js';
import type { SandboxKeywordSource } from './sandbox.js';
import { SourceError, type KeywordData, type KeywordSource } from './types.js';

export interface KeywordFillOptions {
  sandbox: SandboxKeywordSource;
  provider: KeywordSource;
  /** Where the provider's answers are kept, shared by every process. */
  answers: ProviderAnswers;
  store: ResearchStore;
  search: SearchEngine;
  /** Makes keywords written to the store visible to the engine (search/index.ts reloadSearchKeywords). */
  reload: () => void;
}

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** Keywords one provider call takes (DataForSEO's search_volume: 1,000 a task). */
const KEYWORDS_PER_CALL = 1_000;

export class KeywordFill {
  constructor(private readonly options: KeywordFillOptions) {}

  /**
   * Asks the provider for the keywords the sandbox lacks and stores its answers; resolves
   * with the number of keywords stored. Rejects with a SourceError when the provider fails
   * (the route's charge is then released).
   */
  async fill(texts: readonly string[], locationId: number, languageId: number): Promise<number> {
    const { sandbox, provider, search, answers } = this.options;
    const lang = search.languageFor(locationId, languageId);
    const missing = [...new Set(texts.map(normaliseKeyword))].filter((kw) => kw !== '' && !sandbox.holds(kw, locationId, languageId));
    if (missing.length === 0) return 0;
    // Keys are stored as PostgreSQL text, which cannot hold NUL: `|` separates their parts.
    const keyOf = (kw: string) => `${kw}|${locationId}|${lang._id}`;
    const kwOf = new Map(missing.map((kw) => [keyOf(kw), kw]));
    const found = await answers.get<KeywordData>(provider.name, 'keyword-data', [...kwOf.keys()], KEYWORDS_PER_CALL, async (keys) => {
      const asked = keys.map((k) => kwOf.get(k)!);
      const byKw = new Map((await provider.keywordData(asked, locationId, languageId)).map((k) => [k.kw, k]));
      return asked.map((kw) => byKw.get(kw) ?? null);
    });
    // Bought here or by another process: this process's catalogue gets the figures.
    const rows = missing.map((kw) => found.get(keyOf(kw)) ?? null).filter((k): k is KeywordData => k !== null);
    if (rows.length === 0) return 0;
    const stored = storeKeywordData(this.options.store, rows, search.marketOf(locationId), lang._id, `${PROVIDER_ORIGIN}${provider.name}`);
    this.options.reload();
    return stored;
  }

  /**
   * Stores keyword figures a provider gave along with another answer (a seed's keyword
   * ideas, a site's ranking keywords) for the keywords the catalogue does not hold for the
   * location; resolves with the number stored (providerKeywords.ts).
   */
  store(rows: readonly KeywordData[], locationId: number, languageId: number): Promise<number> {
    const { sandbox, provider, search } = this.options;
    const lang = search.languageFor(locationId, languageId);
    const fresh = rows.filter((k) => !sandbox.holds(k.kw, locationId, languageId));
    if (fresh.length === 0) return Promise.resolve(0);
    const stored = storeKeywordData(this.options.store, fresh, search.marketOf(locationId), lang._id, `${PROVIDER_ORIGIN}${provider.name}`);
    this.options.reload();
    return Promise.resolve(stored);
  }
}

export { PROVIDER_ORIGIN };

/**
 * Writes provider keyword data into the research store's keyword tables, as the planner
 * import does (engine/import/keywordsImport.ts): a new keyword with its volume, CPC,
 * competition and a market share of 1 in its market; an existing one gets CPC and
 * competition and its share in the market; the months go to `keyword_history`.
 */
export function storeKeywordData(store: ResearchStore, rows: readonly KeywordData[], market: number, languageId: number, origin: string): number {
  const raw = store.raw;
  const find = raw.prepare('SELECT id, volume FROM keywords WHERE kw = ? AND language_id = ?');
  const nextId = raw.prepare('SELECT COALESCE(MAX(id), 0) + 1 FROM keywords').pluck();
  const insert = raw.prepare(`INSERT INTO keywords (id, kw, language_id, niche_id, head, kind, intent, volume, trend, noise_seed, cpc, ppc, origin)
    VALUES (?, ?, ?, NULL, ?, 'import', ?, ?, 1, ?, ?, ?, ?)`);
  const update = raw.prepare('UPDATE keywords SET cpc = COALESCE(?, cpc), ppc = COALESCE(?, ppc) WHERE id = ?');
  const share = raw.prepare('INSERT OR REPLACE INTO keyword_markets (keyword_id, location_id, share) VALUES (?, ?, ?)');
  const history = raw.prepare('INSERT OR REPLACE INTO keyword_history (keyword_id, location_id, year, month, searches) VALUES (?, ?, ?, ?, ?)');
  let stored = 0;
  raw.transaction(() => {
    for (const k of rows) {
      const existing = find.get(k.kw, languageId) as { id: number; volume: number } | undefined;
      let id: number;
      if (existing) {
        id = existing.id;
        update.run(k.cpc, k.competition, id);
        // The ratio to the stored volume, uncapped: the market's volume is `volume × share` as given (keywordMetrics.ts).
        if (market !== 0) share.run(id, market, k.volume / Math.max(1, existing.volume));
      } else {
        id = nextId.get() as number;
        insert.run(
          id,
          k.kw,
          languageId,
          k.kw,
          intentHints(k.kw),
          k.volume,
          hash32(`${languageId}:${k.kw}`),
          k.cpc ?? UNKNOWN_FIGURE,
          k.competition ?? UNKNOWN_FIGURE,
          origin,
        );
        if (market !== 0) share.run(id, market, 1);
      }
      for (const m of k.history) history.run(id, market, m.year, m.month, m.searches);
      stored++;
    }
    raw.prepare("DELETE FROM world_meta WHERE key = 'content_hash'").run();
  })();
  return stored;
}

/**
 * Runs a paid provider call inside a daily budget: reserves the estimate, then settles at
 * the reported cost, or refunds it when the call failed.
 */
export function budgetedSpend(ledger: ProviderLedger, account: string, dailyBudget: number, clock: Clock) {
  return async <T>(estimate: number, call: () => Promise<{ value: T; cost: number }>): Promise<T> => {
    const today = day(clock.now());
    if (!(await ledger.reserve(account, today, estimate, dailyBudget))) {
      throw new SourceError(account, 'budget', `${account}: the daily budget of $${dailyBudget} is spent`);
    }
    let result: { value: T; cost: number };
    try {
      result = await call();
    } catch (err) {
      await ledger.refund(account, today, estimate);
      throw err;
    }
    await ledger.settle(account, today, estimate, result.cost);
    return result.value;
  };
}
