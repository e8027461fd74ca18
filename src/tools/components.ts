/**
 * Every shared schema component of the API, from each family's schemas.ts. buildApp
 * registers them with Fastify and the validators; the OpenAPI document lists them under
 * `components.schemas`.
 */
import { commonComponents, type ComponentList } from './common/schemas.js';
import { metricsComponents } from './common/metrics.js';
import { keywordComponents } from './keyword/schemas.js';
import { linkComponents } from './link/schemas.js';
import { rankComponents } from './rank/schemas.js';
import { serpComponents } from './serp/schemas.js';
import { siteComponents } from './site/schemas.js';
import { answerComponents } from './answer/schemas.js';

export const apiComponents: ComponentList = [
  ...commonComponents,
  ...metricsComponents,
  ...serpComponents,
  ...linkComponents,
  ...siteComponents,
  ...rankComponents,
  ...keywordComponents,
  ...answerComponents,
];
