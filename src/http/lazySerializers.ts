/**
 * Response serialisers compiled on a route's first answer instead of at start-up.
 *
 * Fastify compiles a fast-json-stringify function for every response schema of every route
 * (and again for each GET's HEAD twin) while the app gets ready: with this API's schemas that
 * was ~1.8 of a restart's ~7.8 CPU-seconds on the `small` world (issue 26: restart ≤ 5 s),
 * spent on routes most processes never answer. Each route's serialiser is built by Fastify's
 * own default builder, with the same shared schemas and options, the first time it is called,
 * so the bytes written are the same. A schema fast-json-stringify cannot compile would fail
 * its route's first answer rather than the start: `compileAll` (the app's
 * `compileAllSerializers`) compiles every one now, and a test calls it on the whole app.
 */
import { createRequire } from 'node:module';
import type { FastifyServerOptions } from 'fastify';

type SerializerFactory = NonNullable<NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>['buildSerializer']>;
type RouteSchema = Parameters<ReturnType<SerializerFactory>>[0];

/**
 * Fastify's default serialiser builder, taken from Fastify's own dependencies (so always the
 * version Fastify would use itself; it is not a dependency of ours).
 */
export function defaultSerializerFactory(): SerializerFactory {
  const fromFastify = createRequire(createRequire(import.meta.url).resolve('fastify'));
  const { SerializerSelector } = fromFastify('@fastify/fast-json-stringify-compiler') as { SerializerSelector: () => SerializerFactory };
  return SerializerSelector();
}

export interface LazySerializers {
  /** For `Fastify({ schemaController: { compilersFactory: { buildSerializer } } })`. */
  buildSerializer: SerializerFactory;
  /** Compiles every serialiser not compiled yet (throws naming the route whose schema fails); answers how many there are in all. */
  compileAll(): number;
}

export function lazySerializers(): LazySerializers {
  const build = defaultSerializerFactory();
  const all: { route: RouteSchema; compiled: () => unknown }[] = [];
  return {
    buildSerializer: (externalSchemas, options) => {
      const compile = build(externalSchemas, options);
      return (route) => {
        let serialize: ((data: unknown) => string) | undefined;
        const compiled = () => (serialize ??= compile(route));
        all.push({ route, compiled });
        return (data) => (serialize ?? compiled())(data);
      };
    },
    compileAll: () => {
      for (const { route, compiled } of all) {
        try {
          compiled();
        } catch (error) {
          throw new Error(`the ${route.httpStatus} response schema of ${route.method} ${route.url} does not compile: ${(error as Error).message}`, {
            cause: error,
          });
        }
      }
      return all.length;
    },
  };
}
