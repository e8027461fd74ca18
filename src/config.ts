import path from 'node:path';
import { DEFAULT_FREE_WRITES_PER_MINUTE, DEFAULT_REQUESTS_IN_FLIGHT } from './policy/fairUse.js';
import { POSTGRES_POOL_DEFAULTS, type PostgresPoolOptions } from './store/postgresPool.js';
import { loadSourcesConfig, SourceConfigError, type SourcesConfig } from './engine/sources/sourceConfig.js';
import { loadAnswerConfig, type AnswerConfig } from './answers/answerConfig.js';

/** Sizes of the sandbox web (see engine/world). */
export const WORLD_SIZES = ['tiny', 'small', 'large'] as const;
export type WorldSize = (typeof WORLD_SIZES)[number];
/**
 * QUARRY_WORLD_SIZE: a sandbox size, or `none` — no sandbox web at all (the production
 * setting): the research store starts empty and holds only what providers and imports put in.
 */
export const WORLD_SETTINGS = [...WORLD_SIZES, 'none'] as const;
export type WorldSetting = (typeof WORLD_SETTINGS)[number];

/** One typed configuration object, read from the environment and validated at start. */
export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** Requests per second per client IP at the gateway; 0 turns the gateway limit off. */
  gatewayRps: number;
  /**
   * Requests per second per dashboard session: a request through a live session is limited by
   * its session instead of its address (the page's own paced calls never meet the per-IP
   * gateway); over it, a JSON RateLimit with retry_after 1. 0 turns it off.
   */
  sessionRps: number;
  trustProxy: boolean;
  publicUrl: string;
  plansFile: string | null;
  worldSize: WorldSetting;
  worldSeed: number;
  logLevel: string;
  smtpUrl: string | null;
  /** Largest accepted request body in bytes; larger answers 413. */
  bodyLimit: number;
  /** Secret for signed download URLs; generated into the data dir when not given. */
  signingSecret: string | null;
  /** Free-write units per account per minute (lists, favourites); 0 turns the budget off. */
  freeWritesPerMinute: number;
  /** Requests of one account one API process works on at once (fair use). */
  requestsInFlight: number;
  /** Longest time a client may take to send a whole request (headers and body); 408 after. */
  requestTimeoutMs: number;
  /** Lifetime of a web dashboard session (/app), in hours. */
  sessionTtlHours: number;
  /** Which source serves SERPs, keyword data and links, and the providers' credentials and limits. */
  sources: SourcesConfig;
  /** Which AI models answer the answer tool's prompts, and their daily budget. */
  answers: AnswerConfig;
  /**
   * Scale mode: the policy's hot state (burst windows, pools, cooldowns, single-flight, cache
   * invalidation, gateway limit) on this Redis, shared by every API process. null: in-process.
   */
  redisUrl: string | null;
  /** Prefix of every Redis key Quarry writes (several deployments or test runs on one server). */
  redisPrefix: string;
  /**
   * Scale mode: the state store (accounts, keys, jobs, lists, favourites, rank tracking,
   * sessions, the request cache, lookups and histories) on this PostgreSQL. Needs redisUrl too:
   * the policy's counters live on Redis in the scale mode. null: SQLite under dataDir.
   */
  databaseUrl: string | null;
  /**
   * Where a process without the API role (`quarry worker`, `quarry scheduler`) answers GET
   * /metrics, on QUARRY_HOST; null: it exposes none. API processes answer /metrics on their port.
   */
  metricsPort: number | null;
  /**
   * The bearer token a scraper sends for GET /metrics (`Authorization: Bearer …`). An API process
   * answers /metrics on its own port only with it; null: not there at all (use metricsPort).
   */
  metricsToken: string | null;
  /** Scale mode: the state store's connections per process and their deadlines (store/postgresPool.ts). */
  postgresPool: Required<PostgresPoolOptions>;
  /**
   * On SIGTERM or SIGINT, how long `quarry serve` may take to finish the requests, jobs and
   * rounds in flight and close its stores; past it the process exits anyway (status 1).
   */
  drainTimeoutMs: number;
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^-?\d+$/.test(raw.trim())) throw new ConfigError(`${name} must be an integer, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const v = raw.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off'].includes(v)) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

function str(env: Env, name: string): string | null {
  const raw = env[name];
  return raw === undefined || raw.trim() === '' ? null : raw.trim();
}

/** QUARRY_METRICS_TOKEN: long enough not to be guessed, and sendable in a header as it is. */
function metricsToken(env: Env): string | null {
  const token = str(env, 'QUARRY_METRICS_TOKEN');
  if (token !== null && (token.length < 16 || !/^[\x21-\x7e]+$/.test(token))) {
    throw new ConfigError('QUARRY_METRICS_TOKEN must be at least 16 printable characters without spaces');
  }
  return token;
}

/** Reads and validates the configuration; throws ConfigError with a readable message. */
export function loadConfig(env: Env = process.env): Config {
  const port = int(env, 'QUARRY_PORT', 8080, 0, 65535);
  const host = str(env, 'QUARRY_HOST') ?? '127.0.0.1';
  const dataDir = path.resolve(str(env, 'QUARRY_DATA_DIR') ?? './data');
  const worldSize = (str(env, 'QUARRY_WORLD_SIZE') ?? 'small') as WorldSetting;
  if (!WORLD_SETTINGS.includes(worldSize)) {
    throw new ConfigError(`QUARRY_WORLD_SIZE must be one of ${WORLD_SETTINGS.join(', ')}, got "${worldSize}"`);
  }
  const publicUrl = (str(env, 'QUARRY_PUBLIC_URL') ?? `http://${host.includes(':') ? `[${host}]` : host}:${port}`).replace(/\/+$/, '');
  let parsedUrl: URL | null = null;
  try {
    parsedUrl = new URL(publicUrl);
  } catch {
    // reported below
  }
  // Download links and the OpenAPI servers entry are built on it: only http(s) makes sense.
  if (parsedUrl === null || (parsedUrl.protocol !== 'http:' && parsedUrl.protocol !== 'https:')) {
    throw new ConfigError(`QUARRY_PUBLIC_URL must be an absolute http(s) URL, got "${publicUrl}"`);
  }
  const logLevel = str(env, 'QUARRY_LOG_LEVEL') ?? 'info';
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) {
    throw new ConfigError(`QUARRY_LOG_LEVEL must be a pino level, got "${logLevel}"`);
  }
  const redisUrl = str(env, 'QUARRY_REDIS_URL');
  if (redisUrl !== null && !/^rediss?:\/\//.test(redisUrl)) throw new ConfigError('QUARRY_REDIS_URL must start with redis:// or rediss://');
  const databaseUrl = str(env, 'QUARRY_DATABASE_URL');
  if (databaseUrl !== null) {
    if (!/^postgres(ql)?:\/\//.test(databaseUrl)) throw new ConfigError('QUARRY_DATABASE_URL must start with postgres:// or postgresql://');
    // The burst windows, pools and cooldowns are admitted by Redis scripts in the scale mode;
    // there is no PostgreSQL implementation of them (docs/decisions.md, issue 13 part C).
    if (redisUrl === null) throw new ConfigError('QUARRY_DATABASE_URL needs QUARRY_REDIS_URL: on PostgreSQL the access policy keeps its counters on Redis');
  }
  const smtpUrl = str(env, 'QUARRY_SMTP_URL');
  if (smtpUrl !== null && !/^smtps?:\/\//.test(smtpUrl)) {
    throw new ConfigError(`QUARRY_SMTP_URL must start with smtp:// or smtps://`);
  }
  let sources: SourcesConfig;
  let answers: AnswerConfig;
  try {
    sources = loadSourcesConfig(env);
    answers = loadAnswerConfig(env, sources);
  } catch (err) {
    throw err instanceof SourceConfigError ? new ConfigError(err.message) : err;
  }
  return {
    port,
    host,
    dataDir,
    gatewayRps: int(env, 'QUARRY_GATEWAY_RPS', 4, 0, 1_000_000),
    sessionRps: int(env, 'QUARRY_SESSION_RPS', 10, 0, 1_000_000),
    trustProxy: bool(env, 'QUARRY_TRUST_PROXY', false),
    publicUrl,
    plansFile: str(env, 'QUARRY_PLANS_FILE'),
    worldSize,
    worldSeed: int(env, 'QUARRY_WORLD_SEED', 1, 0, 2 ** 31 - 1),
    logLevel,
    smtpUrl,
    bodyLimit: int(env, 'QUARRY_BODY_LIMIT', 2 * 1024 * 1024, 1024, 256 * 1024 * 1024),
    signingSecret: str(env, 'QUARRY_SIGNING_SECRET'),
    freeWritesPerMinute: int(env, 'QUARRY_FREE_WRITES_PER_MINUTE', DEFAULT_FREE_WRITES_PER_MINUTE, 0, 1_000_000),
    requestsInFlight: int(env, 'QUARRY_REQUESTS_IN_FLIGHT', DEFAULT_REQUESTS_IN_FLIGHT, 1, 1_000_000),
    requestTimeoutMs: int(env, 'QUARRY_REQUEST_TIMEOUT_MS', 30_000, 100, 600_000),
    sessionTtlHours: int(env, 'QUARRY_SESSION_TTL_HOURS', 12, 1, 24 * 30),
    sources,
    answers,
    redisUrl,
    redisPrefix: str(env, 'QUARRY_REDIS_PREFIX') ?? 'quarry:',
    databaseUrl,
    metricsPort: str(env, 'QUARRY_METRICS_PORT') === null ? null : int(env, 'QUARRY_METRICS_PORT', 0, 0, 65535),
    metricsToken: metricsToken(env),
    postgresPool: {
      max: int(env, 'QUARRY_PG_POOL_SIZE', POSTGRES_POOL_DEFAULTS.max, 1, 1_000),
      statementTimeoutMs: int(env, 'QUARRY_PG_STATEMENT_TIMEOUT_MS', POSTGRES_POOL_DEFAULTS.statementTimeoutMs, 0, 3_600_000),
      idleInTransactionMs: int(env, 'QUARRY_PG_IDLE_IN_TRANSACTION_MS', POSTGRES_POOL_DEFAULTS.idleInTransactionMs, 0, 3_600_000),
      // Never 0 (pg's "wait for ever"): a request waits for a connection at most this long, then answers 503.
      waitMs: int(env, 'QUARRY_PG_POOL_WAIT_MS', POSTGRES_POOL_DEFAULTS.waitMs, 100, 600_000),
    },
    drainTimeoutMs: int(env, 'QUARRY_DRAIN_TIMEOUT_MS', 20_000, 100, 3_600_000),
  };
}
