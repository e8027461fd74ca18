/**
 * Favourite links: PATCH a backlink as favourite (true) or not (false), the account's lists
 * (newest update first), one list with the full data of its links, and deletion (idempotent).
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { unixSeconds } from '../../lib/clock.js';
import { Favourites } from '../../store/favourites.js';
import { emptyResponse, errorResponses } from '../common/schemas.js';
import { presentFavouriteList } from './presenters.js';
import { FavoriteBody, FavoriteLists, LinkIdParams, ListIdParams, MaybeFavoriteList } from './schemas.js';

export async function favouriteRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { engine, state, clock } = app.quarry;
  const favourites = new Favourites(state.db);

  app.patch(
    '/favorite-links/:link_id',
    {
      config: { fairUse: () => 0 },
      schema: {
        tags: ['link-tool'],
        summary: 'Mark a backlink as favourite or not; answers its list (null for an unknown link)',
        params: LinkIdParams,
        body: FavoriteBody,
        response: { 200: MaybeFavoriteList, ...errorResponses(401, 422) },
      },
    },
    async (req) => {
      const link = engine.links.backlinkById(req.params.link_id);
      // Unknown link ids are silently ignored (link-tool rule 2).
      if (!link) return null;
      const list = await favourites.set(req.account!.id, link.targetRootDomain, link._id, req.body.favorite, unixSeconds(clock.now()));
      return list ? presentFavouriteList(list) : null;
    },
  );

  app.get(
    '/favorites',
    { schema: { tags: ['link-tool'], summary: 'Favourite-link lists, newest update first', response: { 200: FavoriteLists, ...errorResponses(401) } } },
    async (req) => (await favourites.all(req.account!.id)).map((list) => presentFavouriteList(list)),
  );

  app.get(
    '/favorites/:list_id',
    {
      schema: {
        tags: ['link-tool'],
        summary: 'A favourite-link list with the full data of every backlink (null when unknown)',
        params: ListIdParams,
        response: { 200: MaybeFavoriteList, ...errorResponses(401, 422) },
      },
    },
    async (req) => {
      const list = await favourites.get(req.account!.id, req.params.list_id);
      if (!list) return null;
      const links = list.link_ids.map((id) => engine.links.backlinkById(id)).filter((l) => l !== null);
      return presentFavouriteList(list, links);
    },
  );

  app.delete(
    '/favorites/:list_id',
    {
      config: { fairUse: () => 0 },
      schema: {
        tags: ['link-tool'],
        summary: 'Delete a favourite-link list (204 also when there is no such list of this account)',
        params: ListIdParams,
        response: { 204: emptyResponse('Deleted, or there was no such list of this account'), ...errorResponses(401) },
      },
    },
    async (req, reply) => {
      // The contract answers only 204 or 401: deleting is idempotent, and a list that is not
      // this account's (unknown, already gone, another account's) is left alone without a word.
      await favourites.delete(req.account!.id, req.params.list_id);
      return reply.code(204).send();
    },
  );
}
