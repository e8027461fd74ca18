/**
 * The TypeScript SDK (clients/typescript) against a real `quarry serve` process on the tiny
 * world, with the gateway's limit on (4 requests per second per address, as shipped):
 * every operation once, the client rules (RateLimit wait-and-resend-once, CreditLimit
 * thrown and not retried, the gateway's HTML 429 waited out) and the helpers.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  createQuarryClient,
  CreditLimitError,
  GatewayRateLimitError,
  QuarryError,
  RateLimitError,
  type WaitEvent,
} from '../../clients/typescript/src/index.js';
import { startServe, type ServeProcess } from '../support/serveProcess.js';
import { runQuarry } from '../support/cli.js';
import { exampleRequest, IdBook, operationsOf } from '../support/operationExamples.js';
import type { OpenApiDoc } from '../support/reference.js';

let server: ServeProcess;
let plansDir = '';
let base: string;
let demoKey: string;
/** Plan sdk-window: the API class's burst window is 1 s instead of 30 s. */
let windowKey: string;
/** Plan sdk-poor: one trends lookup a day. */
let poorKey: string;

function createAccount(plan: string): string {
  const res = runQuarry(['accounts', 'create', '--email', `${plan}@example.test`, '--plan', plan], server.env);
  assert.equal(res.code, 0, res.stderr);
  return /api key (\S+)/.exec(res.stdout)![1];
}

/**
 * A fetch that counts the requests the API answered (the gateway's HTML refusals, which the
 * gateway test covers, are left out: the tests share one address and its 4 per second).
 */
function countingFetch() {
  const sent: string[] = [];
  return {
    sent,
    fetch: async (request: Request) => {
      const response = await fetch(request);
      if (!(response.status === 429 && response.headers.get('content-type')?.startsWith('text/html')))
        sent.push(`${request.method} ${new URL(request.url).pathname}`);
      return response;
    },
  };
}

/** Waits like the client would, except the long RateLimit waits, which are only recorded. */
function skipRateLimitWaits() {
  const skipped: number[] = [];
  let next: WaitEvent['reason'] | null = null;
  return {
    skipped,
    onWait: (e: WaitEvent) => (next = e.reason),
    sleep: (ms: number) => (next === 'RateLimit' ? (skipped.push(ms), Promise.resolve()) : new Promise<void>((r) => setTimeout(r, ms))),
  };
}

const notGateway = (waits: WaitEvent[]) => waits.filter((w) => w.reason !== 'Gateway');

/** A fresh second for this address at the gateway (and for the 1-second burst windows). */
const nextSecond = () => new Promise((r) => setTimeout(r, 1100));

describe('the TypeScript SDK against quarry serve', { timeout: 400_000 }, () => {
  before(async () => {
    // A directory of its own under the system's temp dir: .test-data/ may not exist yet on a fresh checkout.
    plansDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-sdk-plans-'));
    const plansFile = path.join(plansDir, 'plans.json');
    fs.writeFileSync(plansFile, JSON.stringify({ 'sdk-window': { burstWindowMs: { api: 1000 } }, 'sdk-poor': { pools: { trends: 1 } } }));
    server = await startServe({ QUARRY_PLANS_FILE: plansFile });
    base = `${server.origin}/v3`;
    demoKey = fs.readFileSync(path.join(server.dataDir, 'demo-key.txt'), 'utf8').trim();
    windowKey = createAccount('sdk-window');
    poorKey = createAccount('sdk-poor');
  });
  after(async () => {
    await server?.stop();
    fs.rmSync(plansDir, { recursive: true, force: true });
  });

  test('every operation once: an answer, or a typed QuarryError with the contract type (never a 5xx)', async (t) => {
    const doc = (await (await fetch(`${base}/openapi.json`)).json()) as OpenApiDoc;
    const waits: WaitEvent[] = [];
    const quarry = createQuarryClient({ baseUrl: base, apiKey: windowKey, pacing: { windowSeconds: 1 }, onWait: (e) => waits.push(e) });
    const ids = new IdBook();
    const failures: string[] = [];
    let succeeded = 0;
    const ops = operationsOf(doc);
    for (const op of ops) {
      const req = exampleRequest(doc, op, ids);
      const init = { params: { path: req.path, query: req.query }, ...(req.body !== undefined ? { body: req.body } : {}) };
      try {
        const isCsv = op.path.endsWith('.csv');
        const res = await (quarry.request as any)(op.method, op.path, isCsv ? { ...init, parseAs: 'text' } : init);
        assert.ok(res.response.ok, `${op.operationId}: ${res.response.status}`);
        succeeded++;
        ids.learn(op, res.data);
      } catch (err) {
        assert.ok(err instanceof QuarryError, `${op.operationId}: ${String(err)}`);
        assert.ok(err.status < 500 && typeof err.type === 'string' && err.message.length > 0, `${op.operationId}: ${err.status} ${err.type}`);
        assert.ok(!(err instanceof RateLimitError) && !(err instanceof GatewayRateLimitError), `${op.operationId}: ${err.type}`);
        failures.push(`${op.operationId}: ${err.status} ${err.type} ${err.message}`);
      }
    }
    t.diagnostic(`${succeeded} of ${ops.length} operations answered 2xx`);
    assert.deepEqual(failures, [], `${succeeded} of ${ops.length} succeeded`);
    // Pacing kept every pool inside its window: the server never answered RateLimit.
    assert.equal(waits.filter((w) => w.reason === 'RateLimit').length, 0);
  });

  test('typed calls: the answer is the operation type, an error a QuarryError', async () => {
    const quarry = createQuarryClient({ baseUrl: base, apiKey: demoKey });
    const { data } = await quarry.GET('/keyword-tool/limits');
    assert.equal(data?.plan, 'premium');
    const location = await quarry.GET('/shared/locations/{location}', { params: { path: { location: 2840 } } });
    assert.equal(location.response.status, 200);
    await assert.rejects(
      quarry.GET('/shared/locations/{location}', { params: { path: { location: 999_999_999 } } }),
      (err: QuarryError) => err instanceof QuarryError && err.status === 404 && err.type.length > 0,
    );
    const anonymous = createQuarryClient({ baseUrl: base });
    await assert.rejects(anonymous.GET('/shared/locations/{location}', { params: { path: { location: 2840 } } }), {
      status: 401,
      type: 'AuthError',
      message: 'Invalid API Key',
    });
  });

  test('RateLimit with the window full: waits retry_after and resends the same request once', async () => {
    const { sent, fetch } = countingFetch();
    const waits: WaitEvent[] = [];
    const quarry = createQuarryClient({ baseUrl: base, apiKey: windowKey, fetch, onWait: (e) => waits.push(e) });
    await nextSecond();
    // Four at once in a 1-second window of 3: one is refused, waits 1 s (real time) and is admitted.
    const answers = await Promise.all([0, 1, 2, 3].map((i) => quarry.GET('/keyword-tool/trends', { params: { query: { kw: `window ${i}` } } })));
    assert.ok(answers.every((a) => a.response.status === 200));
    assert.equal(sent.length, 5);
    assert.deepEqual(
      notGateway(waits).map((w) => [w.reason, w.ms, w.pool]),
      [['RateLimit', 1000, 'trends']],
    );
  });

  test('RateLimit again after the one resend: RateLimitError with retry_after (30 s window; the wait is the injected sleep)', async () => {
    const { sent, fetch } = countingFetch();
    const waits = skipRateLimitWaits();
    const quarry = createQuarryClient({ baseUrl: base, apiKey: demoKey, fetch, ...waits });
    for (let i = 0; i < 3; i++) await quarry.GET('/keyword-tool/trends', { params: { query: { kw: `full ${i}` } } });
    await assert.rejects(quarry.GET('/keyword-tool/trends', { params: { query: { kw: 'full 3' } } }), (err: unknown) => {
      assert.ok(err instanceof RateLimitError);
      assert.equal(err.retryAfter, 30);
      assert.equal(err.status, 429);
      return true;
    });
    assert.deepEqual(waits.skipped, [30_000]);
    assert.equal(sent.length, 5, 'the refused request was sent twice: once, and resent once');
  });

  test('pacing: the client waits for a free slot instead of meeting RateLimit', async () => {
    const { sent, fetch } = countingFetch();
    const waits: WaitEvent[] = [];
    const quarry = createQuarryClient({ baseUrl: base, apiKey: windowKey, fetch, pacing: { windowSeconds: 1 }, onWait: (e) => waits.push(e) });
    await nextSecond();
    for (let i = 0; i < 4; i++) await quarry.GET('/keyword-tool/trends', { params: { query: { kw: `paced ${i}` } } });
    assert.equal(sent.length, 4);
    const paced = notGateway(waits);
    assert.deepEqual(
      paced.map((w) => w.reason),
      ['Pacing'],
    );
    assert.ok(paced[0].ms > 0 && paced[0].ms <= 1001);
  });

  test('CreditLimit: thrown with the pool, never retried', async () => {
    const { sent, fetch } = countingFetch();
    const waits: WaitEvent[] = [];
    const quarry = createQuarryClient({ baseUrl: base, apiKey: poorKey, fetch, onWait: (e) => waits.push(e) });
    await quarry.GET('/keyword-tool/trends', { params: { query: { kw: 'credit 1' } } });
    await assert.rejects(quarry.GET('/keyword-tool/trends', { params: { query: { kw: 'credit 2' } } }), (err: unknown) => {
      assert.ok(err instanceof CreditLimitError);
      assert.equal(err.pool, 'trends');
      assert.equal(err.body?.retry_after, undefined);
      return true;
    });
    assert.equal(sent.length, 2);
    assert.deepEqual(notGateway(waits), []);
    const limits = await quarry.limits();
    assert.equal((limits as any).resources.trends.remaining, 0);
  });

  test("the gateway's HTML 429 is waited out and retried; with no retries left it is a GatewayRateLimitError", async () => {
    await nextSecond();
    const waits: WaitEvent[] = [];
    const { sent, fetch } = countingFetch();
    const quarry = createQuarryClient({ baseUrl: base, apiKey: demoKey, fetch, onWait: (e) => waits.push(e) });
    // Three times the gateway's 4 a second at once: even on a loaded machine, where the burst can
    // reach the server spread over a second or two, some of it meets the limit.
    const burst = 12;
    const answers = await Promise.all(Array.from({ length: burst }, () => quarry.GET('/keyword-tool/limits')));
    assert.ok(answers.every((a) => a.data?.plan === 'premium'));
    assert.equal(sent.length, burst);
    assert.ok(waits.length > 0 && waits.every((w) => w.reason === 'Gateway'), 'some requests met the gateway, waited and were sent again');

    await nextSecond();
    const impatient = createQuarryClient({ baseUrl: base, apiKey: demoKey, gatewayRetries: 0 });
    const outcomes = await Promise.allSettled(Array.from({ length: burst }, () => impatient.GET('/keyword-tool/limits')));
    const refused = outcomes.filter((o) => o.status === 'rejected').map((o) => (o as PromiseRejectedResult).reason);
    assert.ok(refused.length > 0 && refused.every((e) => e instanceof GatewayRateLimitError && e.status === 429));
    await nextSecond();
  });

  test('exportBacklinks: suggests, creates, reports progress, and streams the CSV', async () => {
    const quarry = createQuarryClient({ baseUrl: base, apiKey: demoKey });
    const seen: unknown[] = [];
    const { export: done, csv } = await quarry.exportBacklinks({ url: 'openpedia.org', limit: 200 } as any, {
      pollMs: 200,
      onProgress: (e) => seen.push(e.state),
    });
    assert.equal(typeof done.downloadURL, 'string');
    assert.ok(seen.length >= 2);
    const text = await new Response(csv).text();
    const lines = text.trim().split('\n');
    assert.ok(lines.length > 1 && lines.length <= 201, `${lines.length} lines`);
    assert.match(lines[0], /,/);
  });

  test('backlinks: iterates every page of a target', async () => {
    // Twelve pages of the links pool: the 1-second window and pacing keep it quick.
    const quarry = createQuarryClient({ baseUrl: base, apiKey: windowKey, pacing: { windowSeconds: 1 } });
    let count = 0;
    for await (const link of quarry.backlinks({ url: 'openpedia.org', links_per_domain: 0 } as any)) {
      assert.equal(typeof link, 'object');
      count++;
    }
    const first = await quarry.GET('/link-tool/links', { params: { query: { url: 'openpedia.org', links_per_domain: 0, page: 0 } as any } });
    const available = (first.data as any).meta?.available_links;
    assert.ok(count > 0);
    if (typeof available === 'number') assert.equal(count, available);
  });

  test('trackAndWait: a tracking with its first positions', async () => {
    const quarry = createQuarryClient({ baseUrl: base, apiKey: demoKey });
    const progress: number[] = [];
    const { tracking, keywords } = await quarry.trackAndWait(
      { domain: 'openpedia.org', location_id: 2840, platform_id: 1, keywords: ['running shoes', 'trail shoes'] } as any,
      {
        pollMs: 200,
        timeoutMs: 60_000,
        onProgress: (checked) => progress.push(checked),
      },
    );
    assert.equal(typeof tracking._id, 'string');
    assert.equal(keywords.length, 2);
    assert.equal(progress.at(-1), 2);
  });
});
