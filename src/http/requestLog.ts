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
import { LogController, type FastifyBaseLogger, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Bindings, ChildLoggerOptions } from 'fastify/types/logger.js';
import { pino } from 'pino';

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

/**
 * A request's logger (`req.log`, `reply.log`), a pino child with the request id, made only when
 * something logs through it: most requests log only their line, which is written with the same
 * fields without one (`line`). Fastify's own per-request child (made by a factory of ours, which
 * Fastify then validated on every request) was a cost a bare route does not have (issue 26).
 */
class RequestLogger implements FastifyBaseLogger {
  private made: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly reqId: string,
    /** The parent is pino with its default line format: the line may be written by hand. */
    private readonly plain: boolean,
  ) {}

  private get log(): FastifyBaseLogger {
    return (this.made ??= this.parent.child({ reqId: this.reqId }));
  }

  get level(): string {
    return this.made?.level ?? this.parent.level;
  }

  set level(level: string) {
    this.log.level = level;
  }

  /** The request's one line, as its child would write it (its request id first). */
  line(msg: string, req: FastifyRequest, res: FastifyReply, responseTime: number, err: Error | undefined): void {
    const level = err === undefined ? 'info' : 'error';
    // A child made already writes it.
    if (this.made !== undefined) {
      this.made[level](err === undefined ? { req, res, responseTime } : { req, res, err, responseTime }, msg);
      return;
    }
    // Otherwise the parent, with the child's one binding. An object literal: a spread of the
    // bindings doubled the cost of the line.
    const reqId = this.reqId;
    if (this.plain && err === undefined) return writePlainLine(this.parent as unknown as PinoParts, reqId, req, res, responseTime);
    this.parent[level](err === undefined ? { reqId, req, res, responseTime } : { reqId, req, res, err, responseTime }, msg);
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.log.child(bindings, options);
  }

  // pino's log methods take (object, message, ...args) or (message, ...args); handed on as given.
  info(obj: unknown, ...rest: unknown[]): void {
    (this.log.info as Loose)(obj, ...rest);
  }

  error(obj: unknown, ...rest: unknown[]): void {
    (this.log.error as Loose)(obj, ...rest);
  }

  warn(obj: unknown, ...rest: unknown[]): void {
    (this.log.warn as Loose)(obj, ...rest);
  }

  debug(obj: unknown, ...rest: unknown[]): void {
    (this.log.debug as Loose)(obj, ...rest);
  }

  trace(obj: unknown, ...rest: unknown[]): void {
    (this.log.trace as Loose)(obj, ...rest);
  }

  fatal(obj: unknown, ...rest: unknown[]): void {
    (this.log.fatal as Loose)(obj, ...rest);
  }

  silent(): void {}
}

/** A pino log method, called with what the caller gave. */
type Loose = (...args: unknown[]) => void;

/**
 * Fastify's per-request lines, said by ours instead (`RequestLog.answered`). Fastify still calls
 * these: "incoming request" on every request (to its null logger, the app's Fastify logger being
 * off), and "request completed" for a route with an onResponse hook of its own.
 */
class OneLineRequestLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(): void {}
}

/** What a request line says of the request: no headers (see above). */
function requestFields(req: FastifyRequest) {
  return { method: req.method, url: redactUrl(req.url), host: req.host, remoteAddress: req.ip, remotePort: req.socket?.remotePort };
}

/** A field of a hand-built line: `,"name":<JSON>`, or nothing for undefined (as JSON.stringify leaves it out). */
function jsonField(name: string, value: string | number | undefined): string {
  return value === undefined ? '' : `,"${name}":${JSON.stringify(value)}`;
}

/** URLs whose line part is remembered (a repeated URL, such as a cache hit's, is redacted and escaped once); longer URLs are not. */
const REMEMBERED_URLS = 2_000;
const REMEMBERED_URL_LENGTH = 1_000;

/** The line's `"req":{` part up to the client address, for one method, URL and host. */
interface RequestPart {
  method: string;
  host: string | undefined;
  json: string;
}

const requestParts = new Map<string, RequestPart>();

/** `"req":{"method":…,"url":…,"host":…` of a request, remembered by URL (issue 26). */
function requestPart(req: FastifyRequest): string {
  const { url, method } = req;
  const host = req.host;
  const known = requestParts.get(url);
  if (known !== undefined && known.method === method && known.host === host) return known.json;
  const json = `"req":{"method":${JSON.stringify(method)}${jsonField('url', redactUrl(url))}${jsonField('host', host)}`;
  if (url.length <= REMEMBERED_URL_LENGTH) {
    if (requestParts.size >= REMEMBERED_URLS) requestParts.clear();
    requestParts.set(url, { method, host, json });
  }
  return json;
}

/** The line's client part (address and port, `}` closing `req`), remembered per socket: a keep-alive client sends many requests. */
const clientParts = new WeakMap<object, { ip: string; json: string }>();

function clientPart(req: FastifyRequest): string {
  // Behind a proxy one socket carries many clients: the part is the socket's only while the address is.
  const { ip, socket } = req;
  const known = socket === undefined ? undefined : clientParts.get(socket);
  if (known !== undefined && known.ip === ip) return known.json;
  const json = `${jsonField('remoteAddress', ip)}${jsonField('remotePort', socket?.remotePort)}}`;
  if (socket !== undefined) clientParts.set(socket, { ip, json });
  return json;
}

/**
 * A request's `request completed` line written by hand, the bytes pino writes for it with its
 * default options (requestLog.test.ts holds the two to each other): pino's general path, a
 * serialiser and a JSON.stringify of each object field, was most of the line's cost on a
 * cached paid hit, itself the cheapest request there is (issue 26). Its level, time, bindings
 * (pid, hostname) and line end are still pino's own; the request's fields are escaped once
 * per URL and per client socket (requestPart, clientPart).
 */
function writePlainLine(logger: PinoParts, reqId: string, req: FastifyRequest, res: FastifyReply, responseTime: number): void {
  if (!logger.isLevelEnabled('info')) return;
  const line =
    logger[pino.symbols.lsCacheSym][INFO] +
    logger[pino.symbols.timeSym]() +
    logger[pino.symbols.chindingsSym] +
    `,"reqId":${JSON.stringify(reqId)},` +
    requestPart(req) +
    clientPart(req) +
    `,"res":{"statusCode":${res.statusCode}}` +
    `,"responseTime":${JSON.stringify(responseTime)}` +
    `,"msg":"request completed"` +
    logger[pino.symbols.endSym];
  logger[pino.symbols.streamSym].write(line);
}

const INFO = 30;

/** The parts of a pino logger that a hand-built line reads (pino.symbols: its own line's pieces). */
interface PinoParts {
  isLevelEnabled(level: string): boolean;
  [pino.symbols.lsCacheSym]: Record<number, string>;
  [pino.symbols.timeSym]: () => string;
  [pino.symbols.chindingsSym]: string;
  [pino.symbols.endSym]: string;
  [pino.symbols.streamSym]: { write(line: string): void };
}

/** A pino.multistream (or the like): it is told each line's level, which only pino's own write does. */
function isMetadataStream(stream: unknown): boolean {
  return typeof stream === 'object' && stream !== null && Symbol.for('pino.metadata') in stream;
}

/** Fastify's serialisers of `res` and `err` (its logger-pino.js), which its request lines used. */
function responseFields(reply: FastifyReply) {
  return { statusCode: reply.statusCode };
}

/**
 * The app's log (`app.log`) and each request's line. Fastify's own logger is off: with one,
 * Fastify made and validated a child logger for every request and listened for 'finish' and
 * 'error' on every response, with two timestamps, to write its line (issue 26: costs a bare
 * route does not have). The line is written from the edge's one listener per request instead
 * (http/answered.ts), with the request's logger given it by the app's first hook (`attach`).
 */
export interface RequestLog {
  /** Fastify's options: its logger off, its per-request lines said by ours. */
  fastifyOptions: { logger: false; logController: LogController };
  /** The app's logger (`app.log`); undefined when the app logs nothing. */
  root: FastifyBaseLogger | undefined;
  /** Gives the request its logger (`req.log`, `reply.log`), carrying its request id. */
  attach(req: FastifyRequest, reply: FastifyReply): void;
  /** Writes the request's line: its answer has gone (`err`: it failed on the way). */
  answered(req: FastifyRequest, reply: FastifyReply, responseTime: number, err: Error | undefined): void;
}

/** The request log of `logger` (pino options, or false for none). */
export function requestLog(logger: boolean | Record<string, unknown> | undefined): RequestLog {
  const fastifyOptions = { logger: false as const, logController: new OneLineRequestLog() };
  if (logger === false || logger === undefined) return { fastifyOptions, root: undefined, attach() {}, answered() {} };
  // Only the level and where lines go (serve.ts, the bench, tests): pino's line format is its
  // default one, which writePlainLine writes. Any other option may change it.
  const { stream, ...options } = typeof logger === 'object' ? logger : ({} as Record<string, unknown>);
  const plain = Object.keys(options).every((key) => key === 'level') && !isMetadataStream(stream);
  // As Fastify made it (logger-factory.js): level info unless told, its serialisers, ours for `req`.
  const root = pino(
    {
      ...options,
      level: (options.level as string | undefined) || 'info',
      // The whitelist of what a request line says: no headers (see above).
      serializers: { req: requestFields, res: responseFields, err: pino.stdSerializers.err },
    },
    stream as pino.DestinationStream | undefined,
  ) as unknown as FastifyBaseLogger;
  return {
    fastifyOptions,
    root,
    attach(req, reply) {
      const log = new RequestLogger(root, req.id, plain);
      req.log = log;
      reply.log = log;
    },
    answered(req, reply, responseTime, err) {
      const log = reply.log;
      if (log instanceof RequestLogger) log.line(err === undefined ? 'request completed' : 'request errored', req, reply, responseTime, err);
    },
  };
}
