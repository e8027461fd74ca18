/**
 * What the edge does once per request when its answer has gone: the request log line, the
 * /metrics counts, a draining server's closing of the socket left idle; and, whether answered
 * or abandoned by its client, the release of the request's place in flight (fair use). All from
 * ONE 'close' listener on the raw response, added by the app's first onRequest hook.
 *
 * Fastify's own way to the same moment cost every request more than a bare route pays (issue
 * 26, a paid cache hit against a bare route): a logger, or any onResponse hook, makes it listen
 * for 'finish' and 'error' on every response (then remove both) and take two timestamps, and
 * each onResponse hook is a turn of its hook runner. The app has neither: its Fastify logger is
 * off (requestLog.ts) and nothing is counted in onResponse.
 *
 * A response emits 'close' once, also when its client has left before the answer went (Node and
 * light-my-request alike: right after 'finish' when it has gone). An answer is logged and counted
 * once it was ended (all of it handed to Node: `writableEnded`; light-my-request's socket never
 * says it was flushed) or failed on the way; a request whose client left before its answer was
 * ended (a streamed export cut off) is not, as Fastify's 'finish' and 'error' listeners did not
 * see it either.
 */
import { performance } from 'node:perf_hooks';
import type { ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';

/** Told of each answer that has gone (`err`: it failed on the way); `responseTime` in ms, as Fastify's. */
export type Answered = (req: FastifyRequest, reply: FastifyReply, responseTime: number, err: Error | undefined) => void;

/** The Fastify reply of a raw response the edge watches. */
const REPLY = Symbol('quarry.reply');

type Watched = ServerResponse & { [REPLY]?: FastifyReply };

declare module 'fastify' {
  interface FastifyRequest {
    /** When the edge began the request (performance.now()). */
    edgeStart: number;
    /** Runs once its response has closed (answered or abandoned); see onClosed. */
    edgeRelease: (() => void) | null;
  }
}

/**
 * Installs the app's first onRequest hook: it begins each request's watch, then runs `next`
 * (the app's own first check), in one turn of Fastify's hook runner. `answered` are told, in
 * order, of each answer that has gone (the list is read when they are: the app adds to it as it
 * is built).
 */
export function watchAnswers(
  app: FastifyInstance,
  answered: readonly Answered[],
  begin: (req: FastifyRequest, reply: FastifyReply) => void,
  next: onRequestHookHandler,
): void {
  app.decorateRequest('edgeStart', 0);
  app.decorateRequest('edgeRelease', null);
  // One function per app, not a closure per request: the reply is found on the response.
  function closed(this: Watched): void {
    const reply = this[REPLY];
    if (reply === undefined) return;
    const req = reply.request;
    const release = req.edgeRelease;
    if (release !== null) {
      req.edgeRelease = null;
      release();
    }
    const err = (this.errored ?? undefined) as Error | undefined;
    if (!this.writableEnded && err === undefined) return;
    const responseTime = performance.now() - req.edgeStart;
    for (let i = 0; i < answered.length; i++) answered[i](req, reply, responseTime, err);
  }
  app.addHook('onRequest', function edgeDoor(req, reply, done) {
    req.edgeStart = performance.now();
    const res = reply.raw as Watched;
    res[REPLY] = reply;
    res.on('close', closed);
    begin(req, reply);
    next.call(this, req, reply, done);
  });
}

/**
 * Runs `release` once the request's response has closed: its answer has gone or its client has
 * left. On a watched request it is the edge's own listener that runs it (a second 'close'
 * listener made the event an array of listeners, copied at every emit); one release a request
 * (more go to listeners of their own).
 */
export function onClosed(req: FastifyRequest, reply: FastifyReply, release: () => void): void {
  if (req.edgeRelease === null && (reply.raw as Watched)[REPLY] === reply) req.edgeRelease = release;
  else reply.raw.on('close', release);
}
