/** Writes WAT files as Common Crawl does: one gzip member per WARC record, JSON metadata blocks. */
import fs from 'node:fs';
import zlib from 'node:zlib';

export interface WatPage {
  url: string;
  date: string;
  status?: number;
  location?: string;
  base?: string;
  links: Record<string, string>[];
}

export function warcRecord(type: string, uri: string | null, contentType: string, block: string | Buffer): Buffer {
  const body = Buffer.isBuffer(block) ? block : Buffer.from(block, 'utf8');
  const head = [
    'WARC/1.0',
    `WARC-Type: ${type}`,
    ...(uri ? [`WARC-Target-URI: ${uri}`] : []),
    'WARC-Date: 2026-11-01T00:00:00Z',
    `WARC-Record-ID: <urn:uuid:${Math.random().toString(16).slice(2)}>`,
    `Content-Type: ${contentType}`,
    `Content-Length: ${body.length}`,
    '',
    '',
  ].join('\r\n');
  return Buffer.concat([Buffer.from(head, 'utf8'), body, Buffer.from('\r\n\r\n')]);
}

export function watMetadataJson(page: WatPage): string {
  return JSON.stringify({
    Container: { Filename: 'CC-MAIN-test.warc.gz', Compressed: true },
    Envelope: {
      Format: 'WARC',
      'WARC-Header-Metadata': { 'WARC-Type': 'response', 'WARC-Target-URI': page.url, 'WARC-Date': page.date },
      'Payload-Metadata': {
        'Actual-Content-Type': 'application/http; msgtype=response',
        'HTTP-Response-Metadata': {
          'Response-Message': { Version: 'HTTP/1.1', Status: String(page.status ?? 200), Reason: 'OK' },
          Headers: { 'Content-Type': 'text/html', ...(page.location ? { Location: page.location } : {}) },
          'HTML-Metadata': {
            Head: { Title: 'A page', ...(page.base ? { Base: page.base } : {}), Link: [{ path: 'LINK@/href', rel: 'stylesheet', url: '/style.css' }] },
            Links: page.links,
          },
        },
      },
    },
  });
}

/** A gzip WAT file: a warcinfo record, then per page a request-metadata and a response-metadata record. */
export function writeWat(file: string, pages: WatPage[], extra: Buffer[] = []): void {
  const members: Buffer[] = [zlib.gzipSync(warcRecord('warcinfo', null, 'application/warc-fields', 'software: test\r\nformat: WAT\r\n'))];
  for (const page of pages) {
    const request = JSON.stringify({ Envelope: { 'WARC-Header-Metadata': { 'WARC-Type': 'request', 'WARC-Target-URI': page.url } } });
    members.push(zlib.gzipSync(warcRecord('metadata', page.url, 'application/json', request)));
    members.push(zlib.gzipSync(warcRecord('metadata', page.url, 'application/json', watMetadataJson(page))));
  }
  for (const e of extra) members.push(zlib.gzipSync(e));
  fs.writeFileSync(file, Buffer.concat(members));
}
