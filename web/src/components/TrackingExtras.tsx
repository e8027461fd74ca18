/**
 * A tracking's tags, annotations and e-mail reports (create, list, delete), and the preview
 * of a report's next e-mail: the server renders it with the code that sends it
 * (GET /app/api/trackings/:id/reports/:id/preview), and the page shows that HTML in a
 * sandboxed frame (no script, no same-origin access), as a mail client would.
 */
import { useState } from 'preact/hooks';
import { api, dashboardGet, data } from '../api';
import { useAction, useApi, type Async } from '../useApi';
import { AsyncView, Empty } from './States';
import { ActionProblem, DeleteButton, Form, Input, Select } from './Form';
import type { Annotation, Report, ReportPreview, Tag } from '../types';

/** What an annotation says: its note, or the keywords added or removed that it records. */
export function annotationText(a: Annotation): string {
  if (a.content.text) return a.content.text;
  const k = a.content.keywords_count;
  return k > 0 ? `${k} keyword${k === 1 ? '' : 's'} added` : k < 0 ? `${-k} keyword${k === -1 ? '' : 's'} removed` : 'Change';
}

const TABS = [
  ['tags', 'Tags'],
  ['annotations', 'Annotations'],
  ['reports', 'Reports'],
] as const;

export function TrackingExtras({
  trackingId,
  annotations,
  onAnnotationsChanged,
  tags,
  onTagsChanged,
}: {
  trackingId: string;
  annotations: Annotation[];
  onAnnotationsChanged: () => void;
  /** The tracking's tags, read by the page (the keyword table shows them too). */
  tags: Async<Tag[]> & { reload: () => void };
  onTagsChanged: () => void;
}) {
  const [tab, setTab] = useState<(typeof TABS)[number][0]>('tags');
  return (
    <section class="tracking-extras">
      <nav class="tabs">
        {TABS.map(([id, label]) => (
          <button key={id} type="button" class={tab === id ? 'active' : ''} onClick={() => setTab(id)}>
            {label}
          </button>
        ))}
      </nav>
      {tab === 'tags' && <Tags trackingId={trackingId} tags={tags} onChanged={onTagsChanged} />}
      {tab === 'annotations' && <Annotations trackingId={trackingId} annotations={annotations} onChanged={onAnnotationsChanged} />}
      {tab === 'reports' && <Reports trackingId={trackingId} />}
    </section>
  );
}

function Tags({ trackingId, tags, onChanged }: { trackingId: string; tags: Async<Tag[]> & { reload: () => void }; onChanged: () => void }) {
  const [name, setName] = useState('');
  const [color, setColor] = useState('#2563eb');
  const create = useAction(async () => {
    await api.POST('/rank-tool/trackings/{tracking_id}/tags', { params: { path: { tracking_id: trackingId } }, body: { name: name.trim(), color } });
    setName('');
    onChanged();
  });
  const remove = useAction(async (tag: Tag) => {
    await api.DELETE('/rank-tool/trackings/{tracking_id}/tags/{tag_id}', { params: { path: { tracking_id: trackingId, tag_id: tag._id } } });
    onChanged();
  });
  return (
    <div class="tags">
      <Form
        onSubmit={() => {
          if (name.trim()) void create.run();
        }}
      >
        <Input placeholder="Tag name" value={name} maxLength={100} onValue={setName} aria-label="Tag name" />
        <Input type="color" value={color} onValue={setColor} aria-label="Tag colour" />
        <button type="submit" disabled={create.busy}>
          Add tag
        </button>
      </Form>
      <ActionProblem actions={[create, remove]} />
      <AsyncView state={tags} what="tags" onRetry={tags.reload}>
        {(all) =>
          all.length === 0 ? (
            <Empty>No tags yet: name one above, then select keywords in the table and tag them.</Empty>
          ) : (
            <ul class="tag-list" aria-label="Tags">
              {all.map((t) => (
                <li key={t._id}>
                  <span class="chip" style={{ borderColor: t.color, color: t.color }}>
                    {t.name}
                  </span>
                  <DeleteButton label={`Delete tag ${t.name}`} busy={remove.busy} onDelete={() => void remove.run(t)}>
                    ✕
                  </DeleteButton>
                </li>
              ))}
            </ul>
          )
        }
      </AsyncView>
    </div>
  );
}

const today = () => new Date().toISOString().slice(0, 10);

function Annotations({ trackingId, annotations, onChanged }: { trackingId: string; annotations: Annotation[]; onChanged: () => void }) {
  const [date, setDate] = useState(today());
  const [text, setText] = useState('');
  const create = useAction(async () => {
    await api.POST('/rank-tool/trackings/{tracking_id}/annotations', { params: { path: { tracking_id: trackingId } }, body: { date, text: text.trim() } });
    setText('');
    onChanged();
  });
  const remove = useAction(async (a: Annotation) => {
    await api.DELETE('/rank-tool/trackings/{tracking_id}/annotations/{annotation_id}', {
      params: { path: { tracking_id: trackingId, annotation_id: a._id } },
    });
    onChanged();
  });
  const sorted = [...annotations].sort((a, b) => b.date.localeCompare(a.date));
  return (
    <div class="annotations">
      <Form
        onSubmit={() => {
          if (text.trim()) void create.run();
        }}
      >
        <Input type="date" value={date} onValue={setDate} aria-label="Annotation date" required />
        <Input placeholder="What happened, e.g. new title tags" value={text} maxLength={2000} onValue={setText} aria-label="Annotation text" />
        <button type="submit" disabled={create.busy}>
          Add annotation
        </button>
      </Form>
      <ActionProblem actions={[create, remove]} />
      {sorted.length === 0 ? (
        <Empty>No annotations in the last 90 days. They are drawn on the visibility chart.</Empty>
      ) : (
        <table class="plain" aria-label="Annotations">
          <thead>
            <tr>
              <th>Date</th>
              <th>Note</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {sorted.map((a) => (
              <tr key={a._id}>
                <td>{a.date}</td>
                <td>{annotationText(a)}</td>
                <td>
                  <DeleteButton label={`Delete annotation ${annotationText(a)}`} busy={remove.busy} onDelete={() => void remove.run(a)} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

const REPORT_TYPE = { 0: 'Rank-change alert', 1: 'Weekly', 2: 'Monthly' } as const;

function Reports({ trackingId }: { trackingId: string }) {
  const reports = useApi(
    () => data<Report[]>(api.GET('/rank-tool/trackings/{tracking_id}/reports', { params: { path: { tracking_id: trackingId } } })),
    [trackingId],
  );
  const [previewOf, setPreviewOf] = useState<string | null>(null);
  const [type, setType] = useState<0 | 1 | 2>(1);
  const [emails, setEmails] = useState('');
  const [name, setName] = useState('');
  const [minChange, setMinChange] = useState('5');
  const create = useAction(async () => {
    const list = emails
      .split(/[\s,;]+/)
      .map((e) => e.trim())
      .filter(Boolean);
    await api.POST('/rank-tool/trackings/{tracking_id}/reports', {
      params: { path: { tracking_id: trackingId } },
      body: { type, emails: list, ...(name.trim() ? { name: name.trim() } : {}), ...(type === 0 ? { min_change: Number(minChange) || 5 } : {}) },
    });
    setEmails('');
    setName('');
    reports.reload();
  });
  const remove = useAction(async (r: Report) => {
    await api.DELETE('/rank-tool/trackings/{tracking_id}/reports/{report_id}', { params: { path: { tracking_id: trackingId, report_id: r._id } } });
    if (previewOf === r._id) setPreviewOf(null);
    reports.reload();
  });
  return (
    <div class="reports">
      <Form onSubmit={() => void create.run()}>
        <Select value={String(type)} onValue={(v) => setType(Number(v) as 0 | 1 | 2)} aria-label="Report type">
          <option value="1">Weekly</option>
          <option value="2">Monthly</option>
          <option value="0">Rank-change alert</option>
        </Select>
        <Input placeholder="Recipients, comma separated" value={emails} maxLength={5000} required onValue={setEmails} aria-label="Recipients" />
        <Input placeholder="Name (optional)" value={name} maxLength={200} onValue={setName} aria-label="Report name" />
        {type === 0 && (
          <label>
            moved ≥
            <Input type="number" min="1" max="100" value={minChange} onValue={setMinChange} aria-label="Minimum change" />
            places
          </label>
        )}
        <button type="submit" disabled={create.busy}>
          Add report
        </button>
      </Form>
      <ActionProblem actions={[create, remove]} />
      <AsyncView state={reports} what="reports" onRetry={reports.reload}>
        {(all) =>
          all.length === 0 ? (
            <Empty>No e-mail reports for this tracking.</Empty>
          ) : (
            <table class="plain" aria-label="Reports">
              <thead>
                <tr>
                  <th>Report</th>
                  <th>Type</th>
                  <th>Recipients</th>
                  <th />
                </tr>
              </thead>
              <tbody>
                {all.map((r) => (
                  <tr key={r._id} class={previewOf === r._id ? 'selected' : ''}>
                    <td>{r.name || REPORT_TYPE[r.type]}</td>
                    <td>
                      {REPORT_TYPE[r.type]}
                      {r.type === 0 ? ` (≥ ${r.min_change ?? 5} places)` : ''}
                    </td>
                    <td>{r.emails.join(', ')}</td>
                    <td class="actions">
                      <button
                        type="button"
                        onClick={() => setPreviewOf(previewOf === r._id ? null : r._id)}
                        aria-label={`Preview ${r.name || REPORT_TYPE[r.type]}`}
                      >
                        {previewOf === r._id ? 'Hide preview' : 'Preview'}
                      </button>
                      <DeleteButton label={`Delete ${r.name || REPORT_TYPE[r.type]}`} busy={remove.busy} onDelete={() => void remove.run(r)} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </AsyncView>
      {previewOf && <MailPreview trackingId={trackingId} reportId={previewOf} />}
    </div>
  );
}

function MailPreview({ trackingId, reportId }: { trackingId: string; reportId: string }) {
  const preview = useApi(
    () => dashboardGet<ReportPreview>(`/app/api/trackings/${encodeURIComponent(trackingId)}/reports/${encodeURIComponent(reportId)}/preview`),
    [trackingId, reportId],
  );
  return (
    <section class="mail-preview" aria-label="E-mail preview">
      <AsyncView state={preview} what="the e-mail preview" onRetry={preview.reload}>
        {(p) => (
          <>
            <dl class="mail-head">
              <dt>To</dt>
              <dd>{p.to.join(', ')}</dd>
              <dt>Subject</dt>
              <dd data-subject>{p.subject}</dd>
              <dt>Period</dt>
              <dd>
                {p.period.start === p.period.end
                  ? `${p.period.start} (today's checks against yesterday's)`
                  : `${p.period.start} – ${p.period.end} (positions so far; sent when the period ends)`}
              </dd>
            </dl>
            {!p.would_send && <p class="state empty">No keyword moved enough today: no alert would be sent. This is how it would look.</p>}
            <iframe class="mail-body" title="E-mail as it will be sent" sandbox="" srcDoc={p.html} />
            <details>
              <summary>Plain-text part</summary>
              <pre>{p.text}</pre>
            </details>
          </>
        )}
      </AsyncView>
    </section>
  );
}
