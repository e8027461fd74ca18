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
 * A fresh import of a list replaces that list's earlier values. Both stream the file,
 * commit in batches with the resume state (importRuns.ts) and resume after a crash.
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

async function importLines(
  file: string,
  kind: 'cc-ranks' | 'tranco',
  options: PriorsImportOptions,
  parse: (line: string, header: string[] | null) => PriorRow | 'header' | null,
): Promise<PriorsImportResult> {
  const raw = options.store.raw;
  const now = options.now ?? Date.now;
  const batchSize = options.batchSize ?? 20_000;
  const progress = options.onProgress ?? (() => {});
  const run = beginRun(raw, kind, file, now(), options.restart);
  const result: PriorsImportResult = { alreadyImported: run.status === 'done', resumedFrom: run.recordsDone, lines: 0, domains: 0, skipped: 0 };
  if (run.status === 'done') return result;
  if (run.recordsDone === 0) {
    // A new list replaces the previous one of its kind.
    raw
      .prepare(
        kind === 'tranco'
          ? 'UPDATE domain_priors SET tranco_rank = NULL'
          : 'UPDATE domain_priors SET cc_harmonic_rank = NULL, cc_harmonic_value = NULL, cc_pagerank_rank = NULL, cc_pagerank_value = NULL',
      )
      .run();
  }
  // Several hosts of one domain (host ranks) keep the domain's best positions.
  const upsert = raw.prepare(`INSERT INTO domain_priors (domain, cc_harmonic_rank, cc_harmonic_value, cc_pagerank_rank, cc_pagerank_value, tranco_rank)
    VALUES (@domain, @harmonicRank, @harmonicValue, @pagerankRank, @pagerankValue, @trancoRank)
    ON CONFLICT (domain) DO UPDATE SET
      cc_harmonic_value = CASE WHEN excluded.cc_harmonic_rank < COALESCE(cc_harmonic_rank, 1e18) THEN excluded.cc_harmonic_value ELSE cc_harmonic_value END,
      cc_harmonic_rank = MIN(COALESCE(cc_harmonic_rank, 1e18), COALESCE(excluded.cc_harmonic_rank, 1e18)),
      cc_pagerank_value = CASE WHEN excluded.cc_pagerank_rank < COALESCE(cc_pagerank_rank, 1e18) THEN excluded.cc_pagerank_value ELSE cc_pagerank_value END,
      cc_pagerank_rank = MIN(COALESCE(cc_pagerank_rank, 1e18), COALESCE(excluded.cc_pagerank_rank, 1e18)),
      tranco_rank = MIN(COALESCE(tranco_rank, 1e18), COALESCE(excluded.tranco_rank, 1e18))`);
  const cleanup = raw.prepare(`UPDATE domain_priors SET
      cc_harmonic_rank = NULLIF(cc_harmonic_rank, 1e18), cc_pagerank_rank = NULLIF(cc_pagerank_rank, 1e18), tranco_rank = NULLIF(tranco_rank, 1e18)
    WHERE cc_harmonic_rank >= 1e18 OR cc_pagerank_rank >= 1e18 OR tranco_rank >= 1e18`);
  const source = openLines(file);
  let header: string[] | null = null;
  let index = 0;
  let batch: PriorRow[] = [];
  const commit = () => {
    raw.transaction(() => {
      for (const row of batch) {
        upsert.run({ harmonicRank: null, harmonicValue: null, pagerankRank: null, pagerankValue: null, trancoRank: null, ...row });
        result.domains++;
      }
      recordBatch(raw, run, index, now());
    })();
    batch = [];
    progress(`read ${kind} (bytes)`, source.bytesRead(), source.size);
    if (options.signal?.aborted) throw options.signal.reason ?? new Error('import aborted');
  };
  for await (const line of source.lines) {
    index++;
    // The header is read again on resume: later lines need its column order.
    const parsed = parse(line, header);
    if (parsed === 'header') {
      header = line.split('\t').map((c) => c.trim().toLowerCase());
      if (!CC_COLUMNS.every((c) => header!.includes(c)))
        throw new ImportError(`${file}: a Common Crawl ranks header needs the columns ${CC_COLUMNS.join(' ')}`);
      continue;
    }
    if (index <= run.recordsDone) continue;
    result.lines++;
    if (line.trim() === '') continue;
    if (parsed) batch.push(parsed);
    else result.skipped++;
    if (index % batchSize === 0) commit();
  }
  commit();
  cleanup.run();
  progress(`read ${kind} (bytes)`, source.size, source.size);
  finishRun(raw, run, now());
  return result;
}

export function importCcRanks(file: string, options: PriorsImportOptions): Promise<PriorsImportResult> {
  return importLines(file, 'cc-ranks', options, (line, header) => (line.startsWith('#') ? 'header' : parseCcRanksLine(line, header ?? undefined)));
}

export function importTranco(file: string, options: PriorsImportOptions): Promise<PriorsImportResult> {
  return importLines(file, 'tranco', options, (line) => parseTrancoLine(line));
}
