/**
 * Imports links from Common Crawl WAT files (`*.warc.wat.gz`): WARC `metadata` records whose
 * JSON block describes one crawled page (Common Crawl, "Get Started": WAT files), e.g.
 *
 *   {"Envelope": {"WARC-Header-Metadata": {"WARC-Type": "response", "WARC-Target-URI": "https://a.example/x",
 *     "WARC-Date": "2024-05-18T01:58:10Z"}, "Payload-Metadata": {"HTTP-Response-Metadata": {
 *     "Response-Message": {"Status": "200"}, "Headers": {"Location": …},
 *     "HTML-Metadata": {"Head": {"Base": …}, "Links": [{"path": "A@/href", "url": "/y", "text": "why", "rel": "nofollow"},
 *       {"path": "IMG@/src", "url": "/logo.png", "alt": "Logo"}, …]}}}}}
 *
 * Each response page becomes a source page; its links become links (linkWriter.ts) seen on
 * the crawl date (first/last seen merge across crawls):
 * - `A@/href` and `AREA@/href` are text links; `rel` nofollow, ugc or sponsored makes them
 *   nofollow (Google treats all three as hints not to pass rank);
 * - an `A@/href` without text right after an `IMG@/src` is an image link with that image's
 *   alt text (the extractor reports an anchor's image when it opens, the anchor when it
 *   closes); a bare `IMG@/src` is an embedded resource, not a link;
 * - `IFRAME@/src` and `FRAME@/src` are frame links;
 * - a 3xx response with a `Location` header is a redirect link to its target;
 * - other paths (stylesheets, scripts, forms, head links) are resources, not links;
 * - relative URLs are resolved against the page URL, or its `<base href>` when given;
 *   links that are not http(s) or point at the page itself are skipped.
 *
 * A crawl of a page that was crawled before tells which of its links went away: after its
 * links are written, the page's live links last seen before the crawl day are lost on that
 * day ("Link removed from page"; "Page not found (404)" when the page answered 404 or 410;
 * "Page redirected" for a 3xx), and one found again by a later crawl is live again. Crawls
 * are expected oldest first (as Common Crawl's are numbered): an older crawl imported after
 * a newer one adds what it saw without taking back a loss the newer one found.
 *
 * Streaming and resumable: records are read one at a time (warcReader.ts) and committed in
 * batches with the resume state (importRuns.ts); afterwards link metrics are updated for
 * the touched domains (links/incrementalMetrics.ts). Before the first batch the file is read
 * through once (checkWat): a truncated or foreign file is refused and writes nothing.
 */
import type { ResearchStore } from '../researchStore.js';
import { updateLinkMetrics, type MetricsUpdate, type UpdateStage } from '../links/incrementalMetrics.js';
import { deleteStoredRankIndexes } from '../search/searchStore.js';
import { LinkWriter } from './linkWriter.js';
import { openWarc, WarcFormatError, type WarcRecord } from './warcReader.js';
import { ImportError } from './importError.js';
import { beginRun, finishPendingRuns, markRead, recordBatch, type ImportRun } from './importRuns.js';

export interface WatImportOptions {
  store: ResearchStore;
  /** The date the metrics refer to (ms). */
  asOf: number;
  /** Wall clock for the resume state (ms). */
  now?: () => number;
  /** Records per committed batch. */
  batchSize?: number;
  /** Import again a file already imported, from its start. */
  restart?: boolean;
  onProgress?: (stage: string, done: number, total: number) => void;
  /** Checked between batches: an aborted import keeps its committed batches and resumes later. */
  signal?: AbortSignal;
  /**
   * Update link metrics at the end (default). Without it the file is read and its touched
   * domains wait: the next import that updates metrics covers them too (a slice of many
   * files pays for one update).
   */
  updateMetrics?: boolean;
}

export interface WatImportResult {
  /** True when the file had been imported completely before (nothing done). */
  alreadyImported: boolean;
  /** Records skipped because an earlier attempt committed them. */
  resumedFrom: number;
  records: number;
  pages: number;
  links: number;
  created: number;
  updated: number;
  skippedLinks: number;
  newRootDomains: number;
  newPages: number;
  /** Links marked lost: a later crawl of their source page no longer had them. */
  lost: number;
  metrics: MetricsUpdate | null;
}

export interface ExtractedLink {
  url: string;
  anchor: string;
  alt: string;
  type: 'text' | 'image' | 'redirect' | 'frame';
  nofollow: boolean;
}

export interface ExtractedPage {
  url: string;
  /** Crawl day, YYYY-MM-DD. */
  date: string;
  /** HTTP status of the crawl (0 when the record gives none). */
  status: number;
  /** Whether the record holds the page's HTML metadata (its links were extracted). */
  html: boolean;
  links: ExtractedLink[];
}

/**
 * Why the links a crawl of a page no longer shows are lost (the link tool's reasons), or
 * null when the crawl says nothing about them: a server error or a response without HTML
 * metadata (a PDF, a truncated fetch) is no evidence that links went away.
 */
export function lostReason(page: ExtractedPage): string | null {
  if (page.status === 404 || page.status === 410) return 'Page not found (404)';
  if (page.status >= 300 && page.status < 400) return 'Page redirected';
  if (page.status >= 200 && page.status < 300 && page.html) return 'Link removed from page';
  return null;
}

const MAX_ANCHOR = 500;

function cleanText(text: unknown): string {
  if (typeof text !== 'string') return '';
  return text.replace(/\s+/g, ' ').trim().slice(0, MAX_ANCHOR);
}

function resolve(url: unknown, base: URL): string | null {
  if (typeof url !== 'string' || url.length === 0 || url.length > 4096) return null;
  try {
    const resolved = new URL(url.trim(), base);
    if (resolved.protocol !== 'http:' && resolved.protocol !== 'https:') return null;
    resolved.hash = '';
    return resolved.href;
  } catch {
    return null;
  }
}

function record(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** The page and links of one WAT metadata record; null for records that describe no crawled page. */
export function extractWatPage(block: Buffer | string): ExtractedPage | null {
  let json: unknown;
  try {
    json = JSON.parse(typeof block === 'string' ? block : block.toString('utf8'));
  } catch {
    return null;
  }
  const envelope = record(record(json)?.Envelope);
  const warc = record(envelope?.['WARC-Header-Metadata']);
  if (!warc || warc['WARC-Type'] !== 'response') return null;
  const pageUrl = typeof warc['WARC-Target-URI'] === 'string' ? warc['WARC-Target-URI'] : '';
  const dateMs = Date.parse(typeof warc['WARC-Date'] === 'string' ? warc['WARC-Date'] : '');
  let page: URL;
  try {
    page = new URL(pageUrl);
  } catch {
    return null;
  }
  if ((page.protocol !== 'http:' && page.protocol !== 'https:') || Number.isNaN(dateMs)) return null;
  page.hash = '';
  const http = record(record(envelope?.['Payload-Metadata'])?.['HTTP-Response-Metadata']);
  const html = record(http?.['HTML-Metadata']);
  let base = page;
  const baseHref = record(html?.Head)?.Base;
  if (typeof baseHref === 'string') {
    const resolved = resolve(baseHref, page);
    if (resolved) base = new URL(resolved);
  }
  const links: ExtractedLink[] = [];
  const add = (url: string | null, link: Omit<ExtractedLink, 'url'>) => {
    if (url && url !== page.href) links.push({ url, ...link });
  };
  const status = Number(record(http?.['Response-Message'])?.Status);
  const location = record(http?.Headers)?.Location;
  if (status >= 300 && status < 400 && typeof location === 'string') add(resolve(location, page), { anchor: '', alt: '', type: 'redirect', nofollow: false });
  const list = Array.isArray(html?.Links) ? (html.Links as unknown[]) : [];
  let previousImage: Record<string, unknown> | undefined;
  for (const item of list) {
    const link = record(item);
    if (!link) continue;
    const path = typeof link.path === 'string' ? link.path.toUpperCase() : '';
    const rel = typeof link.rel === 'string' ? link.rel.toLowerCase().split(/\s+/) : [];
    const nofollow = rel.includes('nofollow') || rel.includes('ugc') || rel.includes('sponsored');
    if (path === 'A@/HREF' || path === 'AREA@/HREF') {
      const text = cleanText(link.text);
      if (text === '' && previousImage) {
        const alt = cleanText(previousImage.alt);
        add(resolve(link.url, base), { anchor: alt, alt, type: 'image', nofollow });
      } else {
        add(resolve(link.url, base), { anchor: text, alt: '', type: 'text', nofollow });
      }
    } else if (path === 'IFRAME@/SRC' || path === 'FRAME@/SRC') {
      add(resolve(link.url, base), { anchor: '', alt: '', type: 'frame', nofollow: false });
    }
    previousImage = path === 'IMG@/SRC' ? link : undefined;
  }
  return { url: page.href, date: new Date(dateMs).toISOString().slice(0, 10), status: Number.isFinite(status) ? status : 0, html: html !== undefined, links };
}

export async function importWat(file: string, options: WatImportOptions): Promise<WatImportResult> {
  const raw = options.store.raw;
  const now = options.now ?? Date.now;
  const progress = options.onProgress ?? (() => {});
  const run = beginRun(raw, 'wat', file, now(), options.restart);
  const result: WatImportResult = {
    alreadyImported: run.status === 'done',
    resumedFrom: run.recordsDone,
    records: 0,
    pages: 0,
    links: 0,
    created: 0,
    updated: 0,
    skippedLinks: 0,
    newRootDomains: 0,
    newPages: 0,
    lost: 0,
    metrics: null,
  };
  if (run.status === 'done') return result;
  // A fresh run reads the file through once before writing: a truncated or foreign file
  // writes nothing (a resumed run's file was read through by its first attempt).
  if (run.status === 'running' && run.recordsDone === 0) await checkWat(file, options, () => forgetRun(raw, run.id));
  if (run.status === 'running') await readRecords(file, options, run, result);
  if (options.updateMetrics === false) return result;
  const stages: UpdateStage[] = ['load', 'pagerank', 'trustrank', 'counters', 'strength', 'history', 'write'];
  result.metrics = updateLinkMetrics(raw, options.asOf, (stage) => progress('update metrics', stages.indexOf(stage), stages.length));
  progress('update metrics', stages.length, stages.length);
  finishPendingRuns(raw, now());
  return result;
}

/**
 * Reads a WAT file to its end without writing (the WARC framing, and the gzip members' lengths
 * and checksums: a few seconds a gigabyte, against minutes of import), and refuses one that ends
 * early or is no WAT file: no WARC record, or no metadata record describing a crawled page
 * (a WARC or WET file of the same crawl). `forget` drops the run, which could never resume.
 */
async function checkWat(file: string, options: WatImportOptions, forget: () => void): Promise<void> {
  const progress = options.onProgress ?? (() => {});
  const source = openWarc(file);
  let records = 0;
  let pages = 0;
  try {
    for await (const record of source.records) {
      records++;
      if (pages === 0 && record.type === 'metadata' && extractWatPage(record.block) !== null) pages++;
      if (records % 1000 === 0) progress('check WAT (bytes)', source.bytesRead(), source.size);
    }
    if (records === 0) throw new ImportError(`${file}: the file is empty; nothing was imported`);
    if (pages === 0) throw new ImportError(`${file}: not a WAT file: none of its ${records} WARC records describes a crawled page; nothing was imported`);
  } catch (error) {
    forget();
    if (error instanceof ImportError && !error.message.startsWith(file)) throw new WarcFormatError(`${file}: ${error.message}; nothing was imported`);
    throw error;
  }
  progress('check WAT (bytes)', source.size, source.size);
}

/** Drops a run that never wrote (its file was refused). */
function forgetRun(raw: ResearchStore['raw'], runId: number): void {
  raw.prepare('DELETE FROM import_runs WHERE id = ?').run(runId);
}

/** Reads the records after the committed ones, writing their links in batches. */
async function readRecords(file: string, options: WatImportOptions, run: ImportRun, result: WatImportResult): Promise<void> {
  const raw = options.store.raw;
  const now = options.now ?? Date.now;
  const batchSize = options.batchSize ?? 500;
  const progress = options.onProgress ?? (() => {});
  const source = openWarc(file);
  const writer = new LinkWriter(raw);
  let index = 0;
  let batch: ExtractedPage[] = [];
  const commit = () => {
    raw.transaction(() => {
      for (const page of batch) {
        const sourcePage = writer.ensurePage(page.url, page.date);
        if (!sourcePage) continue;
        result.pages++;
        const reason = lostReason(page);
        // A page not found holds no links any more, whatever its error page links to.
        const links = reason === 'Page not found (404)' ? [] : page.links;
        for (const link of links) {
          const target = writer.ensurePage(link.url, page.date);
          if (!target || target.id === sourcePage.id) {
            result.skippedLinks++;
            continue;
          }
          const written = writer.upsert({
            source: sourcePage,
            target,
            anchor: link.anchor,
            alt: link.alt,
            type: link.type,
            nofollow: link.nofollow,
            firstSeen: page.date,
            lastSeen: page.date,
            deletedOn: null,
          });
          if (written) result.links++;
          else result.skippedLinks++;
        }
        // The links this crawl found are now seen on its day or later; the page's others are gone.
        if (reason) writer.markLost(sourcePage, page.date, reason);
      }
      recordBatch(raw, run, index, now());
    })();
    batch = [];
    progress('read WAT (bytes)', source.bytesRead(), source.size);
    if (options.signal?.aborted) throw options.signal.reason ?? new Error('import aborted');
  };
  for await (const warcRecord of source.records as AsyncGenerator<WarcRecord>) {
    index++;
    if (index <= run.recordsDone) continue;
    result.records++;
    if (warcRecord.type === 'metadata') {
      const page = extractWatPage(warcRecord.block);
      if (page) batch.push(page);
    }
    if (index - run.recordsDone >= 1 && index % batchSize === 0) commit();
  }
  commit();
  progress('read WAT (bytes)', source.size, source.size);
  result.created = writer.counts.created;
  result.updated = writer.counts.updated + writer.counts.unchanged;
  result.newRootDomains = writer.counts.newRootDomains;
  result.newPages = writer.counts.newPages;
  result.lost = writer.counts.lost;
  raw.transaction(() => {
    // Rankings follow links: only a file that changed some makes the stored rank indexes stale.
    if (result.links > 0 || result.lost > 0) deleteStoredRankIndexes(raw);
    raw.prepare("INSERT OR IGNORE INTO world_meta (key, value) VALUES ('state', 'ready'), ('origin', 'import')").run();
  })();
  markRead(raw, run, now());
}
