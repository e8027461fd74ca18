/**
 * The web dashboard at /app, served by Quarry itself: the built single-page app (`npm run
 * build` writes it to dist/web), the session endpoints that exchange an API key for a
 * session cookie, and the page routes that send a browser without a session to sign-in.
 * The dashboard then calls the ordinary API under /v3 with its cookie (client class `web`).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fastifyStatic from '@fastify/static';
import { Type } from '@sinclair/typebox';
import type { LiveSession } from '../sessions/sessionStore.js';
import { ApiError, errors } from '../http/errors.js';
import { rankServices } from '../rank/rankService.js';
import type { ReportMail } from '../rank/rankReports.js';
import { checkSessionRequest, clearSessionCookie, csrfRefused, isCrossSite, secureCookies, sessionToken, setSessionCookie } from './webSession.js';

/** Where `npm run build` puts the dashboard: <repo>/dist/web, from src/dashboard or dist/dashboard alike. */
export const DEFAULT_WEB_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'dist', 'web');

export interface DashboardOptions {
  webDir?: string;
}

// The app loads only its own files; no inline script, no framing, no referrer to other sites.
const PAGE_HEADERS = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

const NOT_BUILT_HTML = `<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Quarry dashboard not built</title></head>
<body><h1>The dashboard is not built</h1><p>Run <code>npm run build</code> (or <code>npm start</code>, which builds first) and reload.</p></body></html>
`;

const SignInBody = Type.Object({ key: Type.String({ minLength: 1, maxLength: 200 }) }, { additionalProperties: false });

function sessionAnswer(session: LiveSession) {
  return {
    account: { id: session.account.id, email: session.account.email, plan: session.account.plan },
    csrf_token: session.csrfToken,
    expires_at: session.expiresAt,
  };
}

const PreviewParams = Type.Object({
  tracking_id: Type.String({ minLength: 1, maxLength: 64 }),
  report_id: Type.String({ minLength: 1, maxLength: 64 }),
});

/**
 * The HTML of a mail as a browser shows it without a mail client: each inline image
 * (`cid:`) replaced by its attachment as a data URL. Nothing else changes, so the preview is
 * the mail that is sent.
 */
export function inlineImages(mail: ReportMail): string {
  let html = mail.html;
  for (const a of mail.attachments) {
    if (!a.cid || !Buffer.isBuffer(a.content)) continue;
    html = html.split(`cid:${a.cid}`).join(`data:${a.contentType ?? 'application/octet-stream'};base64,${a.content.toString('base64')}`);
  }
  return html;
}

/** The path to return to after sign-in: a dashboard page of this site, never another site. */
function safeNext(raw: string): string {
  return /^\/app(\/[A-Za-z0-9/_\-.]*)?(\?[^\s#]*)?$/.test(raw) && !raw.includes('//') ? raw : '/app';
}

export async function dashboardRoutes(app: FastifyInstance, options: DashboardOptions): Promise<void> {
  const { sessions, config } = app.quarry;
  const webDir = options.webDir ?? DEFAULT_WEB_DIR;
  const indexFile = path.join(webDir, 'index.html');

  const resolve = (req: FastifyRequest) => sessions.resolve(sessionToken(req));

  const sendIndex = async (reply: FastifyReply) => {
    let html: string;
    try {
      html = await fs.promises.readFile(indexFile, 'utf8');
    } catch {
      return reply.code(503).headers(PAGE_HEADERS).header('content-type', 'text/html; charset=utf-8').send(NOT_BUILT_HTML);
    }
    return reply.code(200).headers(PAGE_HEADERS).header('content-type', 'text/html; charset=utf-8').send(html);
  };

  // Hashed file names: a file never changes, so browsers may keep it for a year.
  await app.register(fastifyStatic, {
    root: path.join(webDir, 'assets'),
    prefix: '/app/assets/',
    decorateReply: false,
    index: false,
    wildcard: true,
    preCompressed: true,
    immutable: true,
    maxAge: '365d',
    setHeaders: (res) => res.setHeader('x-content-type-options', 'nosniff'),
  });

  const hide = { hide: true } as const;

  app.post('/app/session', { schema: { ...hide, body: SignInBody }, bodyLimit: 4096 }, async (req, reply) => {
    // Login CSRF: another site must not sign a browser into an account of its choosing.
    if (isCrossSite(req, config.publicUrl)) throw csrfRefused();
    const opened = await sessions.open((req.body as { key: string }).key);
    if (!opened) throw errors.auth();
    setSessionCookie(reply, opened.token, sessions.lifetimeSeconds, secureCookies(req, config.publicUrl));
    reply.header('cache-control', 'no-store');
    return sessionAnswer(opened.session);
  });

  app.get('/app/session', { schema: hide }, async (req, reply) => {
    const session = await resolve(req);
    reply.header('cache-control', 'no-store');
    if (!session) {
      if (sessionToken(req) !== undefined) clearSessionCookie(reply, secureCookies(req, config.publicUrl));
      throw new ApiError(401, 'AuthError', 'No session: sign in with an API key');
    }
    return sessionAnswer(session);
  });

  app.delete('/app/session', { schema: hide }, async (req, reply) => {
    const token = sessionToken(req);
    const session = await resolve(req);
    if (session) {
      const refused = checkSessionRequest(req, session, config.publicUrl);
      if (refused) throw refused;
      await sessions.close(token!);
    }
    clearSessionCookie(reply, secureCookies(req, config.publicUrl));
    return reply.code(204).send();
  });

  // The e-mail a rank report will send next, rendered by the code that sends it (the API has no
  // such operation: it is the dashboard's own, read with the session like its pages).
  app.get('/app/api/trackings/:tracking_id/reports/:report_id/preview', { schema: { ...hide, params: PreviewParams } }, async (req, reply) => {
    const session = await resolve(req);
    reply.header('cache-control', 'no-store');
    if (!session) throw new ApiError(401, 'AuthError', 'No session: sign in with an API key');
    const refused = checkSessionRequest(req, session, config.publicUrl);
    if (refused) throw refused;
    const { tracking_id, report_id } = req.params as { tracking_id: string; report_id: string };
    const { store, reports } = rankServices(app.quarry);
    const tracking = await store.get(session.account.id, tracking_id, { withDeleted: true });
    if (!tracking) throw errors.notFound('Tracking not found');
    const report = (await store.reportsOf(tracking.id)).find((r) => r.id === report_id);
    if (!report) throw errors.notFound('Report not found');
    const preview = await reports.preview(report, tracking, app.quarry.clock.now());
    return {
      period: preview.period,
      would_send: preview.wouldSend,
      to: JSON.parse(report.emails) as string[],
      subject: preview.mail.subject,
      html: inlineImages(preview.mail),
      text: preview.mail.text,
    };
  });

  // Every other /app path is a page of the single-page app: the sign-in page for anyone, the
  // rest only with a session (a browser without one is sent to sign in and brought back).
  const page = async (req: FastifyRequest, reply: FastifyReply) => {
    const pathname = req.url.split('?')[0];
    if (pathname === '/app/sign-in') return sendIndex(reply);
    const session = await resolve(req);
    if (!session) {
      if (sessionToken(req) !== undefined) clearSessionCookie(reply, secureCookies(req, config.publicUrl));
      return reply
        .code(302)
        .header('cache-control', 'no-store')
        .header('location', `/app/sign-in?next=${encodeURIComponent(safeNext(req.url))}`)
        .send();
    }
    return sendIndex(reply);
  };
  app.get('/app', { schema: hide }, page);
  app.get('/app/*', { schema: hide }, page);
}
