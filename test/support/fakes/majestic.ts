/**
 * A fake of Majestic's JSON API (`GET /api/json?app_api_key=…&cmd=…`) over a fake link web
 * (linkWeb.ts). Built from Majestic's command reference (developer-support.majestic.com/api/
 * commands: GetIndexItemInfo, GetBackLinkData with From/Count/Mode/MaxSourceURLsPerRefDomain,
 * GetRefDomains, GetAnchorText, GetTopPages, GetNewLostBackLinkCalendar) and genuine answers:
 * - GetIndexItemInfo: the answer recorded in SebastianJ/majestic-api
 *   (spec/fixtures/vcr_cassettes/get_index_item_info.yml, 2020-11-25): top-level `Code`,
 *   `ErrorMessage`, `FullError`, index dates, then `DataTables.Results.{Headers,Data}`; counts
 *   as numbers except the NonUniqueLinkType*, TotalNonUniqueLinks and OutLinks* columns,
 *   which Majestic sends as strings; ACRank −1.
 * - GetBackLinkData rows: the column set of Majestic's backlink answers (SourceURL,
 *   AnchorText, Flag* as 0/1, FirstIndexedDate, LastSeenDate, DateLost "" while live,
 *   ReasonLost, LinkType "TextLink"/"ImageLink", Source/Target Citation and Trust Flow) as
 *   dumped from a live answer in a public Laravel project, and the `BackLinks` table with
 *   `TotalBackLinks` in its headers.
 * Errors as Majestic answers them: HTTP 200 with `Code` "InvalidAPIKey" for a wrong key.
 */
import { startFakeUpstream, type Answer, type FakeUpstream, type FakeUpstreamOptions, type Recorded } from './upstream.js';
import { linksTo, type FakeLink, type FakeLinkWeb } from './linkWeb.js';

export interface FakeMajestic extends FakeUpstream {
  /** Requests of one command. */
  calls(cmd: string): Recorded[];
}

const ENVELOPE = {
  Code: 'OK',
  ErrorMessage: '',
  FullError: '',
  FirstBackLinkDate: '2026-08-24',
  IndexBuildDate: '2026-11-21 06:12:44',
  IndexType: 1,
  MostRecentBackLinkDate: '2026-11-21',
  ServerBuild: '2026-11-02 10:31:09',
  ServerName: 'FAKE',
  ServerVersion: '1.0.8000.1',
  UniqueIndexID: '20261121061244-FRESH',
};

function answer(tables: Record<string, { Headers: Record<string, unknown>; Data: unknown[] }>): Answer {
  return { json: { ...ENVELOPE, DataTables: tables } };
}

/** Majestic's error answer: HTTP 200, a Code other than OK. */
export function majesticError(code: string, message: string): Answer {
  return { json: { Code: code, ErrorMessage: message, FullError: `${code}: ${message}`, DataTables: {} } };
}

function itemRow(web: FakeLinkWeb, name: string, i: number) {
  const it = web.items[name];
  const type = /^https?:\/\//.test(name) ? 3 : name.split('.').length > 2 && !name.startsWith('www.') ? 2 : name.startsWith('www.') ? 2 : 1;
  if (!it) {
    return {
      ItemNum: i,
      Item: name,
      ResultCode: 'OK',
      Status: 'NotFound',
      ExtBackLinks: 0,
      RefDomains: 0,
      ACRank: -1,
      ItemType: type,
      CitationFlow: 0,
      TrustFlow: 0,
      TrustMetric: 0,
    };
  }
  return {
    ItemNum: i,
    Item: name,
    ResultCode: 'OK',
    Status: 'Found',
    ExtBackLinks: it.ExtBackLinks,
    RefDomains: it.RefDomains,
    AnalysisResUnitsCost: it.ExtBackLinks,
    ACRank: -1,
    ItemType: type,
    IndexedURLs: it.IndexedURLs,
    GetTopBackLinksAnalysisResUnitsCost: 5000,
    RefIPs: it.RefIPs,
    RefSubNets: it.RefSubNets,
    RefDomainsEDU: it.RefDomainsEDU,
    ExtBackLinksEDU: it.ExtBackLinksEDU,
    RefDomainsGOV: it.RefDomainsGOV,
    ExtBackLinksGOV: it.ExtBackLinksGOV,
    RefDomainsEDU_Exact: it.RefDomainsEDU,
    ExtBackLinksEDU_Exact: it.ExtBackLinksEDU,
    RefDomainsGOV_Exact: it.RefDomainsGOV,
    ExtBackLinksGOV_Exact: it.ExtBackLinksGOV,
    CrawledFlag: 'True',
    LastCrawlDate: '2026-11-19',
    OutDomainsExternal: String(it.OutDomainsExternal),
    OutLinksExternal: String(it.OutLinksExternal),
    OutLinksInternal: String(it.OutLinksInternal),
    Title: name,
    TotalNonUniqueLinks: String(it.TotalNonUniqueLinks),
    NonUniqueLinkTypeHomepages: String(Math.round(it.ExtBackLinks / 3)),
    NonUniqueLinkTypeIndirect: String(Math.round(it.ExtBackLinks / 50)),
    NonUniqueLinkTypeDeleted: String(Math.round(it.ExtBackLinks / 9)),
    NonUniqueLinkTypeNoFollow: String(it.NonUniqueLinkTypeNoFollow),
    NonUniqueLinkTypeProtocolHTTPS: String(Math.round(it.ExtBackLinks * 0.8)),
    NonUniqueLinkTypeFrame: '0',
    NonUniqueLinkTypeImageLink: String(it.NonUniqueLinkTypeImageLink),
    NonUniqueLinkTypeRedirect: String(it.NonUniqueLinkTypeRedirect),
    NonUniqueLinkTypeTextLink: String(it.NonUniqueLinkTypeTextLink),
    CitationFlow: it.CitationFlow,
    TrustFlow: it.TrustFlow,
    TrustMetric: it.TrustFlow,
    TopicalTrustFlow_Topic_0: 'Shopping/Food',
    TopicalTrustFlow_Value_0: Math.max(0, it.TrustFlow - 9),
  };
}

function backlinkRow(l: FakeLink) {
  return {
    SourceURL: l.source,
    ACRank: 0,
    AnchorText: l.anchor,
    Date: l.lastSeen,
    FlagRedirect: 0,
    FlagFrame: 0,
    FlagNoFollow: l.nofollow ? 1 : 0,
    FlagImages: l.image ? 1 : 0,
    FlagDeleted: l.lostOn ? 1 : 0,
    FlagAltText: l.image ? 1 : 0,
    FlagMention: 0,
    TargetURL: l.target,
    DomainID: -1,
    FirstIndexedDate: l.firstSeen,
    LastSeenDate: l.lastSeen,
    DateLost: l.lostOn ?? '',
    ReasonLost: l.lostOn ? 'Link removed' : '',
    LinkType: l.image ? 'ImageLink' : 'TextLink',
    LinkSubType: l.image ? 'ImageLink_Normal' : 'TextLink_Normal_HighContent',
    TargetCitationFlow: l.targetCitationFlow,
    TargetTrustFlow: l.targetTrustFlow,
    SourceCitationFlow: l.sourceCitationFlow,
    SourceTrustFlow: l.sourceTrustFlow,
    SourceTitle: l.sourceTitle,
    SourceOutLinksInternal: 120,
    SourceOutLinksExternal: 14,
  };
}

/** The Majestic command a request asked, answered from `web` (or the error of a wrong key). */
export function majesticAnswer(web: FakeLinkWeb, apiKey: string, req: Recorded): Answer {
  const q = req.url.searchParams;
  if (req.url.pathname !== '/api/json') return { status: 404, raw: '<html><body>Not Found</body></html>' };
  if (q.get('app_api_key') !== apiKey) return majesticError('InvalidAPIKey', 'Invalid API key - please check your key');
  const cmd = q.get('cmd');
  if (cmd === 'GetIndexItemInfo') {
    const n = Number(q.get('items'));
    const data = Array.from({ length: n }, (_, i) => itemRow(web, q.get(`item${i}`) ?? '', i));
    return answer({ Results: { Headers: { MaxTopicsRootDomain: 30, MaxTopicsSubDomain: 20, MaxTopicsURL: 10, TopicsCount: 1 }, Data: data } });
  }
  if (cmd === 'GetBackLinkData') {
    const item = q.get('item') ?? '';
    let links = linksTo(web, item);
    const filter = q.get('Filters') ?? '';
    const since = /"gt","(\d{4}-\d{2}-\d{2})"/.exec(filter)?.[1];
    if (since && filter.startsWith('FirstSeen')) links = links.filter((l) => l.firstSeen > since);
    if (since && filter.startsWith('DateDeleted')) links = links.filter((l) => l.lostOn !== null && l.lostOn > since);
    if (q.get('MaxSourceURLsPerRefDomain') === '1') {
      const seen = new Set<string>();
      links = links.filter((l) => {
        const host = l.source.replace(/^https?:\/\//, '').split('/')[0];
        if (seen.has(host)) return false;
        seen.add(host);
        return true;
      });
    }
    const from = Number(q.get('From') ?? 0);
    const count = Number(q.get('Count') ?? 100);
    return answer({
      BackLinks: {
        Headers: { Item: item, TotalBackLinks: links.length, AvailableLines: links.length, TotalLines: Math.min(count, Math.max(0, links.length - from)) },
        Data: links.slice(from, from + count).map(backlinkRow),
      },
    });
  }
  if (cmd === 'GetRefDomains') {
    const item = q.get('item0') ?? '';
    const byDomain = new Map<string, FakeLink[]>();
    for (const l of linksTo(web, item)) {
      const host = l.source
        .replace(/^https?:\/\//, '')
        .split('/')[0]
        .replace(/^(www|en)\./, '');
      byDomain.set(host, [...(byDomain.get(host) ?? []), l]);
    }
    const rows = [...byDomain].map(([domain, ls]) => ({
      Position: 0,
      Domain: domain,
      RefDomains: 1_000,
      AlexaRank: -1,
      Matches: ls.length,
      MatchedLinks: ls.length,
      ExtBackLinks: 10_000,
      IndexedURLs: 50_000,
      CrawledURLs: 40_000,
      FirstCrawled: '2012-01-01',
      LastSuccessfulCrawl: '2026-11-20',
      IP: '192.0.2.1',
      SubNet: '192.0.2.0',
      CountryCode: 'US',
      TLD: domain.split('.').pop(),
      CitationFlow: ls[0].sourceCitationFlow,
      TrustFlow: ls[0].sourceTrustFlow,
    }));
    return answer({ Results: { Headers: { Count: rows.length }, Data: rows.slice(0, Number(q.get('Count') ?? 100)) } });
  }
  if (cmd === 'GetAnchorText') {
    const byAnchor = new Map<string, FakeLink[]>();
    for (const l of linksTo(web, q.get('item') ?? '')) byAnchor.set(l.anchor.toLowerCase(), [...(byAnchor.get(l.anchor.toLowerCase()) ?? []), l]);
    const rows = [...byAnchor].map(([anchor, ls]) => ({
      AnchorText: anchor,
      RefDomains: new Set(ls.map((l) => l.source.split('/')[2])).size,
      TotalLinks: ls.length,
      DeletedLinks: ls.filter((l) => l.lostOn).length,
      NoFollowLinks: ls.filter((l) => l.nofollow).length,
      EstimatedLinkCount: ls.length,
      CitationFlow: Math.max(...ls.map((l) => l.sourceCitationFlow)),
      TrustFlow: Math.max(...ls.map((l) => l.sourceTrustFlow)),
    }));
    return answer({ AnchorText: { Headers: { TotalAnchors: rows.length }, Data: rows } });
  }
  if (cmd === 'GetNewLostBackLinkCalendar') {
    const days = web.calendar[q.get('item') ?? ''] ?? {};
    const from = q.get('DateFrom') ?? '';
    const rows = Object.entries(days)
      .filter(([d]) => d >= from)
      .map(([Date, c]) => ({ Date, NewLinks: c.new, LostLinks: c.lost }));
    return answer({ Calendar: { Headers: {}, Data: rows } });
  }
  if (cmd === 'GetTopPages') {
    const query = q.get('Query') ?? '';
    const rows = Object.entries(web.items)
      .filter(([name]) => /^https?:\/\//.test(name) && name.includes(`${query}/`))
      .sort((a, b) => b[1].CitationFlow - a[1].CitationFlow)
      .map(([URL, it]) => ({
        URL,
        Title: URL,
        CitationFlow: it.CitationFlow,
        TrustFlow: it.TrustFlow,
        RefDomains: it.RefDomains,
        ExtBackLinks: it.ExtBackLinks,
      }));
    return answer({ Matches: { Headers: {}, Data: rows.slice(0, Number(q.get('Count') ?? 100)) } });
  }
  return majesticError('UnknownCommand', `Command ${cmd} is not supported by this fake`);
}

/** A running Majestic fake answering about `web` to the key `apiKey`. */
export async function startFakeMajestic(web: FakeLinkWeb, apiKey: string, options: FakeUpstreamOptions = {}): Promise<FakeMajestic> {
  const fake = await startFakeUpstream(options);
  fake.setDefault((req) => majesticAnswer(web, apiKey, req));
  return { ...fake, calls: (cmd) => fake.requests.filter((r) => r.url.searchParams.get('cmd') === cmd) };
}
