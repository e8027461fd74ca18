/** /keyword-tool: one file per resource. */
import type { FastifyInstance } from 'fastify';
import { limitsRoutes } from './limits.js';
import { trendsRoutes } from './trends.js';

export async function keywordToolRoutes(app: FastifyInstance): Promise<void> {
  await app.register(limitsRoutes);
  await app.register(trendsRoutes);
}
