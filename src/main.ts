#!/usr/bin/env node
/**
 * The `quarry` command: serve the API, run workers, build the sandbox web, and manage
 * accounts, keys and plans.
 */
import { Command } from 'commander';
import { ConfigError, loadConfig, type Config } from './config.js';
import { unixSeconds } from './lib/clock.js';
import { PlanFileError } from './policy/plans.js';
import { POOLS } from './policy/pools.js';
import { closeStateContext, openStateContext, type StateContext } from './service.js';
import { BACKGROUND_BUSY_TIMEOUT_MS } from './store/database.js';
import { AccountError } from './accounts/accounts.js';
import { workerCommand } from './cli/workerCommand.js';
import { jobHandlers } from './workers.js';
import { importCommand, worldCommand } from './engine/world/commands.js';
import { DataDirInUseError } from './store/dataDir.js';
import { backupDataDir, BackupError, POSTGRES_DUMP_FILE } from './store/backup.js';
import { addFileImporters } from './cli/fileImports.js';
import { ImportError } from './engine/import/importError.js';
import { mcpCommand } from './mcp/stdio.js';
import { AnswerCommandError, answersCommand } from './cli/answersCommand.js';
import { ALL_ROLES, parseRoles, type Role } from './roles.js';

// Everything Quarry writes (databases, exports, keys, reports) is readable by its owner only.
process.umask(0o077);

function config(): Config {
  return loadConfig();
}

/** Runs a CLI action with the service's stores, turning operator mistakes into one clear line. */
async function withContext(fn: (ctx: StateContext) => Promise<void>): Promise<void> {
  // An operator's command answers no client: it waits out the server's and workers' writes.
  const ctx = await openStateContext(config(), { busyTimeoutMs: BACKGROUND_BUSY_TIMEOUT_MS });
  try {
    await fn(ctx);
  } finally {
    await closeStateContext(ctx);
  }
}

const program = new Command('quarry').description('Quarry: keyword, SERP and backlink research (Research API v3)');

program
  .command('serve')
  .description('start the HTTP API (builds the sandbox web on the first start), the embedded worker and the rank scheduler')
  .option('--roles <roles>', 'run only these roles: a comma-separated list of api, worker, scheduler', parseRoles, ALL_ROLES)
  .action(async (opts: { roles: ReadonlySet<Role> }) => {
    // Loaded only here: the HTTP stack is most of the startup time of the operator commands.
    const { serve } = await import('./serve.js');
    await serve(config(), opts.roles);
  });

program
  .command('scheduler')
  .description(
    'run the rank scheduler alone: daily rank checks and e-mail reports (one per data directory; in the scale mode one of any number runs them, the others stand by)',
  )
  .action(async () => {
    const { serve } = await import('./serve.js');
    await serve(config(), new Set<Role>(['scheduler']));
  });

program
  .command('backup')
  .argument('<dir>', 'a new or empty directory for the copy')
  .option('--without-exports', 'leave out the export files (their downloads then answer 404 after a restore)')
  .description(
    'copy the data directory consistently while the service runs (SQLite online backup) and, in the scale mode, pg_dump the state store into it; restore as docs/operations.md says',
  )
  .action(async (dir: string, opts: { withoutExports?: boolean }) => {
    const { dataDir, databaseUrl } = config();
    const started = Date.now();
    const report = await backupDataDir(dataDir, dir, { withoutExports: opts.withoutExports, databaseUrl });
    const dbs = [
      ...(report.postgresDumpBytes === undefined ? [] : [`PostgreSQL state store (${POSTGRES_DUMP_FILE}, ${report.postgresDumpBytes} bytes)`]),
      ...report.databases.map((d) => `${d.name} (${d.pages} pages)`),
    ].join(', ');
    console.log(`backed up ${dataDir} to ${dir} in ${((Date.now() - started) / 1000).toFixed(1)} s: ${dbs}; ${report.files} files, ${report.bytes} bytes`);
  });

program.addCommand(workerCommand((ctx) => jobHandlers(ctx)));
program.addCommand(worldCommand());
program.addCommand(addFileImporters(importCommand()));
program.addCommand(mcpCommand());
program.addCommand(answersCommand());

const accounts = program.command('accounts').description('manage accounts');
accounts
  .command('create')
  .requiredOption('--email <email>', 'the account owner’s email')
  .option('--plan <plan>', 'plan name (see `quarry plans`)', 'entry')
  .description('create an account and print its id and a new API key (shown once)')
  .action((opts: { email: string; plan: string }) =>
    withContext(async (ctx) => {
      const now = unixSeconds(Date.now());
      const account = await ctx.accounts.create(opts.email, opts.plan, now);
      const key = await ctx.accounts.createKey(account.id, now);
      console.log(`account ${account.id} (${account.email}, plan ${account.plan})`);
      console.log(`api key ${key.key}`);
      console.log('The key is shown once; Quarry keeps only its hash.');
    }),
  );
accounts
  .command('list')
  .description('list accounts')
  .action(() =>
    withContext(async (ctx) => {
      for (const a of await ctx.accounts.list()) {
        console.log(`${a.id}  ${a.email.padEnd(32)}  ${a.plan.padEnd(10)}  keys: ${a.keys}  created ${new Date(a.created_at * 1000).toISOString()}`);
      }
    }),
  );
accounts
  .command('set-plan')
  .argument('<account>', 'account id or email')
  .argument('<plan>', 'plan name')
  .description('move an account to another plan')
  .action((who: string, plan: string) =>
    withContext(async (ctx) => {
      const account = await ctx.accounts.find(who);
      if (!account) throw new AccountError(`no account ${who}`);
      await ctx.accounts.setPlan(account.id, plan);
      console.log(`account ${account.id} is now on plan ${plan}`);
    }),
  );

const keys = program.command('keys').description('manage API keys');
keys
  .command('create')
  .argument('<account>', 'account id or email')
  .option('--label <label>', 'a note to tell keys apart')
  .description('create a new API key for an account (shown once)')
  .action((who: string, opts: { label?: string }) =>
    withContext(async (ctx) => {
      const account = await ctx.accounts.find(who);
      if (!account) throw new AccountError(`no account ${who}`);
      const key = await ctx.accounts.createKey(account.id, unixSeconds(Date.now()), opts.label ?? null);
      console.log(`key ${key.id} for account ${account.id}`);
      console.log(`api key ${key.key}`);
    }),
  );
keys
  .command('list')
  .argument('<account>', 'account id or email')
  .description('list the keys of an account (prefixes only)')
  .action((who: string) =>
    withContext(async (ctx) => {
      const account = await ctx.accounts.find(who);
      if (!account) throw new AccountError(`no account ${who}`);
      for (const k of await ctx.accounts.listKeys(account.id)) {
        console.log(`${k.id}  ${k.prefix}…  ${k.label ?? ''}  ${k.revoked_at ? 'revoked' : 'active'}`);
      }
    }),
  );
keys
  .command('revoke')
  .argument('<key>', 'key id or the key itself')
  .description('revoke an API key')
  .action((key: string) =>
    withContext(async (ctx) => {
      const done = await ctx.accounts.revokeKey(key, unixSeconds(Date.now()));
      if (!done) throw new AccountError('no active key matches');
      console.log('key revoked');
    }),
  );

program
  .command('plans')
  .description('list the plans and their limits')
  .action(() =>
    withContext(async (ctx) => {
      for (const p of Object.values(ctx.plans)) {
        const pools = POOLS.map((pool) => `${pool}=${p.pools[pool]}`).join(' ');
        console.log(
          `${p.name}: ${pools} related-keywords-rows=${p.relatedKeywordsRows} competitor-keywords-rows=${p.competitorKeywordsRows} ` +
            `tracked-keywords=${p.trackedKeywords} gap-pages=${p.gapPagination ? 'yes' : 'no'} burst=${p.reqsPerShortPeriod}`,
        );
      }
    }),
  );

program.parseAsync(process.argv).catch((err: unknown) => {
  if (
    err instanceof ConfigError ||
    err instanceof PlanFileError ||
    err instanceof AccountError ||
    err instanceof DataDirInUseError ||
    err instanceof BackupError ||
    err instanceof ImportError ||
    err instanceof AnswerCommandError
  ) {
    console.error(`quarry: ${err.message}`);
    process.exit(2);
  }
  console.error(err);
  process.exit(1);
});
