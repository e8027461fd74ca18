import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Serp } from '../../src/engine/search/serpTypes.js';
import { renderSerpSnapshot, serpSnapshotSvg, SNAPSHOT_TITLE_COLOR, SNAPSHOT_WIDTH } from '../../src/render/serpSnapshot.js';
import type { SnapshotItem, SnapshotSerp } from '../../src/render/snapshotInput.js';
import { decodePng, distinctColours, pixelsNear } from './pngInspection.js';
import { entitySerp, plumberSerp } from './serpFixture.js';

/** Every rich-snippet type the spec lists for the SERP object. */
const SPEC_TYPES = [
  'SPELL_ERROR',
  'SUGGESTION',
  'KNO_GRAPH',
  'KNO_GRAPH_LINK',
  'TOP_CAROUSEL',
  'TOP_STORIES',
  'ADV_TOP',
  'ADV_BOTTOM',
  'NEWS_CAROUSEL',
  'NEWS_PACK',
  'IMG_PACK',
  'VIDEO_PACK',
  'FLIGHTS',
  'VIDEO_PANEL',
  'INSTALL_APP',
  'INSTALL_APP_GRID',
  'LOCAL_PACK',
  'PROGRAM_OVERVIEW',
  'ORGANIC',
  'SIMILAR_QUERIES',
  'SIMILAR_ENTITIES',
  'SIMILAR_ENTITIES2',
  'SIMILAR_QUESTIONS',
  'SPECIFY_QUERY',
  'SIMILAR_PLACES',
  'POPULAR_LIST',
  'QUANTITY_ANSWER',
  'CURRENCY',
  'TIME',
  'FEATURED_SNIPPET',
  'WEATHER',
  'TRANSLATOR',
  'DICTIONARY',
  'TOP_SIGHTS',
  'TRAVEL_BOX',
  'INDEPTH_ARTICLE',
  'SHOP_RESULTS',
  'JOB_POSTING',
  'SPORTS',
];

const HOSTILE = [
  '<script>alert("x")</script>',
  'Tom & Jerry\'s "best" <b>deals</b> &amp; &#x3C;',
  'x'.repeat(5000),
  'Laufschuhe 🏃‍♀️👟🔥 emoji 👨‍👩‍👧‍👦 test',
  'مرحبا بالعالم — أفضل أحذية الجري',
  'שלום עולם נעלי ריצה',
  'control\u0000chars\u0007and\u001b[31m escape \uD800 lone surrogate \uFFFE',
  ']]><!--<![CDATA[ --> </svg><svg onload=alert(1)>',
].join(' ');

function hostileSerp(platform: 1 | 2): SnapshotSerp {
  const member = { type: 'X', url: 'javascript:alert(1)', title: HOSTILE, desc: HOSTILE, domain: '"><script>.com', price: '<b>$1</b>' };
  return {
    kw: HOSTILE,
    platform_id: platform,
    location: { label: HOSTILE, code: '<us>' },
    serp_source_url: 'not a url <script>',
    results: Number.NaN,
    items: SPEC_TYPES.map((type) => ({
      type,
      url: 'https://exa mple.com/<script>?"&',
      title: HOSTILE,
      desc: HOSTILE,
      domain: HOSTILE,
      items: [member, member, member],
    })),
  };
}

/** The SERP tool passes its stored Serp as it is: this only compiles while a Serp is a SnapshotSerp. */
const storedSerpIsASnapshotSerp = (serp: Serp): SnapshotSerp => serp;

describe('SERP snapshot', () => {
  it('accepts the engine Serp object as it is stored', () => {
    assert.equal(typeof storedSerpIsASnapshotSerp, 'function');
  });

  for (const [name, platform, width] of [
    ['desktop', 1, SNAPSHOT_WIDTH.desktop],
    ['mobile', 2, SNAPSHOT_WIDTH.mobile],
  ] as const) {
    it(`renders the ${name} fixture as a ${width} px wide, non-blank PNG with blue titles`, () => {
      const img = decodePng(renderSerpSnapshot(plumberSerp(platform)));
      assert.equal(img.width, width);
      assert.ok(img.height >= 2000 && img.height <= 4000, `height ${img.height}`);
      assert.ok(distinctColours(img) > 200, 'anti-aliased text and shapes give many colours');
      assert.ok(pixelsNear(img, SNAPSHOT_TITLE_COLOR, 2) > 500, 'result titles are drawn in the title blue');
    });
  }

  it('draws the knowledge panel in the right-hand column on desktop and in the single column on mobile', () => {
    const desktop = decodePng(renderSerpSnapshot(entitySerp(1)));
    const mobile = decodePng(renderSerpSnapshot(entitySerp(2)));
    // Right third of the desktop picture, near the top, holds the panel's text and pictures.
    let nonWhite = 0;
    for (let y = 200; y < 600; y++) {
      for (let x = 900; x < 1260; x++) {
        const i = (y * desktop.width + x) * 4;
        if (desktop.data[i] < 240 || desktop.data[i + 1] < 240 || desktop.data[i + 2] < 240) nonWhite++;
      }
    }
    assert.ok(nonWhite > 5000, `side panel pixels: ${nonWhite}`);
    assert.equal(mobile.width, SNAPSHOT_WIDTH.mobile);
    assert.ok(mobile.height > desktop.height, 'one column makes the mobile page longer');
  });

  it('renders hostile text (markup, entities, quotes, 5,000 characters, emoji, RTL, control characters) in every item type', () => {
    for (const platform of [1, 2] as const) {
      const serp = hostileSerp(platform);
      const { svg } = serpSnapshotSvg(serp, { maxItems: 60, maxHeight: 20_000 });
      assert.ok(!/<script|onload|<b>|CDATA/i.test(svg), 'no data text becomes markup');
      const img = decodePng(renderSerpSnapshot(serp));
      assert.equal(img.width, platform === 1 ? 1280 : 412);
      assert.ok(img.height <= 4000);
    }
  });

  it('gives every spec item type a block of its own', () => {
    const items: SnapshotItem[] = SPEC_TYPES.map((type) => ({
      type,
      url: `https://www.${type.toLowerCase()}.example/page`,
      title: `${type} title`,
      desc: `${type} description`,
      domain: `www.${type.toLowerCase()}.example`,
      items: [{ url: 'https://a.example/', title: 'member one', desc: 'about one', domain: 'a.example' }],
    }));
    const serp: SnapshotSerp = {
      kw: 'every type',
      platform_id: 1,
      location: { label: 'United States', code: 'us' },
      engine_domain: 'google.com',
      results: 10,
      items,
    };
    const all = serpSnapshotSvg(serp, { maxItems: 100, maxHeight: 100_000 });
    const fewer = serpSnapshotSvg({ ...serp, items: items.slice(0, -1) }, { maxItems: 100, maxHeight: 100_000 });
    assert.ok(all.height > fewer.height, 'the last type adds height');
    assert.ok(all.height > SPEC_TYPES.length * 60, `height ${all.height} leaves room for every block`);
  });

  it('keeps the picture within the height limit for a hundred-result SERP', () => {
    const serp = plumberSerp(1);
    const organic = serp.items.find((i) => i.type === 'ORGANIC')!;
    const hundred: SnapshotSerp = { ...serp, items: Array.from({ length: 100 }, () => ({ ...organic, size: null })) };
    const img = decodePng(renderSerpSnapshot(hundred, { maxItems: 100 }));
    assert.ok(img.height <= 4000 && img.height > 3000, `height ${img.height}`);
    const short = serpSnapshotSvg(hundred, { maxItems: 3 });
    assert.ok(short.height < 1000, 'maxItems bounds the items drawn');
  });

  it('lays out items without layout boxes in stored order', () => {
    const serp = plumberSerp(2);
    const unboxed = { ...serp, items: serp.items.map((i) => ({ ...i, size: undefined })) };
    assert.equal(serpSnapshotSvg(unboxed).height, serpSnapshotSvg(serp).height);
  });
});
