/**
 * Rank tracking: the account's trackings, creating one (domain, location, platform, keywords),
 * and a tracking's keyword table (position, change, best position, ranking URL) with the
 * tracking's visibility and average-position chart (its annotations marked) and a position
 * chart per keyword; the tracking's tags, annotations and e-mail reports, each report with a
 * preview of the mail as it will be sent.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, data } from '../api';
import { useAction, useApi } from '../useApi';
import { href, linkClick, navigate, useLocation } from '../router';
import { AsyncView, Empty, ProblemBox } from '../components/States';
import { LocationPicker } from '../components/LocationPicker';
import { Chart, type ChartMark } from '../components/Chart';
import { annotationText, TrackingExtras } from '../components/TrackingExtras';
import type { Annotation, Tag, Tracking } from '../types';
import { Form, Input, Select } from '../components/Form';
import { useSelection } from '../useSelection';
import { TrackedKeywords, type KeywordDetail, type StatsKeyword } from './tracking/TrackedKeywords';

export default function TrackingPage() {
  const loc = useLocation();
  const id = loc.path.startsWith('/app/tracking/') ? decodeURIComponent(loc.path.slice('/app/tracking/'.length)) : null;
  return id ? <TrackingDetail id={id} keywordId={loc.query.get('kw')} /> : <AllTrackings />;
}

const platformName = (p: number) => (p === 2 ? 'mobile' : 'desktop');

function AllTrackings() {
  const trackings = useApi(() => data<Tracking[]>(api.GET('/rank-tool/trackings')), []);
  return (
    <div class="page trackings">
      <h1>Rank tracking</h1>
      <CreateTracking />
      <h2>Your trackings</h2>
      <AsyncView state={trackings} what="your trackings" onRetry={trackings.reload}>
        {(all) =>
          all.length === 0 ? (
            <Empty>No trackings yet: create one above.</Empty>
          ) : (
            <table class="plain">
              <thead>
                <tr>
                  <th>Domain</th>
                  <th>Location</th>
                  <th>Platform</th>
                  <th class="right">Keywords</th>
                  <th>Created</th>
                </tr>
              </thead>
              <tbody>
                {all.map((t) => (
                  <tr key={t._id}>
                    <td>
                      <a href={href(`/app/tracking/${t._id}`)} onClick={linkClick}>
                        {t.domain}
                      </a>
                    </td>
                    <td>{t.location.label}</td>
                    <td>{platformName(t.platform_id)}</td>
                    <td class="right">{t.count}</td>
                    <td>{new Date(t.created_at * 1000).toLocaleDateString('en')}</td>
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

function CreateTracking() {
  const [domain, setDomain] = useState('');
  const [locationId, setLocationId] = useState(2840);
  const [platform, setPlatform] = useState<1 | 2>(1);
  const [keywords, setKeywords] = useState('');
  const create = useAction(async () => {
    const list = keywords
      .split('\n')
      .map((k) => k.trim())
      .filter(Boolean);
    const created = await data<{ tracking: Tracking }>(
      api.POST('/rank-tool/trackings', { body: { domain: domain.trim(), location_id: locationId, platform_id: platform, keywords: list } }),
    );
    navigate(href(`/app/tracking/${created.tracking._id}`));
  });
  const { busy, problem } = create;
  return (
    <Form
      class="create-tracking"
      onSubmit={() => {
        void create.run();
      }}
    >
      <h2>New tracking</h2>
      <label>
        Domain
        <Input name="domain" required maxLength={253} placeholder="example.com" value={domain} onValue={setDomain} />
      </label>
      <label>
        Location <LocationPicker value={locationId} onChange={setLocationId} />
      </label>
      <label>
        Platform
        <Select name="platform" value={String(platform)} onValue={(v) => setPlatform(Number(v) as 1 | 2)}>
          <option value="1">Desktop</option>
          <option value="2">Mobile</option>
        </Select>
      </label>
      <label class="wide">
        Keywords, one per line
        <textarea
          name="keywords"
          required
          rows={5}
          maxLength={200_000}
          value={keywords}
          onInput={(e) => setKeywords((e.currentTarget as HTMLTextAreaElement).value)}
        />
      </label>
      <button type="submit" disabled={busy}>
        {busy ? 'Creating…' : 'Track'}
      </button>
      {problem && <ProblemBox problem={problem} />}
    </Form>
  );
}

interface Stats {
  history_dates: string[];
  stats: { timeframes: Record<string, { visibility_index: number; average_position: number | null; estimated_visits: number }> };
  keywords: StatsKeyword[];
  annotations: Annotation[];
}

const dayToSeconds = (day: string) => Date.parse(`${day}T00:00:00Z`) / 1000;

function TrackingDetail({ id, keywordId }: { id: string; keywordId: string | null }) {
  const tracking = useApi(
    async () => (await data<{ tracking: Tracking }>(api.GET('/rank-tool/trackings/{tracking_id}/detail', { params: { path: { tracking_id: id } } }))).tracking,
    [id],
  );
  const stats = useApi(
    () => data<Stats>(api.POST('/rank-tool/trackings/{tracking_id}/stats', { params: { path: { tracking_id: id } }, body: { days: 90 } })),
    [id],
  );
  // The tracking's tags: chips in the keyword table and the Tags tab below it.
  const tags = useApi(() => data<Tag[]>(api.GET('/rank-tool/trackings/{tracking_id}/tags', { params: { path: { tracking_id: id } } })), [id]);
  // Positions arrive from the first check shortly after creation: look again until every keyword has one.
  const pending = stats.status === 'ready' && stats.data.keywords.some((k) => k.position === null) && stats.data.history_dates.length <= 1;
  useEffect(() => {
    if (!pending) return;
    const timer = setTimeout(stats.reload, 3000);
    return () => clearTimeout(timer);
  }, [pending, stats]);
  return (
    <div class="page tracking-detail">
      <p>
        <a href="/app/tracking" onClick={linkClick}>
          ← All trackings
        </a>
      </p>
      <AsyncView state={tracking} what="the tracking" onRetry={tracking.reload}>
        {(t) => (
          <h1>
            {t.domain}{' '}
            <small>
              {t.location.label} · {platformName(t.platform_id)}
            </small>
          </h1>
        )}
      </AsyncView>
      <AsyncView state={stats} what="positions" onRetry={stats.reload}>
        {(s) => (
          <>
            <TrackingStats trackingId={id} stats={s} keywordId={keywordId} tags={tags.status === 'ready' ? tags.data : []} onTagged={stats.reload} />
            <TrackingExtras
              trackingId={id}
              annotations={s.annotations}
              onAnnotationsChanged={stats.reload}
              tags={tags}
              onTagsChanged={() => {
                tags.reload();
                stats.reload();
              }}
            />
          </>
        )}
      </AsyncView>
    </div>
  );
}

function TrackingStats({
  trackingId,
  stats,
  keywordId,
  tags,
  onTagged,
}: {
  trackingId: string;
  stats: Stats;
  keywordId: string | null;
  tags: Tag[];
  onTagged: () => void;
}) {
  const days = Object.keys(stats.stats.timeframes).sort();
  const { selected: checked, toggle, clear: clearChecked } = useSelection();
  const [tagId, setTagId] = useState('');
  const tagById = new Map(tags.map((t) => [t._id, t]));
  const chosen = tagId && tagById.has(tagId) ? tagId : (tags[0]?._id ?? '');
  const assign = useAction(async (how: 'assign' | 'unassign') => {
    const body = { keyword_ids: [...checked], tag_ids: [chosen] };
    if (how === 'assign') await api.POST('/rank-tool/trackings/{tracking_id}/tags/assign', { params: { path: { tracking_id: trackingId } }, body });
    else await api.POST('/rank-tool/trackings/{tracking_id}/tags/unassign', { params: { path: { tracking_id: trackingId } }, body });
    clearChecked();
    onTagged();
  });
  const marks: ChartMark[] = stats.annotations.map((a) => ({ x: dayToSeconds(a.date), label: annotationText(a) }));
  return (
    <>
      {days.length === 0 ? (
        <Empty>No position checks yet: the first check runs right after creation.</Empty>
      ) : (
        <div class="charts">
          <Chart
            title="Visibility"
            x={days.map(dayToSeconds)}
            series={[{ label: 'visibility %', values: days.map((d) => stats.stats.timeframes[d].visibility_index), color: '#2563eb' }]}
            marks={marks}
          />
          <Chart
            title="Average position"
            x={days.map(dayToSeconds)}
            series={[{ label: 'average position', values: days.map((d) => stats.stats.timeframes[d].average_position), color: '#16a34a', inverted: true }]}
          />
        </div>
      )}
      {tags.length > 0 && (
        <div class="selection" role="group" aria-label="Tag keywords">
          <Select value={chosen} onValue={setTagId} aria-label="Tag">
            {tags.map((t) => (
              <option key={t._id} value={t._id}>
                {t.name}
              </option>
            ))}
          </Select>
          <button type="button" disabled={checked.size === 0 || assign.busy} onClick={() => void assign.run('assign')}>
            Tag {checked.size} selected
          </button>
          <button type="button" disabled={checked.size === 0 || assign.busy} onClick={() => void assign.run('unassign')}>
            Untag {checked.size} selected
          </button>
          {assign.problem && <ProblemBox problem={assign.problem} />}
        </div>
      )}
      <TrackedKeywords trackingId={trackingId} keywords={stats.keywords} keywordId={keywordId} tags={tags} checked={checked} toggle={toggle} />
      {keywordId && <KeywordHistory trackingId={trackingId} keywordId={keywordId} />}
    </>
  );
}

function KeywordHistory({ trackingId, keywordId }: { trackingId: string; keywordId: string }) {
  const detail = useApi(
    () =>
      data<KeywordDetail>(
        api.GET('/rank-tool/trackings/{tracking_id}/tracked-keywords/{tracked_keyword_id}', {
          params: { path: { tracking_id: trackingId, tracked_keyword_id: keywordId }, query: {} },
        }),
      ),
    [trackingId, keywordId],
  );
  return (
    <section class="keyword-history">
      <AsyncView state={detail} what="the keyword's history" onRetry={detail.reload}>
        {(d) => {
          // Per day, the best position of any of the domain's URLs.
          const byDay = new Map<string, number>();
          for (const item of d.items)
            for (const [day, h] of Object.entries(item.rank_history)) {
              if (h.p === null) continue;
              byDay.set(day, Math.min(byDay.get(day) ?? Infinity, h.p));
            }
          const days = [...byDay.keys()].sort();
          return (
            <>
              <h2>
                “{d.kw}”: position {d.rank.last ?? '–'}, best {d.rank.best ?? '–'}, average {d.rank.avg === null ? '–' : d.rank.avg.toFixed(1)}
              </h2>
              {days.length === 0 ? (
                <Empty>Not ranking in the top 100 in the checks so far.</Empty>
              ) : (
                <Chart
                  title={`Position history of “${d.kw}”`}
                  x={days.map(dayToSeconds)}
                  series={[{ label: 'position', values: days.map((day) => byDay.get(day)!), color: '#9333ea', inverted: true }]}
                />
              )}
            </>
          );
        }}
      </AsyncView>
    </section>
  );
}
