import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { shapeLine, textWidth, truncateToWidth, wrapText } from '../../src/render/fontMetrics.js';
import { escapeXml, text } from '../../src/render/svgMarkup.js';

describe('text layout for pictures', () => {
  it('wraps to the width and line count, ending a cut text with an ellipsis', () => {
    const lines = wrapText('How much does an emergency plumber cost on a Sunday night in Brooklyn', { width: 200, fontSize: 14, maxLines: 2 });
    assert.equal(lines.length, 2);
    for (const l of lines) assert.ok(textWidth(l, 14) <= 200, l);
    assert.ok(lines[1].endsWith('…'));
    assert.deepEqual(wrapText('short title', { width: 400, fontSize: 14, maxLines: 2 }), ['short title']);
  });

  it('breaks a word longer than the line between characters', () => {
    const lines = wrapText('https://www.example.com/a/very/long/path/without/any/spaces/at/all', { width: 120, fontSize: 12, maxLines: 3 });
    assert.equal(lines.length, 3);
    for (const l of lines) assert.ok(textWidth(l, 12) <= 120, l);
  });

  it('keeps every wrapped line within the width for any text', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 300 }),
        fc.integer({ min: 40, max: 600 }),
        fc.integer({ min: 1, max: 4 }),
        (content, width, maxLines) => {
          const lines = wrapText(content, { width, fontSize: 14, maxLines });
          assert.ok(lines.length <= maxLines);
          for (const l of lines) assert.ok(textWidth(l, 14) <= width + 0.001, `${JSON.stringify(l)} wider than ${width}`);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('truncates to the width and leaves fitting text alone', () => {
    assert.equal(truncateToWidth('fits', 100, 14), 'fits');
    const cut = truncateToWidth('x'.repeat(5000), 100, 14);
    assert.ok(cut.endsWith('…') && textWidth(cut, 14) <= 100);
  });

  it('escapes markup in attribute values and drops characters XML forbids', () => {
    assert.equal(escapeXml(`<a href="x">&'\u0000\uD800`), '&lt;a href=&quot;x&quot;&gt;&amp;&apos;');
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        const out = escapeXml(s);
        assert.ok(!/[<>"']/.test(out));
        assert.ok(!/&(?!amp;|lt;|gt;|quot;|apos;)/.test(out));
      }),
    );
  });

  it('draws text as glyph references only, never as the text itself', () => {
    const svg = text(0, 20, '<script>alert(1)</script>', { size: 14, fill: '#000' });
    assert.ok(!svg.includes('script'));
    assert.match(svg, /<use href="#r\d+"/);
  });

  it('orders mixed right-to-left and left-to-right text for display', () => {
    const arabic = 'مرحبا';
    const mixed = shapeLine(`abc ${arabic}`);
    const alone = shapeLine(arabic);
    const latin = shapeLine('abc ');
    // Latin first (left), then the Arabic run shaped right-to-left as it is on its own.
    assert.deepEqual(
      mixed.glyphs.slice(0, 3).map((g) => g.id),
      latin.glyphs.map((g) => g.id),
    );
    assert.deepEqual(
      mixed.glyphs.slice(3).map((g) => g.id),
      alone.glyphs.map((g) => g.id),
    );
  });
});
