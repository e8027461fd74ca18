/**
 * The answer tool on the sandbox models: the 12 operations in the reference's shapes, checks
 * on creation and daily, the dashboard's figures, isolation between accounts, bad input (422,
 * nothing stored), the plan's pools (429 CreditLimit, nothing created), deletion and settings.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp } from '../../support/app.js';
import { assertReferenceShape } from '../../support/reference.js';
import { answerServices } from '../../../src/answers/answerService.js';
import { DAY } from '../../../src/lib/clock.js';
import { startRankScheduler } from '../../../src/rank/rankService.js';
import { utcDay } from '../../../src/store/rankTracking.js';
import { answerClient, createChecked, monitorBody, type AnswerClient } from './helpers.js';

let t: TestApp;
let a: AnswerClient;
let b: AnswerClient;

before(async () => {
  t = await testApp();
  a = await answerClient(t);
  b = await answerClient(t);
});
after(() => t.close());

const stored = async () => {
  const db = t.ctx.state.db;
  const m = await db
    .selectFrom('answer_monitors')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirst();
  const p = await db
    .selectFrom('answer_prompts')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirst();
  return { monitors: Number(m?.n), prompts: Number(p?.n) };
};

describe('models', () => {
  test('lists the sandbox models, each with its provider, in the reference shape', async () => {
    const res = await a.get('/models');
    assert.equal(res.statusCode, 200);
    assertReferenceShape('GET', '/answer-tool/models', 200, res.json());
    const models = res.json().models as { id: number; provider: string; active: boolean; isSerp: boolean; supportsCitations: boolean }[];
    assert.deepEqual(
      models.map((m) => [m.id, m.provider, m.active, m.isSerp]),
      [
        [1, 'sandbox', true, false],
        [2, 'sandbox', true, false],
        [3, 'sandbox', true, false],
      ],
    );
  });
});

describe('a monitor on the sandbox models', () => {
  let id: string;
  before(async () => {
    id = await createChecked(t, a, { brandVariations: ['Open Pedia'], language_id: 1000 });
  });

  test('is created (201 with its id), listed as active with today as a date, and checked at once', async () => {
    const list = await a.get('/monitors');
    assert.equal(list.statusCode, 200);
    assertReferenceShape('GET', '/answer-tool/monitors', 200, list.json());
    const mine = list.json().monitors.find((m: { _id: string }) => m._id === id);
    assert.equal(mine.monitoring_state, 'active');
    assert.deepEqual(mine.dates, ['2026-11-22']);
    assert.equal(mine.language_id, 1000);
    assert.equal(mine.prompts, 2);
  });

  test('the dashboard counts answers, mentions, citations and visibility per model', async () => {
    const res = await a.get(`/monitor/${id}`);
    assert.equal(res.statusCode, 200, res.body);
    const d = res.json();
    assert.deepEqual(
      d.models.map((m: { model_id: number }) => m.model_id),
      [1, 2, 3],
    );
    for (const m of d.models) {
      assert.equal(m.answers, 2);
      assert.equal(m.failed, 0);
      assert.equal(m.prompts, 2);
      assert.ok(m.visibility >= 0 && m.visibility <= 100);
      assert.equal(m.visibility, Math.round((1000 * m.mentions) / m.answers) / 10);
      assert.ok(m.cited_urls.length > 0, 'every sandbox answer cites a page');
      assert.equal(m.sentiment.positive + m.sentiment.neutral + m.sentiment.negative, m.mentions);
    }
    assert.deepEqual(
      d.timeline.map((x: { date: string }) => x.date),
      ['2026-11-22'],
    );
    // The dashboard's figures are the prompt details' answers added up.
    const prompts = (await a.get(`/monitor/${id}/prompts`)).json().prompts as { _id: string; prompt: string }[];
    let mentioning = 0;
    let citing = 0;
    for (const p of prompts) {
      const detail = (await a.get(`/prompt/${p._id}`)).json();
      for (const answer of detail.answers) {
        if (answer.model_id !== 1) continue;
        if (answer.mentions.length > 0) mentioning++;
        if (answer.cites_domain) citing++;
      }
    }
    assert.equal(d.models[0].mentions, mentioning);
    assert.equal(d.models[0].citing_answers, citing);
  });

  test('a prompt’s detail has each model’s answer with its citations and the mentions found in its text', async () => {
    const prompts = (await a.get(`/monitor/${id}/prompts`)).json();
    assert.equal(prompts.prompts.length, 2);
    const detail = await a.get(`/prompt/${prompts.prompts[0]._id}`);
    assert.equal(detail.statusCode, 200);
    const answers = detail.json().answers as {
      model_id: number;
      date: string;
      status: string;
      text: string;
      mentions: { start: number; end: number; text: string }[];
      citations: { url: string; domain: string }[];
    }[];
    assert.equal(answers.length, 3);
    for (const x of answers) {
      assert.equal(x.status, 'ok');
      assert.equal(x.date, '2026-11-22');
      assert.ok(x.citations.length >= 1);
      for (const m of x.mentions) {
        assert.equal(x.text.slice(m.start, m.end), m.text);
        assert.match(m.text.toLowerCase().replace(/\s/g, ''), /openpedia/);
      }
    }
  });

  test('the site ranking first for the prompt is cited by a sandbox model, and every account gets the same answers', async () => {
    const prompt = 'What are the best running shoes?';
    const serp = t.ctx.search.serp({ kw: prompt, locationId: 2840, languageId: 1000, date: '2026-11-22' });
    const first = serp.items.find((i) => i.type === 'ORGANIC')!;
    const other = await createChecked(t, b, { brand: 'Fairherald', domain: 'fairherald.com', prompts: [prompt] });
    const pb = (await b.get(`/monitor/${other}/prompts`)).json().prompts[0]._id;
    const pa = (await a.get(`/monitor/${id}/prompts`)).json().prompts.find((p: { prompt: string }) => p.prompt === prompt)._id;
    const ansA = (await a.get(`/prompt/${pa}`)).json().answers;
    const ansB = (await b.get(`/prompt/${pb}`)).json().answers;
    assert.deepEqual(
      ansA.map((x: { text: string }) => x.text),
      ansB.map((x: { text: string }) => x.text),
    );
    const cited = ansA.flatMap((x: { citations: { url: string }[] }) => x.citations.map((c) => c.url));
    assert.ok(cited.includes(first.url!), `${first.url} among ${cited.join(', ')}`);
    // Bought once: one stored answer per model for the prompt, whoever asked.
    const rows = await t.ctx.state.db.selectFrom('answer_texts').select('model_key').where('query_key', 'like', 'what are the best running shoes?%').execute();
    assert.equal(rows.length, 3);
  });

  test('the settings are the reference’s, and a change waits for the next check', async () => {
    const s = await a.get(`/monitor/${id}/settings`);
    assert.equal(s.statusCode, 200);
    assertReferenceShape('GET', '/answer-tool/monitor/{id}/settings', 200, s.json());
    assert.deepEqual(s.json().brandVariations, ['Open Pedia']);
    assert.equal(s.json().hasPendingChanges, false);
    // The check a change asks for runs in the background and can finish before the next GET:
    // it is held here, so that the pending state is seen whatever the machine's speed.
    const checks = answerServices(t.ctx).checks;
    const held: [string, number][] = [];
    const checkSoon = checks.checkSoon.bind(checks);
    checks.checkSoon = (monitorId, nowMs) => void held.push([monitorId, nowMs]);
    let pending;
    try {
      const put = await a.put(`/monitor/${id}/settings`, { brandVariations: ['Open Pedia', 'OP'], reports_active: [1, 2], score_label_display: false });
      assert.equal(put.statusCode, 200, put.body);
      assert.deepEqual(put.json(), { _id: id });
      pending = (await a.get(`/monitor/${id}/settings`)).json();
    } finally {
      checks.checkSoon = checkSoon;
    }
    assert.equal(pending.hasPendingChanges, true);
    assert.deepEqual(pending.reports_active, [1, 2]);
    assert.equal(pending.score_label_display, false);
    assert.equal(pending.brand_perception_display, true);
    assert.deepEqual(held, [[id, t.clock.now()]]);
    for (const [monitorId, nowMs] of held) checkSoon(monitorId, nowMs);
    await checks.idle();
    assert.equal((await a.get(`/monitor/${id}/settings`)).json().hasPendingChanges, false);
    assert.equal((await a.put(`/monitor/${id}/settings`, { models: [1, 99] })).statusCode, 422);
    assert.equal((await a.put(`/monitor/${id}/settings`, { brand: '  ' })).statusCode, 422);
  });

  test('a round on the next day checks again; a second round that day buys nothing more', async () => {
    const services = answerServices(t.ctx);
    t.clock.advance(DAY);
    await services.checks.runDue(t.clock.now());
    const count = async () =>
      Number(
        (
          await t.ctx.state.db
            .selectFrom('answer_texts')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirst()
        )?.n,
      );
    const before = await count();
    await services.checks.runDue(t.clock.now());
    assert.equal(await count(), before);
    const d = (await a.get(`/monitor/${id}`)).json();
    assert.deepEqual(
      d.timeline.map((x: { date: string }) => x.date),
      ['2026-11-22', '2026-11-23'],
    );
    assert.equal((await a.get(`/monitor/${id}?from=2026-11-23&to=2026-11-23&models=2`)).json().models.length, 1);
    assert.equal((await a.get(`/monitor/${id}?models=x`)).statusCode, 422);
  });
});

describe('isolation between accounts', () => {
  test('another account’s monitor and prompts answer 404 and are never deleted', async () => {
    const id = await createChecked(t, a);
    const promptId = (await a.get(`/monitor/${id}/prompts`)).json().prompts[0]._id;
    for (const path of [`/monitor/${id}`, `/monitor/${id}/prompts`, `/monitor/${id}/settings`, `/prompt/${promptId}`]) {
      assert.equal((await b.get(path)).statusCode, 404, path);
    }
    assert.equal((await b.put(`/monitor/${id}/settings`, { brand: 'X' })).statusCode, 404);
    assert.equal((await b.post(`/monitor/${id}/prompts`, { prompts: ['x?'] })).statusCode, 404);
    assert.equal((await b.del(`/monitor/${id}`)).statusCode, 404);
    const del = await b.del('/prompts', { prompt_ids: [promptId] });
    assert.deepEqual(del.json(), { deleted_count: 0 });
    assert.equal(
      (await b.get('/monitors')).json().monitors.some((m: { _id: string }) => m._id === id),
      false,
    );
    assert.equal((await a.get(`/prompt/${promptId}`)).statusCode, 200);
    // The share token opens the read-only views without a key, and nothing else.
    const token = (await a.get('/monitors')).json().monitors.find((m: { _id: string }) => m._id === id).share_token;
    const anon = await t.app.inject({ method: 'GET', url: `/v3/answer-tool/monitor/${id}?share_token=${token}` });
    assert.equal(anon.statusCode, 200);
    assert.equal((await t.app.inject({ method: 'GET', url: `/v3/answer-tool/monitor/${id}?share_token=wrong` })).statusCode, 404);
    assert.equal((await t.app.inject({ method: 'GET', url: `/v3/answer-tool/monitor/${id}` })).statusCode, 401);
  });
});

describe('bad input', () => {
  test('an empty brand, no prompts, a 10,000-character prompt or an unknown model answer 422 and store nothing', async () => {
    const c = await answerClient(t);
    const before = await stored();
    for (const body of [
      monitorBody({ brand: '' }),
      monitorBody({ brand: '   ' }),
      monitorBody({ prompts: [] }),
      monitorBody({ prompts: ['x'.repeat(10_000)] }),
      monitorBody({ models: [1, 77] }),
      monitorBody({ models: [] }),
      monitorBody({ domain: 'not a domain' }),
      monitorBody({ location_id: 99999999 }),
      monitorBody({ language_id: 4242 }),
      monitorBody({ platform_id: 3 }),
    ]) {
      const res = await c.post('/monitor', body);
      assert.equal(res.statusCode, 422, `${JSON.stringify(body).slice(0, 120)} → ${res.statusCode} ${res.body}`);
    }
    assert.deepEqual(await stored(), before);
    assert.equal((await c.post('/monitor', monitorBody({ language_id: 1000 }))).statusCode, 201);
    assert.equal((await c.del('/prompts', { prompt_ids: [] })).statusCode, 422);
    assert.equal((await c.post('/prompts/generate', { location_id: 2840, platform_id: 1, brand: '', domain: 'openpedia.org' })).statusCode, 422);
  });
});

describe('pools', () => {
  test('monitors and prompts count in ai-watcher-monitors and ai-watcher-prompts; past them 429 CreditLimit without retry_after, nothing created', async () => {
    const c = await answerClient(t, 'entry');
    const limits = async () => (await t.app.inject({ method: 'GET', url: '/v3/keyword-tool/limits', headers: { 'x-access-token': c.key } })).json();
    const l0 = await limits();
    assert.deepEqual(l0.resources['ai-watcher-monitors'], { limit: 1, remaining: 1, reset: null });
    assert.deepEqual(l0.resources['ai-watcher-prompts'], { limit: 25, remaining: 25, reset: null });
    assert.equal(l0.maxGeneratePrompts, 10);
    // More prompts than the plan allows: refused whole.
    const tooMany = await c.post('/monitor', monitorBody({ prompts: Array.from({ length: 26 }, (_, i) => `question number ${i}?`) }));
    assert.equal(tooMany.statusCode, 429);
    assert.equal(tooMany.json().error.type, 'CreditLimit');
    assert.equal(tooMany.json().error.retry_after, undefined);
    assert.equal(tooMany.headers['retry-after'], undefined);
    const id = (await c.post('/monitor', monitorBody({ prompts: ['q one?', 'q two?', 'Q  one?'] }))).json()._id;
    const l1 = await limits();
    assert.deepEqual(l1.resources['ai-watcher-monitors'], { limit: 1, remaining: 0, reset: null });
    // One prompt is one unit whatever the models (three here); a repeated prompt is one prompt.
    assert.deepEqual(l1.resources['ai-watcher-prompts'], { limit: 25, remaining: 23, reset: null });
    const second = await c.post('/monitor', monitorBody());
    assert.equal(second.statusCode, 429);
    assert.equal(second.json().error.type, 'CreditLimit');
    const before = await stored();
    const over = await c.post(`/monitor/${id}/prompts`, { prompts: Array.from({ length: 24 }, (_, i) => `another ${i}?`) });
    assert.equal(over.statusCode, 429);
    assert.deepEqual(await stored(), before);
    const add = await c.post(`/monitor/${id}/prompts`, { prompts: ['q one?', 'q three?'] });
    assert.equal(add.statusCode, 200);
    assert.equal(add.json().added, 1);
    assert.equal(add.json().skipped, 1);
    // Deleting frees the pools; the deleted monitor stays readable and listed as paused.
    assert.deepEqual((await c.del(`/monitor/${id}`)).json(), {});
    const l2 = await limits();
    assert.equal(l2.resources['ai-watcher-monitors'].remaining, 1);
    assert.equal(l2.resources['ai-watcher-prompts'].remaining, 25);
    assert.equal((await c.get('/monitors')).json().monitors[0].monitoring_state, 'paused');
    assert.equal((await c.get(`/monitor/${id}`)).statusCode, 200);
    assert.equal((await c.del(`/monitor/${id}`)).statusCode, 404);
    assert.equal((await c.post(`/monitor/${id}/prompts`, { prompts: ['x?'] })).statusCode, 404);
  });

  test('a deleted monitor is not checked any more, and is purged 30 days later', async () => {
    const c = await answerClient(t);
    const id = await createChecked(t, c);
    await c.del(`/monitor/${id}`);
    const services = answerServices(t.ctx);
    const results = async () =>
      Number(
        (
          await t.ctx.state.db
            .selectFrom('answer_results')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('monitor_id', '=', id)
            .executeTakeFirst()
        )?.n,
      );
    const n = await results();
    t.clock.advance(DAY);
    await services.round(t.clock.now());
    assert.equal(await results(), n);
    t.clock.advance(30 * DAY);
    await services.round(t.clock.now());
    assert.equal(await results(), 0);
    assert.equal((await c.get(`/monitor/${id}`)).statusCode, 404);
  });
});

describe('the scheduler', () => {
  test('asks every prompt of every live monitor of each of its models once a day, in the rank scheduler’s round', async () => {
    const c = await answerClient(t);
    const id = await createChecked(t, c, { models: [1, 3] });
    const scheduler = startRankScheduler(t.ctx, { everyMs: 3_600_000, rounds: [answerServices(t.ctx).scheduled] });
    try {
      await scheduler.tick();
      t.clock.advance(DAY);
      await scheduler.tick();
      await scheduler.tick();
      const day = utcDay(t.clock.now());
      const rows = await t.ctx.state.db
        .selectFrom('answer_results')
        .select(['model_id', 'status'])
        .where('monitor_id', '=', id)
        .where('day', '=', day)
        .execute();
      assert.equal(rows.length, 4);
      assert.ok(rows.every((r) => r.status === 'ok'));
    } finally {
      await scheduler.stop();
    }
  });
});

describe('prompts', () => {
  test('prompt suggestions come from the domain’s ranking keywords, at most the plan’s number', async () => {
    const res = await a.post('/prompts/generate', { location_id: 2840, platform_id: 1, brand: 'Openpedia', domain: 'openpedia.org' });
    assert.equal(res.statusCode, 200, res.body);
    assertReferenceShape('POST', '/answer-tool/prompts/generate', 200, res.json());
    assert.equal(res.json().maxGeneratePrompts, 25);
    assert.ok(res.json().prompts.length > 5 && res.json().prompts.length <= 25);
    assert.match(res.json().perception, /Openpedia \(openpedia\.org\) is known as a wiki/);
    const unknown = (await a.post('/prompts/generate', { location_id: 2840, platform_id: 1, brand: 'Nowhere Inc', domain: 'nowhere-brand.example' })).json();
    assert.ok(unknown.prompts.includes('What is Nowhere Inc?'));
  });

  test('deleting prompts removes them and their answers; the answer is the number deleted', async () => {
    const c = await answerClient(t);
    const id = await createChecked(t, c);
    const prompts = (await c.get(`/monitor/${id}/prompts`)).json().prompts;
    const res = await c.del('/prompts', { prompt_ids: [prompts[0]._id, 'nope'] });
    assert.equal(res.statusCode, 200);
    assertReferenceShape('DELETE', '/answer-tool/prompts', 200, res.json());
    assert.deepEqual(res.json(), { deleted_count: 1 });
    assert.equal((await c.get(`/prompt/${prompts[0]._id}`)).statusCode, 404);
    assert.equal((await c.get(`/monitor/${id}/prompts`)).json().prompts.length, 1);
    assert.equal((await c.get(`/monitor/${id}`)).json().models[0].prompts, 1);
  });
});
