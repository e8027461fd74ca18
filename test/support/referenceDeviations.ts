/**
 * Where Quarry deliberately differs from the published reference, because the contract
 * (research-api-v3.md) speaks and wins. Each entry matches lines of `compareDocuments`
 * and says why. An entry that matches nothing any more fails the OpenAPI test: remove it.
 * Grouped by family so that each family's entries stay together.
 */
export interface Deviation {
  match: RegExp;
  reason: string;
}

const common: Deviation[] = [
  {
    // Issue 24: with a link or authority provider, a figure the provider does not give (DataForSEO has no CitationFlow,
    // TrustFlow, ACRank…) is null rather than an invented number; docs/decisions.md, "Real link data".
    match: /\b(linkindex|authority)(\.v)?\.\w+: nullable, reference is not$/,
    reason: 'Real data is sacred: an item-info or authority figure the configured provider does not give is null, never a stand-in',
  },
];
const keyword: Deviation[] = [];
const serp: Deviation[] = [];
const link: Deviation[] = [
  {
    match: /\blinks\[\]\.(first_seen|last_seen|last_crawl|source_cf|source_tf|target_cf|target_tf|ls): nullable, reference is not$/,
    reason: 'Issue 24: a provider’s backlink without dates, flow metrics (DataForSEO) or our link strength carries null, not a stand-in',
  },
  {
    match: /^POST \/link-tool\/exports\/suggest (x-quota-pool: undefined, reference lm-suggest|429: missing)$/,
    reason: 'The contract makes export suggestions free: no pool, so no policy 429 (the gateway 429 is still declared)',
  },
];
const site: Deviation[] = [
  {
    match:
      /^GET \/site-tool\/(backlink-profile 200\.linkindex(RefDomains|Anchors)\[\]\.(topRank|matchedLinks|citationFlow|trustFlow|refDomains|deletedLinks|noFollowLinks|totalLinks)|top-content 200\.topContent\[\]\.(citationFlow|trustFlow|refDomains|extBackLinks)): nullable, reference is not$/,
    reason:
      'Issue 24: in real mode a figure the link-index provider does not give (DataForSEO has no flows; a domain no rank list holds has no TopRank) is null',
  },
];
const rank: Deviation[] = [];

export const REFERENCE_DEVIATIONS: Deviation[] = [...common, ...keyword, ...serp, ...link, ...site, ...rank];
