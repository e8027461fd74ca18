/**
 * Tags: coloured labels a tracking's keywords carry, to filter its statistics. A tag
 * belongs to one tracking; renaming applies wherever it is shown, deleting takes it off
 * every keyword, assigning merges without duplicates, unassigning ignores tags not there.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { errors } from '../../lib/errors.js';
import { unixSeconds } from '../../lib/clock.js';
import { rankServices } from '../../rank/rankService.js';
import { emptyResponse, errorResponses, Ref } from '../common/schemas.js';
import { presentTag } from './presenters.js';
import { Tag, TagAssignBody, TagBody, TagParams, TrackingParams } from './schemas.js';
import { requireTracking, trackingError } from './trackings.js';
import { itemsSent } from '../common/fairUse.js';

/** Tags a tracking holds at most. */
export const MAX_TAGS_PER_TRACKING = 100;
const TAG = ['rank-tool'];

export async function tagRoutes(plain: FastifyInstance): Promise<void> {
  const app = plain.withTypeProvider<TypeBoxTypeProvider>();
  const { clock } = app.quarry;
  const { store } = rankServices(app.quarry);

  app.get(
    '/tags',
    { schema: { tags: TAG, summary: 'Every tag of the account’s trackings', response: { 200: Type.Array(Ref(Tag)), ...errorResponses(401) } } },
    async (req) => (await store.tagsOfAccount(req.account!.id)).map(presentTag),
  );

  app.get(
    '/trackings/:tracking_id/tags',
    {
      schema: { tags: TAG, summary: 'The tags of a tracking', params: TrackingParams, response: { 200: Type.Array(Ref(Tag)), ...errorResponses(401, 404) } },
    },
    async (req) => {
      const tracking = await requireTracking(app, req.account, req.params.tracking_id, { withDeleted: true });
      return (await store.tagsOf(tracking.id)).map(presentTag);
    },
  );

  app.post(
    '/trackings/:tracking_id/tags',
    {
      config: { fairUse: itemsSent },
      schema: {
        tags: TAG,
        summary: 'Create a tag of a tracking',
        params: TrackingParams,
        body: TagBody,
        response: { 201: Ref(Tag), ...errorResponses(401, 404, 422) },
      },
    },
    async (req, reply) => {
      const account = req.account!;
      const tracking = await requireTracking(app, account, req.params.tracking_id);
      const name = requireText(req.body.name, 'name');
      const color = requireText(req.body.color, 'color');
      if ((await store.tagsOf(tracking.id)).length >= MAX_TAGS_PER_TRACKING) throw errors.listLimit(`A tracking holds at most ${MAX_TAGS_PER_TRACKING} tags`);
      const tag = await store.createTag(tracking, { name, color, creator: account.email }, unixSeconds(clock.now())).catch(trackingError);
      return reply.code(201).send(presentTag(tag));
    },
  );

  app.put(
    '/trackings/:tracking_id/tags/:tag_id',
    {
      config: { fairUse: itemsSent },
      schema: {
        tags: TAG,
        summary: 'Rename and recolour a tag',
        params: TagParams,
        body: TagBody,
        response: { 204: emptyResponse('Changed'), ...errorResponses(401, 404, 422) },
      },
    },
    async (req, reply) => {
      const tracking = await requireTracking(app, req.account, req.params.tracking_id);
      const change = { name: requireText(req.body.name, 'name'), color: requireText(req.body.color, 'color') };
      if (!(await store.updateTag(tracking.id, req.params.tag_id, change))) throw errors.notFound('Tag not found');
      return reply.code(204).send();
    },
  );

  app.delete(
    '/trackings/:tracking_id/tags/:tag_id',
    {
      config: { fairUse: itemsSent },
      schema: {
        tags: TAG,
        summary: 'Delete a tag (every keyword loses it)',
        params: TagParams,
        response: { 204: emptyResponse('Deleted'), ...errorResponses(401, 404) },
      },
    },
    async (req, reply) => {
      const tracking = await requireTracking(app, req.account, req.params.tracking_id);
      if (!(await store.deleteTag(tracking.id, req.params.tag_id))) throw errors.notFound('Tag not found');
      return reply.code(204).send();
    },
  );

  app.post(
    '/trackings/:tracking_id/tags/assign',
    {
      config: { fairUse: itemsSent },
      schema: {
        tags: TAG,
        summary: 'Give keywords tags',
        description: 'Merged with the tags they carry, without duplicates. The tags must be the tracking’s; keyword ids of other trackings are ignored.',
        params: TrackingParams,
        body: TagAssignBody,
        response: { 204: emptyResponse('Assigned'), ...errorResponses(401, 404, 422) },
      },
    },
    async (req, reply) => {
      const tracking = await requireTracking(app, req.account, req.params.tracking_id);
      const tagIds = [...new Set(req.body.tag_ids)];
      if ((await store.unknownTags(tracking.id, tagIds)).length > 0) throw errors.invalidParameter('tag_ids');
      await store.assignTags(tracking.id, [...new Set(req.body.keyword_ids)], tagIds);
      return reply.code(204).send();
    },
  );

  app.post(
    '/trackings/:tracking_id/tags/unassign',
    {
      config: { fairUse: itemsSent },
      schema: {
        tags: TAG,
        summary: 'Take tags off keywords',
        description: 'Tags a keyword does not carry, and unknown ids, are ignored.',
        params: TrackingParams,
        body: TagAssignBody,
        response: { 204: emptyResponse('Unassigned'), ...errorResponses(401, 404, 422) },
      },
    },
    async (req, reply) => {
      const tracking = await requireTracking(app, req.account, req.params.tracking_id);
      await store.unassignTags(tracking.id, [...new Set(req.body.keyword_ids)], [...new Set(req.body.tag_ids)]);
      return reply.code(204).send();
    },
  );
}

/** Trimmed, not blank, no control characters; else 422 naming the field. */
export function requireText(value: string, name: string): string {
  const v = value.trim();
  if (v === '' || /[\u0000-\u001f\u007f]/.test(v)) throw errors.invalidParameter(name);
  return v;
}
