/**
 * Adapts the access policy to Fastify: every route that declares `config.paid` gets its
 * handler wrapped once, here, so route files say what an operation costs and never how
 * it is charged. A paid handler returns its body (or sets 204 and returns nothing).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { AccessPolicy, PaidOperation } from '../policy/accessPolicy.js';

/** The parameters a cost, history or cache key sees: query, path and body merged. */
export function requestParams(req: FastifyRequest): Record<string, unknown> {
  const body = req.body !== null && typeof req.body === 'object' && !Array.isArray(req.body) ? req.body : {};
  return { ...(req.query as object), ...(req.params as object), ...body };
}

export function installPaidRoutes(app: FastifyInstance, policy: AccessPolicy): void {
  app.addHook('onRoute', (route: RouteOptions) => {
    const paid = route.config?.paid as PaidOperation | undefined;
    if (!paid) return;
    const handler = route.handler;
    // Fastify adds a HEAD route for every GET; it is the same operation and must share the
    // GET's cache entry, or a HEAD and a GET of one request would be charged twice.
    const methods = (Array.isArray(route.method) ? route.method : [route.method]).map((m) => (m === 'HEAD' ? 'GET' : m));
    const method = methods.join(',');
    const operationId = paid.cacheAs ?? `${method} ${route.url}`;
    route.handler = async function paidHandler(this: FastifyInstance, req: FastifyRequest, reply: FastifyReply) {
      const result = await policy.run(paid, {
        account: req.account!,
        clientClass: req.clientClass,
        operationId,
        params: requestParams(req),
        execute: async (ctx) => {
          req.paid = ctx;
          const body = await handler.call(this, req, reply);
          return { status: reply.statusCode, body: body ?? undefined };
        },
      });
      reply.code(result.status);
      if (result.body === null) return reply.send();
      reply.header('content-type', result.contentType);
      if (result.fromCache) reply.header('x-cache', 'HIT');
      return reply.send(result.body);
    };
  });
}
