/**
 * The OpenAPI document, generated from the route schemas, at /v3/openapi.json, and an
 * interactive reference at /docs.
 */
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import type { QuarryContext } from './context.js';

export async function registerOpenApi(app: FastifyInstance, ctx: QuarryContext): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Quarry — Research API v3',
        version: '3.0.0',
        description:
          'Keyword, SERP and backlink research. Send your API key in the `x-access-token` header. ' +
          'Paid operations draw from quota pools (see GET /keyword-tool/limits); identical paid requests ' +
          'within 24 hours are answered from cache. Out of the box the data is the sandbox web: demo data.',
      },
      servers: [{ url: ctx.config.publicUrl }],
      components: {
        securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'x-access-token' } },
      },
      security: [{ apiKey: [] }],
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list', deepLinking: true } });
  app.get('/v3/openapi.json', { schema: { hide: true }, config: { auth: 'none' } }, async () => app.swagger());
}
