/** /answer-tool: AI answer monitoring — models, monitors and their dashboards, prompts and their answers, settings. */
import type { FastifyInstance } from 'fastify';
import { monitorRoutes } from './monitors.js';
import { promptRoutes } from './prompts.js';

export async function answerToolRoutes(app: FastifyInstance): Promise<void> {
  await app.register(monitorRoutes);
  await app.register(promptRoutes);
}
