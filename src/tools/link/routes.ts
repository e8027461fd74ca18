/** /link-tool: URL metrics, backlinks, favourites, exports and the request history. */
import type { FastifyInstance } from 'fastify';
import { historyRoute } from '../common/history.js';
import { backlinkRoutes } from './backlinks.js';
import { favouriteRoutes } from './favourites.js';
import { exportRoutes } from './exports.js';
import { LinkHistoryEntry } from './schemas.js';

export async function linkToolRoutes(app: FastifyInstance): Promise<void> {
  await app.register(backlinkRoutes);
  await app.register(favouriteRoutes);
  await app.register(exportRoutes);
  historyRoute(app, '/requests', 'link', 'link-tool', LinkHistoryEntry);
}
