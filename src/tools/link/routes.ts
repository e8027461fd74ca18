/** /link-tool: URL metrics, backlinks, favourites, exports and the request history. */
import type { FastifyInstance } from 'fastify';
import { historyRoute } from '../shared/history.js';
import { backlinkRoutes } from './backlinks.js';
import { favouriteRoutes } from './favourites.js';

export async function linkToolRoutes(app: FastifyInstance): Promise<void> {
  await app.register(backlinkRoutes);
  await app.register(favouriteRoutes);
  historyRoute(app, '/requests', 'link', 'link-tool');
}
