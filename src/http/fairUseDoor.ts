/**
 * Fair use at the door (policy/fairUse.ts has the numbers): everything that can refuse a
 * request for its account's share is decided in onRequest, from the key and the route, before
 * the body is read, parsed or validated. A refused request costs the server the key lookup,
 * a counter and the error's bytes; its body is discarded unread by Node (issue 28: 19,247
 * list creations refused by the budget after being parsed and validated took most of the
 * server's time).
 *
 * - Requests in flight: every /v3 request counts against its account's (or, without a key,
 *   its client address's) cap until its answer is sent or abandoned.
 * - Bulk operations take one of the account's slots here.
 * - A free write spends its first unit here; the units for the keyword ids it carries are
 *   spent after validation, once their number is known (and the first stays spent if they do
 *   not fit: a write that gets past the door was work).
 */
import type { FastifyRequest, onRequestHookHandler, preHandlerHookHandler } from 'fastify';
import type { FairUse } from '../policy/fairUse.js';
import { writeUnits } from '../policy/fairUse.js';
import { onClosed } from './answered.js';

/** How a route is metered (route config `fairUse`): a bulk operation, or a free write and the ids it carries. */
export type FairUseOf = 'bulk' | ((req: FastifyRequest) => number);

/** Whose share a request spends: its account's, or its client address's without a key. */
function whose(req: FastifyRequest): string {
  return req.account?.id ?? `address:${req.ip}`;
}

/** The onRequest hook of a /v3 route, after authentication. */
export function fairUseDoor(fair: FairUse, of: FairUseOf | undefined): onRequestHookHandler {
  if (of === undefined) {
    return function inFlight(req, reply, done) {
      let leave: () => void;
      try {
        leave = fair.requests.enter(whose(req));
      } catch (err) {
        return done(err as Error);
      }
      onClosed(req, reply, leave);
      done();
    };
  }
  return function door(req, reply, done) {
    const who = whose(req);
    let leave: () => void;
    try {
      leave = fair.requests.enter(who);
    } catch (err) {
      return done(err as Error);
    }
    onClosed(req, reply, leave);
    if (of === 'bulk') {
      fair.bulk.take(who).then((release) => {
        // A client gone while the slot was taken (scale mode: a Redis round trip) gives it back now.
        if (req.raw.socket?.destroyed === true || reply.raw.writableEnded) release();
        onClosed(req, reply, release);
        done();
      }, done);
      return;
    }
    fair.writes.spend(who, 1).then(() => done(), done);
  };
}

/** The preHandler of a free write: the units of the ids it carries, beyond the first spent at the door. */
export function freeWriteUnits(fair: FairUse, of: FairUseOf): preHandlerHookHandler | undefined {
  if (of === 'bulk') return undefined;
  return function idsUnits(req, _reply, done) {
    let extra: number;
    try {
      // A write larger than the whole budget waits for a full one (FreeWriteBudget).
      extra = Math.min(writeUnits(of(req)), fair.writes.perMinute) - 1;
    } catch (err) {
      return done(err as Error);
    }
    if (extra <= 0) return done();
    fair.writes.spend(whose(req), extra).then(() => done(), done);
  };
}
