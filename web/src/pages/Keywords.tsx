/**
 * Keyword research: related keywords of a seed in a virtualised table (the seed first; sort and
 * filter by volume, difficulty and CPC; a volume sparkline per row), the SERP of the selected
 * keyword beside it, adding keywords to lists, and competitor keywords and gap analysis.
 */
import { useMemo, useState } from 'preact/hooks';
import { api, data } from '../api';
import { useApi } from '../useApi';
import { href, navigate, useLocation } from '../router';
import { AsyncView, Empty } from '../components/States';
import { VirtualTable, type Column, type Sort } from '../components/VirtualTable';
import { Sparkline } from '../components/Sparkline';
import { SerpPanel } from '../components/SerpView';
import { LocationPicker } from '../components/LocationPicker';
import { AddToList } from '../components/AddToList';
import type { KeywordItem } from '../types';
import { Form, Input } from '../components/Form';
import { useSelection } from '../useSelection';

interface Related {
  keywords: KeywordItem[];
  countKeywordsBeforeLimit: number;
  location: { label: string };
}

interface Filters {
  minVolume: string;
  maxVolume: string;
  maxKd: string;
  minCpc: string;
  maxCpc: string;
}

const NO_FILTERS: Filters = { minVolume: '', maxVolume: '', maxKd: '', minCpc: '', maxCpc: '' };

const num = (s: string): number | null => (s.trim() === '' || Number.isNaN(Number(s)) ? null : Number(s));

/** The last twelve months of volume, for the sparkline. */
const lastYear = (k: KeywordItem) => (k.msv ?? []).slice(-12).map((m) => m[2]);

export default function Keywords() {
  const loc = useLocation();
  const tab = loc.query.get('tab') ?? 'related';
  const kw = loc.query.get('kw') ?? '';
  const locationId = Number(loc.query.get('loc') ?? '2840') || 0;
  const [draft, setDraft] = useState(kw);
  const [draftLoc, setDraftLoc] = useState(locationId);
  const go = (query: Record<string, string | number>) => navigate(href('/app/keywords', { tab, kw, loc: locationId, ...query }));

  return (
    <div class="page keywords">
      <h1>Keyword research</h1>
      <nav class="tabs">
        {[
          ['related', 'Related keywords'],
          ['competitor', 'Competitor keywords'],
          ['gap', 'Gap analysis'],
        ].map(([id, label]) => (
          <button key={id} type="button" class={tab === id ? 'active' : ''} onClick={() => go({ tab: id })}>
            {label}
          </button>
        ))}
      </nav>
      {tab === 'related' && (
        <>
          <Form
            class="search"
            onSubmit={() => {
              if (draft.trim()) go({ kw: draft.trim(), loc: draftLoc });
            }}
          >
            <Input name="kw" placeholder="Seed keyword, e.g. running shoes" value={draft} maxLength={200} onValue={setDraft} aria-label="Seed keyword" />
            <LocationPicker value={draftLoc} onChange={setDraftLoc} />
            <button type="submit">Research</button>
          </Form>
          {kw ? <RelatedKeywords kw={kw} locationId={locationId} /> : <Empty>Enter a seed keyword to see its related keywords.</Empty>}
        </>
      )}
      {tab === 'competitor' && <CompetitorKeywords locationId={locationId} />}
      {tab === 'gap' && <GapAnalysis locationId={locationId} />}
    </div>
  );
}

function RelatedKeywords({ kw, locationId }: { kw: string; locationId: number }) {
  const related = useApi(
    () => data<Related>(api.GET('/keyword-tool/related-keywords', { params: { query: { kw, location_id: locationId } } })),
    [kw, locationId],
  );
  return (
    <AsyncView state={related} what={`keywords related to “${kw}”`} onRetry={related.reload}>
      {(r) => (r.keywords.length === 0 ? <Empty>No related keywords for “{kw}”.</Empty> : <KeywordWorkbench answer={r} locationId={locationId} />)}
    </AsyncView>
  );
}

function KeywordWorkbench({ answer, locationId }: { answer: Related; locationId: number }) {
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const [sort, setSort] = useState<Sort | null>(null);
  const [selected, setSelected] = useState<KeywordItem>(answer.keywords[0]);
  const { selected: checked, toggle, set: setChecked, clear: clearChecked } = useSelection();
  const seed = answer.keywords[0];

  const rows = useMemo(() => {
    const f = { minV: num(filters.minVolume), maxV: num(filters.maxVolume), maxKd: num(filters.maxKd), minC: num(filters.minCpc), maxC: num(filters.maxCpc) };
    const kept = answer.keywords
      .slice(1)
      .filter(
        (k) =>
          (f.minV === null || k.sv >= f.minV) &&
          (f.maxV === null || k.sv <= f.maxV) &&
          (f.maxKd === null || (k.seo ?? 0) <= f.maxKd) &&
          (f.minC === null || (k.cpc ?? 0) >= f.minC) &&
          (f.maxC === null || (k.cpc ?? 0) <= f.maxC),
      );
    if (sort) {
      const value = (k: KeywordItem) => (sort.key === 'sv' ? k.sv : sort.key === 'seo' ? (k.seo ?? -1) : (k.cpc ?? -1));
      const sign = sort.dir === 'asc' ? 1 : -1;
      kept.sort((a, b) => sign * (value(a) - value(b)));
    }
    // The seed stays first whatever the sort and filters.
    return [seed, ...kept];
  }, [answer, filters, sort, seed]);

  const columns: Column<KeywordItem>[] = [
    {
      key: 'pick',
      label: '',
      width: '32px',
      render: (k) => (
        <input type="checkbox" aria-label={`Select ${k.kw}`} checked={checked.has(k._id)} onClick={(e) => e.stopPropagation()} onChange={() => toggle(k._id)} />
      ),
    },
    { key: 'kw', label: 'Keyword', width: 'minmax(160px, 2fr)', render: (k) => <span class={k === seed ? 'seed' : ''}>{k.kw}</span> },
    { key: 'sv', label: 'Volume', align: 'right', sortable: true, width: '90px', render: (k) => k.sv.toLocaleString('en') },
    { key: 'trend', label: 'Last 12 months', width: '96px', render: (k) => <Sparkline values={lastYear(k)} /> },
    { key: 'seo', label: 'KD', align: 'right', sortable: true, width: '56px', render: (k) => (k.seo === null ? '–' : k.seo) },
    { key: 'cpc', label: 'CPC', align: 'right', sortable: true, width: '70px', render: (k) => (k.cpc === null ? '–' : `$${k.cpc.toFixed(2)}`) },
  ];

  const filterInput = (field: keyof Filters, label: string) => (
    <label>
      {label}
      <Input type="number" min="0" step="any" value={filters[field]} onValue={(v) => setFilters({ ...filters, [field]: v })} />
    </label>
  );

  return (
    <div class="workbench">
      <div class="left">
        <p class="summary">
          <b data-count={rows.length}>{rows.length.toLocaleString('en')}</b> of {answer.keywords.length.toLocaleString('en')} keywords shown
          {answer.countKeywordsBeforeLimit > answer.keywords.length && (
            <> ({answer.countKeywordsBeforeLimit.toLocaleString('en')} before your plan's row limit)</>
          )}{' '}
          · {answer.location.label}
        </p>
        <div class="filters">
          {filterInput('minVolume', 'Volume ≥')}
          {filterInput('maxVolume', 'Volume ≤')}
          {filterInput('maxKd', 'KD ≤')}
          {filterInput('minCpc', 'CPC ≥')}
          {filterInput('maxCpc', 'CPC ≤')}
          <button type="button" onClick={() => setFilters(NO_FILTERS)}>
            Clear
          </button>
        </div>
        <VirtualTable
          label="Related keywords"
          rows={rows}
          columns={columns}
          rowKey={(k) => k._id}
          sort={sort}
          onSort={setSort}
          onRowClick={setSelected}
          selectedKey={selected?._id}
          height={520}
        />
        <div class="selection">
          <button type="button" onClick={() => setChecked(rows.map((k) => k._id))}>
            Select all shown
          </button>
          <button type="button" onClick={() => clearChecked()}>
            Select none
          </button>
          <AddToList keywordIds={[...checked]} onDone={() => clearChecked()} />
        </div>
      </div>
      <div class="right">{selected && <SerpPanel kw={selected.kw} locationId={locationId} compact />}</div>
    </div>
  );
}

interface CompetitorAnswer {
  keywords: KeywordItem[];
  totalCount: number;
}

function CompetitorKeywords({ locationId }: { locationId: number }) {
  const [domain, setDomain] = useState('');
  const [target, setTarget] = useState<string | null>(null);
  const answer = useApi(
    target ? () => data<CompetitorAnswer>(api.GET('/keyword-tool/competitor-keywords', { params: { query: { url: target, location_id: locationId } } })) : null,
    [target, locationId],
  );
  return (
    <>
      <Form
        class="search"
        onSubmit={() => {
          if (domain.trim()) setTarget(domain.trim());
        }}
      >
        <Input placeholder="Domain or URL, e.g. openpedia.org" value={domain} maxLength={500} onValue={setDomain} aria-label="Competitor domain" />
        <button type="submit">Find keywords</button>
      </Form>
      <AsyncView state={answer} what="competitor keywords" onRetry={answer.reload}>
        {(a) =>
          !a || a.keywords.length === 0 ? (
            <Empty>No keywords found for this site in this location.</Empty>
          ) : (
            <VirtualTable
              label="Competitor keywords"
              rows={a.keywords}
              rowKey={(k) => `${k._id}-${k.url ?? ''}`}
              columns={[
                { key: 'kw', label: 'Keyword', width: '2fr', render: (k) => k.kw },
                { key: 'position', label: 'Position', align: 'right', width: '80px', render: (k) => k.position ?? '–' },
                { key: 'sv', label: 'Volume', align: 'right', width: '90px', render: (k) => k.sv.toLocaleString('en') },
                { key: 'url', label: 'URL', width: '2fr', render: (k) => <span class="url">{k.url}</span> },
              ]}
            />
          )
        }
      </AsyncView>
    </>
  );
}

interface GapAnswer {
  results: { domain: string; totalCount: number; keywords: KeywordItem[] }[];
}

function GapAnalysis({ locationId }: { locationId: number }) {
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
        class="search"
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
                    columns={[
                      { key: 'kw', label: 'Keyword', width: '2fr', render: (k) => k.kw },
                      { key: 'position', label: 'Their position', align: 'right', width: '110px', render: (k) => k.position ?? '–' },
                      { key: 'sv', label: 'Volume', align: 'right', width: '90px', render: (k) => k.sv.toLocaleString('en') },
                    ]}
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
