/**
 * Engine backlinks and favourite lists as the API's `BackLink` and `FavoriteList`
 * (reference shapes). What the link index does not hold is sent as the reference's
 * "unknown": `category`, `social` and `ar` null.
 */
import type { BacklinkItem } from '../../engine/index.js';
import type { FavouriteList } from '../../store/favourites.js';
import type { BackLinkBody, FavoriteListBody } from './schemas.js';

export function presentBacklink(link: BacklinkItem): BackLinkBody {
  return {
    _id: link._id,
    domainId: link.domainId,
    source: link.source,
    target: link.target,
    title: link.title,
    // We render no previews: the place to see the link is the linking page itself.
    url: link.source,
    type: link.type,
    anchor: link.anchor,
    // The index keeps a link's alt text; the reference tells only whether there is one.
    alt: link.alt !== '',
    first_seen: link.first_seen,
    last_seen: link.last_seen,
    last_crawl: link.last_crawl,
    deleted: link.deleted,
    reason_lost: link.reason_lost,
    source_cf: link.source_cf,
    source_tf: link.source_tf,
    target_cf: link.target_cf,
    target_tf: link.target_tf,
    no_follow: link.no_follow,
    image: link.image,
    redirect: link.redirect,
    frame: link.frame,
    category: null,
    lang: link.lang,
    internal_links: link.internal_links,
    external_links: link.external_links,
    social: null,
    ar: null,
    ls: link.ls,
  };
}

/** A list; `links` (its links as BackLinks, in its order) on the detail only. */
export function presentFavouriteList(list: FavouriteList, links?: readonly BackLinkBody[]): FavoriteListBody {
  return {
    _id: list._id,
    domain: list.domain,
    user_id: list.user_id,
    link_ids: list.link_ids,
    ...(links ? { links: [...links] } : {}),
    updated_at: list.updated_at,
    created_at: list.created_at,
  };
}
