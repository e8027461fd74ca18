/**
 * A local stand-in for a provider API, started by a test: answers each request with the
 * next scripted answer (or the default), records what it was sent, and can hold a request
 * without answering (a timeout) or hold every answer until the test lets them go (hold()). Nothing here reaches the internet. The provider fakes
 * (majestic.ts, moz.ts, dataForSeoBacklinks.ts; see index.ts) are this server with a default
 * answer in the provider's format.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Recorded {
  method: string;
  url: URL;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface Answer {
  status?: number;
  json?: unknown;
  headers?: Record<string, string>;
  /** Never answer (the client's deadline must end the call). */
  hang?: boolean;
  /** A body sent as is (not JSON), e.g. an HTML error page. */
  raw?: string;
}

export interface FakeUpstreamOptions {
  /** Milliseconds every answer waits before it is sent (a provider's latency; bench:realmode). */
  latencyMs?: number;
}

export interface FakeUpstream {
  url: string;
  requests: Recorded[];
  /** Answers the next requests with these, in order, before falling back to the default. */
  script(...answers: Answer[]): void;
  /** The answer once the script is spent; a function sees the request. */
  setDefault(answer: Answer | ((req: Recorded) => Answer)): void;
  /**
   * Holds every answer (recorded, not sent) until the returned function is called: a purchase
   * kept in flight while a test brings a second asker to it.
   */
  hold(): () => void;
  close(): Promise<void>;
}

export async function startFakeUpstream(options: FakeUpstreamOptions = {}): Promise<FakeUpstream> {
  const requests: Recorded[] = [];
  const queue: Answer[] = [];
  let fallback: Answer | ((req: Recorded) => Answer) = { status: 500, json: { error: 'no answer scripted' } };
  const held = new Set<http.ServerResponse>();
  let gate: Promise<void> | null = null;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const recorded: Recorded = {
        method: req.method ?? 'GET',
        url: new URL(req.url ?? '/', 'http://fake'),
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(recorded);
      const answer = queue.shift() ?? (typeof fallback === 'function' ? fallback(recorded) : fallback);
      if (answer.hang) {
        held.add(res);
        res.on('close', () => held.delete(res));
        return;
      }
      const send = () => {
        res.writeHead(answer.status ?? 200, { 'content-type': answer.raw !== undefined ? 'text/html' : 'application/json', ...answer.headers });
        res.end(answer.raw ?? JSON.stringify(answer.json ?? {}));
      };
      const later = () => (options.latencyMs ? setTimeout(send, options.latencyMs) : send());
      if (gate) void gate.then(later);
      else later();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    script: (...answers) => queue.push(...answers),
    setDefault: (answer) => {
      fallback = answer;
    },
    hold: () => {
      let open!: () => void;
      gate = new Promise<void>((resolve) => (open = resolve));
      return () => {
        gate = null;
        open();
      };
    },
    close: async () => {
      for (const res of held) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
