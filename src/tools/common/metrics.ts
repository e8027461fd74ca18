/**
 * Metric components more than one family answers, in the reference's shapes and names:
 * the link index's item info (link-tool and serp-tool URL metrics, the site tool's
 * backlink profile; `LinkIndexMetric` on URL metrics and SERP items), the social value
 * `{l, og}` (URL metrics, site overview, top content), the authority metric and the metric
 * groups `m` of a URL (SERP items, serp-tool URL metrics), and the rank distribution of a
 * host (site overview).
 */
import { Type, type TOptional } from '@sinclair/typebox';
import { component, Dictionary, Nullable, Ref, type ComponentList } from './schemas.js';

/** A link count the link index reports as a string or a number (the reference's; we send decimal strings, nullableCount below). */
export const LinkIndexLinkCount = component('LinkIndexLinkCount', Type.Union([Type.String(), Type.Integer()], { description: 'A link count' }));

/**
 * A link count as item info carries it: decimal text, null when the configured provider does
 * not give it. (The reference's LinkIndexLinkCount, string or integer, cannot be null in
 * OpenAPI 3.0: a nullable needs a type beside it.)
 */
const nullableCount = () => Nullable(Type.String({ description: 'A link count (decimal text); null when the link provider does not give it' }));

/**
 * Everything the link index knows of a URL, host or root domain. Counts of −1 upstream are
 * reported as 0. A figure the configured provider does not give is null (DataForSEO has no
 * CitationFlow, TrustFlow, ACRank…; docs/decisions.md), never a stand-in number.
 */
export const LinkIndexIndexItemInfo = component(
  'LinkIndexIndexItemInfo',
  Type.Object({
    Status: Type.String({ description: '`Found`, or anything else when the index has no data for the item' }),
    ExtBackLinks: Nullable(Type.Integer({ description: 'External backlinks' })),
    RefDomains: Nullable(Type.Integer({ description: 'Referring domains' })),
    ACRank: Nullable(Type.Integer()),
    RefIPs: Nullable(Type.Integer({ description: 'Referring IP addresses' })),
    ItemType: Type.Integer({ description: '1 root domain, 2 subdomain, 3 URL' }),
    RefSubNets: Nullable(Type.Integer({ description: 'Referring /24 subnets' })),
    CitationFlow: Nullable(Type.Integer({ description: '0–100' })),
    TrustFlow: Nullable(Type.Integer({ description: '0–100' })),
    TrustMetric: Nullable(Type.Integer({ description: 'The same trust score as TrustFlow, under its older name' })),
    IndexedURLs: Nullable(Type.Integer()),
    RefDomainsEDU: Nullable(Type.Integer()),
    ExtBackLinksEDU: Nullable(Type.Integer()),
    RefDomainsGOV: Nullable(Type.Integer()),
    ExtBackLinksGOV: Nullable(Type.Integer()),
    RefDomainsEDU_Exact: Nullable(Type.Integer()),
    ExtBackLinksEDU_Exact: Nullable(Type.Integer()),
    RefDomainsGOV_Exact: Nullable(Type.Integer()),
    ExtBackLinksGOV_Exact: Nullable(Type.Integer()),
    NonUniqueLinkTypeHomepages: nullableCount(),
    NonUniqueLinkTypeIndirect: nullableCount(),
    NonUniqueLinkTypeDeleted: nullableCount(),
    NonUniqueLinkTypeNoFollow: nullableCount(),
    NonUniqueLinkTypeProtocolHTTPS: nullableCount(),
    NonUniqueLinkTypeFrame: nullableCount(),
    NonUniqueLinkTypeImageLink: nullableCount(),
    NonUniqueLinkTypeRedirect: nullableCount(),
    NonUniqueLinkTypeTextLink: nullableCount(),
    TotalNonUniqueLinks: nullableCount(),
    OutLinksInternal: nullableCount(),
    OutLinksExternal: nullableCount(),
    OutDomainsExternal: nullableCount(),
  }),
);

/** The link index figures every `LinkIndexMetric` carries; SERP items carry only these. */
const CORE_FIGURES: ReadonlySet<string> = new Set<CoreFigure>(['CitationFlow', 'TrustFlow', 'RefDomains', 'ExtBackLinks']);
type CoreFigure = 'CitationFlow' | 'TrustFlow' | 'RefDomains' | 'ExtBackLinks';
type ItemInfoProperties = typeof LinkIndexIndexItemInfo.properties;
type MetricValueProperties = { [K in keyof ItemInfoProperties]: K extends CoreFigure ? ItemInfoProperties[K] : TOptional<ItemInfoProperties[K]> };

/** `{v, ts}` of the link index: `v` all of the item info on URL metrics, its four flow and count figures on SERP items. */
export const LinkIndexMetric = component(
  'LinkIndexMetric',
  Type.Object({
    v: Type.Object(
      Object.fromEntries(
        Object.entries(LinkIndexIndexItemInfo.properties).map(([name, schema]) => [name, CORE_FIGURES.has(name) ? schema : Type.Optional(schema)]),
      ) as MetricValueProperties,
      { description: 'The item info (all of it on URL metrics; CitationFlow, TrustFlow, RefDomains and ExtBackLinks on SERP items)' },
    ),
    ts: Type.Integer({ description: 'When the figures were taken, Unix seconds' }),
  }),
);

/** Social engagement of a page: the share count and its Open Graph card. */
export const SocialMetricValue = component(
  'SocialMetricValue',
  Type.Object({
    l: Nullable(Type.Integer({ description: 'Engagement (share) count; null when unknown' })),
    og: Nullable(
      Type.Object(
        {
          description: Nullable(Type.String()),
          title: Nullable(Type.String()),
          image: Nullable(Type.String()),
        },
        { description: "The page's Open Graph card; null when the page is not known" },
      ),
    ),
  }),
);

export const SocialMetric = component('SocialMetric', Type.Object({ v: Ref(SocialMetricValue), ts: Type.Integer({ description: 'Unix seconds' }) }));

export const AuthorityMetric = component(
  'AuthorityMetric',
  Type.Object({
    v: Type.Object(
      {
        pda: Nullable(Type.Number({ description: 'Domain authority 0–100; null when the authority provider does not give it' })),
        upa: Nullable(Type.Number({ description: 'Page authority 0–100; null when the authority provider does not give it' })),
      },
      {
        additionalProperties: Type.Union([Type.Number(), Type.String()]),
        description: 'pda and upa; other authority figures may follow (`spam`: Moz spam score)',
      },
    ),
    ts: Type.Integer({ description: 'Unix seconds' }),
  }),
);

/** A rank metric group: `r` null when there is no rank. */
const RankMetric = Type.Object({ v: Type.Object({ r: Nullable(Type.Integer()) }), ts: Type.Integer({ description: 'Unix seconds' }) });

/** The metric groups of a URL; a group is left out until its data exists. */
export const UrlMetricGroups = component(
  'UrlMetricGroups',
  Type.Object({
    social: Type.Optional(Ref(SocialMetric)),
    authority: Type.Optional(Ref(AuthorityMetric)),
    linkindex: Type.Optional(Ref(LinkIndexMetric)),
    rank: Type.Optional(Nullable(RankMetric)),
  }),
);

/**
 * Organic ranking statistics of a host in one location, from the rank index: per month
 * (`YYYY-MM`), keyword counts per position band (`pos_1`, `pos_2_3`, … `pos_91_100`), the
 * keyword `count`, estimated traffic `etv`, `impressions_etv`, `estimated_paid_traffic_cost`
 * and the movement counts `is_new`, `is_up`, `is_down`, `is_lost`.
 */
export const RankDist = component(
  'RankDist',
  Type.Object({
    _id: Type.String(),
    domain: Type.String({ description: 'The host the statistics are of' }),
    bucket: Type.Integer({ description: 'Rank-index bucket: always 0 (one index per location)' }),
    lid: Type.Integer({ description: 'Location id' }),
    visibility: Type.Object({}, { description: 'Not computed: always empty' }),
    rank: Type.Object({}, { description: 'Not computed: always empty' }),
    updated_at: Type.Integer({ description: 'When the rank index was built, Unix seconds' }),
    metrics_absolute: Dictionary(Type.Object({ organic: Dictionary(Type.Number()) }, { description: 'The month’s statistics by channel (organic only)' }), {
      description: 'Statistics per month (`YYYY-MM`)',
    }),
  }),
);

export const metricsComponents: ComponentList = [
  LinkIndexIndexItemInfo,
  LinkIndexMetric,
  SocialMetricValue,
  SocialMetric,
  AuthorityMetric,
  UrlMetricGroups,
  RankDist,
];
