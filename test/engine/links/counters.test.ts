import { test } from 'node:test';
import assert from 'node:assert/strict';
import SqliteDatabase from 'better-sqlite3';
import { domainClasses } from '../../../src/engine/links/urls.js';
import { tinyWorldFile } from '../../support/world.js';

/**
 * Every stored counter equals a brute-force count over the links table, for a sample of
 * pages, hosts and root domains of the tiny world (the giant and the most linked ones
 * included).
 */
test('counters equal a brute-force count at URL, subdomain and root-domain level', async () => {
  const db = new SqliteDatabase(await tinyWorldFile(1), { readonly: true });
  const rootClass = new Map<number, { edu: number; gov: number }>();
  for (const r of db.prepare('SELECT id, domain FROM root_domains').all() as { id: number; domain: string }[]) rootClass.set(r.id, domainClasses(r.domain));
  type LinkRow = { source_page_id: number; source_root_id: number; target_root_id: number; type: string; nofollow: number; https: number; deleted: number; ip: string; subnet: string; is_homepage: number };
  const levels = [
    { level: 0, column: 'target_page_id', source: 'source_page_id', table: 'pages', pagesOf: 'id' },
    { level: 1, column: 'target_host_id', source: 'source_host_id', table: 'hosts', pagesOf: 'host_id' },
    { level: 2, column: 'target_root_id', source: 'source_root_id', table: 'root_domains', pagesOf: 'root_domain_id' },
  ];
  for (const { level, column, source, pagesOf } of levels) {
    const sample = db.prepare(`SELECT entity_id FROM entity_metrics WHERE level = ? ORDER BY total_non_unique DESC, entity_id LIMIT 15`).pluck().all(level) as number[];
    sample.push(...(db.prepare(`SELECT entity_id FROM entity_metrics WHERE level = ? AND entity_id % 37 = 1 LIMIT 15`).pluck().all(level) as number[]));
    for (const id of sample) {
      const m = db.prepare('SELECT * FROM entity_metrics WHERE level = ? AND entity_id = ?').get(level, id) as Record<string, number>;
      const links = db.prepare(`SELECT l.source_page_id, l.source_root_id, l.target_root_id, l.type, l.nofollow, l.https, l.deleted, h.ip, h.subnet, p.is_homepage
        FROM links l JOIN hosts h ON h.id = l.source_host_id JOIN pages p ON p.id = l.source_page_id WHERE l.${column} = ? AND l.internal = 0`).all(id) as LinkRow[];
      const live = links.filter((l) => l.deleted === 0);
      const distinct = (rows: LinkRow[], key: (l: LinkRow) => unknown) => new Set(rows.map(key)).size;
      const edu = (l: LinkRow) => rootClass.get(l.source_root_id)!.edu;
      const gov = (l: LinkRow) => rootClass.get(l.source_root_id)!.gov;
      const expected: Record<string, number> = {
        ext_backlinks: live.length,
        ref_domains: distinct(live, (l) => l.source_root_id),
        ref_domains_all: distinct(links, (l) => l.source_root_id),
        ref_ips: distinct(live, (l) => l.ip),
        ref_subnets: distinct(live, (l) => l.subnet),
        ext_backlinks_edu: live.filter((l) => edu(l) > 0).length,
        ref_domains_edu: distinct(live.filter((l) => edu(l) > 0), (l) => l.source_root_id),
        ext_backlinks_edu_exact: live.filter((l) => edu(l) === 2).length,
        ref_domains_edu_exact: distinct(live.filter((l) => edu(l) === 2), (l) => l.source_root_id),
        ext_backlinks_gov: live.filter((l) => gov(l) > 0).length,
        ref_domains_gov: distinct(live.filter((l) => gov(l) > 0), (l) => l.source_root_id),
        ext_backlinks_gov_exact: live.filter((l) => gov(l) === 2).length,
        ref_domains_gov_exact: distinct(live.filter((l) => gov(l) === 2), (l) => l.source_root_id),
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
      };
      const out = db.prepare(`SELECT SUM(internal) AS internal, SUM(1 - internal) AS external, COUNT(DISTINCT CASE WHEN internal = 0 THEN target_root_id END) AS domains
        FROM links WHERE ${source} = ? AND deleted = 0`).get(id) as { internal: number | null; external: number | null; domains: number };
      expected.out_internal = out.internal ?? 0;
      expected.out_external = out.external ?? 0;
      expected.out_domains_external = out.domains;
      const pages = db.prepare(`SELECT COUNT(*) AS n, SUM(shares) AS shares FROM pages WHERE ${pagesOf} = ?`).get(id) as { n: number; shares: number };
      expected.indexed_urls = pages.n;
      expected.social = pages.shares;
      for (const [name, value] of Object.entries(expected)) assert.equal(m[name], value, `level ${level} entity ${id} ${name}`);
    }
  }
  db.close();
});
