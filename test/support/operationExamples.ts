/**
 * A plausible request for every operation of the served OpenAPI document, for tests that
 * call each operation once (the SDK's, the MCP server's). Values come from the parameter
 * and body schemas, with sandbox-web values for well-known names (`kw`, `url`,
 * `location_id`…) and ids taken from earlier answers (a created list, tracking, report…),
 * so the table follows the schemas as they change instead of listing shapes by hand.
 */
import type { OpenApiDoc, Schema } from './reference.js';

export interface OperationCall {
  operationId: string;
  method: string;
  /** Document path with `{param}` segments. */
  path: string;
  pool: string | null;
}

export interface ExampleRequest {
  path: Record<string, unknown>;
  query: Record<string, unknown>;
  body?: unknown;
}

const WELL_KNOWN: Record<string, unknown> = {
  kw: 'running shoes',
  keyword: 'running shoes',
  url: 'openpedia.org',
  domain: 'openpedia.org',
  target: 'openpedia.org',
  location_id: 2840,
  location: 2840,
  language_id: 1000,
  platform_id: 1,
  query: 'berlin',
  name: 'example list',
  email: 'agent@example.test',
  emails: ['agent@example.test'],
  limit: 10,
  page: 1,
  serp_count: 1,
  date: '2026-11-20',
  text: 'example note',
  competitors: ['example.com'],
  location_ids: [2840],
  // Both platforms: the desktop pair exists by then (POST /rank-tool/trackings), so the mobile one is new.
  platform_ids: [1, 2],
};

/** Optional body members sent anyway: each is the reference's form of a body that needs one of several members. */
const OPTIONAL_MEMBERS = new Set(['location_ids', 'tracked_keyword_ids']);

/** The operations of a document, creates first and deletes last, so later calls find ids. */
export function operationsOf(doc: OpenApiDoc): OperationCall[] {
  const ops: OperationCall[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method) || !op.operationId) continue;
      ops.push({ operationId: op.operationId, method, path, pool: (op['x-quota-pool'] as string | undefined) ?? null });
    }
  }
  const rank = (o: OperationCall) => {
    const depth = o.path.split('{').length - 1;
    if (o.method === 'delete') return 100 - depth - o.path.length / 1000; // the deepest objects go first
    if (o.method === 'post' && !o.path.endsWith('}')) return depth * 10;
    return depth * 10 + 5;
  };
  return ops.sort((a, b) => rank(a) - rank(b));
}

/** Ids learned from answers, by path parameter name and family (`/keyword-tool list_id` ≠ `/link-tool list_id`). */
export class IdBook {
  private ids = new Map<string, unknown>();
  get(path: string, name: string): unknown {
    return this.ids.get(`${family(path)} ${name}`) ?? this.ids.get(`* ${name}`);
  }
  set(path: string, name: string, value: unknown): void {
    if (value !== undefined && value !== null && value !== '') this.ids.set(`${family(path)} ${name}`, value);
  }
  /** Reads the ids an answer of this operation makes known to later calls. */
  learn(call: OperationCall, answer: unknown): void {
    const a = answer as any;
    if (!a || typeof a !== 'object') return;
    const first = (list: unknown) => (Array.isArray(list) ? list[0] : undefined) as any;
    const p = call.path;
    if (call.method === 'post' && p === '/keyword-tool/lists') this.set(p, 'list_id', a._id);
    if (p === '/keyword-tool/lists' && call.method === 'get') this.set(p, 'list_id', first(a)?._id ?? first(a.lists)?._id);
    if (p === '/link-tool/favorites') this.set(p, 'list_id', first(a)?._id ?? first(a.lists)?._id);
    if (call.method === 'post' && p === '/rank-tool/trackings') {
      this.set(p, 'tracking_id', a.tracking?._id ?? a._id);
      this.set(p, 'keyword_id', first(a.keywords)?.keyword_id ?? first(a.keywords)?._id ?? first(a.tracking?.tracked_keyword_ids));
    }
    if (p.endsWith('/tracked-keywords') && call.method === 'get') this.set(p, 'keyword_id', first(a)?._id ?? first(a)?.keyword_id);
    if (call.method === 'post' && p === '/rank-tool/trackings') {
      this.set(p, 'tracked_keyword_id', first(a.keywords)?.keyword_id);
      if (first(a.keywords)?.keyword_id) this.set(p, 'tracked_keyword_ids', [first(a.keywords).keyword_id]);
    }
    if (call.method === 'post' && p.endsWith('/tags') && p.startsWith('/rank-tool')) this.set(p, 'tag_id', a._id);
    if (call.method === 'post' && p.endsWith('/annotations')) this.set(p, 'annotation_id', a._id);
    if (call.method === 'post' && p.endsWith('/reports')) this.set(p, 'report_id', a._id ?? first(a)?._id);
    if (p === '/serp-tool/serps') this.set(p, 'serp_id', a.serp_snapshot_id ?? a._id);
    if (call.method === 'post' && p === '/answer-tool/monitor') this.set(p, 'id', a._id);
    if (p === '/answer-tool/monitor/{id}/prompts' && first(a.prompts)?._id) {
      this.set(p, 'prompt_id', first(a.prompts)._id);
      this.set(p, 'prompt_ids', [first(a.prompts)._id]);
    }
    if (p === '/link-tool/links') this.set(p, 'link_id', first(a.links)?._id ?? first(a)?._id);
    if (p === '/keyword-tool/related-keywords') {
      const kw = first(a.keywords) ?? first(a.data) ?? first(a);
      this.set('*', 'keyword_ids', kw?._id ? [kw._id] : undefined);
    }
    for (const [k, v] of Object.entries(a)) if (k.endsWith('_id') && typeof v === 'string' && !this.ids.has(`* ${k}`)) this.set('*', k, v);
  }
}

function family(path: string): string {
  return path === '*' ? '*' : `/${path.split('/')[1]}`;
}

/** A request for the operation: path ids from the book, query and body from the schemas. */
export function exampleRequest(doc: OpenApiDoc, call: OperationCall, ids: IdBook): ExampleRequest {
  const op = doc.paths[call.path][call.method] as any;
  const out: ExampleRequest = { path: {}, query: {} };
  for (const p of (op.parameters ?? []) as { name: string; in: string; required?: boolean; schema?: Schema }[]) {
    // The answer tool names both a monitor's and a prompt's id `id`.
    const name = p.in === 'path' && p.name === 'id' && call.path.startsWith('/answer-tool/prompt/') ? 'prompt_id' : p.name;
    if (p.in === 'path') out.path[p.name] = ids.get(call.path, name) ?? WELL_KNOWN[p.name] ?? 'ffffffffffffffffffffffff';
    else if (p.in === 'query' && (p.required || p.name in WELL_KNOWN))
      out.query[p.name] = WELL_KNOWN[p.name] ?? valueOf(doc, p.schema ?? {}, p.name, ids, call.path);
  }
  const body = op.requestBody?.content?.['application/json']?.schema as Schema | undefined;
  if (body) out.body = valueOf(doc, body, '', ids, call.path);
  return out;
}

function valueOf(doc: OpenApiDoc, schema: Schema, name: string, ids: IdBook, path: string, depth = 0): unknown {
  let s = schema;
  for (let i = 0; s.$ref && i < 10; i++) s = doc.components?.schemas?.[s.$ref.replace('#/components/schemas/', '')] ?? {};
  if (s.allOf?.length) return valueOf(doc, s.allOf[0], name, ids, path, depth + 1);
  if (s.anyOf?.length) return valueOf(doc, s.anyOf[0], name, ids, path, depth + 1);
  if (s.oneOf?.length) return valueOf(doc, s.oneOf[0], name, ids, path, depth + 1);
  const known = ids.get(path, name) ?? WELL_KNOWN[name];
  if (Array.isArray(s.enum) && s.enum.length) return known !== undefined && s.enum.includes(known) ? known : s.enum[0];
  const type = Array.isArray(s.type) ? s.type.find((t: string) => t !== 'null') : s.type;
  if (type === 'object' || s.properties) {
    const obj: Record<string, unknown> = {};
    // Required members, and the optional ones a body needs one of (the reference's forms of multiple-trackings and keyword removal).
    const keys = Object.keys(s.properties ?? {}).filter((key) => (s.required as string[] | undefined)?.includes(key) || OPTIONAL_MEMBERS.has(key));
    for (const key of new Set([...((s.required as string[] | undefined) ?? []), ...keys]))
      obj[key] = valueOf(doc, s.properties?.[key] ?? {}, key, ids, path, depth + 1);
    return obj;
  }
  if (type === 'array') {
    if (Array.isArray(known)) return known;
    const item = valueOf(doc, s.items ?? {}, name.replace(/s$/, ''), ids, path, depth + 1);
    return [item];
  }
  if (known !== undefined && typeof known !== 'object') return known;
  if (type === 'integer' || type === 'number') return typeof s.minimum === 'number' ? Math.max(s.minimum, 1) : 1;
  if (type === 'boolean') return false;
  if (name.endsWith('_id') || name.endsWith('Id')) return 'ffffffffffffffffffffffff';
  return typeof s.minLength === 'number' && s.minLength > 7 ? 'x'.repeat(s.minLength) : 'example';
}
