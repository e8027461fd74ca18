/** /rank-tool: trackings, their keywords and stats, email reports. */
import type { FastifyInstance } from 'fastify';
import { reportRoutes } from './reports.js';
import { trackedKeywordRoutes } from './trackedKeywords.js';
import { trackingRoutes } from './trackings.js';

export async function rankToolRoutes(app: FastifyInstance): Promise<void> {
  await app.register(trackingRoutes);
  await app.register(trackedKeywordRoutes);
  await app.register(reportRoutes);
}
