/**
 * The edge's view of the service: the context (context.ts) decorated onto the Fastify
 * instance as `app.quarry`, and what a request carries through the hooks.
 */
import type { Account } from '../accounts/accounts.js';
import type { QuarryContext } from '../context.js';
import type { ExecutionContext, PaidOperation } from '../policy/accessPolicy.js';
import type { ClientClass } from '../policy/plans.js';
import type { FairUseOf } from './fairUseDoor.js';

export type { QuarryContext } from '../context.js';

export type RouteAuth = 'required' | 'optional' | 'none';

/** The header an API key travels in; never written to a log line (requestLog.ts writes no headers). */
export const KEY_HEADER = 'x-access-token';

declare module 'fastify' {
  interface FastifyInstance {
    quarry: QuarryContext;
    /** Headers that give a request the app sends itself (`app.inject`) a client class; see app.ts. */
    internalClientHeaders(clientClass: ClientClass): Record<string, string>;
    /** Compiles every route's response serialisers now (they compile on first use; lazySerializers.ts); answers how many. */
    compileAllSerializers(): number;
    /** Compiles every route's request validators now (they compile on first use; validation.ts lazyValidators); answers how many. */
    compileAllValidators(): number;
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
     * Fair use of a free operation (http/fairUseDoor.ts): 'bulk' takes one of the account's
     * concurrent bulk slots; a function makes it a free write and says how many keyword ids it carries.
     */
    fairUse?: FairUseOf;
  }
}
