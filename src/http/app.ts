/**
 * The Fastify application: gateway limiter → router (/v3) → auth → validation → access
 * policy → handler. `buildApp` takes every dependency, so tests build one around an
 * in-memory store and a fake clock.
 */
import { randomBytes } from 'node:crypto';
import Fastify, {
  type FastifySchemaValidationError,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type onRequestHookHandler,
} from 'fastify';
import { CLIENT_CLASSES, type ClientClass } from '../policy/plans.js';
import { KEY_HEADER, type QuarryContext, type RouteAuth } from './context.js';
import { ApiError, errors, GATEWAY_429_HTML } from './errors.js';
import { SourceError } from '../engine/sources/index.js';
import { GatewayLimiter } from './gateway.js';
import { SharedGatewayLimiter } from './sharedGateway.js';
import { installPaidRoutes } from './paidRoutes.js';
import { addSharedSchemas, lazyValidators, validationError } from './validation.js';
import { lazySerializers } from './lazySerializers.js';
import { apiComponents } from '../tools/components.js';
import { registerOpenApi } from './openapi.js';
import { toolRoutes } from '../tools/routes.js';
import { downloadRoutes } from '../jobs/downloadRoutes.js';
import { openExportFiles } from '../jobs/exportJobs.js';
import { fairUseDoor, freeWriteUnits } from './fairUseDoor.js';
import { isStoreBusy } from '../store/database.js';
import { STATUS_CODES } from 'node:http';
import { mcpRoutes } from '../mcp/routes.js';
import { registerMetrics, routeTallies } from './metrics.js';
import { closeConnectionsWhenDraining } from './drain.js';
import { pinResearch } from './researchPin.js';
import { dashboardRoutes } from '../dashboard/routes.js';
import { checkSessionRequest, sessionToken } from '../dashboard/webSession.js';
import type { LiveSession } from '../sessions/sessionStore.js';
import { answerExpectations, PROTOCOL_SERVER_OPTIONS, requireHost } from './protocolErrors.js';
import { requestLog } from './requestLog.js';
import { watchAnswers, type Answered } from './answered.js';

export interface AppOptions {
  /** Pino logger options, or false for none (tests). */
  logger?: boolean | Record<string, unknown>;
  /** Which client class a request belongs to; 'api' unless an entry point says otherwise. */
  clientClassOf?: (req: FastifyRequest) => ClientClass;
  /** Routes to add inside /v3 (used by tests to exercise the policy on fixture operations). */
  extraRoutes?: (app: FastifyInstance) => Promise<void> | void;
  /** Where the built dashboard is (default dist/web of this package). */
  webDir?: string;
}

/**
 * Marks the requests the app sends itself on a client's behalf (the MCP server's tool calls
 * through `app.inject`): their client class, and no second turn at the gateway, which the
 * client's own request already passed. The value holds a secret made per app and never sent
 * over the network, so no outside client can claim a class with it.
 */
const INTERNAL_CLIENT_HEADER = 'x-quarry-internal-client';

export { redactUrl } from './requestLog.js';

/**
 * The requests the gateway lets through uncounted, each with why. `session`: only for a live
 * dashboard session (the session's own limit does not count them either).
 */
const GATEWAY_EXEMPTIONS: { session: boolean; matches: (req: FastifyRequest) => boolean }[] = [
  // The interactive reference loads several static files at once; they are documentation,
  // not API traffic, and would otherwise trip the 4-per-second gateway.
  { session: false, matches: (req) => req.url.startsWith('/docs/static/') },
  // The same holds for the dashboard's script and style files.
  { session: false, matches: (req) => req.url.startsWith('/app/assets/') },
  // The dashboard's own page (its HTML shell on a navigation): refusing it would leave the
  // signed-in user a JSON error instead of the page; its API calls (and /app/api/) count.
  { session: true, matches: (req) => req.method === 'GET' && /^\/app(?:[/?]|$)/.test(req.url) && !req.url.startsWith('/app/api/') },
];

/** True when the gateway lets `req` through uncounted (GATEWAY_EXEMPTIONS); `session`: it comes with a live session. */
function gatewayExempt(req: FastifyRequest, session: boolean): boolean {
  return GATEWAY_EXEMPTIONS.some((e) => (session || !e.session) && e.matches(req));
}

/** The server's deadlines, from the request timeout (QUARRY_REQUEST_TIMEOUT_MS, default 30 s). */
export function httpTimeouts(requestMs: number) {
  return {
    request: requestMs,
    // Headers come first and are small: a third of the request's time, at most 10 s.
    headers: Math.min(10_000, Math.max(50, Math.floor(requestMs / 3))),
    // An idle keep-alive socket is kept longer than clients wait between calls (the SDK's pacing,
    // a gateway's Retry-After): with Node's 5 s, a client reusing a socket just as the server
    // closes it gets a reset ("fetch failed", undici#3141), which a POST cannot safely retry.
    // undici closes its side a second before the `Keep-Alive: timeout=` the server announces.
    keepAlive: 65_000,
    // A socket silent this long (no request, no bytes read or written) is closed.
    idle: Math.max(70_000, requestMs * 2),
    check: Math.max(25, Math.min(1_000, Math.floor(requestMs / 4))),
  };
}

/** A raw HTTP response in the contract's JSON error shape for an error of the HTTP parser. */
export function clientErrorResponse(err: Error & { code?: string }): string {
  const apiError =
    err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? new ApiError(408, 'Error', 'The request took too long to arrive')
      : err.code === 'HPE_HEADER_OVERFLOW'
        ? new ApiError(431, 'Error', 'The request headers are too large')
        : errors.badRequest('The request could not be parsed as HTTP');
  const body = JSON.stringify(apiError.body());
  const status = `${apiError.statusCode} ${STATUS_CODES[apiError.statusCode] ?? 'Error'}`;
  return `HTTP/1.1 ${status}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}

export async function buildApp(ctx: QuarryContext, options: AppOptions = {}): Promise<FastifyInstance> {
  const timeouts = httpTimeouts(ctx.config.requestTimeoutMs);
  const serializers = lazySerializers();
  const log = requestLog(options.logger);
  const app: FastifyInstance = Fastify({
    // Response serialisers compiled on each route's first answer, not all at start (lazySerializers.ts).
    schemaController: { compilersFactory: { buildSerializer: serializers.buildSerializer } },
    // One line per request, written when it is answered, secrets left out (requestLog.ts);
    // Fastify's own logger is off.
    ...log.fastifyOptions,
    bodyLimit: ctx.config.bodyLimit,
    // Slow clients (headers or body a byte at a time, idle keep-alive sockets) are cut off
    // instead of holding a socket forever; Node checks these deadlines on its own timer.
    requestTimeout: timeouts.request,
    keepAliveTimeout: timeouts.keepAlive,
    connectionTimeout: timeouts.idle,
    http: { headersTimeout: timeouts.headers, requestTimeout: timeouts.request, connectionsCheckingInterval: timeouts.check, ...PROTOCOL_SERVER_OPTIONS },
    // Errors of the HTTP parser itself (oversized headers, malformed requests, timeouts)
    // never reach a route or the error handler: answer them in the contract's error shape too.
    clientErrorHandler: (err, socket) => {
      if ((err as NodeJS.ErrnoException).code === 'ECONNRESET' || socket.destroyed) return;
      if (socket.writable) socket.end(clientErrorResponse(err));
      socket.destroy();
    },
    // One hop: trust the socket peer (our proxy) and take the address it appended, the
    // rightmost; with `true` the leftmost, client-written entry would be the client IP and
    // forged X-Forwarded-For values would walk around the gateway limit.
    trustProxy: ctx.config.trustProxy ? (_address: string, hop: number) => hop === 0 : false,
    routerOptions: { maxParamLength: 500, ignoreTrailingSlash: true },
    // URLs the router cannot even decode never reach the error handler; without this they
    // would answer Fastify's own error shape instead of the contract's error object.
    frameworkErrors: (err, _req, reply) => {
      const apiError =
        err.code === 'FST_ERR_MAX_PARAM_LENGTH'
          ? new ApiError(414, 'Error', 'The request URL is too long')
          : err.code === 'FST_ERR_BAD_URL'
            ? errors.badRequest('The request URL is not valid')
            : new ApiError(500, 'ServerError', 'Internal server error');
      const res = reply as unknown as FastifyReply;
      res.code(apiError.statusCode).header('content-type', 'application/json; charset=utf-8');
      return res.send(JSON.stringify(apiError.body()));
    },
  });

  if (log.root !== undefined) app.log = log.root;
  app.decorate('quarry', ctx);
  const drained = closeConnectionsWhenDraining(app);
  app.decorate('compileAllSerializers', serializers.compileAll);
  // The first hook of every request: its logger, and the one listener that writes its line,
  // counts it (/metrics) and ends a draining server's idle socket once it is answered
  // (answered.ts); then answers Node would give bare (no Host), in the contract's shape.
  const answered: Answered[] = [log.answered, drained];
  watchAnswers(app, answered, log.attach, requireHost);
  answerExpectations(app);
  // Each request answers from one generation of the research data, whatever reloads meanwhile.
  const pin = pinResearch(app, ctx.research.live);
  const internalSecret = randomBytes(18).toString('base64url');
  const internalClass = (req: FastifyRequest): ClientClass | undefined => {
    const header = req.headers[INTERNAL_CLIENT_HEADER];
    if (typeof header !== 'string' || !header.endsWith(`:${internalSecret}`)) return undefined;
    const cls = header.slice(0, header.length - internalSecret.length - 1);
    return (CLIENT_CLASSES as readonly string[]).includes(cls) ? (cls as ClientClass) : undefined;
  };
  app.decorate('internalClientHeaders', (clientClass: ClientClass) => ({ [INTERNAL_CLIENT_HEADER]: `${clientClass}:${internalSecret}` }));
  /** The live session a request's cookie names, looked up once per request (gateway, then auth). */
  const sessions = new WeakMap<FastifyRequest, Promise<LiveSession | undefined>>();
  const sessionOf = (req: FastifyRequest): Promise<LiveSession | undefined> => {
    let found = sessions.get(req);
    if (found === undefined) {
      found = ctx.sessions.resolve(sessionToken(req));
      sessions.set(req, found);
    }
    return found;
  };
  app.decorateRequest('account', null);
  app.decorateRequest('clientClass', 'api');
  app.decorateRequest('paid', null);
  // Request validators compiled on each route's first request, not all at start (validation.ts).
  const validators = lazyValidators();
  app.setValidatorCompiler(validators.compile);
  app.decorate('compileAllValidators', validators.compileAll);
  // Shared components, by $id: the serialiser and the OpenAPI document read them from
  // Fastify, the request validators from their own Ajv instances.
  for (const schema of apiComponents) app.addSchema(schema);
  addSharedSchemas(apiComponents);

  // Scale mode: one limit for all API processes, on Redis; otherwise this process's own.
  const limiter = (rps: number) => (ctx.redis ? new SharedGatewayLimiter(rps, ctx.clock, ctx.redis) : new GatewayLimiter(rps, ctx.clock));
  const gateway = limiter(ctx.config.gatewayRps);
  // A dashboard session is its own limit: its traffic (the page's paced API calls, page loads
  // on navigation) is counted per session, not per address, so that a signed-in browser never
  // meets the per-IP gateway (nor takes its share from other clients behind the same address).
  const sessionGate = limiter(ctx.config.sessionRps);
  // Installed only when on: a hook that admits everything still costs every request a turn.
  if (gateway.enabled) {
    app.addHook('onRequest', async (req, reply) => {
      if (gatewayExempt(req, false)) return;
      if (internalClass(req) !== undefined) return;
      // Only a live session counts (a forged cookie meets the per-IP gateway like no cookie);
      // a key in the header wins over a cookie in auth, so it does here too.
      const session = req.headers[KEY_HEADER] === undefined ? await sessionOf(req) : undefined;
      if (session) {
        if (gatewayExempt(req, true)) return;
        if (await sessionGate.admit(`session:${session.tokenHash}`)) return;
        const refused = errors.rateLimit(1, 'Too many requests through this dashboard session, retry in a second');
        return reply.code(429).headers(refused.headers).header('content-type', 'application/json; charset=utf-8').send(JSON.stringify(refused.body()));
      }
      if (!(await gateway.admit(req.ip))) {
        return reply.code(429).header('content-type', 'text/html; charset=utf-8').send(GATEWAY_429_HTML);
      }
    });
  }

  app.setErrorHandler((err: FastifyError & { validation?: FastifySchemaValidationError[]; validationContext?: string }, req, reply) => {
    let apiError: ApiError;
    if (err instanceof ApiError) apiError = err;
    // The handler threw, so the access policy has released the charge: nothing was charged.
    else if (err instanceof SourceError) apiError = errors.upstream(err);
    else if (err.validation) apiError = validationError(err);
    else if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') apiError = errors.payloadTooLarge();
    // Another process held the state store's write lock past the busy timeout, or (PostgreSQL)
    // no connection was free in time or a statement ran past its deadline: the write was not
    // made (and a charge was released), so the client may simply retry. Never a 500.
    else if (isStoreBusy(err)) apiError = errors.busy();
    else if (
      err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' ||
      err.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' ||
      err.code === 'FST_ERR_CTP_INVALID_CONTENT_LENGTH' ||
      err.code === 'FST_ERR_CTP_INVALID_JSON_BODY' ||
      (err instanceof SyntaxError && (err.statusCode ?? 400) === 400)
    ) {
      apiError = errors.invalidBody(['body must be a JSON document matching the operation']);
    } else if (typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500) {
      apiError = new ApiError(err.statusCode, 'Error', err.message || 'Bad request');
    } else {
      req.log.error({ err }, 'request failed');
      apiError = new ApiError(500, 'ServerError', 'Internal server error');
    }
    reply.code(apiError.statusCode).headers(apiError.headers).header('content-type', 'application/json; charset=utf-8');
    return reply.send(JSON.stringify(apiError.body()));
  });

  app.setNotFoundHandler((req, reply) => {
    reply.code(404).header('content-type', 'application/json; charset=utf-8');
    return reply.send(JSON.stringify(errors.notFound(`Route ${req.method} ${req.url.split('?')[0]} not found`).body()));
  });

  let ready = false;
  app.addHook('onReady', async () => {
    ready = true;
  });
  answered.unshift(await registerMetrics(app, ctx));
  app.get('/healthz', { schema: { hide: true } }, async (_req, reply) => {
    if (!ready) return reply.code(503).send({ status: 'starting' });
    return { status: 'ok' };
  });

  await registerOpenApi(app, ctx);
  installPaidRoutes(app, ctx.policy, pin);
  // Export downloads: outside /v3 and without a key; the signed URL is the authorisation.
  // The MCP server over Streamable HTTP (outside /v3: it authenticates on its own).
  await app.register(mcpRoutes);
  await app.register(downloadRoutes, { queue: ctx.jobs, signer: ctx.signer, files: openExportFiles(ctx.state, ctx.config.dataDir), clock: ctx.clock });
  // The web dashboard at /app and its sessions.
  await app.register(dashboardRoutes, { webDir: options.webDir });

  await app.register(
    async (v3) => {
      // Authentication as each route's first onRequest hook, its mode fixed when the route is
      // added: reading req.routeOptions per request allocates, and callback style spares a
      // promise on the hottest hook.
      v3.addHook('onRoute', (route) => {
        const auth: RouteAuth = route.config?.auth ?? 'required';
        // Counted under its route (metrics.ts), said here, where every request of it passes.
        const tallies = routeTallies(route.config);
        const authenticate: onRequestHookHandler = function (req, _reply, done) {
          req.tallies = tallies;
          req.clientClass = internalClass(req) ?? options.clientClassOf?.(req) ?? 'api';
          if (auth === 'none') return done();
          const header = req.headers[KEY_HEADER];
          const key = typeof header === 'string' ? header.trim() : '';
          // Without a key, a dashboard session cookie is the other way in (client class web).
          const token = key === '' ? sessionToken(req) : undefined;
          if (token !== undefined) {
            sessionOf(req).then((session) => {
              if (session) {
                const refused = checkSessionRequest(req, session, ctx.config.publicUrl);
                if (refused) return done(refused);
                req.account = session.account;
                req.clientClass = 'web';
              } else if (auth === 'required') return done(errors.auth());
              done();
            }, done);
            return;
          }
          if (!key) return auth === 'required' ? done(errors.auth()) : done();
          // A key this process remembers is answered in this turn, without a promise (issue 26).
          const known = ctx.accounts.byKeyNow(key);
          if (known) {
            req.account = known;
            return done();
          }
          ctx.accounts.byKey(key).then((account) => {
            if (account) req.account = account;
            else if (auth === 'required') return done(errors.auth());
            done();
          }, done);
        };
        const existing = route.onRequest === undefined ? [] : Array.isArray(route.onRequest) ? route.onRequest : [route.onRequest];
        // Fair use is decided at the door, from the key and the route, before the body is read.
        const fair = route.config?.fairUse;
        route.onRequest = [authenticate, fairUseDoor(ctx.fairUse, fair), ...existing];
        const idsUnits = fair === undefined ? undefined : freeWriteUnits(ctx.fairUse, fair);
        if (idsUnits) {
          // After validation: the number of ids a write carries is known only then.
          const before = route.preHandler === undefined ? [] : Array.isArray(route.preHandler) ? route.preHandler : [route.preHandler];
          route.preHandler = [idsUnits, ...before];
        }
      });
      await v3.register(toolRoutes);
      if (options.extraRoutes) await options.extraRoutes(v3);
    },
    { prefix: '/v3' },
  );
  return app;
}
