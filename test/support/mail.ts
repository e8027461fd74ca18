/**
 * Reading the e-mails the service sends, as a mail client would (mailparser decodes the
 * MIME parts and RFC 2047 headers), so the tests check what a recipient sees.
 */
import { simpleParser } from 'mailparser';

export interface ReadMail {
  subject: string;
  /** The To: addresses. */
  to: string[];
  messageId: string;
  text: string;
  html: string;
  /** The content types of the attachments (inline images included). */
  attachments: string[];
}

export async function readMail(raw: string | Buffer): Promise<ReadMail> {
  // keepCidLinks: the html as sent (inline images by cid:), not rewritten to data: URLs.
  const mail = await simpleParser(raw, { keepCidLinks: true });
  const to = [mail.to ?? []].flat().flatMap((a) => a.value.map((v) => v.address ?? ''));
  return {
    subject: mail.subject ?? '',
    to,
    messageId: mail.messageId ?? '',
    text: mail.text ?? '',
    html: typeof mail.html === 'string' ? mail.html : '',
    attachments: mail.attachments.map((a) => a.contentType),
  };
}
