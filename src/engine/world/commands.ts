/**
 * Operator commands for the research store: `world build|info` and
 * `import keywords|links`. The project's `main.ts` mounts them:
 * `program.addCommand(worldCommand()); program.addCommand(importCommand());`
 */
import fs from 'node:fs';
import { Command, InvalidArgumentError } from 'commander';
import { ConfigError, loadConfig, WORLD_SETTINGS, type WorldSetting } from '../../config.js';
import { systemClock } from '../../lib/clock.js';
import { ensureWorld, openEngine, researchStoreFile } from '../index.js';
import { importKeywordsCsv } from '../import/keywordsImport.js';
import { importLinksCsv } from '../import/linksImport.js';
import { progressBars } from '../../lib/progress.js';
import { fetchedResearchFiles, generationOf, liveResearchFile } from '../live/generation.js';
import { importSession } from '../live/importSession.js';

function integer(value: string): number {
  if (!/^-?\d+$/.test(value)) throw new InvalidArgumentError('must be an integer');
  return Number(value);
}

function size(value: string): WorldSetting {
  if (!(WORLD_SETTINGS as readonly string[]).includes(value)) throw new InvalidArgumentError(`must be one of ${WORLD_SETTINGS.join(', ')}`);
  return value as WorldSetting;
}

export function worldCommand(): Command {
  const world = new Command('world').description('the sandbox web (demo data)');
  world
    .command('build')
    .description('build the sandbox web into <data-dir>/research.db')
    .option('--size <size>', `world size (${WORLD_SETTINGS.join(', ')}; none: an empty store, no sandbox)`, size)
    .option('--seed <seed>', 'generator seed', integer)
    .option('--data-dir <dir>', 'data directory (default QUARRY_DATA_DIR or ./data)')
    .option('--force', 'rebuild even when a world is already there')
    .action(async (options: { size?: WorldSetting; seed?: number; dataDir?: string; force?: boolean }) => {
      const config = loadConfig(options.dataDir ? { ...process.env, QUARRY_DATA_DIR: options.dataDir } : process.env);
      const file = researchStoreFile(config.dataDir);
      if (options.force) {
        // Generations fetched from PostgreSQL (scale mode) go too: they would be loaded before the rebuilt file.
        const files = [file, ...fetchedResearchFiles(file).map((f) => f.file)];
        for (const f of files) for (const suffix of ['', '-wal', '-shm']) fs.rmSync(`${f}${suffix}`, { force: true });
      }
      const bar = progressBars();
      const started = Date.now();
      try {
        const built = await ensureWorld({
          dataDir: config.dataDir,
          size: options.size ?? config.worldSize,
          seed: options.seed ?? config.worldSeed,
          clock: systemClock,
          onProgress: bar.listener,
        });
        bar.stop();
        if (!built) console.log(`${file} already holds a built world (use --force to rebuild)`);
        else {
          console.log(
            `built ${file}: ${built.keywords} keywords, ${built.rootDomains} root domains, ${built.pages} pages, ${built.links} links in ${((Date.now() - started) / 1000).toFixed(1)} s`,
          );
          // Scale mode: a rebuild replaces the deployment's research data, as an import does (else
          // every process would go on fetching the published generation, this one included).
          if (config.databaseUrl) await importSession(config, async () => undefined, { publishAsIs: true, file });
        }
      } catch (error) {
        bar.stop();
        throw error;
      }
    });
  world
    .command('info')
    .description('print the metadata and row counts of the research store (and its content hash with --hash)')
    .option('--data-dir <dir>', 'data directory')
    .option('--hash', 'compute the content hash (reads the whole store)')
    .action(async (options: { dataDir?: string; hash?: boolean }) => {
      const config = loadConfig(options.dataDir ? { ...process.env, QUARRY_DATA_DIR: options.dataDir } : process.env);
      const engine = await openEngine({ file: liveResearchFile(researchStoreFile(config.dataDir)), clock: systemClock });
      try {
        if (options.hash) engine.computeContentHash();
        console.log(
          JSON.stringify({ built: engine.isBuilt(), ...engine.metadata(), generation: generationOf(engine.store.raw), counts: engine.counts() }, null, 2),
        );
      } finally {
        await engine.close();
      }
    });
  world
    .command('publish')
    .description(
      "scale mode: publish this data directory's research store to PostgreSQL as a new generation, which every process fetches and loads (imports do this themselves)",
    )
    .option('--data-dir <dir>', 'data directory')
    .action(async (options: { dataDir?: string }) => {
      const config = loadConfig(options.dataDir ? { ...process.env, QUARRY_DATA_DIR: options.dataDir } : process.env);
      if (!config.databaseUrl) throw new ConfigError('publishing needs the scale mode: set QUARRY_DATABASE_URL (and QUARRY_REDIS_URL)');
      await importSession(config, async () => undefined, { publishAsIs: true });
    });
  return world;
}

export function importCommand(): Command {
  const command = new Command('import').description('import real data into the research store');
  command
    .command('keywords <file>')
    .description('import a Google Ads Keyword Planner CSV export')
    .requiredOption('--location <id>', 'Google Ads location id the searches refer to (0 = global)', integer)
    .requiredOption('--language <id>', 'Google Ads language id (1000 English, ...)', integer)
    .option('--data-dir <dir>', 'data directory')
    .action(async (file: string, options: { location: number; language: number; dataDir?: string }) => {
      const config = loadConfig(options.dataDir ? { ...process.env, QUARRY_DATA_DIR: options.dataDir } : process.env);
      const result = await importSession(config, (engine) =>
        importKeywordsCsv(file, { locationId: options.location, languageId: options.language, store: engine.store }),
      );
      console.log(
        `imported ${result.imported} keywords (${result.created} new, ${result.updated} updated, ${result.skipped} skipped, ${result.months} monthly values)`,
      );
    });
  command
    .command('links <file>')
    .description('import links (source URL, target URL, anchor, nofollow, first seen, last seen) and recompute link metrics')
    .option('--data-dir <dir>', 'data directory')
    .action(async (file: string, options: { dataDir?: string }) => {
      const config = loadConfig(options.dataDir ? { ...process.env, QUARRY_DATA_DIR: options.dataDir } : process.env);
      const result = await importSession(config, (engine) => importLinksCsv(file, { store: engine.store, asOf: systemClock.now() }));
      console.log(
        `imported ${result.imported} links (${result.created} new, ${result.updated} updated, ${result.skipped} skipped); ` +
          `${result.newRootDomains} new root domains, ${result.newPages} new pages; metrics recomputed over ${result.recomputedLinks} links`,
      );
    });
  return command;
}
