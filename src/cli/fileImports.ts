/**
 * The streaming file importers as `quarry import` subcommands, next to `keywords` and
 * `links` (engine/world/commands.ts): `wat`, `cc-ranks`, `tranco`, `search-console` (into a
 * rank tracking of the state store). Each shows progress on stderr and prints one summary
 * line per file on stdout; an interrupted import resumes when run again on the same file.
 * Here above engine/ and rank/, since `search-console` writes rank/'s tables.
 */
import { Command } from 'commander';
import { loadConfig } from '../config.js';
import { openConfiguredStateStore } from '../store/database.js';
import { importSearchConsole, parsePeriod } from '../rank/searchConsoleImport.js';
import { systemClock } from '../lib/clock.js';
import { progressBars } from '../lib/progress.js';
import type { Engine } from '../engine/index.js';
import { importSession } from '../engine/live/importSession.js';
import { importWat } from '../engine/import/watImport.js';
import { importCcRanks, importTranco, type PriorsImportOptions, type PriorsImportResult } from '../engine/import/priorsImport.js';

/** Runs an import on the data directory's live research store (engine/live/importSession.ts). */
function withStore<T>(dataDir: string | undefined, fn: (engine: Engine) => Promise<T>): Promise<T> {
  return importSession(loadConfig(dataDir ? { ...process.env, QUARRY_DATA_DIR: dataDir } : process.env), fn);
}

export function addFileImporters(command: Command): Command {
  command
    .command('wat <files...>')
    .description('import links from Common Crawl WAT files (*.warc.wat.gz) and update link metrics; resumes an interrupted file')
    .option('--data-dir <dir>', 'data directory')
    .option('--restart', 'import files already imported again, from their start')
    .action(async (files: string[], options: { dataDir?: string; restart?: boolean }) => {
      await withStore(options.dataDir, async (engine) => {
        for (const [n, file] of files.entries()) {
          const bar = progressBars();
          try {
            // One metrics update after the last file covers the domains every file touched.
            const updateMetrics = n === files.length - 1;
            const r = await importWat(file, {
              store: engine.store,
              asOf: systemClock.now(),
              restart: options.restart,
              onProgress: bar.listener,
              updateMetrics,
            });
            bar.stop();
            if (r.alreadyImported) {
              console.log(`${file}: already imported (use --restart to import it again)`);
              continue;
            }
            console.log(
              `${file}: ${r.records} records${r.resumedFrom ? ` (resumed after ${r.resumedFrom})` : ''}, ${r.pages} pages, ${r.links} links ` +
                `(${r.created} new, ${r.updated} seen before, ${r.skippedLinks} skipped), ${r.lost} lost; ${r.newRootDomains} new root domains, ${r.newPages} new pages; ` +
                (r.metrics
                  ? `metrics: ${r.metrics.mode}${r.metrics.reason ? ` (${r.metrics.reason})` : ''}, ${r.metrics.linksRead} links read`
                  : 'metrics: updated after the last file'),
            );
          } catch (error) {
            bar.stop();
            throw error;
          }
        }
      });
    });
  const priors = (name: string, description: string, run: (file: string, options: PriorsImportOptions) => Promise<PriorsImportResult>) =>
    command
      .command(`${name} <files...>`)
      .description(description)
      .option('--data-dir <dir>', 'data directory')
      .option('--restart', 'import files already imported again, from their start')
      .action(async (files: string[], options: { dataDir?: string; restart?: boolean }) => {
        await withStore(options.dataDir, async (engine) => {
          for (const file of files) {
            const bar = progressBars();
            try {
              const r = await run(file, { store: engine.store, restart: options.restart, onProgress: bar.listener });
              bar.stop();
              console.log(
                r.alreadyImported
                  ? `${file}: already imported (use --restart to import it again)`
                  : `${file}: ${r.lines} lines${r.resumedFrom ? ` (resumed after ${r.resumedFrom})` : ''}, ${r.domains} domain priors, ${r.skipped} lines skipped`,
              );
            } catch (error) {
              bar.stop();
              throw error;
            }
          }
        });
      });
  command
    .command('search-console <files...>')
    .description(
      'import Search Console performance exports (Queries CSV, the report ZIP, Search Analytics API JSON) into a rank tracking: positions as rank checks, clicks as visits',
    )
    .requiredOption('--tracking <id>', 'the rank tracking (rank tool) whose keywords the queries are')
    .option('--period <from..to>', 'the days an export without dates covers, e.g. 2026-10-01..2026-10-28 (a ZIP export names them in its Dates sheet)')
    .option('--dimensions <list>', "API answers: the request's dimensions in order, e.g. query,date (default: told by each key's form)")
    .option('--data-dir <dir>', 'data directory')
    .option('--restart', 'import files already imported again, from their start')
    .action(async (files: string[], options: { tracking: string; period?: string; dimensions?: string; dataDir?: string; restart?: boolean }) => {
      const config = loadConfig(options.dataDir ? { ...process.env, QUARRY_DATA_DIR: options.dataDir } : process.env);
      const period = options.period === undefined ? undefined : parsePeriod(options.period);
      // The service's state store: SQLite in the data directory, or PostgreSQL in the scale mode.
      const state = await openConfiguredStateStore(config);
      try {
        for (const file of files) {
          const bar = progressBars();
          try {
            const r = await importSearchConsole(file, {
              db: state.db,
              trackingId: options.tracking,
              period,
              dimensions: options.dimensions?.split(','),
              restart: options.restart,
              onProgress: bar.listener,
            });
            bar.stop();
            console.log(
              r.alreadyImported
                ? `${file}: already imported into this tracking (use --restart to import it again)`
                : `${file} (${r.format}${r.period ? `, ${r.period.from}..${r.period.to}` : ''}): ${r.rows} rows${r.resumedFrom ? ` (resumed after ${r.resumedFrom})` : ''}, ` +
                    `${r.matched} of tracked keywords (${r.checksCreated} checks added, ${r.checksUpdated} given clicks), ${r.untracked} of other queries, ${r.skipped} skipped`,
            );
          } catch (error) {
            bar.stop();
            throw error;
          }
        }
      } finally {
        await state.close();
      }
    });
  priors('cc-ranks', 'import Common Crawl web graph ranks (*-domain-ranks.txt.gz, *-host-ranks.txt.gz) as authority and TopRank priors', importCcRanks);
  priors('tranco', 'import a Tranco top-sites list (rank,domain CSV) as a popularity prior', importTranco);
  return command;
}
