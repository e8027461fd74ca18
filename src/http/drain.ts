/**
 * Draining at close (SIGTERM, issue 28): once `app.close()` has begun, every answer still to be
 * sent says `Connection: close` and its socket ends with it, and a keep-alive socket that falls
 * idle is closed at once. Node's `server.close()` closes only the sockets idle at the moment it
 * is called: a socket whose request was in flight then stays open after its answer for the
 * keep-alive timeout (65 s, http/app.ts), so the close — and the process — waited past its
 * drain deadline (20 s) whenever a request was in flight at SIGTERM.
 */
import type { FastifyInstance } from 'fastify';

export function closeConnectionsWhenDraining(app: FastifyInstance): void {
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
  app.addHook('onResponse', (_req, _reply, done) => {
    // The socket of this answer is idle now (Node detached it on 'finish', before this hook).
    if (draining) app.server.closeIdleConnections();
    done();
  });
}
