/**
 * The link tool's answers in real mode (a link-index provider configured): the provider's
 * item info and backlinks in the reference's shapes. Figures the provider does not give are
 * null — never the sandbox's, never a stand-in (docs/decisions.md, "Real link data"). A link's
 * id is the md5 of its source, target and anchor (24 hex digits), its `domainId` the md5 of
 * the referring root domain: stable across pages and providers' answers.
 */
import { parse as parseDomain } from 'tldts';
import { md5Hex } from '../../lib/ids.js';
import { ITEM_TYPE, type IndexItemInfo, type LinkTarget, type ProviderBacklink } from '../../engine/sources/links/linkTypes.js';
import { LINK_INDEX_FIELDS } from '../../engine/sources/links/majestic.js';
import type { BackLinkBody } from './schemas.js';

/** Item info of a target the provider answered nothing for: not found, every figure unknown. */
export function notFoundInfo(target: LinkTarget): IndexItemInfo {
  const info: Record<string, unknown> = { Status: 'NotFound', ItemType: ITEM_TYPE[target.type] };
  for (const field of LINK_INDEX_FIELDS) info[field] = null;
  return info as IndexItemInfo;
}

const id24 = (text: string) => md5Hex(text).slice(0, 24);

/** What a provider link's `_id` looks like (id24): a path id of any other form names no served link. */
export const PROVIDER_LINK_ID = /^[0-9a-f]{24}$/;

function rootDomainOf(url: string): string {
  try {
    return parseDomain(new URL(url).hostname).domain ?? new URL(url).hostname;
  } catch {
    return url;
  }
}

/** A provider's backlink as the reference's BackLink (source ← SourceURL/url_from, target ← TargetURL/url_to, dates as given). */
export function presentProviderBacklink(link: ProviderBacklink): BackLinkBody {
  return {
    _id: id24(`${link.sourceUrl}\u0000${link.targetUrl}\u0000${link.anchor}`),
    domainId: id24(rootDomainOf(link.sourceUrl)),
    source: link.sourceUrl,
    target: link.targetUrl,
    title: link.title,
    url: link.sourceUrl,
    type: link.type,
    anchor: link.anchor,
    alt: link.alt,
    first_seen: link.firstSeen,
    last_seen: link.lastSeen,
    // The provider's last sighting is its last crawl of the linking page.
    last_crawl: link.lastSeen,
    deleted: link.deleted,
    reason_lost: link.reasonLost,
    source_cf: link.sourceCitationFlow,
    source_tf: link.sourceTrustFlow,
    target_cf: link.targetCitationFlow,
    target_tf: link.targetTrustFlow,
    no_follow: link.nofollow,
    image: link.image,
    redirect: link.redirect,
    frame: link.frame,
    category: null,
    lang: link.lang,
    internal_links: link.internalLinks,
    external_links: link.externalLinks,
    social: null,
    ar: null,
    // Link strength is our own model over the sandbox index; providers give none.
    ls: null,
  };
}
