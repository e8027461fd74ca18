/**
 * SIGTERM always ends `quarry serve` within its drain deadline (QUARRY_DRAIN_TIMEOUT_MS):
 * what still waits then — here a request whose body never finishes arriving, which the
 * server would otherwise wait for until its request timeout — does not keep it alive.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { test } from 'node:test';
import { startServe } from '../support/serveProcess.js';
import { STARTUP_TIMEOUT_MS } from '../support/processes.js';

test('SIGTERM ends the server within its drain deadline even while a request never finishes', { timeout: STARTUP_TIMEOUT_MS + 60_000 }, async () => {
  const server = await startServe(
    // The request timeout far beyond the deadline: only the deadline can end the wait.
    { QUARRY_DRAIN_TIMEOUT_MS: '1500', QUARRY_REQUEST_TIMEOUT_MS: '600000', QUARRY_GATEWAY_RPS: '0' },
    { args: ['--roles', 'api'] },
  );
  const socket = net.connect(Number(new URL(server.origin).port), '127.0.0.1');
  try {
    socket.on('error', () => undefined);
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    socket.write('POST /v3/keyword-tool/lists HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"na');
    // The request has reached the server when a later one on another socket is answered.
    assert.equal((await fetch(`${server.origin}/healthz`)).status, 200);
    const started = Date.now();
    server.child.kill('SIGTERM');
    const exit = await server.process.finished(30_000);
    const ms = Date.now() - started;
    assert.ok(ms < 1500 + 10_000, `ended ${ms} ms after SIGTERM`);
    assert.equal(exit.code, 1, 'past the deadline the process exits with status 1');
    assert.match(server.output(), /drain deadline/);
  } finally {
    socket.destroy();
    await server.stop();
  }
});
