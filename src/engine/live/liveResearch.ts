/**
 * The research data a process serves from, replaceable while it serves: an import announces
 * a new generation, the process opens it beside the one in use (a second engine, search
 * index and sources), swaps it in, and closes the old one when the last request that began
 * on it has answered.
 *
 * Route files take `engine`, `search` and `sources` from the context when the app is built,
 * and a request reads them several times while it runs. So the context holds *views*: objects
 * that answer each property from the set pinned to the running request (an AsyncLocalStorage
 * store the HTTP edge sets per request, see `pin`), or the current set outside a request.
 * A request that began before a swap keeps answering from the old set to its end; none mixes
 * two generations.
 *
 * @example
 * const live = new LiveResearch(await openSet(file));
 * const engine = live.view((set) => set.engine);     // what ctx.engine is
 * const lease = live.lease();                        // a request begins
 * live.within(lease, () => handle());                // everything it runs reads lease.set
 * live.swap(await openSet(file));                    // new requests see the new set
 * lease.release();                                   // the old set closes now
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** One loaded generation of the research data. */
export interface LoadedSet {
  /** The research store file it was opened from. */
  file: string;
  /** The file's inode when opened (a rebuilt world is a new file under the same name). */
  ino: number;
  /** The store's data generation when opened (generation.ts). */
  generation: number;
  close(): Promise<void>;
}

/** A set in use by a request or a job; release it when done (more than once is harmless). */
export interface Lease<S> {
  readonly set: S;
  release(): void;
}

interface Held<S> {
  set: S;
  users: number;
  retired: boolean;
  closing?: Promise<void>;
}

export class LiveResearch<S extends LoadedSet> {
  private held: Held<S>;
  private readonly retired = new Set<Held<S>>();
  private readonly pinned = new AsyncLocalStorage<Held<S>>();

  constructor(initial: S) {
    this.held = { set: initial, users: 0, retired: false };
  }

  /** The set of the running request or job, else the current one. */
  get set(): S {
    return (this.pinned.getStore() ?? this.held).set;
  }

  /** The newest set, whatever the running request uses. */
  get current(): S {
    return this.held.set;
  }

  /** Sets replaced but still answering requests that began on them. */
  get draining(): number {
    return this.retired.size;
  }

  /** Takes the current set for a request or a job: it stays open until released. */
  lease(): Lease<S> {
    const held = this.held;
    held.users++;
    let released = false;
    return {
      set: held.set,
      release: () => {
        if (released) return;
        released = true;
        held.users--;
        if (held.retired && held.users === 0) void this.closeHeld(held);
      },
    };
  }

  /** Runs `fn` (and every continuation it starts) on the lease's set. */
  within<T>(lease: Lease<S>, fn: () => T): T {
    const held = lease.set === this.held.set ? this.held : [...this.retired].find((h) => h.set === lease.set);
    if (!held) return fn();
    return this.pinned.run(held, fn);
  }

  /** Runs an async piece of work (a job) on the current set from start to end. */
  async use<T>(fn: () => Promise<T>): Promise<T> {
    const lease = this.lease();
    try {
      return await this.within(lease, fn);
    } finally {
      lease.release();
    }
  }

  /** Puts `next` in place for new requests; the old set closes once no request uses it. */
  swap(next: S): void {
    const old = this.held;
    this.held = { set: next, users: 0, retired: false };
    old.retired = true;
    this.retired.add(old);
    if (old.users === 0) void this.closeHeld(old);
  }

  /** Resolves when every replaced set has closed. */
  async drained(): Promise<void> {
    await Promise.all([...this.retired].map((h) => h.closing ?? Promise.resolve()));
  }

  /** Closes the current set and any replaced one (the process is stopping). */
  async close(): Promise<void> {
    for (const held of this.retired) void this.closeHeld(held);
    await this.drained();
    await this.held.set.close();
  }

  private closeHeld(held: Held<S>): Promise<void> {
    held.closing ??= held.set.close().finally(() => this.retired.delete(held));
    return held.closing;
  }

  /**
   * An object that stands for a part of the set (`set.engine`) and answers every property
   * from the set of the running request. Methods are bound to the part they belong to.
   */
  view<T extends object>(part: (set: S) => T): T {
    return follow(() => part(this.set));
  }
}

/**
 * An object whose every property is read from `resolve()` at the time of the read: what a
 * service built once (the rank checks' SERP source) holds to follow the live set.
 */
export function follow<T extends object>(resolve: () => T): T {
  type Method = (...args: unknown[]) => unknown;
  const bound = new WeakMap<object, Map<PropertyKey, { fn: Method; bound: Method }>>();
  return new Proxy({} as T, {
    get(_, property) {
      const target = resolve();
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      // Bound once per (object, method): hot loops call the same methods many times.
      let methods = bound.get(target);
      if (!methods) bound.set(target, (methods = new Map()));
      let method = methods.get(property);
      if (method?.fn !== value) methods.set(property, (method = { fn: value as Method, bound: (value as Method).bind(target) }));
      return method.bound;
    },
    has: (_, property) => property in resolve(),
    set: (_, property, value) => Reflect.set(resolve(), property, value),
    ownKeys: () => Reflect.ownKeys(resolve()),
    getOwnPropertyDescriptor: (_, property) => {
      const descriptor = Reflect.getOwnPropertyDescriptor(resolve(), property);
      // A proxy may not report a property of its (empty) target as non-configurable.
      return descriptor ? { ...descriptor, configurable: true } : undefined;
    },
    getPrototypeOf: () => Reflect.getPrototypeOf(resolve()),
  });
}
