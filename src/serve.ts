/** `quarry serve`: the long-running service. */
import type { Config } from './config.js';
import { buildApp } from './http/app.js';
import { createContext, DEMO_KEY_FILE, ensureDemoAccount } from './service.js';
import path from 'node:path';

/** How often expired cache entries, burst events and lookups are swept. */
const SWEEP_EVERY_MS = 10 * 60 * 1000;

export async function serve(config: Config): Promise<void> {
  const ctx = await createContext(config);
  const demoKey = await ensureDemoAccount(ctx);
  const app = await buildApp(ctx, { logger: { level: config.logLevel } });

  const sweep = setInterval(() => ctx.policy.store.sweep(ctx.clock.now()), SWEEP_EVERY_MS);
  sweep.unref();

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    clearInterval(sweep);
    await app.close();
    await ctx.state.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));

  await app.listen({ port: config.port, host: config.host });
  const base = `${config.publicUrl}/v3`;
  const keyFile = path.join(config.dataDir, DEMO_KEY_FILE);
  // With QUARRY_PORT=0 the system picks the port; the public URL cannot know it, so say it.
  const bound = app.server.address();
  const listening =
    bound !== null && typeof bound === 'object' ? `http://${bound.family === 'IPv6' ? `[${bound.address}]` : bound.address}:${bound.port}` : String(bound);
  const lines = [
    '',
    `Quarry is serving the Research API v3 at ${base}`,
    `  listening on ${listening}`,
    `  reference: ${config.publicUrl}/docs   openapi: ${base}/openapi.json`,
    demoKey
      ? `  demo account created; its API key (shown once, also in ${keyFile}):\n    ${demoKey}`
      : `  demo API key: see ${keyFile} (if the demo account was created here)`,
    '  try:',
    `    curl -H "x-access-token: $(cat ${keyFile})" ${base}/keyword-tool/limits`,
    `    curl -H "x-access-token: $(cat ${keyFile})" "${base}/shared/locations/2840"`,
    '',
  ];
  process.stdout.write(lines.join('\n') + '\n');
}
