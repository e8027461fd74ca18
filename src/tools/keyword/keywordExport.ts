/**
 * POST /keyword-tool/keywords and /keywords.csv (free): keyword data for ids issued by
 * keyword-producing operations; unknown ids are dropped silently; at most 10,000 ids.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { sendCsv } from '../../http/csv.js';
import { errors } from '../../http/errors.js';
import { errorResponses } from '../common/schemas.js';
import { keywordCsvRow, parseCsvFields, presentKeyword } from './keywordItems.js';

export const MAX_EXPORT_IDS = 10_000;

const ExportBody = Type.Object({
  // Any string: an id of any length that was never issued is unknown, and dropped silently.
  keyword_ids: Type.Array(Type.String(), { maxItems: MAX_EXPORT_IDS }),
  fields: Type.Optional(Type.String({ maxLength: 200 })),
});

export async function keywordExportRoutes(app: FastifyInstance): Promise<void> {
  const { search, locations } = app.quarry;

  app.post(
    '/keywords',
    {
      config: { fairUse: 'bulk' },
      schema: {
        tags: ['keyword-tool'],
        summary: 'Keyword data by id (JSON)',
        body: ExportBody,
        response: errorResponses(401, 422),
      },
    },
    async (req) => {
      const { keyword_ids } = req.body as { keyword_ids: string[] };
      return search.keywordsById(keyword_ids).map((k) => presentKeyword(k, locations));
    },
  );

  app.post(
    '/keywords.csv',
    {
      config: { fairUse: 'bulk' },
      schema: {
        tags: ['keyword-tool'],
        summary: 'Keyword data by id as a CSV attachment (columns from `fields`: kw, sv, lid, cpc, ppc, seo, msv)',
        body: ExportBody,
        response: errorResponses(401, 422),
      },
    },
    async (req, reply) => {
      const { keyword_ids, fields } = req.body as { keyword_ids: string[]; fields?: string };
      const columns = parseCsvFields(fields);
      if (columns === null) throw errors.invalidBody(['body.fields must list columns from kw, sv, lid, cpc, ppc, seo, msv']);
      const rows = search.keywordsById(keyword_ids).map((k) => keywordCsvRow(k, columns));
      return sendCsv(reply, 'keywords.csv', columns, rows);
    },
  );
}
