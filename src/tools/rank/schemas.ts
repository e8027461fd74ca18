/**
 * Request and response schemas of the rank tool, one per operation, in the published
 * reference's shapes (component names as the reference names them). Old request bodies
 * stay accepted where noted ("alias").
 */
import { Type, type Static } from '@sinclair/typebox';
import { component, IntegerEnum, LocationId, LocationShort, Nullable, PathId, Ref, type ComponentList } from '../common/schemas.js';

export const MAX_KEYWORDS_PER_REQUEST = 10_000;
export const MAX_KEYWORD_LENGTH = 200;
export const MAX_TAGS_PER_REQUEST = 100;

const Id = Type.String({ minLength: 1, maxLength: 64 });
const Ids = (max: number, description?: string) => Type.Array(Id, { minItems: 1, maxItems: max, ...(description ? { description } : {}) });
/** A query-string date, `YYYY-MM-DD` (checked by trackingInput.ts). */
const DateParam = (description: string) => Type.Optional(Type.String({ maxLength: 20, description }));

export const PlatformId = IntegerEnum([1, 2], { description: '1 desktop, 2 mobile' });
export const KeywordText = Type.String({ maxLength: MAX_KEYWORD_LENGTH });
/** Keywords as strings (POST /trackings, and the alias of the other bodies). */
export const Keywords = Type.Array(KeywordText, { minItems: 1, maxItems: MAX_KEYWORDS_PER_REQUEST });
/** Keywords as the reference sends them, `[{keyword}]` (strings, as before, are read as such by `keywordStrings`). */
export const KeywordObjects = Type.Array(Type.Object({ keyword: KeywordText }), {
  minItems: 1,
  maxItems: MAX_KEYWORDS_PER_REQUEST,
  description: '`[{keyword}]` (or, as before, strings)',
});
export const Domain = Type.String({ minLength: 1, maxLength: 253 });

// ---- params and queries ----------------------------------------------------------------

export const TrackingParams = Type.Object({ tracking_id: PathId });
export const TrackedKeywordParams = Type.Object({ tracking_id: PathId, tracked_keyword_id: PathId });
export const ReportParams = Type.Object({ tracking_id: PathId, report_id: PathId });
export const TagParams = Type.Object({ tracking_id: PathId, tag_id: PathId });
export const AnnotationParams = Type.Object({ tracking_id: PathId, annotation_id: PathId });

const ShareToken = Type.Optional(Type.String({ maxLength: 128, description: 'The tracking’s share token: a read-only view without an API key' }));
const IsWithDeleted = Type.Optional(Type.String({ maxLength: 10, description: '`true` to include deleted trackings' }));

export const TrackingListQuery = Type.Object({
  from: DateParam('Created on or after: `YYYY-MM-DD` or Unix seconds'),
  to: DateParam('Created on or before: `YYYY-MM-DD` or Unix seconds'),
  is_with_deleted: IsWithDeleted,
});
export const DetailQuery = Type.Object({
  from: DateParam('First day of the figures in `tracking.stats` (default: 30 days before `to`)'),
  to: DateParam('Last day of those figures (default: today)'),
  is_with_deleted: Type.Optional(Type.String({ maxLength: 10, description: '`false` to answer 404 for a deleted tracking' })),
  share_token: ShareToken,
});
export const StatsQuery = Type.Object({
  from: DateParam('First day, `YYYY-MM-DD` (default: 30 days before `to`)'),
  to: DateParam('Last day, `YYYY-MM-DD` (default: today)'),
  share_token: ShareToken,
});
export const TrackedKeywordsQuery = Type.Object({
  fields: Type.Optional(Type.String({ maxLength: 500, description: 'Comma-separated fields of each keyword to answer (default: all)' })),
});
export const TrackedKeywordQuery = Type.Object({
  from: DateParam('First day of the history (default: the first check)'),
  to: DateParam('Last day of the history (default: today)'),
  share_token: ShareToken,
});

// ---- components ------------------------------------------------------------------------

export const TrackingConfig = component(
  'TrackingConfig',
  Type.Object(
    {
      address: Nullable(Type.String()),
      ludocid: Nullable(Type.String()),
      name: Nullable(Type.String()),
      place_id: Nullable(Type.String({ description: 'Business profile id; null clears the settings' })),
    },
    { description: 'Local-SEO settings of a tracking (map-pack tracking); all null when unset' },
  ),
);

const RankDistribution = Type.Object(
  {
    '1': Type.Integer({ description: 'Position 1' }),
    '3': Type.Integer({ description: 'Positions 2–3' }),
    '10': Type.Integer({ description: 'Positions 4–10' }),
    '20': Type.Integer({ description: 'Positions 11–20' }),
    '100': Type.Integer({ description: 'Positions 21–99' }),
    rest: Type.Integer({ description: 'Position 100, or not in the top 100' }),
  },
  { description: 'Keywords checked that day per position band' },
);

export const TrackingStatsItem = component(
  'TrackingStatsItem',
  Type.Object(
    {
      estimated_visits: Type.Integer({ description: 'Monthly visits the day’s positions would earn: Σ search volume × click-through rate' }),
      performance_index: Type.Number({ description: '0–100: performance_total as a share of every checked keyword at position 1' }),
      visibility_index: Type.Number({ description: '0–100: the clicks earned as a share of the clicks at position 1' }),
      performance_total: Type.Integer({ description: 'Σ (101 − position) over the keywords checked that day (0 for one not in the top 100)' }),
      rank_distribution: RankDistribution,
      keywords_with_history: Type.Integer({ description: 'Keywords checked that day' }),
      keywords_eligible: Type.Integer({ description: 'Keywords tracked by that day' }),
      average_position: Nullable(Type.Number({ description: 'Mean position of the keywords ranking that day; null when none ranks' })),
    },
    { description: 'Figures of a tracking’s keywords on one day' },
  ),
);

const Timeframes = Type.Record(Type.String(), Ref(TrackingStatsItem), { description: 'Figures per day (`YYYY-MM-DD`) with checks' });

export const Tag = component(
  'Tag',
  Type.Object(
    {
      _id: Type.String(),
      user_id: Type.String(),
      creator: Type.String({ description: 'E-mail of the account that created it' }),
      tracking_id: Type.String(),
      name: Type.String(),
      color: Type.String(),
      created_at: Type.Integer({ description: 'Unix seconds' }),
    },
    { description: 'A coloured label of a tracking’s keywords' },
  ),
);

export const Annotation = component(
  'Annotation',
  Type.Object(
    {
      _id: Type.String(),
      date: Type.String({ description: '`YYYY-MM-DD`' }),
      content: Type.Object({
        text: Type.String({ description: 'The note; for a recorded change, what changed (empty for keyword additions and removals)' }),
        keywords_count: Type.Integer({ description: 'Keywords added (positive) or removed (negative); 0 for other annotations' }),
        avg: Type.Number({ description: 'Mean position of the tracking’s ranking keywords at the change; 0 when none ranked' }),
        platformId: Type.Integer(),
      }),
      nonShareable: Type.Boolean({ description: 'Hidden from the shared view' }),
      tracking_id: Type.String(),
      user_id: Type.String(),
      creator: Type.String(),
      created_at: Type.Integer({ description: 'Unix seconds' }),
      type: Type.Integer({ description: '0 a user’s note, 1 keywords added, 2 keywords removed, 3 domain changed' }),
    },
    { description: 'A marker on a tracking’s charts' },
  ),
);

export const Tracking = component(
  'Tracking',
  Type.Object(
    {
      _id: Type.String(),
      domain: Type.String(),
      location: Ref(LocationShort),
      platform_id: Type.Integer({ description: '1 desktop, 2 mobile' }),
      count: Type.Integer({ description: 'Tracked keywords' }),
      tracked_keyword_ids: Type.Array(Type.String()),
      tracking_config: Ref(TrackingConfig),
      share_token: Type.String(),
      created_at: Type.Integer({ description: 'Unix seconds' }),
      is_deleted: Type.Boolean(),
      reports_active: Type.Array(Nullable(Type.Integer()), { description: 'Types of the e-mail reports that are sent (empty while reports are paused)' }),
      stats: Type.Optional(Type.Object({ timeframes: Timeframes }, { description: 'On the detail: figures per day from `from` to `to`' })),
      tags: Type.Optional(Type.Array(Ref(Tag), { description: 'On the detail: the tracking’s tags' })),
    },
    { description: 'A domain’s positions tracked for keywords in one location on one platform' },
  ),
);

const trackedKeywordFields = {
  _id: Type.String(),
  keyword_id: Type.String({ description: 'The same as `_id`' }),
  tracking_id: Type.String(),
  user_id: Type.String(),
  kw: Type.String(),
  location_id: Type.Integer(),
  platform_id: Type.Integer(),
  sv: Nullable(Type.Integer({ description: 'Monthly search volume when added' })),
  created_at: Type.Integer({ description: 'Unix seconds' }),
  position: Nullable(Type.Integer({ description: 'Latest position, null when not in the top 100 or not checked yet' })),
  url: Nullable(Type.String({ description: 'The ranking URL of the latest check' })),
  checked_at: Nullable(Type.String({ description: 'Day of the latest check, `YYYY-MM-DD`' })),
  tag_ids: Type.Array(Type.String()),
};
export const TRACKED_KEYWORD_FIELDS = Object.keys(trackedKeywordFields);

export const TrackedKeyword = component('TrackedKeyword', Type.Object(trackedKeywordFields, { description: 'A tracked keyword with its latest check' }));
/** List items: every field, or those named by `fields`. */
const TrackedKeywordItem = Type.Partial(Type.Object(trackedKeywordFields));

export const Report = component(
  'Report',
  Type.Object(
    {
      _id: Type.String(),
      user_id: Type.String(),
      tracking_id: Type.String(),
      type: IntegerEnum([0, 1, 2], { description: '0 rank-change alert, 1 weekly, 2 monthly' }),
      emails: Type.Array(Type.String()),
      name: Type.String(),
      triggers: Type.Array(Type.Integer(), { description: 'Trigger types of an alert, as sent' }),
      min_change: Nullable(Type.Integer({ description: 'Alerts: places a keyword must move (null: 5)' })),
      created_at: Type.Integer({ description: 'Unix seconds' }),
    },
    { description: 'An e-mail report of a tracking' },
  ),
);

const processingFields = {
  estimatedTimeProcessing: Type.Integer({ description: 'Seconds until the first checks are done' }),
  postponed_processing: Type.Boolean({ description: 'Some keywords wait for the scheduler' }),
  postponed_keywords: Type.Integer({ description: 'How many' }),
};

export const TrackingPost = component(
  'TrackingPost',
  Type.Object(
    { tracking: Ref(Tracking), keywords: Type.Array(Ref(TrackedKeyword)), reports: Type.Array(Ref(Report)), ...processingFields },
    { description: 'A new tracking with its keywords and default reports' },
  ),
);

export const TrackedKeywordsAddRes = component(
  'TrackedKeywordsAddRes',
  Type.Object({
    tracking: Ref(Tracking),
    keywords: Type.Array(Ref(TrackedKeyword), { description: 'The keywords added (not those tracked already)' }),
    ...processingFields,
  }),
);

const NullableInt = Nullable(Type.Integer());
const NullableNumber = Nullable(Type.Number());

export const TrackingStatsKeyword = component(
  'TrackingStatsKeyword',
  Type.Object(
    {
      keyword_id: Type.String(),
      kw: Type.String(),
      sv: NullableInt,
      tag_ids: Type.Array(Type.String()),
      position: Nullable(Type.Integer({ description: 'On the last day with a check in the timeframe' })),
      start_position: Nullable(Type.Integer({ description: 'On the first day with a check in the timeframe' })),
      rank_change: Type.Integer({ description: 'Places gained from the first to the last check (not ranking counts as 101)' }),
      url: Nullable(Type.String()),
      is_more_url: Type.Boolean({ description: 'More than one URL of the domain ranked on the last check (false when not recorded)' }),
      visual_metrics: Nullable(
        Type.Object(
          {
            fold: Type.String({ description: '`above`, `in` or `below` the fold of the first screen' }),
            coverage: Type.Number({ description: 'Percent of the first screen the result covers' }),
            visible_part: Type.Number({ description: 'Percent of the result visible on the first screen' }),
            top: Type.Number({ description: 'Pixels from the top of the page' }),
            top_change: NullableNumber,
            coverage_change: NullableNumber,
          },
          { description: 'Where the ranking result sat on the last check; null when it did not rank' },
        ),
      ),
      serp_features: Type.Array(Type.String(), { description: 'SERP feature types on the last check' }),
      last_crawled_at: Nullable(Type.Integer({ description: 'Unix seconds of the last check in the timeframe' })),
      is_empty_main_array: Type.Boolean({ description: 'No check in the timeframe' }),
      nearest_before_day: Nullable(Type.String({ description: 'The last day with a check before the timeframe' })),
    },
    { description: 'A keyword in the statistics of a timeframe' },
  ),
);

export const GetTrackingStatsRes = component(
  'GetTrackingStatsRes',
  Type.Object({
    annotations: Type.Array(Ref(Annotation), { description: 'Annotations dated in the timeframe' }),
    history_dates: Type.Array(Type.String(), { description: 'Days with checks in the timeframe' }),
    stats: Type.Object({
      timeframes: Timeframes,
      top_up: Type.Array(Type.String(), { description: 'Ids of the keywords that gained most (at most 10)' }),
      top_down: Type.Array(Type.String(), { description: 'Ids of the keywords that lost most (at most 10)' }),
    }),
    keywords: Type.Array(Ref(TrackingStatsKeyword)),
    from: Type.String(),
    to: Type.String(),
  }),
);

const RankHistoryDay = Type.Object({
  p: NullableInt,
  af: NullableNumber,
  ft: NullableNumber,
  cov: NullableNumber,
  b: NullableNumber,
});

export const TrackedKeywordDetail = component(
  'TrackedKeywordDetail',
  Type.Object(
    {
      ...trackedKeywordFields,
      search_volume: NullableInt,
      rank: Type.Object({
        last: NullableInt,
        avg: NullableNumber,
        best: NullableInt,
        change: Type.Integer({ description: 'Places gained over the timeframe (not ranking counts as 101)' }),
      }),
      estimated_visits: Type.Object({ end: Type.Integer(), start: Type.Integer(), change: Type.Integer() }),
      items: Type.Array(
        Type.Object({
          url: Type.String(),
          rank_history: Type.Record(Type.String(), RankHistoryDay, {
            description: 'Per day: `p` position, `af` pixels above the fold, `ft` pixels from the top, `cov` pixel area, `b` bottom edge',
          }),
        }),
        { description: 'One per URL of the domain that ranked in the timeframe' },
      ),
      serp_features: Type.Array(Type.String()),
      serp_snapshot_id: Nullable(Type.String()),
      serp_snapshot: Nullable(Type.Object({ id: Type.String(), crawled_at: Type.Integer({ description: 'Unix seconds' }) })),
      visual: Nullable(Type.Record(Type.String(), Type.Unknown())),
      history: Type.Array(Type.Object({ date: Type.String(), position: NullableInt, url: Nullable(Type.String()) })),
    },
    { description: 'A tracked keyword: its checks in a timeframe, per ranking URL and day' },
  ),
);

export const TrackingUpdateResponse = component(
  'TrackingUpdateResponse',
  Type.Object({
    tracking: Ref(Tracking),
    annotation: Type.Optional(Ref(Annotation, { description: 'The annotation recording a domain change' })),
  }),
);

export const GetTrackingDetailRes = component(
  'GetTrackingDetailRes',
  Type.Object({
    tracking: Ref(Tracking),
    keywords: Type.Array(Ref(TrackedKeyword)),
    reports: Type.Array(Ref(Report)),
    whiteLabel: Nullable(Type.Object({}, { description: 'Branding of shared views: not offered, always null' })),
  }),
);

export const rankComponents: ComponentList = [
  TrackingConfig,
  TrackingStatsItem,
  Tag,
  Annotation,
  Tracking,
  TrackedKeyword,
  Report,
  TrackingPost,
  TrackedKeywordsAddRes,
  TrackingStatsKeyword,
  GetTrackingStatsRes,
  TrackedKeywordDetail,
  TrackingUpdateResponse,
  GetTrackingDetailRes,
];

// ---- bodies ----------------------------------------------------------------------------

export const CreateTrackingBody = Type.Object({ domain: Domain, location_id: LocationId, platform_id: PlatformId, keywords: Keywords });

export const MultipleTrackingsBody = Type.Object({
  domain: Domain,
  location_ids: Type.Optional(Type.Array(LocationId, { minItems: 1, maxItems: 20, uniqueItems: true })),
  /** Alias: one location. */
  location_id: Type.Optional(LocationId),
  platform_ids: Type.Array(PlatformId, { minItems: 1, maxItems: 2, uniqueItems: true }),
  keywords: KeywordObjects,
});

const TagIds = Type.Array(Id, { maxItems: MAX_TAGS_PER_REQUEST, description: 'Tags of the tracking the keywords get' });

export const AddKeywordsBody = Type.Object({
  keywords: KeywordObjects,
  tag_ids: Type.Optional(TagIds),
});

export const RemoveKeywordsBody = Type.Object({
  tracked_keyword_ids: Type.Optional(Ids(MAX_KEYWORDS_PER_REQUEST)),
  /** Alias of tracked_keyword_ids. */
  keyword_ids: Type.Optional(Ids(MAX_KEYWORDS_PER_REQUEST)),
});

const ConfigValue = Nullable(Type.String({ maxLength: 500 }));
export const UpdateTrackingBody = Type.Object({
  domain: Type.Optional(Domain),
  tracking_config: Type.Optional(
    Type.Object(
      { place_id: Type.Optional(ConfigValue), ludocid: Type.Optional(ConfigValue), name: Type.Optional(ConfigValue), address: Type.Optional(ConfigValue) },
      { description: 'Replaces the settings; a null `place_id` clears them' },
    ),
  ),
  /** Alias: pause (false) or resume (true) every report of the tracking. */
  reports_active: Type.Optional(Type.Boolean()),
  location_id: Type.Optional(Type.Unknown()),
  platform_id: Type.Optional(Type.Unknown()),
});

export const StatsBody = Type.Object({
  kwIds: Type.Optional(Type.Array(Id, { maxItems: MAX_KEYWORDS_PER_REQUEST, description: 'The keywords to count (default: all)' })),
  /** Aliases of the query's from and to, and the last `days` days. */
  from: Type.Optional(Type.String({ maxLength: 20 })),
  to: Type.Optional(Type.String({ maxLength: 20 })),
  days: Type.Optional(Type.Integer({ minimum: 1, maximum: 366 })),
});

export const ReportBody = Type.Object({
  type: IntegerEnum([0, 1, 2], { description: '0 rank-change alert, 1 weekly, 2 monthly' }),
  emails: Type.Array(Type.String({ format: 'email', maxLength: 254 }), { minItems: 1, maxItems: 20 }),
  name: Type.Optional(Type.String({ maxLength: 200 })),
  triggers: Type.Optional(Type.Array(Type.Integer({ minimum: 0, maximum: 1000 }), { maxItems: 20, description: 'Trigger types of an alert, kept as sent' })),
  min_change: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'Alerts: places a keyword must move (default 5)' })),
});

const TagName = Type.String({ minLength: 1, maxLength: 100 });
const TagColor = Type.String({ minLength: 1, maxLength: 32, description: 'A CSS colour, e.g. `#1a73e8`' });
export const TagBody = Type.Object({ name: TagName, color: TagColor });
export const TagAssignBody = Type.Object({ keyword_ids: Ids(MAX_KEYWORDS_PER_REQUEST), tag_ids: Ids(MAX_TAGS_PER_REQUEST) });

export const AnnotationBody = Type.Object({
  date: Type.String({ maxLength: 20, description: '`YYYY-MM-DD`' }),
  text: Type.String({ minLength: 1, maxLength: 2000 }),
});
export const AnnotationTextBody = Type.Object({ text: Type.String({ minLength: 1, maxLength: 2000 }) });

// ---- answers ---------------------------------------------------------------------------

export const TrackingList = Type.Array(Ref(Tracking));
export const TrackedKeywordList = Type.Array(TrackedKeywordItem);

export type TrackingJson = Static<typeof Tracking>;
export type TrackedKeywordJson = Static<typeof TrackedKeyword>;
export type ReportJson = Static<typeof Report>;
export type TagJson = Static<typeof Tag>;
export type AnnotationJson = Static<typeof Annotation>;
export type TrackingStatsItemJson = Static<typeof TrackingStatsItem>;
export type TrackingStatsKeywordJson = Static<typeof TrackingStatsKeyword>;
export type StatsJson = Static<typeof GetTrackingStatsRes>;
export type TrackedKeywordDetailJson = Static<typeof TrackedKeywordDetail>;
