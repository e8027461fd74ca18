/**
 * Competitor keywords and gap analysis: what a site ranks for (best position first, with KD,
 * CPC and volume, sortable, a location of its own, added to a list) and what competitors rank
 * for that a domain does not. The competitor lookup lives in the URL (`site`, `loc`), so that
 * it survives a tab switch, a reload and a shared link.
 */
import { useState } from 'preact/hooks';
import { api, data } from '../api';
import { useApi } from '../useApi';
import { href, navigate, useLocation } from '../router';
import { AsyncView, Empty } from '../components/States';
import { VirtualTable, type Column } from '../components/VirtualTable';
import { SerpPanel } from '../components/SerpView';
import { LocationPicker } from '../components/LocationPicker';
import { AddToList } from '../components/AddToList';
import { Form, Input } from '../components/Form';
import { useSelection } from '../useSelection';
import type { KeywordItem } from '../types';

interface CompetitorAnswer {
  keywords: KeywordItem[];
  totalCount: number;
}

const kd = (k: KeywordItem) => (k.seo === null || k.seo === undefined ? '–' : k.seo);
const cpc = (k: KeywordItem) => (k.cpc === null || k.cpc === undefined ? '–' : `$${k.cpc.toFixed(2)}`);

/** The columns both tables share: keyword, position, volume, KD, CPC, each sortable. */
function keywordColumns(positionLabel: string): Column<KeywordItem>[] {
  return [
    { key: 'kw', label: 'Keyword', width: 'minmax(160px, 2fr)', value: (k) => k.kw, render: (k) => k.kw },
    { key: 'position', label: positionLabel, align: 'right', width: '90px', value: (k) => k.position ?? null, render: (k) => k.position ?? '–' },
    { key: 'sv', label: 'Volume', align: 'right', width: '90px', value: (k) => k.sv, render: (k) => k.sv.toLocaleString('en') },
    { key: 'seo', label: 'KD', align: 'right', width: '56px', value: (k) => k.seo ?? null, render: kd },
    { key: 'cpc', label: 'CPC', align: 'right', width: '70px', value: (k) => k.cpc ?? null, render: cpc },
  ];
}

export function CompetitorKeywords() {
  const loc = useLocation();
  const site = loc.query.get('site') ?? '';
  const locationId = Number(loc.query.get('loc') ?? '2840') || 0;
  const [draft, setDraft] = useState(site);
  const [draftLoc, setDraftLoc] = useState(locationId);
  const answer = useApi(
    site
      ? () => data<CompetitorAnswer | undefined>(api.GET('/keyword-tool/competitor-keywords', { params: { query: { url: site, location_id: locationId } } }))
      : null,
    [site, locationId],
  );
  return (
    <>
      <Form
        onSubmit={() => {
          if (draft.trim()) navigate(href('/app/keywords', { tab: 'competitor', site: draft.trim(), loc: draftLoc, kw: loc.query.get('kw') }));
        }}
      >
        <Input placeholder="Domain or URL, e.g. openpedia.org" value={draft} maxLength={500} onValue={setDraft} aria-label="Competitor domain" />
        <LocationPicker value={draftLoc} onChange={setDraftLoc} />
        <button type="submit">Find keywords</button>
      </Form>
      {!site && <Empty>Enter a competitor's domain to see the keywords it ranks for.</Empty>}
      <AsyncView state={answer} what="competitor keywords" onRetry={answer.reload}>
        {(a) =>
          !a || a.keywords.length === 0 ? (
            <Empty>No keywords found for this site in this location.</Empty>
          ) : (
            <CompetitorTable answer={a} locationId={locationId} />
          )
        }
      </AsyncView>
    </>
  );
}

function CompetitorTable({ answer, locationId }: { answer: CompetitorAnswer; locationId: number }) {
  const { selected, toggle, clear } = useSelection();
  const [open, setOpen] = useState<KeywordItem | null>(null);
  const rowKey = (k: KeywordItem) => `${k._id}-${k.url ?? ''}`;
  const columns: Column<KeywordItem>[] = [
    {
      key: 'pick',
      label: '',
      width: '32px',
      render: (k) => (
        <input
          type="checkbox"
          aria-label={`Select ${k.kw}`}
          checked={selected.has(k._id)}
          onClick={(e) => e.stopPropagation()}
          onChange={() => toggle(k._id)}
        />
      ),
    },
    ...keywordColumns('Position'),
    { key: 'url', label: 'URL', width: 'minmax(140px, 2fr)', value: (k) => k.url ?? null, render: (k) => <span class="url">{k.url}</span> },
  ];
  return (
    <div class="workbench">
      <div class="left">
        <p class="summary">
          <b data-count={answer.keywords.length}>{answer.keywords.length.toLocaleString('en')}</b> of {answer.totalCount.toLocaleString('en')} keywords
        </p>
        <VirtualTable
          label="Competitor keywords"
          rows={answer.keywords}
          rowKey={rowKey}
          columns={columns}
          initialSort={{ key: 'position', dir: 'asc' }}
          onRowClick={setOpen}
          selectedKey={open ? rowKey(open) : null}
        />
        <div class="selection">
          <AddToList keywordIds={[...selected]} onDone={() => clear()} />
        </div>
      </div>
      <div class="right">{open && <SerpPanel kw={open.kw} locationId={locationId} compact />}</div>
    </div>
  );
}

interface GapAnswer {
  results: { domain: string; totalCount: number; keywords: KeywordItem[] }[];
}

export function GapAnalysis({ locationId }: { locationId: number }) {
  const [domain, setDomain] = useState('');
  const [competitors, setCompetitors] = useState('');
  const [request, setRequest] = useState<{ domain: string; competitors: string[] } | null>(null);
  const answer = useApi(
    request
      ? () =>
          data<GapAnswer>(
            api.POST('/keyword-tool/gap-analysis', { body: { domain: request.domain, competitors: request.competitors, location_id: locationId } }),
          )
      : null,
    [request, locationId],
  );
  return (
    <>
      <Form
        onSubmit={() => {
          const list = competitors
            .split(/[\s,]+/)
            .map((c) => c.trim())
            .filter(Boolean);
          if (domain.trim() && list.length) setRequest({ domain: domain.trim(), competitors: list });
        }}
      >
        <Input placeholder="Your domain" value={domain} maxLength={500} onValue={setDomain} aria-label="Your domain" />
        <Input placeholder="Competitors, comma separated" value={competitors} maxLength={2000} onValue={setCompetitors} aria-label="Competitors" />
        <button type="submit">Find the gap</button>
      </Form>
      <AsyncView state={answer} what="the keyword gap" onRetry={answer.reload}>
        {(a) =>
          a.results.length === 0 ? (
            <Empty>No keywords missing.</Empty>
          ) : (
            <div class="gap">
              {a.results.map((r) => (
                <section key={r.domain}>
                  <h3>
                    {r.domain} ranks for {r.totalCount} keywords you miss
                  </h3>
                  <VirtualTable
                    label={`Gap keywords of ${r.domain}`}
                    rows={r.keywords}
                    rowKey={(k) => k._id}
                    height={260}
                    initialSort={{ key: 'position', dir: 'asc' }}
                    columns={keywordColumns('Their position')}
                  />
                </section>
              ))}
            </div>
          )
        }
      </AsyncView>
    </>
  );
}
