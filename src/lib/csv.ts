/**
 * CSV encoding for the export hot path: RFC 4180 fields, a field is quoted only when it
 * needs to be (it holds a comma, a double quote, CR or LF), double quotes doubled,
 * records ended by `\n`. Values are written the way csv-stringify writes them with the
 * export's boolean cast, so files stay byte for byte what they were: strings as they are,
 * numbers and bigints by `String`, booleans `true`/`false`, null and undefined empty,
 * dates as epoch milliseconds, other objects as JSON. csv-stringify itself was too slow
 * for a million-row export (docs/decisions.md, "Backlink export: own CSV encoder, one scan
 * of the links, page details per batch").
 *
 * @example
 * csvRecord(['a,b', 'say "hi"', true, 3, null]); // '"a,b","say ""hi""",true,3,\n'
 */

const NEEDS_QUOTES = /[",\r\n]/;
const QUOTE = /"/g;

/** One string field, quoted only when it holds a delimiter, a quote or a line break. */
export function csvString(text: string): string {
  return NEEDS_QUOTES.test(text) ? `"${text.replace(QUOTE, '""')}"` : text;
}

/** One field of any value, encoded as described above. */
export function csvField(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return csvString(value);
    case 'number':
    case 'bigint':
      return String(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'undefined':
      return '';
    default:
      if (value === null) return '';
      if (value instanceof Date) return String(value.getTime());
      return csvString(JSON.stringify(value) ?? '');
  }
}

/** One record: the fields joined by commas, ended by `\n`. */
export function csvRecord(fields: ArrayLike<unknown>): string {
  const n = fields.length;
  if (n === 0) return '\n';
  let line = csvField(fields[0]);
  for (let i = 1; i < n; i++) line += ',' + csvField(fields[i]);
  return line + '\n';
}

/**
 * Rows that encode themselves: whole CSV records written straight into bytes, the way
 * `csvRecord` would write them, for a source that is faster at it than string records
 * (backlink exports: engine/links/backlinkCsv.ts). The writer asks how many bytes the
 * next record may take, gives a buffer with that much room, and lets the source fill it.
 */
export interface CsvRecordSource {
  /** At most how many bytes the next record takes; 0 when every record has been written. */
  nextRecordBytes(): number;
  /**
   * Writes up to `maxRows` records into `into` from byte `at`, as long as the next one
   * surely fits (at least one when `nextRecordBytes()` bytes are free); returns the offset
   * after the last one written.
   */
  writeRecords(into: Buffer, at: number, maxRows: number): number;
  /** Records written so far. */
  readonly written: number;
  /** Stops early (an export that failed or was aborted): releases what the source reads from. */
  close(): void;
}

/** True for a `CsvRecordSource` (rather than an iterable of rows). */
export function isCsvRecordSource(rows: unknown): rows is CsvRecordSource {
  return typeof (rows as CsvRecordSource).writeRecords === 'function';
}
