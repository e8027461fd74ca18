/**
 * The request log (http/requestLog.ts): one line per request, which for a plain pino logger is
 * built by hand (issue 26: the edge's cost per cached hit) and must be the bytes pino writes;
 * a request's own logger is made only when something logs through it and still carries the
 * request id; the served destination (http/logDestination.ts) gathers lines and writes them
 * 16 KiB at a time, within a second when the server is quiet, and on exit.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { testApp, type TestApp } from '../support/app.js';
import { buildApp } from '../../src/http/app.js';
import { gatheredLogDestination } from '../../src/http/logDestination.js';

let t: TestApp;
let key: string;

/** An app over the test context whose log lines are collected; extra pino options make its lines pino's own. */
async function loggedApp(pinoOptions: Record<string, unknown> = {}): Promise<{ app: FastifyInstance; lines: string[] }> {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      // Request lines only: startup may warn (a missing dashboard build, in a fresh checkout).
      lines.push(
        ...String(chunk)
          .split(/(?<=\n)/)
          .filter((line) => line.includes('"reqId"')),
      );
      done();
    },
  });
  const app = await buildApp(t.ctx, {
    logger: { level: 'info', stream, ...pinoOptions },
    extraRoutes: (v3) => {
      v3.get('/test/logs-a-warning', { config: { auth: 'none' } }, async (req) => {
        req.log.warn({ step: 'inside' }, 'a warning from the handler');
        return { ok: true };
      });
    },
  });
  await app.ready();
  return { app, lines };
}

/** The line with time and response time (which differ from run to run) blanked. */
function steady(line: string): string {
  return line.replace(/"time":\d+/, '"time":0').replace(/"responseTime":[0-9.e+-]+/, '"responseTime":0');
}

describe('request log', () => {
  before(async () => {
    t = await testApp();
    ({ key } = await t.account());
  });
  after(() => t.close());

  test('the hand-built request line is the line pino writes for the same request', async () => {
    const requests = [
      { method: 'GET' as const, url: '/v3/keyword-tool/limits?x=%22q%22', headers: { 'x-access-token': key, host: 'quoted"host\\name' } },
      { method: 'GET' as const, url: '/v3/keyword-tool/limits', headers: { 'x-access-token': key } },
      { method: 'GET' as const, url: `/v3/keyword-tool/limits?key=${key}`, headers: {} },
      { method: 'GET' as const, url: '/v3/no/such/route' },
      // Again, and with another host or method: the line's parts are remembered by URL.
      { method: 'GET' as const, url: '/v3/keyword-tool/limits', headers: { 'x-access-token': key } },
      { method: 'GET' as const, url: '/v3/keyword-tool/limits', headers: { 'x-access-token': key, host: 'other.example' } },
      { method: 'HEAD' as const, url: '/v3/keyword-tool/limits', headers: { 'x-access-token': key, host: 'other.example' } },
      { method: 'GET' as const, url: `/v3/keyword-tool/limits?key=${key}`, headers: {} },
    ];
    // The first app's logger is plain (level and stream): its lines are built by hand. The
    // second's names pino's default base explicitly, so it writes the same lines its own way.
    const plain = await loggedApp();
    const pinos = await loggedApp({ base: { pid: process.pid, hostname: os.hostname() } });
    for (const request of requests) {
      await plain.app.inject(request);
      await pinos.app.inject(request);
    }
    await plain.app.close();
    await pinos.app.close();
    assert.equal(plain.lines.length, requests.length, plain.lines.join(''));
    assert.deepEqual(plain.lines.map(steady), pinos.lines.map(steady));
    assert.deepEqual(
      plain.lines.map((l) => JSON.parse(l).req.host + ' ' + JSON.parse(l).req.method),
      requests.map((r) => `${r.headers?.host ?? 'localhost:80'} ${r.method}`),
    );
    const first = JSON.parse(plain.lines[0]);
    assert.equal(first.msg, 'request completed');
    assert.equal(first.req.host, 'quoted"host\\name');
    assert.equal(first.res.statusCode, 200);
    // Timed by the edge itself (answered.ts): Fastify's reply.elapsedTime is 0 without its logger.
    assert.ok(
      plain.lines.every((l) => JSON.parse(l).responseTime > 0),
      plain.lines.join(''),
    );
    assert.ok(!plain.lines.join('').includes(key), 'the key is not logged');
  });

  test("what a handler logs carries the request's id, and the request still has one line", async () => {
    const { app, lines } = await loggedApp();
    await app.inject({ method: 'GET', url: '/v3/test/logs-a-warning' });
    await app.inject({ method: 'GET', url: '/v3/test/logs-a-warning' });
    await app.close();
    const parsed = lines.map((l) => JSON.parse(l));
    assert.deepEqual(
      parsed.map((l) => [l.msg, l.reqId]),
      [
        ['a warning from the handler', 'req-1'],
        ['request completed', 'req-1'],
        ['a warning from the handler', 'req-2'],
        ['request completed', 'req-2'],
      ],
    );
    assert.equal(parsed[0].step, 'inside');
    assert.equal(parsed[1].req.url, '/v3/test/logs-a-warning');
  });

  test('the served destination writes gathered lines when the process exits', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-request-log-'));
    const file = path.join(dir, 'log');
    try {
      const module = path.resolve('src/http/logDestination.ts');
      // A process that writes two short lines (far below a write's 16 KiB) and exits at once.
      const script = `import { gatheredLogDestination } from ${JSON.stringify(module)};
        const out = gatheredLogDestination(${JSON.stringify(file)});
        out.write('{"n":1}\\n'); out.write('{"n":2}\\n');
        process.exit(0);`;
      const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
      assert.equal(run.status, 0, run.stderr);
      assert.equal(fs.readFileSync(file, 'utf8'), '{"n":1}\n{"n":2}\n');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('the served destination writes a gathered line while the server is quiet, 16 KiB at once when they come', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-request-log-'));
    const file = path.join(dir, 'log');
    try {
      const out = gatheredLogDestination(file);
      const line = `{"pad":"${'x'.repeat(90)}"}\n`;
      for (let i = 0; i < 200; i++) out.write(line);
      // 200 lines of 101 characters: the first 163 reached 16 KiB and were written together.
      assert.equal(fs.readFileSync(file, 'utf8'), line.repeat(163));
      out.write('{"last":true}\n');
      // The rest is written by the once-a-second flush, without any further line.
      const deadline = Date.now() + 60_000;
      while (!fs.readFileSync(file, 'utf8').endsWith('{"last":true}\n')) {
        assert.ok(Date.now() < deadline, 'the quiet line was never written');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.equal(fs.readFileSync(file, 'utf8'), line.repeat(200) + '{"last":true}\n');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
