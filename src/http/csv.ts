/**
 * CSV answers: negotiation (a `.csv` suffix, `?ext=csv` or `Accept: text/csv`) and a real
 * `text/csv` attachment written with csv-stringify (streamed: see streamed.ts).
 */
import type { FastifyRequest } from 'fastify';

export function wantsCsv(req: FastifyRequest, pathSuffix: boolean): boolean {
  if (pathSuffix) return true;
  const ext = (req.query as { ext?: unknown } | undefined)?.ext;
  if (typeof ext === 'string' && ext.toLowerCase() === 'csv') return true;
  const accept = req.headers.accept ?? '';
  return /(^|,)\s*text\/csv\s*(;|,|$)/i.test(accept);
}

/** A filename safe inside a Content-Disposition header. */
export function safeFilename(name: string): string {
  const cleaned = name
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 80);
  return cleaned === '' ? 'export.csv' : cleaned.endsWith('.csv') ? cleaned : `${cleaned}.csv`;
}
