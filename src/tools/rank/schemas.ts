/** Request and response schemas of the rank tool, defined once. */
import { Type } from '@sinclair/typebox';
import { LocationId, LocationShort, Ref } from '../common/schemas.js';

export const MAX_KEYWORDS_PER_REQUEST = 10_000;
export const MAX_KEYWORD_LENGTH = 200;

export const PlatformId = Type.Union([Type.Literal(1), Type.Literal(2)]);
export const Keywords = Type.Array(Type.String({ maxLength: MAX_KEYWORD_LENGTH }), { minItems: 1, maxItems: MAX_KEYWORDS_PER_REQUEST });
export const Domain = Type.String({ minLength: 1, maxLength: 253 });

export const CreateTrackingBody = Type.Object({ domain: Domain, location_id: LocationId, platform_id: PlatformId, keywords: Keywords });
export const MultipleTrackingsBody = Type.Object({
  domain: Domain,
  location_id: LocationId,
  platform_ids: Type.Array(PlatformId, { minItems: 1, maxItems: 2, uniqueItems: true }),
  keywords: Keywords,
});

export const TrackingParams = Type.Object({ tracking_id: Type.String({ minLength: 1, maxLength: 64 }) });
export const TrackedKeywordParams = Type.Object({
  tracking_id: Type.String({ minLength: 1, maxLength: 64 }),
  keyword_id: Type.String({ minLength: 1, maxLength: 64 }),
});
export const ReportParams = Type.Object({
  tracking_id: Type.String({ minLength: 1, maxLength: 64 }),
  report_id: Type.String({ minLength: 1, maxLength: 64 }),
});

export const Tracking = Type.Object({
  _id: Type.String(),
  domain: Type.String(),
  location: Ref(LocationShort),
  platform_id: Type.Integer(),
  count: Type.Integer(),
  tracked_keyword_ids: Type.Array(Type.String()),
  created_at: Type.Integer(),
  is_deleted: Type.Boolean(),
  reports_active: Type.Boolean(),
  share_token: Type.String(),
});

export const NewTrackedKeyword = Type.Object({
  keyword_id: Type.String(),
  tracking_id: Type.String(),
  user_id: Type.String(),
  kw: Type.String(),
  location_id: Type.Integer(),
  platform_id: Type.Integer(),
});

export const ReportType = Type.Union([Type.Literal(0), Type.Literal(1), Type.Literal(2)]);
export const Report = Type.Object({
  _id: Type.String(),
  user_id: Type.String(),
  tracking_id: Type.String(),
  type: Type.Integer(),
  emails: Type.Array(Type.String()),
  name: Type.Union([Type.String(), Type.Null()]),
  triggers: Type.Record(Type.String(), Type.Unknown()),
  created_at: Type.Integer(),
});
export const ReportBody = Type.Object({
  type: ReportType,
  emails: Type.Array(Type.String({ format: 'email', maxLength: 254 }), { minItems: 1, maxItems: 20 }),
  name: Type.Optional(Type.Union([Type.String({ maxLength: 200 }), Type.Null()])),
  /** Rank-change alerts: `{ min_change }` places (default 5). */
  triggers: Type.Optional(Type.Object({ min_change: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })) })),
});

export const NewTrackingResponse = Type.Object({
  tracking: Tracking,
  keywords: Type.Array(NewTrackedKeyword),
  reports: Type.Array(Report),
  estimatedTimeProcessing: Type.Integer(),
  postponed_processing: Type.Boolean(),
  postponed_keywords: Type.Array(Type.String()),
});

export const StatsBody = Type.Object({
  from: Type.Optional(Type.String({ maxLength: 20 })),
  to: Type.Optional(Type.String({ maxLength: 20 })),
  days: Type.Optional(Type.Integer({ minimum: 1, maximum: 366 })),
});

const RankPosition = Type.Union([Type.Integer(), Type.Null()]);
export const TrackedKeyword = Type.Object({
  _id: Type.String(),
  tracking_id: Type.String(),
  kw: Type.String(),
  location_id: Type.Integer(),
  platform_id: Type.Integer(),
  sv: Type.Union([Type.Integer(), Type.Null()]),
  created_at: Type.Integer(),
  position: RankPosition,
  url: Type.Union([Type.String(), Type.Null()]),
  checked_at: Type.Union([Type.String(), Type.Null()]),
});

const Distribution = Type.Object({
  '1': Type.Integer(),
  '2-3': Type.Integer(),
  '4-10': Type.Integer(),
  '11-20': Type.Integer(),
  '21-100': Type.Integer(),
  rest: Type.Integer(),
});
const DayFigures = {
  keywords: Type.Integer(),
  distribution: Distribution,
  average_position: Type.Union([Type.Number(), Type.Null()]),
  visibility: Type.Number(),
};
const Mover = Type.Object({ keyword_id: Type.String(), kw: Type.String(), from: RankPosition, to: RankPosition, change: Type.Integer() });
export const StatsResponse = Type.Object({
  tracking_id: Type.String(),
  from: Type.String(),
  to: Type.String(),
  first_day: Type.Union([Type.String(), Type.Null()]),
  last_day: Type.Union([Type.String(), Type.Null()]),
  ...DayFigures,
  estimated_visits: Type.Integer(),
  daily: Type.Array(Type.Object({ date: Type.String(), ...DayFigures })),
  top_movers: Type.Object({ up: Type.Array(Mover), down: Type.Array(Mover) }),
});
