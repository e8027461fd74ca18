/** /keyword-tool: one file per resource. */
import type { FastifyInstance } from 'fastify';
import { competitorKeywordsRoutes } from './competitorKeywords.js';
import { gapAnalysisRoutes } from './gapAnalysis.js';
import { kdUrlMetricsRoutes } from './kdUrlMetrics.js';
import { keywordExportRoutes } from './keywordExport.js';
import { keywordImportRoutes } from './keywordImports.js';
import { keywordSerpRoutes } from './keywordSerps.js';
import { limitsRoutes } from './limits.js';
import { listRoutes } from './lists.js';
import { relatedKeywordsRoutes } from './relatedKeywords.js';
import { requestHistoryRoutes } from './requests.js';
import { trendsRoutes } from './trends.js';

export async function keywordToolRoutes(app: FastifyInstance): Promise<void> {
  await app.register(limitsRoutes);
  await app.register(trendsRoutes);
  await app.register(relatedKeywordsRoutes);
  await app.register(competitorKeywordsRoutes);
  await app.register(keywordImportRoutes);
  await app.register(keywordSerpRoutes);
  await app.register(keywordExportRoutes);
  await app.register(kdUrlMetricsRoutes);
  await app.register(gapAnalysisRoutes);
  await app.register(listRoutes);
  await app.register(requestHistoryRoutes);
}
