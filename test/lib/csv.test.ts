/**
 * The export CSV encoder: csv-parse reads back exactly the fields that were encoded,
 * whatever they hold (commas, quotes, CR, LF, any Unicode), and a record is byte for byte
 * what csv-stringify, which exports used before, writes with the export's boolean cast.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { csvField, csvRecord, csvString } from '../../src/lib/csv.js';

/** Strings that stress quoting: separators, quotes and line breaks among other characters. */
const awkwardText = fc.string({ unit: fc.constantFrom(',', '"', '\n', '\r', ' ', 'a', 'Z', '0', 'é', '–', '語', '😀', '\t', ';') });
const anyText = fc.oneof(fc.string({ unit: 'binary' }), awkwardText, fc.string());

/** What exports wrote before: csv-stringify with booleans as true/false. */
const stringifyLikeBefore = (rows: unknown[][]) => stringify(rows, { cast: { boolean: (v) => (v ? 'true' : 'false') } });

describe('csv encoder', () => {
  it('csv-parse reads back exactly the strings that were encoded', () => {
    const table = fc
      .integer({ min: 1, max: 6 })
      .chain((width) => fc.array(fc.array(anyText, { minLength: width, maxLength: width }), { minLength: 1, maxLength: 20 }));
    fc.assert(
      fc.property(table, (rows) => {
        assert.deepEqual(parse(rows.map(csvRecord).join('')), rows);
      }),
      { numRuns: 500 },
    );
  });

  it('writes every record as csv-stringify did (same quoting, same values)', () => {
    const value = fc.oneof(anyText, fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.constant(undefined));
    fc.assert(
      fc.property(fc.array(value, { minLength: 1, maxLength: 25 }), (row) => {
        assert.equal(csvRecord(row), stringifyLikeBefore([row]));
      }),
      { numRuns: 1000 },
    );
  });

  it('quotes a field only when it holds a comma, a double quote or a line break', () => {
    assert.equal(csvString('plain text – ünïcode'), 'plain text – ünïcode');
    assert.equal(csvString('a,b'), '"a,b"');
    assert.equal(csvString('say "hi"'), '"say ""hi"""');
    assert.equal(csvString('two\nlines'), '"two\nlines"');
    assert.equal(csvString('cr\r'), '"cr\r"');
    assert.equal(csvString(''), '');
    assert.equal(csvField(true), 'true');
    assert.equal(csvField(false), 'false');
    assert.equal(csvField(null), '');
    assert.equal(csvField(undefined), '');
    assert.equal(csvField(12), '12');
    assert.equal(csvField(new Date(Date.UTC(2024, 0, 1))), String(Date.UTC(2024, 0, 1)));
    assert.equal(csvField({ a: 'x,y' }), '"{""a"":""x,y""}"');
    assert.equal(csvRecord(['a,b', 'say "hi"', true, 3, null]), '"a,b","say ""hi""",true,3,\n');
  });
});
