/**
 * Backlinks as rows: a link's own columns (`LinkRow`) and what it shows of its source and
 * target pages (PageDetailsReader) made into `BACKLINK_FIELDS` arrays and API objects.
 */
import { hexId } from './targets.js';
import type { PageDetails, PageDetailsReader } from './pageDetails.js';
import { BACKLINK_FIELDS, type BacklinkItem, type BacklinkRow } from './backlinkTypes.js';

/**
 * A link's own columns as backlink lists read them (raw, in `LinkRow` order); what they
 * show of the source and target pages comes from `PageDetailsReader`.
 */
export const LINK_ROW_COLUMNS =
  'l.id, l.source_root_id, l.source_page_id, l.target_page_id, l.type, l.anchor, l.alt, l.first_seen, l.last_seen, l.deleted, l.reason_lost, l.nofollow, l.strength';

export type LinkRow = [
  id: number,
  sourceRootId: number,
  sourcePageId: number,
  targetPageId: number,
  type: BacklinkItem['type'],
  anchor: string,
  alt: string,
  firstSeen: string,
  lastSeen: string,
  deleted: number,
  reasonLost: string,
  nofollow: number,
  strength: number,
];
const SOURCE_PAGE = 2;
const TARGET_PAGE = 3;

/** The backlink of a link and its pages, as a `BACKLINK_FIELDS` array. */
function backlinkRow(link: LinkRow, source: PageDetails, target: PageDetails): BacklinkRow {
  const [id, sourceRootId, , , type, anchor, alt, firstSeen, lastSeen, deleted, reasonLost, nofollow, strength] = link;
  const lost = deleted === 1;
  return [
    hexId(id),
    hexId(sourceRootId),
    source.url,
    target.url,
    source.title,
    type,
    anchor,
    alt,
    firstSeen,
    lastSeen,
    lastSeen,
    lost,
    lost ? reasonLost : null,
    source.citationFlow,
    source.trustFlow,
    target.citationFlow,
    target.trustFlow,
    nofollow === 1,
    type === 'image',
    type === 'redirect',
    type === 'frame',
    source.lang,
    source.outInternal,
    source.outExternal,
    strength,
  ];
}

/** A `BacklinkRow` as the API's object. */
export function itemOfRow(row: BacklinkRow): BacklinkItem {
  const item: Record<string, unknown> = {};
  for (let i = 0; i < BACKLINK_FIELDS.length; i++) item[BACKLINK_FIELDS[i]] = row[i];
  return item as unknown as BacklinkItem;
}

/**
 * The backlinks of `links` (raw `LinkRow`s), in the same order, as `BACKLINK_FIELDS`
 * arrays. A link whose source or target page, or its metrics, is missing from the index
 * has no backlink to show and is left out.
 */
export function backlinkRows(links: readonly LinkRow[], pages: PageDetailsReader): BacklinkRow[] {
  const pageIds: number[] = [];
  for (const link of links) pageIds.push(link[SOURCE_PAGE], link[TARGET_PAGE]);
  pages.load(pageIds);
  const rows: BacklinkRow[] = [];
  for (const link of links) {
    const source = pages.get(link[SOURCE_PAGE]);
    const target = pages.get(link[TARGET_PAGE]);
    if (source !== undefined && target !== undefined) rows.push(backlinkRow(link, source, target));
  }
  return rows;
}
