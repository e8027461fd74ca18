/**
 * Pins each request to the research data that is current when it begins (engine/live/
 * liveResearch.ts): everything the request runs reads `ctx.engine`, `ctx.search` and
 * `ctx.sources` of that set, also when a reload swaps a new one in meanwhile, and the set
 * stays open until the response has gone. Pinned at preValidation, after the body is read:
 * the body parser resumes on the socket's events, outside an AsyncLocalStorage scope entered
 * before it; nothing before validation reads the research data.
 *
 * A paid route is pinned by its handler instead, and only when it executes (http/paidRoutes.ts):
 * an answer from the request cache reads no research data, and the lease, its listener and the
 * AsyncLocalStorage scope were most of what such a hit cost beyond a bare route (issue 26).
 */
import type { FastifyInstance, FastifyReply, RouteOptions } from 'fastify';
import type { LiveResearch, LoadedSet } from '../engine/live/liveResearch.js';

/** Runs `fn` pinned to the current research data until the reply has gone (or its client has). */
export type PinResearch = <T>(reply: FastifyReply, fn: () => T) => T;

export function pinResearch<S extends LoadedSet>(app: FastifyInstance, live: LiveResearch<S>): PinResearch {
  const pin: PinResearch = (reply, fn) => {
    const lease = live.lease();
    // Released when the response has been sent, or the connection closed before (either
    // may come first; a lease released twice counts once).
    reply.raw.on('finish', lease.release);
    reply.raw.on('close', lease.release);
    return live.within(lease, fn);
  };
  app.addHook('onRoute', (route: RouteOptions) => {
    if (route.config?.paid) return;
    const before = route.preValidation === undefined ? [] : Array.isArray(route.preValidation) ? route.preValidation : [route.preValidation];
    route.preValidation = [(_req, reply, done) => pin(reply, done), ...before];
  });
  return pin;
}
