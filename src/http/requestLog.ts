/**
 * The server's request log: ONE line per request, written when its answer has gone (method,
 * redacted URL, host, client address, status, response time, request id), instead of Fastify's
 * two (an "incoming request" line and a "request completed" line). Each line costs a
 * serialisation and a write on every request, the cheapest ones included (issue 26: a paid
 * cache hit against a bare route); the second line said nothing the first did not.
 *
 * Secrets never reach a line: the `req` serialiser writes no headers at all (so the key header
 * and Authorization cannot appear, and there is nothing for pino's `redact` to clone and
 * scrub), and the URL passes through redactUrl.
 */
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

/**
 * A path segment shaped like a secret: an API key (its `qry_` prefix), or a long run of
 * token characters (32 or more: keys, share tokens, session tokens). Ids are 24 hex digits and
 * stay readable. A client that sends its key where an id belongs (`/keyword-tool/lists/<key>`)
 * must not see it logged.
 */
const TOKEN_SEGMENT = /^(qry_|[A-Za-z0-9_~+=.-]{32,}$)/i;
/**
 * A path that may hold such a segment: percent-escapes (decoded before they are judged), `qry_`
 * anywhere, or a run of 32 characters without a slash. A path without any needs no work.
 */
const PATH_MAY_HOLD_TOKEN = /%|qry_|[^/]{32}/i;

/** Query parameters whose values never reach a log line. */
const SECRET_PARAMS =
  /^(sig|signature|expires|key|api[-_]?key|apikey|access[-_]?token|x-access-token|token|share[-_]?token|csrf[-_]?token|auth|authorization|password|secret)$/i;
/**
 * A query string that may name such a parameter: percent-escapes, or a name holding one of the
 * words every secret name contains (sig, expires, key, token, auth, password, secret).
 */
const QUERY_MAY_HOLD_SECRET = /%|(?:^|&)[^=&]*(?:sig|expires|key|token|auth|password|secret)/i;

/** A request URL for the log: token-shaped path segments and the value of every secret-looking query parameter replaced. */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  const rawPath = q < 0 ? url : url.slice(0, q);
  const path = !PATH_MAY_HOLD_TOKEN.test(rawPath)
    ? rawPath
    : rawPath
        .split('/')
        .map((segment) => {
          let decoded = segment;
          try {
            decoded = decodeURIComponent(segment);
          } catch {
            // an undecodable segment is judged as sent
          }
          return TOKEN_SEGMENT.test(decoded) ? '[REDACTED]' : segment;
        })
        .join('/');
  if (q < 0) return path;
  const rawQuery = url.slice(q + 1);
  if (!QUERY_MAY_HOLD_SECRET.test(rawQuery)) return path === rawPath ? url : `${path}?${rawQuery}`;
  const query = rawQuery
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq < 0 ? pair : pair.slice(0, eq);
      let decoded = name;
      try {
        decoded = decodeURIComponent(name);
      } catch {
        // an undecodable name is compared as sent
      }
      return eq >= 0 && SECRET_PARAMS.test(decoded.trim()) ? `${name}=[REDACTED]` : pair;
    })
    .join('&');
  return `${path}?${query}`;
}

/** Fastify's per-request log lines, as one line at the end. */
class OneLineRequestLog extends LogController {
  override incomingRequest(): void {
    // Said by the line written when the request completes.
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return;
    if (error) reply.log.error({ req: request, res: reply, err: error, responseTime: reply.elapsedTime }, 'request errored');
    else reply.log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed');
  }
}

/** Fastify options of the request log: `logger` (pino options, or false for none) and its log controller. */
export function requestLogOptions(logger: boolean | Record<string, unknown> | undefined) {
  if (logger === false || logger === undefined) return { logger: false as const };
  return {
    logger: {
      ...(typeof logger === 'object' ? logger : {}),
      serializers: {
        // The whitelist of what a request line says: no headers (see above).
        req: (req: FastifyRequest) => ({
          method: req.method,
          url: redactUrl(req.url),
          host: req.host,
          remoteAddress: req.ip,
          remotePort: req.socket?.remotePort,
        }),
      },
    },
    logController: new OneLineRequestLog(),
  };
}
