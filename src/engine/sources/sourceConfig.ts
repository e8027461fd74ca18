/**
 * Which source serves each capability, and the providers' credentials and limits, from the
 * environment (the README's configuration table). The sandbox stays the default of every
 * capability; choosing a provider without its credentials is a configuration error at start.
 */
import type { AuthoritySourceName, KeywordSourceName, LinkSourceName, SerpSourceName } from './types.js';

export interface ProviderLimits {
  /** Deadline of one provider call (ms). */
  timeoutMs: number;
  /** Retries after a rate-limit answer, a provider failure or a timeout. */
  retries: number;
  /** First backoff step (ms), doubled per retry. */
  backoffMs: number;
}

export interface SourcesConfig {
  serp: SerpSourceName;
  keywords: KeywordSourceName;
  links: LinkSourceName;
  authority: AuthoritySourceName;
  majestic: { apiKey: string; baseUrl: string } | null;
  /** base64 of `access_id:secret`, as Moz issues it. */
  moz: { token: string; baseUrl: string } | null;
  serpapi: { apiKey: string; baseUrl: string } | null;
  dataforseo: { login: string; password: string; baseUrl: string } | null;
  limits: ProviderLimits;
  /** Daily budget of SERP calls, US dollars. */
  serpDailyBudget: number;
  /** Daily budget of keyword-data calls, US dollars. */
  keywordDailyBudget: number;
  /** Price of one SERP call reserved before it (SerpApi: its price; DataForSEO: settled at the answer's `cost`). */
  serpCost: number;
  /** Price of one keyword-data task reserved before it (settled at the answer's `cost`). */
  keywordCost: number;
  /** Daily budget of link-index calls (Majestic or DataForSEO Backlinks), US dollars. */
  linkDailyBudget: number;
  /** Daily budget of authority calls (Moz or DataForSEO Backlinks), US dollars. */
  authorityDailyBudget: number;
  /** What one Majestic command is counted at (Majestic bills subscription units, not dollars: an estimate). */
  majesticCost: number;
  /** Price of one Moz url_metrics row (one target). */
  mozRowCost: number;
  /** Price of one DataForSEO Backlinks call reserved before it (settled at the answer's `cost`). */
  backlinksCost: number;
}

export class SourceConfigError extends Error {}

export type Env = Record<string, string | undefined>;

const SERP_SOURCES: readonly SerpSourceName[] = ['sandbox', 'serpapi', 'dataforseo'];
const KEYWORD_SOURCES: readonly KeywordSourceName[] = ['sandbox', 'dataforseo'];
const LINK_SOURCES: readonly LinkSourceName[] = ['sandbox', 'majestic', 'dataforseo'];
const AUTHORITY_SOURCES: readonly AuthoritySourceName[] = ['sandbox', 'moz', 'dataforseo'];

/** Documented list prices, used as the reservation when no price is configured. */
const DEFAULT_SERP_COST: Record<SerpSourceName, number> = { sandbox: 0, serpapi: 0.015, dataforseo: 0.002 };
const DEFAULT_KEYWORD_COST = 0.075;

export function str(env: Env, name: string): string | null {
  const raw = env[name];
  return raw === undefined || raw.trim() === '' ? null : raw.trim();
}

function choice<T extends string>(env: Env, name: string, allowed: readonly T[]): T {
  const value = (str(env, name) ?? 'sandbox').toLowerCase() as T;
  if (!allowed.includes(value)) throw new SourceConfigError(`${name} must be one of ${allowed.join(', ')}, got "${env[name]}"`);
  return value;
}

export function number(env: Env, name: string, fallback: number, min: number, max: number, integer = false): number {
  const raw = str(env, name);
  if (raw === null) return fallback;
  const pattern = integer ? /^\d+$/ : /^\d+(\.\d+)?$/;
  if (!pattern.test(raw)) throw new SourceConfigError(`${name} must be a${integer ? 'n integer' : ' number'}, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new SourceConfigError(`${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}

export function baseUrl(env: Env, name: string, fallback: string): string {
  const value = str(env, name) ?? fallback;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new SourceConfigError(`${name} must be an absolute http(s) URL, got "${value}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new SourceConfigError(`${name} must be an absolute http(s) URL, got "${value}"`);
  return value.replace(/\/+$/, '');
}

export function loadSourcesConfig(env: Env): SourcesConfig {
  const serp = choice(env, 'QUARRY_SERP_SOURCE', SERP_SOURCES);
  const keywords = choice(env, 'QUARRY_KEYWORD_SOURCE', KEYWORD_SOURCES);
  const links = choice(env, 'QUARRY_LINK_SOURCE', LINK_SOURCES);
  const authority = choice(env, 'QUARRY_AUTHORITY_SOURCE', AUTHORITY_SOURCES);
  const majesticKey = str(env, 'QUARRY_MAJESTIC_KEY');
  const majesticUrl = baseUrl(env, 'QUARRY_MAJESTIC_URL', 'https://api.majestic.com');
  const mozToken = str(env, 'QUARRY_MOZ_TOKEN');
  const mozUrl = baseUrl(env, 'QUARRY_MOZ_URL', 'https://lsapi.seomoz.com');
  if (links === 'majestic' && majesticKey === null) throw new SourceConfigError('QUARRY_LINK_SOURCE=majestic needs QUARRY_MAJESTIC_KEY');
  if ((links === 'sandbox') !== (authority === 'sandbox')) {
    // Real authority over the sandbox's links (or the reverse) would mix two webs in one answer.
    throw new SourceConfigError('QUARRY_LINK_SOURCE and QUARRY_AUTHORITY_SOURCE must both name providers, or both be the sandbox');
  }
  if (authority === 'moz' && mozToken === null) throw new SourceConfigError('QUARRY_AUTHORITY_SOURCE=moz needs QUARRY_MOZ_TOKEN');
  const serpapiKey = str(env, 'QUARRY_SERPAPI_KEY');
  const serpapiUrl = baseUrl(env, 'QUARRY_SERPAPI_URL', 'https://serpapi.com');
  const dataforseoUrl = baseUrl(env, 'QUARRY_DATAFORSEO_URL', 'https://api.dataforseo.com');
  if (serp === 'serpapi' && serpapiKey === null) throw new SourceConfigError('QUARRY_SERP_SOURCE=serpapi needs QUARRY_SERPAPI_KEY');
  const login = str(env, 'QUARRY_DATAFORSEO_LOGIN');
  const password = str(env, 'QUARRY_DATAFORSEO_PASSWORD');
  const needsDataForSeo = serp === 'dataforseo' || keywords === 'dataforseo' || links === 'dataforseo' || authority === 'dataforseo';
  if (needsDataForSeo && (login === null || password === null)) {
    throw new SourceConfigError('the dataforseo source needs QUARRY_DATAFORSEO_LOGIN and QUARRY_DATAFORSEO_PASSWORD');
  }
  return {
    serp,
    keywords,
    links,
    authority,
    majestic: majesticKey === null ? null : { apiKey: majesticKey, baseUrl: majesticUrl },
    moz: mozToken === null ? null : { token: mozToken, baseUrl: mozUrl },
    serpapi: serpapiKey === null ? null : { apiKey: serpapiKey, baseUrl: serpapiUrl },
    dataforseo: login === null || password === null ? null : { login, password, baseUrl: dataforseoUrl },
    limits: {
      timeoutMs: number(env, 'QUARRY_SOURCE_TIMEOUT_MS', 60_000, 10, 600_000, true),
      retries: number(env, 'QUARRY_SOURCE_RETRIES', 3, 0, 10, true),
      backoffMs: number(env, 'QUARRY_SOURCE_BACKOFF_MS', 1_000, 0, 60_000, true),
    },
    serpDailyBudget: number(env, 'QUARRY_SERP_DAILY_BUDGET_USD', 5, 0, 1_000_000),
    keywordDailyBudget: number(env, 'QUARRY_KEYWORD_DAILY_BUDGET_USD', 5, 0, 1_000_000),
    serpCost: number(env, 'QUARRY_SERP_COST_USD', DEFAULT_SERP_COST[serp], 0, 100),
    keywordCost: number(env, 'QUARRY_KEYWORD_COST_USD', DEFAULT_KEYWORD_COST, 0, 100),
    linkDailyBudget: number(env, 'QUARRY_LINK_DAILY_BUDGET_USD', 5, 0, 1_000_000),
    authorityDailyBudget: number(env, 'QUARRY_AUTHORITY_DAILY_BUDGET_USD', 5, 0, 1_000_000),
    majesticCost: number(env, 'QUARRY_MAJESTIC_COST_USD', 0.01, 0, 100),
    mozRowCost: number(env, 'QUARRY_MOZ_ROW_COST_USD', 0.002, 0, 100),
    backlinksCost: number(env, 'QUARRY_BACKLINKS_COST_USD', 0.02, 0, 100),
  };
}
