/**
 * E-mail reports of a tracking: rank-change alerts (0), weekly (1) and monthly (2) reports.
 * A new tracking starts with a weekly and a monthly report to the account's address.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance, preValidationHookHandler } from 'fastify';
import { errors } from '../../lib/errors.js';
import { unixSeconds } from '../../lib/clock.js';
import { rankServices } from '../../rank/rankService.js';
import type { NewReport } from '../../store/rankTracking.js';
import { emptyResponse, errorResponses, Ref } from '../common/schemas.js';
import { presentReport } from './presenters.js';
import { Report, ReportBody, ReportParams, TrackingParams } from './schemas.js';
import { requireTracking, trackingError } from './trackings.js';
import { itemsSent } from '../common/fairUse.js';

/** Reports a tracking holds at most. */
export const MAX_REPORTS_PER_TRACKING = 20;
const TAG = ['rank-tool'];

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function reportOf(body: Static<typeof ReportBody>): NewReport {
  const emails = [...new Set(body.emails.map((e) => e.trim().toLowerCase()))];
  return { type: body.type, emails, name: body.name?.trim() || null, triggers: body.triggers ?? [], min_change: body.min_change ?? null };
}

/**
 * The old body form, `triggers: {min_change}`, read as `min_change` before validation, so
 * that clients of the previous release keep working while the schema speaks the reference.
 */
const oldTriggers: preValidationHookHandler = (req, _reply, done) => {
  const body = req.body;
  if (isRecord(body) && isRecord(body.triggers)) {
    const { min_change, ...rest } = body.triggers;
    if (Object.keys(rest).length > 0 || (min_change !== undefined && body.min_change !== undefined)) return done(errors.invalidParameter('triggers'));
    body.triggers = [];
    if (min_change !== undefined) body.min_change = min_change;
  }
  done();
};

export async function reportRoutes(plain: FastifyInstance): Promise<void> {
  const app = plain.withTypeProvider<TypeBoxTypeProvider>();
  const { clock } = app.quarry;
  const { store } = rankServices(app.quarry);

  app.get(
    '/trackings/:tracking_id/reports',
    {
      schema: {
        tags: TAG,
        summary: 'The e-mail reports of a tracking',
        params: TrackingParams,
        response: { 200: Type.Array(Ref(Report)), ...errorResponses(401, 404) },
      },
    },
    async (req) => {
      const tracking = await requireTracking(app, req.account, req.params.tracking_id, { withDeleted: true });
      return (await store.reportsOf(tracking.id)).map(presentReport);
    },
  );

  app.post(
    '/trackings/:tracking_id/reports',
    {
      config: { fairUse: itemsSent },
      preValidation: oldTriggers,
      schema: {
        tags: TAG,
        summary: 'Add an e-mail report',
        description: 'Type 0 a rank-change alert (keywords that moved `min_change` places, default 5, in a day), 1 weekly, 2 monthly.',
        params: TrackingParams,
        body: ReportBody,
        response: { 201: Ref(Report), ...errorResponses(401, 404, 422) },
      },
    },
    async (req, reply) => {
      const tracking = await requireTracking(app, req.account, req.params.tracking_id);
      const report = reportOf(req.body);
      if ((await store.reportsOf(tracking.id)).length >= MAX_REPORTS_PER_TRACKING) {
        throw errors.listLimit(`A tracking holds at most ${MAX_REPORTS_PER_TRACKING} reports`);
      }
      return reply.code(201).send(presentReport(await store.createReport(tracking, report, unixSeconds(clock.now())).catch(trackingError)));
    },
  );

  app.put(
    '/trackings/:tracking_id/reports/:report_id',
    {
      config: { fairUse: itemsSent },
      preValidation: oldTriggers,
      schema: {
        tags: TAG,
        summary: 'Replace an e-mail report’s type, recipients, name and triggers',
        params: ReportParams,
        body: ReportBody,
        response: { 204: emptyResponse('Replaced'), ...errorResponses(401, 404, 422) },
      },
    },
    async (req, reply) => {
      const tracking = await requireTracking(app, req.account, req.params.tracking_id);
      if (!(await store.updateReport(tracking.id, req.params.report_id, reportOf(req.body)))) throw errors.notFound('Report not found');
      return reply.code(204).send();
    },
  );

  app.delete(
    '/trackings/:tracking_id/reports/:report_id',
    {
      config: { fairUse: itemsSent },
      schema: { tags: TAG, summary: 'Delete an e-mail report', params: ReportParams, response: { 204: emptyResponse('Deleted'), ...errorResponses(401, 404) } },
    },
    async (req, reply) => {
      const tracking = await requireTracking(app, req.account, req.params.tracking_id);
      if (!(await store.deleteReport(tracking.id, req.params.report_id))) throw errors.notFound('Report not found');
      return reply.code(204).send();
    },
  );
}
