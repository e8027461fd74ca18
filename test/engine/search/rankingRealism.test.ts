/**
 * The believable-sandbox checks (realismSuite.ts) over the tiny world; the same checks run
 * over the small world in rankingRealism.slow.test.ts.
 */
import { realismSuite } from './realismSuite.js';

realismSuite('tiny');
