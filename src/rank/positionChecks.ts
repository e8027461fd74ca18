/**
 * Daily position checks: every tracked keyword of every live tracking gets one check per
 * UTC day from the day it was added up to today. A day missed while the service was down
 * is caught up by the next run; the (keyword, day) primary key keeps it to one check per
 * day however many runs overlap, in this process or another.
 *
 * @example
 * const checks = new PositionChecks(ctx.state.db, ctx.sources.serp, ctx.policy);
 * await checks.runDueChecks(ctx.clock.now()); // → { keywords, checks }
 */
import type { ProcessMetrics } from '../metrics/processMetrics.js';
import { performance } from 'node:perf_hooks';
import type { Insertable, Kysely } from 'kysely';
import { parse as parseDomain } from 'tldts';
import { SourceError, type SerpSource } from '../engine/sources/index.js';
import type { Serp, SerpItem } from '../engine/search/serpTypes.js';
import { DAY } from '../lib/clock.js';
import type { AccessPolicy } from '../policy/accessPolicy.js';
import { snapshotLookups } from '../policy/serpSnapshots.js';
import { utcDay } from '../store/rankTracking.js';
import type { StateDatabase } from '../store/schema.js';
import type { RankChecksTable, RankTrackedKeywordsTable } from '../store/tables/rankTracking.js';

/** Longest stretch of check work between two turns of the event loop, so that a server keeps answering during a long catch-up. */
const MAX_SLICE_MS = 20;

export interface CheckRunResult {
  /** Keywords that were due. */
  keywords: number;
  /** Checks written (days caught up included). */
  checks: number;
}

/** A tracked keyword with days to check, and its tracking's domain. */
type DueKeyword = Pick<
  RankTrackedKeywordsTable,
  'id' | 'tracking_id' | 'account_id' | 'kw' | 'location_id' | 'platform_id' | 'first_day' | 'checked_through'
> & {
  domain: string;
};

/** The days after `after` (exclusive) or from `first` (inclusive), whichever is later, through `last`. */
export function daysToCheck(first: string, after: string | null, last: string): string[] {
  const startMs = Math.max(Date.parse(`${first}T00:00:00Z`), after === null ? -Infinity : Date.parse(`${after}T00:00:00Z`) + DAY);
  const endMs = Date.parse(`${last}T00:00:00Z`);
  const out: string[] = [];
  for (let ms = startMs; ms <= endMs; ms += DAY) out.push(utcDay(ms));
  return out;
}

/** Matches SERP items against a tracked domain: the host itself and its subdomains. */
export class DomainMatcher {
  private readonly root: string | null;
  private readonly isRoot: boolean;

  constructor(private readonly domain: string) {
    this.root = parseDomain(domain).domain;
    this.isRoot = this.root === domain;
  }

  matches(item: SerpItem): boolean {
    if (!item.url || item.domain !== this.root) return false;
    if (this.isRoot) return true;
    let host: string;
    try {
      host = new URL(item.url).hostname.toLowerCase().replace(/^www\./, '');
    } catch {
      return false;
    }
    return host === this.domain || host.endsWith(`.${this.domain}`);
  }
}

/** The check of one keyword on one SERP: the domain's best organic URL, how many of its URLs rank, and what the page shows. */
export function checkOf(serp: Serp, matcher: DomainMatcher): Pick<RankChecksTable, 'position' | 'url' | 'visual' | 'features' | 'serp_snapshot_id'> {
  let best: SerpItem | undefined;
  let urls = 0;
  const features = new Set<string>();
  for (const item of serp.items) {
    if (item.type !== 'ORGANIC') features.add(item.type);
    else if (item.position !== undefined && item.position <= 100 && matcher.matches(item)) {
      best ??= item;
      urls++;
    }
  }
  return {
    position: best?.position ?? null,
    url: best?.url ?? null,
    visual: best
      ? JSON.stringify({ size: best.size, screenCoverage: best.screenCoverage, visPart: best.visPart, positionToFold: best.positionToFold, urls })
      : null,
    features: JSON.stringify([...features]),
    serp_snapshot_id: serp.serp_snapshot_id,
  };
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

export class PositionChecks {
  private running: Promise<CheckRunResult> | null = null;
  private readonly pending = new Set<Promise<unknown>>();

  constructor(
    private readonly db: Kysely<StateDatabase>,
    /** Where SERPs come from: the sandbox re-ranks any day; a provider answers for today. */
    private readonly serps: SerpSource,
    /** Where the tracking's account is granted the snapshots its checks show. */
    private readonly snapshotAccess: Pick<AccessPolicy, 'recordLookups'>,
    /** Counts checks written and keywords left due by a failed source (the process's metrics). */
    private readonly metrics?: Pick<ProcessMetrics, 'rankChecked'>,
  ) {}

  /**
   * Checks every due keyword up to the day of `nowMs`. A run already under way in this
   * process is joined rather than doubled; the work per call is only what is due.
   */
  runDueChecks(nowMs: number): Promise<CheckRunResult> {
    if (this.running) return this.running;
    this.running = this.run(nowMs).finally(() => {
      this.running = null;
    });
    return this.running;
  }

  /** Checks the given keywords now, in the background (new keywords); `idle()` waits for it. */
  checkSoon(keywordIds: readonly string[], nowMs: number): void {
    if (keywordIds.length === 0) return;
    const job = this.run(nowMs, keywordIds).catch(() => {
      // The scheduler's next run catches these keywords up.
    });
    this.pending.add(job);
    void job.finally(() => this.pending.delete(job));
  }

  /** Resolves when background checks started by `checkSoon` and the current run are done. */
  async idle(): Promise<void> {
    while (this.pending.size > 0 || this.running) {
      await Promise.all([...this.pending, this.running]);
    }
  }

  private async run(nowMs: number, only?: readonly string[]): Promise<CheckRunResult> {
    const today = utcDay(nowMs);
    const due = await this.dueKeywords(today, only);
    let checks = 0;
    let sliceStart = performance.now();
    const yieldIfLong = async () => {
      if (performance.now() - sliceStart < MAX_SLICE_MS) return;
      await turn();
      sliceStart = performance.now();
    };
    // Keywords sharing (kw, location, platform) share their SERPs: due rows come grouped.
    let groupKey = '';
    let groupSerps = new Map<string, Serp>();
    let groupFailed = false;
    for (const k of due) {
      const key = `${k.kw}\u0000${k.location_id}\u0000${k.platform_id}`;
      if (key !== groupKey) {
        groupKey = key;
        groupSerps = new Map();
        groupFailed = false;
      }
      // A source that failed for this SERP today leaves its keywords due: the next run retries.
      if (groupFailed) {
        this.metrics?.rankChecked('source_failed');
        continue;
      }
      const matcher = new DomainMatcher(k.domain);
      const rows: Insertable<RankChecksTable>[] = [];
      let latest: Serp | undefined;
      try {
        for (const day of daysToCheck(k.first_day, k.checked_through, today)) {
          // A provider cannot fetch a past day's page: a day missed while down stays without a check.
          if (!this.serps.pastDays && day !== today) continue;
          let serp = groupSerps.get(day);
          if (!serp) {
            serp = await this.serps.serp({ kw: k.kw, locationId: k.location_id, platform: k.platform_id as 1 | 2, page: 0, date: day });
            groupSerps.set(day, serp);
            await yieldIfLong();
          }
          rows.push({ keyword_id: k.id, day, tracking_id: k.tracking_id, checked_ms: nowMs, ...checkOf(serp, matcher) });
          latest = serp;
        }
      } catch (err) {
        if (!(err instanceof SourceError)) throw err;
        groupFailed = true;
        this.metrics?.rankChecked('source_failed');
        continue;
      }
      const written = await this.save(k, rows, today, latest, nowMs);
      this.metrics?.rankChecked('checked', written);
      checks += written;
      await yieldIfLong();
    }
    return { keywords: due.length, checks };
  }

  private async dueKeywords(today: string, only?: readonly string[]): Promise<DueKeyword[]> {
    const q = this.db
      .selectFrom('rank_tracked_keywords as k')
      .innerJoin('rank_trackings as t', 't.id', 'k.tracking_id')
      .select(['k.id', 'k.tracking_id', 't.account_id', 'k.kw', 'k.location_id', 'k.platform_id', 'k.first_day', 'k.checked_through', 't.domain'])
      .where('t.is_deleted', '=', 0)
      .where((eb) => eb.or([eb('k.checked_through', 'is', null), eb('k.checked_through', '<', today)]));
    if (only) {
      if (only.length === 0) return [];
      const out: DueKeyword[] = [];
      for (let i = 0; i < only.length; i += 500) out.push(...(await q.where('k.id', 'in', only.slice(i, i + 500)).execute()));
      return out.sort((a, b) => (a.kw < b.kw ? -1 : a.kw > b.kw ? 1 : a.location_id - b.location_id || a.platform_id - b.platform_id));
    }
    return q.orderBy('k.kw').orderBy('k.location_id').orderBy('k.platform_id').execute();
  }

  /**
   * Writes a keyword's checks and moves its mark; a day already checked by another run
   * stays as it was. The tracking's account may open the snapshot of the latest SERP (the
   * one the tracked keyword's detail shows), granted in the same transaction: the earlier
   * days of a catch-up are never shown as a snapshot id, so they grant nothing.
   */
  private async save(k: DueKeyword, rows: Insertable<RankChecksTable>[], today: string, latest: Serp | undefined, nowMs: number): Promise<number> {
    return this.db.transaction().execute(async (trx) => {
      // Removed while its SERPs were being built: nothing to record.
      const live = await trx.selectFrom('rank_tracked_keywords').select('id').where('id', '=', k.id).executeTakeFirst();
      if (!live) return 0;
      // On this transaction's connection: asking the pool for another while holding this one
      // hung the process once every connection was held by a save waiting so (issue 28).
      if (latest) await this.snapshotAccess.recordLookups(k.account_id, snapshotLookups(latest), nowMs, trx);
      let written = 0;
      for (let i = 0; i < rows.length; i += 200) {
        const res = await trx
          .insertInto('rank_checks')
          .values(rows.slice(i, i + 200))
          .onConflict((oc) => oc.columns(['keyword_id', 'day']).doNothing())
          .executeTakeFirst();
        written += Number(res.numInsertedOrUpdatedRows ?? 0);
      }
      await trx
        .updateTable('rank_tracked_keywords')
        .set({ checked_through: today })
        .where('id', '=', k.id)
        .where((eb) => eb.or([eb('checked_through', 'is', null), eb('checked_through', '<', today)]))
        .execute();
      return written;
    });
  }
}
