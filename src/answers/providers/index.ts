/**
 * The real answer models, each behind the AnswerSource seam: one adapter per provider,
 * configured from the environment (answerConfig.ts).
 */
import type { Config } from '../../config.js';
import type { AnswerSource } from '../answerPurchases.js';
import type { AnswerModel } from '../models.js';

export function providerSources(_config: Config, _models: readonly AnswerModel[]): AnswerSource[] {
  return [];
}
