/**
 * Realistic SERPs for the snapshot tests and benchmark: a local, question-like query
 * with ads, a map pack, a featured snippet, "people also ask" and ten organic results,
 * laid out by the engine's own layout model so the boxes are what the engine stores.
 */
import { layoutSerp, type LayoutBlock } from '../../src/engine/search/serpLayout.js';
import type { SnapshotItem, SnapshotMember, SnapshotSerp } from '../../src/render/snapshotInput.js';

interface Draft {
  type: string;
  column?: 'main' | 'side';
  url?: string;
  title?: string;
  desc?: string;
  domain?: string;
  items?: SnapshotMember[];
}

const organic = (domain: string, path: string, title: string, desc: string): Draft => ({
  type: 'ORGANIC',
  url: `https://www.${domain}${path}`,
  title,
  desc,
  domain: `www.${domain}`,
});

const member = (type: string, domain: string | null, title: string, desc: string | null = null, extra: Partial<SnapshotMember> = {}): SnapshotMember => ({
  type,
  url: domain ? `https://www.${domain}/` : null,
  title,
  desc,
  domain: domain ? `www.${domain}` : null,
  ...extra,
});

/** Lays drafts out with the engine's layout model, as the SERP builder does. */
function laidOut(drafts: Draft[], platform: 1 | 2): SnapshotItem[] {
  const blocks: LayoutBlock[] = drafts.map((d) => ({ type: d.type, column: d.column ?? 'main', members: d.items?.length ?? 0 }));
  const layouts = layoutSerp(blocks, platform);
  return drafts.map((d, i) => ({
    type: d.type,
    url: d.url ?? null,
    title: d.title ?? null,
    desc: d.desc ?? null,
    domain: d.domain ?? null,
    size: layouts[i].size,
    items: d.items ?? [],
  }));
}

const PLUMBER_DRAFTS: Draft[] = [
  {
    type: 'ADV_TOP',
    items: [
      member(
        'ADV',
        'rapidflowplumbing.com',
        '24/7 Emergency Plumber Near You - No Call-Out Fee, Arrive in 60 Min',
        'Licensed & insured plumbers on call all night. Burst pipes, leaks, blocked drains. Upfront prices, 12-month guarantee on every repair.',
      ),
      member(
        'ADV',
        'drainmasters.net',
        'Blocked Drain? Same-Day Drain Unblocking | Drain Masters',
        'Fixed-price drain clearing with CCTV survey included. Book online in 2 minutes and get a confirmed arrival window.',
      ),
    ],
  },
  {
    type: 'LOCAL_PACK',
    items: [
      member('PLACE', 'brooklynpipeworks.com', 'Brooklyn Pipe Works', 'Plumber · 214 Atlantic Ave · Open 24 hours'),
      member('PLACE', 'harborplumbingco.com', 'Harbor Plumbing & Heating Co.', 'Plumber · 58 Court St · Closes 10 PM'),
      member('PLACE', 'flatbushrooter.com', 'Flatbush Rooter Service', 'Drainage service · 1290 Flatbush Ave · Open 24 hours'),
    ],
  },
  {
    type: 'FEATURED_SNIPPET',
    url: 'https://www.homerepairguide.org/plumbing/emergency-plumber-cost',
    domain: 'www.homerepairguide.org',
    title: 'How Much Does an Emergency Plumber Cost? (2026 Prices)',
    desc: 'An emergency plumber typically charges $150 to $500 for a call-out, with hourly rates of $100 to $300 at night, on weekends and on holidays. Most repairs such as a burst pipe or a failed water heater valve take one to three hours, so expect a total of $300 to $900.',
  },
  organic(
    'homerepairguide.org',
    '/plumbing/emergency-plumber-cost',
    'How Much Does an Emergency Plumber Cost? (2026 Prices)',
    'An emergency plumber typically charges $150 to $500 for a call-out, with hourly rates of $100 to $300 at night and on weekends. Learn what drives the price and how to save.',
  ),
  organic(
    'yelpish.com',
    '/search/emergency-plumbers/brooklyn',
    'THE BEST 10 Emergency Plumbers near Brooklyn, NY - Updated 2026',
    'Top 10 best emergency plumbers near Brooklyn, New York - with real reviews. "Came out at 2am for a burst pipe, fixed it in under an hour and the price was fair."',
  ),
  {
    type: 'SIMILAR_QUESTIONS',
    items: [
      member('QUESTION', null, 'How much does an emergency plumber charge per hour?'),
      member('QUESTION', null, 'What counts as a plumbing emergency?'),
      member('QUESTION', null, 'Can I call a plumber at night?'),
      member('QUESTION', null, 'How do I shut off the water in an emergency?'),
    ],
  },
  organic(
    'angieslist-demo.com',
    '/companylist/brooklyn/plumbing.htm',
    'Top 10 Plumbers in Brooklyn, NY | Verified Reviews',
    'Hire the best emergency plumbers in Brooklyn. Compare ratings, read verified reviews and request quotes from pre-screened local pros.',
  ),
  organic(
    'rapidflowplumbing.com',
    '/emergency-plumbing',
    'Emergency Plumbing Services - Rapid Flow Plumbing NYC',
    'Burst pipe, overflowing toilet or no hot water? Our emergency plumbers are on call 24/7 across Brooklyn and Queens with fully stocked vans.',
  ),
  organic(
    'familyhandyman-demo.com',
    '/article/plumbing-emergencies',
    '10 Plumbing Emergencies and What to Do Before the Plumber Arrives',
    'Know where your main shut-off valve is, how to stop a running toilet and what to do when a pipe freezes. Simple steps that limit water damage.',
  ),
  organic(
    'nyc-gov-demo.gov',
    '/site/buildings/homeowner/plumbing.page',
    'Licensed Master Plumbers - Department of Buildings',
    'Only a New York City licensed master plumber may perform plumbing work. Check a plumber’s license and see which work needs a permit.',
  ),
  organic(
    'reddit-demo.com',
    '/r/Brooklyn/comments/emergency_plumber',
    'Recommendations for an honest emergency plumber? : r/Brooklyn',
    'Our kitchen sink pipe just burst and the super is not answering. Anyone have a plumber who will come out tonight and won’t rip us off?',
  ),
  organic(
    'thumbtack-demo.com',
    '/ny/brooklyn/plumbers/',
    'The 10 Best Plumbers in Brooklyn, NY (with Free Estimates)',
    'Find top plumbers in Brooklyn. Emergency repairs, drain cleaning, water heater installation. Compare prices and hire today.',
  ),
  organic(
    'brooklynpipeworks.com',
    '/',
    'Brooklyn Pipe Works | 24 Hour Plumber in Brooklyn, NY',
    'Family-owned plumbing company serving Brooklyn since 1987. Emergency repairs, boiler service and bathroom remodels. Call day or night.',
  ),
  organic(
    'bobvila-demo.com',
    '/articles/emergency-plumber/',
    'When to Call an Emergency Plumber (and When It Can Wait)',
    'Not every leak needs a 3am call. Here is how to tell a true plumbing emergency from a problem that can wait until business hours.',
  ),
  {
    type: 'ADV_BOTTOM',
    items: [
      member(
        'ADV',
        'homeserve-demo.com',
        'Plumbing Cover From $7.99/Month - Repairs Included',
        'Cover for your plumbing and drainage with unlimited call-outs. Local engineers available 24/7, 365 days a year.',
      ),
    ],
  },
  {
    type: 'SIMILAR_QUERIES',
    items: [
      '24 hour plumber near me',
      'emergency plumber cost',
      'cheap emergency plumber',
      'plumber near me open now',
      'emergency plumber brooklyn',
      'blocked drain plumber',
      'water heater repair near me',
      'burst pipe repair',
    ].map((q) => member('QUERY', null, q)),
  },
];

export function plumberSerp(platform: 1 | 2): SnapshotSerp {
  return {
    kw: 'emergency plumber near me',
    platform_id: platform,
    location: { label: 'Brooklyn, New York, United States', code: 'us' },
    serp_source_url: 'https://www.google.com/search?q=emergency+plumber+near+me&gl=us&hl=en&num=100',
    results: 48_300_000,
    items: laidOut(PLUMBER_DRAFTS, platform),
  };
}

const ENTITY_DRAFTS: Draft[] = [
  {
    type: 'SHOP_RESULTS',
    items: [
      member('SHOP', 'trailgear.com', 'Northpeak Trail Runner 4 Men’s Running Shoe', null, { price: '$129.99' }),
      member('SHOP', 'runnersworld-shop.com', 'Northpeak Trail Runner 4 GTX Waterproof', 'Now $149.00 at Runners Shop'),
      member('SHOP', 'outdoorsupply.co', 'Northpeak Trail Runner 4 Women’s', null, { price: '$119.95' }),
      member('SHOP', 'sportsdirect-demo.com', 'Northpeak Trail Runner 3 (last season)', null),
    ],
  },
  {
    type: 'KNO_GRAPH',
    column: 'side',
    url: 'https://www.northpeak.com/',
    domain: 'www.northpeak.com',
    title: 'Northpeak',
    desc: 'Northpeak is an outdoor footwear and apparel company founded in 1994 in Boulder, Colorado. It is known for trail running shoes and lightweight hiking boots.',
    items: [member('LINK', 'northpeak.com', 'Trail Runner 4'), member('LINK', 'northpeak.com', 'Store locator'), member('LINK', 'northpeak.com', 'Returns')],
  },
  organic('northpeak.com', '/trail-runner-4', 'Trail Runner 4 | Northpeak Official Site', 'Our lightest trail shoe yet, with a rock plate and 4 mm lugs.'),
  {
    type: 'TOP_STORIES',
    items: [
      member('STORY', 'runningnews.com', 'Northpeak recalls a batch of Trail Runner 4 insoles'),
      member('STORY', 'gearpatrol-demo.com', 'The best trail running shoes of 2026, tested'),
      member('STORY', 'outsidemag-demo.com', 'Northpeak opens its first European flagship store in Munich'),
    ],
  },
  {
    type: 'VIDEO_PACK',
    items: [
      member('VIDEO', 'videohub-demo.com', 'Northpeak Trail Runner 4 review after 500 miles', 'An honest long-term test.'),
      member('VIDEO', 'videohub-demo.com', 'How to lace trail shoes for downhill running', null),
    ],
  },
  {
    type: 'IMG_PACK',
    items: [
      member('IMAGE', 'northpeak.com', 'Trail Runner 4'),
      member('IMAGE', 'trailgear.com', 'Sole'),
      member('IMAGE', 'gearpatrol-demo.com', 'On trail'),
      member('IMAGE', 'runningnews.com', 'Box'),
      member('IMAGE', 'outdoorsupply.co', 'Side view'),
    ],
  },
  {
    type: 'WEATHER',
    title: 'Boulder, CO: 14°C, partly cloudy',
    desc: 'Wind 8 km/h · Humidity 41 %',
    domain: 'www.weather-demo.com',
    url: 'https://www.weather-demo.com/boulder',
  },
  { type: 'NEWS_PACK', items: [member('STORY', 'runningnews.com', 'Northpeak shares rise after record quarter')] },
  { type: 'SPELL_ERROR', title: 'northpeak trail runner' },
  { type: 'DICTIONARY', title: 'trail (noun)', desc: 'A beaten path through rough country such as a forest or moor.' },
  { type: 'SIMILAR_ENTITIES', items: [member('QUERY', null, 'Salomon'), member('QUERY', null, 'Hoka'), member('QUERY', null, 'Altra')] },
  { type: 'TIME' },
];

/** A brand query showing the other drawn block types, the knowledge panel in the side column on desktop. */
export function entitySerp(platform: 1 | 2): SnapshotSerp {
  return {
    kw: 'northpeak trail runner 4',
    platform_id: platform,
    location: { label: 'United States', code: 'us' },
    engine_domain: 'google.com',
    results: 1_240_000,
    items: laidOut(ENTITY_DRAFTS, platform),
  };
}
