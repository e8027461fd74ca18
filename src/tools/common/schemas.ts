/**
 * Schema building blocks every tool family uses, and the components they share.
 *
 * A *component* is a schema with an `$id`: it is registered once with Fastify (so the
 * serialiser, the validators and the OpenAPI document all see it under that name, as
 * `#/components/schemas/<name>` in the document) and referred to with `Ref`. The OpenAPI
 * document is 3.0, so a nullable value is written `nullable: true`, which Ajv and
 * fast-json-stringify both understand.
 */
import { Type, type Static, type TSchema, type TUnsafe } from '@sinclair/typebox';

/** Every component of every family, collected by src/tools/components.ts. */
export type ComponentList = readonly TSchema[];

/** Gives a schema its component name. */
export function component<T extends TSchema>(name: string, schema: T): T {
  return { ...schema, $id: name };
}

/** A reference to a component, typed as the component. */
export function Ref<T extends TSchema>(schema: T, options: Record<string, unknown> = {}): TUnsafe<Static<T>> {
  if (typeof schema.$id !== 'string') throw new Error('Ref needs a component (a schema with an $id)');
  const ref = Type.Unsafe<Static<T>>({ ...options, $ref: schema.$id });
  if (typeof schema.type === 'string') refTypes.set(ref, schema.type);
  return ref;
}

/** The JSON type of the component each reference points at (Nullable needs it). */
const refTypes = new WeakMap<TSchema, string>();

/**
 * The same schema, null allowed (OpenAPI 3.0 `nullable`). A reference is wrapped, as 3.0
 * ignores siblings of `$ref`, with the component's type beside it: Ajv (and so the
 * serialiser) refuses `nullable` without a `type`.
 */
export function Nullable<T extends TSchema>(schema: T): TUnsafe<Static<T> | null> {
  if ('$ref' in schema) {
    const type = refTypes.get(schema);
    return Type.Unsafe<Static<T> | null>({ ...(type ? { type } : {}), allOf: [schema], nullable: true });
  }
  return Type.Unsafe<Static<T> | null>({ ...schema, nullable: true });
}

/** A string that is one of the given values (an OpenAPI `enum`, which a union of literals is not). */
export function StringEnum<const V extends readonly string[]>(values: V, options: Record<string, unknown> = {}): TUnsafe<V[number]> {
  return Type.Unsafe<V[number]>({ ...options, type: 'string', enum: [...values] });
}

/** An integer that is one of the given codes. */
export function IntegerEnum<const V extends readonly number[]>(values: V, options: Record<string, unknown> = {}): TUnsafe<V[number]> {
  return Type.Unsafe<V[number]>({ ...options, type: 'integer', enum: [...values] });
}

/**
 * An object keyed by free strings (dates, months), each value the given schema: OpenAPI's
 * `additionalProperties`, which TypeBox's `Record` (patternProperties) is not.
 */
export function Dictionary<T extends TSchema>(schema: T, options: Record<string, unknown> = {}): TUnsafe<Record<string, Static<T>>> {
  return Type.Unsafe<Record<string, Static<T>>>({ ...options, type: 'object', additionalProperties: schema });
}

/** The contract's error object. */
export const ErrorBody = component(
  'Error',
  Type.Object(
    {
      error: Type.Object({
        type: Type.String({ description: 'The error type, e.g. `InvalidInput`, `RateLimitExceeded`, `AuthenticationError`' }),
        message: Type.String(),
        errors: Type.Optional(Type.Array(Type.String(), { description: 'Each problem found in a request body' })),
        retry_after: Type.Optional(Type.Integer({ description: 'Seconds until a refused request may be sent again' })),
      }),
    },
    { description: 'An error answer' },
  ),
);

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'The request cannot be read',
  401: 'No valid API key',
  402: 'The plan does not include this',
  404: 'No such object for this account',
  409: 'Conflicts with the object as it is',
  413: 'The request body is too large',
  422: 'A parameter or the body is invalid',
  424: 'An upstream data source failed; nothing was charged',
  429: 'A quota pool, burst window or cooldown refused the request',
  500: 'An unexpected failure of the service',
};

/** The error answers of an operation, each the `Error` component. */
export function errorResponses(...codes: number[]): Record<number, TSchema> {
  const out: Record<number, TSchema> = {};
  for (const code of codes) out[code] = Ref(ErrorBody, { description: ERROR_DESCRIPTIONS[code] ?? 'Error' });
  return out;
}

/** An answer without a body (204, or a 200 that carries nothing). */
export function emptyResponse(description: string): TSchema {
  return Type.Null({ description });
}

/**
 * An object id in a URL path (trackings, their keywords, tags, reports, annotations, answer
 * monitors and prompts): ours are 24 hex digits; the pattern lets through nothing that a URL
 * would read as more than one segment (`/`, `..`), which the MCP tools check too (src/mcp).
 */
export const PathId = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' });

/** A keyword as typed by a user: at least one visible character, at most 255 (keyword and SERP tools). */
export const KeywordText = Type.String({ minLength: 1, maxLength: 255, pattern: '\\S' });

/** A location id in a query string: an integer (0 = anywhere). */
export const LocationId = Type.Integer({ minimum: 0, maximum: 2_147_483_647 });
export const LanguageId = Type.Integer({ minimum: 0, maximum: 2_147_483_647 });

/** A location as `/shared/locations` lists it. */
export const Location = component(
  'Location',
  Type.Object({
    _id: Type.Integer(),
    name: Type.String(),
    country_code: Type.String(),
    canonical_name: Type.String(),
    code: Type.String(),
    label: Type.String(),
    engine_domain: Type.String({ description: 'The search engine host for this location, e.g. `www.engine.co.uk`' }),
    type: Type.Integer({ description: 'Location type code' }),
    tld: Type.String(),
    active: Type.Boolean(),
    created_at: Type.Integer({ description: 'Unix seconds' }),
    parent_id: Nullable(Type.Integer()),
    status: Type.String(),
    target_type: Type.String({ description: 'Country, Region, City, …' }),
  }),
);

/** A location named in an answer: id, label and code. */
export const LocationShort = component('LocationShort', Type.Object({ _id: Type.Integer(), label: Type.String(), code: Nullable(Type.String()) }));

/** A location an answer refers to (the same three fields, as the reference names it there). */
export const LocationRef = component('LocationRef', Type.Object({ _id: Type.Integer(), code: Nullable(Type.String()), label: Type.String() }));

/** A language: id, label and code (`null` code for "any language", id 0). */
export const Language = component('Language', Type.Object({ code: Nullable(Type.String()), label: Type.String(), _id: Type.Integer() }));

/** One month of a search-volume history: `[year, month, volume]`, the volume `null` when unknown. */
export const MonthlySearchVolume = component(
  'MonthlySearchVolume',
  Type.Array(Nullable(Type.Integer()), { minItems: 3, maxItems: 3, description: '[year, month, search volume]' }),
);

/** A keyword as the keyword tool answers it. */
export const Keyword = component(
  'Keyword',
  Type.Object({
    _id: Type.String({ description: 'Keyword id: stable for a keyword and location' }),
    cpc: Nullable(Type.Number({ description: 'Cost per click, USD' })),
    kw: Type.String(),
    lid: Type.Integer({ description: 'Location id' }),
    msv: Type.Array(Ref(MonthlySearchVolume), { description: 'Monthly search volumes, newest first' }),
    ppc: Nullable(Type.Number({ description: 'Advertiser competition, 0–100' })),
    seo: Nullable(Type.Integer({ description: 'Keyword difficulty, 0–100' })),
    seo_ts: Nullable(Type.Integer({ description: 'When the difficulty was computed, Unix seconds' })),
    sv: Nullable(Type.Integer({ description: 'Average monthly search volume' })),
    svn: Nullable(Type.Integer()),
    svs: Type.Integer(),
    ts: Type.Integer({ description: 'When the volumes were taken, Unix seconds' }),
  }),
);

export const commonComponents: ComponentList = [ErrorBody, Location, LocationShort, LocationRef, Language, MonthlySearchVolume, Keyword];
