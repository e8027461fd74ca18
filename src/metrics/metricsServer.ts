/**
 * GET /metrics of a process without the API role (`quarry worker`, `quarry scheduler`, `serve
 * --roles worker,scheduler`), on QUARRY_METRICS_PORT: in the scale mode each process has
 * metrics of its own (its job durations, its rank checks) and Prometheus scrapes every one.
 * A bare node:http server: one path, nothing else, no dependency on the HTTP edge. With
 * QUARRY_METRICS_TOKEN set it asks for that bearer token here too.
 */
import { timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ProcessMetrics } from './processMetrics.js';

export interface MetricsServer {
  /** The port it listens on (the one asked for, or the system's pick for 0). */
  port: number;
  close(): Promise<void>;
}

/** Whether an Authorization header carries `Bearer <token>` (compared in constant time). */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const m = typeof header === 'string' ? /^Bearer[ ]+(\S+)\s*$/i.exec(header) : null;
  if (!m) return false;
  const given = Buffer.from(m[1]);
  const wanted = Buffer.from(token);
  return given.length === wanted.length && timingSafeEqual(given, wanted);
}

export async function startMetricsServer(metrics: ProcessMetrics, port: number, host: string, token: string | null = null): Promise<MetricsServer> {
  const server = http.createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    if (token !== null && !bearerMatches(req.headers.authorization, token)) {
      res.writeHead(401, { 'content-type': 'text/plain', 'www-authenticate': 'Bearer realm="metrics"' }).end('unauthorized\n');
      return;
    }
    metrics.scrape().then(
      ({ text, contentType }) => res.writeHead(200, { 'content-type': contentType }).end(text),
      (err: unknown) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`metrics failed: ${String(err)}\n`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
