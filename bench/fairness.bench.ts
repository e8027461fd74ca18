/**
 * Fairness: a bystander's p99 latency of a free call (GET /keyword-tool/limits) and a paid
 * call (a cached related-keywords lookup) while another account runs the worst free workload
 * (lists of 10,000 ids created as fast as allowed, all lists, list details and keyword exports
 * by 10,000 ids, eight at a time), against the same calls on an idle server; printed as a
 * ratio. A real server on a real socket, tiny world (copied, so the bench world stays clean).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../src/config.js';
import { buildApp } from '../src/http/app.js';
import { unixSeconds } from '../src/lib/clock.js';
import { closeContext, createContext } from '../src/service.js';
import { percentile, tinyBenchWorld } from './benchSupport.js';

const SAMPLES = Number(process.env.FAIRNESS_SAMPLES ?? 200);
const FLOOD_LANES = 8;

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-fairness-'));
fs.copyFileSync(await tinyBenchWorld(), path.join(dir, 'research.db'));
const ctx = await createContext(loadConfig({ QUARRY_DATA_DIR: dir, QUARRY_GATEWAY_RPS: '0', QUARRY_LOG_LEVEL: 'silent' }));
const app = await buildApp(ctx);
await app.listen({ port: 0, host: '127.0.0.1' });
const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/v3`;
const keyOf = async (email: string, plan: string) => {
  const now = unixSeconds(Date.now());
  const account = await ctx.accounts.create(email, plan, now);
  return (await ctx.accounts.createKey(account.id, now)).key;
};
const flooder = await keyOf('flooder@example.test', 'agency');
const bystander = await keyOf('bystander@example.test', 'premium');
const call = (key: string, url: string, init: RequestInit = {}) =>
  fetch(`${base}${url}`, { ...init, headers: { 'x-access-token': key, 'content-type': 'application/json', ...(init.headers ?? {}) } });

// Keyword ids the flooder can use: a related-keywords answer's ids, repeated into 10,000 (unknown ones are kept too).
const related = (await (await call(flooder, '/keyword-tool/related-keywords?kw=running%20shoes&location_id=2840')).json()) as
  { _id: string }[] | { data?: { _id: string }[] };
const known = (Array.isArray(related) ? related : (related.data ?? [])).map((k) => k._id);
const ids = Array.from({ length: 10_000 }, (_, i) => known[i % Math.max(1, known.length)] ?? `id-${i}`).map((id, i) => (i < known.length ? id : `${id}-${i}`));
const PAID = '/keyword-tool/related-keywords?kw=trail%20running&location_id=2840';
if ((await call(bystander, PAID)).status !== 200) throw new Error('the paid call does not answer 200');

async function measure(label: string): Promise<{ free: number; paid: number }> {
  const free: number[] = [];
  const paid: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    for (const [url, into] of [
      ['/keyword-tool/limits', free],
      [PAID, paid],
    ] as const) {
      const started = performance.now();
      const res = await call(bystander, url);
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`${label}: ${url} answered ${res.status}`);
      into.push(performance.now() - started);
    }
  }
  return { free: percentile(free, 99), paid: percentile(paid, 99) };
}

const idle = await measure('idle');

let flooding = true;
const outcomes = new Map<number, number>();
const flood = async (lane: number) => {
  let listId: string | undefined;
  for (let i = 0; flooding; i++) {
    let res: Response;
    switch ((lane + i) % 4) {
      case 0:
        res = await call(flooder, '/keyword-tool/lists', { method: 'POST', body: JSON.stringify({ name: `flood ${lane} ${i}`, keyword_ids: ids }) });
        if (res.status === 201) listId = ((await res.clone().json()) as { _id: string })._id;
        break;
      case 1:
        res = await call(flooder, '/keyword-tool/lists');
        break;
      case 2:
        res = await call(flooder, listId ? `/keyword-tool/lists/${listId}` : '/keyword-tool/lists');
        break;
      default:
        res = await call(flooder, '/keyword-tool/keywords', { method: 'POST', body: JSON.stringify({ keyword_ids: ids }) });
    }
    await res.arrayBuffer();
    outcomes.set(res.status, (outcomes.get(res.status) ?? 0) + 1);
  }
};
const lanes = Array.from({ length: FLOOD_LANES }, (_, lane) => flood(lane));
await new Promise((r) => setTimeout(r, 2_000));
const busy = await measure('flood');
flooding = false;
await Promise.all(lanes);

console.log(`fairness (tiny world, ${SAMPLES} bystander calls of each kind, ${FLOOD_LANES} flood lanes)`);
console.log(`  flood answers by status: ${JSON.stringify(Object.fromEntries(outcomes))}`);
console.log(`  free call p99: idle ${idle.free.toFixed(1)} ms, under flood ${busy.free.toFixed(1)} ms, ratio ${(busy.free / idle.free).toFixed(2)}`);
console.log(`  paid call p99: idle ${idle.paid.toFixed(1)} ms, under flood ${busy.paid.toFixed(1)} ms, ratio ${(busy.paid / idle.paid).toFixed(2)}`);
await app.close();
await closeContext(ctx);
fs.rmSync(dir, { recursive: true, force: true });
