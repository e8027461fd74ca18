/**
 * GET /metrics in Prometheus text format (prom-client): requests by route and status, paid
 * admissions and refusals by pool and reason, cache hits by pool, and the job queue's depth
 * by state, and the research data's generation and reloads. Counted at the edge from what each answer was: a paid route's 2xx answered from
 * cache is a hit, any other 2xx an admission, a 429/402 a refusal with the error's type as
 * reason. One registry per app (tests build many). Not under /v3 and not in the OpenAPI
 * document: scrape it from inside; docs/operations.md keeps it off the public proxy.
 */
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import type { QuarryContext } from './context.js';

export async function registerMetrics(app: FastifyInstance, ctx: Pick<QuarryContext, 'state' | 'research'>): Promise<void> {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'quarry_' });
  const requests = new Counter({
    name: 'quarry_http_requests_total',
    help: 'HTTP requests answered, by route template and status code',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const admissions = new Counter({
    name: 'quarry_admissions_total',
    help: 'Paid requests admitted and executed (not from cache), by quota pool',
    labelNames: ['pool'] as const,
    registers: [registry],
  });
  const refusals = new Counter({
    name: 'quarry_refusals_total',
    help: 'Paid requests refused by the access policy, by quota pool and reason (the error type)',
    labelNames: ['pool', 'reason'] as const,
    registers: [registry],
  });
  const cacheHits = new Counter({
    name: 'quarry_cache_hits_total',
    help: 'Paid requests answered from the 24-hour request cache, by quota pool',
    labelNames: ['pool'] as const,
    registers: [registry],
  });
  new Gauge({
    name: 'quarry_jobs',
    help: 'Jobs in the durable queue, by state (queued jobs are the queue depth)',
    labelNames: ['state'] as const,
    registers: [registry],
    async collect() {
      const rows = await sql<{ state: string; n: number }>`SELECT state, COUNT(*) AS n FROM jobs GROUP BY state`.execute(ctx.state.db);
      this.reset();
      for (const row of rows.rows) this.set({ state: row.state }, Number(row.n));
    },
  });

  // The research data in use (engine/live): which generation, reloads since start, replaced sets still answering.
  new Gauge({
    name: 'quarry_research_generation',
    help: 'Data generation of the research store this process answers from',
    registers: [registry],
    collect() {
      this.set(ctx.research.live.current.generation);
    },
  });
  new Counter({
    name: 'quarry_research_reloads_total',
    help: 'Reloads of the research data since the process started (an import raised its generation)',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(ctx.research.reloads);
    },
  });
  new Gauge({
    name: 'quarry_research_draining',
    help: 'Replaced research data sets still answering requests that began on them',
    registers: [registry],
    collect() {
      this.set(ctx.research.live.draining);
    },
  });

  app.addHook('onResponse', async (req, reply) => {
    // The route template, never the raw URL: ids and query strings would make unbounded label sets.
    const route = req.routeOptions.url ?? 'unmatched';
    const status = reply.statusCode;
    requests.inc({ method: req.method, route, status: String(status) });
    const pool = (req.routeOptions.config as { paid?: { pool?: string } } | undefined)?.paid?.pool;
    if (!pool) return;
    if (status >= 200 && status < 300) {
      if (reply.getHeader('x-cache') === 'HIT') cacheHits.inc({ pool });
      else admissions.inc({ pool });
    } else if (status === 429 || status === 402) {
      refusals.inc({ pool, reason: reply.getHeader('retry-after') === undefined ? 'CreditLimit' : 'RateLimit' });
    }
  });

  app.get('/metrics', { schema: { hide: true } }, async (_req, reply) => {
    const text = await registry.metrics();
    return reply.header('content-type', registry.contentType).send(text);
  });
}
