/**
 * The answer tool's e-mail reports: a monitor whose `reports_active` asks for a weekly report
 * gets it, once, at the account's address through a real SMTP server, after its week ended,
 * with each model's figures; a monitor that asks for none gets none.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { SMTPServer } from 'smtp-server';
import { testApp, type TestApp } from '../../support/app.js';
import { readMail, type ReadMail } from '../../support/mail.js';
import { answerServices } from '../../../src/answers/answerService.js';
import { DAY } from '../../../src/lib/clock.js';
import { createChecked } from './helpers.js';

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
