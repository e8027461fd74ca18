/**
 * Input rules of the answer tool that a schema cannot express, and the monitor lookups every
 * route shares: a model id must be one this deployment can ask, a domain must name a real
 * host, a monitor or prompt of another account is as unknown as one that never existed (404),
 * and a share token opens the read-only views without a key.
 */
import type { FastifyInstance } from 'fastify';
import type { Account } from '../../accounts/accounts.js';
import { answerServices } from '../../answers/answerService.js';
import { errors } from '../../lib/errors.js';
import { AnswerLimitError, AnswerStorageError, type MonitorRow, type PromptRow } from '../../store/answerMonitors.js';
import { requireTrackedDomain } from '../rank/trackingInput.js';

/** Distinct model ids, each one this deployment offers; 422 naming the field otherwise. */
export function requireModels(app: FastifyInstance, ids: readonly number[], name = 'models'): number[] {
  const known = new Set(answerServices(app.quarry).models.map((m) => m.id));
  if (ids.length === 0 || ids.some((id) => !known.has(id))) throw errors.invalidParameter(name);
  return [...new Set(ids)];
}

/** The brand's site as stored: a host without `www.`. */
export const requireMonitorDomain = (raw: string): string => requireTrackedDomain(raw);

/** A brand or variation as stored: trimmed, inner spaces collapsed; empty → 422. */
export function cleanName(raw: string, name: string): string {
  const v = raw.trim().replace(/\s+/g, ' ');
  if (v === '') throw errors.invalidParameter(name);
  return v;
}

/** Distinct variations, none empty, none the brand itself. */
export function cleanVariations(raw: readonly string[], brand: string): string[] {
  const out = new Map<string, string>();
  for (const v of raw) {
    const clean = cleanName(v, 'brandVariations');
    if (clean.toLowerCase() !== brand.toLowerCase()) out.set(clean.toLowerCase(), clean);
  }
  return [...out.values()];
}

/** `1,2,10` → model ids (undefined when absent); anything else is 422. */
export function parseModelFilter(raw: string | undefined): number[] | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const parts = raw.split(',').map((p) => p.trim());
  if (parts.some((p) => !/^\d{1,7}$/.test(p))) throw errors.invalidParameter('models');
  return [...new Set(parts.map(Number))];
}

/** The answer tool's refusals as the contract's errors: a plan limit is 429 CreditLimit (no retry_after), the storage quota 422. */
export function answerError(err: unknown): never {
  if (err instanceof AnswerLimitError) throw errors.creditLimit(err.pool, err.message);
  if (err instanceof AnswerStorageError) throw errors.listLimit(err.message);
  throw err;
}

/**
 * The monitor of the path: the account's (deleted ones for reads that show history), or
 * without an account the one its share token opens; otherwise 404 (401 with neither).
 */
export async function requireMonitor(
  app: FastifyInstance,
  account: Account | null | undefined,
  id: string,
  opts: { withDeleted?: boolean; shareToken?: string } = {},
): Promise<MonitorRow> {
  const { store } = answerServices(app.quarry);
  let monitor: MonitorRow | undefined;
  if (account) monitor = await store.get(account.id, id, opts);
  else if (opts.shareToken) monitor = await store.byShareToken(id, opts.shareToken);
  else throw errors.auth();
  if (!monitor) throw errors.notFound('Monitor not found');
  return monitor;
}

/** The prompt of the path with its monitor, by the same rules. */
export async function requirePrompt(
  app: FastifyInstance,
  account: Account | null | undefined,
  id: string,
  shareToken?: string,
): Promise<{ prompt: PromptRow; monitor: MonitorRow }> {
  const { store } = answerServices(app.quarry);
  let found: { prompt: PromptRow; monitor: MonitorRow } | undefined;
  if (account) found = await store.prompt(account.id, id);
  else if (shareToken) found = await store.sharedPrompt(id, shareToken);
  else throw errors.auth();
  if (!found) throw errors.notFound('Prompt not found');
  return found;
}
