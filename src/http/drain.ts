/**
 * Draining at close (SIGTERM, issue 28): once `app.close()` has begun, every answer still to be
 * sent says `Connection: close` and its socket ends with it, and a keep-alive socket that falls
 * idle is closed at once. Node's `server.close()` closes only the sockets idle at the moment it
 * is called: a socket whose request was in flight then stays open after its answer for the
 * keep-alive timeout (65 s, http/app.ts), so the close — and the process — waited past its
 * drain deadline (20 s) whenever a request was in flight at SIGTERM.
 */
import type { FastifyInstance } from 'fastify';
import type { Answered } from './answered.js';

/** Answers what the edge calls once each answer has gone (answered.ts): closes the socket it left idle while draining. */
export function closeConnectionsWhenDraining(app: FastifyInstance): Answered {
  let draining = false;
  app.addHook('preClose', (done) => {
    draining = true;
    done();
  });
  app.addHook('onSend', (_req, reply, payload, done) => {
    // Headers already sent (a streamed answer begun before the close) cannot change: onResponse closes those.
    if (draining && !reply.raw.headersSent) reply.header('connection', 'close');
    done(null, payload);
  });
  return () => {
    // The socket of this answer is idle now (Node detached it on 'finish', before 'close').
    if (draining) app.server.closeIdleConnections();
  };
}
