/**
 * A monitor's figures over a timeframe, per model and per day, from its stored results (each
 * carries what was found in its answer when it was checked, answers/analysis.ts):
 *
 * - visibility: the share of answers that mention the brand (0–100);
 * - share of voice: answers mentioning the brand against the mentions of every brand named
 *   (each brand counted once per answer), 0–100, null when no brand is named at all;
 * - average position: the mean place of the brand's first mention among the brands named;
 * - domain citations: distinct cited URLs on the domain, summed over the answers;
 * - cited URLs ranked by the answers citing them; competitors by the answers naming them.
 */
import type { ResultRow } from '../store/answerMonitors.js';
import type { Analysis } from './analysis.js';

export interface Figures {
  model_id: number;
  prompts: number;
  answers: number;
  failed: number;
  mentions: number;
  mention_count: number;
  domain_citations: number;
  citing_answers: number;
  visibility: number;
  share_of_voice: number | null;
  average_position: number | null;
  sentiment: { positive: number; neutral: number; negative: number };
  cited_urls: { url: string; count: number }[];
}

class Tally {
  prompts = new Set<string>();
  answers = 0;
  failed = 0;
  mentions = 0;
  mentionCount = 0;
  domainCitations = 0;
  citing = 0;
  positions: number[] = [];
  otherBrandAnswers = 0;
  sentiment = { positive: 0, neutral: 0, negative: 0 };
  urls = new Map<string, number>();
  competitors = new Map<string, { name: string; domain: string; mentions: number }>();

  add(r: ResultRow, a: Analysis | null): void {
    this.prompts.add(r.prompt_id);
    if (r.status !== 'ok' || !a) {
      this.failed++;
      return;
    }
    this.answers++;
    if (a.mentions.length > 0) {
      this.mentions++;
      this.mentionCount += a.mentions.length;
      if (a.position !== null) this.positions.push(a.position);
      if (a.sentiment) this.sentiment[a.sentiment]++;
    }
    if (a.domainUrls.length > 0) this.citing++;
    this.domainCitations += a.domainUrls.length;
    this.otherBrandAnswers += a.brands.length;
    for (const u of a.citedUrls) this.urls.set(u, (this.urls.get(u) ?? 0) + 1);
    for (const b of a.brands) {
      const c = this.competitors.get(b.domain) ?? { name: b.name, domain: b.domain, mentions: 0 };
      c.mentions++;
      this.competitors.set(b.domain, c);
    }
  }

  figures(modelId: number, topUrls: number): Figures {
    const named = this.mentions + this.otherBrandAnswers;
    return {
      model_id: modelId,
      prompts: this.prompts.size,
      answers: this.answers,
      failed: this.failed,
      mentions: this.mentions,
      mention_count: this.mentionCount,
      domain_citations: this.domainCitations,
      citing_answers: this.citing,
      visibility: this.answers === 0 ? 0 : round1((100 * this.mentions) / this.answers),
      share_of_voice: named === 0 ? null : round1((100 * this.mentions) / named),
      average_position: this.positions.length === 0 ? null : Math.round((100 * this.positions.reduce((s, p) => s + p, 0)) / this.positions.length) / 100,
      sentiment: { ...this.sentiment },
      cited_urls: [...this.urls]
        .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
        .slice(0, topUrls)
        .map(([url, count]) => ({ url, count })),
    };
  }

  topCompetitors(n: number) {
    return [...this.competitors.values()].sort((a, b) => b.mentions - a.mentions || (a.name < b.name ? -1 : 1)).slice(0, n);
  }
}

const round1 = (v: number) => Math.round(v * 10) / 10;

export function parseAnalysis(text: string | null): Analysis | null {
  if (text === null) return null;
  try {
    return JSON.parse(text) as Analysis;
  } catch {
    return null;
  }
}

/** Per-model figures over the rows, and a timeline of the same figures per day; models in `modelIds` order. */
export function monitorFigures(rows: readonly ResultRow[], modelIds: readonly number[]) {
  const byModel = new Map<number, Tally>(modelIds.map((id) => [id, new Tally()]));
  const byDay = new Map<string, Map<number, Tally>>();
  for (const r of rows) {
    const a = parseAnalysis(r.analysis);
    let model = byModel.get(r.model_id);
    if (!model) byModel.set(r.model_id, (model = new Tally()));
    model.add(r, a);
    let day = byDay.get(r.day);
    if (!day) byDay.set(r.day, (day = new Map()));
    let t = day.get(r.model_id);
    if (!t) day.set(r.model_id, (t = new Tally()));
    t.add(r, a);
  }
  return {
    models: [...byModel].map(([id, t]) => ({ ...t.figures(id, 20), competitors: t.topCompetitors(10) })),
    timeline: [...byDay]
      .sort((a, b) => (a[0] < b[0] ? -1 : 1))
      .map(([date, models]) => ({ date, models: [...models].sort((a, b) => a[0] - b[0]).map(([id, t]) => t.figures(id, 5)) })),
  };
}
