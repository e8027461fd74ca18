import { test } from 'node:test';
import assert from 'node:assert/strict';
import SqliteDatabase from 'better-sqlite3';
import { domainClasses } from '../../../src/engine/links/urls.js';
import { tinyWorldFile } from '../../support/world.js';

type LinkRow = {
  source_page_id: number;
  source_host_id: number;
  source_root_id: number;
  target_page_id: number;
  target_host_id: number;
  target_root_id: number;
  type: string;
  nofollow: number;
  https: number;
  deleted: number;
  internal: number;
  ip: string;
  subnet: string;
  is_homepage: number;
};

function groupBy<K>(rows: readonly LinkRow[], key: (l: LinkRow) => K): Map<K, LinkRow[]> {
  const groups = new Map<K, LinkRow[]>();
  for (const row of rows) {
    const k = key(row);
    const group = groups.get(k);
    if (group) group.push(row);
    else groups.set(k, [row]);
  }
  return groups;
}

/**
 * Every stored counter and ACRank equals a brute-force count over the links table, for
 * every page, host and root domain of the tiny world (an entity without links must read
 * zero). The links are read once and grouped in memory: ~100k links, a few seconds.
 */
test('counters and ACRank equal a brute-force count at URL, subdomain and root-domain level, for every entity', async () => {
  const db = new SqliteDatabase(await tinyWorldFile(1), { readonly: true });
  const rootClass = new Map<number, { edu: number; gov: number }>();
  for (const r of db.prepare('SELECT id, domain FROM root_domains').all() as { id: number; domain: string }[]) rootClass.set(r.id, domainClasses(r.domain));
  const allLinks = db
    .prepare(
      `SELECT l.source_page_id, l.source_host_id, l.source_root_id, l.target_page_id, l.target_host_id, l.target_root_id,
      l.type, l.nofollow, l.https, l.deleted, l.internal, h.ip, h.subnet, p.is_homepage
    FROM links l JOIN hosts h ON h.id = l.source_host_id JOIN pages p ON p.id = l.source_page_id`,
    )
    .all() as LinkRow[];
  const external = allLinks.filter((l) => l.internal === 0);
  const liveOut = allLinks.filter((l) => l.deleted === 0);
  const pages = db.prepare('SELECT id, host_id, root_domain_id, shares FROM pages').all() as {
    id: number;
    host_id: number;
    root_domain_id: number;
    shares: number;
  }[];
  const levels = [
    { level: 0, table: 'pages', target: (l: LinkRow) => l.target_page_id, source: (l: LinkRow) => l.source_page_id, pageOwner: (p: (typeof pages)[0]) => p.id },
    {
      level: 1,
      table: 'hosts',
      target: (l: LinkRow) => l.target_host_id,
      source: (l: LinkRow) => l.source_host_id,
      pageOwner: (p: (typeof pages)[0]) => p.host_id,
    },
    {
      level: 2,
      table: 'root_domains',
      target: (l: LinkRow) => l.target_root_id,
      source: (l: LinkRow) => l.source_root_id,
      pageOwner: (p: (typeof pages)[0]) => p.root_domain_id,
    },
  ];
  const distinct = (rows: LinkRow[], key: (l: LinkRow) => unknown) => new Set(rows.map(key)).size;
  const edu = (l: LinkRow) => rootClass.get(l.source_root_id)!.edu;
  const gov = (l: LinkRow) => rootClass.get(l.source_root_id)!.gov;
  let withLinks = 0;
  for (const { level, table, target, source, pageOwner } of levels) {
    const inbound = groupBy(external, target);
    const outbound = groupBy(liveOut, source);
    const owned = new Map<number, { n: number; shares: number }>();
    for (const p of pages) {
      const o = owned.get(pageOwner(p)) ?? { n: 0, shares: 0 };
      o.n++;
      o.shares += p.shares;
      owned.set(pageOwner(p), o);
    }
    const stored = db.prepare('SELECT * FROM entity_metrics WHERE level = ? ORDER BY entity_id').all(level) as Record<string, number>[];
    assert.deepEqual(
      stored.map((m) => m.entity_id),
      db.prepare(`SELECT id FROM ${table} ORDER BY id`).pluck().all(),
      `level ${level}: one row per entity`,
    );
    for (const m of stored) {
      const id = m.entity_id;
      const links = inbound.get(id) ?? [];
      const out = outbound.get(id) ?? [];
      if (links.length > 0 || out.length > 0) withLinks++;
      const live = links.filter((l) => l.deleted === 0);
      const refDomains = distinct(live, (l) => l.source_root_id);
      const outExternal = out.filter((l) => l.internal === 0);
      const expected: Record<string, number> = {
        ext_backlinks: live.length,
        ref_domains: refDomains,
        // Our definition (linkMetrics.ts): ⌊log2(1 + RefDomains)⌋, at most 15.
        ac_rank: Math.min(15, Math.floor(Math.log2(1 + refDomains))),
        ref_domains_all: distinct(links, (l) => l.source_root_id),
        ref_ips: distinct(live, (l) => l.ip),
        ref_subnets: distinct(live, (l) => l.subnet),
        ext_backlinks_edu: live.filter((l) => edu(l) > 0).length,
        ref_domains_edu: distinct(
          live.filter((l) => edu(l) > 0),
          (l) => l.source_root_id,
        ),
        ext_backlinks_edu_exact: live.filter((l) => edu(l) === 2).length,
        ref_domains_edu_exact: distinct(
          live.filter((l) => edu(l) === 2),
          (l) => l.source_root_id,
        ),
        ext_backlinks_gov: live.filter((l) => gov(l) > 0).length,
        ref_domains_gov: distinct(
          live.filter((l) => gov(l) > 0),
          (l) => l.source_root_id,
        ),
        ext_backlinks_gov_exact: live.filter((l) => gov(l) === 2).length,
        ref_domains_gov_exact: distinct(
          live.filter((l) => gov(l) === 2),
          (l) => l.source_root_id,
        ),
        total_non_unique: links.length,
        nu_homepages: links.filter((l) => l.is_homepage === 1).length,
        nu_indirect: links.filter((l) => l.type === 'redirect' || l.type === 'frame').length,
        nu_deleted: links.filter((l) => l.deleted === 1).length,
        nu_nofollow: links.filter((l) => l.nofollow === 1).length,
        nu_https: links.filter((l) => l.https === 1).length,
        nu_frame: links.filter((l) => l.type === 'frame').length,
        nu_image: links.filter((l) => l.type === 'image').length,
        nu_redirect: links.filter((l) => l.type === 'redirect').length,
        nu_text: links.filter((l) => l.type === 'text').length,
        nu_mention: links.filter((l) => l.type === 'mention').length,
        out_internal: out.length - outExternal.length,
        out_external: outExternal.length,
        out_domains_external: distinct(outExternal, (l) => l.target_root_id),
        indexed_urls: owned.get(id)?.n ?? 0,
        social: owned.get(id)?.shares ?? 0,
      };
      for (const [name, value] of Object.entries(expected)) assert.equal(m[name], value, `level ${level} entity ${id} ${name}`);
    }
  }
  assert.ok(withLinks > 8000, `${withLinks} entities with links checked`);
  db.close();
});
