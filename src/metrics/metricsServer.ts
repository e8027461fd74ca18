/**
 * GET /metrics of a process without the API role (`quarry worker`, `quarry scheduler`, `serve
 * --roles worker,scheduler`), on QUARRY_METRICS_PORT: in the scale mode each process has
 * metrics of its own (its job durations, its rank checks) and Prometheus scrapes every one.
 * A bare node:http server: one path, nothing else, no dependency on the HTTP edge.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ProcessMetrics } from './processMetrics.js';

export interface MetricsServer {
  /** The port it listens on (the one asked for, or the system's pick for 0). */
  port: number;
  close(): Promise<void>;
}

export async function startMetricsServer(metrics: ProcessMetrics, port: number, host: string): Promise<MetricsServer> {
  const server = http.createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
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
