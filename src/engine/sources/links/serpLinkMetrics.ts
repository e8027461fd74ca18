/**
 * The metrics of a real SERP's results from the link-index and authority providers: each
 * result URL's item info (`linkindex`: CitationFlow, TrustFlow, RefDomains, ExtBackLinks as
 * the provider gives them) and authority (`pda` ← the root domain's, `upa` ← the URL's, the
 * spam score where Moz gives it), fetched for the whole page at once — a SERP of 100 results
 * is one Majestic call and two Moz calls, none when every figure is already held — and the
 * keyword's difficulty computed from those figures.
 *
 * No sandbox figure enters: TopRank is the imported rank lists' position of the domain (the
 * real web's, null without one), social counts are left out (no provider gives them), and a
 * URL no provider knows has no `m`. For difficulty a result without authority counts as 0:
 * the provider knows nothing linking to it.
 */
import { parse as parseDomain } from 'tldts';
import type { Clock } from '../../../lib/clock.js';
import type { AuthorityService } from '../../authority/authorityService.js';
import type { SerpItemMetrics } from '../../search/serpTypes.js';
import type { ResultMetrics } from '../fetchedSerp.js';
import type { LinkData } from './linkData.js';
import { linkTarget, type AuthorityFigures, type IndexItemInfo } from './linkTypes.js';

function domainOf(url: string): string | null {
  try {
    return parseDomain(new URL(url).hostname).domain;
  } catch {
    return null;
  }
}

/** Result metrics over the providers; `prepare` must be called with the page's URLs before the page is assembled. */
export function providerResultMetrics(data: LinkData, authority: AuthorityService, clock: Clock): ResultMetrics {
  const unprepared = (): never => {
    throw new Error('provider result metrics are read through prepare()');
  };
  return {
    domainOf,
    metricsOf: unprepared,
    topRankOf: (url) => authority.importedRank(url),
    authorityOf: unprepared,
    async prepare(urls) {
      const targets = urls.flatMap((url) => {
        const t = linkTarget(url, 'URL');
        return t ? [{ url, t }] : [];
      });
      const [infos, figures] = await Promise.all([data.itemInfo(targets.map((x) => x.t)), data.authority(targets.map((x) => x.t))]);
      const infoOf = new Map<string, IndexItemInfo | null>(targets.map((x, i) => [x.url, infos[i]]));
      const authorityOf = new Map<string, AuthorityFigures | null>(targets.map((x, i) => [x.url, figures[i]]));
      const ts = Math.floor(clock.now() / 1000);
      return {
        domainOf,
        metricsOf: (url): SerpItemMetrics | null => {
          const info = infoOf.get(url) ?? null;
          const a = authorityOf.get(url) ?? null;
          const m: SerpItemMetrics = {};
          if (info)
            m.linkindex = {
              v: { CitationFlow: info.CitationFlow, TrustFlow: info.TrustFlow, RefDomains: info.RefDomains, ExtBackLinks: info.ExtBackLinks },
              ts,
            };
          if (a && (a.pda !== null || a.upa !== null)) m.authority = { v: { pda: a.pda, upa: a.upa, ...(a.spam !== null ? { spam: a.spam } : {}) }, ts };
          return m.linkindex || m.authority ? m : null;
        },
        topRankOf: (url) => authority.importedRank(url),
        authorityOf: (url) => {
          const a = authorityOf.get(url) ?? null;
          return { upa: a?.upa ?? 0, pda: a?.pda ?? 0 };
        },
      };
    },
  };
}
