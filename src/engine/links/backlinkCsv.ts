/**
 * Backlink CSV records written straight into bytes: what a backlink export writes, byte
 * for byte `csvRecord(backlinkRow(...))` (linksService.ts), at a fraction of its cost.
 *
 * - The links query yields one string a link (`BACKLINK_CSV_RECORD`): its ids in decimal,
 *   its type, nofollow and strength as one small code, its anchor and alt, and its run of
 *   dates and lost state already as CSV text (`printf`). better-sqlite3 makes a JS value of
 *   every column of every row, which costs more than SQLite building the string.
 * - Each page's CSV fields are encoded once into one byte arena (`PageCsvReader`), read
 *   for a batch of links at a time or all at once for a long list; a record copies its
 *   pages' bytes from there instead of concatenating strings.
 * - Records are written into the caller's buffer (a `CsvRecordSource`), which the export
 *   writer reuses: no string and no buffer per row for the garbage collector.
 *
 * Dates (`first_seen`, `last_seen`) are written as stored: the writers of the research
 * store keep them ISO days (`YYYY-MM-DD`), which CSV never quotes. Anchors, alts, lost
 * reasons and types are quoted as `csvString` quotes them. (docs/decisions.md, "Backlink
 * export: records written into reused buffers".)
 *
 * @example
 * const source = new BacklinkCsvSource(new PageCsvReader(raw), links, linkById); // links: the query's plucked iterator
 * const chunk = Buffer.alloc(source.nextRecordBytes());
 * const end = source.writeRecords(chunk, 0, 1); // one record, chunk.subarray(0, end)
 */
import { csvString, type CsvRecordSource } from '../../lib/csv.js';
import { hexId } from './targets.js';
import { languageCode, PageReader, type PageRow } from './pageDetails.js';

/** Link types in the order of their codes in `BACKLINK_CSV_COLUMNS` and `BACKLINK_CSV_RECORD`. */
const TYPES = ['text', 'image', 'redirect', 'frame', 'mention'] as const;

/** A quoted SQL text as `csvString` quotes it (used on the rare lost reason only). */
const sqlCsvString = (x: string) =>
  `CASE WHEN instr(${x}, ',') + instr(${x}, '"') + instr(${x}, char(10)) + instr(${x}, char(13)) THEN '"' || replace(${x}, '"', '""') || '"' ELSE ${x} END`;

/** `,first_seen,last_seen,last_crawl,deleted,reason_lost,` of a link, as CSV text. */
const MIDDLE = `printf(',%s,%s,%s,', l.first_seen, l.last_seen, l.last_seen) || CASE l.deleted WHEN 1 THEN 'true,' || ${sqlCsvString('l.reason_lost')} ELSE 'false,' END || ','`;

/**
 * The links query's columns for CSV records (of `links l`), in `CsvLinkRow` order.
 * The middle run is `,first_seen,last_seen,last_crawl,deleted,reason_lost,`.
 */
export const BACKLINK_CSV_COLUMNS = [
  'l.source_page_id',
  'l.target_page_id',
  'l.id',
  'l.source_root_id',
  `CASE l.type ${TYPES.map((t, i) => `WHEN '${t}' THEN ${i}`).join(' ')} ELSE l.type END`,
  'l.anchor',
  'l.alt',
  MIDDLE,
  'l.nofollow',
  'l.strength',
].join(', ');

/**
 * A link's CSV record as one string of the links query (of `links l`, plucked):
 * `source_page_id,target_page_id,id,source_root_id,LINK_CODE,` in decimal, then the anchor,
 * a NUL, the alt, a NUL, and the run of dates and lost state as in `BACKLINK_CSV_COLUMNS`.
 * One string a row instead of ten values: better-sqlite3 makes a JS value of each column
 * of each row, which cost more than SQLite building the string (on `small`, 1.13 M rows:
 * 2.5–2.8 → 1.9 CPU-s for the query).
 * `LINK_CODE` is the type's index in TYPES + 8 · nofollow + 16 · strength, or -1 when the
 * type is none of TYPES or the strength is not a digit (that link is read again by id).
 */
export const BACKLINK_CSV_RECORD = `printf('%d,%d,%d,%d,%d,', l.source_page_id, l.target_page_id, l.id, l.source_root_id, coalesce(CASE WHEN l.strength IN (0, 1, 2, 3, 4, 5, 6, 7, 8, 9) THEN (CASE l.type ${TYPES.map((t, i) => `WHEN '${t}' THEN ${i}`).join(' ')} END) + 8 * (l.nofollow = 1) + 16 * l.strength END, -1)) || l.anchor || char(0) || l.alt || char(0) || ${MIDDLE}`;

export type CsvLinkRow = [
  sourcePageId: number,
  targetPageId: number,
  id: number,
  sourceRootId: number,
  /** The index of the type in TYPES, or the type itself when it is none of them. */
  type: number | string,
  anchor: string,
  alt: string,
  middle: string,
  nofollow: number,
  strength: number | null,
];

const COMMA = 0x2c;
const NEWLINE = 0x0a;
const NUL = '\0';
const MINUS = 0x2d;
const QUOTE = 0x22;
const RETURN = 0x0d;
const ZERO = 0x30;
/** Four ASCII zeros as one 32-bit word. */
const ZEROS = 0x30303030;
const HEX_DIGITS = Uint8Array.from('0123456789abcdef', (c) => c.charCodeAt(0));
/** `,no_follow,image,redirect,frame,` of a link by nofollow (0/1) and type code. */
const FLAGS = [0, 1].map((nofollow) =>
  TYPES.map((type) => Buffer.from(`,${nofollow === 1},${type === 'image'},${type === 'redirect'},${type === 'frame'},`, 'latin1')),
);
const UNKNOWN_TYPE_FLAGS = [Buffer.from(',false,false,false,false,', 'latin1'), Buffer.from(',true,false,false,false,', 'latin1')];
const TYPE_BYTES = TYPES.map((type) => Buffer.from(type, 'latin1'));
/** A UTF-16 code unit takes at most 3 bytes in UTF-8. */
const MAX_UTF8_BYTES_PER_UNIT = 3;
/** Bytes of a record besides its strings: two ids, the flags, the strength, separators. */
const FIXED_RECORD_BYTES = 2 * 25 + 25 + 24 + 8;

/** Links read, and their pages looked up, at a time. */
const BATCH = 1024;

/**
 * Each page's CSV fields as UTF-8 in one growing byte arena: its URL, its title, its
 * `citation_flow,trust_flow` and its `lang,out_internal,out_external`, back to back.
 * Page p's fields start at `bounds[4·slot]` and end at the next four bounds.
 */
export class PageCsvReader extends PageReader {
  private bytes = Buffer.allocUnsafe(1 << 20);
  private view = viewOf(this.bytes);
  private used = 0;
  /** Slot of each page id plus one (0: not in memory). */
  private slotOf = new Int32Array(0);
  /** Per slot: start of the URL, then the end of the URL, title, flows and counts. */
  private bounds = new Int32Array(5 * 1024);
  private slots = 0;

  /** The arena, and where page `id`'s fields are in it (see `bounds`), or -1 when it is not in memory. */
  fieldsOf(id: number): number {
    return id < this.slotOf.length ? this.slotOf[id] - 1 : -1;
  }

  get arena(): Buffer {
    return this.bytes;
  }

  /** The arena as a DataView (for `copyBytes`). */
  get arenaView(): DataView {
    return this.view;
  }

  get fieldBounds(): Int32Array {
    return this.bounds;
  }

  protected has(id: number): boolean {
    return this.fieldsOf(id) >= 0;
  }

  protected add([id, url, title, languageId, citationFlow, trustFlow, outInternal, outExternal]: PageRow): void {
    const urlCsv = csvString(url);
    const titleCsv = csvString(title);
    const lang = languageCode(languageId);
    const flows = `${citationFlow},${trustFlow}`;
    const counts = `${lang === null ? '' : csvString(lang)},${outInternal},${outExternal}`;
    this.reserve((urlCsv.length + titleCsv.length + flows.length + counts.length) * MAX_UTF8_BYTES_PER_UNIT);
    if (id >= this.slotOf.length) {
      const grown = new Int32Array(Math.max(id + 1, this.slotOf.length * 2, 1024));
      grown.set(this.slotOf);
      this.slotOf = grown;
    }
    if (5 * (this.slots + 1) > this.bounds.length) {
      const grown = new Int32Array(this.bounds.length * 2);
      grown.set(this.bounds);
      this.bounds = grown;
    }
    const { bytes, bounds } = this;
    const at = 5 * this.slots;
    let end = this.used;
    bounds[at] = end;
    bounds[at + 1] = end += bytes.write(urlCsv, end);
    bounds[at + 2] = end += bytes.write(titleCsv, end);
    bounds[at + 3] = end += bytes.write(flows, end, 'latin1');
    bounds[at + 4] = end += bytes.write(counts, end);
    this.used = end;
    this.slotOf[id] = ++this.slots;
  }

  protected clear(): void {
    this.slotOf.fill(0);
    this.slots = 0;
    this.used = 0;
  }

  private reserve(bytes: number): void {
    if (this.used + bytes <= this.bytes.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.bytes.length * 2, this.used + bytes));
    this.bytes.copy(grown, 0, 0, this.used);
    this.bytes = grown;
    this.view = viewOf(grown);
  }
}

/**
 * The CSV records of the links a query yields (`BACKLINK_CSV_RECORD`, in list order),
 * read a batch at a time with their pages. A link whose source or target page, or its metrics, is missing
 * from the index has no backlink to show and is left out, as in backlink lists.
 */
export class BacklinkCsvSource implements CsvRecordSource {
  private readonly pages: PageCsvReader;
  private readonly batch: string[] = [];
  private readonly pageIds: number[] = [];
  private position = 0;
  private ended = false;
  /** The next record's link, once `nextRecordBytes` has found it (see `next`). */
  private current: string | undefined;
  private sourcePage = 0;
  private targetPage = 0;
  private id = 0;
  private sourceRoot = 0;
  /** `LINK_CODE`: type code + 8 · nofollow + 16 · strength. */
  private code = 0;
  /** Where the anchor starts in `current`, and the NULs after the anchor and the alt. */
  private textAt = 0;
  private anchorEnd = 0;
  private altEnd = 0;
  /** The link's `BACKLINK_CSV_COLUMNS` when its record takes the general path (see `next`), and its quoted type. */
  private link: CsvLinkRow | undefined;
  private type = '';
  /** The buffer written last and a DataView of it (writers reuse their buffers). */
  private into: Buffer | undefined;
  private intoView: DataView | undefined;
  written = 0;

  /**
   * `links`: the query's `BACKLINK_CSV_RECORD` strings (plucked); `linkById`: a link's
   * `BACKLINK_CSV_COLUMNS`, for the rare record that does not fit that string's shape.
   */
  constructor(
    pages: PageCsvReader,
    private readonly links: IterableIterator<string>,
    private readonly linkById: (id: number) => CsvLinkRow | undefined,
  ) {
    this.pages = pages;
  }

  nextRecordBytes(): number {
    const row = this.next();
    if (row === undefined) return 0;
    const { pages, link } = this;
    const bounds = pages.fieldBounds;
    const source = 5 * pages.fieldsOf(this.sourcePage);
    const target = 5 * pages.fieldsOf(this.targetPage);
    const pageBytes =
      FIXED_RECORD_BYTES + (bounds[source + 4] - bounds[source]) + (bounds[target + 1] - bounds[target]) + (bounds[target + 3] - bounds[target + 2]);
    if (link === undefined) return pageBytes + csvTextBytes(row.length - this.textAt);
    return pageBytes + (this.type.length + link[7].length) * MAX_UTF8_BYTES_PER_UNIT + csvTextBytes(link[5].length) + csvTextBytes(link[6].length);
  }

  writeRecords(into: Buffer, at: number, maxRows: number): number {
    if (into !== this.into) {
      this.into = into;
      this.intoView = viewOf(into);
    }
    const view = this.intoView!;
    let end = at;
    for (let n = 0; n < maxRows; n++) {
      const need = this.nextRecordBytes();
      if (need === 0 || end + need > into.length) break;
      end = this.write(into, view, end);
    }
    return end;
  }

  close(): void {
    this.ended = true;
    this.current = undefined;
    this.links.return?.();
  }

  /**
   * The next link with both pages in memory, its numbers read from its string; undefined
   * at the end. A link whose type or strength the code cannot hold, or whose anchor, alt
   * or dates hold a NUL (the string's separator), is read again by id (`link`).
   */
  private next(): string | undefined {
    if (this.current !== undefined) return this.current;
    for (;;) {
      if (this.position === this.batch.length && !this.readBatch()) return undefined;
      const row = this.batch[this.position++];
      let at = 0;
      let sign = 1;
      let value = 0;
      for (let field = 0; field < 5; at++) {
        const c = row.charCodeAt(at);
        if (c === COMMA) {
          value *= sign;
          if (field === 0) this.sourcePage = value;
          else if (field === 1) this.targetPage = value;
          else if (field === 2) this.id = value;
          else if (field === 3) this.sourceRoot = value;
          else this.code = value;
          field++;
          value = 0;
          sign = 1;
        } else if (c === MINUS) sign = -1;
        else value = value * 10 + (c - ZERO);
      }
      if (this.pages.fieldsOf(this.sourcePage) < 0 || this.pages.fieldsOf(this.targetPage) < 0) continue;
      this.textAt = at;
      this.anchorEnd = row.indexOf(NUL, at);
      this.altEnd = row.indexOf(NUL, this.anchorEnd + 1);
      this.link = undefined;
      if (this.code < 0 || this.anchorEnd < 0 || this.altEnd < 0 || row.indexOf(NUL, this.altEnd + 1) >= 0) {
        this.link = this.linkById(this.id);
        if (this.link === undefined) continue;
        this.type = typeof this.link[4] === 'number' ? '' : csvString(this.link[4]);
      }
      return (this.current = row);
    }
  }

  /** Reads the next links and their pages; false when there are none. */
  private readBatch(): boolean {
    const { batch, pageIds, links, pages } = this;
    batch.length = 0;
    pageIds.length = 0;
    this.position = 0;
    if (this.ended) return false;
    while (batch.length < BATCH) {
      const next = links.next();
      if (next.done) break;
      batch.push(next.value);
    }
    if (batch.length === 0) {
      this.close();
      return false;
    }
    if (!pages.complete) {
      for (const row of batch) {
        const first = row.indexOf(',');
        pageIds.push(Number(row.slice(0, first)), Number(row.slice(first + 1, row.indexOf(',', first + 1))));
      }
      pages.load(pageIds);
    }
    return true;
  }

  /** Writes the current record at `at` (room checked); returns the offset after it. */
  private write(into: Buffer, view: DataView, at: number): number {
    const row = this.current!;
    this.current = undefined;
    const { pages, link } = this;
    const arena = pages.arena;
    const arenaView = pages.arenaView;
    const bounds = pages.fieldBounds;
    const source = 5 * pages.fieldsOf(this.sourcePage);
    const target = 5 * pages.fieldsOf(this.targetPage);
    let end = writeHexId(into, view, at, this.id);
    into[end++] = COMMA;
    end = writeHexId(into, view, end, this.sourceRoot);
    into[end++] = COMMA;
    end = copyBytes(arenaView, arena, bounds[source], bounds[source + 1], view, into, end);
    into[end++] = COMMA;
    end = copyBytes(arenaView, arena, bounds[target], bounds[target + 1], view, into, end);
    into[end++] = COMMA;
    end = copyBytes(arenaView, arena, bounds[source + 1], bounds[source + 2], view, into, end);
    into[end++] = COMMA;
    const code = this.code;
    let flags: Uint8Array;
    if (link === undefined) {
      end = copy(TYPE_BYTES[code & 7], into, end);
      into[end++] = COMMA;
      end = writeCsvText(into, end, row, this.textAt, this.anchorEnd);
      into[end++] = COMMA;
      end = writeCsvText(into, end, row, this.anchorEnd + 1, this.altEnd);
      end = writeText(into, end, row, this.altEnd + 1);
      flags = FLAGS[(code >> 3) & 1][code & 7];
    } else {
      const type = link[4];
      end = typeof type === 'number' ? copy(TYPE_BYTES[type], into, end) : writeText(into, end, this.type, 0);
      into[end++] = COMMA;
      end = writeCsvText(into, end, link[5], 0, link[5].length);
      into[end++] = COMMA;
      end = writeCsvText(into, end, link[6], 0, link[6].length);
      end = writeText(into, end, link[7], 0);
      flags = typeof type === 'number' ? FLAGS[link[8] === 1 ? 1 : 0][type] : UNKNOWN_TYPE_FLAGS[link[8] === 1 ? 1 : 0];
    }
    end = copyBytes(arenaView, arena, bounds[source + 2], bounds[source + 3], view, into, end);
    into[end++] = COMMA;
    end = copyBytes(arenaView, arena, bounds[target + 2], bounds[target + 3], view, into, end);
    end = copy(flags, into, end);
    end = copyBytes(arenaView, arena, bounds[source + 3], bounds[source + 4], view, into, end);
    into[end++] = COMMA;
    if (link === undefined) into[end++] = ZERO + (code >> 4);
    else {
      const strength = link[9];
      if (strength !== null && strength >= 0 && strength <= 9 && Number.isInteger(strength)) into[end++] = ZERO + strength;
      else if (strength !== null) end += into.write(String(strength), end, 'latin1');
    }
    into[end++] = NEWLINE;
    this.written++;
    return end;
  }
}

/** A DataView of all of a buffer's bytes. */
function viewOf(bytes: Buffer): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/**
 * Copies `from[start, end)` into `into` at `at`, four bytes at a time through their views
 * (short runs: a loop beats a native call; whole words take a quarter of the steps).
 */
function copyBytes(fromView: DataView, from: Uint8Array, start: number, end: number, intoView: DataView, into: Uint8Array, at: number): number {
  let i = start;
  for (; i + 4 <= end; i += 4, at += 4) intoView.setUint32(at, fromView.getUint32(i, true), true);
  for (; i < end; i++) into[at++] = from[i];
  return at;
}

/**
 * Writes `text` from `start` to its end as UTF-8 at `at`: an ASCII text (the dates run)
 * in a loop, which for a field of a few dozen characters costs less than a native
 * `write`; any other text natively, from `start`.
 */
function writeText(into: Buffer, at: number, text: string, start: number): number {
  const n = text.length;
  for (let i = start, to = at; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x80) return at + into.write(start === 0 ? text : text.slice(start), at);
    into[to++] = c;
  }
  return at + n - start;
}

/** At most how many bytes `csvString` of a text of `length` units takes in UTF-8: 3 a unit, a doubled quote 1 more, 2 around. */
function csvTextBytes(length: number): number {
  return length * (MAX_UTF8_BYTES_PER_UNIT + 1) + 2;
}

/**
 * Writes `csvString(text.slice(start, end))` as UTF-8 at `at`: a text that is ASCII and
 * needs no quotes (most anchors and alts) in the same loop that finds it needs none;
 * any other text through `csvString`, natively, from its start.
 */
function writeCsvText(into: Buffer, at: number, text: string, start: number, end: number): number {
  for (let i = start, to = at; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x80 || c === QUOTE || c === COMMA || c === NEWLINE || c === RETURN) return at + into.write(csvString(text.slice(start, end)), at);
    into[to++] = c;
  }
  return at + end - start;
}

/** Copies a short `from` (a few bytes) into `into` at `at`. */
function copy(from: Uint8Array, into: Uint8Array, at: number): number {
  for (let i = 0; i < from.length; i++) into[at++] = from[i];
  return at;
}

/** `hexId(id)` as bytes: 24 lower-case hex digits. */
function writeHexId(into: Buffer, view: DataView, at: number, id: number): number {
  if (!(id >= 0 && id < 0x1_0000_0000 && Number.isInteger(id))) return at + into.write(hexId(id), at, 'latin1');
  // The 16 leading zeros as four words (a native fill costs more for so few bytes).
  view.setUint32(at, ZEROS, true);
  view.setUint32(at + 4, ZEROS, true);
  view.setUint32(at + 8, ZEROS, true);
  view.setUint32(at + 12, ZEROS, true);
  for (let shift = 28, i = at + 16; shift >= 0; shift -= 4) into[i++] = HEX_DIGITS[(id >>> shift) & 0xf];
  return at + 24;
}
