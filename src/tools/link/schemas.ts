/**
 * The link tool's operations, one schema per query, parameter set, body and answer, in the
 * reference's shapes (`LinkToolUrlMetrics`, `BackLinks`, `BackLink`, `FavoriteList`,
 * `BackLinkExport`, `BackLinkExportSuggestionResponse`).
 */
import { Type, type Static } from '@sinclair/typebox';
import { LinkIndexMetric } from '../common/metrics.js';
import { component, IntegerEnum, Nullable, Ref, StringEnum, type ComponentList } from '../common/schemas.js';

const TARGET_TYPES = ['RootDomain', 'SubDomain', 'URL'] as const;
const TargetType = StringEnum(TARGET_TYPES, { description: 'Root domain, subdomain or exact URL' });

/** A URL, subdomain or root domain as the link tool takes it. */
const TargetUrl = Type.String({ minLength: 1, maxLength: 2048, description: 'A URL, subdomain or root domain' });

// ---- URL metrics ----

export const LinkToolUrlMetrics = component(
  'LinkToolUrlMetrics',
  Type.Array(
    Type.Object({
      _id: Type.String({ description: 'md5 of the target' }),
      url: Type.String(),
      m: Type.Object({ linkindex: Ref(LinkIndexMetric) }),
    }),
  ),
);
export type LinkToolUrlMetricsBody = Static<typeof LinkToolUrlMetrics>;
export const UrlQuery = Type.Object({ url: TargetUrl });

// ---- backlinks ----

export const BackLink = component(
  'BackLink',
  Type.Object(
    {
      _id: Type.String({ description: 'Link id (for the favourite operation)' }),
      domainId: Type.String({ description: 'Id of the referring root domain' }),
      source: Type.String({ description: 'The linking URL' }),
      target: Type.String({ description: 'The linked URL' }),
      title: Nullable(Type.String({ description: 'Title of the linking page' })),
      url: Type.String({ description: 'Where to see the link: the linking page' }),
      type: StringEnum(['text', 'image', 'redirect', 'frame', 'mention'] as const),
      anchor: Type.String(),
      alt: Type.Boolean({ description: 'The link carries alt text (an image link)' }),
      first_seen: Nullable(Type.String({ description: 'YYYY-MM-DD; null when the link provider does not say' })),
      last_seen: Nullable(Type.String({ description: 'YYYY-MM-DD; null when the link provider does not say' })),
      last_crawl: Nullable(Type.String({ description: 'YYYY-MM-DD; null when the link provider does not say' })),
      deleted: Type.Boolean(),
      reason_lost: Nullable(Type.String()),
      source_cf: Nullable(Type.Integer({ description: '0–100; null when the link provider has no flow metrics (DataForSEO)' })),
      source_tf: Nullable(Type.Integer({ description: '0–100; null when the link provider has no flow metrics (DataForSEO)' })),
      target_cf: Nullable(Type.Integer({ description: '0–100; null when the link provider has no flow metrics (DataForSEO)' })),
      target_tf: Nullable(Type.Integer({ description: '0–100; null when the link provider has no flow metrics (DataForSEO)' })),
      no_follow: Type.Boolean(),
      image: Type.Boolean(),
      redirect: Type.Boolean(),
      frame: Type.Boolean(),
      category: Nullable(Type.String({ description: 'Topic of the linking site; not classified (null)' })),
      lang: Nullable(Type.String()),
      internal_links: Nullable(Type.Integer()),
      external_links: Nullable(Type.Integer()),
      social: Nullable(Type.Number({ description: 'Social engagement of the linking page; not reported on link lists (null)' })),
      ar: Nullable(Type.Number({ description: 'Rank of the referring site; not reported (null)' })),
      ls: Nullable(Type.Integer({ description: 'Link strength 0–10 (our model of the sandbox index); null for a provider’s link' })),
    },
    { description: 'A backlink' },
  ),
);
export type BackLinkBody = Static<typeof BackLink>;

export const BackLinks = component(
  'BackLinks',
  Type.Object({
    meta: Type.Object({ url_type: TargetType, available_links: Type.Integer({ description: 'Links matching the request, on all pages' }) }),
    links: Type.Array(Ref(BackLink), { description: 'Up to 500, strongest first' }),
  }),
);
export type BackLinksBody = Static<typeof BackLinks>;

export const LinksQuery = Type.Object({
  url: TargetUrl,
  // Integer enums (not unions of literals) so that the strict decimal check of http/validation.ts applies: Ajv alone reads " " as 0 and "1e0" as 1.
  source: Type.Optional(IntegerEnum([0, 1, 2] as const, { default: 0, description: '0 all, 1 new, 2 lost' })),
  // Required, with no default (link-tool contract): a missing page is 422 `Parameter page is invalid`.
  page: Type.Integer({ minimum: 0, maximum: 1_000_000, description: 'Page of 500 links, from 0' }),
  links_per_domain: Type.Optional(IntegerEnum([0, 1] as const, { default: 0, description: '0 all links, 1 one link per referring domain' })),
});

// ---- favourites ----

export const FavoriteList = component(
  'FavoriteList',
  Type.Object({
    _id: Type.String(),
    domain: Type.String({ description: 'The target root domain: one list per domain' }),
    user_id: Type.String(),
    link_ids: Type.Array(Type.String()),
    links: Type.Optional(Type.Array(Ref(BackLink), { description: 'Full data of each link (one list only)' })),
    updated_at: Type.Integer({ description: 'Unix seconds' }),
    created_at: Type.Integer({ description: 'Unix seconds' }),
  }),
);
export type FavoriteListBody = Static<typeof FavoriteList>;

export const LinkIdParams = Type.Object({ link_id: Type.String({ minLength: 1, maxLength: 100 }) });
export const ListIdParams = Type.Object({ list_id: Type.String({ minLength: 1, maxLength: 100 }) });
export const FavoriteBody = Type.Object({ favorite: Type.Boolean() });
export const FavoriteLists = Type.Array(Ref(FavoriteList));
export const MaybeFavoriteList = Nullable(Ref(FavoriteList));

// ---- history ----

export const LinkHistoryEntry = Type.Object({
  _id: Type.String(),
  t: Type.Integer({ description: 'Always 0' }),
  created: Type.Integer({ description: 'Unix seconds' }),
  url: Type.String(),
  source: Type.Integer({ description: '0 all, 1 new, 2 lost' }),
  links_per_domain: Type.Integer(),
});

// ---- exports ----

export const ExportFilter = Type.Object(
  {
    targetAnchorText: Type.Optional(Type.String({ maxLength: 500 })),
    targetHrefText: Type.Optional(Type.String({ maxLength: 2048 })),
    linkType: Type.Optional(StringEnum(['text', 'image', 'redirect', 'frame', 'mention'] as const)),
    noFollow: Type.Optional(Type.Boolean()),
    liveLinks: Type.Optional(Type.Boolean()),
    minCitationFlow: Type.Optional(Type.Integer({ minimum: 0, maximum: 100 })),
    maxCitationFlow: Type.Optional(Type.Integer({ minimum: 0, maximum: 100 })),
    minTrustFlow: Type.Optional(Type.Integer({ minimum: 0, maximum: 100 })),
    maxTrustFlow: Type.Optional(Type.Integer({ minimum: 0, maximum: 100 })),
    minTopRank: Type.Optional(Type.Integer({ minimum: 0 })),
    maxTopRank: Type.Optional(Type.Integer({ minimum: 0 })),
    minLinkStrength: Type.Optional(Type.Integer({ minimum: 0, maximum: 10 })),
    maxLinkStrength: Type.Optional(Type.Integer({ minimum: 0, maximum: 10 })),
    flagTextLink: Type.Optional(Type.Boolean()),
    flagImageLink: Type.Optional(Type.Boolean()),
    flagFrameLink: Type.Optional(Type.Boolean()),
    flagRedirectLink: Type.Optional(Type.Boolean()),
    flagMentionLink: Type.Optional(Type.Boolean()),
    linksPerDomain: Type.Optional(IntegerEnum([0, 1] as const)),
  },
  { additionalProperties: false },
);
export type ExportFilter = Static<typeof ExportFilter>;

export const CreateExportBody = Type.Object({
  url: Type.String({ minLength: 1, maxLength: 2048, description: 'A target returned by the suggest operation in the last 24 hours' }),
  // An export of no rows would be a free job: at least one (issue 12).
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000_000, description: 'At most this many links (and credits)' })),
  filter: Type.Optional(ExportFilter),
});

export const ExportRpcStats = component(
  'ExportRpcStats',
  Type.Object({
    requests: Type.Integer(),
    rpcCalls: Type.Integer({ description: 'Remote calls: always 0, enrichment reads the local link index' }),
    rpcGoodResult: Type.Integer(),
    goodResult: Type.Integer(),
    successRate: Nullable(Type.Integer({ description: '1 when rows were enriched, else 0' })),
  }),
);

/** Export stages (reference notes): the last finished one; 600 done. A failure is told by `error`. */
export const EXPORT_STATES = [100, 200, 300, 400, 500, 600] as const;

export const BackLinkExport = component(
  'BackLinkExport',
  Type.Object({
    _id: Type.String(),
    creator: Type.String({ description: 'Account id' }),
    jobName: Type.String(),
    state: IntegerEnum(EXPORT_STATES, {
      description: 'Last finished stage: 100 queued or collecting, 200 links collected (rows being written), 600 done; 300–500 pass inside the write',
    }),
    error: Type.String({ description: 'Why the export failed; empty unless it failed (its charge is then refunded)' }),
    request: Type.Object({ url: Type.String(), type: TargetType, limit: Type.Integer(), filter: ExportFilter }),
    stats: Type.Object({
      fresh: Type.Integer({ description: 'Live links matching' }),
      historic: Type.Integer({ description: 'Deleted links matching' }),
      duplicates: Type.Integer(),
      filtered: Type.Integer({ description: 'Links of the target the filter left out' }),
      topRank: Ref(ExportRpcStats),
      social: Ref(ExportRpcStats),
      fb: Ref(ExportRpcStats, { description: 'The contract’s name of `social` (same figures)' }),
    }),
    progress: Type.Object(
      { done: Type.Integer(), total: Nullable(Type.Integer()) },
      { description: 'Rows written so far and rows expected (null until counted)' },
    ),
    backLinks: Type.Integer({ description: 'Rows the file has (done) or will have' }),
    cost: Type.Integer(),
    costPrediction: Type.Integer(),
    createdAt: Type.Integer({ description: 'Unix seconds' }),
    completedAt: Nullable(Type.Integer({ description: 'Unix seconds; null until finished' })),
    downloadURL: Type.Optional(Type.String({ description: 'Signed CSV link, present while done and for 60 days after completion' })),
  }),
);
export type BackLinkExportBody = Static<typeof BackLinkExport>;
export const BackLinkExports = Type.Array(Ref(BackLinkExport), { description: 'Newest first' });

export const SuggestBody = Type.Object({ url: TargetUrl });

export const BackLinkExportSuggestion = component(
  'BackLinkExportSuggestion',
  Type.Object({
    url: Type.String(),
    refDomains: Type.Integer(),
    backLinks: Type.Integer(),
    cost: Type.Integer({ description: 'Credits of the links pool an export of all its links takes' }),
    state: Type.String({ description: '`available`' }),
    type: TargetType,
  }),
);

export const BackLinkExportSuggestionResponse = component(
  'BackLinkExportSuggestionResponse',
  Type.Object({ suggestedType: TargetType, suggestions: Type.Array(Ref(BackLinkExportSuggestion)) }),
);
export type BackLinkExportSuggestionResponseBody = Static<typeof BackLinkExportSuggestionResponse>;

export const linkComponents: ComponentList = [
  LinkToolUrlMetrics,
  BackLink,
  BackLinks,
  FavoriteList,
  ExportRpcStats,
  BackLinkExport,
  BackLinkExportSuggestion,
  BackLinkExportSuggestionResponse,
];
