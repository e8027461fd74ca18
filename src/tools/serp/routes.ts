/** /serp-tool: SERPs, snapshots, URL metrics and the request history. */
import type { FastifyInstance } from 'fastify';
import { historyRoute } from '../common/history.js';
import { serpRoutes } from './serps.js';
import { serpUrlMetricsRoutes } from './urlMetrics.js';
import { SerpHistoryEntry } from './schemas.js';

export async function serpToolRoutes(app: FastifyInstance): Promise<void> {
  await app.register(serpRoutes);
  await app.register(serpUrlMetricsRoutes);
  historyRoute(app, '/requests', 'serp', 'serp-tool', SerpHistoryEntry);
}
