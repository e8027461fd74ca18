/**
 * The flooding account of bench:fairness, in a process of its own (its clients' work must
 * not run on the bystander's event loop nor on the server's). Runs one phase's loops until
 * SIGTERM, then prints the answers it got by status as one JSON line.
 *
 * Phase 1 (the worst workload within the fair-use limits): lists of 10,000 ids created from 8
 * loops; all lists, a list's CSV and 10,000-id keyword exports from 6 loops; 3 live backlink
 * exports, each created again once it is done. Phase 2 (the operations no limit covered
 * before issue 28): backlink export suggestions and a 1,000-keyword tracking's stats, 8 loops
 * each. Every loop sends its next request as soon as the last one is answered, refused or not.
 *
 * The "refusals" phase sends list creations of 10,000 ids as fast as 4 loops can, once the
 * account's budget is spent: what a refused request costs the server.
 */
import fs from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

export interface FloodPlan {
  base: string;
  key: string;
  phase: 'writes-and-bulk' | 'suggest-and-stats' | 'refusals';
  /** A file holding 10,000 keyword ids, one per line. */
  idsFile: string;
  /** One of the account's full lists (the CSV read). */
  listId: string;
  /** A tracking of 1,000 keywords with 30 days of checks. */
  trackingId: string;
  /** The backlink export target (a large root domain). */
  exportTarget: string;
  /** Links per export. */
  exportLimit: number;
}

const plan = JSON.parse(process.argv[2]) as FloodPlan;
const ids = fs.readFileSync(plan.idsFile, 'utf8').split('\n').filter(Boolean);
const listBody = (name: string) => JSON.stringify({ name, keyword_ids: ids });
const idsBody = JSON.stringify({ keyword_ids: ids });
const statuses = new Map<string, number>();
let running = true;
// Stopped: every request still waiting is abandoned at once (a stalled server must not hold the bench).
// A controller per request, dropped when it is answered: fetch leaves its listener on a signal it
// is given until that signal is collected, so one shared signal gathered thousands of them.
const waiting = new Set<AbortController>();
const abortable = <T>(send: (signal: AbortSignal) => Promise<T>): Promise<T> => {
  const controller = new AbortController();
  waiting.add(controller);
  return send(controller.signal).finally(() => waiting.delete(controller));
};
process.once('SIGTERM', () => {
  running = false;
  for (const controller of waiting) controller.abort();
});
// The bench ended without stopping this flood: end too, at once.
process.once('disconnect', () => process.exit(0));

/** The answer's status and text, counted by label and status; null when the connection failed. */
async function call(label: string, path: string, init: RequestInit = {}): Promise<{ status: number; text: string } | null> {
  try {
    const { res, text } = await abortable(async (signal) => {
      const res = await fetch(`${plan.base}${path}`, {
        ...init,
        signal,
        headers: { 'x-access-token': plan.key, 'content-type': 'application/json', ...(init.headers ?? {}) },
      });
      return { res, text: await res.text() };
    });
    const k = `${label} ${res.status}`;
    statuses.set(k, (statuses.get(k) ?? 0) + 1);
    return { status: res.status, text };
  } catch {
    if (!running) return null;
    statuses.set(`${label} error`, (statuses.get(`${label} error`) ?? 0) + 1);
    await sleep(50);
    return null;
  }
}

async function listWrites(lane: number): Promise<void> {
  for (let i = 0; running; i++) await call('create list', '/keyword-tool/lists', { method: 'POST', body: listBody(`flood ${lane} ${i}`) });
}

async function bulkReads(lane: number): Promise<void> {
  for (let i = 0; running; i++) {
    switch ((lane + i) % 3) {
      case 0:
        await call('all lists', '/keyword-tool/lists');
        break;
      case 1:
        await call('list csv', `/keyword-tool/lists/${plan.listId}.csv`);
        break;
      default:
        await call('keyword export', '/keyword-tool/keywords', { method: 'POST', body: idsBody });
    }
  }
}

/**
 * The export suggestion for the target, asked until given: an export needs one (422 without),
 * kept 24 hours for the account. Asked before the other loops start: once they flood, the
 * account's bulk slots are theirs and the suggestion was refused (429) for a whole phase, so
 * no export ever ran.
 */
async function suggestExportTarget(): Promise<void> {
  while (running) {
    const suggested = await call('suggest', '/link-tool/exports/suggest', { method: 'POST', body: JSON.stringify({ url: plan.exportTarget }) });
    if (suggested?.status === 200) return;
    await sleep(1_000);
  }
}

/** One live backlink export at a time per loop: created, polled until it is done, created again. */
async function exports(): Promise<void> {
  while (running) {
    const res = await call('create export', '/link-tool/exports', {
      method: 'POST',
      body: JSON.stringify({ url: plan.exportTarget, limit: plan.exportLimit + Math.floor(Math.random() * 1000) }),
    });
    if (res?.status !== 200) {
      await sleep(1_000);
      continue;
    }
    const job = JSON.parse(res.text) as { _id?: string };
    while (running && job._id) {
      await sleep(1_000);
      const jobs = await abortable(async (signal) => {
        const list = await fetch(`${plan.base}/link-tool/exports`, { headers: { 'x-access-token': plan.key }, signal });
        return list.ok ? ((await list.json()) as { _id: string; state: number; error: string }[]) : [];
      }).catch(() => []);
      const mine = jobs.find((j) => j._id === job._id);
      if (!mine || mine.state === 600 || mine.error) break;
    }
  }
}

async function suggestions(): Promise<void> {
  while (running) await call('suggest', '/link-tool/exports/suggest', { method: 'POST', body: JSON.stringify({ url: plan.exportTarget }) });
}

async function stats(): Promise<void> {
  while (running) await call('stats', `/rank-tool/trackings/${plan.trackingId}/stats`, { method: 'POST', body: '{}' });
}

const loops: Promise<void>[] = [];
const times = (n: number, f: (lane: number) => Promise<void>) => {
  for (let lane = 0; lane < n; lane++) loops.push(f(lane));
};
if (plan.phase === 'writes-and-bulk') {
  await suggestExportTarget();
  times(8, listWrites);
  times(6, bulkReads);
  times(3, exports);
} else if (plan.phase === 'suggest-and-stats') {
  times(8, suggestions);
  times(8, stats);
} else {
  // Spend the budget first, then count only what follows (the parent measures from "spent").
  while (running && (await call('spend', '/keyword-tool/lists', { method: 'POST', body: listBody('spend') }))?.status !== 429);
  statuses.clear();
  process.stdout.write('spent\n');
  times(4, listWrites);
}
await Promise.all(loops);
process.stdout.write(`${JSON.stringify(Object.fromEntries(statuses))}\n`);
process.disconnect?.();
