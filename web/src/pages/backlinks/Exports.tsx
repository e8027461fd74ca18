/**
 * The exports tab: CSV exports of a target's backlinks, whose progress the page follows by
 * polling the export list until each job has its download link, and the form of a new one.
 */
import { useEffect, useState } from 'preact/hooks';
import type { components } from '@quarry/client';
import { api, data } from '../../api';
import { useAction, useApi } from '../../useApi';
import { AsyncView, Empty, ProblemBox } from '../../components/States';
import { Form, Input, Select } from '../../components/Form';

type Schemas = components['schemas'];
type ExportJob = Schemas['BackLinkExport'];
type Suggestions = Schemas['BackLinkExportSuggestionResponse'];
type ExportFilter = NonNullable<ExportJob['request']['filter']>;

function stageOf(job: ExportJob): string {
  if (job.error) return 'failed';
  if (job.downloadURL) return 'ready';
  if (job.state === 600) return 'done';
  if (job.state >= 200) return 'writing rows';
  return 'collecting links';
}

const finished = (job: ExportJob) => Boolean(job.error) || Boolean(job.downloadURL) || job.completedAt !== null;

export function Exports({ url }: { url: string }) {
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
