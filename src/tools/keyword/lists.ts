/**
 * Saved keyword lists: create (201), list all, detail (JSON or CSV), rename (204),
 * delete (204), add and remove keywords (204). Another account's list is as unknown as a
 * list that never existed (404).
 */
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { wantsCsv } from '../../http/csv.js';
import { errors } from '../../lib/errors.js';
import { jsonArray, sendCsvStream, sendJsonStream, slices, turns } from '../../http/streamed.js';
import { unixSeconds } from '../../lib/clock.js';
import { cleanText } from '../../lib/text.js';
import { STORED_KEYWORD_IDS_PER_ACCOUNT } from '../../policy/fairUse.js';
import { KeywordLists, ListLimitError, type KeywordListRecord, type StorableIds } from '../../store/keywordLists.js';
import { itemsSent } from '../common/fairUse.js';
import { emptyResponse, errorResponses, Ref } from '../common/schemas.js';
import { keywordCsvRow, parseCsvFields } from './keywordItems.js';
import { presentKeyword, presentList } from './presenters.js';
import {
  AddListKeywordsBody,
  CreateListBody,
  CsvAnswer,
  KeywordToolList,
  keywordTags as tags,
  ListDetail,
  ListDetailQuery,
  ListParams,
  RemoveListKeywordsBody,
  RenameListBody,
} from './schemas.js';

/** A list name as stored: normalised, or refused when it holds control characters or nothing visible. */
function listName(name: string): string {
  const clean = cleanText(name);
  if (clean === null) throw errors.invalidBody(['body.name must hold visible text without control characters, lone surrogates or bidirectional overrides']);
  return clean;
}

const IDS_MEMBER = '"keyword_ids":[]';

/**
 * A list's JSON as presentList gives it, cut where its keyword ids go: the text before them
 * (through `[`) and after them (from `]`). A name holding the member's text is escaped
 * (`\"keyword_ids\"`), so the first match is the member itself.
 */
function listFrame(list: KeywordListRecord): [string, string] {
  const json = JSON.stringify(presentList({ ...list, keyword_ids: [] }));
  const at = json.indexOf(IDS_MEMBER) + IDS_MEMBER.length - 1;
  return [json.slice(0, at), json.slice(at)];
}

function limitError(err: unknown): never {
  if (err instanceof ListLimitError) {
    // The storage quota is a list limit too: 422 with the type the contract gives the list count.
    throw err.limit === 'keywords' ? errors.outOfLimit(err.message) : errors.listLimit(err.message);
  }
  throw err;
}

export async function listRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { clock, locations, state } = app.quarry;
  const { search, sources } = app.quarry;
  const lists = new KeywordLists(state.db, STORED_KEYWORD_IDS_PER_ACCOUNT);
  const now = () => unixSeconds(clock.now());
  /**
   * Keeps only ids the research store knows: a list cannot hold keywords it could never show.
   * Unknown ids still count against the list's limit, as sent (see StorableIds).
   */
  const known: StorableIds = (ids) => search.knownKeywordIds(ids);

  // Registered untyped: the answer is a stream, which the typed reply would refuse (no input to type).
  fastify.get(
    '/lists',
    {
      config: { fairUse: 'bulk' },
      schema: { tags, summary: 'All keyword lists of the account', response: { 200: Type.Array(Ref(KeywordToolList)), ...errorResponses(401) } },
    },
    // Streamed (the same JSON array): all lists of an account can hold 1,000,000 ids, hundreds of
    // megabytes, never built in memory at once nor in one turn of the event loop. Each list's ids
    // are read and written a page at a time, each page in its own turn.
    // The stream bypasses the response schema, so presentList gives every field the schema declares.
    async (req, reply) => {
      const accountId = req.account!.id;
      async function* text(): AsyncGenerator<string> {
        yield '[';
        let first = true;
        for await (const page of turns(lists.listPages(accountId))) {
          for (const list of page) {
            const [head, tail] = listFrame(list);
            yield first ? head : `,${head}`;
            first = false;
            let firstIds = true;
            for await (const ids of turns(lists.keywordIdPages(list._id))) {
              const inner = JSON.stringify(ids).slice(1, -1);
              yield firstIds ? inner : `,${inner}`;
              firstIds = false;
            }
            yield tail;
          }
        }
        yield ']';
      }
      return sendJsonStream(reply, text());
    },
  );

  app.post(
    '/lists',
    {
      config: { fairUse: itemsSent },
      schema: {
        tags,
        summary: 'Create a keyword list',
        description: 'An account holds up to 10,000 lists of up to 10,000 keywords; ids the service never issued are dropped.',
        body: CreateListBody,
        response: { 201: Ref(KeywordToolList), ...errorResponses(401, 422) },
      },
    },
    async (req, reply) => {
      const body = req.body;
      const record = await lists.create(req.account!.id, listName(body.name), body.keyword_ids, now(), known).catch(limitError);
      return reply.code(201).send(presentList(record));
    },
  );

  app.get(
    '/lists/:list_id',
    {
      config: { fairUse: 'bulk' },
      schema: {
        tags,
        summary: 'A keyword list with its keywords (CSV with a .csv suffix, ?ext=csv or Accept: text/csv)',
        params: ListParams,
        querystring: ListDetailQuery,
        response: {
          200: {
            description: 'The list and its keywords; as text/csv, the keywords alone',
            content: { 'application/json': { schema: ListDetail }, 'text/csv': { schema: CsvAnswer } },
          },
          ...errorResponses(401, 404, 422),
        },
      },
    },
    async (req, reply) => {
      let listId = req.params.list_id;
      const suffix = listId.toLowerCase().endsWith('.csv');
      if (suffix) listId = listId.slice(0, -4);
      const csv = wantsCsv(req, suffix);
      const { fields } = req.query;
      const columns = csv ? parseCsvFields(fields) : null;
      if (csv && columns === null) throw errors.invalidParameter('fields');
      const list = await lists.get(req.account!.id, listId);
      if (!list) throw errors.notFound('List not found');
      // Streamed a slice of ids at a time (see http/streamed.ts): a full list is 10,000
      // keywords, built and written over many turns so other requests are answered between.
      const keywordSlices = slices(list.keyword_ids);
      if (csv) {
        const rows = async function* () {
          for await (const ids of keywordSlices) yield (await sources.settleDifficulty(search.keywordsById(ids))).map((k) => keywordCsvRow(k, columns!));
        };
        return sendCsvStream(reply, `${list.name}.csv`, columns!, rows());
      }
      const { keyword_ids: _ids, ...meta } = list;
      const keywords = async function* () {
        for await (const ids of keywordSlices) yield (await sources.settleDifficulty(search.keywordsById(ids))).map((k) => presentKeyword(k, locations));
      };
      // The same document as {keywords, list}, written with the keywords array streamed.
      async function* document(): AsyncGenerator<string> {
        yield '{"keywords":';
        yield* jsonArray(keywords());
        yield `,"list":${JSON.stringify(meta)}}`;
      }
      return sendJsonStream(reply, document());
    },
  );

  app.patch(
    '/lists/:list_id',
    {
      config: { fairUse: () => 0 },
      schema: {
        tags,
        summary: 'Rename a keyword list',
        params: ListParams,
        body: RenameListBody,
        response: { 204: emptyResponse('Renamed'), ...errorResponses(401, 404, 422) },
      },
    },
    async (req, reply) => {
      const { list_id } = req.params;
      const { name } = req.body;
      if (!(await lists.rename(req.account!.id, list_id, listName(name), now()))) throw errors.notFound('List not found');
      return reply.code(204).send();
    },
  );

  app.delete(
    '/lists/:list_id',
    {
      config: { fairUse: () => 0 },
      schema: {
        tags,
        summary: 'Delete a keyword list (keyword data stays)',
        params: ListParams,
        response: { 204: emptyResponse('Deleted'), ...errorResponses(401, 404) },
      },
    },
    async (req, reply) => {
      const { list_id } = req.params;
      if (!(await lists.delete(req.account!.id, list_id))) throw errors.notFound('List not found');
      return reply.code(204).send();
    },
  );

  app.post(
    '/lists/:list_id/keywords',
    {
      config: { fairUse: itemsSent },
      schema: {
        tags,
        summary: 'Add keywords to a list (existing ones are kept once)',
        params: ListParams,
        body: AddListKeywordsBody,
        response: { 204: emptyResponse('Added'), ...errorResponses(401, 404, 422) },
      },
    },
    async (req, reply) => {
      const { list_id } = req.params;
      const { keyword_ids } = req.body;
      const ok = await lists.addKeywords(req.account!.id, list_id, keyword_ids, now(), known).catch(limitError);
      if (!ok) throw errors.notFound('List not found');
      return reply.code(204).send();
    },
  );

  app.delete(
    '/lists/:list_id/keywords',
    {
      config: { fairUse: itemsSent },
      schema: {
        tags,
        summary: 'Remove keywords from a list (absent ones are ignored)',
        params: ListParams,
        body: Type.Optional(RemoveListKeywordsBody),
        response: { 204: emptyResponse('Removed'), ...errorResponses(401, 404, 422) },
      },
      // The body is optional (the contract lists no 422 here), but a DELETE sent without
      // one reaches the validator as undefined, which an object schema refuses.
      preValidation: async (req) => {
        if (req.body === undefined || req.body === null) req.body = {};
      },
    },
    async (req, reply) => {
      const { list_id } = req.params;
      const keyword_ids = req.body?.keyword_ids ?? [];
      if (!(await lists.removeKeywords(req.account!.id, list_id, keyword_ids, now()))) throw errors.notFound('List not found');
      return reply.code(204).send();
    },
  );
}
