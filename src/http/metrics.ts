/**
 * GET /metrics in Prometheus text format (prom-client): requests by route and status, paid
 * admissions and refusals by pool and reason, cache hits by pool. Counted at the edge from what each answer was: a paid route's 2xx answered from
 * cache is a hit, any other 2xx an admission, a 429/402 a refusal with the error's type as
 * reason. They join the process's registry (metrics/processMetrics.ts: Node's process metrics,
 * the job queue's depth, job durations, rank checks, e-mails). Not under /v3 and not in the OpenAPI
 * document. On the API port it is answered only to a scraper that sends the bearer token
 * QUARRY_METRICS_TOKEN (without one configured the route does not exist there): the API port
 * faces clients, and a process's counters are the operator's. QUARRY_METRICS_PORT serves them
 * on a port of their own instead (metrics/metricsServer.ts).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Counter, type CounterConfiguration, type Registry } from 'prom-client';
import type { QuarryContext } from './context.js';
import { bearerMatches } from '../metrics/metricsServer.js';
import { ApiError } from '../lib/errors.js';
import type { Answered } from './answered.js';

/** A route's tallies, on its config (Fastify copies the route's config to the one requests see). */
const TALLIES = Symbol('quarry.tallies');

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * What the request is counted under (`routeTallies` of its route), set by a hook the route
     * runs anyway (app.ts: a /v3 route's authentication): reading `req.routeOptions` when the
     * answer has gone builds a dozen-field object and asks the router about version
     * constraints, every request (issue 26). Unset, the count reads it there.
     */
    tallies: object | null;
  }
}

/** A route's tallies, from its config once `registerMetrics` has seen the route added (`req.tallies`). */
export function routeTallies(config: unknown): object | null {
  return (config as { [TALLIES]?: RouteTallies } | undefined)?.[TALLIES] ?? null;
}

/**
 * Registers the counters and GET /metrics; answers the function that counts an answer, which
 * the edge calls once each has gone (answered.ts).
 */
export async function registerMetrics(app: FastifyInstance, ctx: Pick<QuarryContext, 'metrics' | 'config'>): Promise<Answered> {
  const registry = ctx.metrics.registry;
  const requests = counter(registry, {
    name: 'quarry_http_requests_total',
    help: 'HTTP requests answered, by route template and status code',
    labelNames: ['method', 'route', 'status'] as const,
  });
  const admissions = counter(registry, {
    name: 'quarry_admissions_total',
    help: 'Paid requests admitted and executed (not from cache), by quota pool',
    labelNames: ['pool'] as const,
  });
  const refusals = counter(registry, {
    name: 'quarry_refusals_total',
    help: 'Paid requests refused by the access policy, by quota pool and reason (the error type)',
    labelNames: ['pool', 'reason'] as const,
  });
  const cacheHits = counter(registry, {
    name: 'quarry_cache_hits_total',
    help: 'Paid requests answered from the 24-hour request cache, by quota pool',
    labelNames: ['pool'] as const,
  });
  // A request's label sets are worked out once per route, method and status, and counted in a
  // plain number handed to prom-client at the next scrape: inc() hashes and checks its labels
  // every time (issue 26: the edge's cost per cache hit). Each route's template and pool are
  // fixed when it is added, on the route's config, which every request of it reads.
  const count = (tallies: RouteTallies, req: FastifyRequest, reply: FastifyReply) => {
    const status = reply.statusCode;
    // One route may answer several methods (and unmatched requests any): the method is part of the key.
    let byStatus = tallies.byMethod.get(req.method);
    if (byStatus === undefined) {
      byStatus = new Map();
      tallies.byMethod.set(req.method, byStatus);
    }
    let counted = byStatus.get(status);
    if (counted === undefined) {
      const pool = tallies.pool;
      counted = {
        requests: tally(registry, requests, { method: req.method, route: tallies.route, status: String(status) }),
        hits: pool === undefined ? undefined : tally(registry, cacheHits, { pool }),
        admissions: pool === undefined ? undefined : tally(registry, admissions, { pool }),
      };
      byStatus.set(status, counted);
    }
    counted.requests.pending++;
    const pool = tallies.pool;
    if (pool !== undefined) {
      if (status >= 200 && status < 300) {
        if (reply.getHeader('x-cache') === 'HIT') counted.hits!.pending++;
        else counted.admissions!.pending++;
      } else if (status === 429 || status === 402) {
        refusals.inc({ pool, reason: reply.getHeader('retry-after') === undefined ? 'CreditLimit' : 'RateLimit' });
      }
    }
  };
  app.addHook('onRoute', (route) => {
    // The route template, never the raw URL: ids and query strings would make unbounded label sets.
    const tallies: RouteTallies = { route: route.url, pool: (route.config as { paid?: { pool?: string } } | undefined)?.paid?.pool, byMethod: new Map() };
    route.config = { ...route.config, [TALLIES]: tallies } as typeof route.config;
  });
  // Requests no route took (the not-found handler) have no tallies of a route.
  const unmatched: RouteTallies = { route: 'unmatched', pool: undefined, byMethod: new Map() };
  app.decorateRequest('tallies', null);
  const counted: Answered = (req, reply) => {
    const tallies = (req.tallies ?? routeTallies(req.routeOptions.config)) as RouteTallies | null;
    count(tallies ?? unmatched, req, reply);
  };

  const token = ctx.config.metricsToken;
  if (token === null) return counted;
  app.get('/metrics', { schema: { hide: true } }, async (req, reply) => {
    if (!bearerMatches(req.headers.authorization, token)) {
      reply.header('www-authenticate', 'Bearer realm="metrics"');
      throw new ApiError(401, 'AuthError', 'GET /metrics needs Authorization: Bearer <QUARRY_METRICS_TOKEN>');
    }
    const { text, contentType } = await ctx.metrics.scrape();
    return reply.header('content-type', contentType).send(text);
  });
  return counted;
}

/** One label set's increments since the last scrape. */
interface Tally {
  counter: Counter<string>;
  labels: Record<string, string>;
  pending: number;
}

/** What one route's answers are counted under: its template, its pool, and tallies per method and status. */
interface RouteTallies {
  route: string;
  pool: string | undefined;
  byMethod: Map<string, Map<number, { requests: Tally; hits: Tally | undefined; admissions: Tally | undefined }>>;
}

const talliesOf = new WeakMap<Registry, Tally[]>();

function tally(registry: Registry, counter: Counter<string>, labels: Record<string, string>): Tally {
  const made: Tally = { counter, labels, pending: 0 };
  const all = talliesOf.get(registry) ?? [];
  talliesOf.set(registry, all);
  all.push(made);
  return made;
}

/** Hands the tallies' increments to their counters (when the registry is read). */
function flushTallies(registry: Registry): void {
  for (const t of talliesOf.get(registry) ?? []) {
    if (t.pending === 0) continue;
    t.counter.inc(t.labels, t.pending);
    t.pending = 0;
  }
}

/** The registry's counter of that name, made on first use: two apps over one context (tests) share it. */
function counter<L extends string>(registry: Registry, config: CounterConfiguration<L>): Counter<L> {
  return (
    (registry.getSingleMetric(config.name) as Counter<L> | undefined) ??
    new Counter({
      ...config,
      registers: [registry],
      // Read at every scrape: first the increments tallied since the last one.
      collect: () => flushTallies(registry),
    })
  );
}
