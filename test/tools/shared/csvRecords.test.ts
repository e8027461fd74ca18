/**
 * The geotargets' CSV reader (src/locations/csvRecords.ts) gives the records csv-parse gives:
 * on every shipped geotargets file, and on the RFC 4180 cases such a file may hold.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { csvRecords } from '../../../src/locations/csvRecords.js';

const DIR = path.resolve('assets/geotargets');

describe('csvRecords', () => {
  test('the same records as csv-parse on every shipped geotargets file, header skipped', () => {
    const files = fs.readdirSync(DIR).filter((f) => f.endsWith('.csv'));
    assert.ok(files.length >= 5);
    for (const file of files) {
      const bytes = fs.readFileSync(path.join(DIR, file));
      assert.deepEqual(csvRecords(bytes.toString('utf8'), 1), parse(bytes, { from_line: 2 }), file);
    }
  });

  test('quoted commas, doubled quotes, line breaks inside quotes, CRLF, empty and unquoted fields', () => {
    const text = 'a,b,c\n"x, y","say ""hi""",plain\n"two\nlines",,"last"\n"",z,\n';
    assert.deepEqual(csvRecords(text), parse(text, {}));
    const crlf = text.replaceAll('\n', '\r\n');
    assert.deepEqual(csvRecords(crlf), parse(crlf, {}));
    assert.deepEqual(csvRecords(text), [
      ['a', 'b', 'c'],
      ['x, y', 'say "hi"', 'plain'],
      ['two\nlines', '', 'last'],
      ['', 'z', ''],
    ]);
    assert.deepEqual(csvRecords('h\n1\n2', 1), [['1'], ['2']], 'no line break at the end');
  });

  test('a quoted field left open or text after a closing quote is an error, not a wrong record', () => {
    assert.throws(() => csvRecords('"open,1\n'), /not closed/);
    assert.throws(() => csvRecords('"a"b,1\n'), /after a closing quote/);
  });
});
