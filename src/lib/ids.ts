import { createHash, randomBytes } from 'node:crypto';

/** A new 24-lowercase-hex identifier (accounts, lists, jobs, ...). */
export function newId(): string {
  return randomBytes(12).toString('hex');
}

export function md5Hex(text: string): string {
  return createHash('md5').update(text).digest('hex');
}

export function sha256Hex(text: string | Buffer): string {
  return createHash('sha256').update(text).digest('hex');
}

export function isHexId(value: string, length = 24): boolean {
  return value.length === length && /^[0-9a-f]+$/.test(value);
}
