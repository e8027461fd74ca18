/**
 * Which SERP snapshots an account may open: those of SERPs it was shown, by a SERP-tool
 * lookup or by its rank tracking's position checks, for 90 days. Both grant access with
 * the same two lookups, so GET /serp-tool/serps/{serp_id}/snapshot has one rule to read.
 */
import type { Serp } from '../engine/search/index.js';
import { parseSnapshotId } from '../engine/search/index.js';
import { errors } from '../lib/errors.js';
import { DAY } from '../lib/clock.js';
import type { AccessPolicy } from './accessPolicy.js';
import type { LookupWrite } from './policyStore.js';

/** How long a SERP an account was shown can be opened as a snapshot. */
export const SNAPSHOT_LIFETIME_MS = 90 * DAY;
/** The account was shown this SERP (key: the SERP's `_id`). */
const SERP_LOOKUP = 'serp';
/** The account was shown this dated SERP (key: its `serp_snapshot_id`); data: how to rebuild it. */
const SNAPSHOT_LOOKUP = 'serp-snapshot';

/** How to rebuild the SERP a snapshot shows. */
export interface SnapshotQuery {
  kw: string;
  location_id: number;
  platform_id: 1 | 2;
  page: number;
  date: string;
}

/** Lookups that let an account open the snapshot of a SERP it was shown. */
export function snapshotLookups(serp: Pick<Serp, '_id' | 'kw' | 'location_id' | 'platform_id' | 'page' | 'serp_snapshot_id'>): LookupWrite[] {
  const query = { kw: serp.kw, location_id: serp.location_id, platform_id: serp.platform_id, page: serp.page };
  const out: LookupWrite[] = [{ kind: SERP_LOOKUP, key: serp._id, data: query, ttlMs: SNAPSHOT_LIFETIME_MS }];
  const parsed = serp.serp_snapshot_id ? parseSnapshotId(serp.serp_snapshot_id) : undefined;
  if (serp.serp_snapshot_id && parsed) {
    out.push({ kind: SNAPSHOT_LOOKUP, key: serp.serp_snapshot_id, data: { ...query, date: parsed.date }, ttlMs: SNAPSHOT_LIFETIME_MS });
  }
  return out;
}

/**
 * The SERP behind a snapshot id this account may open, or the contract's 404: `SERP
 * snapshot not found` for a malformed or bare id, `Serp not found` for a SERP the account
 * was never shown (or was shown more than 90 days ago).
 */
export async function openableSnapshot(policy: Pick<AccessPolicy, 'lookupData'>, accountId: string, serpSnapshotId: string): Promise<SnapshotQuery> {
  const parsed = parseSnapshotId(serpSnapshotId);
  if (!parsed) throw errors.notFound('SERP snapshot not found');
  if ((await policy.lookupData(accountId, SERP_LOOKUP, parsed.id)) === undefined) throw errors.notFound('Serp not found');
  const stored = (await policy.lookupData(accountId, SNAPSHOT_LOOKUP, serpSnapshotId)) as SnapshotQuery | undefined;
  if (!stored?.date) throw errors.notFound('SERP snapshot not found');
  return stored;
}
