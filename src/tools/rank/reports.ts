/**
 * Email reports of a tracking: weekly (0), monthly (1) and rank-change alerts (2). A new
 * tracking starts with a weekly and a monthly report to the account's address.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { errors } from '../../http/errors.js';
import { unixSeconds } from '../../lib/clock.js';
import { rankServices } from '../../rank/rankService.js';
import type { NewReport } from '../../store/rankTracking.js';
import { errorResponses } from '../common/schemas.js';
import { presentReport } from './presenters.js';
import { Report, ReportBody, ReportParams, TrackingParams } from './schemas.js';
import { requireTracking } from './trackings.js';

/** Reports a tracking holds at most. */
export const MAX_REPORTS_PER_TRACKING = 20;

function reportOf(body: { type: number; emails: string[]; name?: string | null; triggers?: Record<string, unknown> }): NewReport {
  const emails = [...new Set(body.emails.map((e) => e.trim().toLowerCase()))];
  return { type: body.type, emails, name: body.name?.trim() || null, triggers: body.triggers ?? {} };
}

export async function reportRoutes(app: FastifyInstance): Promise<void> {
  const { clock } = app.quarry;
  const { store } = rankServices(app.quarry);

  app.get(
    '/trackings/:tracking_id/reports',
    {
      schema: {
        tags: ['rank-tool'],
        summary: 'The email reports of a tracking',
        params: TrackingParams,
        response: { 200: Type.Array(Report), ...errorResponses(401, 404) },
      },
    },
    async (req) => {
      const tracking = await requireTracking(app, req, { withDeleted: true });
      return (await store.reportsOf(tracking.id)).map(presentReport);
    },
  );

  app.post(
    '/trackings/:tracking_id/reports',
    {
      schema: {
        tags: ['rank-tool'],
        summary: 'Add an email report: type 0 weekly, 1 monthly, 2 rank-change alert',
        params: TrackingParams,
        body: ReportBody,
        response: { 201: Report, ...errorResponses(401, 404, 422) },
      },
    },
    async (req, reply) => {
      const tracking = await requireTracking(app, req);
      if ((await store.reportsOf(tracking.id)).length >= MAX_REPORTS_PER_TRACKING) {
        throw errors.listLimit(`A tracking holds at most ${MAX_REPORTS_PER_TRACKING} reports`);
      }
      const report = await store.createReport(tracking, reportOf(req.body as Parameters<typeof reportOf>[0]), unixSeconds(clock.now()));
      return reply.code(201).send(presentReport(report));
    },
  );

  app.put(
    '/trackings/:tracking_id/reports/:report_id',
    {
      schema: {
        tags: ['rank-tool'],
        summary: 'Replace an email report’s type, recipients, name and triggers',
        params: ReportParams,
        body: ReportBody,
        response: { 200: Report, ...errorResponses(401, 404, 422) },
      },
    },
    async (req) => {
      const tracking = await requireTracking(app, req);
      const { report_id } = req.params as { report_id: string };
      const report = await store.updateReport(tracking.id, report_id, reportOf(req.body as Parameters<typeof reportOf>[0]));
      if (!report) throw errors.notFound('Report not found');
      return presentReport(report);
    },
  );

  app.delete(
    '/trackings/:tracking_id/reports/:report_id',
    {
      schema: { tags: ['rank-tool'], summary: 'Delete an email report', params: ReportParams, response: { 204: Type.Null(), ...errorResponses(401, 404) } },
    },
    async (req, reply) => {
      const tracking = await requireTracking(app, req);
      const { report_id } = req.params as { report_id: string };
      if (!(await store.deleteReport(tracking.id, report_id))) throw errors.notFound('Report not found');
      return reply.code(204).send();
    },
  );
}
