/**
 * The real thing: `quarry import links` run while `quarry serve` serves the same data
 * directory; the server notices the new generation by itself, reloads, and the next lookup
 * answers with the imported links. No restart.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startServe } from '../../support/serveProcess.js';
import { startQuarry, STARTUP_TIMEOUT_MS } from '../../support/processes.js';
import { NEW_DOMAIN, writeNewDomainLinks } from '../../support/newDomainLinks.js';

test('quarry import while quarry serve runs: the server reloads and answers with the new data', { timeout: 4 * STARTUP_TIMEOUT_MS }, async () => {
  const server = await startServe({ QUARRY_LOG_LEVEL: 'info', QUARRY_GATEWAY_RPS: '100' });
  try {
    const key = fs.readFileSync(path.join(server.dataDir, 'demo-key.txt'), 'utf8').trim();
    const csv = writeNewDomainLinks(server.dataDir);
    const importing = startQuarry(['import', 'links', csv, '--data-dir', server.dataDir]);
    const exit = await importing.finished();
    assert.equal(exit.code, 0, importing.output());
    assert.match(importing.stderr(), /research store at generation 1/);

    await server.process.waitFor(/research store reloaded/, 'the reload');
    const res = await fetch(`${server.origin}/v3/serp-tool/url-metrics?url=${NEW_DOMAIN}`, { headers: { 'x-access-token': key } });
    const body = await res.text();
    assert.equal(res.status, 200, body);
    assert.equal((JSON.parse(body) as { m: { linkindex: { v: { ExtBackLinks: number } } } }).m.linkindex.v.ExtBackLinks, 2);
  } finally {
    await server.stop();
  }
});
