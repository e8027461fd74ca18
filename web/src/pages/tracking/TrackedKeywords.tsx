/**
 * A tracking's keyword table: position, change, best position and ranking URL per keyword,
 * sortable by every figure and filtered by words and by tag, with a checkbox per keyword for
 * tagging. The table is short enough (a tracking's keywords) to be a plain one.
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import { api, data } from '../../api';
import { href, linkClick } from '../../router';
import { PlainTable } from '../../components/PlainTable';
import type { Column } from '../../components/sorting';
import { Input, Select } from '../../components/Form';
import type { Tag } from '../../types';

export interface StatsKeyword {
  keyword_id: string;
  kw: string;
  sv: number;
  position: number | null;
  start_position: number | null;
  rank_change: number | null;
  url: string | null;
  tag_ids: string[];
}

export interface KeywordDetail {
  kw: string;
  rank: { last: number | null; best: number | null; avg: number | null; change: number };
  items: { url: string; rank_history: Record<string, { p: number | null }> }[];
}

interface Props {
  trackingId: string;
  keywords: StatsKeyword[];
  /** The keyword whose history is open (its row is marked). */
  keywordId: string | null;
  tags: Tag[];
  checked: ReadonlySet<string>;
  toggle: (keywordId: string) => void;
}

export function TrackedKeywords({ trackingId, keywords, keywordId, tags, checked, toggle }: Props) {
  const [words, setWords] = useState('');
  const [tagFilter, setTagFilter] = useState('');
  const best = useBestPositions(trackingId, keywords);
  const tagById = new Map(tags.map((t) => [t._id, t]));
  const shown = useMemo(() => {
    const wanted = words.trim().toLowerCase();
    return keywords.filter((k) => (!wanted || k.kw.toLowerCase().includes(wanted)) && (!tagFilter || (k.tag_ids ?? []).includes(tagFilter)));
  }, [keywords, words, tagFilter]);
  const columns: Column<StatsKeyword>[] = [
    {
      key: 'check',
      label: '',
      render: (k) => <input type="checkbox" aria-label={`Select ${k.kw}`} checked={checked.has(k.keyword_id)} onChange={() => toggle(k.keyword_id)} />,
    },
    {
      key: 'kw',
      label: 'Keyword',
      value: (k) => k.kw,
      render: (k) => (
        <>
          <a href={href(`/app/tracking/${trackingId}`, { kw: k.keyword_id })} onClick={linkClick}>
            {k.kw}
          </a>
          {(k.tag_ids ?? []).map((id) => {
            const t = tagById.get(id);
            return t ? (
              <span key={id} class="chip small tag" style={{ borderColor: t.color, color: t.color }}>
                {t.name}
              </span>
            ) : null;
          })}
        </>
      ),
    },
    { key: 'sv', label: 'Volume', align: 'right', value: (k) => k.sv, render: (k) => k.sv?.toLocaleString('en') ?? '–' },
    {
      key: 'position',
      label: 'Position',
      align: 'right',
      value: (k) => k.position,
      render: (k) => <span data-position>{k.position ?? (k.url === null ? '>100' : '–')}</span>,
    },
    {
      key: 'change',
      label: 'Change',
      align: 'right',
      value: (k) => k.rank_change,
      cellClass: (k) => ((k.rank_change ?? 0) > 0 ? 'up' : (k.rank_change ?? 0) < 0 ? 'down' : ''),
      render: (k) => (k.rank_change ? (k.rank_change > 0 ? `▲${k.rank_change}` : `▼${-k.rank_change}`) : '–'),
    },
    {
      key: 'best',
      label: 'Best',
      align: 'right',
      value: (k) => (/^\d+$/.test(best[k.keyword_id] ?? '') ? Number(best[k.keyword_id]) : null),
      render: (k) => best[k.keyword_id] ?? '…',
    },
    { key: 'url', label: 'Ranking URL', value: (k) => k.url, cellClass: () => 'url', render: (k) => k.url ?? '–' },
  ];
  return (
    <>
      <div class="filters" role="group" aria-label="Filter tracked keywords">
        <label>
          Keyword contains
          <Input class="words" value={words} maxLength={200} placeholder="words" onValue={setWords} />
        </label>
        {tags.length > 0 && (
          <label>
            Tag
            <Select value={tagFilter} onValue={setTagFilter}>
              <option value="">All tags</option>
              {tags.map((t) => (
                <option key={t._id} value={t._id}>
                  {t.name}
                </option>
              ))}
            </Select>
          </label>
        )}
        <span class="muted">
          {shown.length} of {keywords.length} keywords
        </span>
      </div>
      <PlainTable
        class="rank-table"
        label="Tracked keywords"
        rows={shown}
        columns={columns}
        rowKey={(k) => k.keyword_id}
        rowClass={(k) => (k.keyword_id === keywordId ? 'selected' : '')}
      />
    </>
  );
}

/**
 * Best positions come with each keyword's detail; they are fetched two at a time so that a
 * large tracking does not trip the per-address gateway limit.
 */
function useBestPositions(trackingId: string, keywords: StatsKeyword[]): Record<string, string> {
  const [best, setBest] = useState<Record<string, string>>({});
  useEffect(() => {
    let cancelled = false;
    const queue = keywords.slice(0, 200).map((k) => k.keyword_id);
    const worker = async () => {
      for (let next = queue.shift(); next !== undefined && !cancelled; next = queue.shift()) {
        const kwId = next;
        try {
          const d = await data<KeywordDetail>(
            api.GET('/rank-tool/trackings/{tracking_id}/tracked-keywords/{tracked_keyword_id}', {
              params: { path: { tracking_id: trackingId, tracked_keyword_id: kwId } },
            }),
          );
          if (!cancelled) setBest((b) => ({ ...b, [kwId]: d.rank.best === null ? '–' : String(d.rank.best) }));
        } catch {
          if (!cancelled) setBest((b) => ({ ...b, [kwId]: '?' }));
        }
      }
    };
    void Promise.all([worker(), worker()]);
    return () => {
      cancelled = true;
    };
  }, [trackingId, keywords.map((k) => k.keyword_id).join(',')]);
  return best;
}
