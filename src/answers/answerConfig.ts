/**
 * Which AI models answer the answer tool's prompts, from the environment (README, "AI answer
 * monitoring"): the sandbox models always; OpenAI, Perplexity and Gemini each once its key is
 * set; Google's AI Overviews through the SERP provider chosen for SERPs (SerpApi or
 * DataForSEO). One daily budget covers every model's spend.
 */
import { baseUrl, number, str, type Env, type SourcesConfig } from '../engine/sources/sourceConfig.js';

export interface ChatProviderConfig {
  apiKey: string;
  baseUrl: string;
  /** The provider's model name sent with each request. */
  model: string;
  /** Dollars reserved per answer before the call (settled at the reported cost when the provider reports one). */
  cost: number;
}

export interface AnswerConfig {
  openai: ChatProviderConfig | null;
  perplexity: ChatProviderConfig | null;
  gemini: ChatProviderConfig | null;
  /** AI Overviews: the SERP provider that reads them, or null (sandbox SERPs). */
  overviews: { provider: 'serpapi' | 'dataforseo'; cost: number } | null;
  /** Most the answer models may be paid per UTC day, all together (US dollars). */
  dailyBudget: number;
}

function chat(env: Env, name: string, defaults: { url: string; model: string; cost: number }, fixedModel?: string): ChatProviderConfig | null {
  const apiKey = str(env, `QUARRY_${name}_API_KEY`);
  if (apiKey === null) return null;
  return {
    apiKey,
    baseUrl: baseUrl(env, `QUARRY_${name}_URL`, defaults.url),
    model: fixedModel ?? str(env, `QUARRY_${name}_MODEL`) ?? defaults.model,
    cost: number(env, `QUARRY_${name}_COST_USD`, defaults.cost, 0, 100),
  };
}

export function loadAnswerConfig(env: Env, sources: SourcesConfig): AnswerConfig {
  return {
    // List prices per answer with web search: the tool call plus a short answer's tokens.
    openai: chat(env, 'OPENAI', { url: 'https://api.openai.com', model: 'gpt-4.1-mini', cost: 0.03 }),
    perplexity: chat(env, 'PERPLEXITY', { url: 'https://api.perplexity.ai', model: 'sonar', cost: 0.01 }, 'sonar'),
    gemini: chat(env, 'GEMINI', { url: 'https://generativelanguage.googleapis.com', model: 'gemini-2.5-flash', cost: 0.04 }),
    overviews: sources.serp === 'sandbox' ? null : { provider: sources.serp, cost: sources.serpCost },
    dailyBudget: number(env, 'QUARRY_ANSWER_DAILY_BUDGET_USD', 5, 0, 1_000_000),
  };
}
