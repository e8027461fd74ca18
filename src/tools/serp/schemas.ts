/**
 * The SERP tool's operations, one schema per query, parameter set and answer, in the
 * reference's shapes (`Serp`, `SerpItem`, `SerpToolUrlMetrics`). The keyword tool's SERP
 * lookup answers the same `Serp`.
 */
import { Type, type Static } from '@sinclair/typebox';
import { AuthorityMetric, LinkIndexIndexItemInfo, SocialMetric, UrlMetricGroups } from '../common/metrics.js';
import {
  component,
  IntegerEnum,
  KeywordText,
  LocationId,
  LocationRef,
  LocationShort,
  Nullable,
  Ref,
  StringEnum,
  type ComponentList,
} from '../common/schemas.js';

const Box = Type.Object(
  { t: Type.Number(), l: Type.Number(), b: Type.Number(), r: Type.Number() },
  { description: 'CSS pixels on the page: top, left, bottom, right' },
);

const PositionToFold = Type.Object({
  status: StringEnum(['above', 'in', 'below'] as const, { description: 'Where the item sits against the fold (the viewport height)' }),
  fold: Type.Integer(),
  elementTop: Type.Integer(),
  elementBottom: Type.Integer(),
  rectTopOfWrapper: Type.Integer({ description: "Top edge of the item's wrapper (the item is its own wrapper)" }),
  rectBottomOfWrapper: Type.Integer({ description: "Bottom edge of the item's wrapper" }),
});

/** What every SERP item and pack member may carry. */
const itemProperties = {
  type: Type.String({ description: 'ORGANIC, a rich snippet type, or a pack member type (ADV, PLACE, STORY, QUESTION, …)' }),
  url: Nullable(Type.String()),
  title: Nullable(Type.String()),
  desc: Type.String({ description: 'Result-like items only' }),
  domain: Type.String({ description: 'Result-like items only' }),
  mId: Type.String({ description: 'Keyword id of a query item (similar questions and queries)' }),
  topRank: Nullable(Type.Integer()),
  position: Type.Integer({ description: 'Organic position, from 1 (organic items only)' }),
  size: Box,
  screenCoverage: Type.Integer({ description: 'Percent of the first screen the visible part covers' }),
  visPart: Type.Integer({ description: 'Percent of the item visible on the first screen' }),
  coverage: Type.Number({ description: 'Share of the page (document) area the item takes, 0–1' }),
  positionFromTheTopEdge: Type.String({ description: 'Distance from the top of the page, CSS pixels with two decimals' }),
  positionToFold: PositionToFold,
  ctr: Type.Number({ description: 'Click-through rate of an organic result' }),
  m: Ref(UrlMetricGroups),
};

/** A member of a pack (an ad, a place, a story, a question): the item fields it has. */
export const SerpPackItem = component(
  'SerpPackItem',
  Type.Object({
    type: itemProperties.type,
    ...Type.Partial(Type.Omit(Type.Object(itemProperties), ['type'])).properties,
    items: Type.Optional(Type.Array(Type.Unsafe<unknown>({ $ref: 'SerpPackItem' }))),
  }),
);

export const SerpItem = component(
  'SerpItem',
  Type.Object(
    {
      type: itemProperties.type,
      url: itemProperties.url,
      title: itemProperties.title,
      desc: Type.Optional(itemProperties.desc),
      domain: Type.Optional(itemProperties.domain),
      mId: Type.Optional(itemProperties.mId),
      topRank: itemProperties.topRank,
      position: Type.Optional(itemProperties.position),
      size: itemProperties.size,
      screenCoverage: itemProperties.screenCoverage,
      visPart: itemProperties.visPart,
      coverage: itemProperties.coverage,
      positionFromTheTopEdge: itemProperties.positionFromTheTopEdge,
      positionToFold: itemProperties.positionToFold,
      ctr: Type.Optional(itemProperties.ctr),
      m: Type.Optional(itemProperties.m),
      items: Type.Array(Ref(SerpPackItem), { description: 'Pack members' }),
    },
    { description: 'A result or rich snippet of a SERP; only result-like items carry desc, domain and m, only organic ones ctr' },
  ),
);

const Size = Type.Object({ w: Type.Integer(), h: Type.Integer() });

export const Serp = component(
  'Serp',
  Type.Object({
    _id: Type.String({ description: 'SERP id' }),
    kw: Type.String(),
    mId: Type.String({ description: 'Keyword id' }),
    page: Type.Integer({ description: 'Result page, from 0' }),
    location_id: Type.Integer(),
    location: Ref(LocationRef),
    platform_id: IntegerEnum([1, 2] as const, { description: '1 desktop, 2 mobile' }),
    items: Type.Array(Ref(SerpItem), { description: 'Top to bottom, then left to right' }),
    browser: Type.Object({ doc: Size, view: Size }, { description: 'Document and viewport sizes, CSS pixels' }),
    rank: Type.Number({ description: 'Keyword difficulty 0–100' }),
    rank_updated_at: Type.Integer({ description: 'Unix seconds' }),
    created_at: Type.Number({ description: 'Unix seconds' }),
    ctr: Type.Array(Type.Number(), { description: 'CTR per organic position of this page' }),
    results: Type.Integer({ description: 'Estimated number of results' }),
    serp_results: Nullable(Type.Integer({ description: 'Organic results on this page' })),
    serp_snapshot_id: Nullable(Type.String({ description: 'Id of the stored page for the snapshot operation; null when none was stored' })),
    serp_source_url: Nullable(Type.String()),
    serpFeaturesImpact: Type.Integer({ description: 'Share of the first screen taken by SERP features, 0–100' }),
  }),
);
export type SerpBody = Static<typeof Serp>;
export type SerpItemBody = Static<typeof SerpItem>;

/** Re-fetched pages of a SERP; a page past the last result does not parse and is left out (still charged). */
export const SerpResetResponse = component('SerpResetResponse', Type.Array(Ref(Serp), { description: 'The SERP of each page that parsed, first page first' }));

export const SerpToolUrlMetrics = component(
  'SerpToolUrlMetrics',
  Type.Object({
    _id: Type.String({ description: 'md5 of the URL' }),
    url: Type.String(),
    domain: Type.String(),
    m: Type.Object({
      linkindex: Type.Object({ v: Ref(LinkIndexIndexItemInfo), ts: Type.Integer() }),
      authority: Ref(AuthorityMetric),
      social: Ref(SocialMetric),
      rank: Nullable(Type.Object({ v: Type.Object({ r: Nullable(Type.Integer()) }), ts: Type.Integer() })),
    }),
    topRank: Nullable(Type.Integer()),
  }),
);
export type SerpToolUrlMetricsBody = Static<typeof SerpToolUrlMetrics>;

// ---- operations ----

/** `kw`, `location_id` (0 or missing: 2840) and `platform_id` of a SERP lookup. */
export const SerpQuery = Type.Object({
  kw: KeywordText,
  // A default makes a missing location and 0 one request (one cache entry, one charge): both mean 2840.
  location_id: Type.Optional({ ...LocationId, default: 0 }),
  platform_id: Type.Optional(IntegerEnum([1, 2] as const, { default: 1, description: '1 desktop, 2 mobile' })),
});
export type SerpQuery = Static<typeof SerpQuery>;

export const SerpResetQuery = Type.Object({
  ...SerpQuery.properties,
  serp_count: Type.Optional(Type.Integer({ minimum: 1, maximum: 10, default: 1, description: 'Pages to re-fetch, one SERP credit each' })),
});
export type SerpResetQuery = Static<typeof SerpResetQuery>;

export const SnapshotParams = Type.Object({
  // Any string: a malformed id (empty, oversized) is the contract's 404, not a 422.
  serp_id: Type.String({ description: 'The serp_snapshot_id of a SERP this account was shown' }),
});
export const SnapshotResponse = Type.Object({ image: Type.String({ description: 'base64 PNG' }) });

export const UrlQuery = Type.Object({ url: Type.String({ minLength: 1, maxLength: 2048, description: 'A URL, subdomain or root domain' }) });

export const SerpHistoryEntry = Type.Object({
  _id: Type.String({ description: 'SERP id' }),
  t: Type.Integer({ description: 'Always 0' }),
  created: Type.Integer({ description: 'Unix seconds' }),
  kw: Type.String(),
  platform_id: Type.Integer(),
  location: Ref(LocationShort),
  rank: Nullable(Type.Integer()),
  rank_ts: Nullable(Type.Integer()),
});
export type SerpHistoryEntry = Static<typeof SerpHistoryEntry>;

export const serpComponents: ComponentList = [SerpPackItem, SerpItem, Serp, SerpResetResponse, SerpToolUrlMetrics];
