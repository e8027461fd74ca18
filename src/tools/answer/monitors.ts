/**
 * Answer monitors: the models offered, create (201; checked at once), list, the dashboard,
 * settings, delete. All free: monitors and prompts count in the plan's `ai-watcher-monitors`
 * and `ai-watcher-prompts` pools (over them: 429 CreditLimit, nothing created). Another
 * account's monitor answers 404.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { answerServices } from '../../answers/answerService.js';
import { monitorFigures } from '../../answers/answerStats.js';
import { unixSeconds } from '../../lib/clock.js';
import { errors } from '../../lib/errors.js';
import { parseJsonList } from '../../store/answerMonitors.js';
import { itemsSent } from '../common/fairUse.js';
import { requireLanguage, requireLocation } from '../common/params.js';
import { errorResponses, Ref } from '../common/schemas.js';
import { statsTimeframe } from '../rank/trackingInput.js';
import { answerError, cleanName, cleanVariations, parseModelFilter, requireModels, requireMonitor, requireMonitorDomain } from './answerInput.js';
import { presentMonitor, presentSettings } from './presenters.js';
import {
  AnswerMonitorDashboard,
  CreateMonitorBody,
  EmptyObject,
  IdResponse,
  ModelsResponse,
  MonitorParams,
  MonitorsResponse,
  RangeQuery,
  SettingsBody,
  SettingsResponse,
} from './schemas.js';

export const TAG = ['answer-tool'];

export async function monitorRoutes(plain: FastifyInstance): Promise<void> {
  const app = plain.withTypeProvider<TypeBoxTypeProvider>();
  const { clock, locations, policy, search } = app.quarry;
  const services = () => answerServices(app.quarry);
  const limitsOf = (plan: ReturnType<typeof policy.planOf>) => ({ monitors: plan.aiWatcherMonitors, prompts: plan.aiWatcherPrompts });

  app.get(
    '/models',
    {
      schema: {
        tags: TAG,
        summary: 'The AI models and AI search answers a monitor can ask',
        description: 'The sandbox models always; OpenAI, Perplexity, Gemini and Google’s AI Overviews when the deployment configures them.',
        response: { 200: ModelsResponse, ...errorResponses(401, 500) },
      },
    },
    async () => ({ models: services().models }),
  );

  app.get(
    '/monitors',
    {
      schema: {
        tags: TAG,
        summary: 'The account’s answer monitors, newest first',
        description: 'Deleted monitors too, as `paused`, until they are purged 30 days after their deletion.',
        response: { 200: MonitorsResponse, ...errorResponses(401, 422, 500) },
      },
    },
    async (req) => {
      const { store } = services();
      const rows = await store.list(req.account!.id);
      const dates = await store.datesOf(rows.map((r) => r.id));
      const counts = await store.promptCounts(rows.map((r) => r.id));
      return { monitors: rows.map((r) => presentMonitor(r, dates.get(r.id) ?? [], counts.get(r.id) ?? 0)) };
    },
  );

  app.post(
    '/monitor',
    {
      config: { fairUse: itemsSent },
      schema: {
        tags: TAG,
        summary: 'Watch a brand in AI answers: its domain, location, platform, models and prompts',
        description:
          'Asks every prompt of every model at once and then daily. One monitor costs 1 of `ai-watcher-monitors`, each prompt 1 of `ai-watcher-prompts`; past either, 429 CreditLimit and nothing is created.',
        body: CreateMonitorBody,
        response: { 201: IdResponse, ...errorResponses(401, 422, 429, 500) },
      },
    },
    async (req, reply) => {
      const account = req.account!;
      const body = req.body;
      const brand = cleanName(body.brand, 'brand');
      const domain = requireMonitorDomain(body.domain);
      requireLocation(locations, body.location_id);
      const languageId = body.language_id === undefined ? search.languageFor(body.location_id, 0)._id : requireLanguage(body.language_id);
      const models = requireModels(app, body.models);
      const nowMs = clock.now();
      const { monitor } = await services()
        .store.create(
          account.id,
          {
            brand,
            brandVariations: cleanVariations(body.brandVariations ?? [], brand),
            domain,
            locationId: body.location_id,
            languageId,
            platformId: body.platform_id,
            models,
          },
          body.prompts,
          limitsOf(policy.planOf(account)),
          unixSeconds(nowMs),
        )
        .catch(answerError);
      services().checks.checkSoon(monitor.id, nowMs);
      return reply.code(201).send({ _id: monitor.id });
    },
  );

  app.get(
    '/monitor/:id',
    {
      config: { auth: 'optional' },
      schema: {
        tags: TAG,
        summary: 'A monitor’s analytics: mentions per model, citation sources, sentiment, visibility over time',
        description:
          'From `from` to `to` (default: the last 30 days), over the models `models` (default: the monitor’s). A deleted monitor’s history too; without a key, the monitor’s `share_token` opens it.',
        params: MonitorParams,
        querystring: RangeQuery,
        response: { 200: Ref(AnswerMonitorDashboard), ...errorResponses(401, 404, 422, 500) },
      },
    },
    async (req) => {
      const q = req.query;
      const monitor = await requireMonitor(app, req.account, req.params.id, { withDeleted: true, shareToken: q.share_token });
      const range = statsTimeframe({ from: q.from, to: q.to }, clock.now());
      const models = parseModelFilter(q.models) ?? parseJsonList<number>(monitor.models);
      const rows = await services().store.results({ monitorId: monitor.id, from: range.from, to: range.to, models });
      const figures = monitorFigures(rows, models);
      return {
        _id: monitor.id,
        brand: monitor.brand,
        domain: monitor.domain,
        from: range.from,
        to: range.to,
        dates: figures.timeline.map((d) => d.date),
        has_pending_changes: monitor.pending_changes === 1,
        ...figures,
      };
    },
  );

  app.delete(
    '/monitor/:id',
    {
      config: { fairUse: itemsSent },
      schema: {
        tags: TAG,
        summary: 'Delete a monitor: no more checks',
        description: 'Its prompts and results stay readable (listed as `paused`) and leave the plan’s pools; it is purged 30 days later.',
        params: MonitorParams,
        response: { 200: EmptyObject, ...errorResponses(401, 404, 422, 500) },
      },
    },
    async (req) => {
      if (!(await services().store.softDelete(req.account!.id, req.params.id, unixSeconds(clock.now())))) throw errors.notFound('Monitor not found');
      return {};
    },
  );

  app.get(
    '/monitor/:id/settings',
    {
      schema: {
        tags: TAG,
        summary: 'A monitor’s settings',
        params: MonitorParams,
        response: { 200: SettingsResponse, ...errorResponses(401, 404, 500) },
      },
    },
    async (req) => presentSettings(await requireMonitor(app, req.account, req.params.id, { withDeleted: true })),
  );

  app.put(
    '/monitor/:id/settings',
    {
      config: { fairUse: itemsSent },
      schema: {
        tags: TAG,
        summary: 'Change a monitor’s brand, variations, domain, models, reports or display options',
        description: 'A change to what is asked or looked for applies from the next check, which comes within minutes (today’s answers are analysed again).',
        params: MonitorParams,
        body: SettingsBody,
        response: { 200: IdResponse, ...errorResponses(401, 404, 422, 500) },
      },
    },
    async (req) => {
      const body = req.body;
      const monitor = await requireMonitor(app, req.account, req.params.id);
      const brand = body.brand === undefined ? undefined : cleanName(body.brand, 'brand');
      const updated = await services().store.update(monitor, {
        brand,
        brandVariations: body.brandVariations === undefined ? undefined : cleanVariations(body.brandVariations, brand ?? monitor.brand),
        domain: body.domain === undefined ? undefined : requireMonitorDomain(body.domain),
        models: body.models === undefined ? undefined : requireModels(app, body.models),
        reportsActive: body.reports_active,
        display: {
          brand_perception_display: body.brand_perception_display,
          score_label_display: body.score_label_display,
          performance_cards_display: body.performance_cards_display,
          performance_summary_display: body.performance_summary_display,
        },
        statusNotifications: body.status_notifications,
      });
      if (updated.pending_changes === 1) services().checks.checkSoon(updated.id, clock.now());
      return { _id: updated.id };
    },
  );
}
