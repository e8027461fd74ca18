/**
 * The answer tool's e-mail reports: a monitor whose `reports_active` asks for a weekly report
 * gets it, once, at the account's address through a real SMTP server, after its week ended,
 * with each model's figures; a monitor that asks for none gets none. The daily alert (type 0)
 * goes out, once a day, when a model's visibility moved by at least ALERT_POINTS since the day
 * before, and only then. The rounds are the scheduler's (answerServices().round, on the fake clock).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { SMTPServer } from 'smtp-server';
import { testApp, type TestApp } from '../../support/app.js';
import { readMail, type ReadMail } from '../../support/mail.js';
import { answerServices } from '../../../src/answers/answerService.js';
import { ALERT_POINTS } from '../../../src/answers/answerReports.js';
import { DAY } from '../../../src/lib/clock.js';
import { answerClient, createChecked } from './helpers.js';

let t: TestApp;
let smtp: SMTPServer;
const inbox: (ReadMail & { envelopeTo: string[] })[] = [];

before(async () => {
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        void readMail(Buffer.concat(chunks)).then((mail) => {
          inbox.push({ ...mail, envelopeTo: session.envelope.rcptTo.map((r) => r.address) });
          callback();
        }, callback);
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  t = await testApp({ env: { QUARRY_SMTP_URL: `smtp://127.0.0.1:${(smtp.server.address() as { port: number }).port}` } });
});
after(async () => {
  answerServices(t.ctx).reports.close();
  await t.close();
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
});

test('a weekly report goes to the account once its week has ended, once; a monitor without reports gets none', async () => {
  const { id, key } = await t.account('premium', 'brand-owner@answers.test');
  const client = {
    id,
    key,
    get: (p: string) => t.app.inject({ method: 'GET', url: `/v3/answer-tool${p}`, headers: { 'x-access-token': key } }),
    post: (p: string, payload?: unknown) =>
      t.app.inject({ method: 'POST', url: `/v3/answer-tool${p}`, headers: { 'x-access-token': key }, payload: payload as object }),
    put: (p: string, payload?: unknown) =>
      t.app.inject({ method: 'PUT', url: `/v3/answer-tool${p}`, headers: { 'x-access-token': key }, payload: payload as object }),
    del: (p: string) => t.app.inject({ method: 'DELETE', url: `/v3/answer-tool${p}`, headers: { 'x-access-token': key } }),
  };
  // The fake clock starts on Sunday 2026-11-22: the week of Monday 2026-11-23 ends on the 30th.
  t.clock.advance(DAY);
  const weekly = await createChecked(t, client);
  const silent = await createChecked(t, client, { brand: 'Fairherald', domain: 'fairherald.com' });
  assert.equal((await client.put(`/monitor/${silent}/settings`, { reports_active: [] })).statusCode, 200);
  const services = answerServices(t.ctx);
  await services.round(t.clock.now());
  assert.equal(inbox.length, 0, 'no week has ended since the monitors were created');
  t.clock.advance(7 * DAY);
  await services.round(t.clock.now());
  await services.round(t.clock.now());
  assert.equal(inbox.length, 1);
  const mail = inbox[0];
  assert.deepEqual(mail.envelopeTo, ['brand-owner@answers.test']);
  assert.equal(mail.subject, 'Weekly AI answer report: Openpedia in AI answers, 2026-11-23 to 2026-11-29');
  assert.match(mail.text, /Sandbox Assistant: answers 2, mentions \d+, visibility [\d.]+%/);
  assert.match(mail.html, new RegExp(`/v3/answer-tool/monitor/${weekly}\\?share_token=`));
});

test("the daily alert goes out once on the day a model's visibility moved by ALERT_POINTS, and not on a day it did not", async () => {
  const client = await answerClient(t, 'premium');
  const email = (await t.ctx.state.db.selectFrom('accounts').select('email').where('id', '=', client.id).executeTakeFirstOrThrow()).email;
  const mine = () => inbox.filter((m) => m.envelopeTo.includes(email));
  const services = answerServices(t.ctx);
  // Day 1: the brand the sandbox answers mention; alerts only.
  t.clock.advance(DAY);
  const id = await createChecked(t, client);
  assert.equal((await client.put(`/monitor/${id}/settings`, { reports_active: [0] })).statusCode, 200);
  await services.round(t.clock.now());
  const day1 = new Date(t.clock.now()).toISOString().slice(0, 10);
  const figures = (await client.get(`/monitor/${id}?from=${day1}&to=${day1}`)).json() as { models: { model_id: number; visibility: number }[] };
  const visible = figures.models.filter((m) => m.visibility >= ALERT_POINTS);
  assert.ok(visible.length > 0, `a model's visibility at ${ALERT_POINTS} or more on day 1: ${JSON.stringify(figures.models)}`);
  assert.equal(mine().length, 0, 'no day before the first to compare with');
  // Day 2: the same brand, the same answers: nothing moved, no alert.
  t.clock.advance(DAY);
  await services.round(t.clock.now());
  assert.equal(mine().length, 0, 'visibility did not move');
  // Day 3: the brand becomes one no answer mentions (its visibility falls to 0); the change
  // applies from the day's check, which the round runs before the reports.
  t.clock.advance(DAY);
  assert.equal((await client.put(`/monitor/${id}/settings`, { brand: 'Zzyzxquon' })).statusCode, 200);
  await services.round(t.clock.now());
  await services.round(t.clock.now());
  const alerts = mine();
  assert.equal(alerts.length, 1, 'one alert, however many rounds run that day');
  const today = new Date(t.clock.now()).toISOString().slice(0, 10);
  assert.equal(alerts[0].subject, `AI answer visibility alert: Zzyzxquon in AI answers, ${today} to ${today}`);
  assert.deepEqual(alerts[0].envelopeTo, [email]);
  // The mail names the models that moved, at their new visibility.
  const moved = alerts[0].text.split('\n').filter((l) => /: answers \d+, mentions 0, visibility 0%/.test(l));
  assert.equal(moved.length, visible.length, alerts[0].text);
  assert.match(alerts[0].html, new RegExp(`/v3/answer-tool/monitor/${id}\\?share_token=`));
});
