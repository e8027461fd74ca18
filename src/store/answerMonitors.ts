/**
 * The answer tool's objects in the state store (migration 0050): monitors, their prompts and
 * the results of their checks. Every read and write names the account, so another account's
 * monitor or prompt is as unknown as one that never existed. Plan limits (monitors and
 * prompts alive) and the storage quota (everything kept, deleted monitors included until
 * purged) are checked inside the write's transaction, so concurrent creates cannot pass them
 * together.
 */
import type { Kysely, Selectable, Transaction } from 'kysely';
import { newId } from '../lib/ids.js';
import type { StateDatabase } from './schema.js';
import type { AnswerMonitorsTable, AnswerPromptsTable, AnswerResultsTable } from './tables/answers.js';
import { lockAccount } from './accountLock.js';

export type MonitorRow = Selectable<AnswerMonitorsTable>;
export type PromptRow = Selectable<AnswerPromptsTable>;
export type ResultRow = Selectable<AnswerResultsTable>;

/** Display flags of the reference's settings, kept as set for the dashboard. */
export const DISPLAY_FLAGS = ['brand_perception_display', 'score_label_display', 'performance_cards_display', 'performance_summary_display'] as const;
export type DisplayFlags = Partial<Record<(typeof DISPLAY_FLAGS)[number], boolean>>;

/**
 * What one account may keep of the answer tool's objects, deleted monitors and their prompts
 * included until purged (README "Fair use"): far above any plan's live limits, so it binds
 * only an account that creates and deletes monitors in a loop.
 */
export const ANSWER_STORAGE_PER_ACCOUNT = { monitors: 1_000, prompts: 100_000 } as const;
/** Days a deleted monitor's history stays readable before it is purged. */
export const DELETED_MONITOR_RETENTION_DAYS = 30;

/** A plan limit of the answer tool refused a write: the pool it counts in, and nothing was written. */
export class AnswerLimitError extends Error {
  constructor(
    readonly pool: 'ai-watcher-monitors' | 'ai-watcher-prompts',
    readonly limit: number,
  ) {
    super(`Your plan allows ${limit} ${pool === 'ai-watcher-monitors' ? 'monitors' : 'prompts'} (the ${pool} pool); nothing was created`);
  }
}

/** The storage quota refused a write. */
export class AnswerStorageError extends Error {}

export interface NewMonitor {
  brand: string;
  brandVariations: string[];
  domain: string;
  locationId: number;
  languageId: number;
  platformId: number;
  models: number[];
}

export interface MonitorPatch {
  brand?: string;
  brandVariations?: string[];
  domain?: string;
  models?: number[];
  reportsActive?: number[];
  display?: DisplayFlags;
  statusNotifications?: boolean;
}

export interface Limits {
  monitors: number;
  prompts: number;
}

/** A prompt as given and its key: lower case, spaces collapsed (the same question asked twice is one prompt). */
export function promptKey(prompt: string): string {
  return prompt.normalize('NFC').trim().replace(/\s+/g, ' ').toLowerCase();
}

export const parseJsonList = <T>(text: string): T[] => {
  try {
    const v: unknown = JSON.parse(text);
    return Array.isArray(v) ? (v as T[]) : [];
  } catch {
    return [];
  }
};

export class AnswerMonitorStore {
  constructor(private readonly db: Kysely<StateDatabase>) {}

  /** Live monitors and their prompts: what the plan's pools count. */
  async liveCounts(accountId: string, db: Kysely<StateDatabase> | Transaction<StateDatabase> = this.db): Promise<{ monitors: number; prompts: number }> {
    const m = await db
      .selectFrom('answer_monitors')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('account_id', '=', accountId)
      .where('is_deleted', '=', 0)
      .executeTakeFirst();
    const p = await db
      .selectFrom('answer_prompts as p')
      .innerJoin('answer_monitors as m', 'm.id', 'p.monitor_id')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('p.account_id', '=', accountId)
      .where('m.is_deleted', '=', 0)
      .executeTakeFirst();
    return { monitors: Number(m?.n ?? 0), prompts: Number(p?.n ?? 0) };
  }

  private async storedCounts(trx: Transaction<StateDatabase>, accountId: string): Promise<{ monitors: number; prompts: number }> {
    const m = await trx
      .selectFrom('answer_monitors')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    const p = await trx
      .selectFrom('answer_prompts')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    return { monitors: Number(m?.n ?? 0), prompts: Number(p?.n ?? 0) };
  }

  private async checkRoom(trx: Transaction<StateDatabase>, accountId: string, limits: Limits, add: { monitors: number; prompts: number }): Promise<void> {
    const live = await this.liveCounts(accountId, trx);
    if (live.monitors + add.monitors > limits.monitors) throw new AnswerLimitError('ai-watcher-monitors', limits.monitors);
    if (live.prompts + add.prompts > limits.prompts) throw new AnswerLimitError('ai-watcher-prompts', limits.prompts);
    const stored = await this.storedCounts(trx, accountId);
    if (stored.monitors + add.monitors > ANSWER_STORAGE_PER_ACCOUNT.monitors || stored.prompts + add.prompts > ANSWER_STORAGE_PER_ACCOUNT.prompts) {
      throw new AnswerStorageError(
        `An account keeps at most ${ANSWER_STORAGE_PER_ACCOUNT.monitors} monitors and ${ANSWER_STORAGE_PER_ACCOUNT.prompts} prompts, deleted ones included until they are purged ${DELETED_MONITOR_RETENTION_DAYS} days after their deletion`,
      );
    }
  }

  /** Creates a monitor with its (distinct) prompts, or refuses whole. */
  async create(
    accountId: string,
    monitor: NewMonitor,
    prompts: readonly string[],
    limits: Limits,
    nowSec: number,
  ): Promise<{ monitor: MonitorRow; prompts: PromptRow[] }> {
    const distinct = distinctPrompts(prompts);
    return this.db.transaction().execute(async (trx) => {
      // The counts and the insert under the account's lock (store/accountLock.ts).
      await lockAccount(trx, accountId);
      await this.checkRoom(trx, accountId, limits, { monitors: 1, prompts: distinct.length });
      const row: MonitorRow = {
        id: newId(),
        account_id: accountId,
        brand: monitor.brand,
        brand_variations: JSON.stringify(monitor.brandVariations),
        domain: monitor.domain,
        location_id: monitor.locationId,
        language_id: monitor.languageId,
        platform_id: monitor.platformId,
        models: JSON.stringify(monitor.models),
        // A weekly report by default, as a new rank tracking gets one.
        reports_active: JSON.stringify([1]),
        display: JSON.stringify({}),
        status_notifications: 1,
        share_token: newId() + newId(),
        created_at: nowSec,
        is_deleted: 0,
        deleted_at: null,
        pending_changes: 0,
        last_check_ms: null,
        last_check_failed: 0,
      };
      await trx.insertInto('answer_monitors').values(row).execute();
      const rows = distinct.map((p) => ({ id: newId(), monitor_id: row.id, account_id: accountId, prompt: p.prompt, prompt_key: p.key, created_at: nowSec }));
      for (let i = 0; i < rows.length; i += 200)
        await trx
          .insertInto('answer_prompts')
          .values(rows.slice(i, i + 200))
          .execute();
      return { monitor: row, prompts: rows };
    });
  }

  /** The account's monitors, newest first; deleted ones too (their collection is stopped). */
  list(accountId: string): Promise<MonitorRow[]> {
    return this.db.selectFrom('answer_monitors').selectAll().where('account_id', '=', accountId).orderBy('created_at', 'desc').orderBy('id').execute();
  }

  /** The account's monitor; a deleted one only when asked for. */
  get(accountId: string, id: string, opts: { withDeleted?: boolean } = {}): Promise<MonitorRow | undefined> {
    let q = this.db.selectFrom('answer_monitors').selectAll().where('account_id', '=', accountId).where('id', '=', id);
    if (!opts.withDeleted) q = q.where('is_deleted', '=', 0);
    return q.executeTakeFirst();
  }

  /** A monitor opened by its share token (read-only views without a key). */
  byShareToken(id: string, token: string): Promise<MonitorRow | undefined> {
    return this.db.selectFrom('answer_monitors').selectAll().where('id', '=', id).where('share_token', '=', token).executeTakeFirst();
  }

  /** Every live monitor (the checks' round). */
  live(): Promise<MonitorRow[]> {
    return this.db.selectFrom('answer_monitors').selectAll().where('is_deleted', '=', 0).orderBy('created_at').orderBy('id').execute();
  }

  /** Applies a settings change; a change to what is asked or looked for waits for the next check. */
  async update(monitor: MonitorRow, patch: MonitorPatch): Promise<MonitorRow> {
    const set: Partial<MonitorRow> = {};
    if (patch.brand !== undefined) set.brand = patch.brand;
    if (patch.brandVariations !== undefined) set.brand_variations = JSON.stringify(patch.brandVariations);
    if (patch.domain !== undefined) set.domain = patch.domain;
    if (patch.models !== undefined) set.models = JSON.stringify(patch.models);
    if (patch.reportsActive !== undefined) set.reports_active = JSON.stringify(patch.reportsActive);
    const display = Object.entries(patch.display ?? {}).filter(([, v]) => v !== undefined);
    if (display.length > 0) set.display = JSON.stringify({ ...(JSON.parse(monitor.display) as DisplayFlags), ...Object.fromEntries(display) });
    if (patch.statusNotifications !== undefined) set.status_notifications = patch.statusNotifications ? 1 : 0;
    const changed = (['brand', 'brand_variations', 'domain', 'models'] as const).some((k) => set[k] !== undefined && set[k] !== monitor[k]);
    if (changed) set.pending_changes = 1;
    if (Object.keys(set).length > 0) await this.db.updateTable('answer_monitors').set(set).where('id', '=', monitor.id).execute();
    return { ...monitor, ...set };
  }

  /** Marks the monitor's check: when, whether a model failed, and that pending changes are applied. */
  async markChecked(monitorId: string, nowMs: number, failed: boolean, appliedChanges: boolean): Promise<void> {
    await this.db
      .updateTable('answer_monitors')
      .set({ last_check_ms: nowMs, last_check_failed: failed ? 1 : 0, ...(appliedChanges ? { pending_changes: 0 } : {}) })
      .where('id', '=', monitorId)
      .execute();
  }

  /** Soft delete: collection stops; prompts and results stay readable until the purge. */
  async softDelete(accountId: string, id: string, nowSec: number): Promise<boolean> {
    const res = await this.db
      .updateTable('answer_monitors')
      .set({ is_deleted: 1, deleted_at: nowSec })
      .where('account_id', '=', accountId)
      .where('id', '=', id)
      .where('is_deleted', '=', 0)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) > 0;
  }

  /** Deletes monitors deleted more than the retention ago, with their prompts, results and deliveries. */
  async purgeDeleted(nowSec: number): Promise<number> {
    const cutoff = nowSec - DELETED_MONITOR_RETENTION_DAYS * 86_400;
    const res = await this.db.deleteFrom('answer_monitors').where('is_deleted', '=', 1).where('deleted_at', '<=', cutoff).executeTakeFirst();
    return Number(res.numDeletedRows ?? 0);
  }

  promptsOf(monitorId: string): Promise<PromptRow[]> {
    return this.db.selectFrom('answer_prompts').selectAll().where('monitor_id', '=', monitorId).orderBy('created_at').orderBy('id').execute();
  }

  /** The account's prompt with its monitor (a deleted monitor's too: its history is readable). */
  async prompt(accountId: string, promptId: string): Promise<{ prompt: PromptRow; monitor: MonitorRow } | undefined> {
    const prompt = await this.db.selectFrom('answer_prompts').selectAll().where('account_id', '=', accountId).where('id', '=', promptId).executeTakeFirst();
    if (!prompt) return undefined;
    const monitor = await this.get(accountId, prompt.monitor_id, { withDeleted: true });
    return monitor ? { prompt, monitor } : undefined;
  }

  /** A prompt opened by its monitor's share token. */
  async sharedPrompt(promptId: string, token: string): Promise<{ prompt: PromptRow; monitor: MonitorRow } | undefined> {
    const prompt = await this.db.selectFrom('answer_prompts').selectAll().where('id', '=', promptId).executeTakeFirst();
    if (!prompt) return undefined;
    const monitor = await this.byShareToken(prompt.monitor_id, token);
    return monitor ? { prompt, monitor } : undefined;
  }

  /** Prompts per monitor. */
  async promptCounts(monitorIds: readonly string[]): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    if (monitorIds.length === 0) return out;
    const rows = await this.db
      .selectFrom('answer_prompts')
      .select(['monitor_id', (eb) => eb.fn.countAll<number>().as('n')])
      .where('monitor_id', 'in', [...monitorIds])
      .groupBy('monitor_id')
      .execute();
    for (const r of rows) out.set(r.monitor_id, Number(r.n));
    return out;
  }

  /** Adds the prompts the monitor does not ask yet; refused whole past the plan's prompts. */
  async addPrompts(monitor: MonitorRow, prompts: readonly string[], limits: Limits, nowSec: number): Promise<{ added: PromptRow[]; skipped: number }> {
    const distinct = distinctPrompts(prompts);
    return this.db.transaction().execute(async (trx) => {
      await lockAccount(trx, monitor.account_id);
      const known = new Set(
        (await trx.selectFrom('answer_prompts').select('prompt_key').where('monitor_id', '=', monitor.id).execute()).map((r) => r.prompt_key),
      );
      const fresh = distinct.filter((p) => !known.has(p.key));
      await this.checkRoom(trx, monitor.account_id, limits, { monitors: 0, prompts: fresh.length });
      const rows = fresh.map((p) => ({
        id: newId(),
        monitor_id: monitor.id,
        account_id: monitor.account_id,
        prompt: p.prompt,
        prompt_key: p.key,
        created_at: nowSec,
      }));
      for (let i = 0; i < rows.length; i += 200)
        await trx
          .insertInto('answer_prompts')
          .values(rows.slice(i, i + 200))
          .execute();
      return { added: rows, skipped: prompts.length - rows.length };
    });
  }

  /** Deletes the account's prompts among `ids` (others are ignored), with their results. */
  async deletePrompts(accountId: string, ids: readonly string[]): Promise<number> {
    let deleted = 0;
    for (let i = 0; i < ids.length; i += 500) {
      const res = await this.db
        .deleteFrom('answer_prompts')
        .where('account_id', '=', accountId)
        .where('id', 'in', ids.slice(i, i + 500))
        .executeTakeFirst();
      deleted += Number(res.numDeletedRows ?? 0);
    }
    return deleted;
  }

  /** Results of a monitor (or of one prompt) in a day range, optionally of some models. */
  results(filter: { monitorId?: string; promptId?: string; from: string; to: string; models?: readonly number[] }): Promise<ResultRow[]> {
    let q = this.db.selectFrom('answer_results').selectAll().where('day', '>=', filter.from).where('day', '<=', filter.to);
    if (filter.monitorId !== undefined) q = q.where('monitor_id', '=', filter.monitorId);
    if (filter.promptId !== undefined) q = q.where('prompt_id', '=', filter.promptId);
    if (filter.models && filter.models.length > 0) q = q.where('model_id', 'in', [...filter.models]);
    return q.orderBy('day').orderBy('model_id').orderBy('prompt_id').execute();
  }

  /** Days with results, per monitor. */
  async datesOf(monitorIds: readonly string[]): Promise<Map<string, string[]>> {
    const out = new Map<string, string[]>();
    if (monitorIds.length === 0) return out;
    const rows = await this.db
      .selectFrom('answer_results')
      .select(['monitor_id', 'day'])
      .distinct()
      .where('monitor_id', 'in', [...monitorIds])
      .orderBy('day')
      .execute();
    for (const r of rows) out.set(r.monitor_id, [...(out.get(r.monitor_id) ?? []), r.day]);
    return out;
  }
}

function distinctPrompts(prompts: readonly string[]): { prompt: string; key: string }[] {
  const seen = new Map<string, string>();
  for (const p of prompts) {
    const key = promptKey(p);
    if (key !== '' && !seen.has(key)) seen.set(key, p.trim().replace(/\s+/g, ' '));
  }
  return [...seen].map(([key, prompt]) => ({ key, prompt }));
}
