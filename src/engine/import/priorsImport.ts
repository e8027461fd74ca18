/**
 * Imports public domain rank lists as priors (research table `domain_priors`):
 *
 * - Common Crawl web graph ranks (`cc-main-…-domain-ranks.txt.gz`, `…-host-ranks.txt.gz`):
 *   tab-separated, a `#harmonicc_pos #harmonicc_val #pr_pos #pr_val #host_rev [#n_hosts]`
 *   header, one reversed domain or host a line (`com.example.www`), ordered by harmonic
 *   centrality (Common Crawl, "Host- and Domain-Level Web Graphs"). Hosts roll up to their
 *   registrable domain, keeping the best positions of its hosts.
 * - the Tranco list (`top-1m.csv`: `rank,domain`, no header; Le Pochat et al. 2019,
 *   "Tranco: A Research-Oriented Top Sites Ranking Hardened Against Manipulation", NDSS).
 *
 * A fresh import of a list replaces that list's earlier values, once the whole file has been
 * read (staged rows, see importLines). Both stream the file, commit in batches with the resume
 * state (importRuns.ts) and resume after a crash.
 * The priors feed the authority service (authority/authorityService.ts, priorAuthority).
 */
import type { ResearchStore } from '../researchStore.js';
import { parseTarget } from '../links/urls.js';
import { ImportError } from './importError.js';
import { openLines } from './lineReader.js';
import { beginRun, finishRun, recordBatch } from './importRuns.js';

export interface PriorsImportOptions {
  store: ResearchStore;
  now?: () => number;
  batchSize?: number;
  restart?: boolean;
  onProgress?: (stage: string, done: number, total: number) => void;
  signal?: AbortSignal;
}

export interface PriorsImportResult {
  alreadyImported: boolean;
  resumedFrom: number;
  lines: number;
  domains: number;
  skipped: number;
}

interface PriorRow {
  domain: string;
  harmonicRank?: number;
  harmonicValue?: number;
  pagerankRank?: number;
  pagerankValue?: number;
  trancoRank?: number;
}

/** `com.example.www` → `www.example.com`. */
export function unreverseHost(reversed: string): string {
  return reversed.split('.').reverse().join('.');
}

function registrable(host: string): string | null {
  if (host.length === 0 || host.length > 253 || /[^a-z0-9.-]/i.test(host)) return null;
  return parseTarget(host)?.rootDomain ?? null;
}

const CC_COLUMNS = ['#harmonicc_pos', '#harmonicc_val', '#pr_pos', '#pr_val', '#host_rev'];

/** Parses lines of a CC ranks file (`columns` from its header, else the published order). */
export function parseCcRanksLine(line: string, columns: string[] = CC_COLUMNS): PriorRow | null {
  const cells = line.split('\t');
  const at = (name: string) => cells[columns.indexOf(name)];
  const numbers = ['#harmonicc_pos', '#harmonicc_val', '#pr_pos', '#pr_val'].map((name) => Number(at(name)));
  if (numbers.some((n) => !Number.isFinite(n)) || numbers[0] < 1 || numbers[2] < 1 || !Number.isInteger(numbers[0]) || !Number.isInteger(numbers[2]))
    return null;
  const domain = registrable(unreverseHost((at('#host_rev') ?? '').trim().toLowerCase()));
  if (!domain) return null;
  return { domain, harmonicRank: numbers[0], harmonicValue: numbers[1], pagerankRank: numbers[2], pagerankValue: numbers[3] };
}

export function parseTrancoLine(line: string): PriorRow | null {
  const match = /^\s*(\d+)\s*,\s*([^,\s]+)\s*$/.exec(line);
  if (!match) return null;
  const rank = Number(match[1]);
  const domain = registrable(match[2].toLowerCase());
  return rank >= 1 && Number.isSafeInteger(rank) && domain ? { domain, trancoRank: rank } : null;
}

/** What an importer reads: its kind, the columns it fills and how it reads a line. */
interface ListFormat {
  kind: 'cc-ranks' | 'tranco';
  /** The columns of domain_priors the list fills (cleared when a new list replaces it). */
  columns: readonly string[];
  /** The staged row's upsert: several hosts of one domain keep its best positions. */
  merge: string;
  /** Refuses a file whose first line is not the list's (a header, or a first entry); answers the header's columns. */
  check(file: string, firstLine: string): string[] | null;
  parse(line: string, header: string[] | null): PriorRow | null;
}

const CC_FORMAT: ListFormat = {
  kind: 'cc-ranks',
  columns: ['cc_harmonic_rank', 'cc_harmonic_value', 'cc_pagerank_rank', 'cc_pagerank_value'],
  merge: `cc_harmonic_value = CASE WHEN excluded.cc_harmonic_rank < cc_harmonic_rank THEN excluded.cc_harmonic_value ELSE cc_harmonic_value END,
      cc_harmonic_rank = MIN(cc_harmonic_rank, excluded.cc_harmonic_rank),
      cc_pagerank_value = CASE WHEN excluded.cc_pagerank_rank < cc_pagerank_rank THEN excluded.cc_pagerank_value ELSE cc_pagerank_value END,
      cc_pagerank_rank = MIN(cc_pagerank_rank, excluded.cc_pagerank_rank)`,
  check(file, firstLine) {
    const header = firstLine.split('\t').map((c) => c.trim().toLowerCase());
    if (!firstLine.startsWith('#') || !CC_COLUMNS.every((c) => header.includes(c)))
      throw new ImportError(
        `${file}: not a Common Crawl ranks file: its first line must be the header ${CC_COLUMNS.join(' ')} (tab-separated), found "${preview(firstLine)}"; nothing was imported`,
      );
    return header;
  },
  parse: (line, header) => parseCcRanksLine(line, header ?? undefined),
};

const TRANCO_FORMAT: ListFormat = {
  kind: 'tranco',
  columns: ['tranco_rank'],
  merge: 'tranco_rank = MIN(tranco_rank, excluded.tranco_rank)',
  check(file, firstLine) {
    if (parseTrancoLine(firstLine) === null)
      throw new ImportError(`${file}: not a Tranco list: its lines must be "rank,domain" (no header), found "${preview(firstLine)}"; nothing was imported`);
    return null;
  },
  parse: (line) => parseTrancoLine(line),
};

/** Most of a line shown in a message. */
function preview(line: string): string {
  const shown = line.replace(/\t/g, '\\t');
  return shown.length > 80 ? `${shown.slice(0, 80)}…` : shown;
}

/**
 * Reads a rank list into the run's staging rows (committed in batches with the resume state),
 * and only once the file has been read to its end replaces the list's columns of domain_priors
 * with them, in one transaction. A file of another format is refused at its first line, one
 * that ends early (a truncated gzip) or is mostly unreadable is refused at its end: either way
 * the priors stay as they were.
 */
async function importLines(file: string, format: ListFormat, options: PriorsImportOptions): Promise<PriorsImportResult> {
  const raw = options.store.raw;
  const now = options.now ?? Date.now;
  const batchSize = options.batchSize ?? 20_000;
  const progress = options.onProgress ?? (() => {});
  const { kind } = format;
  const run = beginRun(raw, kind, file, now(), options.restart);
  const result: PriorsImportResult = { alreadyImported: run.status === 'done', resumedFrom: run.recordsDone, lines: 0, domains: 0, skipped: 0 };
  if (run.status === 'done') return result;
  // A fresh start (or --restart) drops what an earlier attempt staged.
  if (run.recordsDone === 0) raw.prepare('DELETE FROM domain_priors_staging WHERE run_id = ?').run(run.id);
  const columns = ['domain', ...format.columns];
  const stage = raw.prepare(`INSERT INTO domain_priors_staging (run_id, ${columns.join(', ')})
    VALUES (@runId, ${columns.map((c) => `@${c}`).join(', ')})
    ON CONFLICT (run_id, domain) DO UPDATE SET ${format.merge}`);
  const source = openLines(file);
  let header: string[] | null = null;
  let first = true;
  let index = 0;
  // Lines of this attempt that are not blank (`result.skipped` of them are no entry of the list).
  let read = 0;
  let batch: PriorRow[] = [];
  const commit = () => {
    raw.transaction(() => {
      for (const row of batch) {
        stage.run({
          runId: run.id,
          domain: row.domain,
          cc_harmonic_rank: row.harmonicRank ?? null,
          cc_harmonic_value: row.harmonicValue ?? null,
          cc_pagerank_rank: row.pagerankRank ?? null,
          cc_pagerank_value: row.pagerankValue ?? null,
          tranco_rank: row.trancoRank ?? null,
        });
        result.domains++;
      }
      recordBatch(raw, run, index, now());
    })();
    batch = [];
    progress(`read ${kind} (bytes)`, source.bytesRead(), source.size);
    if (options.signal?.aborted) throw options.signal.reason ?? new Error('import aborted');
  };
  try {
    await readAll();
  } catch (error) {
    // A file that cannot be read to its end will not resume: what it staged is dropped.
    if (error instanceof ImportError) forgetRun(raw, run.id);
    throw error;
  }
  progress(`read ${kind} (bytes)`, source.size, source.size);
  return result;

  async function readAll(): Promise<void> {
    for await (const line of source.lines) {
      index++;
      if (first && line.trim() !== '') {
        // The first line decides the format, on a resume too (the header gives the column order).
        first = false;
        header = format.check(file, line);
        if (header) continue;
      }
      if (index <= run.recordsDone) continue;
      result.lines++;
      if (line.trim() === '') continue;
      read++;
      const parsed = format.parse(line, header);
      if (parsed) batch.push(parsed);
      else result.skipped++;
      if (index % batchSize === 0) commit();
    }
    if (first) throw new ImportError(`${file}: the file is empty; nothing was imported`);
    commit();
    const staged = raw.prepare('SELECT COUNT(*) FROM domain_priors_staging WHERE run_id = ?').pluck().get(run.id) as number;
    if (staged === 0 || result.skipped > read / 2) {
      throw new ImportError(
        `${file}: ${result.skipped} of ${read} lines are not ${kind === 'tranco' ? 'rank,domain lines' : 'Common Crawl rank lines'}; the priors were left as they were`,
      );
    }
    // The whole file is read: the new list replaces the old one at once.
    raw.transaction(() => {
      raw.prepare(`UPDATE domain_priors SET ${format.columns.map((c) => `${c} = NULL`).join(', ')}`).run();
      raw
        .prepare(
          `INSERT INTO domain_priors (${columns.join(', ')}) SELECT ${columns.join(', ')} FROM domain_priors_staging WHERE run_id = ?
         ON CONFLICT (domain) DO UPDATE SET ${format.columns.map((c) => `${c} = excluded.${c}`).join(', ')}`,
        )
        .run(run.id);
      raw.prepare('DELETE FROM domain_priors_staging WHERE run_id = ?').run(run.id);
      finishRun(raw, run, now());
    })();
  }
}

/** Drops a run and its staged rows. */
function forgetRun(raw: ResearchStore['raw'], runId: number): void {
  raw.transaction(() => {
    raw.prepare('DELETE FROM domain_priors_staging WHERE run_id = ?').run(runId);
    raw.prepare('DELETE FROM import_runs WHERE id = ?').run(runId);
  })();
}

export function importCcRanks(file: string, options: PriorsImportOptions): Promise<PriorsImportResult> {
  return importLines(file, CC_FORMAT, options);
}

export function importTranco(file: string, options: PriorsImportOptions): Promise<PriorsImportResult> {
  return importLines(file, TRANCO_FORMAT, options);
}
