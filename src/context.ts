/**
 * What the service is made of: the stores, the policy, the engine, the queue. The HTTP edge
 * decorates it onto the Fastify instance once (`app.quarry`, see http/context.ts); the CLI,
 * the worker and the scheduler use it without HTTP. Never imported as globals, so tests build
 * a service around their own stores and clock.
 */
import type { Accounts } from './accounts/accounts.js';
import type { Config } from './config.js';
import type { Clock } from './lib/clock.js';
import type { LocationRegistry } from './locations/registry.js';
import type { AccessPolicy } from './policy/accessPolicy.js';
import type { Plan } from './policy/plans.js';
import type { StateStore } from './store/database.js';
import type { Engine } from './engine/index.js';
import type { SearchEngine } from './engine/search/index.js';
import type { EngineSources } from './engine/sources/index.js';
import type { ResearchReloads } from './engine/live/researchReloads.js';
import type { ResearchSet } from './engine/live/researchSet.js';
import type { JobQueue } from './jobs/jobQueue.js';
import type { UrlSigner } from './lib/signedUrl.js';
import type { FairUse } from './policy/fairUse.js';
import type { RedisHandle } from './lib/redis.js';
import type { WebSessions } from './sessions/webSessions.js';
import type { ProcessMetrics } from './metrics/processMetrics.js';

export interface QuarryContext {
  config: Config;
  clock: Clock;
  state: StateStore;
  accounts: Accounts;
  policy: AccessPolicy;
  plans: Record<string, Plan>;
  locations: LocationRegistry;
  /** The research engine: link index, authority, site history over the research store. */
  engine: Engine;
  /** The research engine's search half: keywords, SERPs, rank index. */
  search: SearchEngine;
  /** Where SERPs, keyword data and links come from: the sandbox or a configured provider per capability. */
  sources: EngineSources;
  /**
   * The live research data behind `engine`, `search` and `sources` (views of the set the
   * running request began on) and what reloads it when an import announces a new generation.
   */
  research: ResearchReloads<ResearchSet>;
  /** The durable job queue (backlink exports). */
  jobs: JobQueue;
  /** Signs download URLs that work without an API key. */
  signer: UrlSigner;
  /** Per-account limits of free operations (free-write budget, concurrent bulk reads). */
  fairUse: FairUse;
  /** The scale mode's Redis (QUARRY_REDIS_URL), shared by every API process; null when embedded. */
  redis: RedisHandle | null;
  /** Sessions of the web dashboard (/app). */
  sessions: WebSessions;
  /** This process's Prometheus metrics (every role counts into them). */
  metrics: ProcessMetrics;
}
