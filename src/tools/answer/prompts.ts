/**
 * A monitor's prompts: list, add (checked at once), delete, a prompt's answers per model and
 * day, and prompt suggestions for a brand. All free; prompts count in `ai-watcher-prompts`.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { answerServices } from '../../answers/answerService.js';
import { suggestPrompts } from '../../answers/promptIdeas.js';
import { unixSeconds } from '../../lib/clock.js';
import { parseJsonList } from '../../store/answerMonitors.js';
import { itemsSent } from '../common/fairUse.js';
import { requireLanguage, requireLocation } from '../common/params.js';
import { errorResponses, Ref } from '../common/schemas.js';
import { statsTimeframe } from '../rank/trackingInput.js';
import { answerError, cleanName, parseModelFilter, requireMonitor, requireMonitorDomain, requirePrompt } from './answerInput.js';
import { TAG } from './monitors.js';
import { presentAnswer } from './presenters.js';
import {
  AddPromptsBody,
  AnswerMonitorPromptList,
  AnswerMonitorPromptsAddRes,
  AnswerToolPromptDetail,
  DeletedCount,
  DeletePromptsBody,
  GenerateBody,
  GenerateResponse,
  MonitorParams,
  PromptParams,
  RangeQuery,
  ShareQuery,
} from './schemas.js';

/** Keywords of the domain read for suggestions. */
const SUGGESTION_KEYWORDS = 200;

export async function promptRoutes(plain: FastifyInstance): Promise<void> {
  const app = plain.withTypeProvider<TypeBoxTypeProvider>();
  const { clock, policy, locations, search, engine } = app.quarry;
  const services = () => answerServices(app.quarry);

  app.get(
    '/monitor/:id/prompts',
    {
      config: { auth: 'optional' },
      schema: {
        tags: TAG,
        summary: 'A monitor’s prompts',
        description: 'A deleted monitor’s too; without a key, the monitor’s `share_token` opens it.',
        params: MonitorParams,
        querystring: ShareQuery,
        response: { 200: Ref(AnswerMonitorPromptList), ...errorResponses(401, 404) },
      },
    },
    async (req) => {
      const monitor = await requireMonitor(app, req.account, req.params.id, { withDeleted: true, shareToken: req.query.share_token });
      return { prompts: (await services().store.promptsOf(monitor.id)).map((p) => ({ _id: p.id, prompt: p.prompt })) };
    },
  );

  app.post(
    '/monitor/:id/prompts',
    {
      config: { fairUse: itemsSent },
      schema: {
        tags: TAG,
        summary: 'Add prompts to a monitor',
        description: 'Prompts it asks already are skipped. Each new one costs 1 of `ai-watcher-prompts`; past it, 429 CreditLimit and nothing is added.',
        params: MonitorParams,
        body: AddPromptsBody,
        response: { 200: Ref(AnswerMonitorPromptsAddRes), ...errorResponses(401, 404, 422, 429) },
      },
    },
    async (req) => {
      const account = req.account!;
      const monitor = await requireMonitor(app, account, req.params.id);
      const plan = policy.planOf(account);
      const nowMs = clock.now();
      const { added, skipped } = await services()
        .store.addPrompts(monitor, req.body.prompts, { monitors: plan.aiWatcherMonitors, prompts: plan.aiWatcherPrompts }, unixSeconds(nowMs))
        .catch(answerError);
      if (added.length > 0) services().checks.checkSoon(monitor.id, nowMs);
      return { prompts: added.map((p) => ({ _id: p.id, prompt: p.prompt })), added: added.length, skipped };
    },
  );

  app.delete(
    '/prompts',
    {
      config: { fairUse: itemsSent },
      schema: {
        tags: TAG,
        summary: 'Delete prompts by id, with their answers',
        description: 'Ids of other accounts’ prompts, or unknown ones, are ignored and not counted.',
        body: DeletePromptsBody,
        response: { 200: DeletedCount, ...errorResponses(401, 422) },
      },
    },
    async (req) => ({ deleted_count: await services().store.deletePrompts(req.account!.id, req.body.prompt_ids) }),
  );

  app.get(
    '/prompt/:id',
    {
      config: { auth: 'optional' },
      schema: {
        tags: TAG,
        summary: 'A prompt’s answers per model and day, with citations and the brand’s mentions',
        description:
          'From `from` to `to` (default: the last 30 days), of the models `models` (default: all); without a key, the monitor’s `share_token` opens it.',
        params: PromptParams,
        querystring: RangeQuery,
        response: { 200: Ref(AnswerToolPromptDetail), ...errorResponses(401, 404, 422) },
      },
    },
    async (req) => {
      const q = req.query;
      const { prompt, monitor } = await requirePrompt(app, req.account, req.params.id, q.share_token);
      const range = statsTimeframe({ from: q.from, to: q.to }, clock.now());
      const { store, purchases } = services();
      const rows = await store.results({ promptId: prompt.id, from: range.from, to: range.to, models: parseModelFilter(q.models) });
      const order = parseJsonList<number>(monitor.models);
      rows.sort((a, b) => (a.day === b.day ? order.indexOf(a.model_id) - order.indexOf(b.model_id) : a.day < b.day ? 1 : -1));
      const answers = [];
      for (const r of rows) {
        const body = r.answer_model !== null && r.answer_query !== null ? await purchases.held(r.answer_model, r.answer_query, r.day) : null;
        answers.push(presentAnswer(r, body));
      }
      return { _id: prompt.id, prompt: prompt.prompt, monitor_id: monitor.id, from: range.from, to: range.to, answers };
    },
  );

  app.post(
    '/prompts/generate',
    {
      config: { fairUse: itemsSent },
      schema: {
        tags: TAG,
        summary: 'Prompt suggestions for a brand, to start a monitor with',
        description:
          'From the keywords the domain ranks for in the location (most searched first), as questions; with how the research data positions the brand.',
        body: GenerateBody,
        response: { 200: GenerateResponse, ...errorResponses(401, 422) },
      },
    },
    async (req) => {
      const body = req.body;
      const brand = cleanName(body.brand, 'brand');
      const domain = requireMonitorDomain(body.domain);
      const location = requireLocation(locations, body.location_id);
      if (body.language_id !== undefined) requireLanguage(body.language_id);
      const max = policy.planOf(req.account!).maxGeneratePrompts;
      const ranking = await search.competitorKeywords(domain, body.location_id, SUGGESTION_KEYWORDS);
      // Keywords nobody has a volume for say nothing about what the brand is searched for.
      const keywords = ranking.keywords.filter((k): k is typeof k & { sv: number } => k.sv !== null).sort((a, b) => b.sv - a.sv || a.position - b.position);
      const kind = (engine.store.raw.prepare('SELECT kind FROM root_domains WHERE domain = ?').get(domain) as { kind: string } | undefined)?.kind ?? null;
      const { prompts, perception } = suggestPrompts(
        { brand, domain, keywords, kind: kind ?? (keywords.length > 0 ? 'site' : null), locationLabel: location.label },
        max,
      );
      return { prompts, perception, maxGeneratePrompts: max };
    },
  );
}
