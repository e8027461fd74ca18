import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { Bm25Index } from '../../../src/engine/search/bm25Index.js';
import { buildBm25Index } from '../../../src/engine/search/bm25Builder.js';
import { baseClickThroughRate, clickThroughRate } from '../../../src/engine/search/clickThroughCurve.js';
import { keywordDifficulty } from '../../../src/engine/search/keywordDifficulty.js';
import { keywordId } from '../../../src/engine/search/keywordIds.js';
import { intentSignals } from '../../../src/engine/search/searchIntent.js';
import { chooseFeatures } from '../../../src/engine/search/serpFeatures.js';
import { parseSnapshotId, serpSnapshotId, serpSourceUrl } from '../../../src/engine/search/serpIdentity.js';
import { layoutSerp, serpFeaturesImpact, type LayoutBlock } from '../../../src/engine/search/serpLayout.js';
import { normaliseKeyword, tokenize } from '../../../src/engine/search/text.js';

test('keyword ids are 32 hex and stable for the normalised keyword, location and language', () => {
  const id = keywordId('  Running   Shoes ', 2840, 1000);
  assert.match(id, /^[0-9a-f]{32}$/);
  assert.equal(id, keywordId('running shoes', 2840, 1000));
  assert.notEqual(id, keywordId('running shoes', 2276, 1000));
  assert.notEqual(id, keywordId('running shoes', 2840, 1001));
  assert.equal(normaliseKeyword(' A\tB  c '), 'a b c');
  assert.deepEqual(tokenize('Best running-shoes, 2026!'), ['best', 'running', 'shoes', '2026']);
});

test('BM25 ranks the documents that use the query terms, rarer terms weighing more', () => {
  const docs = [
    ['running shoes', 'best running shoes', 'running shoes cushioning'],
    ['coffee grinder', 'burr grinder', 'coffee beans'],
    ['shoes', 'leather shoes', 'shoes'],
    ['running', 'running tips', 'running training'],
  ];
  const index = buildBm25Index(docs.length, (i) => docs[i]);
  const hit = index.search(['running', 'shoes'], 10);
  assert.equal(hit.docs[0], 0);
  assert.equal(hit.docs.length, 3);
  assert.ok(!Array.from(hit.docs).includes(1));
  for (let i = 1; i < hit.scores.length; i++) assert.ok(hit.scores[i - 1] >= hit.scores[i]);
  assert.equal(index.search(['grinder'], 10).docs[0], 1);
  assert.equal(index.search(['nothing'], 10).docs.length, 0);
  assert.equal(index.search(['running', 'shoes'], 1).docs.length, 1);
});

test('CTRs by position are non-increasing, sum to at most 1 and drop under features', () => {
  let sum = 0;
  for (let p = 1; p <= 100; p++) {
    sum += baseClickThroughRate(p);
    if (p > 1) assert.ok(baseClickThroughRate(p) <= baseClickThroughRate(p - 1));
  }
  assert.ok(sum <= 1);
  assert.ok(clickThroughRate(1, ['FEATURED_SNIPPET']) < clickThroughRate(1, []));
});

test('keyword difficulty rises with the authority of the first page', () => {
  const weak = keywordDifficulty(Array.from({ length: 10 }, () => ({ upa: 10, pda: 15 })));
  const strong = keywordDifficulty(Array.from({ length: 10 }, () => ({ upa: 70, pda: 85 })));
  assert.ok(weak < strong);
  assert.ok(weak >= 0 && strong <= 100);
  // Weighted toward the top: a strong first result counts more than a strong tenth.
  const top = keywordDifficulty([{ upa: 90, pda: 90 }, ...Array.from({ length: 9 }, () => ({ upa: 10, pda: 10 }))]);
  const bottom = keywordDifficulty([...Array.from({ length: 9 }, () => ({ upa: 10, pda: 10 })), { upa: 90, pda: 90 }]);
  assert.ok(top > bottom);
  assert.ok(keywordDifficulty([]) === 0);
});

test('intent labels follow the wording', () => {
  assert.ok(intentSignals('how to clean espresso machine').labels.includes('informational'));
  assert.ok(intentSignals('how to clean espresso machine').howTo);
  assert.ok(intentSignals('what is cold brew').question);
  assert.ok(intentSignals('buy running shoes').labels.includes('transactional'));
  assert.ok(intentSignals('best running shoes').labels.includes('commercial'));
  assert.ok(intentSignals('coffee shop near me').labels.includes('local'));
  assert.ok(intentSignals('ironpulse', { isEntity: (t) => t === 'ironpulse' }).labels.includes('navigational'));
  assert.ok(intentSignals('running shoes', { cpc: 2.5 }).labels.includes('commercial'));
});

test('features follow intent and are deterministic', () => {
  const local = chooseFeatures('plumber near me', intentSignals('plumber near me'), 1);
  assert.ok(local.some((f) => f.type === 'LOCAL_PACK'));
  assert.deepEqual(local, chooseFeatures('plumber near me', intentSignals('plumber near me'), 1));
  const brand = chooseFeatures('ironpulse', intentSignals('ironpulse', { isEntity: () => true }), 1);
  for (const f of brand) if (f.type === 'KNO_GRAPH') assert.equal(f.column, 'side');
  for (let i = 1; i < local.length; i++) assert.ok(local[i - 1].afterOrganic <= local[i].afterOrganic);
});

test('layout boxes never overlap and are ordered top to bottom', () => {
  const types = ['ORGANIC', 'ADV_TOP', 'FEATURED_SNIPPET', 'LOCAL_PACK', 'SIMILAR_QUESTIONS', 'VIDEO_PACK', 'KNO_GRAPH'];
  fc.assert(
    fc.property(
      fc.array(fc.record({ type: fc.constantFrom(...types), members: fc.integer({ min: 0, max: 6 }), side: fc.boolean() }), { minLength: 1, maxLength: 40 }),
      fc.constantFrom(1 as const, 2 as const),
      (spec, platform) => {
        const blocks: LayoutBlock[] = spec.map((s) => ({ type: s.type, members: s.members, column: s.type === 'KNO_GRAPH' && s.side ? 'side' : 'main' }));
        const layouts = layoutSerp(blocks, platform);
        for (let i = 0; i < layouts.length; i++) {
          const a = layouts[i].size;
          assert.ok(a.b > a.t && a.r > a.l);
          assert.ok(layouts[i].visPart >= 0 && layouts[i].visPart <= 100);
          for (let j = i + 1; j < layouts.length; j++) {
            const b = layouts[j].size;
            const overlap = a.l < b.r && b.l < a.r && a.t < b.b && b.t < a.b;
            assert.ok(!overlap, `boxes ${i} and ${j} overlap`);
            if (a.l === b.l) assert.ok(b.t >= a.b, 'same column ordered top to bottom');
          }
          const fold = layouts[i].positionToFold;
          assert.equal(fold.status, fold.elementBottom <= fold.fold ? 'above' : fold.elementTop < fold.fold ? 'in' : 'below');
        }
        const impact = serpFeaturesImpact(blocks, layouts, platform);
        assert.ok(impact >= 0 && impact <= 100);
      },
    ),
  );
  const organicOnly: LayoutBlock[] = Array.from({ length: 10 }, () => ({ type: 'ORGANIC', column: 'main', members: 0 }));
  const plain = layoutSerp(organicOnly, 1);
  assert.equal(serpFeaturesImpact(organicOnly, plain, 1), 0);
  const withPack: LayoutBlock[] = [{ type: 'ADV_TOP', column: 'main', members: 3 }, { type: 'LOCAL_PACK', column: 'main', members: 3 }, ...organicOnly];
  assert.ok(serpFeaturesImpact(withPack, layoutSerp(withPack, 1), 1) > 50);
});

test('snapshot ids carry the date, the hundred-result mark and the .sch mark from 2026-10-02', () => {
  const id = 'a'.repeat(32);
  assert.equal(serpSnapshotId(id, '2026-10-01', 100), `${id}.2026-10-01.100`);
  assert.equal(serpSnapshotId(id, '2026-10-02', 100), `${id}.2026-10-02.100.sch`);
  assert.equal(serpSnapshotId(id, '2026-11-22', 40), `${id}.2026-11-22.sch`);
  assert.deepEqual(parseSnapshotId(`${id}.2026-11-22.100.sch`), { id, date: '2026-11-22', hundred: true, sch: true });
  assert.equal(parseSnapshotId(id), undefined);
  assert.equal(serpSourceUrl('Laufschuhe', 'google.de', 'DE', 'de', 0, 1), 'https://www.google.de/search?q=laufschuhe&gl=de&hl=de&num=100');
});

test('a BM25 index rebuilt from its parts answers the same', () => {
  const docs = [
    ['espresso machine', 'best espresso', 'espresso crema grind'],
    ['coffee grinder', 'burr', 'coffee grind'],
    ['tent', 'camping tent', 'camp trail'],
  ];
  const index = buildBm25Index(docs.length, (i) => docs[i], [3, 2, 1], { preTokenized: [false, false, true] });
  const copy = Bm25Index.fromParts(index.toParts());
  for (const q of [['espresso'], ['coffee', 'grind'], ['camp', 'tent'], ['nothing']]) assert.deepEqual(copy.search(q, 5), index.search(q, 5));
});

test('targets are classified as domain, subdomain or URL', async () => {
  const { classifyTarget, urlKey } = await import('../../../src/engine/search/searchTargets.js');
  assert.deepEqual(
    ['example.com', 'www.example.com', 'https://www.example.com/', 'blog.example.co.uk', 'https://shop.example.com/products/tent', 'example.com/a?b=1'].map(
      (u) => classifyTarget(u).type,
    ),
    ['domain', 'domain', 'domain', 'subdomain', 'url', 'url'],
  );
  assert.equal(classifyTarget('blog.example.co.uk').domain, 'example.co.uk');
  assert.equal(urlKey('HTTPS://WWW.Example.com/Path/'), 'example.com/Path');
});
