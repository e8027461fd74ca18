import * as crypto from 'node:crypto';
import { createHash, randomBytes } from 'node:crypto';

/** One-shot hashing (Node ≥ 20.12): about three times faster than createHash on short inputs. */
const oneShotHash = (crypto as { hash?: (algorithm: string, data: string | Buffer, encoding: 'hex') => string }).hash;

/** A new 24-lowercase-hex identifier (accounts, lists, jobs, ...). */
export function newId(): string {
  return randomBytes(12).toString('hex');
}

export function md5Hex(text: string): string {
  return createHash('md5').update(text).digest('hex');
}

export function sha256Hex(text: string | Buffer): string {
  // On every authenticated request (the key hash) and every paid one (the cache key).
  return oneShotHash ? oneShotHash('sha256', text, 'hex') : createHash('sha256').update(text).digest('hex');
}

export function isHexId(value: string, length = 24): boolean {
  return value.length === length && /^[0-9a-f]+$/.test(value);
}
