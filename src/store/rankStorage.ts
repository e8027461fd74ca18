/**
 * What every rank-tracking store operation stands on: the database, the account's storage
 * quota (checked inside a write's transaction) and the purge of expired deleted trackings.
 */
import type { Kysely } from 'kysely';
import type { StateDatabase } from './schema.js';
import { OBJECT_NAMES, StorageQuotaError, UNLIMITED, type RankObject, type RankStorageQuota } from './rankTrackingRecords.js';

export class RankStorage {
  constructor(
    protected readonly db: Kysely<StateDatabase>,
    /** The account's storage quota; read at each write, so a context's copy may be lowered. */
    private readonly quota: RankStorageQuota = UNLIMITED,
    /** Seconds a deleted tracking is kept before it is purged with everything it holds. */
    private readonly retentionSec = Infinity,
  ) {}

  /**
   * Purges the trackings deleted more than the retention ago (of one account, or of all),
   * with their keywords, checks, tags, annotations and reports (the foreign keys cascade).
   */
  async purgeDeleted(nowSec: number, accountId?: string, db: Kysely<StateDatabase> = this.db): Promise<number> {
    if (!Number.isFinite(this.retentionSec)) return 0;
    const res = await db
      .deleteFrom('rank_trackings')
      .where('is_deleted', '=', 1)
      .where('deleted_at', '<', nowSec - this.retentionSec)
      .$if(accountId !== undefined, (q) => q.where('account_id', '=', accountId!))
      .executeTakeFirst();
    return Number(res.numDeletedRows);
  }

  /**
   * Refuses a write that would take the account past its storage quota of any kind it adds.
   * Run inside the write's transaction after its first statement took the account's lock
   * (store/accountLock.ts; SQLite's IMMEDIATE transactions are one at a time): concurrent
   * writes, of this process or another, are counted one after the other and cannot both fit. Expired deleted trackings
   * are purged first, so their room is free at once.
   */
  protected async checkStorage(trx: Kysely<StateDatabase>, accountId: string, adding: Partial<Record<RankObject, number>>, nowSec: number): Promise<void> {
    const kinds = (Object.keys(adding) as RankObject[]).filter((k) => (adding[k] ?? 0) > 0 && Number.isFinite(this.quota[k]));
    if (kinds.length === 0) return;
    await this.purgeDeleted(nowSec, accountId, trx);
    for (const kind of kinds) {
      const { n } = await trx
        .selectFrom(OBJECT_NAMES[kind][0] as 'rank_tags')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('account_id', '=', accountId)
        .executeTakeFirstOrThrow();
      const stored = Number(n);
      if (stored + adding[kind]! > this.quota[kind]) throw new StorageQuotaError(kind, this.quota[kind], stored);
    }
  }

  /** Keywords the account tracks across its trackings not deleted. */
  async trackedKeywordCount(db: Kysely<StateDatabase>, accountId: string): Promise<number> {
    const { n } = await db
      .selectFrom('rank_tracked_keywords')
      .innerJoin('rank_trackings', 'rank_trackings.id', 'rank_tracked_keywords.tracking_id')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('rank_tracked_keywords.account_id', '=', accountId)
      .where('rank_trackings.is_deleted', '=', 0)
      .executeTakeFirstOrThrow();
    return Number(n);
  }
}
