/**
 * Every backlink operation reads `links` through an index (researchStore.ts LINK_INDEXES),
 * never by scanning the table: on `small` a scan reads ~3 M rows (seconds per request), on a
 * tiny world it goes unnoticed, so the plans are asserted here. The statements are the ones
 * the services really prepare (recorded on their connection, with their parameters: the
 * planner weighs bound values with STAT4), asked for their plan with EXPLAIN QUERY PLAN.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { LinksService } from '../../../src/engine/links/linksService.js';
import { AuthorityService } from '../../../src/engine/authority/authorityService.js';
import { SitesService } from '../../../src/engine/sites/sitesService.js';
import type { BacklinkFilter } from '../../../src/engine/links/backlinkTypes.js';
import { LINK_INDEXES } from '../../../src/engine/researchStore.js';
import { FakeClock } from '../../../src/lib/clock.js';
import { tinyWorldFile, TINY_WORLD_AS_OF } from '../../support/world.js';

interface Recorded {
  sql: string;
  params: unknown[];
}

/** Methods of a statement that run it (their arguments are its parameters). */
const RUNS = new Set(['all', 'get', 'iterate', 'run']);
/** Methods of a statement that answer the statement itself. */
const CHAINS = new Set(['raw', 'pluck', 'expand', 'safeIntegers', 'bind']);

/** A connection whose statements are recorded with the parameters they run with. */
function recording(raw: Database.Database, log: Recorded[]): Database.Database {
  const wrap = (statement: Database.Statement, sql: string): Database.Statement => {
    const proxy: Database.Statement = new Proxy(statement, {
      get(target, prop) {
        const value = Reflect.get(target, prop, target) as unknown;
        if (typeof value !== 'function') return value;
        if (RUNS.has(String(prop)))
          return (...params: unknown[]) => {
            log.push({ sql, params });
            return (value as (...a: unknown[]) => unknown).apply(target, params);
          };
        if (CHAINS.has(String(prop)))
          return (...args: unknown[]) => {
            (value as (...a: unknown[]) => unknown).apply(target, args);
            return proxy;
          };
        return (value as (...a: unknown[]) => unknown).bind(target);
      },
    });
    return proxy;
  };
  return new Proxy(raw, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target) as unknown;
      if (prop === 'prepare') return (sql: string) => wrap(target.prepare(sql), sql);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

let raw: Database.Database;
const log: Recorded[] = [];
let links: LinksService;
let sites: SitesService;
before(async () => {
  raw = new Database(await tinyWorldFile(1), { readonly: true });
  const recorded = recording(raw, log);
  const clock = new FakeClock(TINY_WORLD_AS_OF);
  links = new LinksService(recorded, clock);
  sites = new SitesService(recorded, links, new AuthorityService(recorded));
});
after(() => raw.close());

/**
 * The plan's lines about the `links` table (by its name or the services' alias `l`); a
 * subquery named `l` (a co-routine or materialised view, its own lines searching `links`) is
 * not the table.
 */
function linksPlan(statement: Recorded): string[] {
  const rows = raw.prepare(`EXPLAIN QUERY PLAN ${statement.sql}`).all(...statement.params) as { detail: string }[];
  const details = rows.map((r) => r.detail);
  const subqueries = new Set(details.map((d) => d.match(/^(?:CO-ROUTINE|MATERIALIZE) (\w+)/)?.[1]).filter(Boolean));
  return details.filter((d) => {
    const table = d.match(/^(?:SCAN|SEARCH) (\w+)/)?.[1];
    return (table === 'links' || table === 'l') && !subqueries.has(table);
  });
}

/** Runs `operation`, then asserts that each of its statements reading `links` searches an index; answers the indexes used. */
function assertIndexed(name: string, operation: () => void): Set<string> {
  log.length = 0;
  operation();
  const used = new Set<string>();
  const reading = log.filter((s) => /\blinks\b/.test(s.sql));
  assert.ok(reading.length > 0, `${name}: reads links`);
  for (const statement of reading) {
    for (const line of linksPlan(statement)) {
      // "SEARCH … USING [COVERING] INDEX x (col=?…)" or by rowid; a SCAN (of the table or of a
      // whole index) reads every link.
      assert.match(line, /^SEARCH (links|l) USING (COVERING INDEX \w+|INDEX \w+|INTEGER PRIMARY KEY) \(/, `${name}: ${line}\n  in ${statement.sql}`);
      const index = line.match(/INDEX (\w+)/)?.[1];
      if (index && index.startsWith('links_')) used.add(index);
    }
  }
  return used;
}

const TARGETS = [
  ['RootDomain', 'openpedia.org'],
  ['SubDomain', 'www.openpedia.org'],
] as const;

const FILTERS: [string, BacklinkFilter][] = [
  ['all', {}],
  ['new', { source: 1 }],
  ['lost', { source: 2 }],
  ['one per domain', { linksPerDomain: 1 }],
  ['one per domain, live', { linksPerDomain: 1, liveLinks: true }],
  ['new, one per domain', { source: 1, linksPerDomain: 1 }],
  ['anchor text', { targetAnchorText: 'the' }],
  ['nofollow, image', { noFollow: true, flagImageLink: true }],
  ['citation flow', { minCitationFlow: 10 }],
  ['top rank', { maxTopRank: 1000 }],
];

test('every backlink list, count, stream and export of a domain, host or page searches a links index', () => {
  const used = new Set<string>();
  const pageUrl = (links.backlinks('openpedia.org', {}, { offset: 0, limit: 1 })!.links[0] as { target: string }).target;
  for (const [type, url] of [...TARGETS, ['URL', pageUrl] as const]) {
    const target = links.resolve(url, type)!;
    assert.equal(target.type, type);
    for (const [name, filter] of FILTERS) {
      const label = `${type} ${name}`;
      for (const index of assertIndexed(`${label} page`, () => links.backlinksOf(target, filter, { offset: 100, limit: 50 }))) used.add(index);
      for (const index of assertIndexed(`${label} count`, () => links.countBacklinks(target, { ...filter, linkType: filter.linkType ?? 'href' }))) {
        used.add(index);
      }
      for (const index of assertIndexed(`${label} stream`, () => [...links.streamBacklinks(target, filter, 200)])) used.add(index);
      for (const index of assertIndexed(`${label} export`, () => {
        const csv = links.backlinkCsv(target, filter, 200);
        csv.close();
      })) {
        used.add(index);
      }
    }
  }
  // The lists use the strongest-first indexes of each level and the new and lost ones.
  for (const name of ['links_target_root', 'links_target_host', 'links_target_page', 'links_target_root_first_seen', 'links_target_root_lost']) {
    assert.ok(used.has(name), `${name} is used (${[...used].join(', ')})`);
  }
});

test('a backlink by id, the backlink profile and the competitors search links indexes', () => {
  const first = links.backlinks('openpedia.org', {}, { offset: 0, limit: 1 })!.links[0];
  assertIndexed('backlink by id', () => links.backlinkById(first._id));
  const used = new Set<string>();
  for (const [, url] of TARGETS) for (const index of assertIndexed(`profile of ${url}`, () => links.backlinkProfile(url))) used.add(index);
  for (const index of assertIndexed('competitors', () => sites.competitors('openpedia.org'))) used.add(index);
  assert.ok(used.has('links_source_root'), `the competitors' outgoing links use links_source_root (${[...used].join(', ')})`);
});

test('the indexes asserted on are the store’s', () => {
  const names = new Set(
    (raw.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'links'").pluck().all() as string[]).filter(
      (n) => !n.startsWith('sqlite_'),
    ),
  );
  assert.deepEqual(names, new Set(LINK_INDEXES.map((i) => i.name)));
});
