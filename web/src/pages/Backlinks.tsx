/**
 * Backlinks: a target's link-index metrics, its backlinks page by page (the links operation's
 * filters: all, new or lost links; all links or one per referring domain), favourites (a
 * star per link; one favourite list per target domain), and CSV exports, whose progress the
 * page follows by polling the export list until each job has its download link.
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import type { components } from '@quarry/client';
import { api, data } from '../api';
import { useAction, useApi } from '../useApi';
import { href, linkClick, navigate, useLocation } from '../router';
import { AsyncView, Empty, ProblemBox } from '../components/States';
import { VirtualTable, type Column } from '../components/VirtualTable';
import { DeleteButton, Form, Input, Select } from '../components/Form';

type Schemas = components['schemas'];
type BackLink = Schemas['BackLink'];
type BackLinks = Schemas['BackLinks'];
type FavoriteList = Schemas['FavoriteList'];
type ExportJob = Schemas['BackLinkExport'];
type Suggestions = Schemas['BackLinkExportSuggestionResponse'];
type UrlMetrics = Schemas['LinkToolUrlMetrics'];
type ExportFilter = NonNullable<ExportJob['request']['filter']>;

const PAGE_SIZE = 500;
const TABS = [
  ['links', 'Backlinks'],
  ['favorites', 'Favourites'],
  ['exports', 'Exports'],
] as const;

export default function Backlinks() {
  const loc = useLocation();
  const url = loc.query.get('url') ?? '';
  const tab = loc.query.get('tab') ?? 'links';
  const source = Number(loc.query.get('source') ?? '0') as 0 | 1 | 2;
  const perDomain = Number(loc.query.get('lpd') ?? '0') as 0 | 1;
  const page = Math.max(0, Number(loc.query.get('page') ?? '0') || 0);
  const [draft, setDraft] = useState(url);
  useEffect(() => setDraft(url), [url]);
  const go = (query: Record<string, string | number>) => navigate(href('/app/backlinks', { url, tab, source, lpd: perDomain, page, ...query }));

  return (
    <div class="page backlinks">
      <h1>Backlinks</h1>
      <nav class="tabs">
        {TABS.map(([id, label]) => (
          <button key={id} type="button" class={tab === id ? 'active' : ''} onClick={() => go({ tab: id })}>
            {label}
          </button>
        ))}
      </nav>
      {tab !== 'favorites' && (
        <Form
          class="search"
          onSubmit={() => {
            if (draft.trim()) go({ url: draft.trim(), page: 0 });
          }}
        >
          <Input name="url" placeholder="Domain, subdomain or URL, e.g. openpedia.org" value={draft} maxLength={2048} onValue={setDraft} aria-label="Target" />
          <button type="submit">Look up</button>
        </Form>
      )}
      {tab === 'links' &&
        (url ? (
          <>
            <Metrics url={url} />
            <Links url={url} source={source} perDomain={perDomain} page={page} go={go} />
          </>
        ) : (
          <Empty>Enter a domain, subdomain or URL to see its link metrics and backlinks.</Empty>
        ))}
      {tab === 'favorites' && <Favourites id={loc.query.get('list')} />}
      {tab === 'exports' && <Exports url={url} />}
    </div>
  );
}

function Metrics({ url }: { url: string }) {
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

function Links({
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
        <label>
          Links
          <Select value={String(source)} onValue={(v) => go({ source: v, page: 0 })} aria-label="Links">
            <option value="0">All</option>
            <option value="1">New</option>
            <option value="2">Lost</option>
          </Select>
        </label>
        <label>
          Per referring domain
          <Select value={String(perDomain)} onValue={(v) => go({ lpd: v, page: 0 })} aria-label="Per referring domain">
            <option value="0">Every link</option>
            <option value="1">One link</option>
          </Select>
        </label>
        <label>
          Follow
          <Select value={follow} onValue={(v) => setFollow(v as typeof follow)} aria-label="Follow">
            <option value="all">All links</option>
            <option value="dofollow">Dofollow only</option>
            <option value="nofollow">Nofollow only</option>
          </Select>
        </label>
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
                  <p class="summary" data-shown={shown(answer.links).length}>
                    {shown(answer.links).length.toLocaleString('en')} of {answer.links.length.toLocaleString('en')} links on this page match the filters
                  </p>
                  <VirtualTable label="Backlinks" rows={shown(answer.links)} columns={columns} rowKey={(l) => l._id} height={520} />
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

function Favourites({ id }: { id: string | null }) {
  const lists = useApi(() => data<FavoriteList[]>(api.GET('/link-tool/favorites')), []);
  const remove = useAction(async (list: FavoriteList) => {
    await api.DELETE('/link-tool/favorites/{list_id}', { params: { path: { list_id: list._id } } });
    navigate(href('/app/backlinks', { tab: 'favorites' }), true);
    lists.reload();
  });
  return (
    <section class="favourites">
      {remove.problem && <ProblemBox problem={remove.problem} />}
      <AsyncView state={lists} what="your favourite lists" onRetry={lists.reload}>
        {(all) =>
          all.length === 0 ? (
            <Empty>No favourites yet. Star backlinks in the Backlinks tab: each target domain gets its own list.</Empty>
          ) : (
            <div class="split">
              <table class="plain" aria-label="Favourite lists">
                <thead>
                  <tr>
                    <th>Target domain</th>
                    <th class="right">Links</th>
                    <th>Updated</th>
                    <th />
                  </tr>
                </thead>
                <tbody>
                  {all.map((l) => (
                    <tr key={l._id} class={l._id === id ? 'selected' : ''}>
                      <td>
                        <a href={href('/app/backlinks', { tab: 'favorites', list: l._id })} onClick={linkClick}>
                          {l.domain}
                        </a>
                      </td>
                      <td class="right">{l.link_ids.length}</td>
                      <td>{new Date(l.updated_at * 1000).toLocaleString('en')}</td>
                      <td>
                        <DeleteButton busy={remove.busy} confirmText={`Delete the favourite list of ${l.domain}?`} onDelete={() => void remove.run(l)} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
              {id && <FavouriteList id={id} onChange={lists.reload} />}
            </div>
          )
        }
      </AsyncView>
    </section>
  );
}

function FavouriteList({ id, onChange }: { id: string; onChange: () => void }) {
  const list = useApi(() => data<FavoriteList | null>(api.GET('/link-tool/favorites/{list_id}', { params: { path: { list_id: id } } })), [id]);
  const unstar = useAction(async (link: BackLink) => {
    await api.PATCH('/link-tool/favorite-links/{link_id}', { params: { path: { link_id: link._id } }, body: { favorite: false } });
    list.reload();
    onChange();
  });
  return (
    <section class="favourite-list">
      {unstar.problem && <ProblemBox problem={unstar.problem} />}
      <AsyncView state={list} what="the favourite list" onRetry={list.reload}>
        {(l) =>
          !l ? (
            <Empty>This favourite list does not exist (any more).</Empty>
          ) : (l.links ?? []).length === 0 ? (
            <Empty>No links left in the list of {l.domain}.</Empty>
          ) : (
            <>
              <h2>Favourite backlinks of {l.domain}</h2>
              <table class="plain" aria-label={`Favourite backlinks of ${l.domain}`}>
                <thead>
                  <tr>
                    <th>Linking page</th>
                    <th>Anchor</th>
                    <th class="right">CF / TF</th>
                    <th />
                  </tr>
                </thead>
                <tbody>
                  {(l.links ?? []).map((link) => (
                    <tr key={link._id}>
                      <td class="url">{link.source}</td>
                      <td>{link.anchor}</td>
                      <td class="right">
                        {link.source_cf} / {link.source_tf}
                      </td>
                      <td>
                        <button type="button" disabled={unstar.busy} onClick={() => void unstar.run(link)}>
                          Remove
                        </button>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </>
          )
        }
      </AsyncView>
    </section>
  );
}

/** Export stages as the API numbers them (BackLinkExport.state). */
function stageOf(job: ExportJob): string {
  if (job.error) return 'failed';
  if (job.downloadURL) return 'ready';
  if (job.state === 600) return 'done';
  if (job.state >= 200) return 'writing rows';
  return 'collecting links';
}

const finished = (job: ExportJob) => Boolean(job.error) || Boolean(job.downloadURL) || job.completedAt !== null;

function Exports({ url }: { url: string }) {
  const jobs = useApi(() => data<ExportJob[]>(api.GET('/link-tool/exports')), []);
  // Live progress: while a job runs, the list is asked again every 2 s (a free call); the last
  // answer stays on screen meanwhile.
  const running = jobs.status === 'ready' && jobs.data.some((j) => !finished(j));
  useEffect(() => {
    if (!running) return;
    const timer = setTimeout(jobs.reload, 2000);
    return () => clearTimeout(timer);
  }, [running, jobs.status === 'ready' ? jobs.data : null]);
  return (
    <section class="exports">
      {url ? <NewExport url={url} onCreated={jobs.reload} /> : <Empty>Enter a target above to export its backlinks as CSV.</Empty>}
      <h2>Your exports</h2>
      <AsyncView state={jobs} what="your exports" onRetry={jobs.reload}>
        {(all) =>
          all.length === 0 ? (
            <Empty>No exports yet.</Empty>
          ) : (
            <table class="plain" aria-label="Exports">
              <thead>
                <tr>
                  <th>Target</th>
                  <th>Created</th>
                  <th>Stage</th>
                  <th>Progress</th>
                  <th class="right">Links</th>
                  <th class="right">Cost</th>
                  <th />
                </tr>
              </thead>
              <tbody>
                {all.map((job) => (
                  <ExportRow key={job._id} job={job} />
                ))}
              </tbody>
            </table>
          )
        }
      </AsyncView>
    </section>
  );
}

function ExportRow({ job }: { job: ExportJob }) {
  const total = job.progress.total ?? job.backLinks;
  return (
    <tr data-export={job._id} data-stage={stageOf(job)}>
      <td class="url">
        {job.request.url} <small class="muted">{job.request.type}</small>
      </td>
      <td>{new Date(job.createdAt * 1000).toLocaleString('en')}</td>
      <td>{job.error ? <span class="bad">failed: {job.error}</span> : stageOf(job)}</td>
      <td>
        <progress max={Math.max(1, total)} value={job.downloadURL ? Math.max(1, total) : job.progress.done} />{' '}
        <small>
          {job.progress.done.toLocaleString('en')} / {job.progress.total === null ? '…' : job.progress.total.toLocaleString('en')}
        </small>
      </td>
      <td class="right">{job.backLinks.toLocaleString('en')}</td>
      <td class="right">{job.cost.toLocaleString('en')}</td>
      <td>
        {job.downloadURL ? (
          <a class="button" href={job.downloadURL} download>
            Download CSV
          </a>
        ) : null}
      </td>
    </tr>
  );
}

const FILTER_NUMBERS: [keyof ExportFilter, string, number][] = [
  ['minCitationFlow', 'CF ≥', 100],
  ['minTrustFlow', 'TF ≥', 100],
  ['minLinkStrength', 'Strength ≥', 10],
];

function NewExport({ url, onCreated }: { url: string; onCreated: () => void }) {
  const suggestions = useApi(() => data<Suggestions>(api.POST('/link-tool/exports/suggest', { body: { url } })), [url]);
  const [target, setTarget] = useState<string | null>(null);
  const [limit, setLimit] = useState('');
  const [filter, setFilter] = useState<ExportFilter>({});
  const create = useAction(async () => {
    const chosen = target ?? (suggestions.status === 'ready' ? suggestions.data.suggestions[0]?.url : undefined);
    if (!chosen) return;
    const cleaned = Object.fromEntries(Object.entries(filter).filter(([, v]) => v !== undefined && v !== '')) as ExportFilter;
    await api.POST('/link-tool/exports', {
      body: { url: chosen, ...(limit.trim() ? { limit: Number(limit) } : {}), ...(Object.keys(cleaned).length ? { filter: cleaned } : {}) },
    });
    onCreated();
  });
  return (
    <AsyncView state={suggestions} what="export targets" onRetry={suggestions.reload}>
      {(s) =>
        s.suggestions.length === 0 ? (
          <Empty>Nothing to export for {url}.</Empty>
        ) : (
          <Form
            class="new-export"
            onSubmit={() => {
              void create.run();
            }}
          >
            <h2>New export</h2>
            <fieldset>
              <legend>Target</legend>
              {s.suggestions.map((option) => (
                <label key={option.url} class="option">
                  <input
                    type="radio"
                    name="target"
                    value={option.url}
                    checked={(target ?? s.suggestions[0].url) === option.url}
                    onChange={() => setTarget(option.url)}
                  />
                  {option.url} <small class="muted">{option.type}</small> · {option.backLinks.toLocaleString('en')} links from{' '}
                  {option.refDomains.toLocaleString('en')} domains · costs {option.cost.toLocaleString('en')}
                </label>
              ))}
            </fieldset>
            <div class="filters">
              <label>
                At most
                <Input type="number" min="1" value={limit} placeholder="all" onValue={setLimit} />
                links
              </label>
              <label>
                Type
                <Select
                  value={filter.linkType ?? ''}
                  onValue={(v) => setFilter({ ...filter, linkType: (v || undefined) as ExportFilter['linkType'] })}
                  aria-label="Link type"
                >
                  <option value="">any</option>
                  {['text', 'image', 'redirect', 'frame', 'mention'].map((t) => (
                    <option key={t} value={t}>
                      {t}
                    </option>
                  ))}
                </Select>
              </label>
              {FILTER_NUMBERS.map(([key, label, max]) => (
                <label key={key}>
                  {label}
                  <Input
                    type="number"
                    min="0"
                    max={max}
                    value={(filter[key] as number | undefined) ?? ''}
                    onValue={(v) => setFilter({ ...filter, [key]: v === '' ? undefined : Number(v) })}
                  />
                </label>
              ))}
              <label>
                <input
                  type="checkbox"
                  checked={filter.liveLinks ?? false}
                  onChange={(e) => setFilter({ ...filter, liveLinks: (e.currentTarget as HTMLInputElement).checked || undefined })}
                />
                live links only
              </label>
              <label>
                <input
                  type="checkbox"
                  checked={filter.linksPerDomain === 1}
                  onChange={(e) => setFilter({ ...filter, linksPerDomain: (e.currentTarget as HTMLInputElement).checked ? 1 : undefined })}
                />
                one per domain
              </label>
            </div>
            <button type="submit" disabled={create.busy}>
              {create.busy ? 'Creating…' : 'Export'}
            </button>
            <span class="muted"> Charged to the “links” pool: the target's cost, or the limit if smaller.</span>
            {create.problem && <ProblemBox problem={create.problem} />}
          </Form>
        )
      }
    </AsyncView>
  );
}
