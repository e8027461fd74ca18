import fs from 'node:fs';
import { RANK_STORAGE_PER_ACCOUNT } from './fairUse.js';
import { POOLS, type PoolName } from './pools.js';

/** The client classes of the access policy; the class picks the burst window. */
export const CLIENT_CLASSES = ['api', 'web', 'mcp'] as const;
export type ClientClass = (typeof CLIENT_CLASSES)[number];

export interface Plan {
  name: string;
  /** Pool sizes: per 24-hour period for daily pools, per calendar month for `links`. */
  pools: Record<PoolName, number>;
  relatedKeywordsRows: number;
  competitorKeywordsRows: number;
  trackedKeywords: number;
  /** Whether gap analysis honours `page` beyond 1. */
  gapPagination: boolean;
  /** Burst size: admitted requests per window, per account and pool. */
  reqsPerShortPeriod: number;
  /** Burst window length per client class, in milliseconds. */
  burstWindowMs: Record<ClientClass, number>;
  /** Minimum time between two keyword imports of API-key clients, in milliseconds. */
  importCooldownMs: number;
  /** Answer monitors alive at once (the `ai-watcher-monitors` pool). */
  aiWatcherMonitors: number;
  /** Prompts of live answer monitors (the `ai-watcher-prompts` pool; one per prompt, whatever the models). */
  aiWatcherPrompts: number;
  /** Prompt suggestions one POST /answer-tool/prompts/generate answers. */
  maxGeneratePrompts: number;
}

/** Answer monitoring per plan: monitors, prompts and suggested prompts (README, "AI answer monitoring"). */
const ANSWER_LIMITS: Record<string, [number, number, number]> = {
  entry: [1, 25, 10],
  basic: [3, 100, 10],
  premium: [25, 2_000, 25],
  agency: [50, 5_000, 50],
  'api-pro': [100, 10_000, 50],
  custom: [100, 10_000, 50],
};

/** Hard ceilings of the contract, whatever a plan file says. */
export const MAX_RELATED_KEYWORDS_ROWS = 10_000;
export const MAX_COMPETITOR_KEYWORDS_ROWS = 1_000;
/** The contract's floor for the keyword import size. */
export const MIN_IMPORT_SIZE = 200;

const CONTRACT_WINDOWS: Record<ClientClass, number> = { api: 30_000, web: 1_000, mcp: 1_000 };

function uniformPools(daily: number, overview: number, links: number): Record<PoolName, number> {
  const pools = {} as Record<PoolName, number>;
  for (const pool of POOLS) pools[pool] = daily;
  pools['sp-overview'] = overview;
  pools.links = links;
  return pools;
}

function plan(
  name: string,
  daily: number,
  overview: number,
  links: number,
  rows: number,
  competitorRows: number,
  tracked: number,
  gapPagination: boolean,
): Plan {
  return {
    name,
    pools: uniformPools(daily, overview, links),
    relatedKeywordsRows: rows,
    competitorKeywordsRows: competitorRows,
    trackedKeywords: tracked,
    gapPagination,
    reqsPerShortPeriod: 3,
    burstWindowMs: { ...CONTRACT_WINDOWS },
    importCooldownMs: 30_000,
    aiWatcherMonitors: ANSWER_LIMITS[name][0],
    aiWatcherPrompts: ANSWER_LIMITS[name][1],
    maxGeneratePrompts: ANSWER_LIMITS[name][2],
  };
}

/** The default plans of DESIGN.md §3. */
export const DEFAULT_PLANS: Record<string, Plan> = {
  entry: plan('entry', 100, 20, 100_000, 200, 200, 200, false),
  basic: plan('basic', 100, 20, 100_000, 200, 200, 200, false),
  premium: plan('premium', 500, 70, 500_000, 700, 700, 700, true),
  agency: plan('agency', 1200, 150, 1_200_000, 1200, 1000, 1500, true),
  'api-pro': plan('api-pro', 2000, 300, 2_000_000, 2000, 1000, 2000, true),
  // The contract leaves custom values to the operator; until a plans file says otherwise,
  // custom starts from api-pro with the contract's row ceilings.
  custom: plan('custom', 2000, 300, 2_000_000, MAX_RELATED_KEYWORDS_ROWS, MAX_COMPETITOR_KEYWORDS_ROWS, 2000, true),
};

export class PlanFileError extends Error {}

const posInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0;

/**
 * Reads a plans file: `{ "<plan>": { "pools": {"serps": 900, ...}, "relatedKeywordsRows": 5000, ... } }`.
 * Each entry overrides fields of the default plan of that name (or of `custom` for a new
 * name). Row limits are clamped to the contract's ceilings and the import-size floor.
 */
export function loadPlans(file: string | null): Record<string, Plan> {
  const plans: Record<string, Plan> = structuredClone(DEFAULT_PLANS);
  if (!file) return plans;
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new PlanFileError(`cannot read plans file ${file}: ${(err as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new PlanFileError(`plans file ${file} must hold a JSON object of plans`);
  }
  for (const [name, raw] of Object.entries(parsed as Record<string, Record<string, unknown>>)) {
    if (!/^[a-z0-9][a-z0-9_-]{0,39}$/.test(name)) throw new PlanFileError(`plan name "${name}" is invalid`);
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new PlanFileError(`plan ${name}: must be an object of fields`);
    const base = structuredClone(plans[name] ?? plans.custom);
    const p: Plan = { ...base, name };
    const fail = (field: string) => new PlanFileError(`plan ${name}: ${field} must be a non-negative integer`);
    const isObject = (v: unknown) => v === undefined || (typeof v === 'object' && v !== null && !Array.isArray(v));
    if (!isObject(raw.pools)) throw new PlanFileError(`plan ${name}: pools must be an object of pool sizes`);
    if (!isObject(raw.burstWindowMs)) throw new PlanFileError(`plan ${name}: burstWindowMs must be an object of window lengths`);
    for (const [pool, size] of Object.entries(raw.pools ?? {})) {
      if (!(POOLS as readonly string[]).includes(pool)) throw new PlanFileError(`plan ${name}: unknown pool "${pool}"`);
      if (!posInt(size)) throw fail(`pools.${pool}`);
      p.pools[pool as PoolName] = size;
    }
    for (const field of [
      'relatedKeywordsRows',
      'competitorKeywordsRows',
      'trackedKeywords',
      'reqsPerShortPeriod',
      'importCooldownMs',
      'aiWatcherMonitors',
      'aiWatcherPrompts',
      'maxGeneratePrompts',
    ] as const) {
      if (raw[field] === undefined) continue;
      if (!posInt(raw[field])) throw fail(field);
      p[field] = raw[field];
    }
    if (raw.gapPagination !== undefined) {
      // Boolean("no") would be true: only a JSON boolean is accepted.
      if (typeof raw.gapPagination !== 'boolean') throw new PlanFileError(`plan ${name}: gapPagination must be true or false`);
      p.gapPagination = raw.gapPagination;
    }
    for (const [cls, ms] of Object.entries(raw.burstWindowMs ?? {})) {
      if (!(CLIENT_CLASSES as readonly string[]).includes(cls) || !posInt(ms) || ms === 0) throw fail(`burstWindowMs.${cls}`);
      p.burstWindowMs[cls as ClientClass] = ms;
    }
    if (p.reqsPerShortPeriod < 1) throw new PlanFileError(`plan ${name}: reqsPerShortPeriod must be at least 1`);
    p.relatedKeywordsRows = Math.min(MAX_RELATED_KEYWORDS_ROWS, Math.max(MIN_IMPORT_SIZE, p.relatedKeywordsRows));
    p.competitorKeywordsRows = Math.min(MAX_COMPETITOR_KEYWORDS_ROWS, p.competitorKeywordsRows);
    // Live tracked keywords are stored ones too: a plan cannot track more than the storage quota keeps.
    p.trackedKeywords = Math.min(RANK_STORAGE_PER_ACCOUNT.trackedKeywords, p.trackedKeywords);
    plans[name] = p;
  }
  return plans;
}
