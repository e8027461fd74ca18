/**
 * Backlinks: a target's link-index metrics, its backlinks page by page (the links operation's
 * filters: all, new or lost links; all links or one per referring domain), favourites (a
 * star per link; one favourite list per target domain), and CSV exports, whose progress the
 * page follows by polling the export list until each job has its download link. Each tab is a
 * file of pages/backlinks/.
 */
import { useEffect, useState } from 'preact/hooks';
import { href, navigate, useLocation } from '../router';
import { Empty } from '../components/States';
import { Form, Input } from '../components/Form';
import { Metrics, Links } from './backlinks/Links';
import { Favourites } from './backlinks/Favourites';
import { Exports } from './backlinks/Exports';
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
