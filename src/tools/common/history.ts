/** GET …/requests: an account's request history of one tool, as the policy recorded it. */
import { Type, type TSchema } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { HISTORY_TOOLS, type HistoryTool } from '../../policy/history.js';
import { errorResponses } from './schemas.js';

/** `item` is the schema of one history entry, as the family's reference shows it. */
export function historyRoute(app: FastifyInstance, path: string, tool: HistoryTool, tag: string, item: TSchema = Type.Any()): void {
  const { cap, order } = HISTORY_TOOLS[tool];
  app.get(
    path,
    {
      schema: {
        tags: [tag],
        summary: `Request history: the last ${cap} lookups, ${order.replace('-', ' ')}`,
        response: { 200: Type.Array(item), ...errorResponses(401) },
      },
    },
    async (req) => app.quarry.policy.history(req.account!.id, tool),
  );
}
