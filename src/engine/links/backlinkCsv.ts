/**
 * Backlink CSV records written straight into bytes: what a backlink export writes, byte
 * for byte `csvRecord(backlinkRow(...))` (linksService.ts), at a fraction of its cost.
 *
 * - The links query selects few columns, most of them integers: the record's run of link
 *   dates and lost state comes out of SQLite already as CSV text (`printf`), the type as a
 *   small code; a string column costs SQLite and V8 more than the bytes it holds.
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
 * const source = new BacklinkCsvSource(new PageCsvReader(raw), links); // links: the query's raw iterator
 * const chunk = Buffer.alloc(source.nextRecordBytes());
 * const end = source.writeRecords(chunk, 0, 1); // one record, chunk.subarray(0, end)
 */
import { csvString, type CsvRecordSource } from '../../lib/csv.js';
import { hexId } from './targets.js';
import { languageCode, PageReader, type PageRow } from './pageDetails.js';

/** Link types in the order of their codes in `BACKLINK_CSV_COLUMNS`. */
const TYPES = ['text', 'image', 'redirect', 'frame', 'mention'] as const;

/** A quoted SQL text as `csvString` quotes it (used on the rare lost reason only). */
const sqlCsvString = (x: string) =>
  `CASE WHEN instr(${x}, ',') + instr(${x}, '"') + instr(${x}, char(10)) + instr(${x}, char(13)) THEN '"' || replace(${x}, '"', '""') || '"' ELSE ${x} END`;

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
  `printf(',%s,%s,%s,', l.first_seen, l.last_seen, l.last_seen) || CASE l.deleted WHEN 1 THEN 'true,' || ${sqlCsvString('l.reason_lost')} ELSE 'false,' END || ','`,
  'l.nofollow',
  'l.strength',
].join(', ');

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
 * The CSV records of the links a query yields (`BACKLINK_CSV_COLUMNS`, in list order),
 * read a batch at a time with their pages. A link whose source or target page, or its metrics, is missing
 * from the index has no backlink to show and is left out, as in backlink lists.
 */
export class BacklinkCsvSource implements CsvRecordSource {
  private readonly pages: PageCsvReader;
  private readonly batch: CsvLinkRow[] = [];
  private readonly pageIds: number[] = [];
  private position = 0;
  private ended = false;
  /** The next record's link and its quoted strings, once `nextRecordBytes` has found it. */
  private current: CsvLinkRow | undefined;
  private type = '';
  /** The buffer written last and a DataView of it (writers reuse their buffers). */
  private into: Buffer | undefined;
  private intoView: DataView | undefined;
  written = 0;

  constructor(
    pages: PageCsvReader,
    private readonly links: IterableIterator<CsvLinkRow>,
  ) {
    this.pages = pages;
  }

  nextRecordBytes(): number {
    const link = this.next();
    if (link === undefined) return 0;
    const { pages } = this;
    const bounds = pages.fieldBounds;
    const source = 5 * pages.fieldsOf(link[0]);
    const target = 5 * pages.fieldsOf(link[1]);
    return (
      FIXED_RECORD_BYTES +
      (bounds[source + 4] - bounds[source]) +
      (bounds[target + 1] - bounds[target]) +
      (bounds[target + 3] - bounds[target + 2]) +
      (this.type.length + link[7].length) * MAX_UTF8_BYTES_PER_UNIT +
      csvTextBytes(link[5]) +
      csvTextBytes(link[6])
    );
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

  /** The next link with both pages in memory, its quoted strings prepared; undefined at the end. */
  private next(): CsvLinkRow | undefined {
    if (this.current !== undefined) return this.current;
    for (;;) {
      if (this.position === this.batch.length && !this.readBatch()) return undefined;
      const link = this.batch[this.position++];
      if (this.pages.fieldsOf(link[0]) < 0 || this.pages.fieldsOf(link[1]) < 0) continue;
      this.type = typeof link[4] === 'number' ? '' : csvString(link[4]);
      return (this.current = link);
    }
  }

  /** Reads the next links and their pages; false when there are none. */
  private readBatch(): boolean {
    const { batch, pageIds, links } = this;
    batch.length = 0;
    pageIds.length = 0;
    this.position = 0;
    if (this.ended) return false;
    while (batch.length < BATCH) {
      const next = links.next();
      if (next.done) break;
      batch.push(next.value);
      pageIds.push(next.value[0], next.value[1]);
    }
    if (batch.length === 0) {
      this.close();
      return false;
    }
    this.pages.load(pageIds);
    return true;
  }

  /** Writes the current record at `at` (room checked); returns the offset after it. */
  private write(into: Buffer, view: DataView, at: number): number {
    const link = this.current!;
    this.current = undefined;
    const { pages } = this;
    const arena = pages.arena;
    const arenaView = pages.arenaView;
    const bounds = pages.fieldBounds;
    const source = 5 * pages.fieldsOf(link[0]);
    const target = 5 * pages.fieldsOf(link[1]);
    let end = writeHexId(into, view, at, link[2]);
    into[end++] = COMMA;
    end = writeHexId(into, view, end, link[3]);
    into[end++] = COMMA;
    end = copyBytes(arenaView, arena, bounds[source], bounds[source + 1], view, into, end);
    into[end++] = COMMA;
    end = copyBytes(arenaView, arena, bounds[target], bounds[target + 1], view, into, end);
    into[end++] = COMMA;
    end = copyBytes(arenaView, arena, bounds[source + 1], bounds[source + 2], view, into, end);
    into[end++] = COMMA;
    const type = link[4];
    end = typeof type === 'number' ? copy(TYPE_BYTES[type], into, end) : writeText(into, end, this.type);
    into[end++] = COMMA;
    end = writeCsvText(into, end, link[5]);
    into[end++] = COMMA;
    end = writeCsvText(into, end, link[6]);
    end = writeText(into, end, link[7]);
    end = copyBytes(arenaView, arena, bounds[source + 2], bounds[source + 3], view, into, end);
    into[end++] = COMMA;
    end = copyBytes(arenaView, arena, bounds[target + 2], bounds[target + 3], view, into, end);
    const flags = typeof type === 'number' ? FLAGS[link[8] === 1 ? 1 : 0][type] : UNKNOWN_TYPE_FLAGS[link[8] === 1 ? 1 : 0];
    end = copy(flags, into, end);
    end = copyBytes(arenaView, arena, bounds[source + 3], bounds[source + 4], view, into, end);
    into[end++] = COMMA;
    const strength = link[9];
    if (strength !== null && strength >= 0 && strength <= 9 && Number.isInteger(strength)) into[end++] = ZERO + strength;
    else if (strength !== null) end += into.write(String(strength), end, 'latin1');
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
 * Writes `text` as UTF-8 at `at`: an ASCII text (the dates run) in a loop,
 * which for a field of a few dozen characters costs less than a native `write`; any
 * other text natively, from its start.
 */
function writeText(into: Buffer, at: number, text: string): number {
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x80) return at + into.write(text, at);
    into[at + i] = c;
  }
  return at + n;
}

/** At most how many bytes `csvString(text)` takes in UTF-8: 3 a unit, a doubled quote 1 more, 2 around. */
function csvTextBytes(text: string): number {
  return text.length * (MAX_UTF8_BYTES_PER_UNIT + 1) + 2;
}

/**
 * Writes `csvString(text)` as UTF-8 at `at`: a text that is ASCII and needs no quotes
 * (most anchors and alts) in the same loop that finds it needs none, instead of a regular
 * expression test and then a copy; any other text through `csvString`, natively, from its start.
 */
function writeCsvText(into: Buffer, at: number, text: string): number {
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x80 || c === QUOTE || c === COMMA || c === NEWLINE || c === RETURN) return at + into.write(csvString(text), at);
    into[at + i] = c;
  }
  return at + n;
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
