/**
 * Schemas of the /keyword-tool family: one per operation (query, params, body, each answer),
 * in the published reference's shapes (test/fixtures/reference/reference-openapi.json) where
 * the contract is silent. Components carry the reference's names.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Serp } from '../serp/schemas.js';
import {
  type ComponentList,
  component,
  Dictionary,
  KeywordText,
  IntegerEnum,
  Keyword,
  Language,
  LanguageId,
  LocationId,
  LocationRef,
  LocationShort,
  Nullable,
  Ref,
} from '../common/schemas.js';

export { KeywordText };

/** A URL, domain or subdomain in a query string or body (checked further by requireTargetUrl). */
const TargetUrl = Type.String({ minLength: 1, maxLength: 2048 });

const tags = ['keyword-tool'];

// ---- keyword items ------------------------------------------------------------------

/** One organic result of an imported keyword: position, page, and the CTR of that position. */
const ImportedSerpResult = Type.Object({
  position: Type.Integer(),
  url: Type.String(),
  title: Type.String(),
  domain: Type.String(),
  ctr: Type.Number({ description: 'Click-through rate of the position, 0–1' }),
});

/** A keyword item of related keywords and keyword imports (imports add their organic top 10). */
export const ImportedKeywords = component(
  'ImportedKeywords',
  Type.Object({
    ...Keyword.properties,
    serp: Type.Optional(Type.Array(ImportedSerpResult, { description: 'Keyword imports only: the organic top 10 and their CTRs' })),
  }),
);

/** A keyword with the language it was looked up in and its short location (exports, list detail). */
const PlacedKeyword = Type.Intersect([Ref(Keyword), Type.Object({ language: Ref(Language), location: Ref(LocationShort) })]);

/** A keyword a domain ranks for: the keyword item, the domain's best position and its ranking URL. */
const RankingKeyword = Type.Object({
  ...Keyword.properties,
  position: Type.Integer({ description: "The domain's best organic position" }),
  url: Type.String({ description: 'The ranking URL' }),
});

// ---- related keywords, imports ------------------------------------------------------

export const RelatedKeywordsQuery = Type.Object({
  kw: KeywordText,
  location_id: Type.Optional({ ...LocationId, default: 0 }),
  language_id: Type.Optional({ ...LanguageId, default: 0 }),
});
export const RelatedKeywordsAnswer = Type.Object({
  keywords: Type.Array(Ref(ImportedKeywords), { description: 'The seed first' }),
  language: Ref(Language),
  location: Ref(LocationRef),
  countKeywordsBeforeLimit: Type.Integer(),
  _id: Type.String({ description: 'Id of this lookup (the `rkID` of SERP lookups of the seed)' }),
  source: Nullable(Type.String({ description: 'null for a plain related-keywords lookup' })),
});
export type RelatedKeywordsAnswer = Static<typeof RelatedKeywordsAnswer>;

export const KeywordImportBody = Type.Object({
  // No item cap: the body limit bounds the size, and any set over the plan's rows is a 400.
  keywords: Type.Array(Type.String({ maxLength: 255 })),
  location_id: LocationId,
  language_id: LanguageId,
});
export const KeywordImportAnswer = Type.Object({
  language: Ref(Language),
  location: Ref(LocationShort),
  keywords: Type.Array(Ref(ImportedKeywords)),
  countKeywordsBeforeLimit: Type.Integer(),
});

// ---- competitor and suggested keywords, competitor domains --------------------------

export const UrlLocationQuery = Type.Object({ url: TargetUrl, location_id: LocationId });

export const KeywordToolCompetitors = component(
  'KeywordToolCompetitors',
  Type.Object({
    url_type: Type.String({ description: '`domain`, `subdomain` or `url`' }),
    location: Ref(LocationShort),
    keywords: Type.Array(RankingKeyword, { description: "By the domain's position, worst first" }),
    totalCount: Type.Integer(),
    page: Type.Integer(),
    resultsSize: Type.Integer(),
    originalItemsCount: Type.Integer(),
    isAllowedPagination: Type.Boolean(),
  }),
);
export type KeywordToolCompetitors = Static<typeof KeywordToolCompetitors>;

export const KeywordToolSuggestedKeyword = component(
  'KeywordToolSuggestedKeyword',
  Type.Object({ _id: Type.String(), position: Type.Integer(), kw: Type.String(), sv: Type.Integer(), lid: Type.Integer() }),
);
export const KeywordToolSuggestedKeywords = component(
  'KeywordToolSuggestedKeywords',
  Type.Object({
    url_type: Type.String(),
    location: Ref(LocationShort),
    keywords: Type.Array(Ref(KeywordToolSuggestedKeyword)),
    totalCount: Nullable(Type.Integer()),
    page: Type.Integer(),
    resultsSize: Type.Integer(),
    originalItemsCount: Type.Integer(),
    isAllowedPagination: Type.Boolean(),
  }),
);

export const CompetitorDomainsAnswer = Type.Array(Type.String(), { description: 'Competitor domains, most overlapping first' });

// ---- keyword export --------------------------------------------------------------------

export const MAX_EXPORT_IDS = 10_000;

export const KeywordExportBody = Type.Object({
  // Any string: an id of any length that was never issued is unknown, and dropped silently.
  keyword_ids: Type.Array(Type.String(), { maxItems: MAX_EXPORT_IDS }),
  fields: Type.Optional(Type.String({ maxLength: 200, description: 'CSV columns, comma-separated, from kw, sv, lid, cpc, ppc, seo, msv' })),
});
export const KeywordExportAnswer = Type.Array(PlacedKeyword);

/** A CSV attachment (the `.csv` forms of keyword export and list detail). */
export const CsvAnswer = Type.String({ description: 'A CSV file (RFC 4180, header row first)' });

// ---- SERP lookup ---------------------------------------------------------------------------

export const PlatformId = IntegerEnum([1, 2], { default: 1, description: '1 desktop, 2 mobile' });

export const KeywordSerpQuery = Type.Object({
  kw: KeywordText,
  // A default makes a missing location and 0 one request (one cache entry, one charge): both mean 2840.
  location_id: Type.Optional({ ...LocationId, default: 0 }),
  language_id: Type.Optional({ ...LanguageId, default: 0 }),
  platform_id: Type.Optional(PlatformId),
  page: Type.Optional(Type.Integer({ minimum: 0, maximum: 9, default: 0 })),
});
export const KeywordSerpAnswer = Type.Object({
  rkID: Type.String({ description: 'Id of the related-keywords lookup the SERP belongs to' }),
  serp: Ref(Serp),
  kwOpps: Type.Object({
    isOutdatedPage: Type.Boolean({ description: 'One of the top five organic results was published more than six months ago' }),
    missingWordsInTitle: Type.Array(Type.String(), { description: 'Keyword words missing from the titles of the top five organic results' }),
  }),
  searchIntent: Dictionary(Nullable(Type.Array(Type.String())), { description: 'Intent labels by keyword id; null when none was determined' }),
  contentTypes: Type.Array(Type.String()),
  serpFeatures: Type.Array(Type.String()),
});

// ---- histories ---------------------------------------------------------------------------

export const KeywordToolRequest = component(
  'KeywordToolRequest',
  Type.Object(
    {
      t: Type.Integer({ description: '0 related keywords, 1 competitor keywords, 2 gap analysis' }),
      _id: Type.Optional(Type.String({ description: 't 0: id of the related-keywords lookup' })),
      kw: Type.Optional(Type.String({ description: 't 0: the seed' })),
      language: Type.Optional(Ref(Language, { description: 't 0: the language the lookup ran in' })),
      location: Ref(LocationShort),
      rank: Type.Optional(Nullable(Type.Integer({ description: "t 0: the seed's difficulty" }))),
      rank_ts: Type.Optional(Nullable(Type.Integer({ description: 't 0: when the difficulty was computed, Unix seconds' }))),
      url: Type.Optional(Type.String({ description: 't 1: the URL, domain or subdomain' })),
      lid: Type.Optional(Type.Union([Type.Integer(), Type.String()], { description: 'Location id: a string on t 1, an integer on t 2' })),
      domain: Type.Optional(Type.String({ description: 't 2: the domain' })),
      competitors: Type.Optional(Type.Array(Type.String(), { description: 't 2: the competitors' })),
      page: Type.Optional(Type.Integer({ description: 't 2: the page' })),
      created: Type.Integer({ description: 'Unix seconds' }),
    },
    { description: 'One lookup of the request history' },
  ),
);
export type KeywordToolRequest = Static<typeof KeywordToolRequest>;
export const KeywordToolRequests = Type.Array(Ref(KeywordToolRequest), { description: 'The last 100 lookups, oldest first' });

export const KdRequest = Type.Object({
  _id: Type.String({ description: 'md5 of the URL' }),
  t: Type.Integer({ description: 'Always 0' }),
  url: Type.String(),
  lps: Type.Integer({ description: 'URL authority score returned' }),
  created: Type.Integer({ description: 'Unix seconds' }),
});
export const KdRequests = Type.Array(KdRequest, { description: 'The last 100 kd URL-metrics lookups, oldest first' });

// ---- trends, kd url metrics ------------------------------------------------------------------

export const TrendsQuery = Type.Object({ kw: KeywordText });
export const TrendsAnswer = Type.Object({
  created_at: Type.Integer({ description: 'Unix seconds' }),
  data: Type.Array(Type.Object({ t: Type.Integer(), v: Type.Integer() }), { description: 'Always empty (deprecated)' }),
});

export const KdUrlMetricsQuery = Type.Object({ url: TargetUrl });
export const KdUrlMetrics = component(
  'KdUrlMetrics',
  Type.Object({
    _id: Type.String({ description: 'md5 of the URL' }),
    url: Type.String(),
    lps: Type.Integer({ description: 'URL authority score, 0–100' }),
  }),
);
export type KdUrlMetrics = Static<typeof KdUrlMetrics>;

// ---- gap analysis ------------------------------------------------------------------------------

export const GapAnalysisBody = Type.Object({
  domain: TargetUrl,
  competitors: Type.Array(TargetUrl, { minItems: 1, maxItems: 5 }),
  location_id: LocationId,
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 1 })),
});
export type GapAnalysisBody = Static<typeof GapAnalysisBody>;

export const KeywordToolGapKeyword = component(
  'KeywordToolGapKeyword',
  Type.Object({ ...Keyword.properties, position: Type.Integer({ description: "The competitor's position" }) }),
);
export const KeywordToolGapAnalysisResult = component(
  'KeywordToolGapAnalysisResult',
  Type.Object({
    domain: Type.String({ description: 'The competitor' }),
    totalCount: Type.Integer(),
    originalItemsCount: Type.Integer(),
    keywords: Type.Array(Ref(KeywordToolGapKeyword), { description: "By the competitor's position, best first" }),
  }),
);
export const KeywordToolGapAnalysis = component(
  'KeywordToolGapAnalysis',
  Type.Object({
    isAllowedPagination: Type.Boolean(),
    page: Type.Integer(),
    resultsSize: Type.Integer(),
    mode: Type.String({ description: 'Always `missing`: keywords the competitor ranks for and the domain does not' }),
    results: Type.Array(Ref(KeywordToolGapAnalysisResult), { description: 'One per competitor' }),
  }),
);

// ---- limits --------------------------------------------------------------------------------------

const PoolProps = {
  limit: Type.Integer({ description: 'Size of the pool per period' }),
  remaining: Type.Integer(),
};
export const Pool = component(
  'Pool',
  Type.Object({ ...PoolProps, reset: Type.Integer({ description: 'Seconds until the pool is whole again (relative); 0 when it is whole now' }) }),
);
export const PoolN = component(
  'PoolN',
  Type.Object({ ...PoolProps, reset: Nullable(Type.Integer({ description: 'Seconds until the pool is whole again (relative); null when no period runs' })) }),
);
export type PoolState = Static<typeof PoolN>;

const LimitOption = Type.Object({
  name: Type.String({ description: 'The limit compared' }),
  tooltip: Type.String(),
  limits: Type.Array(
    Type.Object({
      plan: Type.Union([Type.String(), Type.Array(Type.String())], { description: 'A plan, or the plans sharing this value' }),
      value: Type.String(),
      color: Type.String({ description: 'Always empty: Quarry gives no presentation colours' }),
    }),
  ),
});

export const Limit = component(
  'Limit',
  Type.Object({
    'competitor-keywords-rows': Type.Integer(),
    'related-keywords-rows': Type.Integer(),
    'reqs-per-short-period': Type.Integer({ description: 'Burst size: requests per window, per pool' }),
    api_quota: Nullable(
      Type.Object({ 'related-keywords': Ref(PoolN), serps: Ref(PoolN) }, { description: 'A separate quota of API requests; Quarry has none, so always null' }),
    ),
    resources: Type.Object({
      'related-keywords': Ref(PoolN),
      trends: Ref(Pool),
      tracked_keywords: Type.Object({ limit: Type.Integer(), remaining: Type.Integer() }, { description: 'Keywords the plan can track, and how many more' }),
      serps: Ref(PoolN),
      links: Ref(Pool),
      'sch-url-metrics': Ref(Pool),
      'kw-url-metrics': Ref(Pool),
      'lm-url-metrics': Ref(Pool),
      'sp-overview': Ref(Pool),
      'lm-suggest': Ref(Pool),
      'ai-watcher-prompts': Ref(PoolN, {
        description: 'Prompts of live answer monitors the plan allows, and how many more (one per prompt, whatever the models)',
      }),
      'ai-watcher-monitors': Ref(PoolN, { description: 'Live answer monitors the plan allows, and how many more' }),
      'checked-keywords-ranks': Ref(PoolN, { description: 'Deprecated copy of `tracked_keywords`' }),
    }),
    'tracked-keywords': Type.Integer({ description: 'Keywords the plan can track' }),
    plan: Nullable(Type.String({ description: "The account's plan; null without an account" })),
    upgraded_account: Type.Boolean({ description: 'Whether the account is on a plan above the entry plan' }),
    limit_options: Type.Array(LimitOption, { description: 'The plans compared, limit by limit' }),
    highestPlan: Type.String({ description: "The account's plan (an account holds one); empty without an account" }),
    platformPlan: Type.String({ description: "The account's plan; empty without an account" }),
    trackings: Type.Integer({ description: 'Rank trackings the account has (not deleted)' }),
    maxGeneratePrompts: Type.Integer({ description: 'Prompt suggestions one POST /answer-tool/prompts/generate gives' }),
  }),
);
export type Limit = Static<typeof Limit>;

// ---- lists --------------------------------------------------------------------------------------

/**
 * Keyword ids as clients send them. No item cap: the body limit bounds the size, and more
 * than a list holds answers the contract's OutOfLimitException, not a validation error.
 */
const KeywordId = Type.String({ minLength: 1, maxLength: 64 });
export const KeywordIds = Type.Array(KeywordId);
const ListName = Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' });

export const ListParams = Type.Object({ list_id: Type.String({ minLength: 1, maxLength: 100 }) });
export const CreateListBody = Type.Object({ keyword_ids: KeywordIds, name: ListName });
export const RenameListBody = Type.Object({ name: ListName });
export const AddListKeywordsBody = Type.Object({ keyword_ids: Type.Array(KeywordId, { minItems: 1 }) });
export const RemoveListKeywordsBody = Type.Object({ keyword_ids: Type.Optional(KeywordIds) });
export const ListDetailQuery = Type.Object({
  fields: Type.Optional(Type.String({ maxLength: 200, description: 'CSV columns only' })),
  ext: Type.Optional(Type.String({ maxLength: 10, description: '`csv` for the CSV form' })),
});

const ListMeta = {
  _id: Type.String(),
  name: Type.String(),
  user_id: Type.String(),
  creator: Type.String({ description: 'Id of the creating user' }),
  created_at: Type.Integer({ description: 'Unix seconds' }),
  updated_at: Type.Integer({ description: 'Unix seconds' }),
};
export const KeywordToolList = component(
  'KeywordToolList',
  Type.Object({
    ...ListMeta,
    keyword_ids: Type.Array(Type.String()),
    __v: Type.Integer({ description: 'Always 0: Quarry keeps no revision counter' }),
  }),
);
export type KeywordToolList = Static<typeof KeywordToolList>;
export const ListDetail = Type.Object({ keywords: Type.Array(PlacedKeyword), list: Type.Object(ListMeta) });

export const keywordComponents: ComponentList = [
  ImportedKeywords,
  KeywordToolCompetitors,
  KeywordToolSuggestedKeyword,
  KeywordToolSuggestedKeywords,
  KeywordToolRequest,
  KdUrlMetrics,
  KeywordToolGapKeyword,
  KeywordToolGapAnalysisResult,
  KeywordToolGapAnalysis,
  Pool,
  PoolN,
  Limit,
  KeywordToolList,
];

export { tags as keywordTags };
