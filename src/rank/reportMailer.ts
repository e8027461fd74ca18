/**
 * Sends a report e-mail: through QUARRY_SMTP_URL, or without it as a raw message written to
 * `<data dir>/outbox/<name>.eml`. Shared by the rank tool's reports and the answer tool's.
 *
 * The message is built first, then handed to the SMTP server as a stream that ends only once
 * the caller's `beforeEnd` has resolved: nodemailer writes the end of DATA (`<CRLF>.<CRLF>`)
 * after the stream ends, and a server delivers nothing whose end never came, so whatever
 * `beforeEnd` records (reportDeliveries.ts: `accepting`) is stored before the server can have
 * accepted the mail. A `beforeEnd` that fails aborts the send before the end.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import nodemailer, { type Transporter } from 'nodemailer';
import type Mail from 'nodemailer/lib/mailer/index.js';
import type { Config } from '../config.js';

export class ReportMailer {
  private transport: Transporter | null = null;

  constructor(private readonly config: Pick<Config, 'smtpUrl' | 'dataDir' | 'publicUrl'>) {}

  /** The domain of sender addresses and Message-IDs: the public URL's host. */
  domain(): string {
    const host = new URL(this.config.publicUrl).hostname;
    return host.includes('.') ? host : `${host}.localdomain`;
  }

  /**
   * Sends the message (or writes it to the outbox as `<outboxName>.eml`); answers its
   * Message-ID. `beforeEnd` runs before the server can have the whole message.
   */
  async send(message: Mail.Options, outboxName: string, beforeEnd: () => Promise<void> = async () => undefined): Promise<string> {
    const built = await nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'windows' }).sendMail(message);
    const raw = built.message as Buffer;
    const messageId = String(built.messageId ?? '');
    if (this.config.smtpUrl) {
      this.transport ??= nodemailer.createTransport(this.config.smtpUrl);
      await this.transport.sendMail({ envelope: built.envelope, raw: endingAfter(raw, beforeEnd) });
      return messageId;
    }
    await beforeEnd();
    const dir = path.join(this.config.dataDir, 'outbox');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, `${outboxName}.eml`), raw);
    return messageId;
  }

  close(): void {
    this.transport?.close();
    this.transport = null;
  }
}

/** `raw` as a stream that ends once `beforeEnd` has resolved (fails with its error otherwise). */
function endingAfter(raw: Buffer, beforeEnd: () => Promise<void>): Readable {
  let step: 'body' | 'end' | 'done' = 'body';
  return new Readable({
    read() {
      if (step === 'body') {
        step = 'end';
        this.push(raw);
      } else if (step === 'end') {
        step = 'done';
        beforeEnd().then(
          () => this.push(null),
          (err: unknown) => this.destroy(err instanceof Error ? err : new Error(String(err))),
        );
      }
    },
  });
}
