/**
 * Metric components more than one family answers, in the reference's shapes: the link
 * index item info (link-tool and serp-tool URL metrics, SERP items, the site tool's
 * backlink profile), the social and authority metrics, the metric groups `m` of a URL,
 * and the rank distribution of a host (site tool). Defined once here; families import them.
 */
import { Type, type TOptional } from '@sinclair/typebox';
import { component, Nullable, Ref, type ComponentList } from './schemas.js';

/** A link counter the upstream index gives as a string or an integer. */
export const LinkIndexLinkCount = component(
  'LinkIndexLinkCount',
  Type.Union([Type.String(), Type.Integer()], { description: 'A link count, as a decimal string' }),
);

/** The link index's item info of a URL, subdomain or root domain (all of it: contract, "Link-tool URL metrics"). */
export const LinkIndexIndexItemInfo = component(
  'LinkIndexIndexItemInfo',
  Type.Object(
    {
      Status: Type.String({ description: '`Found` when the index holds the item; anything else means no data' }),
      ExtBackLinks: Type.Integer(),
      RefDomains: Type.Integer(),
      ACRank: Type.Integer(),
      RefIPs: Type.Integer(),
      ItemType: Type.Integer({ description: '1 root domain, 2 subdomain, 3 URL' }),
      RefSubNets: Type.Integer(),
      CitationFlow: Type.Integer(),
      TrustFlow: Type.Integer(),
      TrustMetric: Type.Integer(),
      IndexedURLs: Type.Integer(),
      RefDomainsEDU: Type.Integer(),
      ExtBackLinksEDU: Type.Integer(),
      RefDomainsGOV: Type.Integer(),
      ExtBackLinksGOV: Type.Integer(),
      RefDomainsEDU_Exact: Type.Integer(),
      ExtBackLinksEDU_Exact: Type.Integer(),
      RefDomainsGOV_Exact: Type.Integer(),
      ExtBackLinksGOV_Exact: Type.Integer(),
      NonUniqueLinkTypeHomepages: Ref(LinkIndexLinkCount),
      NonUniqueLinkTypeIndirect: Ref(LinkIndexLinkCount),
      NonUniqueLinkTypeDeleted: Ref(LinkIndexLinkCount),
      NonUniqueLinkTypeNoFollow: Ref(LinkIndexLinkCount),
      NonUniqueLinkTypeProtocolHTTPS: Ref(LinkIndexLinkCount),
      NonUniqueLinkTypeFrame: Ref(LinkIndexLinkCount),
      NonUniqueLinkTypeImageLink: Ref(LinkIndexLinkCount),
      NonUniqueLinkTypeRedirect: Ref(LinkIndexLinkCount),
      NonUniqueLinkTypeTextLink: Ref(LinkIndexLinkCount),
      TotalNonUniqueLinks: Ref(LinkIndexLinkCount),
      OutLinksInternal: Ref(LinkIndexLinkCount),
      OutLinksExternal: Ref(LinkIndexLinkCount),
      OutDomainsExternal: Ref(LinkIndexLinkCount),
    },
    { description: 'Link index metrics of an item (citation and trust flow family); values of -1 upstream are 0' },
  ),
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

/** Social engagement of a URL: `l` the share count, `og` its Open Graph tags (null: not fetched). */
export const SocialMetricValue = component(
  'SocialMetricValue',
  Type.Object({
    l: Nullable(Type.Integer({ description: 'Engagement (share) count' })),
    og: Nullable(
      Type.Object({
        description: Nullable(Type.String()),
        title: Nullable(Type.String()),
        image: Nullable(Type.String()),
      }),
    ),
  }),
);

export const SocialMetric = component('SocialMetric', Type.Object({ v: Ref(SocialMetricValue), ts: Type.Integer({ description: 'Unix seconds' }) }));

export const AuthorityMetric = component(
  'AuthorityMetric',
  Type.Object({
    v: Type.Object(
      { pda: Type.Number({ description: 'Domain authority 0–100' }), upa: Type.Number({ description: 'Page authority 0–100' }) },
      { additionalProperties: Type.Union([Type.Number(), Type.String()]), description: 'pda and upa; other authority figures may follow' },
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
 * Cached organic statistics of a host: `metrics_absolute` keyed `YYYY-MM`, each with
 * `organic` figures (keyword counts per position band `pos_1` … `pos_91_100`, `count`,
 * `etv`, `impressions_etv`, paid traffic cost, `is_new`/`is_up`/`is_down`/`is_lost`).
 */
export const RankDist = component(
  'RankDist',
  Type.Object({
    _id: Type.String(),
    domain: Type.String(),
    bucket: Type.Integer(),
    lid: Type.Integer({ description: 'Location id' }),
    visibility: Type.Object({}, { additionalProperties: true }),
    rank: Type.Object({}, { additionalProperties: true }),
    updated_at: Type.Integer({ description: 'Unix seconds' }),
    metrics_absolute: Type.Record(Type.String(), Type.Object({ organic: Type.Record(Type.String(), Type.Number()) })),
  }),
);

export const metricComponents: ComponentList = [
  LinkIndexLinkCount,
  LinkIndexIndexItemInfo,
  LinkIndexMetric,
  SocialMetricValue,
  SocialMetric,
  AuthorityMetric,
  UrlMetricGroups,
  RankDist,
];
