/**
 * The published reference (test/fixtures/reference/reference-openapi.json, a copy of
 * ../shared/spec/reference-openapi.json) and two ways to hold Quarry to it:
 *
 * - `compareDocuments` walks every reference operation (all 81, `/answer-tool` included) and lists
 *   each place where our OpenAPI document lacks the operation, a parameter, a request or
 *   response property, or declares an incompatible type;
 * - `assertReferenceShape` validates a live answer against the reference's response schema.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import AjvModule from 'ajv';
import { REFERENCE_DEVIATIONS } from './referenceDeviations.js';

const Ajv = AjvModule.default ?? AjvModule;

export interface Schema {
  $ref?: string;
  type?: string;
  nullable?: boolean;
  properties?: Record<string, Schema>;
  items?: Schema;
  additionalProperties?: Schema | boolean;
  allOf?: Schema[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  required?: string[];
  enum?: unknown[];
  [key: string]: unknown;
}

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema?: Schema;
}

interface Operation {
  operationId?: string;
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  responses?: Record<string, { $ref?: string; content?: Record<string, { schema?: Schema }> }>;
  [key: string]: unknown;
}

export interface OpenApiDoc {
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Schema>; responses?: Record<string, unknown> };
  [key: string]: unknown;
}

export const REFERENCE_FILE = new URL('../fixtures/reference/reference-openapi.json', import.meta.url);
export const reference: OpenApiDoc = JSON.parse(fs.readFileSync(REFERENCE_FILE, 'utf8'));

export const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

/** Every operation of the reference: Quarry implements them all. */
export function referenceOperations(): { method: string; path: string; op: Operation }[] {
  const out: { method: string; path: string; op: Operation }[] = [];
  for (const [path, item] of Object.entries(reference.paths)) {
    for (const method of METHODS) if (item[method]) out.push({ method, path, op: item[method] });
  }
  return out;
}

function resolve(doc: OpenApiDoc, schema: Schema | undefined, seen = 0): Schema | undefined {
  let s = schema;
  for (let i = 0; s && i < 20; i++) {
    if (s.$ref) {
      const name = s.$ref.replace('#/components/schemas/', '');
      s = doc.components?.schemas?.[name];
    } else if (s.allOf && s.allOf.length === 1 && !s.properties) {
      const inner = resolve(doc, s.allOf[0], seen + 1);
      s = inner ? { ...inner, nullable: s.nullable ?? inner.nullable } : inner;
    } else break;
  }
  return s;
}

function typeOf(s: Schema): string | undefined {
  if (s.type) return s.type;
  if (s.properties) return 'object';
  if (s.items) return 'array';
  return undefined;
}

/** Whether a value of our type is always readable as the reference's type. */
function compatible(ours: string | undefined, ref: string | undefined): boolean {
  if (ours === undefined || ref === undefined || ours === ref) return true;
  return ours === 'integer' && ref === 'number';
}

function compareSchemas(ourDoc: OpenApiDoc, ours: Schema | undefined, ref: Schema | undefined, where: string, out: string[], depth = 0): void {
  const r = resolve(reference, ref);
  if (!r || depth > 12) return;
  const o = resolve(ourDoc, ours);
  if (!o) {
    out.push(`${where}: missing`);
    return;
  }
  if (r.anyOf || r.oneOf) return; // a union in the reference: nothing single to hold us to
  const rt = typeOf(r);
  const ot = typeOf(o);
  if (!(o.anyOf || o.oneOf) && !compatible(ot, rt)) {
    out.push(`${where}: type ${ot}${o.nullable ? ' (nullable)' : ''}, reference ${rt}`);
    return;
  }
  if (o.nullable && !r.nullable) out.push(`${where}: nullable, reference is not`);
  if (rt === 'array') compareSchemas(ourDoc, o.items, r.items, `${where}[]`, out, depth + 1);
  for (const [name, prop] of Object.entries(r.properties ?? {})) {
    compareSchemas(ourDoc, o.properties?.[name] ?? additional(o), prop, `${where}.${name}`, out, depth + 1);
  }
  if (typeof r.additionalProperties === 'object') {
    const oa = additional(o);
    compareSchemas(ourDoc, oa, r.additionalProperties, `${where}.*`, out, depth + 1);
  }
}

function additional(s: Schema): Schema | undefined {
  return typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined;
}

function jsonSchemaOf(doc: OpenApiDoc, response: { $ref?: string; content?: Record<string, { schema?: Schema }> } | undefined): Schema | undefined {
  let r = response;
  if (r?.$ref) r = doc.components?.responses?.[r.$ref.replace('#/components/responses/', '')] as typeof r;
  return r?.content?.['application/json']?.schema ?? r?.content?.['text/csv']?.schema;
}

/** Every difference between our document and the reference, one line each: `METHOD /path <where>: <what>`. */
export function compareDocuments(ours: OpenApiDoc): string[] {
  const out: string[] = [];
  for (const { method, path, op } of referenceOperations()) {
    const name = `${method.toUpperCase()} ${path}`;
    const mine = ours.paths[path]?.[method];
    if (!mine) {
      out.push(`${name}: operation missing`);
      continue;
    }
    const diffs: string[] = [];
    if (mine['x-quota-pool'] !== op['x-quota-pool']) diffs.push(`x-quota-pool: ${String(mine['x-quota-pool'])}, reference ${String(op['x-quota-pool'])}`);
    for (const p of op.parameters ?? []) {
      const found = (mine.parameters ?? []).find((q) => q.name === p.name && q.in === p.in);
      if (!found) diffs.push(`${p.in} ${p.name}: missing`);
      else compareSchemas(ours, found.schema, p.schema, `${p.in} ${p.name}`, diffs);
    }
    const refBody = op.requestBody?.content?.['application/json']?.schema;
    if (refBody) compareSchemas(ours, mine.requestBody?.content?.['application/json']?.schema, refBody, 'body', diffs);
    for (const [status, response] of Object.entries(op.responses ?? {})) {
      if (!mine.responses?.[status]) {
        diffs.push(`${status}: response missing`);
        continue;
      }
      const refSchema = jsonSchemaOf(reference, response);
      if (refSchema) compareSchemas(ours, jsonSchemaOf(ours, mine.responses[status]), refSchema, status, diffs);
    }
    for (const d of diffs) out.push(`${name} ${d}`);
  }
  return out;
}

/** Differences not excused by the allow-list in referenceDeviations.ts. */
export function unexcused(differences: string[]): string[] {
  return differences.filter((d) => !REFERENCE_DEVIATIONS.some((dev) => dev.match.test(d)));
}

/** Allow-list entries that no longer match any difference: stale, to be removed. */
export function staleDeviations(differences: string[]): string[] {
  return REFERENCE_DEVIATIONS.filter((dev) => !differences.some((d) => dev.match.test(d))).map((dev) => String(dev.match));
}

const ajv = new Ajv({ strict: false, allErrors: true });
ajv.addSchema({ ...reference, $id: 'reference' });

function pointer(...parts: string[]): string {
  return parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');
}

/** Asserts that an answer matches the reference's schema for that operation and status. */
export function assertReferenceShape(method: string, path: string, status: number, body: unknown): void {
  const response = reference.paths[path]?.[method.toLowerCase()]?.responses?.[String(status)];
  assert.ok(response, `the reference has no ${status} answer for ${method} ${path}`);
  const ref = response.$ref ? `reference#/components/responses/${pointer(response.$ref.replace('#/components/responses/', ''))}` : null;
  const schemaRef = ref
    ? `${ref}/content/application~1json/schema`
    : `reference#/paths/${pointer(path)}/${method.toLowerCase()}/responses/${status}/content/application~1json/schema`;
  const validate = ajv.getSchema(schemaRef) ?? ajv.compile({ $ref: schemaRef });
  const ok = validate(body);
  assert.ok(ok, `${method} ${path} ${status} does not match the reference: ${JSON.stringify(validate.errors?.slice(0, 5))}`);
}
