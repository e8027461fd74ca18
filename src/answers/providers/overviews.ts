/**
 * Google's AI Overviews through the SERP provider chosen for SERPs, the prompt as the query:
 *
 * - SerpApi (serpapi.com, "Google AI Overview Results API"): the Google Search request
 *   (`GET {URL}/search.json?engine=google&q=<prompt>…`) carries an `ai_overview` block inline:
 *   `text_blocks` (paragraphs, headings, lists with nested lists, tables, expandables) and
 *   `references` (`title`, `link`, `snippet`, `source`, `index`). When Google loads the
 *   overview lazily the block holds only a `page_token`; SerpApi documents one more request
 *   (`engine=google_ai_overview&page_token=…`) for it, made at once (the token lasts minutes)
 *   and paid as a second search. Errors read as for SERPs (serpApi.ts).
 * - DataForSEO (docs.dataforseo.com, "Google Organic SERP: live advanced"): the same task as
 *   for SERPs with `load_async_ai_overview`; the result's `ai_overview` item holds
 *   `ai_overview_element`s (`title`, `text`, `references`) and `references` (`source`,
 *   `domain`, `url`, `title`, `text`). Settled at the answer's `cost`.
 *
 * A page without an AI Overview is an answer too: empty, citing nothing (the brand is not in
 * it). List items count as text; reference titles do not.
 */
import { exchange, type ProviderHttpOptions, type Verdict } from '../../engine/sources/providerHttp.js';
import { httpUrl, list, record, text } from '../../engine/sources/fetchedSerp.js';
import { readSerpApi } from '../../engine/sources/serpApi.js';
import { liveSerp } from '../../engine/sources/dataForSeo.js';
import type { SourcesConfig } from '../../engine/sources/sourceConfig.js';
import type { AnswerBody, Citation } from '../analysis.js';
import type { AnswerQuestion, AnswerSource } from '../answerPurchases.js';
import type { AnswerModel } from '../models.js';
import { citationDomain, domainLike } from './common.js';

/** SerpApi's text blocks as lines of text, list items as `- item`, nested lists indented. */
function blockLines(blocks: unknown, depth = 0): string[] {
  const out: string[] = [];
  const indent = '  '.repeat(depth);
  for (const b of list(blocks).map(record)) {
    const snippet = text(b.snippet);
    if (b.type === 'list') {
      for (const item of list(b.list).map(record)) {
        const title = text(item.title);
        const s = text(item.snippet);
        const line = [title, s].filter(Boolean).join(title && s ? ': ' : '');
        if (line) out.push(`${indent}- ${line}`);
        if (item.list) out.push(...blockLines([{ type: 'list', list: item.list }], depth + 1));
        if (item.text_blocks) out.push(...blockLines(item.text_blocks, depth + 1));
      }
    } else if (b.type === 'table') {
      for (const row of list(b.table)) out.push(list(row).map(String).join(' | '));
    } else {
      if (snippet) out.push(`${indent}${snippet}`);
      if (b.text_blocks) out.push(...blockLines(b.text_blocks, depth));
      if (b.list) out.push(...blockLines([{ type: 'list', list: b.list }], depth));
    }
  }
  return out;
}

function dedupe(citations: Citation[]): Citation[] {
  const seen = new Set<string>();
  return citations.filter((c) => (seen.has(c.url) ? false : (seen.add(c.url), true)));
}

/** An `ai_overview` block of SerpApi as an answer; `pageToken` when the block must be fetched apart. */
export function serpApiOverview(overview: unknown): { answer: AnswerBody; pageToken: string | null } {
  const o = record(overview);
  const citations = dedupe(
    list(o.references)
      .map(record)
      .flatMap((r) => {
        const url = httpUrl(r.link);
        return url === null ? [] : [{ url, title: text(r.title) ?? text(r.source) ?? url, domain: citationDomain(url) }];
      }),
  );
  const lines = blockLines(o.text_blocks);
  return { answer: { text: lines.join('\n'), citations }, pageToken: lines.length === 0 ? text(o.page_token) : null };
}

export function readSerpApiOverview(status: number, body: unknown): Verdict<{ answer: AnswerBody; pageToken: string | null }> {
  const v = readSerpApi(status, body);
  if (!v.ok) return v;
  return { ok: true, value: serpApiOverview(record(body).ai_overview) };
}

/** DataForSEO's `ai_overview` item of a result as an answer (empty when the page shows none). */
export function dataForSeoOverview(result: unknown): AnswerBody {
  const item = list(record(result).items)
    .map(record)
    .find((i) => i.type === 'ai_overview');
  if (!item) return { text: '', citations: [] };
  const refs = (values: unknown): Citation[] =>
    list(values)
      .map(record)
      .flatMap((r) => {
        const url = httpUrl(r.url);
        return url === null ? [] : [{ url, title: text(r.title) ?? text(r.source) ?? url, domain: citationDomain(url) ?? domainLike(text(r.domain)) }];
      });
  const parts: string[] = [];
  const citations: Citation[] = [];
  for (const e of list(item.items).map(record)) {
    const title = text(e.title);
    const body = text(e.text);
    if (title) parts.push(title);
    if (body) parts.push(body);
    citations.push(...refs(e.references));
  }
  citations.push(...refs(item.references));
  return { text: parts.join('\n'), citations: dedupe(citations) };
}

export function overviewSource(model: AnswerModel, sources: SourcesConfig, http: ProviderHttpOptions): AnswerSource | null {
  if (sources.serp === 'serpapi' && sources.serpapi) {
    const { apiKey, baseUrl } = sources.serpapi;
    const price = sources.serpCost;
    const get = (params: URLSearchParams) =>
      exchange(
        'serpapi',
        { url: `${baseUrl}/search.json?${params.toString()}`, method: 'GET', headers: { accept: 'application/json' } },
        http,
        readSerpApiOverview,
      );
    return {
      model,
      estimate: () => 2 * price,
      async ask(q: AnswerQuestion) {
        const params = new URLSearchParams({ engine: 'google', q: q.prompt, google_domain: q.engineDomain, gl: q.countryCode, api_key: apiKey });
        if (q.languageCode) params.set('hl', q.languageCode);
        if (q.canonicalLocation) params.set('location', q.canonicalLocation);
        params.set('device', q.platformId === 2 ? 'mobile' : 'desktop');
        const first = await get(params);
        if (first.pageToken === null) return { answer: first.answer, cost: price };
        const more = await get(new URLSearchParams({ engine: 'google_ai_overview', page_token: first.pageToken, api_key: apiKey }));
        return { answer: more.answer, cost: 2 * price };
      },
    };
  }
  if (sources.serp === 'dataforseo' && sources.dataforseo) {
    const options = sources.dataforseo;
    return {
      model,
      estimate: () => sources.serpCost,
      async ask(q: AnswerQuestion) {
        const query = { keyword: q.prompt, locationId: q.locationId, platform: q.platformId, languageCode: q.languageCode };
        const answer = await liveSerp(options, http, query, { load_async_ai_overview: true });
        return { answer: dataForSeoOverview(answer.result[0]), cost: answer.cost };
      },
    };
  }
  return null;
}
