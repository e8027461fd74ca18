/**
 * The records of a CSV text as RFC 4180 writes them (fields quoted or not, `""` for a quote
 * inside a quoted field, commas and line breaks inside quotes, LF or CRLF between records),
 * without the first `skipLines` lines. Written for the shipped geotargets (50,000 rows read
 * at every start): csv-parse took ~0.35 CPU-s of a restart for them, this ~0.05 (issue 26).
 * The same records as csv-parse's on every shipped file (test/tools/shared/csvRecords.test.ts).
 */
const QUOTE = 34;
const COMMA = 44;
const LF = 10;
const CR = 13;

export function csvRecords(text: string, skipLines = 0): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let line = 0;
  let i = 0;
  const n = text.length;
  while (i < n) {
    if (text.charCodeAt(i) === QUOTE) {
      let field = '';
      let start = ++i;
      for (;;) {
        const quote = text.indexOf('"', i);
        if (quote < 0) throw new Error(`CSV: a quoted field is not closed (record ${line + 1})`);
        if (text.charCodeAt(quote + 1) === QUOTE) {
          field += text.slice(start, quote + 1);
          i = start = quote + 2;
          continue;
        }
        field += text.slice(start, quote);
        i = quote + 1;
        break;
      }
      record.push(field);
    } else {
      let end = i;
      for (let c = text.charCodeAt(end); end < n && c !== COMMA && c !== LF && c !== CR; c = text.charCodeAt(++end));
      record.push(text.slice(i, end));
      i = end;
    }
    const next = text.charCodeAt(i);
    if (next === COMMA) {
      i++;
      // A comma at the very end leaves an empty last field.
      if (i === n) record.push('');
      else continue;
    } else if (next === CR || next === LF) {
      i += next === CR && text.charCodeAt(i + 1) === LF ? 2 : 1;
    } else if (i < n) {
      throw new Error(`CSV: text after a closing quote (record ${line + 1})`);
    }
    if (line++ >= skipLines) records.push(record);
    record = [];
  }
  return records;
}
