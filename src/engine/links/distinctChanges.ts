/**
 * What changed links move beyond their own counters (incrementalMetrics.ts): the distinct
 * counts of the entities they touch, compared before and after the import, and the
 * best-link flags of the (source root, target root) pairs of rescored links.
 */
import type SqliteDatabase from 'better-sqlite3';
import type { Counters } from './counters.js';
import type { EntityArrays } from './graphLoader.js';
import { linkState, type ChangedLink, type PairRow } from './linkChanges.js';
import { aliveMonths, type HistoryCounts } from '../sites/siteHistory.js';

/**
 * The distinct counts the changed external links move: referring domains (and their
 * EDU/GOV parts, and with lost links), IPs and subnets of their targets, external target
 * domains of their sources, and the monthly referring domains, IPs and subnets of the
 * target domains. A value (a referring root, IP or subnet) counts for an entity while one
 * of the links carrying it is there, so each one's presence is compared before and after
 * the import over every link that could carry it: the links into the target domain from
 * the source domains of the changed links and from every domain with a host on the same
 * IP or subnet. "Before" is "after" with the changed links put back as they were.
 * Returns how many links it read.
 */
export function applyDistinctChanges(
  raw: SqliteDatabase.Database,
  e: EntityArrays,
  changes: ChangedLink[],
  counters: Counters[],
  counts: HistoryCounts,
  countsChanged: Uint8Array,
): number {
  const rootsOf = (keyOfHost: Int32Array) => {
    const out = new Map<number, Set<number>>();
    for (let h = 0; h < e.hostCount; h++) {
      let roots = out.get(keyOfHost[h]);
      if (!roots) out.set(keyOfHost[h], (roots = new Set()));
      roots.add(e.hostRoot[h]);
    }
    return out;
  };
  const ipRoots = rootsOf(e.hostIp);
  const subnetRoots = rootsOf(e.hostSubnet);
  const byTarget = new Map<number, ChangedLink[]>();
  for (const c of changes) {
    if (c.sourceRoot === c.targetRoot) continue;
    let list = byTarget.get(c.targetRoot);
    if (!list) byTarget.set(c.targetRoot, (list = []));
    list.push(c);
  }
  const select = raw
    .prepare(
      `SELECT id, source_page_id, source_host_id, source_root_id, target_page_id, target_host_id, type, nofollow, deleted, first_seen, last_seen
       FROM links INDEXED BY links_source_root WHERE source_root_id IN (SELECT value FROM json_each(?)) AND target_root_id = ?`,
    )
    .raw();
  const { months } = counts;
  let read = 0;
  for (const [target, list] of byTarget) {
    // What to compare: per level, (target entity, kind, value) and (source entity, 'o', target domain).
    const wanted = new Map<string, { level: number; entity: number; kind: 'r' | 'i' | 's' | 'o'; value: number }>();
    const want = (level: number, entity: number, kind: 'r' | 'i' | 's' | 'o', value: number) => {
      const key = `${level}:${entity}:${kind}${value}`;
      if (!wanted.has(key)) wanted.set(key, { level, entity, kind, value });
    };
    const sourceRoots = new Set<number>();
    const changed = new Map<number, ChangedLink>();
    for (const c of list) {
      changed.set(c.id, c);
      const targets = [c.targetPage, c.targetHost, target];
      const sources = [c.sourcePage, c.sourceHost, c.sourceRoot];
      for (let l = 0; l < 3; l++) {
        want(l, targets[l], 'r', c.sourceRoot);
        want(l, targets[l], 'i', e.hostIp[c.sourceHost]);
        want(l, targets[l], 's', e.hostSubnet[c.sourceHost]);
        want(l, sources[l], 'o', target);
      }
      sourceRoots.add(c.sourceRoot);
      for (const r of ipRoots.get(e.hostIp[c.sourceHost]) ?? []) sourceRoots.add(r);
      for (const r of subnetRoots.get(e.hostSubnet[c.sourceHost]) ?? []) sourceRoots.add(r);
    }
    sourceRoots.delete(target);
    const after: PairRow[] = [];
    for (const [id, sp, sh, sr, tp, th, type, nofollow, deleted, first, last] of select.iterate(
      JSON.stringify([...sourceRoots].map((r) => r + 1)),
      target + 1,
    ) as IterableIterator<[number, number, number, number, number, number, string, number, number, string, string]>) {
      after.push({
        id,
        sourcePage: sp - 1,
        sourceHost: sh - 1,
        sourceRoot: sr - 1,
        targetPage: tp - 1,
        targetHost: th - 1,
        ...linkState(e.asOfDay, type, nofollow, deleted, first, last),
      });
    }
    read += after.length;
    const before: PairRow[] = [];
    for (const row of after) {
      const c = changed.get(row.id);
      if (!c) before.push(row);
      else if (c.before) before.push({ ...row, ...c.before });
    }
    const presence = (rows: PairRow[]) => {
      const live = new Set<string>();
      const any = new Set<string>();
      /** Alive span [first, end] per root-level value (histories). */
      const spans = new Map<string, [number, number]>();
      const see = (key: string, row: PairRow, history: boolean) => {
        if (!wanted.has(key)) return;
        any.add(key);
        if (row.deleted === 0) live.add(key);
        if (!history) return;
        const span = spans.get(key);
        if (!span) spans.set(key, [row.firstDay, row.endDay]);
        else {
          if (row.firstDay < span[0]) span[0] = row.firstDay;
          if (row.endDay > span[1]) span[1] = row.endDay;
        }
      };
      for (const row of rows) {
        const targets = [row.targetPage, row.targetHost, target];
        const sources = [row.sourcePage, row.sourceHost, row.sourceRoot];
        for (let l = 0; l < 3; l++) {
          see(`${l}:${targets[l]}:r${row.sourceRoot}`, row, l === 2);
          see(`${l}:${targets[l]}:i${e.hostIp[row.sourceHost]}`, row, l === 2);
          see(`${l}:${targets[l]}:s${e.hostSubnet[row.sourceHost]}`, row, l === 2);
          see(`${l}:${sources[l]}:o${target}`, row, false);
        }
      }
      return { live, any, spans };
    };
    const was = presence(before);
    const is = presence(after);
    for (const [key, { level, entity, kind, value }] of wanted) {
      const c = counters[level];
      const live = Number(is.live.has(key)) - Number(was.live.has(key));
      if (kind === 'o') {
        c.out_domains_external[entity] += live;
        continue;
      }
      if (kind === 'r') {
        c.ref_domains[entity] += live;
        c.ref_domains_all[entity] += Number(is.any.has(key)) - Number(was.any.has(key));
        const [edu, gov] = [e.rootEdu[value], e.rootGov[value]];
        if (edu > 0) c.ref_domains_edu[entity] += live;
        if (edu === 2) c.ref_domains_edu_exact[entity] += live;
        if (gov > 0) c.ref_domains_gov[entity] += live;
        if (gov === 2) c.ref_domains_gov_exact[entity] += live;
      } else if (kind === 'i') c.ref_ips[entity] += live;
      else c.ref_subnets[entity] += live;
      if (level !== 2) continue;
      countsChanged[entity] = 1;
      const monthly = kind === 'r' ? counts.domains : kind === 'i' ? counts.ips : counts.subnets;
      for (const [sign, span] of [
        [-1, was.spans.get(key)],
        [1, is.spans.get(key)],
      ] as const) {
        if (!span) continue;
        const [from, to] = aliveMonths(span[0], span[1], months, e.asOfDay);
        for (let m = from; m <= to; m++) monthly[entity * months + m] += sign;
      }
    }
  }
  return read;
}

/**
 * Best-link flags of the (source root, target root) pairs in `pairs`, with the new scores:
 * the strongest link (highest score, then lowest id) per target page, host and domain
 * among each pair's links (linkMetrics.ts bestLinkFlags). Returns the links whose flags
 * changed (bit 0 root, 1 host, 2 url) and how many links it read.
 */
export function bestFlagUpdates(
  raw: SqliteDatabase.Database,
  rootCount: number,
  pairs: Set<number>,
  newScores: Map<number, { score: number }>,
): { flags: Map<number, number>; read: number } {
  const select = raw
    .prepare(
      'SELECT id, target_host_id, target_page_id, score, best_root, best_host, best_url FROM links INDEXED BY links_source_root WHERE source_root_id = ? AND target_root_id = ? ORDER BY id',
    )
    .raw();
  const flags = new Map<number, number>();
  let read = 0;
  for (const pair of pairs) {
    const [sourceRoot, targetRoot] = [Math.floor(pair / rootCount), pair % rootCount];
    const rows = select.all(sourceRoot + 1, targetRoot + 1) as [number, number, number, number, number, number, number][];
    read += rows.length;
    const winners = [new Map<number, number>(), new Map<number, number>(), new Map<number, number>()];
    const scores = rows.map((r) => newScores.get(r[0])?.score ?? r[3]);
    rows.forEach((r, k) => {
      const keys = [0, r[1], r[2]];
      for (let l = 0; l < 3; l++) {
        const current = winners[l].get(keys[l]);
        if (current === undefined || scores[k] > scores[current]) winners[l].set(keys[l], k);
      }
    });
    const next = new Uint8Array(rows.length);
    for (let l = 0; l < 3; l++) for (const k of winners[l].values()) next[k] |= 1 << l;
    rows.forEach((r, k) => {
      if ((r[4] | (r[5] << 1) | (r[6] << 2)) !== next[k]) flags.set(r[0], next[k]);
    });
  }
  return { flags, read };
}
