/**
 * The AI models a monitor can ask (GET /answer-tool/models): the sandbox models, always on,
 * and each real model whose provider is configured. Ids are fixed per slot, so a monitor's
 * model ids keep their meaning when a deployment changes a provider's model name.
 */
import type { AnswerConfig } from './answerConfig.js';

export type AnswerProvider = 'sandbox' | 'openai' | 'perplexity' | 'gemini' | 'google';

export interface AnswerModel {
  id: number;
  /** The provider's model name (the sandbox's own for sandbox models). */
  model: string;
  name: string;
  provider: AnswerProvider;
  active: boolean;
  deprecated: boolean;
  supportsCitations: boolean;
  /** A search engine's AI answer (Google's AI Overviews) rather than an assistant's. */
  isSerp: boolean;
}

/**
 * The three sandbox models read the sandbox web's ranking pages for the prompt the way three
 * kinds of AI answer do: an assistant summarising a few top pages, an answer engine citing
 * more of them by number, and a short overview of the first results.
 */
export const SANDBOX_MODELS: readonly AnswerModel[] = [
  {
    id: 1,
    model: 'sandbox-assistant',
    name: 'Sandbox Assistant',
    provider: 'sandbox',
    active: true,
    deprecated: false,
    supportsCitations: true,
    isSerp: false,
  },
  {
    id: 2,
    model: 'sandbox-answers',
    name: 'Sandbox Answer Engine',
    provider: 'sandbox',
    active: true,
    deprecated: false,
    supportsCitations: true,
    isSerp: false,
  },
  { id: 3, model: 'sandbox-overview', name: 'Sandbox Overview', provider: 'sandbox', active: true, deprecated: false, supportsCitations: true, isSerp: false },
];

export const MODEL_IDS = { openai: 10, perplexity: 20, gemini: 30, google: 40 } as const;

/** Every model this deployment can ask. */
export function configuredModels(config: AnswerConfig): AnswerModel[] {
  const out = [...SANDBOX_MODELS];
  const real = (id: number, provider: AnswerProvider, model: string, name: string, isSerp = false): AnswerModel => ({
    id,
    model,
    name,
    provider,
    active: true,
    deprecated: false,
    supportsCitations: true,
    isSerp,
  });
  if (config.openai) out.push(real(MODEL_IDS.openai, 'openai', config.openai.model, `ChatGPT (${config.openai.model}, web search)`));
  if (config.perplexity) out.push(real(MODEL_IDS.perplexity, 'perplexity', config.perplexity.model, 'Perplexity Sonar'));
  if (config.gemini) out.push(real(MODEL_IDS.gemini, 'gemini', config.gemini.model, `Gemini (${config.gemini.model}, Google Search grounding)`));
  if (config.overviews) out.push(real(MODEL_IDS.google, 'google', `ai-overview:${config.overviews.provider}`, 'Google AI Overviews', true));
  return out;
}
