/** Every tool family, each an encapsulated Fastify plugin mounted under /v3. */
import type { FastifyInstance } from 'fastify';
import { keywordToolRoutes } from './keyword/routes.js';
import { sharedRoutes } from './shared/routes.js';
import { serpToolRoutes } from './serp/routes.js';
import { siteToolRoutes } from './site/routes.js';
import { linkToolRoutes } from './link/routes.js';
import { rankToolRoutes } from './rank/routes.js';
import { answerToolRoutes } from './answer/routes.js';

export async function toolRoutes(app: FastifyInstance): Promise<void> {
  await app.register(keywordToolRoutes, { prefix: '/keyword-tool' });
  await app.register(serpToolRoutes, { prefix: '/serp-tool' });
  await app.register(linkToolRoutes, { prefix: '/link-tool' });
  await app.register(siteToolRoutes, { prefix: '/site-tool' });
  await app.register(rankToolRoutes, { prefix: '/rank-tool' });
  await app.register(answerToolRoutes, { prefix: '/answer-tool' });
  await app.register(sharedRoutes, { prefix: '/shared' });
}
