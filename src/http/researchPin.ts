/**
 * Pins each request to the research data that is current when it begins (engine/live/
 * liveResearch.ts): everything the request runs reads `ctx.engine`, `ctx.search` and
 * `ctx.sources` of that set, also when a reload swaps a new one in meanwhile, and the set
 * stays open until the response has gone. Pinned at preValidation, after the body is read:
 * the body parser resumes on the socket's events, outside an AsyncLocalStorage scope entered
 * before it; nothing before validation reads the research data.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Lease, LiveResearch, LoadedSet } from '../engine/live/liveResearch.js';

export function pinResearch<S extends LoadedSet>(app: FastifyInstance, live: LiveResearch<S>): void {
  const leases = new WeakMap<FastifyRequest, Lease<S>>();
  app.addHook('preValidation', (req, reply, done) => {
    const lease = live.lease();
    leases.set(req, lease);
    // Released when the response has been sent, or the connection closed before (either
    // may come first; a lease released twice counts once).
    reply.raw.once('close', lease.release);
    live.within(lease, done);
  });
  app.addHook('onResponse', (req, _reply, done) => {
    leases.get(req)?.release();
    done();
  });
}
