/**
 * Annotations: markers on a tracking's charts. A user's notes are created, edited and
 * deleted here; the service records its own when keywords are added or removed and when
 * the domain changes (store). The stats of a timeframe answer the annotations dated in it.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { errors } from '../../lib/errors.js';
import { unixSeconds } from '../../lib/clock.js';
import { rankServices } from '../../rank/rankService.js';
import { emptyResponse, errorResponses, Ref } from '../common/schemas.js';
import { presentAnnotation } from './presenters.js';
import { Annotation, AnnotationBody, AnnotationParams, AnnotationTextBody, TrackingParams } from './schemas.js';
import { requireText } from './tags.js';
import { requireDay } from './trackingInput.js';
import { requireTracking, trackingError } from './trackings.js';
import { itemsSent } from '../common/fairUse.js';

const TAG = ['rank-tool'];
/** Annotations a tracking holds at most (the recorded changes included). */
export const MAX_ANNOTATIONS_PER_TRACKING = 5_000;

export async function annotationRoutes(plain: FastifyInstance): Promise<void> {
  const app = plain.withTypeProvider<TypeBoxTypeProvider>();
  const { clock } = app.quarry;
  const { store } = rankServices(app.quarry);

  app.post(
    '/trackings/:tracking_id/annotations',
    {
      config: { fairUse: itemsSent },
      schema: {
        operationId: 'createTrackingAnnotation',
        tags: TAG,
        summary: 'Add a note to a tracking’s charts on a day',
        params: TrackingParams,
        body: AnnotationBody,
        response: { 201: Ref(Annotation), ...errorResponses(401, 404, 422) },
      },
    },
    async (req, reply) => {
      const account = req.account!;
      const date = requireDay(req.body.date, 'date');
      const text = requireText(req.body.text, 'text');
      const tracking = await requireTracking(app, account, req.params.tracking_id);
      if ((await store.annotationsOf(tracking.id)).length >= MAX_ANNOTATIONS_PER_TRACKING) {
        throw errors.listLimit(`A tracking holds at most ${MAX_ANNOTATIONS_PER_TRACKING} annotations`);
      }
      const nowMs = clock.now();
      const note = await store.createNote(tracking, { date, text, creator: account.email }, unixSeconds(nowMs), nowMs).catch(trackingError);
      return reply.code(201).send(presentAnnotation(note));
    },
  );

  app.put(
    '/trackings/:tracking_id/annotations/:annotation_id',
    {
      config: { fairUse: itemsSent },
      schema: {
        tags: TAG,
        summary: 'Change an annotation’s text',
        params: AnnotationParams,
        body: AnnotationTextBody,
        response: { 204: emptyResponse('Changed'), ...errorResponses(401, 404, 422) },
      },
    },
    async (req, reply) => {
      const text = requireText(req.body.text, 'text');
      const tracking = await requireTracking(app, req.account, req.params.tracking_id);
      if (!(await store.updateAnnotationText(tracking.id, req.params.annotation_id, text))) throw errors.notFound('Annotation not found');
      return reply.code(204).send();
    },
  );

  app.delete(
    '/trackings/:tracking_id/annotations/:annotation_id',
    {
      config: { fairUse: itemsSent },
      schema: {
        tags: TAG,
        summary: 'Delete an annotation',
        params: AnnotationParams,
        response: { 204: emptyResponse('Deleted'), ...errorResponses(401, 404) },
      },
    },
    async (req, reply) => {
      const tracking = await requireTracking(app, req.account, req.params.tracking_id);
      if (!(await store.deleteAnnotation(tracking.id, req.params.annotation_id))) throw errors.notFound('Annotation not found');
      return reply.code(204).send();
    },
  );
}
