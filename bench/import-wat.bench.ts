/**
 * Common Crawl WAT import throughput and memory (issue 14). Generates a gzip WAT file of
 * ~1 GB (by default) of synthetic pages in a temporary directory, removed at the end: WARC
 * records as Common Crawl writes them (per page a `request`, a `response` and a `metadata`
 * record's JSON metadata, one gzip member per record; envelope headers, digests, record ids,
 * HTTP headers, head metas and scripts, ~45 links a page among 40,000 sites, so that the
 * file compresses about as a real one does). Then
 * 1. extracts links only (read, gunzip, WARC parse, JSON, link extraction): pages/s per
 *    CPU-second, the figure comparable to the published anchor (~5,000 pages/s per thread
 *    for a Common Crawl link extractor);
 * 2. imports the file into an empty research store (pages, links and resume state written;
 *    the metrics update left out, it is bench:import-incremental's): pages/s per CPU-second
 *    (this process's CPU time, the gunzip thread included);
 * and samples the RSS every 250 ms through both, printing it along the input and its peak
 * (with the kernel's high-water mark), to show memory flat whatever the file size.
 *
 * Usage: tsx bench/import-wat.bench.ts [gzip MB, default 1024]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { openResearchStore } from '../src/engine/researchStore.js';
import { openWarc } from '../src/engine/import/warcReader.js';
import { extractWatPage, importWat } from '../src/engine/import/watImport.js';
import { Rng } from '../src/engine/world/random.js';
import { BENCH_AS_OF } from './benchSupport.js';

const gzipMegabytes = Number(process.argv[2] ?? 1024);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-bench-wat-'));
const input = path.join(dir, 'CC-MAIN-20261101000000-20261101030000-00000.warc.wat.gz');
const mib = (b: number) => `${(b / 2 ** 20).toFixed(0)} MiB`;
const removeDir = () => fs.rmSync(dir, { recursive: true, force: true });
process.once('SIGINT', () => {
  removeDir();
  process.exit(130);
});

const rng = new Rng(14);
const hex = (n: number) => Array.from({ length: n }, () => '0123456789abcdef'[rng.int(0, 15)]).join('');
const base32 = (n: number) => Array.from({ length: n }, () => 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'[rng.int(0, 31)]).join('');
const uuid = () => `<urn:uuid:${hex(8)}-${hex(4)}-${hex(4)}-${hex(4)}-${hex(12)}>`;
const WORDS = 'best cheap guide review how to buy online free new top price home garden travel news sports health food recipe car repair local shop'.split(' ');
const words = (n: number) => Array.from({ length: n }, () => WORDS[rng.int(0, WORDS.length - 1)]).join(' ');
const slug = () => `${words(rng.int(2, 5)).replace(/ /g, '-')}-${rng.int(1, 99_999)}`;
const TLDS = ['com', 'org', 'net', 'co.uk', 'de', 'fr', 'io', 'info'];
const site = () => `https://${rng.next() < 0.6 ? 'www.' : ''}site-${rng.int(0, 39_999)}.example-${TLDS[rng.int(0, TLDS.length - 1)]}`;

function record(type: string, uri: string, date: string, json: string): Buffer {
  const body = Buffer.from(json, 'utf8');
  const head =
    `WARC/1.0\r\nWARC-Type: ${type}\r\nWARC-Target-URI: ${uri}\r\nWARC-Date: ${date}\r\nWARC-Record-ID: ${uuid()}\r\n` +
    `WARC-Refers-To: ${uuid()}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
  return Buffer.concat([Buffer.from(head), body, Buffer.from('\r\n\r\n')]);
}

function envelope(type: string, url: string, date: string, offset: number, payload: Record<string, unknown>): string {
  return JSON.stringify({
    Container: {
      Filename: 'CC-MAIN-20261101000000-20261101030000-00000.warc.gz',
      Compressed: true,
      Offset: String(offset),
      'Gzip-Metadata': {
        'Deflate-Length': String(rng.int(2000, 40_000)),
        'Header-Length': '10',
        'Footer-Length': '8',
        'Inflated-CRC': String(rng.int(0, 2 ** 31)),
      },
    },
    Envelope: {
      Format: 'WARC',
      'WARC-Header-Length': String(rng.int(500, 800)),
      'Block-Digest': `sha1:${base32(32)}`,
      'Actual-Content-Length': String(rng.int(300, 200_000)),
      'WARC-Header-Metadata': {
        'WARC-Type': type,
        'WARC-Date': date,
        'WARC-Record-ID': uuid(),
        'Content-Length': String(rng.int(300, 200_000)),
        'Content-Type': type === 'request' ? 'application/http; msgtype=request' : 'application/http; msgtype=response',
        'WARC-Warcinfo-ID': '<urn:uuid:6a4f6a2e-1b0e-4d1f-9f5e-0c1d2e3f4a5b>',
        'WARC-Concurrent-To': uuid(),
        'WARC-IP-Address': `${rng.int(1, 223)}.${rng.int(0, 255)}.${rng.int(0, 255)}.${rng.int(1, 254)}`,
        'WARC-Target-URI': url,
        'WARC-Payload-Digest': `sha1:${base32(32)}`,
        'WARC-Block-Digest': `sha1:${base32(32)}`,
      },
      'Payload-Metadata': payload,
    },
  });
}

/** The three WAT records of one page. */
function pageRecords(offset: number): Buffer[] {
  const host = site();
  const url = `${host}/${slug()}`;
  const date = `2026-${String(rng.int(1, 11)).padStart(2, '0')}-${String(rng.int(1, 28)).padStart(2, '0')}T${String(rng.int(0, 23)).padStart(2, '0')}:${String(rng.int(10, 59))}:${String(rng.int(10, 59))}Z`;
  const links: Record<string, string>[] = [];
  for (let k = 0, n = rng.int(30, 60); k < n; k++) {
    const roll = rng.next();
    if (roll < 0.45) links.push({ path: 'A@/href', url: `/${slug()}`, text: words(rng.int(1, 4)) });
    else if (roll < 0.55) {
      links.push({ path: 'IMG@/src', url: `/images/${hex(12)}.jpg`, alt: words(rng.int(1, 3)) });
      links.push({ path: 'A@/href', url: `${site()}/`, text: '' });
    } else if (roll < 0.6) links.push({ path: 'SCRIPT@/src', url: `https://cdn.example-cdn.net/js/${hex(10)}.js` });
    else
      links.push({
        path: 'A@/href',
        url: `${site()}/${slug()}`,
        text: words(rng.int(1, 6)),
        ...(roll > 0.92 ? { rel: 'nofollow' } : {}),
        ...(roll > 0.97 ? { title: words(3) } : {}),
      });
  }
  const request = envelope('request', url, date, offset, {
    'Actual-Content-Type': 'application/http; msgtype=request',
    'HTTP-Request-Metadata': {
      'Request-Message': { Method: 'GET', Path: new URL(url).pathname, Version: 'HTTP/1.1' },
      'Headers-Length': '300',
      'Entity-Length': '0',
      Headers: { Host: new URL(url).host, 'User-Agent': 'CCBot/2.0 (https://commoncrawl.org/faq/)', Accept: 'text/html', 'Accept-Encoding': 'br,gzip' },
    },
  });
  const response = envelope('response', url, date, offset + 700, {
    'Actual-Content-Type': 'application/http; msgtype=response',
    'HTTP-Response-Metadata': {
      'Response-Message': { Version: 'HTTP/1.1', Status: '200', Reason: 'OK' },
      'Headers-Length': String(rng.int(300, 900)),
      'Entity-Length': String(rng.int(5000, 300_000)),
      'Entity-Trailing-Slop-Length': '0',
      'Entity-Digest': `sha1:${base32(32)}`,
      Headers: {
        Date: date,
        'Content-Type': 'text/html; charset=utf-8',
        Server: ['nginx', 'Apache', 'cloudflare'][rng.int(0, 2)],
        ETag: `"${hex(16)}"`,
        'Set-Cookie': `session=${hex(32)}; Path=/; HttpOnly`,
        'X-Crawler-Content-Length': String(rng.int(5000, 300_000)),
      },
      'HTML-Metadata': {
        Head: {
          Title: words(rng.int(3, 9)),
          Metas: [
            { name: 'description', content: words(rng.int(10, 25)) },
            { name: 'viewport', content: 'width=device-width, initial-scale=1' },
            { property: 'og:title', content: words(5) },
          ],
          Link: [
            { path: 'LINK@/href', rel: 'stylesheet', url: `/css/${hex(8)}.css` },
            { path: 'LINK@/href', rel: 'canonical', url },
          ],
          Scripts: [{ path: 'SCRIPT@/src', url: `/js/${hex(8)}.js` }],
        },
        Links: links,
      },
    },
  });
  const metadata = envelope('metadata', url, date, offset + 1400, {
    'Actual-Content-Type': 'application/warc-fields',
    'WARC-Metadata-Metadata': {
      'Metadata-Records': [
        { Name: 'fetchTimeMs', Value: String(rng.int(50, 3000)) },
        { Name: 'charset-detected', Value: 'UTF-8' },
      ],
    },
  });
  return [record('metadata', url, date, request), record('metadata', url, date, response), record('metadata', url, date, metadata)];
}

async function generate(): Promise<{ pages: number; warcBytes: number }> {
  const out = fs.createWriteStream(input);
  const target = gzipMegabytes * 2 ** 20;
  let gzipBytes = 0;
  let warcBytes = 0;
  let pages = 0;
  while (gzipBytes < target) {
    // One gzip member per record, as Common Crawl writes them.
    for (const r of pageRecords(warcBytes)) {
      const member = zlib.gzipSync(r, { level: 6 });
      gzipBytes += member.length;
      warcBytes += r.length;
      if (!out.write(member)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
    }
    pages++;
  }
  await new Promise<void>((resolve) => out.end(resolve));
  return { pages, warcBytes };
}

/** RSS every 250 ms (a timer: it also sees memory between progress callbacks). */
function rssSampler() {
  const samples: number[] = [];
  const timer = setInterval(() => samples.push(process.memoryUsage.rss()), 250);
  return {
    samples,
    stop: () => clearInterval(timer),
  };
}

function cpuSecondsSince(start: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1e6;
}

try {
  const started = performance.now();
  const generated = await generate();
  console.log(
    `generated ${generated.pages.toLocaleString()} pages: ${mib(generated.warcBytes)} of WARC, ${mib(fs.statSync(input).size)} gzip ` +
      `(${(generated.warcBytes / fs.statSync(input).size).toFixed(1)}× compression) in ${((performance.now() - started) / 1000).toFixed(0)} s`,
  );

  // 1. Extraction only.
  {
    const t = performance.now();
    const cpu = process.cpuUsage();
    const rss = rssSampler();
    let pages = 0;
    let links = 0;
    for await (const r of openWarc(input).records) {
      if (r.type !== 'metadata') continue;
      const page = extractWatPage(r.block);
      if (page) {
        pages++;
        links += page.links.length;
      }
    }
    rss.stop();
    const seconds = (performance.now() - t) / 1000;
    const cpuSeconds = cpuSecondsSince(cpu);
    console.log(
      `extract: ${pages.toLocaleString()} pages, ${links.toLocaleString()} links in ${seconds.toFixed(0)} s wall, ${cpuSeconds.toFixed(0)} CPU-s: ` +
        `${(pages / cpuSeconds).toFixed(0)} pages per CPU-second (${(pages / seconds).toFixed(0)} pages/s wall; anchor ~5,000 pages/s per thread); ` +
        `RSS peak ${mib(Math.max(...rss.samples))}`,
    );
  }

  // 2. Full import (writes), with RSS along the input.
  {
    const store = await openResearchStore(path.join(dir, 'research.db'));
    const rss = rssSampler();
    const along: { fraction: number; rss: number }[] = [];
    const t = performance.now();
    const cpu = process.cpuUsage();
    const result = await importWat(input, {
      store,
      asOf: BENCH_AS_OF,
      batchSize: 2000,
      updateMetrics: false,
      onProgress: (stage, done, total) => {
        if (stage.startsWith('read')) along.push({ fraction: done / Math.max(1, total), rss: process.memoryUsage.rss() });
      },
    });
    rss.stop();
    const seconds = (performance.now() - t) / 1000;
    const cpuSeconds = cpuSecondsSince(cpu);
    await store.close();
    const dbSize = fs.statSync(path.join(dir, 'research.db')).size;
    console.log(
      `import: ${result.pages.toLocaleString()} pages, ${result.links.toLocaleString()} links (${result.created.toLocaleString()} new) in ${seconds.toFixed(0)} s wall, ` +
        `${cpuSeconds.toFixed(0)} CPU-s: ${(result.pages / cpuSeconds).toFixed(0)} pages per CPU-second (${(result.pages / seconds).toFixed(0)} pages/s wall); research store ${mib(dbSize)}`,
    );
    const at = (q: number) => along.find((s) => s.fraction >= q) ?? along[along.length - 1];
    console.log(
      `import RSS along the input: ${[0.1, 0.25, 0.5, 0.75, 1].map((q) => `${Math.round(q * 100)}% ${mib(at(q).rss)}`).join(', ')}; ` +
        `sampled peak ${mib(Math.max(...rss.samples))} (${rss.samples.length} samples every 250 ms)`,
    );
  }
  console.log(
    `peak RSS of the whole run (kernel high-water mark): ${mib(process.resourceUsage().maxRSS * 1024)}; ` +
      `machine: ${os.cpus().length} cores, load average ${os.loadavg()[0].toFixed(2)} (shared with other work)`,
  );
} finally {
  removeDir();
}
