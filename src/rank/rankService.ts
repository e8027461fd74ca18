/**
 * The rank tool's services of one running Quarry: the store, the daily position checks and
 * the email reports, shared by the routes and the scheduler (one instance per context, so
 * that a route's background checks and the scheduler's runs join instead of doubling).
 *
 * @example
 * const scheduler = startRankScheduler(ctx, { logger: app.log });
 * // ... on shutdown
 * await scheduler.stop();
 */
import type { QuarryContext } from '../context.js';
import { DELETED_TRACKING_RETENTION_DAYS } from '../policy/fairUse.js';
import { unixSeconds } from '../lib/clock.js';
import { RankTrackingStore } from '../store/rankTracking.js';
import { PositionChecks } from './positionChecks.js';
import { RankReports } from './rankReports.js';
import { follow } from '../engine/live/liveResearch.js';

export interface RankServices {
  store: RankTrackingStore;
  checks: PositionChecks;
  reports: RankReports;
}

export type RankContext = Pick<QuarryContext, 'config' | 'clock' | 'state' | 'search' | 'sources' | 'locations' | 'accounts' | 'policy' | 'fairUse'> &
  Partial<Pick<QuarryContext, 'metrics'>>;

const services = new WeakMap<object, RankServices>();

export function rankServices(ctx: RankContext): RankServices {
  let s = services.get(ctx);
  if (!s) {
    const store = new RankTrackingStore(ctx.state.db, ctx.fairUse.storage, DELETED_TRACKING_RETENTION_DAYS * 86_400);
    // The SERP source of the live research data, not the one current when the service was built.
    s = {
      store,
      checks: new PositionChecks(
        ctx.state.db,
        follow(() => ctx.sources.serp),
        ctx.policy,
        ctx.metrics,
      ),
      reports: new RankReports(ctx),
    };
    services.set(ctx, s);
  }
  return s;
}

/** How often the scheduler looks for due checks and reports; each run does only what is due. */
export const RANK_SCHEDULER_EVERY_MS = 60_000;

export interface RankScheduler {
  /** Runs one round now (checks, then reports) and resolves when it is done. */
  tick(): Promise<void>;
  /** Stops the timer, waits for a round and background checks under way, closes the mail transport. */
  stop(): Promise<void>;
}

interface Logger {
  error(obj: object, msg: string): void;
}

/**
 * Who runs the rounds when several processes have the scheduler role (scale mode): the one
 * holding the lease; the others stand by and try again every LEADERSHIP_POLL_MS, so one
 * takes over soon after the holder dies.
 */
export interface SchedulerLeadership {
  /** Whether this process runs the rounds now (takes the lease if it is free). */
  tryAcquire(): Promise<boolean>;
  release(): Promise<void>;
}

/** How often a standby scheduler tries to take the lease. */
export const LEADERSHIP_POLL_MS = 5_000;

/**
 * Starts the periodic rank round in `quarry serve`: every `everyMs` the checks due up to
 * today, then the reports whose period ended, then the purge of expired deleted trackings. The first round runs at once, so days missed
 * while the service was down are caught up on start.
 */
/** Another tool's daily work run by the same scheduler (the answer tool's checks): one leader runs both. */
export interface ScheduledRound {
  run(nowMs: number): Promise<void>;
  /** Resolves when work it started in the background is done (on stop). */
  idle(): Promise<void>;
}

export function startRankScheduler(
  ctx: RankContext,
  options: {
    everyMs?: number;
    logger?: Logger;
    leadership?: SchedulerLeadership;
    onLeading?: (leading: boolean) => void;
    rounds?: readonly ScheduledRound[];
  } = {},
): RankScheduler {
  const { store, checks, reports } = rankServices(ctx);
  const { leadership } = options;
  let current: Promise<void> | null = null;
  let stopped = false;
  let leading: boolean | undefined = leadership === undefined ? true : undefined;
  /** Whether this process runs the rounds: always without a leadership, else while it holds the lease. */
  const lead = async (): Promise<boolean> => {
    if (!leadership) return true;
    const now = await leadership.tryAcquire().catch((err: unknown) => {
      options.logger?.error({ err }, 'rank scheduler lease check failed');
      return false;
    });
    if (now !== leading) options.onLeading?.(now);
    leading = now;
    return now;
  };
  const tick = (): Promise<void> => {
    if (current) return current;
    current = (async () => {
      try {
        if (stopped || !(await lead())) return;
        await checks.runDueChecks(ctx.clock.now());
        await reports.runDueReports(ctx.clock.now());
        // Deleted trackings past their retention go, with all they hold (and their storage quota).
        await store.purgeDeleted(unixSeconds(ctx.clock.now()));
        for (const round of options.rounds ?? []) await round.run(ctx.clock.now());
      } catch (err) {
        options.logger?.error({ err }, 'rank scheduler round failed');
      }
    })().finally(() => {
      current = null;
    });
    return current;
  };
  const timer = setInterval(() => {
    if (!stopped) void tick();
  }, options.everyMs ?? RANK_SCHEDULER_EVERY_MS);
  timer.unref();
  // A standby tries more often than the rounds come, so a takeover does not wait a round.
  const standby = leadership
    ? setInterval(() => {
        if (!stopped && !leading) void tick();
      }, LEADERSHIP_POLL_MS)
    : undefined;
  standby?.unref();
  void tick();
  return {
    tick,
    async stop() {
      stopped = true;
      clearInterval(timer);
      clearInterval(standby);
      if (current) await current;
      await checks.idle();
      for (const round of options.rounds ?? []) await round.idle();
      await reports.close();
      await leadership?.release();
    },
  };
}
