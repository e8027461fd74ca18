/**
 * The record of a report mail's deliveries, shared by the rank tool's reports
 * (`rank_report_deliveries`) and the answer tool's (`answer_report_deliveries`): one row per
 * report and period under a primary key, so that a mail is sent once per period however many
 * runs or processes try. The row says how far a delivery got:
 *
 *   sending    claimed: composing, or talking to the mail server before the message's end. A
 *              crash here delivered nothing (a server discards a message whose end never came).
 *   accepting  written just before the message's last byte goes to the server: from here the
 *              server may have accepted it.
 *   sent       the server accepted it (its 250 came back).
 *   failed     the server refused it, or the connection failed: tried again after RETRY_AFTER_MS.
 *
 * A row left `sending` or `accepting` by a crash is claimed again once SENDING_LEASE_MS has
 * passed, and the mail is sent again. That is right after a crash in `sending`; after one in
 * `accepting` the server may already have the mail, so the window from the message's last byte
 * to the `sent` record (the server's processing, one round trip, one write) stays at least once
 * (docs/operations.md). A mail the server accepted whose `sent` record the store refused (busy)
 * is never marked failed: this process keeps it and records it before its next claim, so it is
 * not sent again.
 */
import { type Kysely, type RawBuilder, sql } from 'kysely';
import type Mail from 'nodemailer/lib/mailer/index.js';
import { MINUTE } from '../lib/clock.js';
import type { StateDatabase } from '../store/schema.js';
import type { ReportMailer } from './reportMailer.js';

/** A failed delivery is retried no sooner than this, and at most MAX_ATTEMPTS times. */
export const RETRY_AFTER_MS = 15 * MINUTE;
export const MAX_ATTEMPTS = 5;
/**
 * A claim older than this that is still `sending` or `accepting` belongs to a delivery that
 * crashed. It outlasts the longest send nodemailer allows (its socket timeout is 10 minutes), so
 * a slow delivery still under way in another process is not taken over.
 */
export const SENDING_LEASE_MS = 15 * MINUTE;

/** A delivery's primary key: column → value. */
export type DeliveryKey = Record<string, string | number>;

export type DeliveryOutcome = 'sent' | 'failed' | 'skipped';

export interface DeliveryMetrics {
  emailed(outcome: 'sent' | 'failed'): void;
}

export class ReportDeliveries {
  /** Mails this process sent whose `sent` record the store refused: recorded before the next claim. */
  private readonly unrecorded = new Map<string, { key: DeliveryKey; sentMs: number; messageId: string }>();

  constructor(
    private readonly db: Kysely<StateDatabase>,
    private readonly table: 'rank_report_deliveries' | 'answer_report_deliveries',
    private readonly keyColumns: readonly string[],
    private readonly metrics?: DeliveryMetrics,
  ) {}

  /**
   * Claims the delivery, sends the mail `compose` makes, and records how far it got. The mail's
   * end waits for the `accepting` record, so that a row still `sending` after a crash means the
   * server never had the whole message.
   */
  async deliver(
    key: DeliveryKey,
    nowMs: number,
    mailer: ReportMailer,
    compose: () => Promise<{ message: Mail.Options; outboxName: string }>,
  ): Promise<DeliveryOutcome> {
    await this.recordUnrecorded();
    if (this.unrecorded.has(this.id(key)) || !(await this.claim(key, nowMs))) return 'skipped';
    let messageId: string;
    try {
      const { message, outboxName } = await compose();
      messageId = await mailer.send(message, outboxName, () => this.mark(key, sql`status = 'accepting'`));
    } catch (err) {
      this.metrics?.emailed('failed');
      // Unrecorded (the store refused), the row stays claimed and is taken again after the lease.
      await this.mark(key, sql`status = 'failed', error = ${String((err as Error)?.message ?? err).slice(0, 500)}`).catch(() => undefined);
      return 'failed';
    }
    this.metrics?.emailed('sent');
    try {
      await this.recordSent(key, nowMs, messageId);
    } catch {
      this.unrecorded.set(this.id(key), { key, sentMs: nowMs, messageId });
    }
    return 'sent';
  }

  /** Records the mails sent whose record the store refused before; those it refuses again wait for the next call. */
  private async recordUnrecorded(): Promise<void> {
    for (const [id, { key, sentMs, messageId }] of this.unrecorded) {
      try {
        await this.recordSent(key, sentMs, messageId);
        this.unrecorded.delete(id);
      } catch {
        return;
      }
    }
  }

  private recordSent(key: DeliveryKey, sentMs: number, messageId: string): Promise<void> {
    return this.mark(key, sql`status = 'sent', sent_ms = ${sentMs}, message_id = ${messageId}, error = NULL`);
  }

  /**
   * Takes the delivery for this run: new, failed long enough ago, or left `sending` or
   * `accepting` by a crashed delivery; in each case not given up on. One statement: two runs
   * or processes cannot both take it.
   */
  private async claim(key: DeliveryKey, nowMs: number): Promise<boolean> {
    const columns = sql.join(this.keyColumns.map((c) => sql.ref(c)));
    const values = sql.join(this.keyColumns.map((c) => key[c]));
    const res = await sql`
      INSERT INTO ${sql.table(this.table)} AS d (${columns}, status, attempts, claimed_ms)
      VALUES (${values}, 'sending', 1, ${nowMs})
      ON CONFLICT (${columns}) DO UPDATE SET status = 'sending', attempts = d.attempts + 1, claimed_ms = excluded.claimed_ms
      WHERE d.attempts < ${MAX_ATTEMPTS} AND (
        (d.status = 'failed' AND d.claimed_ms <= ${nowMs - RETRY_AFTER_MS}) OR
        (d.status IN ('sending', 'accepting') AND d.claimed_ms <= ${nowMs - SENDING_LEASE_MS}))`.execute(this.db);
    return Number(res.numAffectedRows ?? 0) === 1;
  }

  private async mark(key: DeliveryKey, set: RawBuilder<unknown>): Promise<void> {
    const where = sql.join(
      this.keyColumns.map((c) => sql`${sql.ref(c)} = ${key[c]}`),
      sql` AND `,
    );
    await sql`UPDATE ${sql.table(this.table)} SET ${set} WHERE ${where}`.execute(this.db);
  }

  private id(key: DeliveryKey): string {
    return JSON.stringify(this.keyColumns.map((c) => key[c]));
  }
}
