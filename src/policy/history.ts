/**
 * Request histories: per account and per tool, capped, and listed in the order the
 * contract gives for each tool.
 */
export const HISTORY_TOOLS = {
  keyword: { cap: 100, order: 'oldest-first' },
  kd: { cap: 100, order: 'oldest-first' },
  serp: { cap: 100, order: 'oldest-first' },
  link: { cap: 100, order: 'oldest-first' },
  site: { cap: 50, order: 'newest-first' },
} as const satisfies Record<string, { cap: number; order: 'oldest-first' | 'newest-first' }>;

export type HistoryTool = keyof typeof HISTORY_TOOLS;

export interface HistoryWrite {
  tool: HistoryTool;
  entry: unknown;
}
