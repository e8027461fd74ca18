/**
 * A keyword table to work in: filters (volume, KD, CPC, words to include or exclude, number of
 * words), sortable columns, a volume sparkline per row, ticking rows to add them to a list, and
 * the SERP of the row opened (by click, or by keyboard: Enter on a focused row) beside it.
 */
import { useMemo, useState } from 'preact/hooks';
import { VirtualTable, type Column, type Sort } from './VirtualTable';
import { Sparkline } from './Sparkline';
import { SerpPanel } from './SerpView';
import { AddToList } from './AddToList';
import { Input } from './Form';
import { useSelection } from '../useSelection';
import type { KeywordItem } from '../types';

/** A related-keywords or keyword-import answer. */
export interface KeywordAnswer {
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
  include: string;
  exclude: string;
  minWords: string;
  maxWords: string;
}

const NO_FILTERS: Filters = { minVolume: '', maxVolume: '', maxKd: '', minCpc: '', maxCpc: '', include: '', exclude: '', minWords: '', maxWords: '' };

/** The words of a filter box: split on commas and spaces, lower case. */
const wordsOf = (s: string) =>
  s
    .toLowerCase()
    .split(/[\s,]+/)
    .filter(Boolean);

const num = (s: string): number | null => (s.trim() === '' || Number.isNaN(Number(s)) ? null : Number(s));

/** The last twelve months of volume, for the sparkline. */
const lastYear = (k: KeywordItem) => (k.msv ?? []).slice(-12).map((m) => m[2]);

/** The keyword table with its filters and the SERP panel; `seeded`: the first keyword is the seed. */
export function KeywordWorkbench({
  answer,
  locationId,
  seeded = true,
  label = 'Related keywords',
}: {
  answer: KeywordAnswer;
  locationId: number;
  seeded?: boolean;
  label?: string;
}) {
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const [sort, setSort] = useState<Sort | null>(null);
  const [selected, setSelected] = useState<KeywordItem>(answer.keywords[0]);
  const { selected: checked, toggle, set: setChecked, clear: clearChecked } = useSelection();
  const seed = seeded ? answer.keywords[0] : undefined;

  const rows = useMemo(() => {
    const f = { minV: num(filters.minVolume), maxV: num(filters.maxVolume), maxKd: num(filters.maxKd), minC: num(filters.minCpc), maxC: num(filters.maxCpc) };
    const include = wordsOf(filters.include);
    const exclude = wordsOf(filters.exclude);
    const minWords = num(filters.minWords);
    const maxWords = num(filters.maxWords);
    const kept = answer.keywords.slice(seed ? 1 : 0).filter((k) => {
      const words = k.kw.toLowerCase().split(/\s+/).filter(Boolean);
      return (
        (f.minV === null || k.sv >= f.minV) &&
        (f.maxV === null || k.sv <= f.maxV) &&
        (f.maxKd === null || (k.seo ?? 0) <= f.maxKd) &&
        (f.minC === null || (k.cpc ?? 0) >= f.minC) &&
        (f.maxC === null || (k.cpc ?? 0) <= f.maxC) &&
        // Include: every word given is one of the keyword's words (or a start of one);
        // exclude: none is.
        include.every((w) => words.some((x) => x.startsWith(w))) &&
        !exclude.some((w) => words.some((x) => x.startsWith(w))) &&
        (minWords === null || words.length >= minWords) &&
        (maxWords === null || words.length <= maxWords)
      );
    });
    if (sort) {
      const value = (k: KeywordItem) => (sort.key === 'sv' ? k.sv : sort.key === 'seo' ? (k.seo ?? -1) : (k.cpc ?? -1));
      const sign = sort.dir === 'asc' ? 1 : -1;
      kept.sort((a, b) => sign * (value(a) - value(b)));
    }
    // The seed stays first whatever the sort and filters.
    return seed ? [seed, ...kept] : kept;
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
  const wordInput = (field: 'include' | 'exclude', label: string) => (
    <label>
      {label}
      <Input class="words" value={filters[field]} maxLength={200} placeholder="words" onValue={(v) => setFilters({ ...filters, [field]: v })} />
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
          {wordInput('include', 'Include')}
          {wordInput('exclude', 'Exclude')}
          {filterInput('minWords', 'Words ≥')}
          {filterInput('maxWords', 'Words ≤')}
          <button type="button" onClick={() => setFilters(NO_FILTERS)}>
            Clear
          </button>
        </div>
        <VirtualTable
          label={label}
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
