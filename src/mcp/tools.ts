/**
 * MCP tools derived from the served OpenAPI document, one per operation: the operationId is
 * the tool's name, summary and `x-quota-pool` its description, the operation's parameters
 * and body its input schema. Nothing here lists an operation by hand, so the tools follow
 * the route schemas as they change.
 *
 * A tool call becomes the REST request it describes (see `requestOf`), and its answer a
 * tool result (see `resultOf`): JSON answers as structured content, optionally trimmed to
 * `limit` rows and `fields` columns after the request was answered, charged and cached in
 * full; errors as tool errors carrying the contract's error object.
 */

/** The OpenAPI 3.0 subset this module reads. */
export interface OpenApiSchema {
  $ref?: string;
  type?: string | string[];
  nullable?: boolean;
  properties?: Record<string, OpenApiSchema>;
  required?: string[];
  items?: OpenApiSchema;
  allOf?: OpenApiSchema[];
  anyOf?: OpenApiSchema[];
  oneOf?: OpenApiSchema[];
  additionalProperties?: boolean | OpenApiSchema;
  description?: string;
  [key: string]: unknown;
}
interface OpenApiParameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  description?: string;
  schema?: OpenApiSchema;
}
interface OpenApiOperation {
  operationId?: string;
  summary?: string;
  description?: string;
  parameters?: OpenApiParameter[];
  requestBody?: { required?: boolean; content?: Record<string, { schema?: OpenApiSchema }> };
  'x-quota-pool'?: string;
}
export interface OpenApiDocument {
  paths: Record<string, Record<string, OpenApiOperation>>;
  components?: { schemas?: Record<string, OpenApiSchema> };
}

/** A JSON Schema object as MCP carries it. */
export type JsonSchema = Record<string, unknown>;

export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  inputSchema: { type: 'object'; properties: Record<string, JsonSchema>; required?: string[] };
  annotations: { readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: false };
}

/** Where each argument of a tool goes in the REST request. */
interface ArgumentPlan {
  path: string[];
  /** Each path parameter's schema, which its argument must meet before it is put in the URL. */
  pathSchemas: Record<string, JsonSchema>;
  query: string[];
  /** Body properties given as top-level arguments. */
  bodyFields: string[];
  /** The whole body under one argument (a body that is not an object of fields, or whose names clash). */
  bodyArgument: string | null;
  /** The names of the trim arguments, when the operation's own names leave `limit`/`fields` free. */
  limit: string;
  fields: string;
}

export interface Tool {
  definition: ToolDefinition;
  method: string;
  /** The document path, relative to /v3, with `{param}` segments. */
  path: string;
  pool: string | null;
  plan: ArgumentPlan;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** One tool per operation of the document. */
export function toolsOf(doc: OpenApiDocument): Tool[] {
  const tools: Tool[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op?.operationId) continue;
      tools.push(toolOf(doc, method, path, op));
    }
  }
  return tools;
}

function toolOf(doc: OpenApiDocument, method: string, path: string, op: OpenApiOperation): Tool {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  const plan: ArgumentPlan = { path: [], pathSchemas: {}, query: [], bodyFields: [], bodyArgument: null, limit: 'limit', fields: 'fields' };
  for (const p of op.parameters ?? []) {
    if (p.in !== 'path' && p.in !== 'query') continue;
    properties[p.name] = withDescription(toJsonSchema(doc, p.schema ?? {}), p.description);
    if (p.required || p.in === 'path') required.push(p.name);
    plan[p.in].push(p.name);
    if (p.in === 'path') plan.pathSchemas[p.name] = toJsonSchema(doc, p.schema ?? {});
  }
  const body = op.requestBody?.content?.['application/json']?.schema;
  if (body) {
    const resolved = resolve(doc, body);
    const fields = resolved.type === 'object' && resolved.properties ? Object.keys(resolved.properties) : null;
    if (fields && fields.length > 0 && fields.every((f) => !(f in properties))) {
      for (const f of fields) properties[f] = toJsonSchema(doc, resolved.properties![f]);
      if (op.requestBody?.required !== false) required.push(...(resolved.required ?? []));
      plan.bodyFields = fields;
    } else {
      properties.body = toJsonSchema(doc, body);
      if (op.requestBody?.required) required.push('body');
      plan.bodyArgument = 'body';
    }
  }
  // The trim arguments: `limit` and `fields` unless the operation already takes those names.
  if ('limit' in properties) plan.limit = 'result_limit';
  if ('fields' in properties) plan.fields = 'result_fields';
  properties[plan.limit] = {
    type: 'integer',
    minimum: 1,
    description:
      'Optional trim of the answer shown to you: keep at most this many rows of each list in it. The request is answered, charged and cached in full.',
  };
  properties[plan.fields] = {
    type: 'array',
    items: { type: 'string' },
    minItems: 1,
    description:
      'Optional trim of the answer shown to you: keep only these properties of the answer when they are its own, otherwise of each row of its lists.',
  };

  const pool = op['x-quota-pool'] ?? null;
  const name = op.operationId!;
  const cost = pool
    ? `Paid: draws from the "${pool}" quota pool (see get-keyword-tool-limits for what is left); an identical call within 24 hours is answered from cache at no charge. ` +
      'At most 3 paid calls per second per pool through MCP; a 4th answers RateLimit with retry_after.'
    : 'Free: no quota pool is charged.';
  const summary = op.summary ?? `${method.toUpperCase()} ${path}`;
  const description = [summary.endsWith('.') ? summary : `${summary}.`, op.description, `${method.toUpperCase()} /v3${path}.`, cost].filter(Boolean).join(' ');
  return {
    definition: {
      name,
      title: summary,
      description,
      inputSchema: { type: 'object', properties, ...(required.length ? { required } : {}) },
      annotations: {
        readOnlyHint: method === 'get',
        destructiveHint: method === 'delete',
        idempotentHint: method === 'get' || method === 'put' || method === 'delete',
        openWorldHint: false,
      },
    },
    method: method.toUpperCase(),
    path,
    pool,
    plan,
  };
}

function withDescription(schema: JsonSchema, description: string | undefined): JsonSchema {
  return description && !schema.description ? { ...schema, description } : schema;
}

function resolve(doc: OpenApiDocument, schema: OpenApiSchema, depth = 0): OpenApiSchema {
  if (schema.$ref && depth < 20) {
    const target = doc.components?.schemas?.[schema.$ref.replace('#/components/schemas/', '')];
    return target ? resolve(doc, target, depth + 1) : {};
  }
  return schema;
}

/**
 * An OpenAPI 3.0 schema as self-contained JSON Schema: component references inlined (MCP
 * input schemas carry no components) and `nullable` written as a type that admits null.
 */
export function toJsonSchema(doc: OpenApiDocument, schema: OpenApiSchema, depth = 0): JsonSchema {
  if (depth > 12) return {};
  const s = resolve(doc, schema);
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(s)) {
    if (key === '$ref' || key === '$id' || key === 'nullable' || key === 'xml' || key === 'example') continue;
    if (key === 'properties' && value && typeof value === 'object') {
      out.properties = Object.fromEntries(Object.entries(value as Record<string, OpenApiSchema>).map(([k, v]) => [k, toJsonSchema(doc, v, depth + 1)]));
    } else if ((key === 'items' || key === 'additionalProperties') && value && typeof value === 'object') {
      out[key] = toJsonSchema(doc, value as OpenApiSchema, depth + 1);
    } else if ((key === 'allOf' || key === 'anyOf' || key === 'oneOf') && Array.isArray(value)) {
      out[key] = (value as OpenApiSchema[]).map((v) => toJsonSchema(doc, v, depth + 1));
    } else {
      out[key] = value;
    }
  }
  if (s.nullable) {
    if (typeof out.type === 'string') out.type = [out.type, 'null'];
    else return { anyOf: [out, { type: 'null' }] };
  }
  return out;
}

/** An MCP tool call's arguments as the REST request it stands for. */
export interface RestRequest {
  method: string;
  /** Under /v3, with path parameters filled in and the query string. */
  url: string;
  body?: unknown;
}

export class ToolInputError extends Error {}

export function requestOf(tool: Tool, args: Record<string, unknown>): RestRequest {
  const { plan } = tool;
  let path = tool.path;
  for (const name of plan.path) {
    const value = args[name];
    if (value === undefined || value === null || value === '') throw new ToolInputError(`Parameter ${name} is required`);
    path = path.replace(`{${name}}`, encodeURIComponent(pathArgument(name, value, plan.pathSchemas[name] ?? {})));
  }
  const query = new URLSearchParams();
  for (const name of plan.query) {
    const value = args[name];
    if (value === undefined || value === null) continue;
    for (const v of Array.isArray(value) ? value : [value]) query.append(name, typeof v === 'object' ? JSON.stringify(v) : String(v));
  }
  const qs = query.toString();
  const request: RestRequest = { method: tool.method, url: `/v3${path}${qs ? `?${qs}` : ''}` };
  if (plan.bodyArgument !== null) {
    if (args[plan.bodyArgument] !== undefined) request.body = args[plan.bodyArgument];
  } else if (plan.bodyFields.length > 0) {
    const body: Record<string, unknown> = {};
    for (const f of plan.bodyFields) if (args[f] !== undefined) body[f] = args[f];
    request.body = body;
  }
  return request;
}

/**
 * A path argument as the one URL segment it stands for, or ToolInputError. It must meet its
 * parameter's schema (type, length, pattern), and whatever the schema allows it must not be
 * a dot-segment or carry a slash, backslash or control character: `..` as an id was resolved
 * by the URL into the parent path and so ran another operation than the tool's (issue 28).
 */
function pathArgument(name: string, value: unknown, schema: JsonSchema): string {
  const invalid = () => new ToolInputError(`Parameter ${name} is invalid`);
  const types = ([] as unknown[]).concat(schema.type ?? []);
  let text: string;
  if (types.includes('integer')) {
    text = typeof value === 'number' || typeof value === 'string' ? String(value).trim() : '';
    if (!/^-?\d{1,10}$/.test(text)) throw invalid();
  } else if (typeof value === 'string' || typeof value === 'number') {
    text = String(value);
  } else {
    throw invalid();
  }
  if (text === '.' || text === '..' || /[/\\\p{Cc}\p{Cf}]/u.test(text)) throw invalid();
  if (typeof schema.minLength === 'number' && [...text].length < schema.minLength) throw invalid();
  if (typeof schema.maxLength === 'number' && [...text].length > schema.maxLength) throw invalid();
  if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern, 'u').test(text)) throw invalid();
  if (Array.isArray(schema.enum) && !schema.enum.map(String).includes(text)) throw invalid();
  return text;
}

/** The REST answer as the tool's result. */
export interface RestAnswer {
  statusCode: number;
  contentType: string;
  body: string;
  retryAfter?: string;
}

export interface ToolResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

export function resultOf(tool: Tool, args: Record<string, unknown>, answer: RestAnswer): ToolResult {
  const json = answer.contentType.startsWith('application/json') ? parseJson(answer.body) : undefined;
  if (answer.statusCode >= 400) {
    const error = (json as { error?: { type?: string; message?: string; retry_after?: number } } | undefined)?.error;
    if (error && typeof error === 'object') {
      const retry = error.retry_after !== undefined ? ` (retry_after ${error.retry_after} s: wait that long before calling again)` : '';
      return {
        isError: true,
        content: [{ type: 'text', text: `${error.type ?? 'Error'}: ${error.message ?? ''}${retry}` }],
        structuredContent: { status: answer.statusCode, error },
      };
    }
    // Not the contract's JSON error: the gateway's HTML 429, or an error without a body.
    const gateway = answer.statusCode === 429 && answer.contentType.startsWith('text/html');
    const message = gateway ? 'Too many requests from this address (the gateway limit); wait a second and call again' : `HTTP ${answer.statusCode}`;
    const type = gateway ? 'GatewayRateLimit' : 'Error';
    return {
      isError: true,
      content: [{ type: 'text', text: `${type}: ${message}` }],
      structuredContent: { status: answer.statusCode, error: { type, message } },
    };
  }
  if (answer.statusCode === 204 || answer.body.length === 0) {
    return { content: [{ type: 'text', text: `Done (HTTP ${answer.statusCode}, no content).` }], structuredContent: { status: answer.statusCode } };
  }
  if (json === undefined) {
    // A CSV or other text answer: shown as text, `limit` keeping that many lines after the header.
    const limit = positiveInteger(args[tool.plan.limit]);
    const lines = answer.body.split('\n');
    const text =
      limit !== undefined && lines.length > limit + 1 ? lines.slice(0, limit + 1).join('\n') + `\n… ${lines.length - limit - 1} more lines` : answer.body;
    return { content: [{ type: 'text', text }] };
  }
  const trimmed = trim(json, positiveInteger(args[tool.plan.limit]), stringList(args[tool.plan.fields]));
  const structured = Array.isArray(trimmed) || typeof trimmed !== 'object' || trimmed === null ? { items: trimmed } : (trimmed as Record<string, unknown>);
  return { content: [{ type: 'text', text: JSON.stringify(trimmed) }], structuredContent: structured };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function positiveInteger(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isInteger(v) && v >= 1 ? v : undefined;
}

function stringList(v: unknown): string[] | undefined {
  return Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'string') ? (v as string[]) : undefined;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Trims an answer for an agent's context: every list (a top-level array, or an array
 * property of the answer) cut to `limit` rows, each row object cut to `fields`; a trimmed
 * list is reported under `_trimmed` with its full length. When `fields` names properties
 * of the answer itself, those are kept instead.
 */
export function trim(answer: unknown, limit: number | undefined, fields: string[] | undefined): unknown {
  if (limit === undefined && fields === undefined) return answer;
  const pick = (row: unknown) => (fields && isPlainObject(row) ? Object.fromEntries(fields.filter((f) => f in row).map((f) => [f, row[f]])) : row);
  const cut = (list: unknown[]) => (limit !== undefined ? list.slice(0, limit) : list).map(pick);
  if (Array.isArray(answer)) {
    const rows = cut(answer);
    return rows.length < answer.length ? { items: rows, _trimmed: { items: { total: answer.length, returned: rows.length } } } : rows;
  }
  if (!isPlainObject(answer)) return answer;
  // Fields that name properties of the answer itself pick those (`plan`, `resources` of the limits).
  if (fields?.some((f) => f in answer)) return trim(pick(answer), limit, undefined);
  const lists = Object.entries(answer).filter(([, v]) => Array.isArray(v) && v.some(isPlainObject));
  if (lists.length === 0) return answer;
  const out: Record<string, unknown> = { ...answer };
  const trimmed: Record<string, { total: number; returned: number }> = {};
  for (const [key, value] of lists) {
    const list = value as unknown[];
    out[key] = cut(list);
    if ((out[key] as unknown[]).length < list.length) trimmed[key] = { total: list.length, returned: (out[key] as unknown[]).length };
  }
  if (Object.keys(trimmed).length > 0) out._trimmed = trimmed;
  return out;
}
