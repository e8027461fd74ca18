/**
 * Answers Node's HTTP server gives on its own, before any route or error handler runs, in the
 * contract's JSON error shape instead of an empty body: an HTTP/1.1 request without `Host`
 * (Node answers a bare 400 unless `requireHostHeader` is off, so it is turned off and refused
 * here), and an `Expect` header other than 100-continue (Node's bare 417). Errors of the parser
 * itself (malformed requests, oversized headers, timeouts) are the clientErrorHandler's (app.ts).
 */
import type { FastifyInstance, onRequestHookHandler } from 'fastify';
import { STATUS_CODES } from 'node:http';
import { ApiError, errors } from '../lib/errors.js';

/** Fastify's `http` server options that hand these cases to Quarry. */
export const PROTOCOL_SERVER_OPTIONS = { requireHostHeader: false } as const;

/** Refuses an HTTP/1.1 request without a Host header (RFC 9112 §3.2) with 400 BadRequest. */
export const requireHost: onRequestHookHandler = function (req, reply, done) {
  if (req.headers.host !== undefined || req.raw.httpVersion !== '1.1') return done();
  reply
    .code(400)
    .header('content-type', 'application/json; charset=utf-8')
    .header('connection', 'close')
    .send(JSON.stringify(errors.badRequest('An HTTP/1.1 request must carry a Host header').body()));
};

/** Answers an unsupported `Expect` with 417 in the contract's shape (Node's own answer has no body). */
export function answerExpectations(app: FastifyInstance): void {
  app.server.on('checkExpectation', (_req, res) => {
    const body = JSON.stringify(new ApiError(417, 'Error', 'Only "Expect: 100-continue" is supported').body());
    res.writeHead(417, STATUS_CODES[417], {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
      connection: 'close',
    });
    res.end(body);
  });
}
