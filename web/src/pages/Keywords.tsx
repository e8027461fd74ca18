/**
 * Keyword research: related keywords of a seed in a virtualised table (the seed first; sort and
 * filter by volume, difficulty and CPC; a volume sparkline per row), the SERP of the selected
 * keyword beside it, adding keywords to lists, and competitor keywords and gap analysis.
 */
import { useState } from 'preact/hooks';
import { api, data } from '../api';
import { useApi } from '../useApi';
import { href, navigate, useLocation } from '../router';
import { AsyncView, Empty } from '../components/States';
import { LocationPicker } from '../components/LocationPicker';
import { Form, Input } from '../components/Form';
import { CompetitorKeywords, GapAnalysis } from './CompetitorKeywords';
import { KeywordImport } from './KeywordImport';
import { KeywordWorkbench, type KeywordAnswer } from '../components/KeywordWorkbench';

export default function Keywords() {
  const loc = useLocation();
  const tab = loc.query.get('tab') ?? 'related';
  const kw = loc.query.get('kw') ?? '';
  const locationId = Number(loc.query.get('loc') ?? '2840') || 0;
  const [draft, setDraft] = useState(kw);
  const [draftLoc, setDraftLoc] = useState(locationId);
  // The competitor lookup (site) stays in the URL across tab switches.
  const go = (query: Record<string, string | number>) => navigate(href('/app/keywords', { tab, kw, loc: locationId, site: loc.query.get('site'), ...query }));

  return (
    <div class="page keywords">
      <h1>Keyword research</h1>
      <nav class="tabs">
        {[
          ['related', 'Related keywords'],
          ['competitor', 'Competitor keywords'],
          ['gap', 'Gap analysis'],
          ['import', 'Import'],
        ].map(([id, label]) => (
          <button key={id} type="button" class={tab === id ? 'active' : ''} aria-pressed={tab === id} onClick={() => go({ tab: id })}>
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
      {tab === 'competitor' && <CompetitorKeywords />}
      {tab === 'gap' && <GapAnalysis locationId={locationId} />}
      {tab === 'import' && <KeywordImport locationId={locationId} />}
    </div>
  );
}

function RelatedKeywords({ kw, locationId }: { kw: string; locationId: number }) {
  const related = useApi(
    () => data<KeywordAnswer>(api.GET('/keyword-tool/related-keywords', { params: { query: { kw, location_id: locationId } } })),
    [kw, locationId],
  );
  return (
    <AsyncView state={related} what={`keywords related to “${kw}”`} onRetry={related.reload}>
      {(r) => (r.keywords.length === 0 ? <Empty>No related keywords for “{kw}”.</Empty> : <KeywordWorkbench answer={r} locationId={locationId} />)}
    </AsyncView>
  );
}
