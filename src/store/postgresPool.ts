/**
 * The scale mode's connections to PostgreSQL: a pg pool with deadlines, so that nothing waits
 * for ever — neither a statement (statement_timeout), nor a transaction its process left open
 * (idle_in_transaction_session_timeout: the server ends the session and its locks go with it),
 * nor a request waiting for a connection while every one is taken (the wait ends after
 * `waitMs` with StateStoreBusyError, answered 503 ServiceUnavailable with retry_after).
 *
 * Inside a transaction every statement must run on the transaction's own connection (pass
 * the transaction down): one that asked the pool for a second connection could wait for a
 * connection held by another transaction waiting the same way, and with every connection so
 * held the process hung (issue 28). The deadlines bound what such a mistake costs; they do
 * not make it right.
 */
import { createRequire } from 'node:module';
import type { PostgresPool, PostgresPoolClient } from 'kysely';
import type pg from 'pg';

/**
 * pg, loaded when a pool is first opened: only the scale mode opens one, and importing pg at
 * start was ~0.1 of an embedded restart's CPU-seconds (issue 26). pg is CommonJS, so a
 * synchronous require gives the same module object an import would.
 */
const pgModule = (): typeof pg => createRequire(import.meta.url)('pg') as typeof pg;

export interface PostgresPoolOptions {
  /** Connections per process (default 10). */
  max?: number;
  /** Longest a statement may run, lock waits included; 0 = no limit (default 30 s). */
  statementTimeoutMs?: number;
  /** Longest a session may sit in an open transaction without a statement; 0 = no limit (default 15 s). */
  idleInTransactionMs?: number;
  /** Longest a caller waits for a free connection before StateStoreBusyError (default 10 s). */
  waitMs?: number;
}

export const POSTGRES_POOL_DEFAULTS: Required<PostgresPoolOptions> = {
  max: 10,
  statementTimeoutMs: 30_000,
  idleInTransactionMs: 15_000,
  waitMs: 10_000,
};

/** Every connection was taken for longer than the pool's wait, or a statement ran past its deadline: nothing was done; retry. */
export class StateStoreBusyError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StateStoreBusyError';
  }
}

/**
 * int8 (bigint, COUNT(*)) as a JS number rather than pg's default string: every bigint of the
 * state store is a count, an id sequence or a millisecond timestamp, far below 2^53.
 * Per pool (not pg.types' global registry), so nothing else in the process is affected.
 */
const numericTypes = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    const { types } = pgModule();
    if (oid === types.builtins.INT8) return (value: string) => Number(value);
    // numeric: what avg() and sum() of bigints answer; the state store's are small figures.
    if (oid === types.builtins.NUMERIC) return (value: string) => Number(value);
    return types.getTypeParser(oid, format);
  },
};

/** A pool of the state store's connections, with the deadlines of `options` (defaults above). */
export function openPostgresPool(url: string, options: PostgresPoolOptions = {}): pg.Pool {
  const o = { ...POSTGRES_POOL_DEFAULTS, ...options };
  const pool = new (pgModule().Pool)({
    connectionString: url,
    max: o.max,
    types: numericTypes as pg.CustomTypesConfig,
    // Sent with each connection's start-up: they hold for every statement of the session.
    // (0 leaves the server's own setting, which is no limit unless its operator set one.)
    statement_timeout: o.statementTimeoutMs,
    idle_in_transaction_session_timeout: o.idleInTransactionMs,
    connectionTimeoutMillis: o.waitMs,
  });
  // An idle client's error (the server restarted, or ended a session idle in a transaction)
  // must not crash the process; the pool replaces the client.
  pool.on('error', (err) => process.emitWarning(`PostgreSQL pool: ${err.message}`));
  // A session the server ends while it is checked out (idle in a transaction past the
  // deadline) emits its error on the client, where pg-pool listens only while it is idle:
  // unheard, it would end the process. Heard here, the transaction's next statement fails
  // with it instead, and the pool drops the client when it comes back.
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

/**
 * The pool as Kysely sees it: a connection not had within the pool's wait rejects with
 * StateStoreBusyError rather than pg's plain Error, so that the edge answers 503.
 */
export function boundedPool(pool: pg.Pool): PostgresPool {
  return {
    async connect(): Promise<PostgresPoolClient> {
      try {
        return (await pool.connect()) as unknown as PostgresPoolClient;
      } catch (err) {
        if (isPoolWaitTimeout(err)) throw new StateStoreBusyError('every connection to the state store stayed taken', { cause: err });
        throw err;
      }
    },
    end: () => pool.end(),
  };
}

/** pg-pool's own words when the wait for a connection (or a new connection's start) ran out. */
function isPoolWaitTimeout(err: unknown): boolean {
  const message = (err as Error | null)?.message ?? '';
  return message === 'timeout exceeded when trying to connect' || message === 'Connection terminated due to connection timeout';
}

/**
 * Whether a PostgreSQL error means "busy, nothing done, retry": the pool's wait ran out, a
 * statement was cancelled by statement_timeout (57014; its transaction rolled back), a lock
 * was not had in time (55P03), or two transactions deadlocked and this one was chosen (40P01).
 */
export function isPostgresBusy(err: unknown): boolean {
  if (err instanceof StateStoreBusyError) return true;
  const code = (err as { code?: unknown } | null)?.code;
  return code === '57014' || code === '55P03' || code === '40P01';
}
