import { test } from 'node:test';
import assert from 'node:assert/strict';
import { classifyAnchor } from '../../../src/engine/links/anchorClass.js';

const D = 'summitpeak.com';
const classOf = (text: string) => classifyAnchor(text, D).class;

test('empty and URL anchors', () => {
  assert.equal(classOf(''), 'empty');
  assert.equal(classOf('   '), 'empty');
  for (const own of ['summitpeak.com', 'www.summitpeak.com', 'https://www.summitpeak.com/', 'HTTP://SummitPeak.com'])
    assert.equal(classOf(own), 'brand.url', own);
  for (const other of ['https://www.summitpeak.com/products/camping-chair', 'trailforge.com', 'https://example.org/x?y=1']) {
    assert.equal(classOf(other), 'naked.url', other);
  }
});

test('brand words, stop words and other words, with per-token classes and shares', () => {
  assert.equal(classOf('Summitpeak'), 'brand.domain');
  const split = classifyAnchor('Summit Peak chairs', D);
  assert.equal(split.class, 'brand.domain');
  assert.deepEqual(split.tokens, [
    { token: 'summit', 'brand.domain': 1 },
    { token: 'peak', 'brand.domain': 1 },
    { token: 'chairs', 'other.normal': 1 },
  ]);
  assert.deepEqual(split.score, { 'brand.domain': 0.6667, 'other.normal': 0.3333, 'other.stop': 0 });
  assert.equal(classOf('peak hiking boots'), 'other.normal', 'part of the brand alone is not the brand');
  assert.equal(classOf('click here'), 'other.stop');
  assert.equal(classOf('read more'), 'other.stop');
  const mixed = classifyAnchor('the best camping chair', D);
  assert.equal(mixed.class, 'other.normal');
  assert.deepEqual(mixed.score, { 'brand.domain': 0, 'other.normal': 0.75, 'other.stop': 0.25 });
});
