/**
 * Adapts the access policy to Fastify: every route that declares `config.paid` gets its
 * handler wrapped once, here, so route files say what an operation costs and never how
 * it is charged. A paid handler returns its body (or sets 204 and returns nothing).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler, RouteOptions } from 'fastify';
import type { AccessPolicy, PaidOperation, PolicyResponse } from '../policy/accessPolicy.js';
import { cacheKey } from '../policy/canonical.js';
import type { PinResearch } from './researchPin.js';

/** Cache keys remembered per route, by request URL; URLs longer than this are not remembered. */
const REMEMBERED_URLS = 2_000;
const REMEMBERED_URL_LENGTH = 1_000;

/**
 * The parameters a cost, history or cache key sees: query and path, merged with the body
 * only for a route that declares a body schema. A route without one takes no body (the
 * POST of competitor keywords reads the query string only), so a body sent to it anyway is
 * unvalidated and must not override the validated query in its cache key, history or lookups.
 */
export function requestParams(req: FastifyRequest, takesBody: boolean): Record<string, unknown> {
  const body = takesBody && req.body !== null && typeof req.body === 'object' && !Array.isArray(req.body) ? req.body : {};
  return { ...(req.query as object), ...(req.params as object), ...body };
}

/**
 * `pin`: pins what runs to the current research data (researchPin.ts); a paid request is pinned
 * only when it goes on past the cache, as nothing before reads research data.
 */
export function installPaidRoutes(app: FastifyInstance, policy: AccessPolicy, pin: PinResearch): void {
  app.addHook('onRoute', (route: RouteOptions) => {
    const paid = route.config?.paid as PaidOperation | undefined;
    if (!paid) return;
    const handler = route.handler;
    // Fastify adds a HEAD route for every GET; it is the same operation and must share the
    // GET's cache entry, or a HEAD and a GET of one request would be charged twice.
    const methods = (Array.isArray(route.method) ? route.method : [route.method]).map((m) => (m === 'HEAD' ? 'GET' : m));
    const method = methods.join(',');
    const operationId = paid.cacheAs ?? `${method} ${route.url}`;
    const takesBody = route.schema?.body !== undefined;
    const paramsOf = (req: FastifyRequest) => requestParams(req, takesBody);
    /**
     * Without a body (or on a route that takes none), a request's validated parameters follow
     * from its URL alone (path and query, coerced and defaulted by the same schema every time),
     * so the cache key does too: a repeated request finds its key here and, on a hit, is
     * answered without computing it again.
     */
    const keysByUrl = new Map<string, string>();
    const cacheKeyOf = (req: FastifyRequest): string | null => {
      if (paid.cacheable === false || (takesBody && req.body !== undefined)) return null;
      let key = keysByUrl.get(req.url);
      if (key === undefined) {
        key = cacheKey(operationId, paramsOf(req));
        if (req.url.length <= REMEMBERED_URL_LENGTH) {
          if (keysByUrl.size >= REMEMBERED_URLS) keysByUrl.clear();
          keysByUrl.set(req.url, key);
        }
      }
      return key;
    };
    const answer = (reply: FastifyReply, result: PolicyResponse) => {
      reply.code(result.status);
      if (result.body === null) return reply.send();
      reply.header('content-type', result.contentType);
      if (result.fromCache) reply.header('x-cache', 'HIT');
      return reply.send(result.body);
    };
    const execute = async function (this: FastifyInstance, req: FastifyRequest, reply: FastifyReply) {
      return pin(reply, () =>
        policy.run(paid, {
          account: req.account!,
          clientClass: req.clientClass,
          operationId,
          params: paramsOf(req),
          execute: async (ctx) => {
            req.paid = ctx;
            const body = await handler.call(this, req, reply);
            if (body === undefined || body === null) return { status: reply.statusCode };
            // Serialised once, by the route's response schema for this status: the cached
            // answer and the live one are the same bytes, and carry only declared fields.
            return { status: reply.statusCode, body, json: String(reply.serialize(body)) };
          },
        }),
      ).then((result) => answer(reply, result));
    };
    const fromStore = async function (this: FastifyInstance, req: FastifyRequest, reply: FastifyReply, key: string) {
      const hit = await policy.cachedResponse(paid, req.account!.id, key);
      if (!hit) return execute.call(this, req, reply);
      await policy.refreshLookups(paid, req.account!, paramsOf(req), hit.body!);
      return answer(reply, hit);
    };
    /**
     * A cached answer at the door: an onRequest hook, after authentication and fair use (whose
     * hooks come first, app.ts), answers a hit this process holds in memory before validation
     * and the rest of the lifecycle, which a bare route does not have (issue 26). Only a URL
     * whose cache key is remembered: the key is made after validation, and a GET's validation
     * depends on its URL alone, so that URL passed it. Only where nothing else runs before the
     * handler: a GET (a body is neither read nor looked at) without hooks of its own, metered
     * by no fair-use rule of its own, and without an answer before the cache.
     */
    const atTheDoor =
      methods.every((m) => m === 'GET') &&
      paid.cacheable !== false &&
      paid.answerWithoutCharge === undefined &&
      route.preValidation === undefined &&
      route.preHandler === undefined &&
      route.config?.fairUse === undefined;
    if (atTheDoor) {
      const hitAtTheDoor: onRequestHookHandler = function (req, reply, done) {
        const key = req.account === null ? undefined : keysByUrl.get(req.url);
        const now = key === undefined ? null : policy.cachedResponseNow(paid, req.account!.id, key);
        if (!now) return done();
        answer(reply, now);
      };
      const before = route.onRequest === undefined ? [] : Array.isArray(route.onRequest) ? route.onRequest : [route.onRequest];
      route.onRequest = [...before, hitAtTheDoor];
    }
    /**
     * Not async: a hit this process holds in memory is answered in the same turn, without a
     * promise (issue 26); anything else returns the promise of the rest.
     */
    route.handler = function paidHandler(this: FastifyInstance, req: FastifyRequest, reply: FastifyReply) {
      // The policy's order holds on this path too: an answer without charge comes before the cache.
      const early = paid.answerWithoutCharge === undefined ? null : policy.answerWithoutCharge(paid, req.account!, paramsOf(req));
      if (early) {
        answer(reply, early);
        return;
      }
      const key = cacheKeyOf(req);
      if (key === null) return execute.call(this, req, reply);
      const now = policy.cachedResponseNow(paid, req.account!.id, key);
      if (now) {
        answer(reply, now);
        return;
      }
      return fromStore.call(this, req, reply, key);
    };
  });
}
