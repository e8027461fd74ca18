/**
 * Writes imported links into the research store, shared by the link importers (CSV, WAT):
 * unknown root domains, hosts and pages are created (kind `imported`; a host's IP is
 * unknown and counts as its own IP and subnet; .edu/.gov roots join the TrustRank seed
 * set); a link already present (same source page, target page and anchor) keeps the
 * earliest first-seen and latest last-seen dates of both. It records the root domains
 * whose links changed, and every changed link as it was before (table `link_changes`), for
 * the incremental metrics update (links/incrementalMetrics.ts).
 * Callers run it inside a transaction.
 */
import type SqliteDatabase from 'better-sqlite3';
import { parseTarget, domainClasses } from '../links/urls.js';
import { dayFromIso } from '../world/dates.js';

export interface PageRef {
  id: number;
  host: number;
  root: number;
  https: number;
}

export interface LinkInput {
  source: PageRef;
  target: PageRef;
  anchor: string;
  alt: string;
  /** One of LINK_TYPES. */
  type: string;
  nofollow: boolean;
  firstSeen: string;
  lastSeen: string;
  /** Date the link was lost, or null when live. */
  deletedOn: string | null;
}

export interface LinkWriteCounts {
  created: number;
  updated: number;
  unchanged: number;
  newRootDomains: number;
  newPages: number;
  /** Live links marked lost because a later crawl of their source page no longer had them. */
  lost: number;
}

export class LinkWriter {
  readonly counts: LinkWriteCounts = { created: 0, updated: 0, unchanged: 0, newRootDomains: 0, newPages: 0, lost: 0 };
  private readonly statements;
  /** Pages already resolved, by URL as given (ids never change); cleared when full, so memory stays bounded. */
  private readonly pages = new Map<string, PageRef | null>();
  private static readonly PAGE_CACHE_SIZE = 100_000;

  constructor(private readonly raw: SqliteDatabase.Database) {
    const nextId = (table: string) => raw.prepare(`SELECT COALESCE(MAX(id), 0) + 1 FROM ${table}`).pluck();
    this.statements = {
      rootId: raw.prepare('SELECT id FROM root_domains WHERE domain = ?').pluck(),
      hostId: raw.prepare('SELECT id FROM hosts WHERE host = ?').pluck(),
      pageRow: raw.prepare('SELECT id, host_id, root_domain_id, https FROM pages WHERE url = ?'),
      nextRoot: nextId('root_domains'),
      nextHost: nextId('hosts'),
      nextPage: nextId('pages'),
      nextLink: nextId('links'),
      insertRoot: raw.prepare(
        "INSERT INTO root_domains (id, domain, kind, niche_id, language_id, brand, trusted, created_on) VALUES (?, ?, 'imported', NULL, 0, ?, ?, ?)",
      ),
      insertHost: raw.prepare("INSERT INTO hosts (id, host, root_domain_id, ip, subnet) VALUES (?, ?, ?, '', '')"),
      insertPage:
        raw.prepare(`INSERT INTO pages (id, url, host_id, root_domain_id, https, is_homepage, title, description, body, keyword, niche_id, language_id, kind, published, shares)
        VALUES (?, ?, ?, ?, ?, ?, '', '', '', '', NULL, 0, 'imported', ?, 0)`),
      findLink: raw.prepare(
        'SELECT id, first_seen, last_seen, nofollow, deleted, deleted_on, type, alt FROM links WHERE source_page_id = ? AND target_page_id = ? AND anchor = ?',
      ),
      updateLink: raw.prepare(
        'UPDATE links SET first_seen = ?, last_seen = ?, nofollow = ?, deleted = ?, deleted_on = ?, reason_lost = ?, type = ?, alt = ? WHERE id = ?',
      ),
      lostTargets: raw.prepare('SELECT DISTINCT target_root_id FROM links WHERE source_page_id = ? AND deleted = 0 AND last_seen < ?').pluck(),
      // The first change of a link since the last metrics update records its state before; later ones keep it.
      logChange: raw.prepare(
        'INSERT OR IGNORE INTO link_changes (link_id, existed, type, nofollow, deleted, first_seen, last_seen) VALUES (?, ?, ?, ?, ?, ?, ?)',
      ),
      logLost: raw.prepare(
        'INSERT OR IGNORE INTO link_changes SELECT id, 1, type, nofollow, deleted, first_seen, last_seen FROM links WHERE source_page_id = ? AND deleted = 0 AND last_seen < ?',
      ),
      markLost: raw.prepare('UPDATE links SET deleted = 1, deleted_on = ?, reason_lost = ? WHERE source_page_id = ? AND deleted = 0 AND last_seen < ?'),
      insertLink:
        raw.prepare(`INSERT INTO links (id, source_page_id, target_page_id, source_host_id, target_host_id, source_root_id, target_root_id, anchor, alt, type,
        nofollow, https, first_seen, last_seen, deleted, deleted_on, reason_lost, internal, score, strength, best_root, best_host, best_url)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0, 0, 0, 0)`),
    };
  }

  /** The page of a URL, created with its host and root domain when unknown; null when it is not a web URL with a registrable domain. */
  ensurePage(url: string, firstSeen: string): PageRef | null {
    const cached = this.pages.get(url);
    if (cached !== undefined) return cached;
    if (this.pages.size >= LinkWriter.PAGE_CACHE_SIZE) this.pages.clear();
    const page = this.findOrCreatePage(url, firstSeen);
    this.pages.set(url, page);
    return page;
  }

  private findOrCreatePage(url: string, firstSeen: string): PageRef | null {
    const s = this.statements;
    const parsed = parseTarget(url);
    if (!parsed) return null;
    const existing = s.pageRow.get(parsed.url) as { id: number; host_id: number; root_domain_id: number; https: number } | undefined;
    if (existing) return { id: existing.id, host: existing.host_id, root: existing.root_domain_id, https: existing.https };
    let root = s.rootId.get(parsed.rootDomain) as number | undefined;
    if (root === undefined) {
      root = s.nextRoot.get() as number;
      const classes = domainClasses(parsed.rootDomain);
      const brand = parsed.rootDomain.split('.')[0];
      s.insertRoot.run(root, parsed.rootDomain, brand.charAt(0).toUpperCase() + brand.slice(1), classes.edu === 2 || classes.gov === 2 ? 1 : 0, firstSeen);
      this.counts.newRootDomains++;
    }
    let host = s.hostId.get(parsed.host) as number | undefined;
    if (host === undefined) {
      host = s.nextHost.get() as number;
      s.insertHost.run(host, parsed.host, root);
    }
    const id = s.nextPage.get() as number;
    const https = parsed.url.startsWith('https:') ? 1 : 0;
    s.insertPage.run(id, parsed.url, host, root, https, parsed.hostOnly ? 1 : 0, firstSeen);
    this.counts.newPages++;
    return { id, host, root, https };
  }

  /**
   * After the links a crawl of `source` on `day` found were written (their last seen is
   * now `day` or later): the page's live links last seen before `day` were not on it any
   * more, so they are lost on that day, for `reason` (one of the link tool's reasons).
   * Returns how many. A later crawl that finds one again revives it (upsert).
   */
  markLost(source: PageRef, day: string, reason: string): number {
    const s = this.statements;
    const targets = s.lostTargets.all(source.id, day) as number[];
    if (targets.length === 0) return 0;
    s.logLost.run(source.id, day);
    const lost = s.markLost.run(day, reason, source.id, day).changes;
    this.counts.lost += lost;
    return lost;
  }

  /** Inserts a link or merges its dates into the stored one; false when its dates are impossible (last seen before first seen). */
  upsert(link: LinkInput): boolean {
    const s = this.statements;
    const existing = s.findLink.get(link.source.id, link.target.id, link.anchor) as
      | { id: number; first_seen: string; last_seen: string; nofollow: number; deleted: number; deleted_on: string | null; type: string; alt: string }
      | undefined;
    const first = existing && existing.first_seen < link.firstSeen ? existing.first_seen : link.firstSeen;
    const last = existing && existing.last_seen > link.lastSeen ? existing.last_seen : link.lastSeen;
    if (dayFromIso(last) < dayFromIso(first)) return false;
    // The latest observation decides whether the link is live and how it is marked.
    const newest = !existing || link.lastSeen >= existing.last_seen;
    const nofollow = newest ? (link.nofollow ? 1 : 0) : existing.nofollow;
    const deletedOn = newest ? link.deletedOn : existing.deleted_on;
    const type = newest ? link.type : existing.type;
    const alt = newest ? link.alt : existing.alt;
    const reason = deletedOn ? 'Link removed from page' : '';
    if (existing) {
      if (
        existing.first_seen === first &&
        existing.last_seen === last &&
        existing.nofollow === nofollow &&
        existing.deleted_on === deletedOn &&
        existing.type === type &&
        existing.alt === alt
      ) {
        this.counts.unchanged++;
        return true;
      }
      s.logChange.run(existing.id, 1, existing.type, existing.nofollow, existing.deleted, existing.first_seen, existing.last_seen);
      s.updateLink.run(first, last, nofollow, deletedOn ? 1 : 0, deletedOn, reason, type, alt, existing.id);
      this.counts.updated++;
    } else {
      const id = s.nextLink.get() as number;
      s.logChange.run(id, 0, type, nofollow, deletedOn ? 1 : 0, first, last);
      s.insertLink.run(
        id,
        link.source.id,
        link.target.id,
        link.source.host,
        link.target.host,
        link.source.root,
        link.target.root,
        link.anchor,
        link.alt,
        type,
        nofollow,
        link.source.https,
        first,
        last,
        deletedOn ? 1 : 0,
        deletedOn,
        reason,
        link.source.root === link.target.root ? 1 : 0,
      );
      this.counts.created++;
    }
    return true;
  }
}
