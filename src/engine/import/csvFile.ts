/**
 * Reads the CSV files of the importers: UTF-8 (with or without BOM) or UTF-16LE (Google
 * Ads exports), comma- or tab-separated, with title lines before the header row (Keyword
 * Planner writes two). Returns the header row found by `isHeader` and the data rows.
 */
import fs from 'node:fs';
import { parse } from 'csv-parse/sync';
import { ImportError } from './importError.js';

export interface CsvTable {
  header: string[];
  rows: string[][];
}

/**
 * Reads the whole table before anything is written (an importer writes in one transaction
 * after it), refusing with an ImportError a file that is no CSV of the kind (`what`: no row
 * `isHeader` accepts), cannot be parsed (a quote never closed), or ends in the middle of a row
 * (a truncated file: its last row has fewer cells than the header and the row before it).
 */
export function readCsvTable(file: string, isHeader: (cells: string[]) => boolean, what = 'the expected CSV'): CsvTable {
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(file);
  } catch (error) {
    throw new ImportError(`${file}: cannot read the file: ${(error as Error).message}`);
  }
  let text: string;
  if (bytes[0] === 0xff && bytes[1] === 0xfe) text = bytes.subarray(2).toString('utf16le');
  else text = bytes.toString('utf8').replace(/^\uFEFF/, '');
  const firstLines = text.split(/\r?\n/, 5).join('\n');
  const delimiter = (firstLines.match(/\t/g)?.length ?? 0) > (firstLines.match(/,/g)?.length ?? 0) ? '\t' : ',';
  let records: string[][];
  try {
    records = parse(text, { delimiter, relax_column_count: true, relax_quotes: true, skip_empty_lines: true }) as string[][];
  } catch (error) {
    throw new ImportError(`${file}: not a readable CSV (${(error as Error).message}); nothing was imported`);
  }
  const headerIndex = records.findIndex((cells) => isHeader(cells.map((c) => c.trim())));
  if (headerIndex < 0) throw new ImportError(`${file}: not ${what}: no header row found; nothing was imported`);
  const header = records[headerIndex].map((c) => c.trim());
  const rows = records.slice(headerIndex + 1);
  const last = rows.at(-1);
  const before = rows.length > 1 ? rows[rows.length - 2].length : header.length;
  if (last && last.length < header.length && last.length < before) {
    throw new ImportError(`${file}: the last row has ${last.length} of ${header.length} columns: the file looks truncated; nothing was imported`);
  }
  return { header, rows };
}

/** Index of the first header cell matching one of the names (case-insensitive), or -1. */
export function columnIndex(header: string[], ...names: string[]): number {
  const lower = header.map((h) => h.toLowerCase());
  for (const name of names) {
    const i = lower.indexOf(name.toLowerCase());
    if (i >= 0) return i;
  }
  return -1;
}

/**
 * A number as Keyword Planner and link tools write them: "1,234", "1.5K", "0.85",
 * ranges like "1K – 10K" (their geometric mean), "" or "--" (null).
 */
export function parseLooseNumber(text: string | undefined): number | null {
  if (text === undefined) return null;
  const t = text.trim().replace(/\u00a0/g, ' ');
  if (t === '' || t === '--' || t === '-') return null;
  const range = t.split(/\s*[–-]\s*/).filter((part) => part !== '');
  if (range.length === 2) {
    const lo = parseLooseNumber(range[0]);
    const hi = parseLooseNumber(range[1]);
    return lo !== null && hi !== null ? Math.round(Math.sqrt(Math.max(lo, 1) * hi)) : null;
  }
  const match = /^([0-9][0-9,]*(?:\.[0-9]+)?)\s*([KkMm]?)$/.exec(t.replace(/[$€£]/g, '').trim());
  if (!match) return null;
  const value = Number(match[1].replace(/,/g, ''));
  const scale = match[2].toLowerCase() === 'k' ? 1e3 : match[2].toLowerCase() === 'm' ? 1e6 : 1;
  return value * scale;
}
