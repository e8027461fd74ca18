/**
 * The size of a free write for the per-account budget (policy/fairUse.ts): the keyword
 * items its body carries. Read from the validated body; anything unexpected counts 0, so
 * the write still costs its one unit.
 */
import type { FastifyRequest } from 'fastify';

const ITEM_MEMBERS = ['keyword_ids', 'keywords', 'tracked_keyword_ids'] as const;

function lengthOf(value: unknown): number {
  return Array.isArray(value) ? value.length : 0;
}

/**
 * Keyword ids or keywords a write carries. A multiple-trackings body writes its keywords
 * once per location and platform, so it counts them that many times.
 */
export function itemsSent(req: FastifyRequest): number {
  const body: unknown = req.body;
  if (body === null || typeof body !== 'object') return 0;
  const b = body as Record<string, unknown>;
  const items = ITEM_MEMBERS.reduce((sum, key) => sum + lengthOf(b[key]), 0);
  const targets = Math.max(1, lengthOf(b.location_ids)) * Math.max(1, lengthOf(b.platform_ids));
  return items * targets;
}
