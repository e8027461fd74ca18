/**
 * Common Crawl WAT import throughput and memory (issue 14). Generates a gzip WAT file of
 * synthetic pages (Common Crawl's record layout: a request and a response metadata record
 * per page, ~15 links each among 20,000 sites) under /tmp, then
 * 1. extracts links only (read, gunzip, WARC parse, JSON, link extraction): pages/s, the
 *    figure comparable to the published anchor (~5,000 pages/s per thread for a CC link
 *    extractor);
 * 2. imports the file into an empty research store (pages, links and resume state written;
 *    the metrics update left out, it is bench:import-incremental's): pages/s per core
 *    (CPU-seconds of this process, the gunzip thread included), and the RSS sampled along
 *    the input, to show memory flat whatever the file size.
 *
 * Usage: tsx bench/import-wat.bench.ts [uncompressed MB, default 1024]
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

const megabytes = Number(process.argv[2] ?? 1024);
const dir = path.join(os.tmpdir(), 'quarry-bench-wat');
const input = path.join(dir, `input-${megabytes}mb.warc.wat.gz`);
fs.mkdirSync(dir, { recursive: true });

function record(type: string, uri: string, json: string, date: string): Buffer {
  const body = Buffer.from(json, 'utf8');
  const head = `WARC/1.0\r\nWARC-Type: ${type}\r\nWARC-Target-URI: ${uri}\r\nWARC-Date: ${date}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
  return Buffer.concat([Buffer.from(head), body, Buffer.from('\r\n\r\n')]);
}

async function generate(): Promise<number> {
  const rng = new Rng(14);
  const out = fs.createWriteStream(input);
  const target = megabytes * 1e6;
  let written = 0;
  let pages = 0;
  let group: Buffer[] = [];
  let groupBytes = 0;
  const site = () => `https://www.site-${rng.int(0, 19_999)}.example-${['com', 'org', 'net', 'co.uk', 'de'][rng.int(0, 4)]}`;
  while (written < target) {
    const url = `${site()}/p/${rng.int(0, 999)}`;
    const date = `2026-${String(rng.int(1, 11)).padStart(2, '0')}-${String(rng.int(1, 28)).padStart(2, '0')}T10:00:00Z`;
    const links: Record<string, string>[] = [];
    for (let k = 0, n = rng.int(5, 25); k < n; k++) {
      const roll = rng.next();
      if (roll < 0.3) links.push({ path: 'A@/href', url: `/p/${rng.int(0, 999)}`, text: `internal page ${k}` });
      else if (roll < 0.4) {
        links.push({ path: 'IMG@/src', url: `/img/${k}.png`, alt: `picture ${k}` });
        links.push({ path: 'A@/href', url: `${site()}/`, text: '' });
      } else
        links.push({
          path: 'A@/href',
          url: `${site()}/p/${rng.int(0, 999)}`,
          text: `anchor text ${rng.int(0, 50)}`,
          ...(roll > 0.9 ? { rel: 'nofollow' } : {}),
        });
    }
    const response = JSON.stringify({
      Container: { Filename: 'CC-MAIN-bench.warc.gz', Compressed: true, Offset: String(written) },
      Envelope: {
        Format: 'WARC',
        'WARC-Header-Metadata': { 'WARC-Type': 'response', 'WARC-Target-URI': url, 'WARC-Date': date },
        'Payload-Metadata': {
          'HTTP-Response-Metadata': {
            'Response-Message': { Version: 'HTTP/1.1', Status: '200', Reason: 'OK' },
            Headers: { 'Content-Type': 'text/html; charset=utf-8', Server: 'nginx' },
            'HTML-Metadata': { Head: { Title: `Page ${pages}`, Link: [{ path: 'LINK@/href', rel: 'stylesheet', url: '/s.css' }] }, Links: links },
          },
        },
      },
    });
    const request = JSON.stringify({ Envelope: { 'WARC-Header-Metadata': { 'WARC-Type': 'request', 'WARC-Target-URI': url, 'WARC-Date': date } } });
    for (const r of [record('metadata', url, request, date), record('metadata', url, response, date)]) {
      group.push(r);
      groupBytes += r.length;
      written += r.length;
    }
    pages++;
    // Members of ~64 KB (Common Crawl writes one per record; the reader does not care, and
    // fewer members make the generator faster).
    if (groupBytes > 65_536) {
      if (!out.write(zlib.gzipSync(Buffer.concat(group), { level: 1 }))) await new Promise<void>((r) => out.once('drain', () => r()));
      group = [];
      groupBytes = 0;
    }
  }
  if (group.length) out.write(zlib.gzipSync(Buffer.concat(group), { level: 1 }));
  await new Promise<void>((resolve) => out.end(resolve));
  return pages;
}

const started = performance.now();
if (!fs.existsSync(input)) {
  const pages = await generate();
  console.log(
    `generated ${input}: ${pages} pages, ${megabytes} MB of WARC, ${(fs.statSync(input).size / 1e6).toFixed(0)} MB gzip, in ${((performance.now() - started) / 1000).toFixed(0)} s`,
  );
}

// 1. Extraction only.
{
  const t = performance.now();
  const cpu = process.cpuUsage();
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
  const seconds = (performance.now() - t) / 1000;
  const used = process.cpuUsage(cpu);
  const cpuSeconds = (used.user + used.system) / 1e6;
  console.log(
    `extract: ${pages} pages, ${links} links in ${seconds.toFixed(1)} s: ${(pages / seconds).toFixed(0)} pages/s wall, ${(pages / cpuSeconds).toFixed(0)} pages per CPU-second (anchor ~5,000 pages/s per thread)`,
  );
}

// 2. Full import (writes), with RSS along the input.
{
  const file = path.join(dir, 'research.db');
  for (const suffix of ['', '-wal', '-shm']) fs.rmSync(`${file}${suffix}`, { force: true });
  const store = await openResearchStore(file);
  const samples: { fraction: number; rss: number }[] = [];
  const t = performance.now();
  const cpu = process.cpuUsage();
  const result = await importWat(input, {
    store,
    asOf: BENCH_AS_OF,
    batchSize: 2000,
    updateMetrics: false,
    onProgress: (stage, done, total) => {
      if (stage.startsWith('read')) samples.push({ fraction: done / Math.max(1, total), rss: process.memoryUsage().rss });
    },
  });
  const seconds = (performance.now() - t) / 1000;
  const used = process.cpuUsage(cpu);
  const cpuSeconds = (used.user + used.system) / 1e6;
  await store.close();
  console.log(
    `import: ${result.pages} pages, ${result.links} links (${result.created} new) in ${seconds.toFixed(1)} s: ${(result.pages / seconds).toFixed(0)} pages/s wall, ` +
      `${(result.pages / cpuSeconds).toFixed(0)} pages per CPU-second`,
  );
  const at = (q: number) => samples.find((s) => s.fraction >= q) ?? samples[samples.length - 1];
  const mb = (b: number) => `${(b / 2 ** 20).toFixed(0)} MiB`;
  console.log(
    `RSS along the input: ${[0.1, 0.25, 0.5, 0.75, 1].map((q) => `${Math.round(q * 100)}% ${mb(at(q).rss)}`).join(', ')}; max ${mb(Math.max(...samples.map((s) => s.rss)))}`,
  );
  console.log(`machine: ${os.cpus().length} cores, load average ${os.loadavg()[0].toFixed(2)} (shared with other work)`);
}
