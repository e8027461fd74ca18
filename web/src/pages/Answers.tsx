/**
 * AI answer monitoring: the account's monitors and creating one (brand, domain, location,
 * models, prompts); a monitor's visibility chart per model over time, its figures per model
 * (mentions, visibility, share of voice, position, domain citations, sentiment), the URLs the
 * answers cite most, and each prompt's answers per model with the brand's mentions highlighted.
 */
import { useState } from 'preact/hooks';
import { api, data } from '../api';
import { useAction, useApi } from '../useApi';
import { href, linkClick, navigate, useLocation } from '../router';
import { AsyncView, Empty, ProblemBox } from '../components/States';
import { LocationPicker } from '../components/LocationPicker';
import { Chart } from '../components/Chart';
import { Form, Input } from '../components/Form';
import type { components } from '@quarry/client';

type Monitor = components['schemas']['AnswerMonitorListItem'];
type Dashboard = components['schemas']['AnswerMonitorDashboard'];
type PromptDetail = components['schemas']['AnswerToolPromptDetail'];
type Model = { id: number; name: string; provider: string };

const COLORS = ['#2563eb', '#dc2626', '#16a34a', '#9333ea', '#ea580c', '#0891b2', '#4b5563'];

export default function AnswersPage() {
  const loc = useLocation();
  const id = loc.path.startsWith('/app/answers/') ? decodeURIComponent(loc.path.slice('/app/answers/'.length)) : null;
  const models = useApi(() => data<{ models: Model[] }>(api.GET('/answer-tool/models')), []);
  const list = models.status === 'ready' ? models.data.models : [];
  return id ? <MonitorDetail id={id} models={list} /> : <AllMonitors models={list} />;
}

function AllMonitors({ models }: { models: Model[] }) {
  const monitors = useApi(() => data<{ monitors: Monitor[] }>(api.GET('/answer-tool/monitors')), []);
  return (
    <div class="page answers">
      <h1>AI answers</h1>
      <CreateMonitor models={models} />
      <h2>Your monitors</h2>
      <AsyncView state={monitors} what="your monitors" onRetry={monitors.reload}>
        {({ monitors: all }) =>
          all.length === 0 ? (
            <Empty>No monitors yet: create one above.</Empty>
          ) : (
            <table class="plain" aria-label="Monitors">
              <thead>
                <tr>
                  <th>Brand</th>
                  <th>Domain</th>
                  <th class="right">Prompts</th>
                  <th>State</th>
                  <th>Last day</th>
                </tr>
              </thead>
              <tbody>
                {all.map((m) => (
                  <tr key={m._id}>
                    <td>
                      <a href={href(`/app/answers/${m._id}`)} onClick={linkClick}>
                        {m.brand}
                      </a>
                    </td>
                    <td>{m.domain}</td>
                    <td class="right">{m.prompts}</td>
                    <td>{m.monitoring_state}</td>
                    <td>{m.dates.at(-1) ?? '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </AsyncView>
    </div>
  );
}

function CreateMonitor({ models }: { models: Model[] }) {
  const [brand, setBrand] = useState('');
  const [domain, setDomain] = useState('');
  const [locationId, setLocationId] = useState(2840);
  const [chosen, setChosen] = useState<number[] | null>(null);
  const [prompts, setPrompts] = useState('');
  const selected = chosen ?? models.map((m) => m.id);
  const create = useAction(async () => {
    const list = prompts
      .split('\n')
      .map((p) => p.trim())
      .filter(Boolean);
    const created = await data<{ _id: string }>(
      api.POST('/answer-tool/monitor', {
        body: { brand: brand.trim(), domain: domain.trim(), location_id: locationId, platform_id: 1, models: selected, prompts: list },
      }),
    );
    navigate(href(`/app/answers/${created._id}`));
  });
  return (
    <Form class="create-tracking" onSubmit={() => void create.run()}>
      <h2>New monitor</h2>
      <label>
        Brand
        <Input name="brand" required maxLength={200} placeholder="Acme" value={brand} onValue={setBrand} />
      </label>
      <label>
        Domain
        <Input name="domain" required maxLength={253} placeholder="acme.com" value={domain} onValue={setDomain} />
      </label>
      <label>
        Location <LocationPicker value={locationId} onChange={setLocationId} />
      </label>
      <fieldset class="models">
        <legend>Models</legend>
        {models.map((m) => (
          <label key={m.id} class="check">
            <input
              type="checkbox"
              checked={selected.includes(m.id)}
              onChange={(e) => setChosen((e.currentTarget as HTMLInputElement).checked ? [...selected, m.id] : selected.filter((x) => x !== m.id))}
            />
            {m.name}
          </label>
        ))}
      </fieldset>
      <label class="wide">
        Prompts, one per line
        <textarea
          name="prompts"
          required
          rows={4}
          maxLength={200_000}
          value={prompts}
          onInput={(e) => setPrompts((e.currentTarget as HTMLTextAreaElement).value)}
        />
      </label>
      <button type="submit" disabled={create.busy}>
        {create.busy ? 'Creating…' : 'Monitor'}
      </button>
      {create.problem && <ProblemBox problem={create.problem} />}
    </Form>
  );
}

const dayToSec = (d: string) => Date.parse(`${d}T00:00:00Z`) / 1000;

function MonitorDetail({ id, models }: { id: string; models: Model[] }) {
  const dashboard = useApi(() => data<Dashboard>(api.GET('/answer-tool/monitor/{id}', { params: { path: { id } } })), [id]);
  const prompts = useApi(
    () => data<{ prompts: { _id: string; prompt: string }[] }>(api.GET('/answer-tool/monitor/{id}/prompts', { params: { path: { id } } })),
    [id],
  );
  const nameOf = (modelId: number) => models.find((m) => m.id === modelId)?.name ?? `Model ${modelId}`;
  return (
    <div class="page answers">
      <p>
        <a href="/app/answers" onClick={linkClick}>
          ← All monitors
        </a>
      </p>
      <AsyncView state={dashboard} what="the monitor" onRetry={dashboard.reload}>
        {(d) => {
          const urls = new Map<string, number>();
          for (const m of d.models) for (const u of m.cited_urls) urls.set(u.url, (urls.get(u.url) ?? 0) + u.count);
          const top = [...urls].sort((a, b) => b[1] - a[1]).slice(0, 10);
          return (
            <>
              <h1>
                {d.brand} <small>{d.domain}</small>
              </h1>
              {d.has_pending_changes && <p class="state">A settings change waits for the next check.</p>}
              {d.timeline.length === 0 ? (
                <Empty>
                  No answers yet: the first check runs within minutes.{' '}
                  <button type="button" onClick={dashboard.reload}>
                    Reload
                  </button>
                </Empty>
              ) : (
                <Chart
                  title="Visibility per model (% of answers mentioning the brand)"
                  x={d.timeline.map((t) => dayToSec(t.date))}
                  series={d.models.map((m, i) => ({
                    label: nameOf(m.model_id),
                    color: COLORS[i % COLORS.length],
                    values: d.timeline.map((t) => t.models.find((x) => x.model_id === m.model_id)?.visibility ?? null),
                  }))}
                />
              )}
              <table class="plain" aria-label="Figures per model">
                <thead>
                  <tr>
                    <th>Model</th>
                    <th class="right">Answers</th>
                    <th class="right">Mentions</th>
                    <th class="right">Visibility</th>
                    <th class="right">Share of voice</th>
                    <th class="right">Avg. position</th>
                    <th class="right">Domain citations</th>
                    <th>Sentiment (+ / = / −)</th>
                  </tr>
                </thead>
                <tbody>
                  {d.models.map((m) => (
                    <tr key={m.model_id} data-model={m.model_id}>
                      <td>{nameOf(m.model_id)}</td>
                      <td class="right">{m.answers}</td>
                      <td class="right">{m.mentions}</td>
                      <td class="right">{m.visibility}%</td>
                      <td class="right">{m.share_of_voice === null ? '—' : `${m.share_of_voice}%`}</td>
                      <td class="right">{m.average_position ?? '—'}</td>
                      <td class="right">{m.domain_citations}</td>
                      <td>
                        {m.sentiment.positive} / {m.sentiment.neutral} / {m.sentiment.negative}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
              <h2>Most cited URLs</h2>
              <ol class="cited" aria-label="Most cited URLs">
                {top.map(([url, count]) => (
                  <li key={url}>
                    {url} <small>({count})</small>
                  </li>
                ))}
              </ol>
            </>
          );
        }}
      </AsyncView>
      <h2>Prompts</h2>
      <AsyncView state={prompts} what="the prompts" onRetry={prompts.reload}>
        {(p) => (
          <ul class="prompts">
            {p.prompts.map((x) => (
              <PromptAnswers key={x._id} id={x._id} prompt={x.prompt} nameOf={nameOf} />
            ))}
          </ul>
        )}
      </AsyncView>
    </div>
  );
}

function PromptAnswers({ id, prompt, nameOf }: { id: string; prompt: string; nameOf: (id: number) => string }) {
  const [open, setOpen] = useState(false);
  const detail = useApi(open ? () => data<PromptDetail>(api.GET('/answer-tool/prompt/{id}', { params: { path: { id } } })) : null, [open, id]);
  return (
    <li>
      <button type="button" class="link" aria-expanded={open} onClick={() => setOpen(!open)}>
        {prompt}
      </button>
      {open && (
        <AsyncView state={detail} what="the answers">
          {(d) =>
            d.answers.length === 0 ? (
              <Empty>No answers yet.</Empty>
            ) : (
              <div class="answers-list">
                {d.answers.map((a) => (
                  <article key={`${a.model_id}-${a.date}`} class="answer" data-model={a.model_id}>
                    <h3>
                      {nameOf(a.model_id)} · {a.date} {a.status === 'failed' && <span class="state problem">failed: {a.error}</span>}
                    </h3>
                    <p class="answer-text">
                      <Highlighted text={a.text} marks={a.mentions} />
                    </p>
                    {a.citations.length > 0 && (
                      <ul class="citations">
                        {a.citations.map((c) => (
                          <li key={c.url}>
                            <a href={c.url} rel="noreferrer noopener" target="_blank">
                              {c.title}
                            </a>{' '}
                            <small>{c.domain}</small>
                          </li>
                        ))}
                      </ul>
                    )}
                  </article>
                ))}
              </div>
            )
          }
        </AsyncView>
      )}
    </li>
  );
}

/** The answer's text with the brand's mentions marked. */
function Highlighted({ text, marks }: { text: string; marks: { start: number; end: number }[] }) {
  const parts = [];
  let at = 0;
  for (const m of [...marks].sort((a, b) => a.start - b.start)) {
    if (m.start < at) continue;
    parts.push(text.slice(at, m.start));
    parts.push(<mark key={m.start}>{text.slice(m.start, m.end)}</mark>);
    at = m.end;
  }
  parts.push(text.slice(at));
  return <>{parts}</>;
}
