/**
 * The OpenAPI 3.0 document at /v3/openapi.json, generated from the route schemas, and an
 * interactive reference at /docs.
 *
 * The route schemas give parameters, bodies and answers; what they cannot say is added to
 * the finished document here, once for every operation: the quota pool a paid operation
 * draws from (`x-quota-pool`), the gateway's HTML 429 (any request can meet it), and an
 * `operationId` derived from method and path, as the published reference names them.
 */
import swagger from '@fastify/swagger';
import swaggerUi, { type FastifySwaggerUiOptions } from '@fastify/swagger-ui';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, RouteOptions } from 'fastify';
import type { PaidOperation } from '../policy/accessPolicy.js';
import type { QuarryContext } from './context.js';

export const API_PREFIX = '/v3';

const TAGS = [
  { name: 'keyword-tool', description: 'Keyword research: related and competitor keywords, volumes, difficulty, SERPs, lists' },
  { name: 'serp-tool', description: 'Search result pages with their layout, metrics and snapshot images' },
  { name: 'link-tool', description: 'Backlinks, link metrics, favourites and CSV exports' },
  { name: 'site-tool', description: 'Site profiles: overview, backlink profile, top content, competitors' },
  { name: 'rank-tool', description: 'Rank tracking: trackings, tracked keywords, tags, annotations, reports' },
  { name: 'shared', description: 'Locations' },
];

interface OpenApiOperation {
  operationId?: string;
  responses?: Record<string, unknown>;
  [key: string]: unknown;
}

/** `get /keyword-tool/lists/{list_id}` → `get-keyword-tool-lists-by-list-id`, the reference's naming. */
export function operationIdOf(method: string, path: string): string {
  const words = path
    .split('/')
    .filter(Boolean)
    .map((part) => (part.startsWith('{') ? `by-${part.slice(1, -1)}` : part));
  return [method.toLowerCase(), ...words].join('-').replace(/_/g, '-');
}

export async function registerOpenApi(app: FastifyInstance, ctx: QuarryContext): Promise<void> {
  // Paid operations by method and document path, for `x-quota-pool`.
  const pools = new Map<string, string>();
  app.addHook('onRoute', (route: RouteOptions) => {
    const paid = route.config?.paid as PaidOperation | undefined;
    if (!paid || !route.url.startsWith(`${API_PREFIX}/`)) return;
    const path = route.url.slice(API_PREFIX.length).replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    for (const method of Array.isArray(route.method) ? route.method : [route.method]) pools.set(`${method.toLowerCase()} ${path}`, paid.pool);
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Quarry — Research API v3',
        version: '3.0.0',
        description:
          'Keyword, SERP and backlink research. Send your API key in the `x-access-token` header. ' +
          'Paid operations draw from the quota pool named by `x-quota-pool` (see GET /keyword-tool/limits); identical paid ' +
          'requests within 24 hours are answered from cache without a charge. Timestamps are Unix seconds. ' +
          'Out of the box the data is the sandbox web, a deterministic synthetic web.',
        license: { name: 'MIT', url: 'https://opensource.org/licenses/MIT' },
      },
      servers: [{ url: `${ctx.config.publicUrl}${API_PREFIX}` }],
      tags: TAGS,
      components: {
        securitySchemes: { ApiKeyAuth: { type: 'apiKey', in: 'header', name: 'x-access-token' } },
      },
      security: [{ ApiKeyAuth: [] }],
    },
    // Components keep their own names (`#/components/schemas/Keyword`), not `def-N`.
    refResolver: { buildLocalReference: (json, _base, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
    transformObject: (documentObject) => finishDocument((documentObject as unknown as { openapiObject: OpenApiDocument }).openapiObject, pools) as never,
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: {
      docExpansion: 'list',
      deepLinking: true,
      // Highlighting a body of a few dozen KB froze the tab for seconds (issue 27).
      syntaxHighlight: false,
      // Large answers are shown cut, with a download of the whole (assets/docs/large-answers.js).
      responseInterceptor: (res) => (globalThis as unknown as DocsPage).quarryLargeAnswers.responseInterceptor(res),
      // Swagger UI's own plugin that loads the document from `url`, then the theme script's.
      plugins: [
        (system) => (globalThis as unknown as DocsPage).SwaggerUIBundle.plugins.DownloadUrl(system),
        (system) => (globalThis as unknown as DocsPage).quarryLargeAnswers.plugin(system),
      ],
    },
    theme: { title: 'Quarry API reference', js: [{ filename: 'large-answers.js', content: fs.readFileSync(LARGE_ANSWERS_SCRIPT, 'utf8') }] },
  });
  app.get(`${API_PREFIX}/openapi.json`, { schema: { hide: true }, config: { auth: 'none' } }, async () => app.swagger());
}

/** The interactive reference's own script (served from /docs/static/theme/). */
const LARGE_ANSWERS_SCRIPT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'assets', 'docs', 'large-answers.js');

/**
 * What the reference page's globals offer. The functions in uiConfig reach the page as their
 * source text (@fastify/swagger-ui serialises them into its initializer), so they can only use
 * the page's globals: Swagger UI's bundle and the theme script.
 */
interface DocsPage {
  SwaggerUIBundle: { plugins: { DownloadUrl: UiPlugin } };
  quarryLargeAnswers: { responseInterceptor: UiResponseInterceptor; plugin: UiPlugin };
}
type UiConfig = NonNullable<FastifySwaggerUiOptions['uiConfig']>;
type UiPlugin = NonNullable<UiConfig['plugins']>[number];
type UiResponseInterceptor = NonNullable<UiConfig['responseInterceptor']>;

interface OpenApiDocument {
  paths?: Record<string, Record<string, OpenApiOperation>>;
  components?: { responses?: Record<string, unknown> };
  [key: string]: unknown;
}

const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options']);

function finishDocument(doc: OpenApiDocument, pools: Map<string, string>): OpenApiDocument {
  doc.components = {
    ...doc.components,
    responses: {
      ...doc.components?.responses,
      GatewayRateLimited: {
        description: 'More requests per second from this address than the gateway allows (before authentication)',
        content: { 'text/html': { schema: { type: 'string' } } },
      },
    },
  };
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const [method, op] of Object.entries(item)) {
      if (!METHODS.has(method)) continue;
      op.operationId ??= operationIdOf(method, path);
      const pool = pools.get(`${method} ${path}`);
      if (pool !== undefined) op['x-quota-pool'] = pool;
      const responses = (op.responses ??= {});
      // A 429 the operation declares is the policy's JSON; the gateway's HTML one comes first, before any route.
      const declared = responses['429'] as { content?: Record<string, unknown>; description?: string } | undefined;
      if (declared?.content) {
        declared.content['text/html'] = { schema: { type: 'string' } };
        declared.description = `${declared.description ?? 'Too many requests'}; or, as text/html, the gateway's per-address limit`;
      } else {
        responses['429'] = { $ref: '#/components/responses/GatewayRateLimited' };
      }
    }
  }
  return doc;
}
