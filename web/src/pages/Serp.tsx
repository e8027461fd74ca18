/** SERP analysis: the SERP with its features and per-result metrics, the snapshot image, and reset. */
import { useState } from 'preact/hooks';
import { api, data } from '../api';
import { useAction, useApi } from '../useApi';
import { href, navigate, useLocation } from '../router';
import { AsyncView, Empty, ProblemBox } from '../components/States';
import { SerpView, useSerp } from '../components/SerpView';
import { LocationPicker } from '../components/LocationPicker';
import type { Serp } from '../types';
import { Form, Input } from '../components/Form';

export default function SerpPage() {
  const loc = useLocation();
  const kw = loc.query.get('kw') ?? '';
  const locationId = Number(loc.query.get('loc') ?? '2840') || 0;
  const [draft, setDraft] = useState(kw);
  const [draftLoc, setDraftLoc] = useState(locationId);
  const [fresh, setFresh] = useState<Serp | null>(null);
  const [showSnapshot, setShowSnapshot] = useState(false);
  const serp = useSerp(kw, locationId);
  const shown = fresh ?? (serp.status === 'ready' ? serp.data : null);
  const reset = useAction(async () => {
    const answer = await data<Serp | Serp[]>(api.GET('/serp-tool/serps/reset', { params: { query: { kw, location_id: locationId } } }));
    setFresh(Array.isArray(answer) ? answer[0] : answer);
    setShowSnapshot(false);
  });

  return (
    <div class="page serp-page">
      <h1>SERP analysis</h1>
      <Form
        class="search"
        onSubmit={() => {
          setFresh(null);
          setShowSnapshot(false);
          if (draft.trim()) navigate(href('/app/serp', { kw: draft.trim(), loc: draftLoc }));
        }}
      >
        <Input name="kw" placeholder="Keyword" value={draft} maxLength={200} onValue={setDraft} aria-label="Keyword" />
        <LocationPicker value={draftLoc} onChange={setDraftLoc} />
        <button type="submit">Show SERP</button>
      </Form>
      {!kw && <Empty>Enter a keyword to see its SERP.</Empty>}
      {shown ? (
        <div class="serp-layout">
          <div>
            <div class="actions">
              <button type="button" disabled={!shown.serp_snapshot_id} onClick={() => setShowSnapshot(true)}>
                Snapshot
              </button>
              <button type="button" disabled={reset.busy} title="Fetch this SERP again (charged per page)" onClick={() => void reset.run()}>
                {reset.busy ? 'Resetting…' : 'Reset (fetch again)'}
              </button>
            </div>
            {reset.problem && <ProblemBox problem={reset.problem} />}
            <SerpView serp={shown} />
          </div>
          {showSnapshot && shown.serp_snapshot_id && <Snapshot id={shown.serp_snapshot_id} kw={shown.kw} />}
        </div>
      ) : (
        <AsyncView state={serp} what={`the SERP for “${kw}”`} onRetry={serp.reload}>
          {() => null}
        </AsyncView>
      )}
    </div>
  );
}

/** The PNG the API renders of the SERP as the account was shown it (sent as base64 in JSON). */
function Snapshot({ id, kw }: { id: string; kw: string }) {
  const image = useApi(() => data<{ image: string }>(api.GET('/serp-tool/serps/{serp_id}/snapshot', { params: { path: { serp_id: id } } })), [id]);
  return (
    <figure class="snapshot">
      <figcaption>Snapshot of the SERP as shown</figcaption>
      <AsyncView state={image} what="the snapshot" onRetry={image.reload}>
        {(s) => <img src={`data:image/png;base64,${s.image}`} alt={`Snapshot of the SERP for ${kw}`} />}
      </AsyncView>
    </figure>
  );
}
