/**
 * Request and response schemas of the answer tool (AI answer monitoring), in the published
 * reference's shapes where it types them. Where the reference says only `object` (the
 * monitor's dashboard, a prompt's detail, the prompt list and the answer to adding prompts),
 * the answers are designed here from the reference's prose and documented field by field.
 */
import { Type, type Static } from '@sinclair/typebox';
import { component, IntegerEnum, Nullable, PathId, Ref, StringEnum, type ComponentList } from '../common/schemas.js';

export const MAX_PROMPT_LENGTH = 1_000;
export const MAX_PROMPTS_PER_REQUEST = 2_000;
export const MAX_BRAND_LENGTH = 200;
export const MAX_VARIATIONS = 50;

const Id = Type.String({ minLength: 1, maxLength: 64 });
const Brand = Type.String({ minLength: 1, maxLength: MAX_BRAND_LENGTH, pattern: '\\S', description: 'The brand as answers name it' });
const Domain = Type.String({ minLength: 1, maxLength: 253, description: 'The brand’s site: citations of it and its subdomains count' });
const Prompt = Type.String({
  minLength: 1,
  maxLength: MAX_PROMPT_LENGTH,
  pattern: '\\S',
  description: `A question people ask an AI assistant (at most ${MAX_PROMPT_LENGTH} characters)`,
});
const Prompts = Type.Array(Prompt, {
  minItems: 1,
  maxItems: MAX_PROMPTS_PER_REQUEST,
  description: 'Each counts 1 in the `ai-watcher-prompts` pool, whatever the number of models',
});
const ModelIds = Type.Array(Type.Integer({ minimum: 1, maximum: 1_000_000 }), {
  minItems: 1,
  maxItems: 20,
  uniqueItems: true,
  description: 'Ids of the models to ask (GET /answer-tool/models)',
});
const Variations = Type.Array(Type.String({ minLength: 1, maxLength: MAX_BRAND_LENGTH, pattern: '\\S' }), {
  maxItems: MAX_VARIATIONS,
  description: 'Other names that count as the brand (abbreviations, former names, product names)',
});
const ReportTypes = Type.Array(IntegerEnum([0, 1, 2]), {
  maxItems: 3,
  uniqueItems: true,
  description: 'E-mail reports sent to the account’s address: 0 a daily alert when the brand’s visibility moves, 1 weekly, 2 monthly',
});
const DateParam = (description: string) => Type.Optional(Type.String({ maxLength: 20, description }));
const ShareToken = Type.Optional(Type.String({ maxLength: 128, description: 'The monitor’s share token: a read-only view without an API key' }));

// ---- params, queries, bodies -------------------------------------------------------------

export const MonitorParams = Type.Object({ id: PathId });
export const PromptParams = Type.Object({ id: PathId });

export const RangeQuery = Type.Object({
  models: Type.Optional(Type.String({ maxLength: 500, description: 'Comma-separated model ids (default: all the monitor’s)' })),
  from: DateParam('First day, `YYYY-MM-DD` (default: 29 days before `to`)'),
  to: DateParam('Last day, `YYYY-MM-DD` (default: today)'),
  share_token: ShareToken,
});
export const ShareQuery = Type.Object({ share_token: ShareToken });

export const CreateMonitorBody = Type.Object({
  location_id: Type.Integer({ minimum: 0, maximum: 2_147_483_647 }),
  platform_id: IntegerEnum([1, 2], { description: '1 desktop, 2 mobile (AI Overviews differ by device)' }),
  brand: Brand,
  domain: Domain,
  models: ModelIds,
  prompts: Prompts,
  language_id: Type.Optional(Type.Integer({ minimum: 0, maximum: 2_147_483_647, description: 'Default: the location’s main language' })),
  brandVariations: Type.Optional(Variations),
});

export const GenerateBody = Type.Object({
  location_id: Type.Integer({ minimum: 0, maximum: 2_147_483_647 }),
  platform_id: IntegerEnum([1, 2]),
  brand: Brand,
  domain: Domain,
  language_id: Type.Optional(Type.Integer({ minimum: 0, maximum: 2_147_483_647 })),
});

export const DeletePromptsBody = Type.Object({ prompt_ids: Type.Array(Id, { minItems: 1, maxItems: MAX_PROMPTS_PER_REQUEST }) });
export const AddPromptsBody = Type.Object({ prompts: Prompts });

export const SettingsBody = Type.Object(
  {
    brand: Type.Optional(Brand),
    brandVariations: Type.Optional(Variations),
    domain: Type.Optional(Domain),
    models: Type.Optional(ModelIds),
    reports_active: Type.Optional(ReportTypes),
    brand_perception_display: Type.Optional(Type.Boolean()),
    score_label_display: Type.Optional(Type.Boolean()),
    status_notifications: Type.Optional(Type.Boolean({ description: 'E-mail the account when a model fails for the monitor' })),
    performance_cards_display: Type.Optional(Type.Boolean()),
    performance_summary_display: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

// ---- components --------------------------------------------------------------------------

export const AnswerModelItem = Type.Object({
  id: Type.Integer(),
  model: Type.String({ description: 'The provider’s model name' }),
  name: Type.String(),
  active: Type.Boolean(),
  deprecated: Type.Boolean(),
  supportsCitations: Type.Boolean(),
  isSerp: Type.Boolean({ description: 'A search engine’s AI answer (Google’s AI Overviews) rather than an assistant’s' }),
  provider: StringEnum(['sandbox', 'openai', 'perplexity', 'gemini', 'google'] as const, {
    description: '`sandbox` (always on, answers from the sandbox web), `openai`, `perplexity`, `gemini`, or `google` (AI Overviews through the SERP provider)',
  }),
});
export const ModelsResponse = Type.Object({ models: Type.Array(AnswerModelItem, { description: 'The models this deployment can ask' }) });

export const AnswerMonitorListItem = component(
  'AnswerMonitorListItem',
  Type.Object(
    {
      _id: Type.String(),
      brand: Type.String(),
      domain: Type.String(),
      location_id: Type.Integer(),
      language_id: Type.Integer(),
      share_token: Nullable(Type.String({ description: 'Opens the monitor’s dashboard, prompts and answers read-only without a key' })),
      monitoring_state: StringEnum(['active', 'warned', 'paused'] as const, {
        description: '`active`; `warned` when a model failed in the latest check; `paused` once deleted (no more checks, history readable until purged)',
      }),
      dates: Type.Array(Type.String(), { description: 'Days with results, `YYYY-MM-DD`' }),
      platform_id: Type.Integer(),
      models: Type.Array(Type.Integer()),
      prompts: Type.Integer({ description: 'Prompts the monitor asks' }),
      created_at: Type.Integer({ description: 'Unix seconds' }),
    },
    { description: 'A brand watched in AI answers' },
  ),
);
export const MonitorsResponse = Type.Object({ monitors: Type.Array(Ref(AnswerMonitorListItem)) });

const SentimentCounts = Type.Object(
  {
    positive: Type.Integer(),
    neutral: Type.Integer(),
    negative: Type.Integer(),
  },
  { description: 'Answers that mention the brand, by the tone of the sentences naming it (AFINN-165 lexicon)' },
);

const CitedUrl = Type.Object({ url: Type.String(), count: Type.Integer({ description: 'Answers citing it' }) });

const figures = {
  model_id: Type.Integer(),
  prompts: Type.Integer({ description: 'Prompts checked' }),
  answers: Type.Integer({ description: 'Answers received' }),
  failed: Type.Integer({ description: 'Checks the model failed (nothing charged)' }),
  mentions: Type.Integer({ description: 'Answers that mention the brand or one of its variations' }),
  mention_count: Type.Integer({ description: 'Mentions in all, several per answer' }),
  domain_citations: Type.Integer({ description: 'Distinct cited URLs on the domain or a subdomain, summed over the answers' }),
  citing_answers: Type.Integer({ description: 'Answers that cite the domain' }),
  visibility: Type.Number({ description: '0–100: the share of answers that mention the brand' }),
  share_of_voice: Nullable(
    Type.Number({
      description: '0–100: answers mentioning the brand as a share of the mentions of every brand named (the cited sites’ brands); null when none is named',
    }),
  ),
  average_position: Nullable(
    Type.Number({ description: 'Mean position of the brand’s first mention among the brands an answer names (1 = first); null when never mentioned' }),
  ),
  sentiment: SentimentCounts,
  cited_urls: Type.Array(CitedUrl, { description: 'URLs cited by the answers, most cited first (at most 20; 5 per day in the timeline)' }),
};

const ModelFigures = Type.Object(
  {
    ...figures,
    competitors: Type.Array(Type.Object({ name: Type.String(), domain: Type.String(), mentions: Type.Integer({ description: 'Answers naming it' }) }), {
      description: 'Other brands the answers name, most named first (at most 10)',
    }),
  },
  { description: 'A model’s answers over the timeframe' },
);

export const AnswerMonitorDashboard = component(
  'AnswerMonitorDashboard',
  Type.Object(
    {
      _id: Type.String(),
      brand: Type.String(),
      domain: Type.String(),
      from: Type.String(),
      to: Type.String(),
      dates: Type.Array(Type.String(), { description: 'Days with results in the timeframe' }),
      has_pending_changes: Type.Boolean({ description: 'A settings change waits for the next check' }),
      models: Type.Array(ModelFigures, { description: 'Per model: mentions, citations, share of voice, position, sentiment, cited URLs' }),
      timeline: Type.Array(Type.Object({ date: Type.String(), models: Type.Array(Type.Object(figures)) }, { description: 'The same figures for one day' }), {
        description: 'One entry per day with results, oldest first',
      }),
    },
    { description: 'A monitor’s analytics: mentions per model, citation sources, sentiment, visibility timeline' },
  ),
);

export const AnswerToolPromptDetail = component(
  'AnswerToolPromptDetail',
  Type.Object(
    {
      _id: Type.String(),
      prompt: Type.String(),
      monitor_id: Type.String(),
      from: Type.String(),
      to: Type.String(),
      answers: Type.Array(
        Type.Object({
          model_id: Type.Integer(),
          date: Type.String({ description: '`YYYY-MM-DD` (the latest attempt of that day counts)' }),
          status: StringEnum(['ok', 'failed'] as const),
          error: Type.Optional(Type.String({ description: 'Why the model failed (nothing was charged)' })),
          text: Type.String({ description: 'The answer as the model gave it (empty when failed)' }),
          mentions: Type.Array(
            Type.Object({ start: Type.Integer(), end: Type.Integer(), text: Type.String() }, { description: 'A mention: `text.slice(start, end)`' }),
            { description: 'The brand’s mentions in the text (not in citation titles or link labels)' },
          ),
          citations: Type.Array(Type.Object({ url: Type.String(), title: Type.String(), domain: Nullable(Type.String()) })),
          position: Nullable(Type.Integer({ description: 'The brand’s place among the brands named (1 = first); null when not mentioned' })),
          sentiment: Nullable(StringEnum(['positive', 'neutral', 'negative'] as const)),
          cites_domain: Type.Boolean(),
          brands: Type.Array(Type.Object({ name: Type.String(), domain: Type.String(), mentions: Type.Integer() }), {
            description: 'Other brands the answer names',
          }),
        }),
        { description: 'Each day’s answer per model, newest day first' },
      ),
    },
    { description: 'One prompt’s answers per model and day, with their citations and the mentions found in them' },
  ),
);

const PromptItem = Type.Object({ _id: Type.String(), prompt: Type.String() });

export const AnswerMonitorPromptList = component(
  'AnswerMonitorPromptList',
  Type.Object({ prompts: Type.Array(PromptItem, { description: 'The monitor’s prompts, oldest first' }) }, { description: 'A monitor’s prompts' }),
);

export const AnswerMonitorPromptsAddRes = component(
  'AnswerMonitorPromptsAddRes',
  Type.Object(
    {
      prompts: Type.Array(PromptItem, { description: 'The prompts added (checked within minutes)' }),
      added: Type.Integer(),
      skipped: Type.Integer({ description: 'Prompts the monitor asks already (or repeated in the request)' }),
    },
    { description: 'The prompts added to a monitor' },
  ),
);

export const SettingsResponse = Type.Object({
  location_id: Type.Integer(),
  brand: Type.String(),
  domain: Type.String(),
  models: Type.Array(Type.Integer()),
  language_id: Type.Integer(),
  reports_active: Type.Array(Type.Integer(), { description: '0 daily alert, 1 weekly, 2 monthly' }),
  brandVariations: Type.Array(Type.String()),
  status_notifications: Type.Boolean(),
  hasPendingChanges: Type.Boolean({ description: 'A change waits for the next check (today’s answers are then analysed again)' }),
  platform_id: Type.Integer(),
  brand_perception_display: Type.Boolean(),
  score_label_display: Type.Boolean(),
  performance_cards_display: Type.Boolean(),
  performance_summary_display: Type.Boolean(),
});

export const IdResponse = Type.Object({ _id: Type.String() });
export const EmptyObject = Type.Object({}, { additionalProperties: false, description: 'Deleted' });
export const DeletedCount = Type.Object({
  deleted_count: Type.Integer({ description: 'Prompts deleted (ids of other accounts or unknown ones are ignored)' }),
});
export const GenerateResponse = Type.Object({
  prompts: Type.Array(Type.String(), { description: 'Suggested prompts, from the keywords the domain ranks for and the brand’s topics' }),
  perception: Type.String({ description: 'How the research data positions the brand: the kind of site and the topics it is found for' }),
  maxGeneratePrompts: Type.Integer({ description: 'Most suggestions a call gives on this plan' }),
});

export const answerComponents: ComponentList = [
  AnswerMonitorListItem,
  AnswerMonitorDashboard,
  AnswerToolPromptDetail,
  AnswerMonitorPromptList,
  AnswerMonitorPromptsAddRes,
];

export type DashboardJson = Static<typeof AnswerMonitorDashboard>;
export type PromptDetailJson = Static<typeof AnswerToolPromptDetail>;
export type MonitorListItemJson = Static<typeof AnswerMonitorListItem>;
export type ModelFiguresJson = Static<typeof ModelFigures>;
