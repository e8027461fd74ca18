/** /shared: geotargeting locations used by every tool family. */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { errors } from '../../lib/errors.js';
import { errorResponses } from '../common/schemas.js';
import { fullLocation } from '../common/presenters.js';
import { LocationAnswer, LocationParams, LocationSearchAnswer, LocationSearchQuery } from './schemas.js';

export async function sharedRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { locations } = app.quarry;

  app.get(
    '/locations/:location',
    {
      schema: {
        tags: ['shared'],
        summary: 'A geotargeting location by id',
        params: LocationParams,
        response: { 200: LocationAnswer, ...errorResponses(401, 404, 422) },
      },
    },
    async (req) => {
      const loc = locations.get(req.params.location);
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
        querystring: LocationSearchQuery,
        response: { 200: LocationSearchAnswer, ...errorResponses(401, 422) },
      },
    },
    async (req) => locations.search(req.query.query, 100).map(fullLocation),
  );
}
