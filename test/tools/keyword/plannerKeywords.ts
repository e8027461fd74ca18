/**
 * Grows a test app's private world with keywords from a Keyword Planner export, through
 * the real importer: the tiny world knows 2,500 keywords and no seed has more than ~120
 * related ones, so row limits (premium 700, api-pro 2,000, the 10,000 ceiling) need more.
 *
 * Every imported keyword reads "<words> <n>", e.g. "quartz widget gadget 00042", so any seed
 * made of those words is related to all of them (each holds every word of the seed).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { importKeywordsCsv } from '../../../src/engine/import/keywordsImport.js';
import { reloadSearchKeywords } from '../../../src/engine/search/index.js';
import type { QuarryContext } from '../../../src/context.js';

export const PLANNER_WORDS = ['quartz', 'widget', 'gadget', 'gizmo'] as const;

export async function importPlannerKeywords(
  ctx: Pick<QuarryContext, 'engine' | 'search'>,
  count: number,
  options: { locationId?: number; languageId?: number; words?: readonly string[] } = {},
): Promise<string[]> {
  const words = (options.words ?? PLANNER_WORDS).join(' ');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-planner-'));
  const file = path.join(dir, 'planner.csv');
  const texts: string[] = [];
  const lines = ['Keyword,Avg. monthly searches,Competition (indexed value),Top of page bid (low range),Top of page bid (high range),Searches: Oct 2026'];
  for (let i = 0; i < count; i++) {
    const kw = `${words} ${String(i).padStart(5, '0')}`;
    texts.push(kw);
    const volume = 10 + ((i * 7919) % 5000);
    lines.push(`${kw},${volume},${i % 101},0.40,1.60,${volume}`);
  }
  fs.writeFileSync(file, lines.join('\n'));
  try {
    await importKeywordsCsv(file, { locationId: options.locationId ?? 2840, languageId: options.languageId ?? 1000, store: ctx.engine.store });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  reloadSearchKeywords(ctx.search, ctx.engine.store);
  return texts;
}
