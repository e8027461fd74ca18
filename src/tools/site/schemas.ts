/**
 * The site tool's operations, one schema each (query, every answer), in the reference's
 * shapes: `SiteMetrics` (overview), `SiteBacklinkProfile`, `SiteTopContent`,
 * `SiteCompetitors`; audience answers 204, the request history an array of strings.
 */
import { Type, type Static } from '@sinclair/typebox';
import { LinkIndexIndexItemInfo, RankDist, SocialMetricValue } from '../common/metrics.js';
import { component, Dictionary, emptyResponse, errorResponses, Nullable, Ref, StringEnum, type ComponentList } from '../common/schemas.js';

const TAGS = ['site-tool'];

export const UrlQuery = Type.Object({
  url: Type.String({ minLength: 1, maxLength: 2048, description: 'A URL, a domain or a subdomain' }),
});

/** `{}` where the reference writes an unknown TopRank so. */
const Unknown = Type.Object({}, { additionalProperties: false, description: 'Unknown' });

export const SiteMetrics = component(
  'SiteMetrics',
  Type.Object({
    urlId: Type.Optional(Type.String({ description: 'Id of the page (URL lookups only)' })),
    domainId: Type.Optional(Type.String({ description: 'Id of the root domain (domain and subdomain lookups only)' })),
    domain: Type.String({ description: 'The root domain' }),
    url: Type.String({ description: 'The target as looked up: the domain, the host or the normalised URL' }),
    authority: Type.Object({
      pda: Nullable(Type.Number({ description: 'Domain authority, 0–100; null when the authority provider has none' })),
      upa: Nullable(Type.Number({ description: 'Page authority (of the home page for a domain), 0–100; null when the authority provider has none' })),
    }),
    linkindex: Type.Object({
      Status: Type.String({ description: '`Found`, or `NotFound` when the link index has no data' }),
      CitationFlow: Nullable(Type.Integer({ description: 'Null when the link-index provider gives none (DataForSEO)' })),
      TrustFlow: Nullable(Type.Integer({ description: 'Null when the link-index provider gives none (DataForSEO)' })),
      RefIPs: Nullable(Type.Integer()),
      RefSubNets: Nullable(Type.Integer()),
      ItemType: Type.Integer({ description: '1 root domain, 2 subdomain, 3 URL' }),
    }),
    social: Nullable(Ref(SocialMetricValue)),
    topRank: Type.Union([Type.Integer({ minimum: 1 }), Unknown], { description: 'Rank of the root domain by authority (1 best); `{}` when unknown' }),
    topRankHistory: Dictionary(Type.Integer(), { description: 'TopRank per month (`YYYY-MM`) since 2016-01' }),
    linkindexHistory: Dictionary(
      Type.Object({
        rank: Nullable(Type.Integer({ description: "The domain's rank in the link index (root domains by authority, as TopRank); null from a provider" })),
        refIps: Nullable(Type.Integer()),
        refSubnets: Nullable(Type.Integer()),
        refDomains: Nullable(Type.Integer()),
        citationFlow: Nullable(Type.Integer()),
        trustFlow: Nullable(Type.Integer()),
      }),
      {
        description:
          'The root domain in the link index per month (`YYYY-MM`) since 2016-01; in real mode the months the link-index provider keeps (DataForSEO; none with Majestic), a figure it lacks null',
      },
    ),
    socialHistory: Dictionary(Type.Integer(), { description: "Social shares of the domain's pages per month (`YYYY-MM`)" }),
    rankDist: Type.Array(Ref(RankDist), {
      description: 'Organic ranking statistics of the host, one per location whose rank index is ready; empty in real mode (no provider configured gives them)',
    }),
  }),
);

export const SiteBacklinkProfile = component(
  'SiteBacklinkProfile',
  Type.Object({
    urlId: Type.String({ description: 'Id of the URL, host or root domain' }),
    linkindex: Ref(LinkIndexIndexItemInfo),
    linkindexBackLinkCalendar: Type.Array(
      Type.Object({ Date: Type.String({ description: 'YYYY-MM-DD' }), NewLinks: Type.Integer(), LostLinks: Type.Integer() }),
      {
        description: 'New and lost links per day over the last 90 days',
      },
    ),
    linkindexRefDomains: Type.Array(
      Type.Object({
        domain: Type.String(),
        topRank: Nullable(Type.Integer({ description: 'Null when no imported rank list holds the domain (real mode)' })),
        matchedLinks: Nullable(Type.Integer()),
        citationFlow: Nullable(Type.Integer()),
        trustFlow: Nullable(Type.Integer()),
      }),
      { description: 'The referring domains with the most links, most first' },
    ),
    linkindexAnchors: Type.Array(
      Type.Object({
        anchorText: Type.String(),
        refDomains: Nullable(Type.Integer()),
        deletedLinks: Nullable(Type.Integer()),
        noFollowLinks: Nullable(Type.Integer()),
        totalLinks: Nullable(Type.Integer()),
        class: StringEnum(['brand.domain', 'brand.url', 'naked.url', 'other', 'other.normal', 'other.stop', 'empty']),
        tokens: Type.Array(
          Type.Object(
            {
              token: Type.String(),
              'brand.domain': Type.Optional(Type.Number()),
              'other.normal': Type.Optional(Type.Number()),
              'other.stop': Type.Optional(Type.Number()),
            },
            { additionalProperties: false, description: 'A word of the anchor with the class it belongs to (weight 1)' },
          ),
        ),
        score: Type.Object(
          { 'brand.domain': Type.Number(), 'other.normal': Type.Number(), 'other.stop': Type.Number() },
          { additionalProperties: false, description: "Share of the anchor's words in each class" },
        ),
        citationFlow: Nullable(Type.Integer({ description: 'The highest CitationFlow of a linking page' })),
      }),
      { description: 'The anchors used by the most referring domains, most first' },
    ),
  }),
);

export const SiteTopContent = component(
  'SiteTopContent',
  Type.Object({
    urlId: Type.String(),
    topContent: Type.Array(
      Type.Object({
        url: Type.String(),
        citationFlow: Nullable(Type.Integer()),
        trustFlow: Nullable(Type.Integer()),
        refDomains: Nullable(Type.Integer()),
        extBackLinks: Nullable(Type.Integer()),
        social: Ref(SocialMetricValue),
      }),
      { description: 'The pages with the highest CitationFlow, highest first' },
    ),
  }),
);

export const SiteCompetitors = component(
  'SiteCompetitors',
  Type.Object({
    id: Type.String({ description: 'Id of the root domain' }),
    source: Type.String({ description: 'The url as given' }),
    competitors: Type.Array(
      Type.Object({
        domainId: Type.String(),
        domain: Type.String(),
        topRank: Nullable(Type.Integer()),
        social: Nullable(Type.Integer({ description: "Social shares of the domain's pages; null in real mode (no provider counts them)" })),
        refIps: Nullable(Type.Integer()),
        score: Nullable(
          Type.Number({
            description:
              "Similarity 0–100: the share of the site's ranking keywords (United States) the domain also ranks for in the top 20; for a site ranking for none, shared referring domains (cosine) plus 10 for the same topic. In real mode DataForSEO Labs' shared keywords over the site's own",
          }),
        ),
      }),
      { description: 'Root domains ranking for the same keywords (organic competitors), most similar first' },
    ),
  }),
);

export const siteComponents: ComponentList = [SiteMetrics, SiteBacklinkProfile, SiteTopContent, SiteCompetitors];

export type SiteMetricsBody = Static<typeof SiteMetrics>;
export type SiteBacklinkProfileBody = Static<typeof SiteBacklinkProfile>;
export type SiteTopContentBody = Static<typeof SiteTopContent>;
export type SiteCompetitorsBody = Static<typeof SiteCompetitors>;

/** An operation's schema; those asking the providers in real mode may answer 424 `UpstreamError`. */
const profile = (summary: string, description: string, ok: Record<number, unknown>, upstream = true) => ({
  tags: TAGS,
  summary,
  description,
  querystring: UrlQuery,
  response: { ...ok, ...(upstream ? errorResponses(401, 422, 424, 429) : errorResponses(401, 422, 429)) },
});

const NEEDS_OVERVIEW =
  'Free, but only within 24 hours of an overview of the same `url` by the same account; otherwise 429 `RateLimit` `Not in history` without `retry_after` (waiting does not help; an overview does).';

export const overviewSchema = profile(
  'Site overview',
  'Authority, link-index flows, referring IPs, social engagement and TopRank of a URL, subdomain or domain, with monthly history since 2016 and organic ranking statistics.',
  { 200: Ref(SiteMetrics) },
);

export const audienceSchema = profile(
  'Audience',
  `Audience data is not available: always 204. ${NEEDS_OVERVIEW}`,
  { 204: emptyResponse('No audience data') },
  false,
);

export const backlinkProfileSchema = profile(
  'Backlink profile',
  `Link-index counters (whole-domain statistics for a domain), new and lost links per day, top referring domains and top anchors. ${NEEDS_OVERVIEW}`,
  { 200: Ref(SiteBacklinkProfile) },
);

export const topContentSchema = profile('Top content', `The pages of the site with the highest CitationFlow. ${NEEDS_OVERVIEW}`, {
  200: Ref(SiteTopContent),
});

export const competitorsSchema = profile(
  'Site competitors',
  `Domains ranking for the same keywords as the site (by shared referring domains when it ranks for none). ${NEEDS_OVERVIEW}`,
  {
    200: Ref(SiteCompetitors),
  },
);

/** Items of GET /site-tool/requests: the analysed URLs and domains. */
export const RequestItem = Type.String({ description: 'A URL or domain analysed' });
