/**
 * Validation with two Ajv instances: query strings and path parameters are text, so they
 * are coerced to the schema's types (and unknown parameters dropped, so they cannot
 * split the request cache); bodies are JSON and must match their schema as sent.
 */
import AjvModule, { type ErrorObject } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifyError } from 'fastify';
import { ApiError, errors } from './errors.js';
import { hasForbiddenChars } from '../lib/text.js';

const Ajv = AjvModule.default ?? AjvModule;
// ajv-formats is CommonJS: under NodeNext its callable export sits on `default` at run time.
type AddFormats = (ajv: InstanceType<typeof Ajv>) => unknown;
const addFormats = ((addFormatsModule as unknown as { default?: AddFormats }).default ?? addFormatsModule) as AddFormats;

const queryAjv = new Ajv({ coerceTypes: 'array', useDefaults: true, removeAdditional: 'all', allErrors: false, strict: false });
const bodyAjv = new Ajv({ coerceTypes: false, useDefaults: true, removeAdditional: false, allErrors: true, strict: false });
addFormats(queryAjv);
addFormats(bodyAjv);

/** Makes the API's shared components resolvable by `$ref` in request schemas. Idempotent. */
export function addSharedSchemas(schemas: readonly { $id?: string }[]): void {
  for (const ajv of [queryAjv, bodyAjv]) {
    // `schemas`, not `getSchema`: getSchema compiles the schema it finds, every shared one on
    // each later app of the process (most are never used by a request validator).
    for (const schema of schemas) if (schema.$id && !ajv.schemas[schema.$id]) ajv.addSchema(schema);
  }
}

/** Decimal integers only: Ajv's coercion alone would read " " as 0, "1e3" as 1000 and "0x10" as 16. */
const INTEGER_TEXT = /^-?\d+$/;
const NUMBER_TEXT = /^-?\d+(\.\d+)?$/;

/** 'integer' or 'number' when every value a schema accepts is one (unions of literals too), else null. */
/** The parts of a JSON schema that the numeric checks read. */
interface SchemaNode {
  type?: unknown;
  const?: unknown;
  anyOf?: SchemaNode[];
  oneOf?: SchemaNode[];
  properties?: Record<string, SchemaNode>;
}

function numericKind(schema: SchemaNode | null | undefined): 'integer' | 'number' | null {
  if (schema === null || typeof schema !== 'object') return null;
  const variants = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(variants) && variants.length > 0) {
    const kinds = variants.map(numericKind);
    if (kinds.some((k) => k === null)) return null;
    return kinds.every((k) => k === 'integer') ? 'integer' : 'number';
  }
  const types: unknown[] = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.includes('integer')) return 'integer';
  if (types.includes('number')) return Number.isInteger(schema.const) ? 'integer' : 'number';
  return null;
}

/** The top-level members of a query or path schema that are numbers, with the text each must match. */
function numericMembers(schema: SchemaNode | undefined): [string, RegExp][] {
  const out: [string, RegExp][] = [];
  for (const [name, member] of Object.entries(schema?.properties ?? {})) {
    const kind = numericKind(member);
    if (kind === 'integer') out.push([name, INTEGER_TEXT]);
    else if (kind === 'number') out.push([name, NUMBER_TEXT]);
  }
  return out;
}

/** The deepest nesting of a request's values that the text check walks (bodies are at most 1 MB of JSON). */
const MAX_TEXT_DEPTH = 64;

/**
 * Where in a request part (instance path) the first text with a control character, a lone
 * surrogate or a bidi override or isolate is (lib/text.ts), or null. Object keys count too:
 * the error then names the object that holds the key, never the key itself.
 */
function forbiddenTextAt(value: unknown, at = '', depth = 0): string | null {
  if (typeof value === 'string') return hasForbiddenChars(value) ? at : null;
  if (value === null || typeof value !== 'object' || depth > MAX_TEXT_DEPTH) return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = forbiddenTextAt(value[i], `${at}/${i}`, depth + 1);
      if (found !== null) return found;
    }
    return null;
  }
  for (const [key, member] of Object.entries(value)) {
    if (hasForbiddenChars(key)) return at;
    const found = forbiddenTextAt(member, `${at}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`, depth + 1);
    if (found !== null) return found;
  }
  return null;
}

type Validate = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };

/**
 * Every text input of every operation, in one place: after the schema's own checks, a value
 * (a name, keyword, tag, note, prompt, id…) holding a control character (NUL, CR, LF, tab, DEL,
 * C1), a lone surrogate or a bidi override or isolate (U+202E…) is the contract's 422 for its
 * parameter or body field — such text displays as something else or breaks the CSV, e-mail and
 * log lines it is written into. Routes need no check of their own.
 */
function refusingForbiddenText(validate: Validate): Validate {
  const checked: Validate = (data: unknown): boolean => {
    const ok = validate(data);
    checked.errors = validate.errors;
    if (!ok) return false;
    const at = forbiddenTextAt(data);
    if (at === null) return true;
    checked.errors = [
      { instancePath: at, schemaPath: '#/text', keyword: 'text', message: 'must not contain control characters or bidi overrides', params: {} },
    ];
    return false;
  };
  checked.errors = null;
  return checked;
}

interface ValidatorRoute {
  schema: SchemaNode;
  httpPart?: string;
  method?: string;
  url?: string;
}

export interface LazyValidators {
  /** For `app.setValidatorCompiler`: a validator compiled on its first request. */
  compile(route: ValidatorRoute): Validate;
  /** Compiles every validator not compiled yet (throws naming the route whose schema fails); answers how many there are in all. */
  compileAll(): number;
  /** How many are compiled now. */
  compiled(): number;
}

/**
 * Request validators compiled on a route's first request instead of at start-up, as the
 * response serialisers are (lazySerializers.ts): Fastify compiles every route's query,
 * params and body schema while the app gets ready — ~0.15 of a restart's CPU-seconds on this
 * API (issue 26: restart ≤ 5 s) — most of them for routes a process never serves. The same
 * `compileValidator` builds each one, so requests get the same answers; a schema Ajv cannot
 * compile would fail its route's first request rather than the start: `compileAll` (the app's
 * `compileAllValidators`) compiles every one now, and a test calls it on the whole app.
 */
export function lazyValidators(): LazyValidators {
  const all: { route: ValidatorRoute; compiled: () => Validate; done: () => boolean }[] = [];
  return {
    compile: (route) => {
      let validate: Validate | undefined;
      const compiled = () => (validate ??= compileValidator(route));
      const lazy: Validate = (data: unknown): boolean => {
        const v = validate ?? compiled();
        const ok = v(data);
        lazy.errors = v.errors;
        return ok;
      };
      lazy.errors = null;
      all.push({ route, compiled, done: () => validate !== undefined });
      return lazy;
    },
    compileAll: () => {
      for (const { route, compiled } of all) {
        try {
          compiled();
        } catch (error) {
          throw new Error(
            `the ${route.httpPart ?? 'request'} schema of ${route.method ?? ''} ${route.url ?? ''} does not compile: ${(error as Error).message}`,
            {
              cause: error,
            },
          );
        }
      }
      return all.length;
    },
    compiled: () => all.filter((v) => v.done()).length,
  };
}

export function compileValidator({ schema, httpPart }: ValidatorRoute): Validate {
  if (httpPart === 'body') return refusingForbiddenText(bodyAjv.compile(schema) as Validate);
  const validate = queryAjv.compile(schema) as Validate;
  // Only the query string is text a client names things with: a path parameter is an id, a
  // malformed one the contract's 404 (or its pattern's 422), and Node refuses most controls in headers.
  const textChecked = httpPart === 'querystring' ? refusingForbiddenText(validate) : validate;
  const numeric = numericMembers(schema);
  if (numeric.length === 0) return textChecked;
  const strict = (data: unknown): boolean => {
    if (data !== null && typeof data === 'object') {
      for (const [name, text] of numeric) {
        const value = (data as Record<string, unknown>)[name];
        const values: unknown[] = Array.isArray(value) ? value : [value];
        if (values.some((v) => typeof v === 'string' && !text.test(v))) {
          strict.errors = [
            { instancePath: `/${name}`, schemaPath: `#/properties/${name}/type`, keyword: 'type', message: 'must be a decimal number', params: {} },
          ];
          return false;
        }
      }
    }
    const ok = textChecked(data);
    strict.errors = textChecked.errors;
    return ok;
  };
  strict.errors = null as ErrorObject[] | null | undefined;
  return strict;
}

interface AjvIssue {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

function parameterName(issue: AjvIssue): string {
  if (issue.keyword === 'required') return String(issue.params.missingProperty);
  const path = issue.instancePath.replace(/^\//, '').split('/')[0];
  return path || 'request';
}

function bodyMessage(issue: AjvIssue): string {
  const where = issue.instancePath === '' ? 'body' : `body${issue.instancePath.replace(/\//g, '.')}`;
  if (issue.keyword === 'required') return `${where}.${issue.params.missingProperty} is required`;
  if (issue.keyword === 'additionalProperties') return `${where}.${issue.params.additionalProperty} is not allowed`;
  return `${where} ${issue.message ?? 'is invalid'}`;
}

/** Turns a Fastify validation failure into the contract's 422 error. */
export function validationError(err: FastifyError & { validation?: AjvIssue[]; validationContext?: string }): ApiError {
  const issues = err.validation ?? [];
  if (err.validationContext === 'body') return errors.invalidBody(issues.map(bodyMessage).slice(0, 50));
  return errors.invalidParameter(issues.length > 0 ? parameterName(issues[0]) : 'request');
}
