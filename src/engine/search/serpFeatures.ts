/**
 * Which SERP features a keyword's result page shows, and where.
 *
 * Features follow intent, as search engines place them (Google Search Central, "Visual
 * elements gallery of Google Search", 2024): questions get a featured snippet and
 * "people also ask"; local queries a map pack; commercial and transactional queries ads
 * and shopping results; news queries top stories; how-to queries videos; named entities
 * a knowledge panel. Whether an optional feature appears is drawn deterministically from
 * the keyword (same keyword, same features), with the rates below as the model's own
 * estimates of how often each feature shows for its intent.
 */
import { hashString32, unitNoise } from './deterministicNoise.js';
import type { IntentSignals } from './searchIntent.js';

export type Platform = 1 | 2;

/** Slot of blocks placed after the last organic result. */
export const AFTER_LAST = 1_000_000;

/** A feature block and the organic position it sits before (0 = above all organic results). */
export interface FeaturePlacement {
  type: string;
  /** Organic results above it; AFTER_LAST = after the last organic result. */
  afterOrganic: number;
  /** Desktop knowledge panels sit in the right-hand column. */
  column: 'main' | 'side';
  /** Pack members shown in the block. */
  members: number;
}

interface Rule {
  type: string;
  when: (s: IntentSignals) => boolean;
  rate: number;
  afterOrganic: (r: number) => number;
  members: (r: number) => number;
}

const pick = (r: number, lo: number, hi: number) => lo + Math.floor(r * (hi - lo + 1));

const RULES: Rule[] = [
  { type: 'ADV_TOP', when: (s) => s.commercial || s.transactional || s.local, rate: 0.85, afterOrganic: () => 0, members: (r) => pick(r, 1, 4) },
  { type: 'SHOP_RESULTS', when: (s) => s.transactional || s.commercial, rate: 0.55, afterOrganic: () => 0, members: (r) => pick(r, 4, 8) },
  { type: 'LOCAL_PACK', when: (s) => s.local, rate: 0.95, afterOrganic: () => 0, members: () => 3 },
  { type: 'FEATURED_SNIPPET', when: (s) => s.question || s.howTo, rate: 0.7, afterOrganic: () => 0, members: () => 0 },
  { type: 'KNO_GRAPH', when: (s) => s.entity, rate: 0.8, afterOrganic: () => 0, members: (r) => pick(r, 3, 6) },
  { type: 'TOP_STORIES', when: (s) => s.news, rate: 0.9, afterOrganic: (r) => pick(r, 0, 2), members: () => 3 },
  {
    type: 'SIMILAR_QUESTIONS',
    when: (s) => s.question || s.howTo || s.labels.includes('informational'),
    rate: 0.65,
    afterOrganic: (r) => pick(r, 1, 3),
    members: () => 4,
  },
  { type: 'VIDEO_PACK', when: (s) => s.howTo, rate: 0.75, afterOrganic: (r) => pick(r, 2, 5), members: () => 3 },
  {
    type: 'IMG_PACK',
    when: (s) => s.commercial || (s.labels.includes('informational') && !s.question),
    rate: 0.35,
    afterOrganic: (r) => pick(r, 3, 6),
    members: (r) => pick(r, 5, 8),
  },
  { type: 'ADV_BOTTOM', when: (s) => s.commercial || s.transactional, rate: 0.5, afterOrganic: () => AFTER_LAST, members: (r) => pick(r, 1, 3) },
  { type: 'SIMILAR_QUERIES', when: () => true, rate: 0.9, afterOrganic: () => AFTER_LAST, members: () => 8 },
];

/**
 * The features of a keyword's first page, in page order. `available(type)` says whether
 * the engine has content for a feature (e.g. news pages for top stories).
 */
export function chooseFeatures(
  keyword: string,
  signals: IntentSignals,
  platform: Platform,
  available: (type: string) => boolean = () => true,
): FeaturePlacement[] {
  const seed = hashString32(`features|${keyword}`);
  const out: FeaturePlacement[] = [];
  RULES.forEach((rule, i) => {
    if (!rule.when(signals) || !available(rule.type)) return;
    if (unitNoise(seed, i * 3) >= rule.rate) return;
    const column = rule.type === 'KNO_GRAPH' && platform === 1 ? 'side' : 'main';
    out.push({
      type: rule.type,
      afterOrganic: rule.afterOrganic(unitNoise(seed, i * 3 + 1)),
      column,
      members: rule.members(unitNoise(seed, i * 3 + 2)),
    });
  });
  // Stable order: by slot, rule order breaking ties (ads first, then the rest as listed).
  return out
    .map((f, i) => ({ f, i }))
    .sort((a, b) => a.f.afterOrganic - b.f.afterOrganic || a.i - b.i)
    .map(({ f }) => f);
}
