/**
 * OpenAI's Responses API with the web search tool (platform.openai.com, "Web search"):
 * `POST {URL}/v1/responses` with `Authorization: Bearer <key>`, `{ model, input, tools: [{
 * type: "web_search", user_location }] }`. The answer's `output` holds a `web_search_call`
 * and a `message` whose `output_text` parts carry the text and `url_citation` annotations
 * (`url`, `title`, `start_index`, `end_index` of the cited span, usually a markdown link).
 * The annotated spans are citation marks, not prose: their words never count as mentions.
 * The Responses API reports tokens, not dollars: a call is settled at its configured price.
 */
import type { ProviderHttpOptions, Verdict } from '../../engine/sources/providerHttp.js';
import { httpUrl, list, record, text } from '../../engine/sources/fetchedSerp.js';
import type { AnswerBody, Citation } from '../analysis.js';
import type { ChatProviderConfig } from '../answerConfig.js';
import type { AnswerQuestion, AnswerSource } from '../answerPurchases.js';
import type { AnswerModel } from '../models.js';
import { citationDomain, statusVerdict, postJson } from './common.js';

export function readOpenAi(status: number, body: unknown): Verdict<AnswerBody> {
  const refused = statusVerdict(status, body);
  if (refused) return refused;
  const b = record(body);
  if (b.status === 'failed' || b.error) return { ok: false, retry: 'failed', message: text(record(b.error).message) ?? 'the response failed' };
  let answer = '';
  const citations: Citation[] = [];
  const masked: [number, number][] = [];
  const seen = new Set<string>();
  for (const item of list(b.output).map(record)) {
    if (item.type !== 'message') continue;
    for (const part of list(item.content).map(record)) {
      if (part.type !== 'output_text' || typeof part.text !== 'string') continue;
      const offset = answer.length + (answer === '' ? 0 : 2);
      answer += (answer === '' ? '' : '\n\n') + part.text;
      for (const a of list(part.annotations).map(record)) {
        if (a.type !== 'url_citation') continue;
        const url = httpUrl(a.url);
        if (url === null) continue;
        if (typeof a.start_index === 'number' && typeof a.end_index === 'number') masked.push([offset + a.start_index, offset + a.end_index]);
        if (seen.has(url)) continue;
        seen.add(url);
        citations.push({ url, title: text(a.title) ?? url, domain: citationDomain(url) });
      }
    }
  }
  if (answer === '') return { ok: false, retry: 'failed', message: 'the response holds no output text' };
  return { ok: true, value: { text: answer, citations, masked } };
}

export function openAiSource(model: AnswerModel, config: ChatProviderConfig, http: ProviderHttpOptions): AnswerSource {
  return {
    model,
    estimate: () => config.cost,
    async ask(q: AnswerQuestion) {
      const body = {
        model: config.model,
        input: q.prompt,
        tools: [{ type: 'web_search', user_location: { type: 'approximate', country: q.countryCode.toUpperCase() } }],
      };
      const answer = await postJson('openai', `${config.baseUrl}/v1/responses`, { authorization: `Bearer ${config.apiKey}` }, body, http, readOpenAi);
      return { answer, cost: config.cost };
    },
  };
}
