/**
 * Favourite links: PATCH a backlink as favourite (true) or not (false), the account's lists
 * (newest update first), one list with the full data of its links, and deletion (idempotent).
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { unixSeconds } from '../../lib/clock.js';
import { Favourites } from '../../store/favourites.js';
import { errorResponses } from '../common/schemas.js';

const IdParam = (name: string) => Type.Object({ [name]: Type.String({ minLength: 1, maxLength: 100 }) });

export async function favouriteRoutes(app: FastifyInstance): Promise<void> {
  const { engine, state, clock } = app.quarry;
  const favourites = new Favourites(state.db);

  app.patch(
    '/favorite-links/:link_id',
    {
      config: { fairUse: () => 0 },
      schema: {
        tags: ['link-tool'],
        summary: 'Mark a backlink as favourite or not; answers its list (null for an unknown link)',
        params: IdParam('link_id'),
        body: Type.Object({ favorite: Type.Boolean() }),
        response: errorResponses(401, 422),
      },
    },
    async (req) => {
      const { link_id } = req.params as { link_id: string };
      const { favorite } = req.body as { favorite: boolean };
      const link = engine.links.backlinkById(link_id);
      // Unknown link ids are silently ignored (link-tool rule 2).
      if (!link) return null;
      return favourites.set(req.account!.id, link.targetRootDomain, link._id, favorite, unixSeconds(clock.now()));
    },
  );

  app.get('/favorites', { schema: { tags: ['link-tool'], summary: 'Favourite-link lists, newest update first', response: errorResponses(401) } }, async (req) =>
    favourites.all(req.account!.id),
  );

  app.get(
    '/favorites/:list_id',
    {
      schema: {
        tags: ['link-tool'],
        summary: 'A favourite-link list with the full data of every backlink (null when unknown)',
        params: IdParam('list_id'),
        response: errorResponses(401, 422),
      },
    },
    async (req) => {
      const { list_id } = req.params as { list_id: string };
      const list = await favourites.get(req.account!.id, list_id);
      if (!list) return null;
      const links = list.link_ids
        .map((id) => engine.links.backlinkById(id))
        .filter((l) => l !== null)
        .map(({ targetRootDomain: _d, ...l }) => l);
      return { ...list, links };
    },
  );

  app.delete(
    '/favorites/:list_id',
    {
      config: { fairUse: () => 0 },
      schema: {
        tags: ['link-tool'],
        summary: 'Delete a favourite-link list (204 also when there is no such list of this account)',
        params: IdParam('list_id'),
        response: { 204: Type.Null(), ...errorResponses(401) },
      },
    },
    async (req, reply) => {
      const { list_id } = req.params as { list_id: string };
      // The contract answers only 204 or 401: deleting is idempotent, and a list that is not
      // this account's (unknown, already gone, another account's) is left alone without a word.
      await favourites.delete(req.account!.id, list_id);
      return reply.code(204).send();
    },
  );
}
