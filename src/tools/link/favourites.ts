/**
 * Favourite links: PATCH a backlink as favourite (true) or not (false), the account's lists
 * (newest update first), one list with the full data of its links, and deletion (idempotent).
 *
 * Which links a `link_id` may name: "the `_id` of a link from `/link-tool/links`". With the
 * sandbox that is any link of its index. In real mode (a link-index provider configured) it is
 * a link the provider served to this account (store/servedLinks.ts), never the sandbox's: the
 * favourite keeps the link's data as served, and a list shows it as it was.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { unixSeconds } from '../../lib/clock.js';
import { Favourites } from '../../store/favourites.js';
import { ServedLinks } from '../../store/servedLinks.js';
import { emptyResponse, errorResponses } from '../common/schemas.js';
import { presentBacklink, presentFavouriteList } from './presenters.js';
import { PROVIDER_LINK_ID } from './realLinks.js';
import { FavoriteBody, FavoriteLists, LinkIdParams, ListIdParams, MaybeFavoriteList, type BackLinkBody } from './schemas.js';

/** Where a favourite goes: its list's domain, and the provider's link as served (null for a sandbox link). */
interface Favourable {
  domain: string;
  body: string | null;
}

export async function favouriteRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { engine, state, clock, sources } = app.quarry;
  const favourites = new Favourites(state.db);
  const served = new ServedLinks(state.db);

  /** The link `linkId` names for this account; null when it names none it may mark (link-tool rule 2). */
  async function favourable(accountId: string, linkId: string, favourite: boolean): Promise<Favourable | null> {
    if (!sources.linkData) {
      const link = engine.links.backlinkById(linkId);
      return link ? { domain: link.targetRootDomain, body: null } : null;
    }
    // A provider link's id is 24 hex digits: anything else was never served (and is not looked up).
    if (!PROVIDER_LINK_ID.test(linkId)) return null;
    const link = await served.find(accountId, linkId, clock.now());
    if (link) return { domain: link.domain, body: link.body };
    // Served too long ago to be marked again, but still in one of the account's lists: it can be taken out.
    const domain = favourite ? undefined : await favourites.domainHolding(accountId, linkId);
    return domain === undefined ? null : { domain, body: null };
  }

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
      const { link_id: linkId } = req.params;
      const link = await favourable(req.account!.id, linkId, req.body.favorite);
      // Unknown link ids are silently ignored (link-tool rule 2).
      if (!link) return null;
      const list = await favourites.set(req.account!.id, link.domain, linkId, req.body.favorite, unixSeconds(clock.now()), link.body);
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
      const stored = await favourites.storedLinks(list._id);
      const links: BackLinkBody[] = [];
      for (const id of list.link_ids) {
        const body = stored.get(id);
        if (body !== undefined) {
          links.push(JSON.parse(body) as BackLinkBody);
          continue;
        }
        const link = engine.links.backlinkById(id);
        if (link) links.push(presentBacklink(link));
      }
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
