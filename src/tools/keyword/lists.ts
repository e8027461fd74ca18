/**
 * Saved keyword lists: create (201), list all, detail (JSON or CSV), rename (204),
 * delete (204), add and remove keywords (204). Another account's list is as unknown as a
 * list that never existed (404).
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { sendCsv, wantsCsv } from '../../http/csv.js';
import { errors } from '../../http/errors.js';
import { unixSeconds } from '../../lib/clock.js';
import { KeywordLists, ListLimitError, type StorableIds } from '../../store/keywordLists.js';
import { errorResponses } from '../common/schemas.js';
import { Readable } from 'node:stream';
import { STORED_KEYWORD_IDS_PER_ACCOUNT } from '../../policy/fairUse.js';
import { keywordCsvRow, parseCsvFields, presentKeyword } from './keywordItems.js';

/**
 * Keyword ids as clients send them. No item cap: the body limit bounds the size, and more
 * than a list holds answers the contract's OutOfLimitException, not a validation error.
 */
const KeywordId = Type.String({ minLength: 1, maxLength: 64 });
const KeywordIds = Type.Array(KeywordId);
const ListName = Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' });
const ListParams = Type.Object({ list_id: Type.String({ minLength: 1, maxLength: 100 }) });

const ListRecord = Type.Object({
  _id: Type.String(),
  name: Type.String(),
  keyword_ids: Type.Array(Type.String()),
  user_id: Type.String(),
  creator: Type.String(),
  created_at: Type.Integer(),
  updated_at: Type.Integer(),
});

function limitError(err: unknown): never {
  if (err instanceof ListLimitError) {
    // The storage quota is a list limit too: 422 with the type the contract gives the list count.
    throw err.limit === 'keywords' ? errors.outOfLimit(err.message) : errors.listLimit(err.message);
  }
  throw err;
}

export async function listRoutes(app: FastifyInstance): Promise<void> {
  const { clock, locations, state } = app.quarry;
  const { search } = app.quarry;
  const lists = new KeywordLists(state.db, STORED_KEYWORD_IDS_PER_ACCOUNT);
  const idsSent = (req: FastifyRequest) => (req.body as { keyword_ids?: unknown[] } | undefined)?.keyword_ids?.length ?? 0;
  const now = () => unixSeconds(clock.now());
  /**
   * Keeps only ids the research store knows: a list cannot hold keywords it could never show.
   * Unknown ids still count against the list's limit, as sent (see StorableIds).
   */
  const known: StorableIds = (ids) => search.keywordsById(ids).map((k) => k._id);

  app.get(
    '/lists',
    {
      config: { fairUse: 'bulk' },
      schema: { tags: ['keyword-tool'], summary: 'All keyword lists of the account', response: { 200: Type.Array(ListRecord), ...errorResponses(401) } },
    },
    // Streamed a few lists at a time (the same JSON array): all lists of an account can be
    // hundreds of megabytes, never built in memory at once nor in one turn of the event loop.
    async (req, reply) => {
      const accountId = req.account!.id;
      async function* json(): AsyncGenerator<string> {
        yield '[';
        let first = true;
        for await (const batch of lists.batches(accountId)) {
          const text = batch.map((l) => JSON.stringify(l)).join(',');
          yield first ? text : `,${text}`;
          first = false;
        }
        yield ']';
      }
      return reply.header('content-type', 'application/json; charset=utf-8').send(Readable.from(json()));
    },
  );

  app.post(
    '/lists',
    {
      config: { fairUse: idsSent },
      schema: {
        tags: ['keyword-tool'],
        summary: 'Create a keyword list',
        body: Type.Object({ keyword_ids: KeywordIds, name: ListName }),
        response: { 201: ListRecord, ...errorResponses(401, 422) },
      },
    },
    async (req, reply) => {
      const body = req.body as { keyword_ids: string[]; name: string };
      const record = await lists.create(req.account!.id, body.name.trim(), body.keyword_ids, now(), known).catch(limitError);
      return reply.code(201).send(record);
    },
  );

  app.get(
    '/lists/:list_id',
    {
      config: { fairUse: 'bulk' },
      schema: {
        tags: ['keyword-tool'],
        summary: 'A keyword list with its keywords (CSV with a .csv suffix, ?ext=csv or Accept: text/csv)',
        params: ListParams,
        querystring: Type.Object({ fields: Type.Optional(Type.String({ maxLength: 200 })), ext: Type.Optional(Type.String({ maxLength: 10 })) }),
        response: errorResponses(401, 404, 422),
      },
    },
    async (req: FastifyRequest, reply) => {
      let { list_id: listId } = req.params as { list_id: string };
      const suffix = listId.toLowerCase().endsWith('.csv');
      if (suffix) listId = listId.slice(0, -4);
      const csv = wantsCsv(req, suffix);
      const { fields } = req.query as { fields?: string };
      const columns = csv ? parseCsvFields(fields) : null;
      if (csv && columns === null) throw errors.invalidParameter('fields');
      const list = await lists.get(req.account!.id, listId);
      if (!list) throw errors.notFound('List not found');
      const keywords = search.keywordsById(list.keyword_ids);
      if (csv)
        return sendCsv(
          reply,
          `${list.name}.csv`,
          columns!,
          keywords.map((k) => keywordCsvRow(k, columns!)),
        );
      const { keyword_ids: _ids, ...meta } = list;
      return { keywords: keywords.map((k) => presentKeyword(k, locations)), list: meta };
    },
  );

  app.patch(
    '/lists/:list_id',
    {
      config: { fairUse: () => 0 },
      schema: {
        tags: ['keyword-tool'],
        summary: 'Rename a keyword list',
        params: ListParams,
        body: Type.Object({ name: ListName }),
        response: { 204: Type.Null(), ...errorResponses(401, 404, 422) },
      },
    },
    async (req, reply) => {
      const { list_id } = req.params as { list_id: string };
      const { name } = req.body as { name: string };
      if (!(await lists.rename(req.account!.id, list_id, name.trim(), now()))) throw errors.notFound('List not found');
      return reply.code(204).send();
    },
  );

  app.delete(
    '/lists/:list_id',
    {
      config: { fairUse: () => 0 },
      schema: {
        tags: ['keyword-tool'],
        summary: 'Delete a keyword list (keyword data stays)',
        params: ListParams,
        response: { 204: Type.Null(), ...errorResponses(401, 404) },
      },
    },
    async (req, reply) => {
      const { list_id } = req.params as { list_id: string };
      if (!(await lists.delete(req.account!.id, list_id))) throw errors.notFound('List not found');
      return reply.code(204).send();
    },
  );

  app.post(
    '/lists/:list_id/keywords',
    {
      config: { fairUse: idsSent },
      schema: {
        tags: ['keyword-tool'],
        summary: 'Add keywords to a list (existing ones are kept once)',
        params: ListParams,
        body: Type.Object({ keyword_ids: Type.Array(KeywordId, { minItems: 1 }) }),
        response: { 204: Type.Null(), ...errorResponses(401, 404, 422) },
      },
    },
    async (req, reply) => {
      const { list_id } = req.params as { list_id: string };
      const { keyword_ids } = req.body as { keyword_ids: string[] };
      const ok = await lists.addKeywords(req.account!.id, list_id, keyword_ids, now(), known).catch(limitError);
      if (!ok) throw errors.notFound('List not found');
      return reply.code(204).send();
    },
  );

  app.delete(
    '/lists/:list_id/keywords',
    {
      config: { fairUse: idsSent },
      schema: {
        tags: ['keyword-tool'],
        summary: 'Remove keywords from a list (absent ones are ignored)',
        params: ListParams,
        body: Type.Optional(Type.Object({ keyword_ids: Type.Optional(KeywordIds) })),
        response: { 204: Type.Null(), ...errorResponses(401, 404, 422) },
      },
      // The body is optional (the contract lists no 422 here), but a DELETE sent without
      // one reaches the validator as undefined, which an object schema refuses.
      preValidation: async (req) => {
        if (req.body === undefined || req.body === null) req.body = {};
      },
    },
    async (req, reply) => {
      const { list_id } = req.params as { list_id: string };
      const keyword_ids = (req.body as { keyword_ids?: string[] } | undefined)?.keyword_ids ?? [];
      if (!(await lists.removeKeywords(req.account!.id, list_id, keyword_ids, now()))) throw errors.notFound('List not found');
      return reply.code(204).send();
    },
  );
}
