/** /rank-tool: trackings, their keywords and stats, e-mail reports, tags and annotations. */
import type { FastifyInstance } from 'fastify';
import { annotationRoutes } from './annotations.js';
import { reportRoutes } from './reports.js';
import { tagRoutes } from './tags.js';
import { trackedKeywordRoutes } from './trackedKeywords.js';
import { trackingRoutes } from './trackings.js';

export async function rankToolRoutes(app: FastifyInstance): Promise<void> {
  await app.register(trackingRoutes);
  await app.register(trackedKeywordRoutes);
  await app.register(reportRoutes);
  await app.register(tagRoutes);
  await app.register(annotationRoutes);
}
