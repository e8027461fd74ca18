/**
 * The real answer models, each behind the AnswerSource seam: one adapter per provider,
 * configured from the environment (answerConfig.ts), each call through the shared provider
 * HTTP exchange (deadline, retries with backoff, 429 retried: engine/sources/providerHttp.ts).
 */
import type { ProviderHttpOptions } from '../../engine/sources/providerHttp.js';
import type { SourcesConfig } from '../../engine/sources/sourceConfig.js';
import type { AnswerConfig } from '../answerConfig.js';
import type { AnswerSource } from '../answerPurchases.js';
import type { AnswerModel } from '../models.js';
import { geminiSource } from './gemini.js';
import { openAiSource } from './openai.js';
import { overviewSource } from './overviews.js';
import { perplexitySource } from './perplexity.js';

/** A source for each configured model. `config` names the two parts of the service's Config read here: config.ts imports answers/, so answers/ does not import it. */
export function providerSources(
  config: { sources: SourcesConfig; answers: AnswerConfig },
  models: readonly AnswerModel[],
  sleep?: (ms: number) => Promise<void>,
): AnswerSource[] {
  const http: ProviderHttpOptions = { ...config.sources.limits, sleep };
  const { answers } = config;
  const out: AnswerSource[] = [];
  for (const model of models) {
    if (model.provider === 'openai' && answers.openai) out.push(openAiSource(model, answers.openai, http));
    if (model.provider === 'perplexity' && answers.perplexity) out.push(perplexitySource(model, answers.perplexity, http));
    if (model.provider === 'gemini' && answers.gemini) out.push(geminiSource(model, answers.gemini, http));
    if (model.provider === 'google') {
      const source = overviewSource(model, config.sources, http);
      if (source) out.push(source);
    }
  }
  return out;
}
