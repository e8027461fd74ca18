/**
 * Perplexity's Sonar API (docs.perplexity.ai, "Chat Completions"): `POST {URL}/chat/completions`
 * with `Authorization: Bearer <key>`, `{ model: "sonar", messages: [{ role: "user", content:
 * <prompt> }] }`, OpenAI-compatible. The answer's `choices[0].message.content` is the text with
 * numbered marks ([1]); its sources are `search_results` (`title`, `url`, `date`) or, in older
 * answers, `citations` (URLs only). A call is settled at `usage.cost.total_cost` when the
 * answer reports it, else at the configured price.
 */
import type { ProviderHttpOptions, Verdict } from '../../engine/sources/providerHttp.js';
import { httpUrl, list, record, text } from '../../engine/sources/fetchedSerp.js';
import type { AnswerBody, Citation } from '../analysis.js';
import type { ChatProviderConfig } from '../answerConfig.js';
import type { AnswerQuestion, AnswerSource } from '../answerPurchases.js';
import type { AnswerModel } from '../models.js';
import { citationDomain, statusVerdict, postJson } from './common.js';

export function readPerplexity(status: number, body: unknown): Verdict<{ answer: AnswerBody; cost: number | null }> {
  const refused = statusVerdict(status, body);
  if (refused) return refused;
  const b = record(body);
  const content = record(record(list(b.choices)[0]).message).content;
  if (typeof content !== 'string' || content.trim() === '') return { ok: false, retry: 'failed', message: 'the answer holds no message content' };
  const citations: Citation[] = [];
  const seen = new Set<string>();
  const add = (url: string | null, title: string | null) => {
    if (url === null || seen.has(url)) return;
    seen.add(url);
    citations.push({ url, title: title ?? url, domain: citationDomain(url) });
  };
  for (const r of list(b.search_results).map(record)) add(httpUrl(r.url), text(r.title));
  for (const u of list(b.citations)) add(httpUrl(u), null);
  const cost = record(record(b.usage).cost).total_cost;
  return { ok: true, value: { answer: { text: content, citations }, cost: typeof cost === 'number' && Number.isFinite(cost) && cost >= 0 ? cost : null } };
}

export function perplexitySource(model: AnswerModel, config: ChatProviderConfig, http: ProviderHttpOptions): AnswerSource {
  return {
    model,
    estimate: () => config.cost,
    async ask(q: AnswerQuestion) {
      const body = {
        model: config.model,
        messages: [{ role: 'user', content: q.prompt }],
        web_search_options: { user_location: { country: q.countryCode.toUpperCase() } },
      };
      const { answer, cost } = await postJson(
        'perplexity',
        `${config.baseUrl}/chat/completions`,
        { authorization: `Bearer ${config.apiKey}` },
        body,
        http,
        readPerplexity,
      );
      return { answer, cost: cost ?? config.cost };
    },
  };
}
