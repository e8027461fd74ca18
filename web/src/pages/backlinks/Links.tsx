/**
 * The backlinks tab: a target's link-index metrics and its backlinks page by page (the links
 * operation's filters: all, new or lost links; all links or one per referring domain), each
 * with a star that adds it to the target domain's favourite list.
 */
import { useMemo, useState } from 'preact/hooks';
import type { components } from '@quarry/client';
import { api, data } from '../../api';
import { useAction, useApi } from '../../useApi';
import { AsyncView, Empty, ProblemBox } from '../../components/States';
import { VirtualTable, type Column } from '../../components/VirtualTable';
import { Input, Select } from '../../components/Form';

type Schemas = components['schemas'];
type BackLink = Schemas['BackLink'];
type BackLinks = Schemas['BackLinks'];
type FavoriteList = Schemas['FavoriteList'];
type UrlMetrics = Schemas['LinkToolUrlMetrics'];

const PAGE_SIZE = 500;

/** One choice of the filter bar (`options`: value → text, in order); its label names the select for assistive technology too. */
function FilterChoice({ label, value, options, onValue }: { label: string; value: string; options: Record<string, string>; onValue: (value: string) => void }) {
  return (
    <label>
      {label}
      <Select value={value} onValue={onValue} aria-label={label}>
        {Object.entries(options).map(([v, text]) => (
          <option key={v} value={v}>
            {text}
          </option>
        ))}
      </Select>
    </label>
  );
}

export function Metrics({ url }: { url: string }) {
  const metrics = useApi(() => data<UrlMetrics>(api.GET('/link-tool/url-metrics', { params: { query: { url } } })), [url]);
  return (
    <AsyncView state={metrics} what="link metrics" onRetry={metrics.reload}>
      {(all) => {
        const m = all[0]?.m.linkindex.v;
        if (!m || m.Status !== 'Found') return <Empty>The link index has no data for {url}.</Empty>;
        // A figure the link provider does not give is null (DataForSEO has no citation or trust flow).
        const cards: [string, number | null | undefined][] = [
          ['Citation flow', m.CitationFlow],
          ['Trust flow', m.TrustFlow],
          ['Backlinks', m.ExtBackLinks],
          ['Referring domains', m.RefDomains],
          ['Referring IPs', m.RefIPs],
          ['Referring subnets', m.RefSubNets],
          ['Indexed URLs', m.IndexedURLs],
          ['.edu domains', m.RefDomainsEDU],
          ['.gov domains', m.RefDomainsGOV],
        ];
        return (
          <dl class="metric-cards" aria-label="Link metrics">
            {cards.map(([label, value]) => (
              <div key={label}>
                <dt>{label}</dt>
                <dd>{value === undefined || value === null ? '–' : value.toLocaleString('en')}</dd>
              </div>
            ))}
          </dl>
        );
      }}
    </AsyncView>
  );
}

/** The ids of every favourite link of the account (free call), to draw the stars. */
function useFavouriteIds() {
  const lists = useApi(() => data<FavoriteList[]>(api.GET('/link-tool/favorites')), []);
  const ids = useMemo(() => new Set(lists.status === 'ready' ? lists.data.flatMap((l) => l.link_ids) : []), [lists]);
  return { ids, reload: lists.reload };
}

export function Links({
  url,
  source,
  perDomain,
  page,
  go,
}: {
  url: string;
  source: 0 | 1 | 2;
  perDomain: 0 | 1;
  page: number;
  go: (q: Record<string, string | number>) => void;
}) {
  const links = useApi(
    () => data<BackLinks>(api.GET('/link-tool/links', { params: { query: { url, source, page, links_per_domain: perDomain } } })),
    [url, source, page, perDomain],
  );
  const favourites = useFavouriteIds();
  // A star toggled here shows at once; the favourite lists are re-read after the write.
  const [toggled, setToggled] = useState<Map<string, boolean>>(new Map());
  const star = useAction(async (link: BackLink, favorite: boolean) => {
    setToggled((m) => new Map(m).set(link._id, favorite));
    await api.PATCH('/link-tool/favorite-links/{link_id}', { params: { path: { link_id: link._id } }, body: { favorite } });
    favourites.reload();
  });
  const isFavourite = (id: string) => toggled.get(id) ?? favourites.ids.has(id);
  // Filters on the page of links shown: words in the anchor or the linking / target URL, and
  // followed or nofollow links only.
  const [search, setSearch] = useState('');
  const [follow, setFollow] = useState<'all' | 'dofollow' | 'nofollow'>('all');
  const shown = (all: BackLink[]) => {
    const words = search.toLowerCase().split(/\s+/).filter(Boolean);
    return all.filter(
      (l) =>
        (follow === 'all' || (follow === 'dofollow' ? !l.no_follow : Boolean(l.no_follow))) &&
        words.every((w) => `${l.anchor ?? ''} ${l.source} ${l.target} ${l.title ?? ''}`.toLowerCase().includes(w)),
    );
  };

  const columns: Column<BackLink>[] = [
    {
      key: 'fav',
      label: '★',
      width: '34px',
      render: (l) => {
        const on = isFavourite(l._id);
        return (
          <button
            type="button"
            class={`star ${on ? 'on' : ''}`}
            aria-pressed={on}
            aria-label={on ? `Remove ${l.source} from favourites` : `Add ${l.source} to favourites`}
            onClick={() => void star.run(l, !on)}
          >
            {on ? '★' : '☆'}
          </button>
        );
      },
    },
    {
      key: 'source',
      label: 'Linking page',
      width: 'minmax(200px, 3fr)',
      value: (l) => l.source,
      render: (l) => (
        <span class="url" title={l.source}>
          {l.title ? <b>{l.title} </b> : null}
          {l.source}
        </span>
      ),
    },
    {
      key: 'anchor',
      label: 'Anchor',
      width: 'minmax(100px, 1.5fr)',
      value: (l) => l.anchor || null,
      render: (l) => <span class="url">{l.anchor || <i class="muted">none</i>}</span>,
    },
    {
      key: 'target',
      label: 'Target',
      width: 'minmax(120px, 2fr)',
      value: (l) => l.target,
      render: (l) => (
        <span class="url" title={l.target}>
          {l.target}
        </span>
      ),
    },
    {
      key: 'type',
      label: 'Type',
      width: '110px',
      value: (l) => `${l.no_follow ? 1 : 0}${l.type}`,
      render: (l) => (
        <>
          {l.type}
          {l.no_follow ? <span class="chip small">nofollow</span> : null}
          {l.deleted ? <span class="chip small lost">lost</span> : null}
        </>
      ),
    },
    { key: 'cf', label: 'CF', align: 'right', width: '44px', value: (l) => l.source_cf, render: (l) => l.source_cf },
    { key: 'tf', label: 'TF', align: 'right', width: '44px', value: (l) => l.source_tf, render: (l) => l.source_tf },
    { key: 'ls', label: 'LS', align: 'right', width: '40px', value: (l) => l.ls, render: (l) => l.ls },
    { key: 'seen', label: 'First / last seen', width: '170px', value: (l) => l.first_seen, render: (l) => `${l.first_seen} – ${l.last_seen}` },
  ];

  return (
    <section class="links">
      <div class="filters" role="group" aria-label="Backlink filters">
        <FilterChoice label="Links" value={String(source)} options={{ 0: 'All', 1: 'New', 2: 'Lost' }} onValue={(v) => go({ source: v, page: 0 })} />
        <FilterChoice
          label="Per referring domain"
          value={String(perDomain)}
          options={{ 0: 'Every link', 1: 'One link' }}
          onValue={(v) => go({ lpd: v, page: 0 })}
        />
        <FilterChoice
          label="Follow"
          value={follow}
          options={{ all: 'All links', dofollow: 'Dofollow only', nofollow: 'Nofollow only' }}
          onValue={(v) => setFollow(v as typeof follow)}
        />
        <label>
          Search
          <Input
            type="search"
            class="words"
            value={search}
            maxLength={200}
            placeholder="anchor or URL"
            onValue={setSearch}
            aria-label="Search anchors and URLs"
          />
        </label>
      </div>
      {star.problem && <ProblemBox problem={star.problem} />}
      <AsyncView state={links} what="backlinks" onRetry={links.reload}>
        {(answer) => {
          const pages = Math.max(1, Math.ceil(answer.meta.available_links / PAGE_SIZE));
          const visible = shown(answer.links);
          return (
            <>
              <p class="summary">
                <b data-available={answer.meta.available_links}>{answer.meta.available_links.toLocaleString('en')}</b> links ({answer.meta.url_type}) · page{' '}
                {page + 1} of {pages}
              </p>
              {answer.links.length === 0 ? (
                <Empty>No {source === 1 ? 'new ' : source === 2 ? 'lost ' : ''}backlinks on this page.</Empty>
              ) : (
                <>
                  <p class="summary" data-shown={visible.length}>
                    {visible.length.toLocaleString('en')} of {answer.links.length.toLocaleString('en')} links on this page match the filters
                  </p>
                  <VirtualTable label="Backlinks" rows={visible} columns={columns} rowKey={(l) => l._id} height={520} />
                </>
              )}
              <div class="pager">
                <button type="button" disabled={page === 0} onClick={() => go({ page: page - 1 })}>
                  ← Previous 500
                </button>
                <button type="button" disabled={page + 1 >= pages} onClick={() => go({ page: page + 1 })}>
                  Next 500 →
                </button>
                <span class="muted">Each page is charged per link returned (pool “links”).</span>
              </div>
            </>
          );
        }}
      </AsyncView>
    </section>
  );
}
