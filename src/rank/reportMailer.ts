/**
 * Sends a report e-mail: through QUARRY_SMTP_URL, or without it as a raw message written to
 * `<data dir>/outbox/<name>.eml`. Shared by the rank tool's reports and the answer tool's.
 */
import fs from 'node:fs';
import path from 'node:path';
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

  /** Sends the message (or writes it to the outbox as `<outboxName>.eml`); answers its Message-ID. */
  async send(message: Mail.Options, outboxName: string): Promise<string> {
    if (this.config.smtpUrl) {
      this.transport ??= nodemailer.createTransport(this.config.smtpUrl);
      const info = await this.transport.sendMail(message);
      return String(info.messageId ?? '');
    }
    const outbox = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'windows' });
    const info = await outbox.sendMail(message);
    const dir = path.join(this.config.dataDir, 'outbox');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, `${outboxName}.eml`), info.message as Buffer);
    return String(info.messageId ?? '');
  }

  close(): void {
    this.transport?.close();
    this.transport = null;
  }
}
