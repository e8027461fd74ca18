/**
 * The believable-sandbox checks (realismSuite.ts) over the small world, the one a newcomer
 * meets: building it takes a minute or more the first time (then it is cached in
 * `.test-data/` per generator version), hence a slow suite.
 */
import { realismSuite } from './realismSuite.js';

realismSuite('small');
