/** /shared: geotargeting locations used by every tool family. */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { errors } from '../../http/errors.js';
import { errorResponses } from '../common/schemas.js';
import { fullLocation } from '../common/presenters.js';

const LocationBody = Type.Object({
  _id: Type.Integer(),
  active: Type.Boolean(),
  canonical_name: Type.String(),
  code: Type.String(),
  country_code: Type.String(),
  created_at: Type.Integer(),
  engine_domain: Type.String(),
  label: Type.String(),
  name: Type.String(),
  parent_id: Type.Union([Type.Integer(), Type.Null()]),
  status: Type.String(),
  target_type: Type.String(),
  tld: Type.String(),
  type: Type.Integer(),
});

export async function sharedRoutes(app: FastifyInstance): Promise<void> {
  const { locations } = app.quarry;

  app.get(
    '/locations/:location',
    {
      schema: {
        tags: ['shared'],
        summary: 'A geotargeting location by id',
        params: Type.Object({ location: Type.Integer({ minimum: -2_147_483_648, maximum: 2_147_483_647 }) }),
        response: { 200: LocationBody, ...errorResponses(401, 404, 422) },
      },
    },
    async (req) => {
      const { location } = req.params as { location: number };
      const loc = locations.get(location);
      if (!loc) throw errors.notFound('Location not found');
      return fullLocation(loc);
    },
  );

  app.get(
    '/locations',
    {
      schema: {
        tags: ['shared'],
        summary: 'Search active locations by name (up to 100, countries first)',
        querystring: Type.Object({ query: Type.String({ minLength: 1, maxLength: 200 }) }),
        response: { 200: Type.Array(LocationBody), ...errorResponses(401, 422) },
      },
    },
    async (req) => {
      const { query } = req.query as { query: string };
      return locations.search(query, 100).map(fullLocation);
    },
  );
}
