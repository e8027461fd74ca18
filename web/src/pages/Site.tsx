/**
 * Site profile: a domain's authority overview with its history charts (TopRank, citation and
 * trust flow, referring domains and IPs, social shares), then its backlink profile (new and
 * lost links per day, top referring domains, anchors), top content and competitors. The
 * last three need an overview of the same url from the last 24 hours (the contract answers
 * 429 `Not in history` otherwise), so they are asked for once the overview has arrived.
 */
import { useEffect, useState } from 'preact/hooks';
import type { components } from '@quarry/client';
import { api, data } from '../api';
import { useApi } from '../useApi';
import { href, linkClick, navigate, useLocation } from '../router';
import { AsyncView, Empty } from '../components/States';
import { Chart } from '../components/Chart';
import { Form, Input } from '../components/Form';
import { PlainTable } from '../components/PlainTable';
import type { Column } from '../components/sorting';

type Schemas = components['schemas'];
type Overview = Schemas['SiteMetrics'];
type Profile = Schemas['SiteBacklinkProfile'];
type TopContent = Schemas['SiteTopContent'];
type Competitors = Schemas['SiteCompetitors'];

const monthToSeconds = (month: string) => Date.parse(`${month}-01T00:00:00Z`) / 1000;
const dayToSeconds = (day: string) => Date.parse(`${day}T00:00:00Z`) / 1000;
const n = (v: number | null | undefined) => (v === null || v === undefined ? '–' : v.toLocaleString('en'));

// The profile's tables, sortable by each figure (CF / TF sorts by TrustFlow, the figure link builders rank by).
const cfTf = (r: { citationFlow: number | null; trustFlow: number | null }) => `${n(r.citationFlow)} / ${n(r.trustFlow)}`;
const refDomainColumns: Column<Profile['linkindexRefDomains'][number]>[] = [
  { key: 'domain', label: 'Referring domain', value: (d) => d.domain, render: (d) => d.domain },
  { key: 'links', label: 'Links', align: 'right', value: (d) => d.matchedLinks, render: (d) => n(d.matchedLinks) },
  { key: 'tf', label: 'CF / TF', align: 'right', value: (d) => d.trustFlow, render: cfTf },
  { key: 'topRank', label: 'TopRank', align: 'right', value: (d) => d.topRank, render: (d) => n(d.topRank) },
];
const anchorColumns: Column<Profile['linkindexAnchors'][number]>[] = [
  { key: 'anchor', label: 'Anchor', value: (a) => a.anchorText, render: (a) => a.anchorText || <i class="muted">empty</i> },
  { key: 'class', label: 'Class', value: (a) => a.class, render: (a) => <span class="chip small">{a.class}</span> },
  { key: 'domains', label: 'Domains', align: 'right', value: (a) => a.refDomains, render: (a) => n(a.refDomains) },
  { key: 'links', label: 'Links', align: 'right', value: (a) => a.totalLinks, render: (a) => n(a.totalLinks) },
];
const topPageColumns: Column<TopContent['topContent'][number]>[] = [
  { key: 'url', label: 'Page', value: (p) => p.url, cellClass: () => 'url', render: (p) => <span title={p.social.og?.title ?? p.url}>{p.url}</span> },
  { key: 'tf', label: 'CF / TF', align: 'right', value: (p) => p.trustFlow, render: cfTf },
  { key: 'refDomains', label: 'Ref. domains', align: 'right', value: (p) => p.refDomains, render: (p) => n(p.refDomains) },
  { key: 'shares', label: 'Shares', align: 'right', value: (p) => p.social.l, render: (p) => n(p.social.l) },
];
const competitorColumns: Column<Competitors['competitors'][number]>[] = [
  {
    key: 'domain',
    label: 'Domain',
    value: (d) => d.domain,
    render: (d) => (
      <a href={href('/app/site', { url: d.domain })} onClick={linkClick}>
        {d.domain}
      </a>
    ),
  },
  {
    key: 'score',
    label: 'Similarity',
    align: 'right',
    value: (d) => d.score,
    render: (d) =>
      d.score === null ? (
        '—'
      ) : (
        <>
          <meter min={0} max={100} value={d.score} /> {d.score.toFixed(0)}
        </>
      ),
  },
  { key: 'topRank', label: 'TopRank', align: 'right', value: (d) => d.topRank, render: (d) => n(d.topRank) },
  { key: 'refIps', label: 'Ref. IPs', align: 'right', value: (d) => d.refIps, render: (d) => n(d.refIps) },
];

export default function Site() {
  const loc = useLocation();
  const url = loc.query.get('url') ?? '';
  const [draft, setDraft] = useState(url);
  useEffect(() => setDraft(url), [url]);
  return (
    <div class="page site">
      <h1>Site profile</h1>
      <Form
        class="search"
        onSubmit={() => {
          if (draft.trim()) navigate(href('/app/site', { url: draft.trim() }));
        }}
      >
        <Input name="url" placeholder="Domain or URL, e.g. openpedia.org" value={draft} maxLength={2048} onValue={setDraft} aria-label="Site" />
        <button type="submit">Profile</button>
      </Form>
      {url ? <Profile url={url} /> : <Empty>Enter a domain or URL to see its authority, backlink profile, top content and competitors.</Empty>}
    </div>
  );
}

function Profile({ url }: { url: string }) {
  const overview = useApi(() => data<Overview>(api.GET('/site-tool/overview', { params: { query: { url } } })), [url]);
  return (
    <AsyncView state={overview} what={`the overview of ${url}`} onRetry={overview.reload}>
      {(o) => (
        <>
          <OverviewView o={o} />
          <BacklinkProfile url={url} />
          <div class="split">
            <TopContentView url={url} />
            <CompetitorsView url={url} />
          </div>
        </>
      )}
    </AsyncView>
  );
}

function OverviewView({ o }: { o: Overview }) {
  const rankMonths = Object.keys(o.topRankHistory).sort();
  const linkMonths = Object.keys(o.linkindexHistory).sort();
  const socialMonths = Object.keys(o.socialHistory).sort();
  const topRank = typeof o.topRank === 'number' ? o.topRank : null;
  const cards: [string, string][] = [
    ['Domain authority', n(o.authority.pda === null ? null : Math.round(o.authority.pda))],
    ['Page authority', n(o.authority.upa === null ? null : Math.round(o.authority.upa))],
    ['Citation flow', n(o.linkindex.CitationFlow)],
    ['Trust flow', n(o.linkindex.TrustFlow)],
    ['TopRank', topRank === null ? 'unranked' : `#${topRank.toLocaleString('en')}`],
    ['Referring IPs', n(o.linkindex.RefIPs)],
    ['Referring subnets', n(o.linkindex.RefSubNets)],
    ['Social shares', n(o.social?.l)],
  ];
  return (
    <section class="overview" aria-label="Authority overview">
      <h2>
        {o.url} <small class="muted">{o.domain !== o.url ? `root domain ${o.domain}` : ''}</small>
      </h2>
      {o.linkindex.Status !== 'Found' && <Empty>The link index has no data for this site; authority figures are estimates.</Empty>}
      <dl class="metric-cards" aria-label="Authority">
        {cards.map(([label, value]) => (
          <div key={label}>
            <dt>{label}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
      {rankMonths.length + linkMonths.length === 0 ? (
        <Empty>No history for this site yet.</Empty>
      ) : (
        <div class="charts">
          {rankMonths.length > 0 && (
            <Chart
              title="TopRank by month (1 is best)"
              x={rankMonths.map(monthToSeconds)}
              series={[{ label: 'TopRank', values: rankMonths.map((m) => o.topRankHistory[m]), color: '#9333ea', inverted: true }]}
            />
          )}
          {linkMonths.length > 0 && (
            <Chart
              title="Citation and trust flow by month"
              x={linkMonths.map(monthToSeconds)}
              series={[
                { label: 'citation flow', values: linkMonths.map((m) => o.linkindexHistory[m].citationFlow), color: '#2563eb' },
                { label: 'trust flow', values: linkMonths.map((m) => o.linkindexHistory[m].trustFlow), color: '#16a34a' },
              ]}
            />
          )}
          {linkMonths.length > 0 && (
            <Chart
              title="Referring domains and IPs by month"
              x={linkMonths.map(monthToSeconds)}
              series={[
                { label: 'referring domains', values: linkMonths.map((m) => o.linkindexHistory[m].refDomains), color: '#ea580c' },
                { label: 'referring IPs', values: linkMonths.map((m) => o.linkindexHistory[m].refIps), color: '#0891b2' },
              ]}
            />
          )}
          {socialMonths.length > 1 && (
            <Chart
              title="Social shares by month"
              x={socialMonths.map(monthToSeconds)}
              series={[{ label: 'shares', values: socialMonths.map((m) => o.socialHistory[m]), color: '#db2777' }]}
            />
          )}
        </div>
      )}
    </section>
  );
}

function BacklinkProfile({ url }: { url: string }) {
  const profile = useApi(() => data<Profile>(api.GET('/site-tool/backlink-profile', { params: { query: { url } } })), [url]);
  return (
    <section class="backlink-profile" aria-label="Backlink profile">
      <h2>Backlink profile</h2>
      <AsyncView state={profile} what="the backlink profile" onRetry={profile.reload}>
        {(p) => {
          const days = p.linkindexBackLinkCalendar.map((d) => d.Date);
          return (
            <>
              <p class="summary">
                {n(p.linkindex.ExtBackLinks)} backlinks from {n(p.linkindex.RefDomains)} domains · {n(p.linkindex.RefDomainsEDU)} .edu ·{' '}
                {n(p.linkindex.RefDomainsGOV)} .gov ·{' '}
                <a href={href('/app/backlinks', { url })} onClick={linkClick}>
                  see the links
                </a>
              </p>
              {days.length > 0 && (
                <Chart
                  title="New and lost links per day (last 90 days)"
                  x={days.map(dayToSeconds)}
                  height={180}
                  series={[
                    { label: 'new', values: p.linkindexBackLinkCalendar.map((d) => d.NewLinks), color: '#16a34a' },
                    { label: 'lost', values: p.linkindexBackLinkCalendar.map((d) => d.LostLinks), color: '#b91c1c' },
                  ]}
                />
              )}
              <div class="split">
                {p.linkindexRefDomains.length === 0 ? (
                  <Empty>No referring domains.</Empty>
                ) : (
                  <PlainTable label="Top referring domains" rows={p.linkindexRefDomains.slice(0, 25)} columns={refDomainColumns} rowKey={(d) => d.domain} />
                )}
                {p.linkindexAnchors.length === 0 ? (
                  <Empty>No anchors.</Empty>
                ) : (
                  <PlainTable label="Top anchors" rows={p.linkindexAnchors.slice(0, 25)} columns={anchorColumns} rowKey={(a) => a.anchorText} />
                )}
              </div>
            </>
          );
        }}
      </AsyncView>
    </section>
  );
}

function TopContentView({ url }: { url: string }) {
  const top = useApi(() => data<TopContent>(api.GET('/site-tool/top-content', { params: { query: { url } } })), [url]);
  return (
    <section class="top-content" aria-label="Top content">
      <h2>Top content</h2>
      <AsyncView state={top} what="top content" onRetry={top.reload}>
        {(t) =>
          t.topContent.length === 0 ? (
            <Empty>No pages of this site are in the link index.</Empty>
          ) : (
            <PlainTable label="Top pages" rows={t.topContent.slice(0, 25)} columns={topPageColumns} rowKey={(p) => p.url} />
          )
        }
      </AsyncView>
    </section>
  );
}

function CompetitorsView({ url }: { url: string }) {
  const competitors = useApi(() => data<Competitors>(api.GET('/site-tool/competitors', { params: { query: { url } } })), [url]);
  return (
    <section class="competitors" aria-label="Competitors">
      <h2>Competitors</h2>
      <AsyncView state={competitors} what="competitors" onRetry={competitors.reload}>
        {(c) =>
          c.competitors.length === 0 ? (
            <Empty>No site shares referring domains with this one.</Empty>
          ) : (
            <PlainTable label="Competing sites" rows={c.competitors} columns={competitorColumns} rowKey={(d) => String(d.domainId)} />
          )
        }
      </AsyncView>
    </section>
  );
}
