/**
 * POST /keyword-tool/keywords and /keywords.csv (free): keyword data for ids issued by
 * keyword-producing operations; unknown ids are dropped silently; at most 10,000 ids.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { errors } from '../../lib/errors.js';
import { jsonArray, sendCsvStream, sendJsonStream, slices } from '../../http/streamed.js';
import { errorResponses } from '../common/schemas.js';
import { keywordCsvRow, parseCsvFields } from './keywordItems.js';
import { presentKeyword } from './presenters.js';
import { CsvAnswer, KeywordExportAnswer, KeywordExportBody, keywordTags as tags } from './schemas.js';

export async function keywordExportRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { search, sources, locations } = app.quarry;

  app.post(
    '/keywords',
    {
      config: { fairUse: 'bulk' },
      schema: {
        tags,
        summary: 'Keyword data by id (JSON)',
        description: 'Ids issued by keyword-producing operations (at most 10,000); unknown ids are dropped silently.',
        body: KeywordExportBody,
        response: { 200: KeywordExportAnswer, ...errorResponses(401, 422) },
      },
    },
    // Streamed a slice of ids at a time (http/streamed.ts): 10,000 keywords are built and
    // written over many turns of the event loop, never held as one string.
    async (req, reply) => {
      async function* presented(): AsyncGenerator<unknown[]> {
        for await (const ids of slices(req.body.keyword_ids))
          yield (await sources.settleDifficulty(search.keywordsById(ids))).map((k) => presentKeyword(k, locations));
      }
      return sendJsonStream(reply, jsonArray(presented()));
    },
  );

  app.post(
    '/keywords.csv',
    {
      config: { fairUse: 'bulk' },
      schema: {
        tags,
        summary: 'Keyword data by id as a CSV attachment (columns from `fields`: kw, sv, lid, cpc, ppc, seo, msv)',
        body: KeywordExportBody,
        response: { 200: { description: 'The keywords, one row each', content: { 'text/csv': { schema: CsvAnswer } } }, ...errorResponses(401, 422) },
      },
    },
    async (req, reply) => {
      const { keyword_ids, fields } = req.body;
      const columns = parseCsvFields(fields);
      if (columns === null) throw errors.invalidBody(['body.fields must list columns from kw, sv, lid, cpc, ppc, seo, msv']);
      async function* rows(): AsyncGenerator<(string | number)[][]> {
        for await (const ids of slices(keyword_ids)) yield (await sources.settleDifficulty(search.keywordsById(ids))).map((k) => keywordCsvRow(k, columns!));
      }
      return sendCsvStream(reply, 'keywords.csv', columns, rows());
    },
  );
}
