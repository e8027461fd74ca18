/**
 * Email reports through a real SMTP server started by the test: a weekly and a monthly
 * report arrive with the right recipients, subject and positions, once per period even
 * when runDueReports runs twice (also concurrently); inactive reports and deleted
 * trackings send nothing; a delivery that crashed is sent again after its lease; a mail the
 * server accepted is recorded so (its end waits for the `accepting` record) and not sent again
 * when the store refused its `sent` record at first; after
 * downtime each missed period is sent once, as far back as 4 weeks or 2 months.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { SMTPServer } from 'smtp-server';
import { sql } from 'kysely';
import { testApp, type TestApp } from '../../support/app.js';
import { DAY, HOUR, MINUTE } from '../../../src/lib/clock.js';
import { rankServices } from '../../../src/rank/rankService.js';
import { endedPeriods, lastEndedPeriod, RankReports, reportMessageId } from '../../../src/rank/rankReports.js';
import { rankClient, type RankClient } from './helpers.js';
import { readMail, type ReadMail } from '../../support/mail.js';

/** A mail the SMTP server took: its envelope, and the message as its recipient reads it. */
interface Received extends Omit<ReadMail, 'to'> {
  from: string;
  /** The envelope's recipients. */
  to: string[];
}

let t: TestApp;
let smtp: SMTPServer;
const inbox: Received[] = [];
/** Called when the server has a whole message (its end came), before it answers. */
let onMessageEnd: ((to: string[]) => Promise<void>) | null = null;
let c: RankClient;
let trackingId: string;
let domain: string;
const KEYWORDS = ['hiking boots', 'tent', 'backpack', 'headlamp'];
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

async function runDays(n: number): Promise<void> {
  const { checks, reports } = rankServices(t.ctx);
  for (let i = 0; i < n; i++) {
    t.clock.advance(DAY);
    await checks.runDueChecks(t.clock.now());
    await reports.runDueReports(t.clock.now());
  }
}

async function positionsOn(date: string): Promise<Map<string, number | null>> {
  const out = new Map<string, number | null>();
  for (const k of (await c.get(`/trackings/${trackingId}/tracked-keywords`)).json()) {
    const detail = (await c.get(`/trackings/${trackingId}/tracked-keywords/${k._id}`)).json();
    out.set(k.kw, detail.history.find((h: { date: string }) => h.date === date)?.position ?? null);
  }
  return out;
}

function assertPositions(text: string, positions: Map<string, number | null>): void {
  for (const [kw, p] of positions) {
    const line = text.split('\n').find((l) => l.startsWith(`${kw} | `));
    assert.ok(line, `a row for ${kw}`);
    assert.equal(line.split(' | ')[1], p === null ? '>100' : String(p), `position of ${kw}`);
  }
}

describe('rank email reports', () => {
  before(async () => {
    smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          const to = session.envelope.rcptTo.map((r) => r.address);
          void Promise.resolve(onMessageEnd?.(to))
            .then(() => readMail(Buffer.concat(chunks)))
            .then((mail) => {
              inbox.push({
                ...mail,
                from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
                to,
              });
              callback();
            }, callback);
        });
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
    const { port } = smtp.server.address() as { port: number };
    t = await testApp({ env: { QUARRY_SMTP_URL: `smtp://127.0.0.1:${port}` } });
    c = await rankClient(t, 'premium', 'owner@reports.test');
    // The fake clock starts on Sunday 2026-11-22 12:00 UTC.
    const serp = t.ctx.search.serp({ kw: KEYWORDS[0], locationId: 2840, platform: 1, page: 0 });
    domain = serp.items.find((i) => i.type === 'ORGANIC' && i.position === 4)!.domain!;
    const res = await c.post('/trackings', { domain, location_id: 2840, platform_id: 1, keywords: KEYWORDS });
    trackingId = res.json().tracking._id;
    await c.post(`/trackings/${trackingId}/reports`, { type: 1, emails: ['team@reports.test', 'boss@reports.test'], name: 'Team weekly' });
    await rankServices(t.ctx).checks.idle();
  });
  after(async () => {
    await rankServices(t.ctx).checks.idle();
    await rankServices(t.ctx).reports.close();
    await t.close();
    await new Promise<void>((resolve) => smtp.close(() => resolve()));
  });

  test('report periods: weekly ends Monday 00:00 UTC, monthly on the 1st', () => {
    assert.deepEqual(lastEndedPeriod(1, Date.UTC(2026, 10, 23, 0, 0)), { start: '2026-11-16', end: '2026-11-22', endMs: Date.UTC(2026, 10, 23) });
    assert.deepEqual(lastEndedPeriod(1, Date.UTC(2026, 10, 22, 23, 59)), { start: '2026-11-09', end: '2026-11-15', endMs: Date.UTC(2026, 10, 16) });
    assert.deepEqual(lastEndedPeriod(2, Date.UTC(2026, 11, 1, 0, 0)), { start: '2026-11-01', end: '2026-11-30', endMs: Date.UTC(2026, 11, 1) });
    assert.deepEqual(lastEndedPeriod(2, Date.UTC(2027, 0, 15)), { start: '2026-12-01', end: '2026-12-31', endMs: Date.UTC(2027, 0, 1) });
    assert.deepEqual(
      endedPeriods(1, Date.UTC(2026, 10, 23, 0, 0), 3).map((p) => p.start),
      ['2026-11-02', '2026-11-09', '2026-11-16'],
    );
    assert.deepEqual(
      endedPeriods(2, Date.UTC(2027, 0, 15), 2).map((p) => [p.start, p.end]),
      [
        ['2026-11-01', '2026-11-30'],
        ['2026-12-01', '2026-12-31'],
      ],
    );
  });

  test('the weekly reports arrive on Monday, once, with recipients, subject and positions', async () => {
    const { reports } = rankServices(t.ctx);
    // Sunday: no period has ended since the reports were created.
    assert.deepEqual(await reports.runDueReports(t.clock.now()), { sent: 0, failed: 0 });
    assert.equal(inbox.length, 0);
    t.clock.set(Date.UTC(2026, 10, 23, 0, 30));
    await rankServices(t.ctx).checks.runDueChecks(t.clock.now());
    const [a, b] = await Promise.all([reports.runDueReports(t.clock.now()), reports.runDueReports(t.clock.now())]);
    assert.deepEqual(a, { sent: 2, failed: 0 });
    assert.deepEqual(b, a, 'a concurrent call joins the run under way');
    assert.deepEqual(await reports.runDueReports(t.clock.now()), { sent: 0, failed: 0 });
    t.clock.advance(5 * HOUR);
    assert.deepEqual(await reports.runDueReports(t.clock.now()), { sent: 0, failed: 0 });
    assert.equal(inbox.length, 2);
    const recipients = inbox.map((m) => m.to.sort().join(',')).sort();
    assert.deepEqual(recipients, ['boss@reports.test,team@reports.test', 'owner@reports.test']);
    const positions = await positionsOn('2026-11-22');
    for (const mail of inbox) {
      assert.match(mail.from, /^reports@/);
      const subject = mail.subject;
      assert.ok(subject.startsWith(`Weekly rank report: ${domain} — `), subject);
      assert.ok(subject.includes('(2026-11-16 – 2026-11-22)'), subject);
      assertPositions(mail.text, positions);
      assert.ok(mail.attachments.includes('image/png'), 'the chart');
    }
  });

  test('the monthly report arrives on the 1st for November, and the weekly one of the next week', async () => {
    inbox.length = 0;
    await runDays(7); // through Monday 2026-11-30
    assert.equal(inbox.length, 2, 'the weekly reports of 23–29 November');
    assert.ok(inbox.every((m) => m.subject.includes('(2026-11-23 – 2026-11-29)')));
    inbox.length = 0;
    await runDays(1); // Tuesday 2026-12-01
    assert.equal(inbox.length, 1);
    const monthly = inbox[0];
    assert.deepEqual(monthly.to, ['owner@reports.test']);
    const subject = monthly.subject;
    assert.ok(subject.startsWith(`Monthly rank report: ${domain} — `), subject);
    assert.ok(subject.includes('(2026-11-01 – 2026-11-30)'), subject);
    assertPositions(monthly.text, await positionsOn('2026-11-30'));
    // Again on the same day and the next: nothing new.
    await rankServices(t.ctx).reports.runDueReports(t.clock.now());
    await runDays(1);
    assert.equal(inbox.length, 1);
  });

  test('a rank-change alert lists the keywords that moved at least min_change places, once a day', async () => {
    const created = await c.post(`/trackings/${trackingId}/reports`, { type: 0, emails: ['alerts@reports.test'], min_change: 1 });
    assert.equal(created.statusCode, 201);
    const isAlert = (m: Received) => m.subject.startsWith('Rank change alert:');
    inbox.length = 0;
    for (let i = 0; i < 20 && !inbox.some(isAlert); i++) await runDays(1);
    const alerts = inbox.filter(isAlert);
    assert.equal(alerts.length, 1, 'some keyword moved within 20 days');
    const today = day(t.clock.now());
    const yesterday = day(t.clock.now() - DAY);
    assert.deepEqual(alerts[0].to, ['alerts@reports.test']);
    assert.ok(alerts[0].subject.includes(`(${today})`));
    const [now, before] = [await positionsOn(today), await positionsOn(yesterday)];
    const text = alerts[0].text;
    for (const [kw, p] of now) {
      const moved = (before.get(kw) ?? 101) !== (p ?? 101);
      const line = text.split('\n').find((l) => l.startsWith(`${kw} | `));
      assert.equal(Boolean(line), moved, kw);
      if (line) assert.deepEqual(line.split(' | ').slice(1, 3), [before.get(kw) === null ? '>100' : String(before.get(kw)), p === null ? '>100' : String(p)]);
    }
    await rankServices(t.ctx).reports.runDueReports(t.clock.now() + HOUR);
    assert.equal(inbox.filter(isAlert).length, 1, 'once a day');
    assert.equal((await c.del(`/trackings/${trackingId}/reports/${created.json()._id}`)).statusCode, 204);
  });

  test('inactive reports and deleted trackings send nothing', async () => {
    inbox.length = 0;
    assert.equal((await c.patch(`/trackings/${trackingId}`, { reports_active: false })).statusCode, 200);
    await runDays(7); // a Monday passes
    assert.equal(inbox.length, 0);
    assert.equal((await c.patch(`/trackings/${trackingId}`, { reports_active: true })).statusCode, 200);
    await rankServices(t.ctx).reports.runDueReports(t.clock.now());
    assert.equal(inbox.length, 2, 'the week that ended while reports were off is still owed');
    inbox.length = 0;
    assert.equal((await c.del(`/trackings/${trackingId}`)).statusCode, 204);
    await runDays(7);
    assert.equal(inbox.length, 0);
  });

  test('without QUARRY_SMTP_URL a report is written to <dataDir>/outbox as an .eml file', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-outbox-'));
    try {
      const outbox = new RankReports({ ...t.ctx, config: { ...t.ctx.config, smtpUrl: null, dataDir } });
      const other = await rankClient(t, 'premium', 'outbox@reports.test');
      const created = await other.post('/trackings', { domain, location_id: 2840, platform_id: 2, keywords: ['tent'] });
      assert.equal(created.statusCode, 201);
      await rankServices(t.ctx).checks.idle();
      t.clock.advance(7 * DAY);
      await rankServices(t.ctx).checks.runDueChecks(t.clock.now());
      assert.deepEqual(await outbox.runDueReports(t.clock.now()), { sent: 1, failed: 0 });
      assert.deepEqual(await outbox.runDueReports(t.clock.now()), { sent: 0, failed: 0 });
      const files = fs.readdirSync(path.join(dataDir, 'outbox'));
      assert.equal(files.length, 1);
      assert.match(files[0], /^\d{4}-\d{2}-\d{2}-[0-9a-f]{24}\.eml$/);
      const mail = await readMail(fs.readFileSync(path.join(dataDir, 'outbox', files[0])));
      assert.deepEqual(mail.to, ['outbox@reports.test']);
      assert.ok(mail.subject.startsWith(`Weekly rank report: ${domain} — `));
      assert.equal(inbox.length, 0, 'nothing went to the SMTP server');
      assert.equal((await other.del(`/trackings/${created.json().tracking._id}`)).statusCode, 204);
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('a delivery the mail server refused is retried after 15 minutes, then sent once', async () => {
    const failing = new RankReports({ ...t.ctx, config: { ...t.ctx.config, smtpUrl: 'smtp://127.0.0.1:1' } });
    const third = await rankClient(t, 'premium', 'retry@reports.test');
    assert.equal((await third.post('/trackings', { domain, location_id: 2840, platform_id: 1, keywords: ['tent'] })).statusCode, 201);
    await rankServices(t.ctx).checks.idle();
    t.clock.advance(7 * DAY);
    await rankServices(t.ctx).checks.runDueChecks(t.clock.now());
    const refused = await failing.runDueReports(t.clock.now());
    assert.equal(refused.sent, 0);
    assert.ok(refused.failed >= 1);
    inbox.length = 0;
    const { reports } = rankServices(t.ctx);
    assert.deepEqual(await reports.runDueReports(t.clock.now() + MINUTE), { sent: 0, failed: 0 }, 'too soon to retry');
    assert.deepEqual(await reports.runDueReports(t.clock.now() + 16 * MINUTE), { sent: refused.failed, failed: 0 });
    assert.deepEqual(await reports.runDueReports(t.clock.now() + 40 * MINUTE), { sent: 0, failed: 0 });
    assert.equal(inbox.length, refused.failed);
    assert.ok(inbox.every((m) => m.to.join() === 'retry@reports.test'));
  });
  test('a delivery left sending by a crash is sent after a restart once its 15-minute lease ends, with one Message-ID per report and period', async () => {
    const crash = await rankClient(t, 'premium', 'crash@reports.test');
    const id = (await crash.post('/trackings', { domain, location_id: 2840, platform_id: 1, keywords: ['tent'] })).json().tracking._id;
    await rankServices(t.ctx).checks.idle();
    t.clock.advance(7 * DAY);
    await rankServices(t.ctx).checks.runDueChecks(t.clock.now());
    const weekly = (await crash.get(`/trackings/${id}/reports`)).json().find((r: { type: number }) => r.type === 1);
    const period = lastEndedPeriod(1, t.clock.now());
    const crashedAt = t.clock.now();
    // A process claimed the weekly report and died before sending it.
    await t.ctx.state.db
      .insertInto('rank_report_deliveries')
      .values({
        report_id: weekly._id,
        period_start: period.start,
        status: 'sending',
        attempts: 1,
        claimed_ms: crashedAt,
        sent_ms: null,
        message_id: null,
        error: null,
      })
      .execute();
    const weeklyMails = () => inbox.filter((m) => m.to.join() === 'crash@reports.test' && m.subject.startsWith('Weekly'));
    inbox.length = 0;
    const restarted = new RankReports(t.ctx);
    try {
      await restarted.runDueReports(crashedAt + 14 * MINUTE);
      assert.equal(weeklyMails().length, 0, 'within the lease the claim may still be sending');
      await restarted.runDueReports(crashedAt + 16 * MINUTE);
      assert.equal(weeklyMails().length, 1);
      const messageId = reportMessageId(weekly._id, period.start, 'quarry.test');
      assert.equal(weeklyMails()[0].messageId, messageId);
      await restarted.runDueReports(crashedAt + 40 * MINUTE);
      assert.equal(weeklyMails().length, 1, 'sent once');
      // The worst moment: the server took the mail, the process died before marking it sent
      // (the at-least-once window, docs/operations.md).
      await t.ctx.state.db
        .updateTable('rank_report_deliveries')
        .set({ status: 'accepting', claimed_ms: crashedAt + 40 * MINUTE })
        .where('report_id', '=', weekly._id)
        .execute();
      await restarted.runDueReports(crashedAt + 56 * MINUTE);
      await restarted.runDueReports(crashedAt + 80 * MINUTE);
      assert.deepEqual(
        weeklyMails().map((m) => m.messageId),
        [messageId, messageId],
        'the repeat is recognisably the same mail',
      );
    } finally {
      await restarted.close();
    }
  });
  test('a mail is recorded accepting before its end reaches the server; one the server accepted whose sent record the store refused is recorded by the next run, not sent again', async () => {
    const owner = await rankClient(t, 'premium', 'refused-record@reports.test');
    const id = (await owner.post('/trackings', { domain, location_id: 2840, platform_id: 1, keywords: ['tent'] })).json().tracking._id;
    await rankServices(t.ctx).checks.idle();
    t.clock.advance(7 * DAY);
    await rankServices(t.ctx).checks.runDueChecks(t.clock.now());
    const weekly = (await owner.get(`/trackings/${id}/reports`)).json().find((r: { type: number }) => r.type === 1);
    const period = lastEndedPeriod(1, t.clock.now());
    const db = t.ctx.state.db;
    const statusOf = async () =>
      (
        await db
          .selectFrom('rank_report_deliveries')
          .select('status')
          .where('report_id', '=', weekly._id)
          .where('period_start', '=', period.start)
          .executeTakeFirst()
      )?.status;
    const mails = () => inbox.filter((m) => m.to.join() === 'refused-record@reports.test' && m.subject.startsWith('Weekly'));
    // The store refuses this report's `sent` record (as a busy one would) until the trigger goes.
    const refuse =
      t.ctx.state.dialect === 'sqlite'
        ? [
            sql`CREATE TRIGGER refuse_sent BEFORE UPDATE ON rank_report_deliveries WHEN NEW.status = 'sent' AND NEW.report_id = ${sql.lit(weekly._id)}
                BEGIN SELECT RAISE(ABORT, 'database is locked'); END`,
          ]
        : [
            sql`CREATE FUNCTION refuse_sent() RETURNS trigger AS $$ BEGIN
                  IF NEW.status = 'sent' AND NEW.report_id = ${sql.lit(weekly._id)} THEN RAISE EXCEPTION 'database is locked'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql`,
            sql`CREATE TRIGGER refuse_sent BEFORE UPDATE ON rank_report_deliveries FOR EACH ROW EXECUTE FUNCTION refuse_sent()`,
          ];
    const allow =
      t.ctx.state.dialect === 'sqlite'
        ? [sql`DROP TRIGGER refuse_sent`]
        : [sql`DROP TRIGGER refuse_sent ON rank_report_deliveries`, sql`DROP FUNCTION refuse_sent`];
    for (const statement of refuse) await statement.execute(db);
    const seenAtEnd: (string | undefined)[] = [];
    onMessageEnd = async (to) => {
      if (to.join() === 'refused-record@reports.test') seenAtEnd.push(await statusOf());
    };
    inbox.length = 0;
    const restarted = new RankReports(t.ctx);
    let allowed = false;
    try {
      await restarted.runDueReports(t.clock.now());
      assert.deepEqual(seenAtEnd, ['accepting'], 'recorded before the server had the whole message');
      assert.equal(mails().length, 1);
      assert.equal(await statusOf(), 'accepting', 'accepted by the server: never marked failed');
      for (const statement of allow) await statement.execute(db);
      allowed = true;
      await restarted.runDueReports(t.clock.now() + 16 * MINUTE);
      assert.equal(await statusOf(), 'sent');
      await restarted.runDueReports(t.clock.now() + 40 * MINUTE);
      assert.equal(mails().length, 1, 'sent once');
    } finally {
      onMessageEnd = null;
      if (!allowed) for (const statement of allow) await statement.execute(db);
      await restarted.close();
    }
  });
  test('after downtime across several periods each missed one is sent once, the last 4 weeks and 2 months', async () => {
    t.clock.set(Date.UTC(2027, 4, 5, 12)); // Wednesday 2027-05-05
    const away = await rankClient(t, 'premium', 'downtime@reports.test');
    assert.equal((await away.post('/trackings', { domain, location_id: 2840, platform_id: 1, keywords: ['tent'] })).statusCode, 201);
    await rankServices(t.ctx).checks.idle();
    inbox.length = 0;
    // Down until Wednesday 2027-08-18: 14 weeks and 3 months (May, June, July) ended meanwhile.
    t.clock.set(Date.UTC(2027, 7, 18, 12));
    const restarted = new RankReports(t.ctx);
    try {
      await rankServices(t.ctx).checks.runDueChecks(t.clock.now());
      await restarted.runDueReports(t.clock.now());
      await restarted.runDueReports(t.clock.now() + HOUR);
      await runDays(1);
    } finally {
      await restarted.close();
    }
    const periods = (kind: string) =>
      inbox
        .filter((m) => m.to.join() === 'downtime@reports.test')
        .map((m) => m.subject)
        .filter((subject) => subject.startsWith(kind))
        .map((subject) => /\((\S+) – (\S+)\)/.exec(subject)!.slice(1).join('/'));
    assert.deepEqual(periods('Weekly'), ['2027-07-19/2027-07-25', '2027-07-26/2027-08-01', '2027-08-02/2027-08-08', '2027-08-09/2027-08-15']);
    assert.deepEqual(periods('Monthly'), ['2027-06-01/2027-06-30', '2027-07-01/2027-07-31']);
  });
});
