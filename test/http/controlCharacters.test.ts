/**
 * Control characters in every text input (issue 28): for each operation of the served
 * OpenAPI document, each string its plausible request carries (query, body, nested too:
 * tracked keywords, list names, tags, annotations, report names, monitor brands and
 * prompts…) is sent once with a NUL, a line break, a C1 control, DEL or a bidi override or
 * isolate in it, and every one answers the contract's 422 — never a 2xx that stores it (an
 * id in the path answers 404 or its pattern's 422).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp } from '../support/app.js';
import type { OpenApiDoc } from '../support/reference.js';
import { exampleRequest, IdBook, operationsOf } from '../support/operationExamples.js';

const BAD = ['\u0000', '\u202E', '\n', '\u0085', '\u2066', '\t', '\u007F', '\r', '\u001B'];

let t: TestApp;
let key: string;
let doc: OpenApiDoc;

before(async () => {
  t = await testApp();
  key = (await t.account('premium')).key;
  doc = (await t.app.inject({ method: 'GET', url: '/v3/openapi.json' })).json();
});
after(async () => {
  await t.close();
});

/** Every string in a value, as a path of keys and indexes. */
function stringsIn(value: unknown, at: (string | number)[] = []): (string | number)[][] {
  if (typeof value === 'string') return [at];
  if (Array.isArray(value)) return value.flatMap((v, i) => stringsIn(v, [...at, i]));
  if (value !== null && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => stringsIn(v, [...at, k]));
  return [];
}

function withText(value: unknown, at: (string | number)[], bad: string): unknown {
  const copy = structuredClone(value) as Record<string | number, unknown>;
  if (at.length === 0) return `${String(value)}${bad}`;
  let node = copy;
  for (const k of at.slice(0, -1)) node = node[k] as Record<string | number, unknown>;
  const last = at[at.length - 1];
  // In the middle of the text: trimming must not be what removes it.
  const text = String(node[last]);
  node[last] = `${text.slice(0, 1)}${bad}${text.slice(1)}`;
  return copy;
}

test('every string of every operation with a control character or a bidi override answers 422', { timeout: 240_000 }, async () => {
  let sent = 0;
  const failures: string[] = [];
  for (const op of operationsOf(doc)) {
    const example = exampleRequest(doc, op, new IdBook());
    const parts: ['path' | 'query' | 'body', (string | number)[]][] = [
      ...stringsIn(example.path).map((at) => ['path', at] as ['path', (string | number)[]]),
      ...stringsIn(example.query).map((at) => ['query', at] as ['query', (string | number)[]]),
      ...stringsIn(example.body).map((at) => ['body', at] as ['body', (string | number)[]]),
    ];
    for (const [part, at] of parts) {
      const bad = BAD[sent++ % BAD.length];
      const req = { ...example, [part]: withText(example[part], at, bad) } as typeof example;
      let url = `/v3${op.path}`;
      for (const [name, value] of Object.entries(req.path)) url = url.replace(`{${name}}`, encodeURIComponent(String(value)));
      const qs = new URLSearchParams();
      for (const [name, value] of Object.entries(req.query)) for (const v of [value].flat()) qs.append(name, String(v));
      if (qs.size > 0) url += `?${qs}`;
      const request = {
        method: op.method.toUpperCase() as 'GET',
        url,
        headers: { 'x-access-token': key, ...(req.body !== undefined ? { 'content-type': 'application/json' } : {}) },
        payload: req.body !== undefined ? JSON.stringify(req.body) : undefined,
      };
      const res = await t.app.inject(request);
      const where = `${op.operationId} ${part} ${at.join('.')} ${JSON.stringify(bad)}`;
      // A path parameter is an id: one with a control character names nothing (404, or what
      // the operation answers for an unknown id) or breaks its pattern (422).
      if (part === 'path' && res.statusCode !== 422) {
        const unknown = await t.app.inject({ ...request, url: request.url.replace(encodeURIComponent(String(req.path[at[0]])), 'ffffffffffffffffffffffff') });
        if (res.statusCode !== unknown.statusCode || res.body !== unknown.body) failures.push(`${where}: ${res.statusCode} ${res.body.slice(0, 200)}`);
        continue;
      }
      if (res.statusCode !== 422) {
        failures.push(`${where}: ${res.statusCode} ${res.body.slice(0, 200)}`);
        continue;
      }
      const error = res.json().error;
      const expected = part === 'body' ? 'ValidationError' : 'InvalidInput';
      if (error?.type !== expected) failures.push(`${where}: ${res.body.slice(0, 200)}`);
    }
  }
  assert.ok(sent > 50, `${sent} strings tried`);
  assert.deepEqual(failures, []);
});

test('what the check refuses is what lib/text.ts names: emoji, accents and right-to-left text pass', async () => {
  for (const name of ['emoji \u{1F600} list', 'Cafe\u0301', '\u0639\u0631\u0628\u064A', 'RLM \u200F mark']) {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v3/keyword-tool/lists',
      headers: { 'x-access-token': key, 'content-type': 'application/json' },
      payload: JSON.stringify({ name, keyword_ids: [] }),
    });
    assert.equal(res.statusCode, 201, `${name}: ${res.body}`);
  }
  // An object key with a control character is refused too, naming the object, not echoing the key.
  const res = await t.app.inject({
    method: 'POST',
    url: '/v3/keyword-tool/lists',
    headers: { 'x-access-token': key, 'content-type': 'application/json' },
    payload: JSON.stringify({ name: 'x', keyword_ids: [], 'a\u0000': 1 }),
  });
  assert.equal(res.statusCode, 422);
  assert.ok(!res.body.includes('\\u0000'), res.body);
});
