/**
 * What every route can reach: decorated onto the Fastify instance once (`app.quarry`),
 * never imported as globals, so tests build an app around their own stores and clock.
 */
import type { Account, Accounts } from '../accounts/accounts.js';
import type { Config } from '../config.js';
import type { Clock } from '../lib/clock.js';
import type { LocationRegistry } from '../locations/registry.js';
import type { AccessPolicy, ExecutionContext, PaidOperation } from '../policy/accessPolicy.js';
import type { ClientClass, Plan } from '../policy/plans.js';
import type { StateStore } from '../store/database.js';
import type { Engine } from '../engine/index.js';
import type { SearchEngine } from '../engine/search/index.js';
import type { EngineSources } from '../engine/sources/index.js';
import type { JobQueue } from '../jobs/jobQueue.js';
import type { UrlSigner } from '../lib/signedUrl.js';
import type { FairUse } from '../policy/fairUse.js';

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
  /** The durable job queue (backlink exports). */
  jobs: JobQueue;
  /** Signs download URLs that work without an API key. */
  signer: UrlSigner;
  /** Per-account limits of free operations (free-write budget, concurrent bulk reads). */
  fairUse: FairUse;
}

export type RouteAuth = 'required' | 'optional' | 'none';

declare module 'fastify' {
  interface FastifyInstance {
    quarry: QuarryContext;
    /** Headers that give a request the app sends itself (`app.inject`) a client class; see app.ts. */
    internalClientHeaders(clientClass: ClientClass): Record<string, string>;
  }
  interface FastifyRequest {
    /** The authenticated account; null where authentication is optional and absent. */
    account: Account | null;
    clientClass: ClientClass;
    /** Set for paid operations while their handler runs. */
    paid: ExecutionContext | null;
  }
  interface FastifyContextConfig {
    /** Default 'required' under /v3. */
    auth?: RouteAuth;
    /** Declares a paid operation: the access policy wraps its handler. */
    paid?: PaidOperation;
    /**
     * Fair use of a free operation: 'bulk' takes one of the account's concurrent bulk-read
     * slots; a function makes it a free write and says how many keyword ids it carries.
     */
    fairUse?: 'bulk' | ((req: FastifyRequest) => number);
  }
}
