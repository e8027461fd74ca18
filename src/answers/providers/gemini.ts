/**
 * Gemini's generateContent with Grounding with Google Search (ai.google.dev, "Grounding with
 * Google Search"): `POST {URL}/v1beta/models/{model}:generateContent` with the key in
 * `x-goog-api-key`, `{ contents: [{ parts: [{ text: <prompt> }] }], tools: [{ google_search: {}
 * }] }`. The text is `candidates[0].content.parts[].text`; the sources are
 * `groundingMetadata.groundingChunks[].web` (`uri`, `title`). Each `uri` is a redirect link
 * through Google's grounding service, never the page itself, and `title` is the source's
 * domain: a citation's domain comes from the title, and the redirect is never followed
 * (following it would be a request per citation to a third party, and the links expire).
 * Settled at the configured price (the answer reports tokens only).
 */
import type { ProviderHttpOptions, Verdict } from '../../engine/sources/providerHttp.js';
import { httpUrl, list, record, text } from '../../engine/sources/fetchedSerp.js';
import type { AnswerBody, Citation } from '../analysis.js';
import type { ChatProviderConfig } from '../answerConfig.js';
import type { AnswerQuestion, AnswerSource } from '../answerPurchases.js';
import type { AnswerModel } from '../models.js';
import { domainLike, statusVerdict, postJson } from './common.js';

export function readGemini(status: number, body: unknown): Verdict<AnswerBody> {
  const refused = statusVerdict(status, body);
  if (refused) return refused;
  const candidate = record(list(record(body).candidates)[0]);
  const parts = list(record(candidate.content).parts).map(record);
  const answer = parts
    .map((p) => (typeof p.text === 'string' ? p.text : ''))
    .join('')
    .trim();
  if (answer === '') return { ok: false, retry: 'failed', message: `no answer text (finishReason ${text(candidate.finishReason) ?? 'unknown'})` };
  const citations: Citation[] = [];
  const seen = new Set<string>();
  for (const chunk of list(record(candidate.groundingMetadata).groundingChunks).map(record)) {
    const web = record(chunk.web);
    const url = httpUrl(web.uri);
    if (url === null || seen.has(url)) continue;
    seen.add(url);
    const title = text(web.title);
    citations.push({ url, title: title ?? url, domain: domainLike(title) });
  }
  return { ok: true, value: { text: answer, citations } };
}

export function geminiSource(model: AnswerModel, config: ChatProviderConfig, http: ProviderHttpOptions): AnswerSource {
  return {
    model,
    estimate: () => config.cost,
    async ask(q: AnswerQuestion) {
      const body = { contents: [{ role: 'user', parts: [{ text: q.prompt }] }], tools: [{ google_search: {} }] };
      const answer = await postJson(
        'gemini',
        `${config.baseUrl}/v1beta/models/${encodeURIComponent(config.model)}:generateContent`,
        { 'x-goog-api-key': config.apiKey },
        body,
        http,
        readGemini,
      );
      return { answer, cost: config.cost };
    },
  };
}
